test_that("summary_metrics() gives a plain vitals Task the summary's numbers, unscaled", {
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                          scorer = arith_scorer(), dir = withr::local_tempdir())
  tsk$set_metrics(summary_metrics(arith_summary, c("weighted", "level 2"), task = tsk))
  tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
  live <- arith_summary(tsk)
  expect_identical(unname(tsk$metrics),
                   live$estimate[match(c("weighted", "level 2"), live$group)])
  expect_named(tsk$metrics, c("weighted", "level 2"))
})

test_that("the summary runs once per measurement, however many headline rows", {
  calls <- 0
  summary <- function(x) {
    calls <<- calls + 1
    arith_summary(x)
  }
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                          scorer = arith_scorer(), dir = withr::local_tempdir())
  tsk$set_metrics(summary_metrics(summary, c("weighted", "level 1", "level 2"), task = tsk))
  tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
  expect_equal(calls, 1)
})

test_that("summary metrics explain their misuse", {
  metrics <- summary_metrics(arith_summary, "nope")
  expect_error(metrics$nope(c(1, 0)), "task they measure", class = "predictivebench_error_argument")
  # without their task a plain vitals Task can't compute them, and says how to give it
  unbound <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                              scorer = arith_scorer(),
                              metrics = summary_metrics(arith_summary, "weighted"),
                              dir = withr::local_tempdir())
  expect_error(unbound$eval(solver_chat = baseline_constant("2"), view = FALSE),
               "summary_metrics\\(summary, task = tsk\\)")
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                          scorer = arith_scorer(), dir = withr::local_tempdir())
  tsk$set_metrics(summary_metrics(arith_summary, "nope", task = tsk))
  expect_error(summary_metrics(arith_summary, task = "tsk"), class = "predictivebench_error_argument")
  expect_error(tsk$eval(solver_chat = baseline_constant("2"), view = FALSE), "no single")
  expect_error(summary_metrics("arith_summary"), class = "predictivebench_error_argument")
  expect_error(summary_metrics(arith_summary, character()), "at least one")
})

test_that("benchmark_metrics() uses the registry, or the plain mean", {
  local_arith_benchmark()
  expect_named(benchmark_metrics("arith"), c("weighted", "level 1"))
  plain <- benchmark_metrics("not-registered")
  expect_named(plain, "mean")
  expect_equal(plain$mean(c(1, 0, NA, 0)), 1 / 3)
})

test_that("check_summary_rows() takes the skeleton's rows and names a missing column", {
  rows <- check_summary_rows(grouped_summary(c(1, 0)))
  expect_equal(rows$estimate, 0.5)
  expect_error(check_summary_rows(data.frame(group = "a", estimate = 1)),
               class = "predictivebench_error_argument")
  old_shape <- data.frame(group = "a", mean = 1, lower = 1, upper = 1, n = 1)
  expect_error(check_summary_rows(old_shape), class = "predictivebench_error_argument")
})

test_that("a row's key is its group, or '<group> <metric>' when groups have several rows", {
  one <- grouped_summary(c(1, 0, 1), by = c("a", "b", "b"))
  expect_equal(summary_keys(one), c("overall", "a", "b"))
  two <- rbind(grouped_summary(c(1, 0), by = c("a", "a"), metric = "acc"),
               grouped_summary(c(0.5, 1), metric = "f1"))
  expect_equal(summary_keys(two), c("overall acc", "a acc", "overall f1"))
  expect_error(summary_keys(rbind(one, one)), "appears twice")
})

test_that("headline keys pick rows for metrics, registry and leaderboard alike", {
  rows <- rbind(grouped_summary(c(1, 0, 1, 1), by = c("x", "x", "y", "y"), metric = "acc"),
                grouped_summary(c(0, 0, 1, 1), by = c("x", "x", "y", "y"), metric = "f1"))
  summary <- function(x) rows
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                          scorer = arith_scorer(), dir = withr::local_tempdir())
  tsk$set_metrics(summary_metrics(summary, c("overall f1", "y acc"), task = tsk))
  tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
  expect_identical(unname(tsk$metrics), c(0.5, 1))
  expect_named(tsk$metrics, c("overall f1", "y acc"))
  bad <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                          scorer = arith_scorer(), dir = withr::local_tempdir())
  bad$set_metrics(summary_metrics(summary, "overall", task = bad))
  expect_error(bad$eval(solver_chat = baseline_constant("2"), view = FALSE), "overall acc")
})

test_that("a summary's notes reach its caller, and are not even formatted when measured", {
  formatted <- 0
  count <- function() {
    formatted <<- formatted + 1
    "counted"
  }
  summary <- function(x) {
    summary_note("{count()} items skipped.", "predictivebench_message_skipped")
    summary_rows("overall", "accuracy", list(mean = 1, lower = NA, upper = NA, n = 1))
  }
  expect_message(summary(NULL), "counted items skipped", class = "predictivebench_message_skipped")
  expect_equal(formatted, 1)
  expect_no_message(rows <- quiet_summary(summary, NULL))
  expect_equal(formatted, 1)
  expect_equal(rows$estimate, 1)
  # other messages still pass through a measured summary
  noisy <- function(x) {
    message("a user's own message")
    summary(x)
  }
  expect_message(quiet_summary(noisy, NULL), "a user's own message")
  expect_equal(formatted, 1)
})

test_that("headline rows without an estimate or interval are logged without them and read back as NA", {
  rows <- tibble::tibble(group = c("a", "b"), metric = "rating", estimate = c(1010.5, NA),
                         lower = c(NA_real_, NA), upper = c(1020.25, NA), n = c(3L, 0L))
  metrics <- summary_metrics(function(x) rows, c("a", "b"))
  state <- attr(metrics[[1]], "predictivebench_state")
  state$rows <- rows
  logged <- headline_metadata(metrics)
  expect_named(logged[[2]], c("key", "group", "metric", "n"))
  json <- yyjsonr::write_json_str(logged, opts = log_json_options())
  back <- logged_headline(jsonlite::parse_json(json))
  expect_identical(back$estimate, rows$estimate)
  expect_identical(back$lower, rows$lower)
  expect_identical(back$upper, rows$upper)
  expect_identical(back$n, rows$n)
  expect_identical(back$key, c("a", "b"))
  expect_null(headline_metadata(list(mean = function(scores) mean(scores))))
})
