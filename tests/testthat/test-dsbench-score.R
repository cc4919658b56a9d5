test_that("the judge rule matches the original on hand cases", {
  expect_identical(
    dsbench_judge_correct(c("True", "true.", "TRUE", "False", "Flase", "", NA, "untrue")),
    c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE, TRUE)
  )
})

test_that("a judged question's explanation gives the verdict, prediction and answer", {
  judged <- tibble::tibble(reply = c("True", NA, NA), error = c(NA, NA, "HTTP 500"),
                           correct = c(TRUE, FALSE, FALSE))
  out <- dsbench_judge_explanation(c("It is 4.", NA, "five"), c("4", "4", "5"), judged)
  expect_equal(out[[1]], 'The judge replied "True": correct. Prediction: "It is 4.". Answer: "4".')
  expect_match(out[[2]], "^Not judged .*Prediction: none")
  expect_match(out[[3]], "^The judgement failed \\(HTTP 500\\): incorrect")
  long <- dsbench_excerpt(strrep("x", 400))
  expect_equal(nchar(long), 300 + 5)
})
