test_that("DeltaBench registers its pins, the processbench schema and its macro F1 statistic", {
  expect_equal(registration("deltabench")$schema, "processbench")
  expect_equal(registration("deltabench")$sample_items,
               nrow(deltabench_dataset(version = "sample")))
  expect_true(all(nchar(deltabench_versions()$commit) == 40))
  # the mean of the per-sample F1 over samples with error sections
  items <- tibble::tibble(error_sections = list(c(1, 2), integer(), 3), score = c(0.5, 1, 0))
  expect_equal(deltabench_macro_f1(items), 0.25)
})
