futurex_rows <- function(n = 2) {
  tibble::tibble(
    id = paste0("q", seq_len(n)), input = "prompt", target = "Yes", level = 1L,
    std = NA_real_, end_time = NA_character_, additional_values = NA_character_,
    description = NA_character_, answer = NA_character_, has_answer = FALSE
  )
}

test_that("write then read gives the same table, benchmark taken from metadata", {
  path <- withr::local_tempfile(fileext = ".parquet")
  write_task_table(futurex_rows(), path, "futurex")
  back <- read_task_table(path)
  expect_equal(back, futurex_rows())
})

test_that("list columns survive the round trip", {
  schema_dir <- withr::local_tempdir()
  x <- futurex_rows()
  x$extra <- list(c("a", "b"), character())
  path <- withr::local_tempfile(fileext = ".parquet")
  write_task_table(x, path, "futurex")
  expect_equal(read_task_table(path)$extra, list(c("a", "b"), character()))
})

test_that("list columns empty in every row survive the round trip", {
  # nanoparquet alone can't write these, and crashes R reading back a column of character(0)
  x <- tibble::tibble(
    id = c("a", "b", "c"), problem = "p", steps = list("s1", c("s1", "s2"), "s1"),
    label = -1L, task_l1 = "math", task_l2 = NA_character_, origin = NA_character_,
    generator = NA_character_, final_answer_correct = NA,
    error_sections = list(integer(), NULL, integer()),
    unuseful_sections = list(NULL, NULL, NULL), sections_content = NA_character_,
    notes = list(character(), character(), character())
  )
  path <- withr::local_tempfile(fileext = ".parquet")
  write_task_table(x, path, "processbench")
  back <- read_task_table(path)
  expect_equal(back$error_sections, list(integer(), NULL, integer()))
  expect_equal(back$unuseful_sections, list(NULL, NULL, NULL))
  expect_equal(back$notes, list(character(), character(), character()))
  expect_equal(back$steps, x$steps)
})

test_that("validation names file, row and field", {
  x <- futurex_rows()
  x$id[2] <- "q1"
  err <- expect_error(validate_task_table(x, "futurex", file = "t.parquet"),
                      class = "predictivebench_error_duplicate_id")
  expect_equal(err$row, 2)
  expect_equal(err$field, "id")
  expect_match(conditionMessage(err), "t.parquet")
  y <- futurex_rows()
  y$level <- c("a", "b")
  expect_error(validate_task_table(y, "futurex"), class = "predictivebench_error_schema")
  z <- futurex_rows()
  z$input[2] <- NA
  err <- expect_error(validate_task_table(z, "futurex"), class = "predictivebench_error_schema")
  expect_equal(err$row, 2)
  expect_error(validate_task_table(futurex_rows()[, -1], "futurex"), "Missing column")
  # JSON and the Python side know no infinite numbers; NaN is a missing value.
  w <- futurex_rows()
  w$std[2] <- -Inf
  err <- expect_error(validate_task_table(w, "futurex"), "infinite",
                      class = "predictivebench_error_schema")
  expect_equal(c(err$row, err$field), c("2", "std"))
  w$std[2] <- NaN
  expect_true(is.na(validate_task_table(w, "futurex")$std[[2]]))
  expect_error(task_table_schema("nope"), class = "predictivebench_error_argument")
  schema <- task_table_schema("processbench")
  expect_equal(schema$name[schema$optional], "split")
  expect_false(any(task_table_schema("futurex")$optional))
})

test_that("reading a missing or non-parquet file is a classed error", {
  expect_error(read_task_table(tempfile()), class = "predictivebench_error_missing_file")
  bad <- withr::local_tempfile(fileext = ".parquet")
  writeLines("not parquet", bad)
  expect_error(read_task_table(bad, "futurex"), class = "predictivebench_error_parquet")
})

test_that("a task table of another benchmark says which benchmark it is", {
  withr::local_dir(withr::local_tempdir())
  write_task_table(futurex_rows(), "futurex.parquet", "futurex")
  err <- expect_error(probsem_dataset("futurex.parquet"), class = "predictivebench_error_benchmark")
  expect_equal(err$file, "futurex.parquet")
  expect_snapshot(probsem_dataset("futurex.parquet"), error = TRUE)
  expect_snapshot(read_task_table("futurex.parquet", "processbench"), error = TRUE)
  # Without a benchmark to compare, the metadata decides.
  expect_equal(read_task_table("futurex.parquet"), futurex_rows())
})

test_that("a raw file where a task table belongs says which prepare_*() to run", {
  withr::local_dir(withr::local_tempdir())
  writeLines('[{"id": "q1", "prompt": "Will it rain?"}]', "questions.json")
  writeLines(c('{"id": "a"}', '{"id": "b"}'), "records.jsonl")
  writeLines(c("question", "Why?"), "questions.csv")
  writeLines("\ufeff  {\"id\": 1}", "bom.data")
  expect_snapshot(futurex_dataset("questions.json"), error = TRUE)
  expect_snapshot(processbench_dataset("records.jsonl"), error = TRUE)
  expect_snapshot(read_task_table("questions.csv"), error = TRUE)
  err <- expect_error(read_task_table("bom.data", "deltabench"),
                      class = "predictivebench_error_parquet")
  expect_match(conditionMessage(err), "JSON Lines", fixed = TRUE)
  expect_match(conditionMessage(err), 'prepare_task_table("deltabench", "bom.data"', fixed = TRUE)
  dir.create("dsbench-data")
  expect_snapshot(dsbench_dataset("dsbench-data"), error = TRUE)
})
