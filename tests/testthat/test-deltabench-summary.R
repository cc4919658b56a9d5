test_that("summary: macro and micro, by group, failed rows counted and reported", {
  samples <- tibble::tibble(
    task_l1 = c("math", "math", "code", "code", "code"),
    error_sections = list(c(2L, 4L), 3L, 1L, integer(), 2L),
    unuseful_sections = list(integer(), integer(), integer(), integer(), integer()),
    result = c("Conclusion: yes\nError Section Number: 2",          # p 1, r 1/2
               "Conclusion: yes\nError Section Number: 1\nError Section Number: 3", # p 1/2, r 1
               "Conclusion: no error",                              # p 0, r 0
               "Conclusion: no error",                              # error-free, right
               NA)                                                  # failed
  )
  expect_message(s <- deltabench_summary(samples), class = "predictivebench_message_failed")
  metrics <- c("precision_macro", "recall_macro", "f1_macro", "precision_micro",
               "recall_micro", "f1_micro", "accuracy", "error_free_accuracy")
  expect_equal(names(s), c("group", "metric", "estimate", "lower", "upper", "n",
                           "n_with_errors", "n_error_free", "n_failed"))
  expect_equal(s$metric, rep(metrics, 3))
  value <- function(s, group, metric, column = "estimate") {
    s[[column]][s$group == group & s$metric == metric]
  }
  overall <- s[s$group == "overall", ]
  expect_equal(c(overall$n_with_errors[[1]], overall$n_error_free[[1]], overall$n_failed[[1]]),
               c(4L, 1L, 1L))
  # n: the samples behind each number (the failed one is dropped)
  expect_equal(overall$n, c(3L, 3L, 3L, 3L, 3L, 3L, 4L, 1L))
  expect_equal(value(s, "overall", "precision_macro"), (1 + 0.5 + 0) / 3)
  expect_equal(value(s, "overall", "recall_macro"), (0.5 + 1 + 0) / 3)
  expect_equal(value(s, "overall", "f1_macro"), (2 / 3 + 2 / 3 + 0) / 3)
  # micro: tp 2, fp 1, fn 2
  expect_equal(value(s, "overall", "precision_micro"), 2 / 3)
  expect_equal(value(s, "overall", "recall_micro"), 0.5)
  expect_equal(value(s, "overall", "f1_micro"), 2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
  expect_equal(value(s, "overall", "accuracy"), 0.75)         # 3 of 4 answered are correct
  expect_equal(value(s, "overall", "error_free_accuracy"), 1)
  expect_true(all(s$lower >= 0 & s$upper <= 1, na.rm = TRUE))
  expect_true(all(is.na(s$lower[grepl("micro", s$metric)])))
  expect_equal(value(s, "code", "f1_macro"), 0)
  expect_equal(value(s, "code", "f1_macro", "n_failed"), 1L)
  # counting failures as wrong lowers the macro averages
  z <- suppressMessages(deltabench_summary(samples, failed = "zero"))
  expect_equal(value(z, "overall", "f1_macro"), (2 / 3 + 2 / 3 + 0 + 0) / 4)
  expect_equal(value(z, "overall", "recall_micro"), 2 / 5)
  expect_equal(value(z, "overall", "accuracy"), 0.6)
  expect_error(deltabench_summary(samples, by = "nope"), class = "predictivebench_error_argument")
  expect_snapshot(deltabench_summary(samples["result"]), error = TRUE)
})

test_that("clipping lets a constant guess score well; clip_predictions = FALSE does not", {
  guess <- paste0("Conclusion: yes\n",
                  paste0("Error Section Number: ", 1:30, "\nExplanation: x", collapse = "\n"))
  samples <- tibble::tibble(
    task_l1 = "math", error_sections = list(3L, 5L, c(2L, 8L)),
    unuseful_sections = list(integer(), integer(), integer()), result = guess
  )
  clipped <- deltabench_summary(samples)
  unclipped <- deltabench_summary(samples, clip_predictions = FALSE)
  f1_macro <- function(s) s$estimate[s$group == "overall" & s$metric == "f1_macro"]
  expect_gt(f1_macro(clipped), 3 * f1_macro(unclipped))
  expect_equal(unclipped$estimate[unclipped$metric == "precision_micro"][[1]], 4 / 90)
})

test_that("a DeltaBench log shows deltabench_summary()'s numbers, offline", {
  tsk <- deltabench_task(deltabench_dataset(version = "sample"), dir = withr::local_tempdir(), solver = deltabench_solver(settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = baseline_constant(
    "Conclusion: yes\nError Section Number: 3\nExplanation: x"), view = FALSE)
  log <- expect_results_log(tsk, deltabench_summary, db_fields)
  expect_equal(log$results$scores[[1]]$name, "deltabench_score")
  expect_named(log$results$scores[[1]]$metrics,
               c("overall f1_macro", "overall precision_macro", "overall recall_macro",
                 "overall accuracy"))
  samples <- log$samples
  ids <- vapply(samples, function(s) s$id, "")
  prime <- samples[[which(ids == "db-prime")]]
  expect_equal(prime$scores[[1]]$explanation,
               "critique: errors in sections 3 vs gold 3, 4: F1 0.667")
  live <- tsk$get_samples()
  expect_equal(jsonlite::fromJSON(prime$metadata$error_sections),
               live$error_sections[[which(live$id == "db-prime")]])
  area <- samples[[which(ids == "db-area")]]
  expect_equal(area$scores[[1]]$explanation,
               "critique: errors in sections 3 vs gold no error: wrong")
  # an empty set is logged as [] and reads back as an empty list
  back <- log_samples(tsk$log_path)
  expect_equal(lapply(back$error_sections, function(x) as.integer(unlist(x))),
               lapply(live$error_sections, as.integer))
})

test_that("deltabench_summary() plots a panel per metric and a bar per task", {
  skip_if_not_installed("ggplot2")
  samples <- tibble::tibble(
    task_l1 = c("math", "math", "code"), error_sections = list(c(2L, 4L), integer(), 1L),
    unuseful_sections = list(integer(), integer(), integer()),
    result = c("Conclusion: yes\nError Section Number: 2", "Conclusion: no error",
               "Conclusion: yes\nError Section Number: 1")
  )
  s <- deltabench_summary(samples)
  p <- ggplot2::autoplot(s)
  expect_equal(p$labels$title, "DeltaBench: precision, recall, F1 and accuracy by task")
  expect_equal(p$labels$y, "task")
  expect_match(gsub("\n", " ", p$labels$x), "none for micro")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 8)
})
