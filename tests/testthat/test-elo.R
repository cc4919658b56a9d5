reference_dir <- function() {
  candidates <- c(
    file.path(testthat::test_path(), "..", "..", "..", "shared", "reference", "elobench"),
    "/work/shared/reference/elobench"
  )
  for (dir in candidates) if (dir.exists(dir)) return(normalizePath(dir))
  NULL
}

simulate_battles <- function(n, strength, seed = 1, tie_rate = 0.1) {
  withr::with_seed(seed, {
    models <- names(strength)
    a <- sample(models, n, replace = TRUE)
    b <- vapply(a, function(m) sample(setdiff(models, m), 1), "")
    p <- 1 / (1 + 10^((strength[b] - strength[a]) / 400))
    u <- stats::runif(n)
    winner <- ifelse(u < tie_rate, "tie", ifelse(stats::runif(n) < p, "model_a", "model_b"))
    data.frame(model_a = a, model_b = unname(b), winner = winner,
               question = paste0("q", sample.int(50, n, replace = TRUE)))
  })
}

test_that("online Elo reproduces EloBench on the published quora_100 battles", {
  dir <- reference_dir()
  if (is.null(dir)) skip("The reference folder shared/reference/elobench is absent.")
  battles <- arena_read_battles(file.path(dir, "quora_100_battled_pairs.csv"))
  expect_equal(nrow(battles), 7948)
  ratings <- elo_online(battles)
  expect_lte(abs(ratings[["gpt-4-turbo"]] - 1312.65), 0.01)
  expect_lte(abs(ratings[["chavinlo/alpaca-13b"]] - 589.69), 0.01)
  expect_lte(abs(ratings[["meta-llama/Llama-2-70b-chat-hf"]] - 1310.05), 0.01)
  # The same through arena_ratings(method = "elo").
  tbl <- arena_ratings(battles, method = "elo", bootstrap = 0)
  expect_equal(tbl$model[[1]], "gpt-4-turbo")
  expect_lte(abs(tbl$rating[[1]] - 1312.65), 0.01)
  # Dropping the 72 failed judgements changes the figures.
  dropped <- elo_online(battles, invalid = "drop")
  expect_false(isTRUE(all.equal(dropped[["gpt-4-turbo"]], ratings[["gpt-4-turbo"]])))
})

test_that("one battle moves both ratings by K/2 from equal ratings", {
  r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = "model_a"))
  expect_equal(r, c(x = 1002, y = 998))
  r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = "model_b"), k = 32)
  expect_equal(r, c(x = 984, y = 1016))
  for (w in c("tie", "tie(all bad)", "tie (bothbad)", "invalid", "", NA)) {
    r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = w))
    expect_equal(r, c(x = 1000, y = 1000), info = w)
  }
})

test_that("both ratings update from pre-battle values, in file order", {
  battles <- data.frame(model_a = c("x", "y"), model_b = c("y", "x"),
                        winner = c("model_a", "model_a"))
  r <- elo_online(battles)
  e <- 1 / (1 + 10^((1002 - 998) / 400))
  expect_equal(r[["y"]], 998 + 4 * (1 - e))
  expect_equal(r[["x"]], 1002 + 4 * (0 - (1 - e)))
  # Models are listed as the original lists them: model_a values first.
  three <- data.frame(model_a = c("b", "c"), model_b = c("a", "a"), winner = "tie")
  expect_named(elo_online(three), c("b", "c", "a"))
})

test_that("failed judgements count as ties or are dropped", {
  battles <- data.frame(model_a = c("x", "x"), model_b = c("y", "y"),
                        winner = c("model_a", "invalid"))
  tie <- elo_online(battles)
  drop <- elo_online(battles, invalid = "drop")
  expect_equal(drop, c(x = 1002, y = 998))
  expect_lt(tie[["x"]], 1002)
})

test_that("bad battles are clear errors", {
  expect_error(elo_online(data.frame(model_a = "x", model_b = "y", winner = "A")),
               class = "predictivebench_error_winner")
  err <- tryCatch(elo_online(data.frame(model_a = c("x", "x"), model_b = "y",
                                        winner = c("tie", "won"))),
                  error = identity)
  expect_equal(err$row, 2)
  expect_match(conditionMessage(err), "won")
  expect_error(elo_online(data.frame(model_a = "x", winner = "tie")),
               class = "predictivebench_error_schema")
  expect_error(arena_ratings(data.frame(model_a = character(), model_b = character(),
                                        winner = character())),
               class = "predictivebench_error_argument")
})

