test_that("the critic prompt is DeltaBench's, filled question first", {
  p <- deltabench_prompt("Q: {{model_output}}?", "section1: 1 + 1 = 3.")
  expect_match(p, "^I will provide you with a question and a robot\u2019s answer, divided")
  expect_match(p, "output in the following format:  \n    Conclusion: no error", fixed = TRUE)
  expect_match(p, "    \u2026 (repeat for each erroneous section)  \n\n\n**example:**", fixed = TRUE)
  expect_match(p, "inequality \\( x + y > 1 \\) is incorrect", fixed = TRUE)
  # as in the original, {{model_output}} inside the question is replaced too
  expect_true(endsWith(p, paste0(
    "**Input:**\n- Question: Q: section1: 1 + 1 = 3.?\n",
    "- Robot's Answer: section1: 1 + 1 = 3.\n- judge result: "
  )))
  expect_equal(nchar(deltabench_prompt("", "")), 3537 - nchar("{{question}}{{model_output}}"))
})

test_that("critiques parse as DeltaBench's script reads them", {
  out <- deltabench_parse(c(
    "Analysis...\nConclusion: yes\nError Section Number: 3\nExplanation: wrong.\nError Section Number: section 12 and 14\nExplanation: also.\nError Section Number: none\nExplanation: -",
    "Conclusion: no error",
    "Conclusion: Yes, there are errors",
    "Conclusion: YES\nError Section Number: 2",
    "Error Section Number: 4 but the conclusion comes later. Conclusion: yes",
    NA, ""
  ))
  expect_equal(out$judge, c(1L, 0L, 1L, 0L, 0L, NA, NA))
  expect_equal(out$sections[[1]], c(3L, 12L, -1L))
  expect_equal(out$sections[[3]], integer())
  expect_equal(out$sections[[4]], integer())
  expect_equal(out$conclusion[[2]], "no error")
})

test_that("per-sample precision/recall/F1, with and without clipping", {
  critique <- c(
    "Conclusion: yes\nError Section Number: 2\nError Section Number: 5\nError Section Number: 9",
    "Conclusion: no error",
    "Conclusion: yes\nError Section Number: 1",
    NA,
    "Conclusion: no error"
  )
  errors <- list(c(2L, 5L), c(3L), integer(), 4L, integer())
  unuseful <- list(7L, integer(), integer(), integer(), integer())
  clipped <- deltabench_score_critiques(critique, errors, unuseful)
  # gold {2, 5, 7}; 9 > 7 is dropped: tp 2, fp 0, fn 1
  expect_equal(c(clipped$tp[[1]], clipped$fp[[1]], clipped$fn[[1]]), c(2L, 0L, 1L))
  expect_equal(clipped$precision[[1]], 1)
  expect_equal(clipped$recall[[1]], 2 / 3)
  expect_equal(clipped$f1[[1]], 0.8)
  expect_equal(clipped$correct[[1]], 1L)
  # missed error: all zero, wrong
  expect_equal(c(clipped$tp[[2]], clipped$fn[[2]], clipped$f1[[2]], clipped$correct[[2]]),
               c(0, 1, 0, 0))
  # error-free samples: no section metrics, correct iff judged error-free
  expect_true(is.na(clipped$f1[[3]]))
  expect_equal(clipped$correct[c(3, 5)], c(0L, 1L))
  expect_true(clipped$failed[[4]])
  expect_true(is.na(clipped$correct[[4]]))
  full <- deltabench_score_critiques(critique, errors, unuseful, clip_predictions = FALSE)
  expect_equal(full$fp[[1]], 1L)
  expect_equal(full$precision[[1]], 2 / 3)
  expect_equal(full$f1[[1]], 2 / 3)
})

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

