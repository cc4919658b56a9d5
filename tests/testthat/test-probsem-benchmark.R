test_that("probsem registers its pins, its sample and the distance to people as lower-is-better", {
  entry <- registration("probsem")
  expect_equal(entry$sample_items, nrow(probsem_dataset(version = "sample")))
  expect_true("js_distance" %in% entry$lower_is_better)
  pins <- probsem_versions()
  expect_true(all(nchar(pins$commit) == 40))
  expect_true(any(pins$default))
})
