test_that("as_score() maps every score type to [0, 1]", {
  expect_identical(as_score(factor(c("C", "I", "P", NA), levels = c("I", "P", "C"))),
                   c(1, 0, 0.5, NA))
  expect_identical(as_score(c(TRUE, FALSE, NA)), c(1, 0, NA))
  expect_identical(as_score(c(0L, 1L)), c(0, 1))
  expect_identical(as_score(c("C", "I")), c(1, 0))
  expect_error(as_score(c(0.5, 2)), "outside")
  expect_error(as_score(c("C", "maybe")), "maybe")
  expect_error(as_score(list(1)), class = "predictivebench_error_argument")
})
