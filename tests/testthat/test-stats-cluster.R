test_that("the naive standard error is sd / sqrt(n), worked by hand", {
  # c(2, 4, 6): mean 4, squared residuals 4 + 0 + 4 = 8, sd = sqrt(8 / 2) = 2
  expect_equal(clustered_se(c(2, 4, 6)), 2 / sqrt(3))
  # six 0/1 scores: sd = sqrt(1.5 / 5), se = sqrt(0.3 / 6) = sqrt(0.05)
  expect_equal(clustered_se(c(1, 1, 1, 0, 0, 0)), sqrt(0.05))
  expect_true(is.na(clustered_se(1)))
})

test_that("the clustered standard error on two clusters, worked by hand", {
  x <- c(1, 1, 1, 0, 0, 0)
  # residuals +-0.5; cluster sums 1.5 and -1.5; sum of squares 4.5; G / (G - 1) = 2:
  # sqrt(2 * 4.5) / 6 = 3 / 6
  expect_equal(clustered_se(x, cluster = c(1, 1, 1, 2, 2, 2)), 0.5)
  expect_equal(clustered_se(x, cluster = c(1, 1, 1, 2, 2, 2), small_sample = FALSE),
               sqrt(4.5) / 6)
  # clusters {1, 1, 0} and {1, 0, 0}: sums 0.5 and -0.5, sqrt(2 * 0.5) / 6
  expect_equal(clustered_se(x, cluster = c(1, 2, 1, 2, 1, 2)), 1 / 6)
  # one score per cluster is the naive standard error
  expect_equal(clustered_se(x, cluster = 1:6), clustered_se(x))
  expect_true(is.na(clustered_se(x, cluster = rep("a", 6))))
})

test_that("missing scores are dropped with their cluster labels", {
  expect_equal(clustered_se(c(1, 1, NA, 1, 0, 0, 0), cluster = c(1, 1, 1, 1, 2, 2, 2)), 0.5)
  expect_error(clustered_se(1:3, cluster = 1:2), class = "predictivebench_error_argument")
  expect_error(clustered_se(1:3, cluster = c(1, NA, 2)),
               class = "predictivebench_error_argument")
})

test_that("mean_ci(cluster = ) uses the clustered standard error", {
  x <- c(1, 1, 1, 0, 0, 0)
  ci <- mean_ci(x, cluster = c(1, 1, 1, 2, 2, 2))
  z <- stats::qnorm(0.975)
  expect_equal(c(ci$lower, ci$upper), c(0.5 - z * 0.5, 0.5 + z * 0.5))
  expect_equal(ci$n_clusters, 2L)
  expect_equal(ci$se, 0.5)
  # singleton clusters: the naive interval
  naive <- mean_ci(x)
  single <- mean_ci(x, cluster = 1:6)
  expect_equal(c(single$lower, single$upper), c(naive$lower, naive$upper))
  # clipped to limits
  clipped <- mean_ci(x, cluster = c(1, 1, 1, 2, 2, 2), limits = c(0, 1))
  expect_equal(c(clipped$lower, clipped$upper), c(0, 1))
})

test_that("the clustered bootstrap resamples whole clusters", {
  x <- c(1, 1, 1, 0, 0, 0)
  ci <- mean_ci(x, cluster = c(1, 1, 1, 2, 2, 2), method = "bootstrap", times = 200)
  # each replicate is two whole clusters: its mean is 0, 0.5 or 1
  expect_true(ci$lower == 0 && ci$upper == 1)
  narrow <- mean_ci(x, cluster = c(1, 2, 1, 2, 1, 2), method = "bootstrap", times = 200)
  expect_true(narrow$lower >= 1 / 3 && narrow$upper <= 2 / 3)
})

test_that("grouped_summary() passes clusters to each group", {
  x <- c(1, 1, 0, 0, 1, 0)
  rows <- grouped_summary(x, by = c("a", "a", "a", "a", "b", "b"),
                          cluster = c(1, 1, 2, 2, 3, 4))
  expect_equal(rows$n_clusters, c(4L, 2L, 2L))
  expect_equal(rows$se_method, rep("clustered", 3))
  # group a: clusters {1, 1} and {0, 0} around 0.5: sqrt(2 * (1^2 + 1^2)) / 4 = 0.5
  z <- stats::qnorm(0.975)
  expect_equal(rows$upper[[2]], 0.5 + z * 0.5)
  expect_false("se_method" %in% names(grouped_summary(x)))
})

test_that("resolve_cluster() reads the benchmark's default or the user's choice", {
  samples <- data.frame(id = c("a", "a", "b"), competition_id = c(1, 1, 2))
  expect_equal(resolve_cluster(samples, "default", "competition_id"), c(1, 1, 2))
  expect_equal(resolve_cluster(samples, "id"), c("a", "a", "b"))
  expect_null(resolve_cluster(samples, NULL))
  expect_equal(resolve_cluster(samples, c(5, 5, 6)), c(5, 5, 6))
  expect_error(resolve_cluster(samples, "nope"), class = "predictivebench_error_argument")
})

