test_that("mean_ci: normal interval by hand", {
  x <- c(1, 0, 1, 1)
  ci <- mean_ci(x)
  half <- qnorm(0.975) * sd(x) / 2
  expect_equal(ci$mean, 0.75)
  expect_equal(c(ci$lower, ci$upper), c(0.75 - half, 0.75 + half))
  expect_equal(ci$n, 4L)
  expect_equal(mean_ci(c(1, NA))$n_missing, 1L)
  expect_true(is.na(mean_ci(numeric())$mean))
  clipped <- mean_ci(c(1, 0, 0, 0), limits = c(0, 1))
  expect_equal(clipped$lower, 0)
  expect_lt(mean_ci(c(1, 0, 0, 0))$lower, 0)
})

test_that("bootstrap interval is reproducible and brackets the mean", {
  x <- c(rep(1, 30), rep(0, 10))
  a <- mean_ci(x, method = "bootstrap", seed = 3)
  b <- mean_ci(x, method = "bootstrap", seed = 3)
  expect_identical(a, b)
  expect_true(a$lower < 0.75 && a$upper > 0.75)
})

test_that("grouped summaries put overall first, in the summary shape", {
  g <- grouped_summary(c(1, 0, 1, 1, 0), by = c("a", "a", "b", "b", "b"), metric = "accuracy")
  expect_equal(names(g)[1:6], c("group", "metric", "estimate", "lower", "upper", "n"))
  expect_equal(g$group, c("overall", "a", "b"))
  expect_equal(g$metric, rep("accuracy", 3))
  expect_equal(g$estimate, c(0.6, 0.5, 2 / 3))
  expect_equal(g$n, c(5L, 2L, 3L))
  expect_equal(grouped_summary(c(1, NA, 0))$n_missing, 1L)
  expect_error(grouped_summary(1:2, by = "a"), class = "predictivebench_error_argument")
})

test_that("F1 helpers", {
  expect_equal(f1_score(0.5, 1), 2 / 3)
  expect_true(is.na(f1_score(0, 0)))
  expect_equal(set_f1(c("A", "B"), c("B", "C")), 0.5)
  expect_equal(set_f1(character(), character()), 1)
  expect_equal(set_f1("A", character()), 0)
})

test_that("scores all at one limit get a Wilson interval, not a zero-width one", {
  z <- stats::qnorm(0.975)
  zeros <- mean_ci(rep(0, 10), limits = c(0, 1))
  # Wilson at p = 0: [0, z^2 / (n + z^2)] = [0, 3.8415 / 13.8415]
  expect_equal(c(zeros$lower, zeros$upper), c(0, z^2 / (10 + z^2)))
  expect_equal(round(zeros$upper, 3), 0.278)
  ones <- mean_ci(rep(1, 10), limits = c(0, 1))
  expect_equal(c(ones$lower, ones$upper), c(10 / (10 + z^2), 1))
  # on another scale (percent) the same interval, scaled
  pct <- mean_ci(rep(100, 10), limits = c(0, 100))
  expect_equal(pct$lower, 100 * 10 / (10 + z^2))
  # without limits, or with a spread, the normal interval as before
  expect_equal(mean_ci(rep(0, 10))$upper, 0)
  mixed <- mean_ci(c(rep(0, 9), 1), limits = c(0, 1))
  expect_equal(mixed$upper, 0.1 + z * stats::sd(c(rep(0, 9), 1)) / sqrt(10))
})

test_that("a bound at a limit is the limit exactly, not a rounding error beside it", {
  # the Wilson lower bound at p = 0 computes as 2.78e-17 before snapping
  z <- stats::qnorm(0.975)
  n <- 10
  raw <- (z^2 / (2 * n)) / (1 + z^2 / n) - z / (1 + z^2 / n) * sqrt(z^2 / (4 * n^2))
  expect_false(identical(raw, 0))
  expect_identical(mean_ci(rep(0, n), limits = c(0, 1))$lower, 0)
  expect_identical(mean_ci(rep(1, n), limits = c(0, 1))$upper, 1)
  expect_identical(mean_ci(rep(0, 4), limits = c(0, 1), cluster = c(1, 1, 2, 3))$lower, 0)
  expect_identical(clip_to_limits(c(-1e-17, 1 + 1e-17, 0.5), c(0, 1)), c(0, 1, 0.5))
})

