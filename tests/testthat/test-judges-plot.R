test_that("an audit prints what its interval is and plots with titles that fit", {
  skip_if_not_installed("ggplot2")
  tsk <- futurex_judged("GROUND_TRUTH_VALUE: 3\nPREDICTION_VALUE: 3", "agrees",
                        withr::local_tempdir())
  audit <- judge_audit(tsk, reference = verdicts_of(tsk), times = 50)
  expect_output(print(audit), "Judge audit")
  plot <- ggplot2::autoplot(audit)
  expect_s3_class(plot, "ggplot")
  expect_equal(plot$labels$title, "Judge audit")
  lines <- c(strsplit(plot$labels$subtitle, "\n")[[1]], strsplit(plot$labels$x, "\n")[[1]])
  expect_true(all(nchar(lines) <= note_chars()))
  expect_equal(audit_metric_title(c("cohen_kappa", "other")), c("Cohen's kappa", "other"))
  built <- ggplot2::ggplot_build(plot)
  # one panel per judge and comparison: against the plain parse and the reference
  expect_equal(length(built$layout$layout$PANEL), 2)
})
