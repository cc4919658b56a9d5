skip_if_not_installed("ggplot2")

test_that("a summary plot says what the interval is and how many samples each bar has", {
  rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("a", "a", "b", "b", "b"), limits = c(0, 1))
  p <- ggplot2::autoplot(benchmark_summary(rows, "demo", by = "suite",
                                           interval = "95% Wilson interval"))
  expect_s3_class(p, "ggplot")
  expect_match(p$labels$title, "demo by suite")
  expect_match(p$labels$y, "95% Wilson interval")
  expect_match(gsub("\n", " ", p$labels$subtitle), "samples behind each bar")
  built <- ggplot2::ggplot_build(p)
  labels <- unlist(lapply(built$data, function(d) d$label))
  expect_setequal(labels, c("n = 5", "n = 2", "n = 3"))
  expect_equal(p$labels$x, "suite")
})

test_that("a leaderboard plot has a panel per benchmark metric and a bar per model", {
  local_arith_benchmark()
  runs <- lapply(c("2", "4"), function(answer) {
    tsk <- arith_task(dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    tsk$eval(solver_chat = baseline_constant(answer), view = FALSE)
    tsk
  })
  board <- leaderboard(!!!runs)
  p <- ggplot2::autoplot(board)
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 2)
  expect_match(p$labels$y, "95% confidence interval")
  expect_true("n = 4" %in% unlist(lapply(built$data, function(d) d$label)))
  expect_error(benchmark_summary(data.frame(x = 1), "demo"),
               class = "predictivebench_error_argument")
})

test_that("a summary with several metrics per group gets a panel per metric", {
  rows <- rbind(grouped_summary(c(1, 0, 1, 1), by = c("x", "x", "y", "y"), metric = "acc"),
                grouped_summary(c(0, 0, 1), by = c("x", "x", "y"), metric = "f1"))
  p <- autoplot_summary(rows, by = "task", interval = "95% normal interval")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 2)
  expect_equal(p$labels$x, "task")
  expect_setequal(unlist(lapply(built$data, function(d) d$label)),
                  c("n = 4", "n = 2", "n = 3", "n = 1"))
})

test_that("a leaderboard of benchmarks with different intervals names each in the caption", {
  board <- structure(
    tibble::tibble(benchmark = c("a", "b"), model = "m", metric = "overall",
                   estimate = c(0.5, 0.25), lower = c(0.4, 0.1), upper = c(0.6, 0.4),
                   n = c(10L, 20L), interval = c("95% normal interval", "95% bootstrap interval"),
                   source = NA_character_),
    class = c("benchmark_leaderboard", "tbl_df", "tbl", "data.frame")
  )
  p <- ggplot2::autoplot(board)
  expect_match(p$labels$caption, "a: 95% normal interval\nb: 95% bootstrap interval")
  expect_match(p$labels$y, "each benchmark reports")
})
