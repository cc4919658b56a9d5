test_that("Bradley-Terry on pair counts equals a per-battle logistic fit", {
  battles <- simulate_battles(2000, c(a = 1200, b = 1100, c = 1000, d = 850))
  fit <- arena_ratings(battles, rating_options(bootstrap = 0))
  expect_equal(mean(fit$rating), 1000)
  scores <- predictivebench:::battle_scores(battles)
  models <- unique(c(scores$model_a, scores$model_b))
  x <- matrix(0, nrow(scores), length(models))
  x[cbind(seq_len(nrow(scores)), match(scores$model_a, models))] <- log(10)
  x[cbind(seq_len(nrow(scores)), match(scores$model_b, models))] <- -log(10)
  glm_fit <- suppressWarnings(stats::glm(cbind(scores$score_a, 1 - scores$score_a) ~
                                           x[, -1] - 1, family = stats::binomial()))
  coefs <- c(0, unname(stats::coef(glm_fit)))
  expected <- 400 * (coefs - mean(coefs)) + 1000
  expect_equal(fit$rating[match(models, fit$model)], expected, tolerance = 1e-6)
  expect_equal(fit$model, c("a", "b", "c", "d"))
  expect_equal(sum(fit$battles), 2 * nrow(battles))
  expect_equal(fit$wins + fit$losses + fit$ties, fit$battles)
})

test_that("pair counts aggregate battles without losing any", {
  battles <- simulate_battles(500, c(a = 1000, b = 1000, c = 1000))
  scores <- predictivebench:::battle_scores(battles)
  cells <- predictivebench:::pair_counts(scores)
  expect_equal(sum(cells$n), 500)
  expect_true(all(cells$i < cells$j))
  expect_equal(sum(cells$n[cells$outcome == 3]), sum(battles$winner == "tie"))
})