test_that("a single score at a limit gets the promised Wilson interval", {
  z <- stats::qnorm(0.975)
  one <- mean_ci(1, limits = c(0, 1))
  expect_equal(c(one$lower, one$upper), c(1 / (1 + z^2), 1))
  zero <- mean_ci(0, limits = c(0, 1))
  expect_equal(c(zero$lower, zero$upper), c(0, z^2 / (1 + z^2)))
  clustered <- mean_ci(0, limits = c(0, 1), cluster = "a")
  expect_equal(clustered$upper, z^2 / (1 + z^2))
  # one score inside the range says nothing about spread: no interval
  expect_true(is.na(mean_ci(0.5, limits = c(0, 1))$lower))
  # the rows of a one-item group carry the interval too
  g <- grouped_summary(c(1, 0, 1), by = c("a", "a", "b"), limits = c(0, 1))
  expect_equal(g$lower[g$group == "b"], 1 / (1 + z^2))
})

test_that("mean_ci()'s interval labels are one function's, read by every mean_ci() benchmark", {
  expect_equal(mean_ci_interval("normal"), "95% normal (or Wilson) interval")
  expect_equal(mean_ci_interval("bootstrap"), "95% bootstrap (or Wilson) interval")
  expect_equal(registration("probsem")$interval, registration("dsbench")$interval)
})

test_that("a bootstrap of scores all at one limit gives the Wilson interval, not a point", {
  # every resample of ten 1s is 1: the percentile interval would read [1, 1]
  z <- stats::qnorm(0.975)
  ones <- mean_ci(rep(1, 10), method = "bootstrap", limits = c(0, 1))
  expect_equal(c(ones$lower, ones$upper), c(10 / (10 + z^2), 1))
  zeros <- mean_ci(rep(0, 8), method = "bootstrap", limits = c(0, 1), cluster = rep(1:4, 2))
  expect_equal(c(zeros$lower, zeros$upper), c(0, z^2 / (4 + z^2)))  # 4 clusters
  g <- grouped_summary(rep(1, 5), metric = "accuracy", method = "bootstrap", limits = c(0, 1))
  expect_lt(g$lower, 1)
})

test_that("scores all equal inside the range get an interval the data allow, not a point", {
  # ten scores of 0.5: any other value may hold for up to w = z^2 / (n + z^2) of the items
  # (the Wilson bound of a proportion seen 0 times in n), so the mean lies in
  # [0.5 (1 - w), 0.5 + 0.5 w]; at a limit this is the Wilson interval itself
  z <- stats::qnorm(0.975)
  w <- z^2 / (10 + z^2)
  for (method in c("normal", "bootstrap")) {
    half <- mean_ci(rep(0.5, 10), method = method, limits = c(0, 1))
    expect_equal(c(half$lower, half$upper), c(0.5 * (1 - w), 0.5 + 0.5 * w))
  }
  clustered <- mean_ci(rep(0.25, 6), limits = c(0, 1), cluster = rep(1:3, 2))
  w3 <- z^2 / (3 + z^2)
  expect_equal(c(clustered$lower, clustered$upper), c(0.25 * (1 - w3), 0.25 + 0.75 * w3))
  # coverage: scores 0.5 but a rare 1 (one item in ten), n = 10: the true mean is 0.55, and
  # a third of the runs see only 0.5s
  covered <- withr::with_seed(3, replicate(400, {
    x <- ifelse(stats::runif(10) < 0.1, 1, 0.5)
    ci <- mean_ci(x, limits = c(0, 1))
    ci$lower <= 0.55 && 0.55 <= ci$upper
  }))
  expect_gt(mean(covered), 0.93)
})
