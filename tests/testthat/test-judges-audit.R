# judge_audit()'s shared layer: what it reads (tasks, logs, folders), reference labels,
# another judge and the judge's label. The benchmarks' own audits are tested in
# test-arena-audit.R and test-dsbench-audit.R.

test_that("another judge of the same items is compared verdict by verdict", {
  dir <- withr::local_tempdir()
  one <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees", dir)
  two <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 4", "differs", dir)
  audit <- judge_audit(one, other = two, times = 50)
  expect_equal(unique(audit$group), "predictivebench_baseline/agrees")
  versus <- audit[audit$compared_with %in% "predictivebench_baseline/differs", ]
  expect_equal(versus$metric, c("percent_agreement", "cohen_kappa", "krippendorff_alpha"))
  mine <- verdicts_of(one)
  theirs <- verdicts_of(two)
  expect_equal(versus$estimate[[1]], percent_agreement(mine, theirs))
  expect_equal(versus$estimate[[2]], cohen_kappa(mine, theirs))
  expect_equal(versus$estimate[[3]], krippendorff_alpha(mine, theirs))
  expect_equal(versus$n[[1]], sum(!is.na(mine) & !is.na(theirs)))
  expect_true(all(is.na(audit$fair) & !audit$flagged))
  # from the logs, which name the judge in their usage only
  expect_equal(judge_audit(one$log_path, other = two$log_path, times = 50)$estimate,
               audit$estimate)
})

test_that("a run's verdicts and audit are methods on its benchmark object's class", {
  samples <- tibble::tibble(id = c("a", "b"), epoch = 1L, score = c(1, 0))
  methods <- asNamespace("predictivebench")[[".__S3MethodsTable__."]]
  registerS3method("benchmark_verdicts", "auditoy_benchmark", envir = asNamespace("predictivebench"),
                   function(benchmark, run) {
                     verdicts_table(run$samples$id, 1L, paste(benchmark$name, run$samples$score))
                   })
  registerS3method("benchmark_audit", "auditoy_benchmark", envir = asNamespace("predictivebench"),
                   function(benchmark, run, opts) audit_judged(list(benchmark = "none"), opts))
  withr::defer(rm(list = c("benchmark_verdicts.auditoy_benchmark",
                           "benchmark_audit.auditoy_benchmark"), envir = methods))
  run <- new_judged_run(samples, "auditoy", NULL, NA_character_, "p/judge")
  # not registered in this session: the defaults, its scores
  expect_equal(judged_verdicts(run)$verdict, c("1", "0"))
  local_benchmarks(list(new_benchmark("auditoy", list(fn = identity))))
  expect_equal(judged_verdicts(run)$verdict, c("auditoy 1", "auditoy 0"))
  expect_equal(nrow(audit_judged(run, list())), 0)
  expect_null(panel_verdicts(run))
})

test_that("a benchmark without verdicts of its own gives its scores; nothing to audit: error", {
  samples <- tibble::tibble(id = c("a", "b", "c"), epoch = 1L, score = c(1, 0.5, NA))
  run <- new_judged_run(samples, "unknown", NULL, NA_character_, "p/judge")
  expect_s3_class(run, "judged_run")
  verdicts <- judged_verdicts(run)
  expect_equal(verdicts$verdict, c("1", "0.5", NA))
  expect_equal(verdicts$key, c("a\r1", "b\r1", "c\r1"))
  expect_equal(nrow(audit_judged(run, list())), 0)
  # FutureX items without a number: no judge at work, nothing to audit
  data <- futurex_dataset(version = "sample")
  tsk <- futurex_task(data[data$level == 1, ], judge = baseline_chat("3", "judge"),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}", "yes"), view = FALSE)
  expect_error(judge_audit(tsk), class = "predictivebench_error_argument")
})

test_that("reference labels are taken in order or matched by id", {
  tsk <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees",
                        withr::local_tempdir())
  samples <- tsk$get_samples()
  verdicts <- verdicts_of(tsk)
  judged <- sum(!is.na(verdicts))
  audit <- judge_audit(tsk, reference = verdicts, times = 50)
  agreed <- audit[audit$compared_with %in% "reference", ]
  expect_equal(agreed$estimate[[1]], 1)
  expect_equal(agreed$n[[1]], judged)
  # by id, in another order and with one judged item missing: that item is left out
  keep <- which(!is.na(verdicts))[-1]
  gold <- data.frame(id = rev(samples$id[keep]), reference = rev(verdicts[keep]))
  by_id <- judge_audit(tsk, reference = gold, times = 50)
  by_id <- by_id[by_id$compared_with %in% "reference", ]
  expect_equal(by_id$estimate[[1]], 1)
  expect_equal(by_id$n[[1]], judged - 1L)
  expect_error(judge_audit(tsk, reference = verdicts[-1]),
               class = "predictivebench_error_argument")
  expect_error(judge_audit(tsk, reference = data.frame(id = samples$id)),
               class = "predictivebench_error_argument")
})

