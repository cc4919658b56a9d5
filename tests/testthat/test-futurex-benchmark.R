test_that("FutureX registers its pins, its sample and the level-weighted overall", {
  entry <- registration("futurex")
  expect_equal(entry$sample_items, nrow(futurex_dataset(version = "sample")))
  pins <- futurex_versions()
  expect_true(all(nchar(pins$commit) == 40))
  expect_equal(sum(pins$default), 1)
  # worked by hand: level 1 mean 1, level 3 mean 0.5 -> 0.1 * 1 + 0.3 * 0.5
  items <- data.frame(level = c(1, 1, 3, 3), score = c(1, 1, 0, 1))
  expect_equal(futurex_weighted_score(items), 0.25)
  expect_equal(headline_statistic("futurex")$metric, "overall")
})