test_that("the task sends one request per sample at temperature 1, top_p 0.8", {
  server <- local_fake_openai(function(body, n) {
    if (grepl("rectangle", last_user_text(body))) return("Conclusion: no error")
    "Conclusion: yes\nError Section Number: 3\nExplanation: the sum is wrong."
  })
  tsk <- deltabench_task(dir = withr::local_tempdir(),
                         solver = deltabench_solver(cache = FALSE))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  n <- nrow(tsk$get_samples())
  expect_length(bodies, n)
  expect_equal(bodies[[1]]$temperature, 1)
  expect_equal(bodies[[1]]$top_p, 0.8)
  s <- tsk$get_samples()
  expect_match(s$input[[1]], "- Question: What is the sum of the first five positive integers?",
               fixed = TRUE)
  expect_match(s$input[[1]], "- Robot's Answer: section1: We add", fixed = TRUE)
  expect_equal(s$score[s$id == "db-sum"], 1)        # gold {3}
  expect_equal(s$score[s$id == "db-area"], 1)       # error-free, judged so
  expect_equal(s$score[s$id == "db-prime"], 2 / 3)  # gold {3, 4}
  expect_equal(s$scorer_metadata[[which(s$id == "db-prime")]]$gold, c(3L, 4L))
  summary <- deltabench_summary(tsk)
  expect_equal(unique(summary$group), c("overall", "code", "math", "physics"))
})

test_that("the section-level protocol refuses ProcessBench data", {
  expect_error(
    deltabench_task(processbench_dataset(system.file("extdata", "processbench-sample.parquet",
                                                     package = "predictivebench")),
                    dir = tempfile()),
    class = "predictivebench_error_field"
  )
})

test_that("deltabench_dataset() and deltabench_task() take a limit", {
  full <- deltabench_dataset()
  expect_equal(deltabench_dataset(limit = 2)$id, full$id[1:2])
  tsk <- deltabench_task(limit = 1, dir = withr::local_tempdir())
  expect_equal(tsk$get_samples()$id, full$id[[1]])
})

test_that("prepare_deltabench() flattens through Python", {
  skip_if_no_python()
  src <- system.file("extdata", "deltabench-sample.jsonl", package = "predictivebench")
  tbl <- prepare_deltabench(src)
  expect_equal(tbl$label[tbl$id == "db-mean"], 3L)
  expect_equal(tbl$label[tbl$id == "db-area"], -1L)
  counted <- prepare_deltabench(src, count_unuseful = TRUE)
  expect_equal(counted$label[counted$id == "db-prime"], 2L)
  expect_equal(tbl$label[tbl$id == "db-prime"], 3L)
  shipped <- processbench_dataset()
  expect_equal(shipped$label, tbl$label)
  bad <- withr::local_tempfile(fileext = ".jsonl")
  writeLines(c(readLines(src)[[1]], "{broken"), bad)
  err <- expect_error(prepare_deltabench(bad), class = "predictivebench_error_json")
  expect_equal(err$row, "2")
  ok <- suppressWarnings(prepare_deltabench(bad, on_error = "skip"))
  expect_equal(nrow(ok), 1)
})

db_fields <- c("label", "task_l1", "task_l2", "error_sections", "unuseful_sections")

test_that("a DeltaBench log shows deltabench_summary()'s numbers, offline", {
  tsk <- deltabench_task(dir = withr::local_tempdir(), solver = deltabench_solver(cache = FALSE))
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

test_that("a DeltaBench log over HTTP counts every critique; a cached re-run costs nothing", {
  server <- local_fake_openai(function(body, n) {
    list(text = if (grepl("rectangle", last_user_text(body))) "Conclusion: no error" else
           "Conclusion: yes\nError Section Number: 3\nExplanation: the sum is wrong.",
         usage = list(prompt_tokens = 100L, completion_tokens = 12L))
  })
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- deltabench_task(dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                           solver = deltabench_solver(cache = cache))
    tsk$eval(solver_chat = fake_chat(server), view = FALSE)
    tsk
  }
  first <- run()
  n <- nrow(first$get_samples())
  log <- expect_results_log(first, deltabench_summary, db_fields)
  usage <- log_usage(first$log_path)
  expect_equal(c(usage$input_tokens, usage$output_tokens), c(n * 100, n * 12))
  ids <- vapply(log$samples, function(s) s$id, "")
  expect_equal(log$samples[[which(ids == "db-area")]]$scores[[1]]$explanation,
               "critique: no error vs gold no error: correct")
  second <- run()
  expect_equal(server$count(), n)
  expect_results_log(second, deltabench_summary, db_fields)
  expect_equal(sum(log_usage(second$log_path)$input_tokens), 0)
  expect_true(all(vapply(log_json(second$log_path)$samples, function(s) s$metadata$cached, TRUE)))
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
  expect_equal(p$labels$title, "deltabench by task_l1")
  expect_match(gsub("\n", " ", p$labels$y), "none for micro")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 8)
})
