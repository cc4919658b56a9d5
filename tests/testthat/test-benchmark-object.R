test_that("new_benchmark() checks its arguments", {
  expect_error(new_benchmark("x", 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, headline = NA_character_), "at least one")
  expect_error(new_benchmark(c("a", "b"), identity), class = "predictivebench_error_argument")
})

test_that("new_benchmark() checks what makes a benchmark one", {
  expect_error(new_benchmark("x", identity, schema = data.frame(name = "id", type = "text")),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, sample = 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, versions = data.frame(a = 1)),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, statistic = "min"),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, cluster = 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, needs_judge = "yes"),
               class = "predictivebench_error_argument")
  expect_false("x" %in% registered_benchmarks()$name)
  # one name: the internal alias new_benchmark() is gone (new_benchmark() is the name)
  expect_false(exists("register_benchmark", envir = asNamespace("predictivebench"),
                      inherits = FALSE))
})

test_that("a missing field is a classed error naming it", {
  err <- expect_error(new_benchmark("x"), class = "predictivebench_error_argument")
  expect_equal(err$field, "summary")
  expect_match(conditionMessage(err), "summary")
  err <- expect_error(new_benchmark(summary = identity), class = "predictivebench_error_argument")
  expect_equal(err$field, "name")
  err <- expect_error(new_benchmark("x", identity, task = "x_task"),
                      class = "predictivebench_error_argument")
  expect_equal(err$field, "task")
  err <- expect_error(new_benchmark("x", identity, interval = c("a", "b")),
                      class = "predictivebench_error_argument")
  expect_equal(err$field, "interval")
  expect_error(new_benchmark("x@y", identity), class = "predictivebench_error_argument")
  expect_false("x" %in% registered_benchmarks()$name)
})