test_that("simulation: naive intervals under-cover clustered data, clustered ones do not", {
  # 20 clusters of 10 items with cluster rates Beta(2, 2) around 0.5 (bench/stats-coverage.R
  # runs more replicates: naive about 0.76, clustered about 0.93)
  covered <- withr::with_seed(11, replicate(300, {
    rate <- stats::rbeta(20, 2, 2)
    cluster <- rep(1:20, each = 10)
    x <- as.double(stats::runif(200) < rate[cluster])
    naive <- mean_ci(x)
    clustered <- mean_ci(x, cluster = cluster)
    c(naive$lower <= 0.5 && naive$upper >= 0.5,
      clustered$lower <= 0.5 && clustered$upper >= 0.5)
  }))
  coverage <- rowMeans(covered)
  expect_lt(coverage[[1]], 0.85)
  expect_gt(coverage[[2]], 0.9)
  expect_lt(coverage[[2]], 0.99)
})

test_that("futurex_summary() clusters an item's epochs", {
  samples <- data.frame(id = rep(c("a", "b", "c", "d"), each = 2), level = 1,
                        score = c(1, 1, 0, 0, 1, 1, 0, 1))
  s <- futurex_summary(samples)
  level1 <- s[s$group == "level 1", ]
  ci <- mean_ci(samples$score, cluster = samples$id, limits = c(0, 1))
  expect_equal(c(level1$lower, level1$upper), c(ci$lower, ci$upper))
  # item sums of residuals (mean 0.625): 0.75, -1.25, 0.75, -0.25; sqrt(4/3 * 2.75) / 8
  expect_equal(ci$se, sqrt(4 / 3 * 2.75) / 8)
  naive <- futurex_summary(samples, cluster = NULL)
  expect_lt(naive$upper[[2]] - naive$lower[[2]], level1$upper - level1$lower)
  # one epoch: the default is exactly the naive summary
  one <- samples[c(1, 3, 5, 7), ]
  expect_equal(futurex_summary(one), futurex_summary(one, cluster = NULL))
  expect_equal(futurex_summary(one, method = "bootstrap", times = 200),
               futurex_summary(one, method = "bootstrap", times = 200, cluster = NULL))
})

test_that("processbench_summary() clusters solutions of one problem", {
  samples <- tibble::tibble(
    id = paste0("s", 1:8), problem = rep(c("p1", "p2", "p3", "p4"), each = 2),
    label = c(1, 2, 0, 3, 1, 1, 2, 0), result = c("1", "2", "5", "5", "1", "1", "0", "1")
  )
  summarise <- function(...) suppressMessages(processbench_summary(samples, by = NULL, ...))
  s <- summarise()
  err <- s[s$metric == "error_acc", ]
  ci <- mean_ci(c(1, 1, 0, 0, 1, 1, 0, 0), cluster = samples$problem, limits = c(0, 1))
  expect_equal(c(err$lower, err$upper), c(ci$lower, ci$upper))
  naive <- summarise(cluster = NULL)
  expect_lt(naive$upper[[1]] - naive$lower[[1]], err$upper - err$lower)
  # one solution per problem: the naive interval
  samples$problem <- paste0("p", 1:8)
  expect_equal(summarise(), summarise(cluster = NULL))
})

test_that("deltabench_summary() clusters solutions of one problem", {
  yes <- "Conclusion: yes\nError Section Number: 2"
  no <- "Conclusion: no error"
  samples <- tibble::tibble(
    id = paste0("s", 1:8), problem = rep(c("p1", "p2", "p3", "p4"), each = 2),
    task_l1 = "math", error_sections = rep(list(2L), 8),
    unuseful_sections = rep(list(integer()), 8),
    result = c(yes, yes, no, no, yes, yes, no, no)
  )
  summarise <- function(...) suppressMessages(deltabench_summary(samples, by = NULL, ...))
  clustered <- summarise()
  naive <- summarise(cluster = NULL)
  at <- clustered$metric == "accuracy"
  expect_equal(clustered$estimate, naive$estimate)
  # accuracy 1 1 0 0 1 1 0 0: problem sums +-1, se = sqrt(4 / 3 * 4) / 8
  z <- stats::qnorm(0.975)
  expect_equal(clustered$upper[at], min(1, 0.5 + z * sqrt(16 / 3) / 8))
  expect_lt(naive$upper[at] - naive$lower[at], clustered$upper[at] - clustered$lower[at])
  samples$problem <- paste0("p", 1:8)
  expect_equal(summarise(), summarise(cluster = NULL))
})

test_that("solutions cluster on their problem when several share one", {
  expect_equal(solution_cluster(data.frame(id = c("a", "b"), problem = c("p", "p"))), "problem")
  expect_equal(solution_cluster(data.frame(id = c("a", "b"), problem = c("p", "q"))), "id")
  expect_equal(solution_cluster(data.frame(id = c("a", "b"))), "id")
  # one shared function for both benchmarks whose items are solutions
  expect_identical(registration("deltabench")$cluster, registration("processbench")$cluster)
})
