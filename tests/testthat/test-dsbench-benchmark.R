test_that("DSBench registers its pins, its sample and the competition as its cluster", {
  expect_equal(registration("dsbench")$sample_items, nrow(dsbench_dataset(version = "sample")))
  pins <- dsbench_versions()
  expect_true(all(nchar(pins$commit) == 40))
  expect_match(unique(pins$licence), "non-commercial", ignore.case = TRUE)
  expect_equal(benchmark_cluster("dsbench", data.frame(competition_id = "c1")), "competition_id")
  expect_true(headline_statistic("dsbench")$is_mean)
})
