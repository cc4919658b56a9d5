toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))

test_that("the accessors read the parts", {
  b <- new_benchmark("obj-acc", list(fn = "identity", headline = c("overall", "a"), by = "topic",
                                     interval = c(normal = "Wald", bootstrap = "percentile"),
                                     lower_is_better = "loss", elo_scale = "rating"),
                     data = list(sample = toy))
  expect_identical(benchmark_summary_fn(b), identity)
  expect_identical(benchmark_headline(b), c("overall", "a"))
  expect_identical(benchmark_by(b), "topic")
  expect_identical(benchmark_interval(b), "Wald")
  expect_identical(benchmark_interval(b, "bootstrap"), "percentile")
  expect_identical(benchmark_interval(b, "other"), "Wald")
  expect_identical(benchmark_lower_is_better(b), "loss")
  expect_identical(benchmark_elo_scale(b), "rating")
  expect_true(benchmark_has_data(b))
  expect_false(benchmark_has_data(new_benchmark("obj-acc", list(fn = identity))))
  # no benchmark (an unregistered name): the defaults a summary plot falls back on
  expect_null(benchmark_by(benchmark_named("obj-unregistered")))
  expect_identical(benchmark_interval(NULL), "95% confidence interval")
  expect_error(require_benchmark("obj-unregistered"), class = "predictivebench_error_argument")
  expect_s3_class(require_benchmark("futurex@sample"), "futurex_benchmark")
  expect_true(all(vapply(indexed_benchmarks(), is_benchmark, TRUE)))
  expect_true("futurex" %in% names(indexed_benchmarks()))
})

test_that("a flat registration (what a daemon is shipped) is the object again", {
  b <- new_benchmark("obj-ship", list(fn = identity, headline = NULL, by = "topic"),
                     task = function(dataset, dir) NULL,
                     data = list(sample = list(table = toy, items = 2L, files = "extdata")),
                     judging = list(needs_judge = TRUE))
  expect_identical(as_benchmark(benchmark_fields(b, internal = TRUE)), b)
  expect_identical(as_benchmark(b), b)
  expect_null(as_benchmark(NULL))
})

test_that("the shared layers read the benchmark object, not its flat registration", {
  summary_fn <- function(x, reducer = NULL, k = 1) grouped_summary(x$score, metric = "accuracy")
  b <- new_benchmark("obj-read",
                     list(fn = summary_fn, by = "level", lower_is_better = "loss",
                          interval = c(normal = "Wald", bootstrap = "percentile")),
                     task = function(dataset, dir, judge) NULL,
                     data = list(schema = data.frame(name = c("id", "input", "target"),
                                                     type = "string"), sample = toy),
                     judging = list(needs_judge = TRUE))
  register_benchmark(b)
  withr::defer(unregister_benchmark("obj-read"))
  flat_read <- function(...) stop("a flat registration was read")
  for (name in c("registration", "require_registration", "registrations", "data_benchmarks")) {
    local_replace_internal(name, flat_read)
  }
  rows <- grouped_summary(c(1, 0), metric = "accuracy")
  expect_equal(nrow(benchmark_dataset("obj-read", version = "sample")), 2)
  expect_equal(task_table_schema("obj-read")$name, c("id", "input", "target"))
  expect_equal(benchmark_versions("obj-read")$items, 2L)
  expect_true("obj-read" %in% set_benchmark_names())
  expect_error(check_set_judge("obj-read", "obj-read", NULL, call = NULL),
               "scored by a judge", class = "predictivebench_error_argument")
  expect_equal(version_identity("obj-read", "sample")$version, "sample")
  expect_identical(benchmark_function("obj-read", "task"), b$task)
  expect_equal(summary_by("default", "obj-read"), "level")
  expect_named(benchmark_metrics("obj-read"), "overall")
  expect_equal(attr(benchmark_summary(rows, "obj-read", method = "bootstrap"), "interval"),
               "percentile")
  expect_equal(board_labels("obj-read", rows)$interval, "Wald")
  expect_silent(check_reducible("obj-read"))
  expect_true(is.function(reduced_summary("obj-read")))
})

test_that("comparisons, clusters and reducers read the object's parts, not a flat registration", {
  summary_fn <- function(x, reducer = NULL, k = 1) grouped_summary(x$score, metric = "accuracy")
  doubled <- function(items) 2 * mean(items$score)
  b <- new_benchmark("obj-compare", list(fn = summary_fn),
                     comparison = list(statistic = doubled, metric = "doubled",
                                       columns = c("score", "obj_weight"), cluster = "level"))
  register_benchmark(b)
  withr::defer(unregister_benchmark("obj-compare"))
  flat_read <- function(...) stop("a flat registration was read")
  for (name in c("registration", "require_registration", "registrations", "data_benchmarks")) {
    local_replace_internal(name, flat_read)
  }
  statistic <- headline_statistic("obj-compare")
  expect_equal(statistic$metric, "doubled")
  expect_equal(statistic$fn(data.frame(score = c(1, 0), obj_weight = 1)), 1)
  expect_error(statistic$fn(data.frame(score = 1)), class = "predictivebench_error_argument")
  expect_true(headline_statistic("obj-unknown")$is_mean)
  expect_equal(benchmark_cluster("obj-compare", data.frame()), "level")
  expect_true("obj_weight" %in% statistic_columns())
  runs <- tibble::tibble(benchmark = "obj-compare")
  expect_identical(reducible_runs(runs, epoch_reducer("mean")), runs)
  expect_message(hint_benchmark(data.frame(score = 1, obj_weight = 1),
                                data.frame(score = 1, obj_weight = 1)),
                 class = "predictivebench_message_benchmark")
})
