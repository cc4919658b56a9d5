# judge_audit()'s shared layer: what it reads (tasks, logs, folders), reference labels and
# another judge, the judge's label, and the plot. The benchmarks' own audits are tested in
# test-arena-audit.R and test-dsbench-audit.R.

futurex_judged <- function(reply, name, dir) {
  tsk <- futurex_task(futurex_dataset(version = "sample"), judge = baseline_chat(reply, name),
                      dir = dir)
  tsk$eval(solver_chat = baseline_chat("\\boxed{3}", "three"), view = FALSE)
  tsk
}

test_that("a judged benchmark without an audit of its own is audited by its scores", {
  dir <- withr::local_tempdir()
  one <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees", dir)
  two <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 4", "differs", dir)
  # nothing to compare with: no rows of its own
  expect_error(judge_audit(one), class = "predictivebench_error_argument")
  audit <- judge_audit(one, other = two, times = 50)
  expect_equal(unique(audit$group), "predictivebench_baseline/agrees")
  expect_equal(unique(audit$compared_with), "predictivebench_baseline/differs")
  mine <- as.character(one$get_samples()$score)
  theirs <- as.character(two$get_samples()$score)
  expect_equal(audit$estimate[[1]], mean(mine == theirs))
  expect_equal(audit$estimate[[2]], cohen_kappa(mine, theirs))
  expect_true(all(is.na(audit$fair) & !audit$flagged))
  # from the log, which names the judge in its usage only
  expect_equal(judge_audit(one$log_path, other = two$log_path, times = 50)$estimate,
               audit$estimate)
})

test_that("reference labels are taken in order or matched by id", {
  tsk <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees",
                        withr::local_tempdir())
  samples <- tsk$get_samples()
  scores <- as.character(samples$score)
  audit <- judge_audit(tsk, reference = scores, times = 50)
  expect_equal(audit$estimate, c(1, 1, 1))
  # by id, in another order and with one missing: that sample is left out
  gold <- data.frame(id = rev(samples$id[-1]), reference = rev(scores[-1]))
  by_id <- judge_audit(tsk, reference = gold, times = 50)
  expect_equal(by_id$estimate[[1]], 1)
  expect_equal(by_id$n[[1]], nrow(samples) - 1L)
  expect_error(judge_audit(tsk, reference = scores[-1]),
               class = "predictivebench_error_argument")
  expect_error(judge_audit(tsk, reference = data.frame(id = samples$id)),
               class = "predictivebench_error_argument")
})

test_that("a folder (or a set's folder) is audited log by log, leaving out logs without a judge", {
  dir <- withr::local_tempdir()
  futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees", dir)
  unjudged <- futurex_task(futurex_dataset(version = "sample"), dir = dir)
  unjudged$eval(solver_chat = baseline_chat("\\boxed{3}", "three"), view = FALSE)
  run <- suppressWarnings(arena_run(
    list(long = baseline_chat("A long answer, with words.", "long"),
         short = baseline_chat("Short.", "short")),
    arena_baseline_judge("longer"), dataset = data.frame(question = c("q1", "q2", "q3")),
    dir = dir, n = 3, times = 20, position_swap = TRUE))
  expect_message(audit <- judge_audit(dir, reference = NULL, times = 50),
                 class = "predictivebench_message_unjudged")
  # the FutureX log has nothing to audit without a reference; the arena's is audited
  expect_equal(unique(audit$benchmark), "arena_ratings")
  expect_equal(unique(audit$source), run$paths$log)
  expect_equal(audit$estimate[audit$metric == "longer_answer_win_rate"], 1)
})

test_that("judge labels come from the scorer's chat, its name in the log, or the log's usage", {
  header <- list(eval = list(model = "openai/solver", scorers = list(list(name = "x (judge)"))),
                 stats = list(model_usage = list(`openai/solver` = 1, `anthropic/judge` = 1)))
  expect_equal(judge_label(data.frame(scorer = "dsbench_score (judge)"), header),
               "anthropic/judge")
  header$eval$scorers[[1]]$name <- "futurex_score"
  expect_equal(judge_label(data.frame(scorer = "futurex_score"), header), "anthropic/judge")
  header$stats$model_usage <- list(`openai/solver` = 1)
  expect_true(is.na(judge_label(data.frame(scorer = "futurex_score"), header)))
  expect_error(judge_audit(42), class = "predictivebench_error_argument")
})

test_that("an audit prints what its interval is and plots with titles that fit", {
  skip_if_not_installed("ggplot2")
  tsk <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees",
                        withr::local_tempdir())
  audit <- judge_audit(tsk, reference = as.character(tsk$get_samples()$score),
                       times = 50)
  expect_output(print(audit), "Judge audit")
  plot <- ggplot2::autoplot(audit)
  expect_s3_class(plot, "ggplot")
  expect_equal(plot$labels$title, "Judge audit")
  lines <- c(strsplit(plot$labels$subtitle, "\n")[[1]], strsplit(plot$labels$x, "\n")[[1]])
  expect_true(all(nchar(lines) <= note_chars()))
  expect_equal(audit_metric_title(c("cohen_kappa", "other")), c("Cohen's kappa", "other"))
  built <- ggplot2::ggplot_build(plot)
  # one panel per judge and comparison: here the judge against the reference
  expect_equal(length(built$layout$layout$PANEL), 1)
})
