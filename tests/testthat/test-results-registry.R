test_that("benchmarks register, list and unregister", {
  # A summary given by name is looked up in the package namespace when used: a function the
  # tests define (arith_summary(), helper-results.R) is not there when the tests run on the
  # installed package (R CMD check), so the name is one of the package's own summaries.
  old <- register_benchmark("reg-test", "futurex_summary", headline = c("weighted"), by = "level",
                            interval = "90% interval")
  withr::defer(unregister_benchmark("reg-test"))
  expect_null(old)
  listed <- registered_benchmarks()
  row <- listed[listed$name == "reg-test", ]
  expect_equal(row$headline[[1]], "weighted")
  expect_equal(row$interval, "90% interval")
  entry <- benchmark_entry("reg-test")
  expect_identical(entry$summary, futurex_summary)
  expect_equal(unregister_benchmark("reg-test")$by, "level")
  expect_false("reg-test" %in% registered_benchmarks()$name)
  expect_error(benchmark_entry("reg-test"), "No benchmark")
})

test_that("register_benchmark() checks its arguments", {
  expect_error(register_benchmark("x", 1), class = "predictivebench_error_argument")
  expect_error(register_benchmark("x", identity, headline = NA_character_), "at least one")
  expect_error(register_benchmark(c("a", "b"), identity), class = "predictivebench_error_argument")
})
