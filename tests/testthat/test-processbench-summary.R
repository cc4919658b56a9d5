test_that("summary: error/correct accuracy, F1, groups, NA with a message", {
  samples <- tibble::tibble(
    label = c(2, 0, 1, -1, -1, 3, -1),
    task_l1 = c("a", "a", "a", "a", "b", "b", "b"),
    result = c("2", "1", "1", "-1", "0", NA, "-1")
  )
  expect_message(s <- processbench_summary(samples), class = "predictivebench_message_small_group")
  expect_equal(names(s), c("group", "metric", "estimate", "lower", "upper", "n",
                           "n_no_prediction"))
  expect_equal(s$group, c(rep(c("overall", "a", "b"), each = 3), "mean of groups"))
  expect_equal(s$metric, c(rep(c("error_acc", "correct_acc", "f1"), 3), "f1"))
  expect_equal(pb_value(s, "overall", "error_acc"), 0.5)      # 2 of 4 errors found
  expect_equal(pb_value(s, "overall", "correct_acc"), 2 / 3)
  expect_equal(pb_value(s, "overall", "f1"), 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
  expect_equal(pb_value(s, "overall", c("error_acc", "correct_acc", "f1"), "n"), c(4L, 3L, 7L))
  expect_equal(pb_value(s, "overall", "f1", "n_no_prediction"), 1L)
  expect_equal(pb_value(s, "a", c("error_acc", "correct_acc")), c(2 / 3, 1))
  expect_equal(pb_value(s, "b", c("error_acc", "correct_acc", "f1")), c(0, 0.5, 0))
  expect_equal(pb_value(s, "mean of groups", "f1"),
               mean(c(pb_value(s, "a", "f1"), pb_value(s, "b", "f1"))))
  expect_true(all(s$lower <= s$estimate & s$upper >= s$estimate, na.rm = TRUE))
  expect_true(all(s$lower >= 0 & s$upper <= 1, na.rm = TRUE))
  boot <- suppressMessages(processbench_summary(samples, method = "bootstrap", times = 200))
  expect_equal(boot$estimate, s$estimate)
  expect_true(all(boot$lower <= boot$estimate & boot$estimate <= boot$upper, na.rm = TRUE))
  expect_identical(boot, suppressMessages(processbench_summary(samples, method = "bootstrap",
                                                               times = 200)))

  # an empty side and two zero accuracies are NA, announced
  only_errors <- tibble::tibble(label = c(1, 2), task_l1 = "x", result = c("0", "0"))
  expect_message(e <- processbench_summary(only_errors), class = "predictivebench_message_na")
  expect_true(is.na(pb_value(e, "overall", "correct_acc")))
  expect_true(is.na(pb_value(e, "overall", "f1")))
  zeros <- tibble::tibble(label = c(1, -1), task_l1 = "x", result = c("0", "0"))
  expect_message(z <- processbench_summary(zeros, by = NULL), "both accuracies are 0")
  expect_true(is.na(pb_value(z, "overall", "f1")))
  expect_equal(unique(z$group), "overall")
})

test_that("user-facing summary errors name the call and what is missing", {
  expect_snapshot(processbench_summary(data.frame(x = 1)), error = TRUE)
  expect_snapshot(processbench_summary(tibble::tibble(label = 1), by = NULL), error = TRUE)
  samples <- tibble::tibble(label = 1, result = "1")
  expect_snapshot(processbench_summary(samples, by = "split"), error = TRUE)
})

test_that("a ProcessBench log shows processbench_summary()'s F1 and accuracies, offline", {
  tsk <- processbench_task(processbench_dataset(version = "sample"), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 3,
                                                        settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = baseline_random(c("-1", "0", "1", "2"), "\\boxed{%s}", seed = 4),
           view = FALSE)
  log <- expect_results_log(tsk, processbench_summary, pb_fields)
  expect_equal(log$results$scores[[1]]$name, "processbench_score")
  expect_named(log$results$scores[[1]]$metrics,
               c("overall f1", "overall error_acc", "overall correct_acc"))
  first <- log$samples[[1]]
  live <- tsk$get_samples()$solver_metadata[[1]]
  expect_equal(jsonlite::fromJSON(first$metadata$votes), live$votes)
  vote <- "-?[0-9]"
  expect_match(first$scores[[1]]$explanation, paste0(
    "^votes ", vote, ", ", vote, ", ", vote, " \\(3 valid of 3\\); majority ", vote,
    " vs label ", vote, ": (correct|wrong)$"
  ))
})

test_that("processbench_summary() plots a panel per metric and a bar per task", {
  skip_if_not_installed("ggplot2")
  samples <- tibble::tibble(label = c(2L, 0L, -1L, -1L, 3L), task_l1 = c("a", "a", "a", "b", "b"),
                            result = c("2", "1", "-1", "-1", NA))
  s <- suppressMessages(processbench_summary(samples))
  expect_s3_class(s, "benchmark_summary")
  p <- ggplot2::autoplot(s)
  # in words: the benchmark as its authors write it, what the numbers are, and its groups
  expect_equal(p$labels$title, "ProcessBench: accuracy and F1 by task")
  expect_equal(p$labels$y, "task")
  other <- ggplot2::autoplot(suppressMessages(processbench_summary(
    transform(samples, source_set = task_l1), by = "source_set")))
  expect_equal(other$labels$title, "ProcessBench: accuracy and F1 by source set")
  overall <- ggplot2::autoplot(suppressMessages(processbench_summary(samples, by = NULL)))
  expect_equal(overall$labels$title, "ProcessBench: accuracy and F1")
  expect_match(gsub("\n", " ", p$labels$x), "exact binomial interval \\(F1\\)")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 3)
  expect_true("n = 5" %in% unlist(lapply(built$data, function(d) d$label)))
})