test_that("the median over orders is seeded and leaves the global stream alone", {
  battles <- simulate_battles(300, c(a = 1100, b = 1000, c = 900))
  set.seed(42)
  before <- stats::runif(1)
  set.seed(42)
  m1 <- elo_median(battles, n = 30, seed = 3)
  after <- stats::runif(1)
  expect_equal(before, after)
  expect_equal(m1, elo_median(battles, n = 30, seed = 3))
  expect_false(isTRUE(all.equal(m1, elo_median(battles, n = 30, seed = 4))))
  expect_gt(m1[["a"]], m1[["c"]])
})

test_that("Bradley-Terry on pair counts equals a per-battle logistic fit", {
  battles <- simulate_battles(2000, c(a = 1200, b = 1100, c = 1000, d = 850))
  fit <- arena_ratings(battles, bootstrap = 0)
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

test_that("ties are half wins, the anchor fixes one model, and perfect records stay finite", {
  ties <- data.frame(model_a = c("x", "y", "z"), model_b = c("y", "z", "x"), winner = "tie")
  expect_equal(arena_ratings(ties, bootstrap = 0)$rating, c(1000, 1000, 1000))
  one_each <- data.frame(model_a = c("x", "y"), model_b = c("y", "x"),
                         winner = c("model_a", "model_a"))
  expect_equal(arena_ratings(one_each, bootstrap = 0)$rating, c(1000, 1000))
  # One tie between x and y means the same as one win each.
  tie1 <- data.frame(model_a = c("x", "x", "x"), model_b = c("y", "y", "y"),
                     winner = c("model_a", "model_a", "tie"))
  win_each <- data.frame(model_a = c("x", "x", "x", "x", "y"),
                         model_b = c("y", "y", "y", "y", "x"),
                         winner = c("model_a", "model_a", "model_a", "model_a", "model_a"))
  expect_equal(arena_ratings(tie1, bootstrap = 0)$rating[[1]] - 1000,
               400 * log10(2.5 / 0.5) / 2, tolerance = 1e-4)
  anchored <- arena_ratings(simulate_battles(500, c(a = 1100, b = 1000, c = 900)),
                            bootstrap = 0, anchor = "b", anchor_rating = 1500)
  expect_equal(anchored$rating[anchored$model == "b"], 1500)
  expect_error(arena_ratings(tie1, anchor = "nobody"), class = "predictivebench_error_argument")
  sweep <- data.frame(model_a = rep("x", 5), model_b = rep("y", 5), winner = "model_a")
  r <- arena_ratings(sweep, bootstrap = 0)$rating
  expect_true(all(is.finite(r)))
  expect_gt(r[[1]], r[[2]])
  expect_true(nrow(win_each) == 5)
})

test_that("bootstrap intervals by battles and by questions, and ranks from them", {
  battles <- simulate_battles(3000, c(top = 1400, b = 1010, c = 1000, d = 990))
  fit <- arena_ratings(battles, bootstrap = 200, seed = 2)
  expect_true(all(fit$lower <= fit$rating & fit$rating <= fit$upper))
  expect_equal(fit$model[[1]], "top")
  expect_equal(fit$rank[[1]], 1L)
  # The three close models overlap each other, and all are beaten by "top".
  expect_true(all(fit$rank[-1] == 2L))
  expect_equal(fit, arena_ratings(battles, bootstrap = 200, seed = 2))
  by_q <- arena_ratings(battles, bootstrap = 200, by = "questions", seed = 2)
  expect_equal(by_q$rating, fit$rating)
  expect_false(isTRUE(all.equal(by_q$lower, fit$lower)))
  expect_error(arena_ratings(battles[c("model_a", "model_b", "winner")], by = "questions"),
               class = "predictivebench_error_argument")
  elo_fit <- arena_ratings(battles[1:400, ], method = "elo", bootstrap = 30)
  expect_true(all(!is.na(elo_fit$lower)))
  med <- arena_ratings(battles[1:200, ], method = "elo_median", bootstrap = 5, n_orders = 5)
  expect_equal(nrow(med), 4)
})

test_that("pair counts aggregate battles without losing any", {
  battles <- simulate_battles(500, c(a = 1000, b = 1000, c = 1000))
  scores <- predictivebench:::battle_scores(battles)
  cells <- predictivebench:::pair_counts(scores)
  expect_equal(sum(cells$n), 500)
  expect_true(all(cells$i < cells$j))
  expect_equal(sum(cells$n[cells$outcome == 3]), sum(battles$winner == "tie"))
})

test_that("win rates and plots", {
  battles <- data.frame(model_a = c("a", "a", "b", "b"), model_b = c("b", "b", "a", "c"),
                        winner = c("model_a", "tie", "model_b", "model_b"))
  fit <- arena_ratings(battles, bootstrap = 20)
  wr <- predictivebench:::win_rate_matrix(attr(fit, "battles"), fit$model)
  cell <- function(m, o) wr$win_rate[as.character(wr$model) == m & as.character(wr$opponent) == o]
  expect_equal(cell("a", "b"), (1 + 0.5 + 1) / 3)
  expect_equal(cell("b", "a"), 0.5 / 3)
  expect_equal(cell("c", "b"), 1)
  expect_true(is.na(cell("a", "c")))
  skip_if_not_installed("ggplot2")
  p1 <- ggplot2::autoplot(fit)
  p2 <- ggplot2::autoplot(fit, type = "winrate")
  expect_s3_class(p1, "ggplot")
  expect_s3_class(p2, "ggplot")
  path <- withr::local_tempfile(fileext = ".png")
  grDevices::png(path)
  out <- plot(fit, type = "winrate")
  grDevices::dev.off()
  expect_s3_class(out, "ggplot")
  expect_true(file.size(path) > 0)
  expect_output(print(fit), "Arena ratings")
})

test_that("a model absent from a bootstrap replicate gets NA there, not the initial rating", {
  # `c` plays only on q2 and wins every battle it plays; resampling the two questions leaves
  # q2 out of about a quarter of the replicates.
  battles <- data.frame(
    model_a = c("a", "a", "b", "c", "c", "c", "c"),
    model_b = c("b", "b", "a", "a", "b", "a", "b"),
    winner = c("model_a", "model_a", "model_b", "model_a", "model_a", "model_a", "model_a"),
    question = c("q1", "q1", "q1", "q2", "q2", "q2", "q2")
  )
  scores <- predictivebench:::battle_scores(battles)
  models <- predictivebench:::battle_models(scores)
  for (method in c("bt", "elo", "elo_median")) {
    fitter <- predictivebench:::rating_fitter(method, scores, models, k = 4, initial = 1000,
                                              scale = 400, base = 10, n_orders = 3, seed = 1)
    fitter$full()
    draws <- withr::with_seed(3, fitter$bootstrap(40, "questions"))
    colnames(draws) <- models
    absent <- is.na(draws[, "c"])
    expect_true(any(absent), info = method)
    expect_false(all(absent), info = method)
    # Only c can be absent (a and b play on both questions), and when c plays it is on top.
    expect_false(anyNA(draws[, c("a", "b")]), info = method)
    expect_true(all(draws[!absent, "c"] > 1000), info = method)
    fit <- arena_ratings(battles, method = method, bootstrap = 40, by = "questions",
                         n_orders = 3, seed = 3)
    # The interval comes from the replicates in which c played: all above 1000.
    expect_gt(fit$lower[fit$model == "c"], 1000)
    expect_true(all(!is.na(fit$lower) & !is.na(fit$upper)), info = method)
  }
})

test_that("the Elo methods resample by questions too", {
  battles <- simulate_battles(400, c(a = 1200, b = 1000, c = 800))
  by_b <- arena_ratings(battles, method = "elo", bootstrap = 30, seed = 2)
  by_q <- arena_ratings(battles, method = "elo", bootstrap = 30, by = "questions", seed = 2)
  expect_equal(by_q$rating, by_b$rating)
  expect_equal(by_q$model, c("a", "b", "c"))
  expect_true(all(by_q$lower <= by_q$upper))
  expect_false(isTRUE(all.equal(by_q$lower, by_b$lower)))
  expect_equal(by_q, arena_ratings(battles, method = "elo", bootstrap = 30, by = "questions",
                                   seed = 2))
  med <- arena_ratings(battles[1:150, ], method = "elo_median", bootstrap = 5, n_orders = 5,
                       by = "questions", seed = 2)
  expect_true(all(!is.na(med$lower) & med$lower <= med$upper))
  expect_error(arena_ratings(battles[c("model_a", "model_b", "winner")], method = "elo",
                             by = "questions"),
               class = "predictivebench_error_argument")
})