test_that("a folder (or a set's folder) is audited log by log, leaving out logs without a judge", {
  dir <- withr::local_tempdir()
  judged <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees", dir)
  unjudged <- futurex_task(futurex_dataset(version = "sample"), dir = dir)
  unjudged$eval(solver_chat = baseline_chat("\\boxed{3}", "three"), view = FALSE)
  run <- suppressWarnings(arena_run(list(long = baseline_chat("A long answer, with words.", "long"),
         short = baseline_chat("Short.", "short")), arena_baseline_judge("longer"),
                                    dataset = data.frame(question = c("q1", "q2", "q3")), dir = dir,
                                    options = arena_options(n = 3, position_swap = TRUE,
                                                            ratings = rating_options(method = "elo", bootstrap = 20))))
  expect_message(audit <- judge_audit(dir, times = 50),
                 class = "predictivebench_message_unjudged")
  expect_setequal(unique(audit$source), c(judged$log_path, run$paths$log))
  expect_setequal(unique(audit$benchmark), c("futurex", "arena_ratings"))
  arena <- audit[audit$source == run$paths$log, ]
  expect_equal(arena$estimate[arena$metric == "longer_answer_win_rate"], 1)
  # an evaluation set's result: its cells' logs
  cells <- data.frame(benchmark = c("futurex", "futurex"), log_path = c(judged$log_path, NA))
  expect_equal(judge_audit(cells, times = 50)$estimate,
               audit$estimate[audit$source == judged$log_path])
  expect_error(judge_audit(data.frame(x = 1)), class = "predictivebench_error_argument")
})

test_that("judge labels come from the scorer's chat, its name in the log, or the log's usage", {
  header <- list(eval = list(model = "openai/solver", scorers = list(list(name = "x (judge)"))),
                 stats = list(model_usage = list(`openai/solver` = 1, `anthropic/judge` = 1)))
  expect_equal(audited_judge_label(data.frame(scorer = "dsbench_score (judge)"), header),
               "anthropic/judge")
  header$eval$scorers[[1]]$name <- "futurex_score"
  expect_equal(audited_judge_label(data.frame(scorer = "futurex_score"), header), "anthropic/judge")
  header$stats$model_usage <- list(`openai/solver` = 1)
  expect_true(is.na(audited_judge_label(data.frame(scorer = "futurex_score"), header)))
  expect_error(judge_audit(42), class = "predictivebench_error_argument")
})

# A DSBench panel of three judges: "yes-a" and "yes-c" say "True" to every answer, "no-b"
# "False". Each pair on the seven questions, by hand:
#   yes-a vs no-b: no agreement (0); kappa: p_o = 0 and p_e = 1 * 0 + 0 * 1 = 0, so 0;
#     alpha: o_ci = o_ic = 7, n_c = n_i = 7, n = 14, D = 14, E = 196 - 98 = 98,
#     alpha = 1 - 13 * 14 / 98 = -6/7
#   yes-a vs yes-c: full agreement (1); kappa and alpha undefined (one label throughout)
test_that("a panel's members are audited against each other, and the panel is named as one", {
  tsk <- dsbench_task(dsbench_dataset(version = "sample"),
                      judge = list(baseline_chat("True", "yes-a"), baseline_chat("False", "no-b"),
                                   baseline_chat("True.", "yes-c")),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat("The answer is 667.", "six-six-seven"), view = FALSE)
  audit <- judge_audit(tsk, times = 50)
  expect_equal(unique(audit$group[audit$compared_with %in% "exact match (numbers)"]),
               "panel(yes-a, no-b, yes-c)")
  pair <- function(a, b) audit[audit$group == a & audit$compared_with %in% b, ]
  expect_equal(pair("yes-a", "no-b")$estimate, c(0, 0, -6 / 7))
  expect_equal(pair("yes-a", "yes-c")$estimate, c(1, NA, NA))
  expect_equal(pair("no-b", "yes-c")$estimate, c(0, 0, -6 / 7))
  expect_equal(unique(pair("yes-a", "no-b")$n), 7L)
  # the log keeps every judge's verdicts: the same audit from it
  expect_equal(judge_audit(tsk$log_path, times = 50)$estimate, audit$estimate)
})
