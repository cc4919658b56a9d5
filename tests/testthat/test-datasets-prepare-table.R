test_that("errors name the function the user called, not the internals", {
  withr::local_dir(withr::local_tempdir())
  # A raw file that does not exist: the error comes from inside the Python bridge.
  skip_if_no_python()
  err <- expect_error(prepare_futurex("missing.json"), class = "predictivebench_error")
  expect_identical(err$call[[1]], quote(prepare_futurex))
  err <- expect_error(prepare_task_table(1), class = "predictivebench_error_argument")
  expect_identical(err$call[[1]], quote(prepare_task_table))
  expect_snapshot(prepare_futurex("missing.json"), error = TRUE,
                  transform = function(x) sub("'/[^']*/missing", "'<dir>/missing", x))
})

test_that("prepare_task_table() returns the table, or writes it as a readable task table", {
  skip_if_no_python()
  src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
  table <- prepare_task_table("futurex", src)
  expect_s3_class(table, "tbl_df")
  expect_false(anyDuplicated(table$id) > 0)
  out <- withr::local_tempfile(fileext = ".parquet")
  expect_invisible(written <- prepare_task_table("futurex", src, out))
  expect_equal(written, out)
  expect_identical(read_task_table(out), table)
})

test_that("Python's errors come back as classed R errors naming file, row and field", {
  skip_if_no_python()
  bad <- withr::local_tempfile(fileext = ".json")
  writeLines('[{"id": 1}]', bad)
  err <- expect_error(prepare_task_table("futurex", bad), class = "predictivebench_error_field")
  expect_equal(err$file, bad)
  expect_equal(err$row, "1")
  expect_equal(err$field, "prompt")
  err <- expect_error(prepare_task_table("nosuch", "x.json"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "no benchmark \"nosuch\"")
  expect_equal(err$field, "benchmark")
})

test_that("prepare_task_table() is the one verb: each benchmark's options pass through `...`", {
  src <- system.file("extdata", "arena", "data", "sample", "questions.csv",
                     package = "predictivebench")
  expect_identical(prepare_task_table("arena", src), prepare_arena(src))
  skip_if_no_python()
  delta <- system.file("extdata", "deltabench-sample.jsonl", package = "predictivebench")
  expect_identical(prepare_task_table("deltabench", delta, count_unuseful = TRUE),
                   prepare_deltabench(delta, count_unuseful = TRUE))
  expect_false(identical(prepare_task_table("deltabench", delta)$label,
                         prepare_task_table("deltabench", delta, count_unuseful = TRUE)$label))
  pb <- system.file("extdata", "processbench-sample.json", package = "predictivebench")
  expect_equal(unique(prepare_task_table("processbench", pb, split = "mine")$split), "mine")
  expect_error(prepare_task_table("futurex", delta, nosuch = 1))
})

test_that("any other Python failure is a `python` error naming the source file", {
  e <- simpleError("ValueError: boom\nRun `reticulate::py_last_error()` for details.")
  err <- expect_error(rethrow_python(e, "raw.json", call = NULL),
                      class = "predictivebench_error_python")
  expect_equal(err$file, "raw.json")
  msg <- cli::ansi_strip(conditionMessage(err))
  expect_match(msg, "The Python flattener failed.", fixed = TRUE)
  expect_match(msg, "ValueError: boom", fixed = TRUE)
  expect_false(grepl("py_last_error", msg, fixed = TRUE))
})
