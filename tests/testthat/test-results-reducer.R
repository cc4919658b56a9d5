# The epoch reducer's spec and a registered summary under it (R/results-reducer.R); the
# reducing itself is tested in test-stats-epochs.R.

test_that("a reducer is checked once into a spec whose label names its k", {
  expect_null(epoch_reducer(NULL))
  spec <- epoch_reducer("pass_at_k", k = 2)
  expect_s3_class(spec, "predictivebench_reducer")
  expect_equal(spec$label, "pass_at_2")
  expect_identical(epoch_reducer(spec), spec)
  expect_equal(epoch_reducer("max")$label, "max")
  expect_error(epoch_reducer("median"), class = "predictivebench_error_argument")
  expect_error(epoch_reducer(NULL, k = 2), class = "predictivebench_error_argument")
  expect_error(epoch_reducer("mean", k = 2), class = "predictivebench_error_argument")
})

test_that("a benchmark whose summary takes no reducer says so, with a classed error", {
  expect_error(reduced_summary("probsem", epoch_reducer("mean")),
               class = "predictivebench_error_reducer")
  for (name in c("processbench", "deltabench", "probsem", "arena", "arena_ratings")) {
    expect_error(check_reducible(name), class = "predictivebench_error_reducer", info = name)
  }
  expect_no_error(check_reducible("futurex"))
  expect_no_error(check_reducible("dsbench"))
})
