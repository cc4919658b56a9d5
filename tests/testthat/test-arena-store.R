test_that("the layout keeps every file inside dir, in EloBench's folders", {
  dir <- withr::local_tempdir()
  judge <- baseline_chat(function(q) "", name = "org/judge:v1")
  paths <- arena_layout(dir, "toy", "exp", judge, "231225")
  inside <- vapply(paths, function(p) startsWith(p, dir), TRUE)
  expect_true(all(inside))
  expect_equal(dirname(paths$answers), paths$cache)
  expect_equal(dirname(paths$records_cache), paths$cache)
  expect_equal(basename(dirname(paths$cache)), "toy")
  expect_false(grepl(":", basename(paths$cache)))
  expect_match(basename(paths$cache), "231225")
  expect_equal(paths$source_questions, file.path(dir, "data", "toy", "questions.csv"))
  expect_equal(dirname(paths$ratings), file.path(dir, "results", "exp"))
})

test_that("a new judge setting starts from the original's answers only when caching", {
  dir <- withr::local_tempdir()
  paths <- arena_layout(dir, "toy", "exp", arena_baseline_judge(), "231225")
  dir.create(dirname(paths$shared_answers), recursive = TRUE)
  writeLines(c('"","question","m1"', '"0","q1","an answer"'), paths$shared_answers)
  open_arena_store(paths, "q1", c("m1", "m2"), request_settings(cache = FALSE))
  expect_false(file.exists(paths$answers))
  expect_equal(read.csv(paths$models)$model, c("m1", "m2"))
  expect_true(dir.exists(paths$logs))
  open_arena_store(paths, "q1", c("m1", "m2"), request_settings())
  expect_equal(arena_read_answers(paths$answers)$m1, "an answer")
})

test_that("store_caching() and verdict_cache() follow the settings' cache", {
  paths <- list(records_cache = "battle_records.csv")
  expect_true(store_caching(request_settings()))
  expect_false(store_caching(request_settings(cache = FALSE)))
  expect_equal(verdict_cache(paths, request_settings(cache = "somewhere")),
               "battle_records.csv")
  expect_null(verdict_cache(paths, request_settings(cache = FALSE)))
})

test_that("answers merge without losing one to a failure", {
  answers <- tibble::tibble(question = c("q1", "q2"), m = c("kept", NA))
  merged <- merge_answer_results(answers, c("q1", "q2"), c("m", "m"), c(NA, "new"))
  expect_equal(merged$m, c("kept", "new"))
})

# Where an R file names EloBench's answer or battle file in code (a string, a name):
# "file:line" for each, comments and roxygen aside.
elobench_file_mentions <- function(files) {
  out <- character()
  for (file in files) {
    tokens <- utils::getParseData(parse(file, keep.source = TRUE))
    code <- tokens[tokens$terminal & tokens$token != "COMMENT", ]
    hit <- grepl("q_and_as|battle_records", code$text)
    out <- c(out, sprintf("%s:%d", basename(file), code$line1[hit]))
  }
  out
}

test_that("one module names EloBench's answer and battle files; the others ask it", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)
  others <- files[basename(files) != "arena-store.R"]
  expect_equal(elobench_file_mentions(others), character())
  # the check sees a name in code, and not in a comment
  fake <- withr::local_tempfile(fileext = ".R")
  writeLines(c("# q_and_as.csv in a comment", "f <- function(d) file.path(d, \"q_and_as.csv\")",
               "g <- function() merge_battle_records"), fake)
  expect_equal(elobench_file_mentions(fake), paste0(basename(fake), c(":2", ":3")))
})
