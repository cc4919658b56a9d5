test_that("the scorer reads voted indices and raw critiques", {
  scorer <- processbench_scorer()
  out <- scorer(tibble::tibble(result = c("2", NA, "So \\boxed{-1}", "-1"),
                               label = c(2L, 2L, -1L, 0L)))
  expect_identical(out$score, c(1, 0, 1, 0))
})
