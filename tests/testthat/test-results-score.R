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

test_that("score_values() makes every scorer's scores: doubles in [0, 1], NA unscored", {
  expect_identical(score_values(c(TRUE, FALSE, NA)), c(1, 0, NA))
  expect_identical(score_values(c(0.25, 1L)), c(0.25, 1))
  expect_identical(score_values(c(TRUE, TRUE, FALSE), unscored = c(FALSE, TRUE, FALSE)),
                   c(1, NA, 0))
  expect_error(score_values(c(0, -0.1)), class = "predictivebench_error_argument")
  # a factor is what scorers made before; the helper refuses to make one again
  expect_error(score_values(factor("C")), class = "predictivebench_error_argument")
})

test_that("no scorer of the package builds an I/C factor", {
  src <- file.path(skip_if_no_source_tree(), "R")
  code <- unlist(lapply(list.files(src, "\\.R$", full.names = TRUE), readLines))
  code <- code[!grepl("^\\s*#", code)]
  expect_false(any(grepl("ordered = TRUE", code, fixed = TRUE)))
})
