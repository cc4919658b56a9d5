# A FutureX run whose solver always answers 3 and whose numeric judge always says both values
# are 3 (a judge that does not read). The sample's numeric items and their plain parse of
# "\boxed{3}" (to two decimals): 12.5 with std 2 scores 0; "1,250 thousand units" with std
# 100 scores 0.9996, "1"; -3.2 with std 1.5 scores 0.98; 7 with std 0 scores 0. The judge's
# values give 1 throughout.
#   percent agreement: 1 of 4
#   Cohen's kappa: the judge says "1" always; the parse "1" once in four: p_e = 1/4 = p_o,
#     kappa = 0
#   Krippendorff's alpha: o_11 = 2 (the agreeing item), o_10 = o_01 = 2 (two items),
#     o_1,0.98 = o_0.98,1 = 1; n_1 = 5, n_0 = 2, n_0.98 = 1, n = 8; D = 8 - 2 = 6;
#     E = 64 - (25 + 4 + 1) = 34; alpha = 1 - 7 * 6 / 34 = -4/17
test_that("FutureX's numeric judge is audited against the plain parse of its items", {
  tsk <- futurex_task(futurex_dataset(version = "sample"),
                      judge = baseline_chat("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3",
                                            "lazy-judge"),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat("\\boxed{3}", "three"), view = FALSE)
  audit <- judge_audit(tsk, times = 50)
  expect_equal(unique(audit$compared_with), "plain parse (numbers)")
  expect_equal(audit$estimate, c(1 / 4, 0, -4 / 17))
  expect_equal(audit$n, rep(4L, 3))
  # only the items the judge normalized are its verdicts
  verdicts <- judged_verdicts(judged_runs(tsk)[[1]])$verdict
  expect_equal(sum(!is.na(verdicts)), 4)
  expect_equal(unique(verdicts[!is.na(verdicts)]), "1")
  expect_equal(futurex_plain_scores(c("\\boxed{3}", NA, "B"), c("7", "7", "B"), c(0, 0, NA),
                                    c("numeric", "numeric", "single")),
               c("0", NA, NA))
})
