test_that("arena_compare() gives the rating difference with a joint bootstrap", {
  battles <- withr::with_seed(1, {
    strength <- c(a = 0.6, b = 0.3, c = 0)
    pairs <- t(replicate(1500, sample(names(strength), 2)))
    p <- stats::plogis(strength[pairs[, 1]] - strength[pairs[, 2]])
    data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
               winner = ifelse(stats::runif(1500) < p, "model_a", "model_b"),
               question = sample(1:100, 1500, TRUE))
  })
  ratings <- arena_ratings(battles, rating_options(bootstrap = 0))
  r <- stats::setNames(ratings$rating, ratings$model)
  out <- arena_compare(battles, "a", "c", rating_options(bootstrap = 200))
  expect_equal(out$difference, r[["a"]] - r[["c"]])
  expect_equal(c(out$x, out$y), c(r[["a"]], r[["c"]]))
  # true difference 0.6 in log-odds is 0.6 * 400 / log(10) = 104 points
  expect_true(out$lower < 104 && out$upper > 104)
  expect_lt(out$p_value, 0.01)
  expect_equal(out$se_unpaired > 0, TRUE)
  by_q <- arena_compare(battles, "a", "b", rating_options(bootstrap = 200, by = "questions"))
  expect_equal(by_q$n_clusters, 100L)
  expect_error(arena_compare(battles, "a", "zzz"), class = "predictivebench_error_argument")
})

test_that("arena_compare() with style control compares style-adjusted ratings", {
  battles <- withr::with_seed(3, {
    typical <- c(terse = 40, long = 140)
    pairs <- t(replicate(1500, sample(names(typical), 2)))
    len_a <- round(typical[pairs[, 1]] * stats::rlnorm(1500, 0, 0.6))
    len_b <- round(typical[pairs[, 2]] * stats::rlnorm(1500, 0, 0.6))
    p <- stats::plogis(3 * (len_a - len_b) / (len_a + len_b))
    data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
               winner = ifelse(stats::runif(1500) < p, "model_a", "model_b"),
               answer_a = strrep("w ", len_a), answer_b = strrep("w ", len_b))
  })
  plain <- arena_compare(battles, "long", "terse", rating_options(bootstrap = 100))
  styled <- arena_compare(battles, "long", "terse",
                          rating_options(bootstrap = 100, style_control = TRUE))
  expect_lt(plain$p_value, 0.01)
  expect_true(styled$lower < 0 && styled$upper > 0)
})
