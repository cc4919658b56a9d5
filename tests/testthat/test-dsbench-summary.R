test_that("dsbench_summary() reads the original's two accuracies", {
  samples <- tibble::tibble(
    competition_id = c("a", "a", "a", "b"),
    score = factor(c("C", "C", "I", "I"), levels = c("I", "C"), ordered = TRUE)
  )
  s <- dsbench_summary(samples, by_competition = TRUE)
  expect_equal(s$accuracy[1:2], c(0.5, (2 / 3 + 0) / 2))
  expect_equal(s$n[1:2], c(4, 2))
  expect_equal(s$group, c("questions", "competitions", "a", "b"))
  expect_error(dsbench_summary(list()), class = "predictivebench_error_argument")
})
