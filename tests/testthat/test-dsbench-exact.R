test_that("the exact scorer matches letters, numbers and strings without a judge", {
  data <- dsbench_dataset(version = "sample")
  answers <- c("The answer is C.", "Total: 667 cups", "**A**", "It is $5,000,000.",
               "{'Q': 2}", "\\boxed{6}", "Use concatenate()")
  scorer <- dsbench_scorer_exact()
  samples <- data
  samples$result <- answers
  out <- scorer(samples)
  expect_identical(out$score, c(1, 1, 1, 1, 0, 1, 1))
  samples$result <- c("The answer is B.", "666", "B", "5,000", NA, "\\boxed{7}", "LEFT")
  expect_identical(scorer(samples)$score, rep(0, 7))
})
