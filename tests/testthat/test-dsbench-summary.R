test_that("dsbench_summary() reads the original's two accuracies", {
  samples <- tibble::tibble(
    competition_id = c("a", "a", "a", "b"),
    score = factor(c("C", "C", "I", "I"), levels = c("I", "C"), ordered = TRUE)
  )
  s <- dsbench_summary(samples, by_competition = TRUE)
  expect_equal(s$estimate[1:2], c(0.5, (2 / 3 + 0) / 2))
  expect_equal(s$estimate[3:4], c(2 / 3, 0))
  expect_true(all(s$metric == "accuracy"))
  expect_true(all(s$lower >= 0 & s$upper <= 1, na.rm = TRUE))
  expect_equal(s$n[1:2], c(4, 2))
  expect_equal(s$group, c("questions", "competitions", "a", "b"))
  expect_equal(names(s)[1:6], c("group", "metric", "estimate", "lower", "upper", "n"))
  expect_equal(s$judge_failures, c(NA_integer_, NA, NA, NA))
  expect_snapshot(dsbench_summary(list()), error = TRUE)
})
