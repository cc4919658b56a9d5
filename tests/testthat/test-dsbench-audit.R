# A DSBench run whose solver always says 667 and whose judge always says "True". Of the
# sample's seven questions, three have a number for answer: 667 (right), 6 and $5,000,000
# (wrong), where the exact match decides: correct, incorrect, incorrect. The judge says
# correct throughout.
#   percent agreement: 1 of 3 = 1/3
#   Cohen's kappa: the judge's labels are all "correct" (share 1), the exact match's 1/3
#     correct, 2/3 incorrect: p_e = 1 * 1/3 + 0 * 2/3 = 1/3 = p_o, so kappa = 0
#   Krippendorff's alpha: coincidences o_cc = 2 (the agreeing question), o_ci = o_ic = 2 (the
#     two others); n_c = 4, n_i = 2, n = 6; D = 4; E = 36 - (16 + 4) = 16;
#     alpha = 1 - 5 * 4 / 16 = -0.25
local_dsbench_judged <- function(env = parent.frame()) {
  tsk <- dsbench_task(dsbench_dataset(version = "sample"),
                      judge = baseline_chat("True", "always-true"),
                      dir = withr::local_tempdir(.local_envir = env))
  tsk$eval(solver_chat = baseline_chat("The answer is 667.", "six-six-seven"), view = FALSE)
  tsk
}

test_that("DSBench's judge is audited against the exact match where the answer is a number", {
  tsk <- local_dsbench_judged()
  audit <- judge_audit(tsk, times = 50)
  expect_equal(unique(audit$compared_with), "exact match (numbers)")
  expect_equal(audit$metric, c("percent_agreement", "cohen_kappa", "krippendorff_alpha"))
  expect_equal(audit$estimate, c(1 / 3, 0, -0.25))
  expect_equal(audit$n, rep(3L, 3))
  expect_equal(unique(audit$group), "predictivebench_baseline/always-true")
  expect_equal(unique(audit$benchmark), "dsbench")
  # the log says the same
  from_log <- judge_audit(tsk$log_path, times = 50)
  expect_equal(from_log$estimate, audit$estimate)
  expect_equal(unique(from_log$source), tsk$log_path)
})

test_that("DSBench's verdicts are the judge's, correct or not, and compare with reference labels", {
  tsk <- local_dsbench_judged()
  samples <- tsk$get_samples()
  verdicts <- judged_verdicts(new_judged_run(samples, "dsbench", NULL, NA, "judge"))
  expect_equal(verdicts$verdict, rep("correct", 7))
  # gold labels: only the first numeric question (667) is right
  gold <- samples$target %in% "667"
  audit <- judge_audit(tsk, reference = gold, times = 50)
  agreed <- audit[audit$compared_with %in% "reference", ]
  expect_equal(agreed$estimate[[1]], 1 / 7)
  expect_equal(agreed$n[[1]], 7L)
  # the same labels by id, logical as given
  by_id <- judge_audit(tsk, reference = data.frame(id = samples$id, reference = gold),
                       times = 50)
  expect_equal(by_id$estimate[by_id$compared_with %in% "reference"], agreed$estimate)
  expect_equal(dsbench_exact_labels(c("It is 6.", NA, "C"), c("6", "6", "C"),
                                    c("integer", "integer", "letter")),
               c("correct", NA, NA))
})
