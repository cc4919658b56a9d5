test_that("ProcessBench registers its pins, F1 of the two accuracies, and the problem cluster", {
  expect_equal(registration("processbench")$sample_items,
               nrow(processbench_dataset(version = "sample")))
  expect_true(all(nchar(processbench_versions()$commit) == 40))
  # worked by hand: error accuracy 1/2, correct accuracy 1 -> F1 = 2 * 0.5 / 1.5
  items <- data.frame(label = c(2, 0, -1, -1), score = c(1, 0, 1, 1))
  expect_equal(processbench_f1(items), 2 / 3)
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"), problem = c("p", "p"))), "problem")
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"), problem = c("p", "q"))), "id")
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"))), "id")
})
