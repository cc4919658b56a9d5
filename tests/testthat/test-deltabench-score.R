test_that("per-sample precision/recall/F1, with and without clipping", {
  critique <- c(
    "Conclusion: yes\nError Section Number: 2\nError Section Number: 5\nError Section Number: 9",
    "Conclusion: no error",
    "Conclusion: yes\nError Section Number: 1",
    NA,
    "Conclusion: no error"
  )
  errors <- list(c(2L, 5L), c(3L), integer(), 4L, integer())
  unuseful <- list(7L, integer(), integer(), integer(), integer())
  clipped <- deltabench_score_critiques(critique, errors, unuseful)
  # gold {2, 5, 7}; 9 > 7 is dropped: tp 2, fp 0, fn 1
  expect_equal(c(clipped$tp[[1]], clipped$fp[[1]], clipped$fn[[1]]), c(2L, 0L, 1L))
  expect_equal(clipped$precision[[1]], 1)
  expect_equal(clipped$recall[[1]], 2 / 3)
  expect_equal(clipped$f1[[1]], 0.8)
  expect_equal(clipped$correct[[1]], 1L)
  # missed error: all zero, wrong
  expect_equal(c(clipped$tp[[2]], clipped$fn[[2]], clipped$f1[[2]], clipped$correct[[2]]),
               c(0, 1, 0, 0))
  # error-free samples: no section metrics, correct iff judged error-free
  expect_true(is.na(clipped$f1[[3]]))
  expect_equal(clipped$correct[c(3, 5)], c(0L, 1L))
  expect_true(clipped$failed[[4]])
  expect_true(is.na(clipped$correct[[4]]))
  full <- deltabench_score_critiques(critique, errors, unuseful, clip_predictions = FALSE)
  expect_equal(full$fp[[1]], 1L)
  expect_equal(full$precision[[1]], 2 / 3)
  expect_equal(full$f1[[1]], 2 / 3)
})
