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
  futurex <- task_table_schema("futurex")
  expect_equal(futurex$name[futurex$optional], c("answer", "has_answer"))  # predictions
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

# A parquet task table whose row `row` of `field` holds byte 0xFC where a letter was: written
# uncompressed by nanoparquet (whose writer turns such bytes into "<fc>"), then patched.
bad_byte_parquet <- function(rows, row, field, .local_envir = parent.frame()) {
  rows[[field]][[row]] <- "Will it rain in MZZZZnchen tomorrow?"
  path <- withr::local_tempfile(fileext = ".parquet", .local_envir = .local_envir)
  nanoparquet::write_parquet(as.data.frame(rows), path, compression = "uncompressed",
                             metadata = c(predictivebench.benchmark = "futurex"))
  bytes <- readBin(path, "raw", file.size(path))
  for (at in grepRaw("MZZZZn", bytes, fixed = TRUE, all = TRUE)) bytes[at + 1] <- as.raw(0xfc)
  writeBin(bytes, path)
  path
}

test_that("text that is not UTF-8 is refused before anything is sent, naming file, row and field", {
  server <- local_fake_openai(function(body, n) "\\boxed{Yes}")
  path <- bad_byte_parquet(futurex_rows(4), 3, "input")
  err <- expect_error(futurex_dataset(path), class = "predictivebench_error_encoding")
  expect_equal(err$file, path)
  expect_equal(err$row, 3)
  expect_equal(err$field, "input")
  expect_match(conditionMessage(err), "M<fc>ZZZnchen", fixed = TRUE)
  # the same text in a data frame, given to a task or to benchmark_dataset()
  rows <- futurex_rows(4)
  rows$description[[2]] <- "caf\xe9"
  for (make in list(function() futurex_task(rows, dir = withr::local_tempdir()),
                    function() benchmark_dataset("futurex", rows))) {
    err <- expect_error(make(), class = "predictivebench_error_encoding")
    expect_equal(err$file, "<data frame>")
    expect_equal(c(err$row, err$field), c(2, "description"))
  }
  # a list column's text
  rows <- futurex_rows(2)
  rows$extra <- list("fine", c("ok", "caf\xe9"))
  err <- expect_error(validate_task_table(rows, "futurex"),
                      class = "predictivebench_error_encoding")
  expect_equal(c(err$row, err$field), c(2, "extra"))
  expect_equal(server$count(), 0)
})

test_that("text marked as Latin-1 is carried through as UTF-8, and runs", {
  server <- local_fake_openai(function(body, n) paste("\\boxed{Yes}", last_user_text(body)))
  rows <- futurex_rows(2)
  rows$input[[2]] <- iconv("Will it rain in M\u00fcnchen?", "UTF-8", "latin1")
  expect_equal(Encoding(rows$input[[2]]), "latin1")
  # a table written from it holds UTF-8, and reads back the same text
  path <- withr::local_tempfile(fileext = ".parquet")
  write_task_table(rows, path, "futurex")
  back <- read_task_table(path)
  expect_equal(back$input[[2]], "Will it rain in M\u00fcnchen?")
  expect_equal(Encoding(validate_task_table(rows, "futurex")$input[[2]]), "UTF-8")
  tsk <- futurex_task(rows, dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE, cache = FALSE))
  sent <- vapply(server$requests(), last_user_text, "")
  expect_true(any(grepl("M\u00fcnchen", sent, fixed = TRUE)))
  expect_true(file.exists(tsk$log_path))
})

test_that("a table of step-by-step solutions is checked row by row, for both its benchmarks", {
  x <- data.frame(id = c("a", "b"), label = c(-1L, 1L))
  x$steps <- list(c("s1", "s2"), c("s1", " "))
  x$error_sections <- list(integer(), 1L)
  x$unuseful_sections <- list(integer(), integer())
  expect_error(check_solution_steps(x), class = "predictivebench_error_field")
  x$steps[[2]] <- c("s1", "s2")
  expect_identical(check_solution_steps(x), x)
  x$error_sections[[2]] <- 3L
  expect_error(check_solution_steps(x, file = "t.parquet"), "Section numbers",
               class = "predictivebench_error_field")
})