test_that("F1's interval covers what the data allow when a side is all right or all wrong", {
  # an oracle: every error found, every correct solution passed. Resampling within each side
  # gave F1 = 1 every time, so "1 [1, 1]" beside accuracies of "1 [0.68, 1]"
  oracle <- tibble::tibble(label = c(1, 2, 0, 3, 1, 2, -1, -1, -1, -1, -1),
                           result = as.character(c(1, 2, 0, 3, 1, 2, -1, -1, -1, -1, -1)))
  s <- suppressMessages(processbench_summary(oracle, by = NULL))
  f1 <- s[s$metric == "f1", ]
  expect_equal(f1$estimate, 1)
  expect_equal(f1$upper, 1)
  expect_lt(f1$lower, 0.9)
  # it can't claim more than its weaker side allows: F1 <= 2c / (1 + c) at correct_acc c
  c_lower <- s$lower[s$metric == "correct_acc"]
  expect_lte(f1$lower, 2 * c_lower / (1 + c_lower))
  # "no error" always: error_acc 0, correct_acc 1, F1 0, and F1 may be above 0
  constant <- oracle
  constant$result <- "-1"
  r <- suppressMessages(processbench_summary(constant, by = NULL))
  expect_equal(r$estimate[r$metric == "f1"], 0)
  expect_equal(r$lower[r$metric == "f1"], 0)
  expect_gt(r$upper[r$metric == "f1"], 0.2)
  # the same with method = "bootstrap" (its accuracies' intervals), reproducibly
  b <- suppressMessages(processbench_summary(oracle, by = NULL, method = "bootstrap"))
  expect_equal(unlist(b[b$metric == "f1", c("lower", "upper")]), unlist(f1[c("lower", "upper")]))
})

test_that("simulation: F1's interval covers the true F1 at least 95% of the time, near 0 and 1 too", {
  # bench/stats-coverage.R runs the full grid; here the corners, 5 to 10 samples a side
  grid <- data.frame(error = c(0.02, 0.98, 0.98, 0.5, 0.1),
                     correct = c(0.98, 0.98, 0.5, 0.5, 0.02),
                     n = c(5, 5, 10, 10, 10))
  coverage <- withr::with_seed(11, vapply(seq_len(nrow(grid)), function(i) {
    truth <- f1_score(grid$error[[i]], grid$correct[[i]])
    hits <- replicate(150, {
      err <- stats::runif(grid$n[[i]]) < grid$error[[i]]
      cor <- stats::runif(grid$n[[i]]) < grid$correct[[i]]
      b <- processbench_f1_interval(err, cor, times = 400, seed = 1)
      is.na(b[[1]]) || (b[[1]] <= truth && truth <= b[[2]])
    })
    mean(hits)
  }, 1))
  expect_true(all(coverage >= 0.93), label = paste(round(coverage, 3), collapse = " "))
})
