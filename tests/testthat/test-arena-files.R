test_that("the original's files load", {
  dummy <- elobench_reference("dummy_battle_records.csv")
  if (is.null(dummy)) skip("The reference folder shared/reference/elobench is absent.")
  records <- arena_read_battles(dummy)
  expect_named(records, predictivebench:::battle_record_columns)
  expect_true(all(records$winner == "tie(all bad)"))
  expect_true(all(records$is_valid))
  # Re-parsing the stored responses (multi-line, with doubled quotes) gives the same winners.
  texts <- vapply(records$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  expect_equal(arena_parse_verdict(texts)$winner, records$winner)
  answers <- arena_read_answers(elobench_reference("quora_100_q_and_as.csv"))
  expect_equal(names(answers)[[1]], "question")
  expect_equal(sum(answers[-1] == "", na.rm = TRUE), 25)
  pairs <- arena_read_battles(elobench_reference("quora_100_battled_pairs.csv"))
  expect_equal(sum(is.na(pairs$winner)), 71)
  published <- arena_read_ratings(elobench_reference("quora_100_elo_rating.csv"))
  expect_equal(published$model[[1]], "gpt-4-turbo")
  expect_equal(published$rank[1:3], 1:3)
  # The published ratings were made another way: within 1.4 points of one online pass.
  ours <- elo_online(pairs)
  expect_lt(max(abs(ours[published$model] - published$elo_rating)), 1.5)
})

test_that("CSV files round-trip in the original layout; NaN is 'not generated'", {
  dir <- withr::local_tempdir()
  answers <- tibble::tibble(question = c("q1", "q,2\n\"x\""), a = c("yes", NA), b = c("", "no"))
  path <- file.path(dir, "q_and_as.csv")
  predictivebench:::write_answers(answers, path)
  lines <- readLines(path)
  expect_equal(lines[[1]], '"","question","a","b"')
  expect_match(lines[[2]], '^"0","q1","yes",""$')
  expect_match(paste(lines, collapse = "\n"), '"NaN"', fixed = TRUE)
  back <- arena_read_answers(path)
  expect_equal(back, answers)
  # An older original wrote NULL for "not generated"; it is read as missing too.
  writeLines(c('"","question","a"', '"0","q1","NULL"', '"1","q2","NaN"', '"2","q3",""'),
             path)
  expect_equal(arena_read_answers(path)$a, c(NA, NA, ""))
  records <- tibble::tibble(model_a = "a", model_b = "b", winner = c("model_a", NA),
                            judger = "j", tstamp = "t", question = c("q1", "q2"),
                            answer_a = "x", answer_b = "y", gpt_4_response = "{}",
                            gpt_4_score = NA_character_, is_valid = c(TRUE, FALSE))
  rpath <- file.path(dir, "battle_records.csv")
  predictivebench:::write_arena_csv(records, rpath)
  expect_match(readLines(rpath)[[2]], '"True"$')
  expect_equal(arena_read_battles(rpath)$winner, c("model_a", NA))
  expect_equal(arena_read_battles(rpath)$is_valid, c(TRUE, FALSE))
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), c("battle_records.csv",
                                                                  "q_and_as.csv"))
})

test_that("bad input gives clear, classed errors", {
  dir <- withr::local_tempdir()
  bad <- file.path(dir, "battles.csv")
  writeLines(c("model_a,winner", "x,model_a"), bad)
  err <- tryCatch(arena_read_battles(bad), error = identity)
  expect_s3_class(err, "predictivebench_error_schema")
  expect_equal(err$field, "model_b")
  expect_equal(err$file, bad)
  writeLines(c("model_a,model_b,winner", "x,y,model_a", "x,y,draw"), bad)
  err <- tryCatch(arena_read_battles(bad), error = identity)
  expect_s3_class(err, "predictivebench_error_winner")
  expect_equal(err$row, 2)
  writeLines(c("model_a,model_b,winner", "x,y,tie (bothbad)"), bad)
  expect_equal(arena_read_battles(bad)$winner, "tie(all bad)")
  expect_error(arena_read_battles(file.path(dir, "none.csv")),
               class = "predictivebench_error_missing_file")
  arr <- file.path(dir, "battle_arrangement.csv")
  writeLines(c(",question,model_a,model_b", "0,q1,m1,m2", "1,q1,m1,ghost"), arr)
  err <- tryCatch(arena_read_arrangement(arr, models = c("m1", "m2")), error = identity)
  expect_s3_class(err, "predictivebench_error_model")
  expect_match(conditionMessage(err), "ghost")
  expect_equal(err$row, 2)
})

test_that("the readers' error messages name the file, row and field", {
  # Relative paths keep the messages free of temporary folders.
  withr::local_dir(withr::local_tempdir())
  writeLines(c("model_a,winner", "x,model_a"), "battles.csv")
  expect_snapshot(arena_read_battles("battles.csv"), error = TRUE)
  writeLines(c("model_a,model_b,winner", "x,y,model_a", "x,y,draw"), "battles.csv")
  expect_snapshot(arena_read_battles("battles.csv"), error = TRUE)
  expect_snapshot(arena_read_answers("none.csv"), error = TRUE)
  writeLines(c(",question,model_a,model_b", "0,q1,m1,m2", "1,q1,m1,ghost"), "arr.csv")
  expect_snapshot(arena_read_arrangement("arr.csv", models = c("m1", "m2")), error = TRUE)
  writeLines(c("Model,rating", "a,1000"), "elo_rating.csv")
  expect_snapshot(arena_read_ratings("elo_rating.csv"), error = TRUE)
})

test_that("questions.csv: unique questions in order, with counts and first rows", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "questions.csv")
  # R's own write.csv layout, with the unnamed index column.
  utils::write.csv(data.frame(question = c("b?", "a?", "b?", "multi\nline, \"quoted\"", "a?",
                                           "b?")), path)
  table <- arena_dataset(path)
  expect_equal(table$input, c("b?", "a?", "multi\nline, \"quoted\""))
  expect_equal(table$occurrences, c(3L, 2L, 1L))
  expect_equal(table$first_row, c(1L, 2L, 4L))
  expect_equal(table$id, c("q1", "q2", "q3"))
  expect_true(all(is.na(table$target)))
  expect_equal(validate_task_table(table, "arena"), table)
  expect_equal(arena_read_questions(path), table$input)
  # An empty string is a question; blank lines are no rows.
  writeLines(c(",question", '0,""', "", "1,x", "", "2,y"), path)
  expect_equal(arena_dataset(path)$input, c("", "x", "y"))
  expect_equal(arena_dataset(path)$first_row, 1:3)
  # Except in a file of one column: read.csv() takes a line holding only `""` for a blank
  # line (pandas reads it as an empty value). The retired Python flattener kept it.
  writeLines(c("question", '""', "x"), path)
  expect_equal(arena_dataset(path)$input, "x")
  # A header alone has no questions: nothing to evaluate.
  writeLines("question", path)
  err <- expect_error(arena_dataset(path), class = "predictivebench_error_empty")
  expect_identical(err$file, path)
  expect_error(prepare_arena(path), class = "predictivebench_error_empty")
})

test_that("a NUL byte is an error naming its row and field, not a silent loss", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "questions.csv")
  nul <- function(...) {
    parts <- lapply(list(...), function(x) if (is.raw(x)) x else charToRaw(x))
    writeBin(do.call(c, parts), path)
  }
  # read.csv() alone warns and drops the questions from this one on.
  nul(',question\n0,"What is 1?"\n1,"Wh', as.raw(0), 'at is 2?"\n2,"Three?"\n')
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_encoding")
  expect_identical(err$file, path)
  expect_identical(err$row, 2L)
  expect_identical(err$field, "question")
  # A quoted field spanning lines, commas inside quotes, and an unnamed index column.
  nul(',question,source\n0,"a, b\nc",x\n1,"d",y', as.raw(0), "\n")
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_encoding")
  expect_identical(c(err$row, err$field), c("2", "source"))
  nul(as.raw(0), ",question\n0,a\n")
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_encoding")
  expect_identical(c(err$row, err$field), c("header", "column 1"))
  # UTF-16 text is full of NUL bytes: it says so.
  writeBin(iconv("question\nhello\n", "UTF-8", "UTF-16LE", toRaw = TRUE)[[1]], path)
  expect_snapshot(arena_read_answers(path), error = TRUE,
                  transform = function(x) gsub(dir, "<tmp>", x, fixed = TRUE))
})

test_that("a NUL byte in a real EloBench file is named", {
  source <- elobench_reference("rwq_200_questions.csv")
  if (is.null(source)) skip("The reference folder shared/reference/elobench is absent.")
  bytes <- readBin(source, "raw", file.size(source))
  questions <- arena_read_questions(source)
  expect_length(questions, 200)
  # The first byte of the 57th question's text.
  at <- grepRaw(questions[[57]], bytes, fixed = TRUE)
  path <- file.path(withr::local_tempdir(), "questions.csv")
  writeBin(c(bytes[seq_len(at)], as.raw(0), bytes[-seq_len(at)]), path)
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_encoding")
  expect_identical(c(err$row, err$field), c(57L, "question"))
})

test_that("duplicate columns, empty model names and rating numbers are checked", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "f.csv")
  writeLines(c("question,m1,m1", '"a","x","y"'), path)
  err <- expect_error(arena_read_answers(path), class = "predictivebench_error_schema")
  expect_identical(err$field, "m1")
  writeLines(c("model_a,model_b,winner", "m1,m2,model_a", "m1,,model_b"), path)
  err <- expect_error(arena_read_battles(path), class = "predictivebench_error_model")
  expect_identical(c(err$row, err$field), c("2", "model_b"))
  writeLines(c("model,elo_rating", "m1,1010.5", "m2,abc"), path)
  err <- expect_error(arena_read_ratings(path), class = "predictivebench_error_field")
  expect_identical(c(err$row, err$field), c("2", "elo_rating"))
  writeLines(c("model,elo_rating,rank", "m1,1010.5,1", "m2,990,1.5"), path)
  err <- expect_error(arena_read_ratings(path), class = "predictivebench_error_field")
  expect_identical(c(err$row, err$field), c("2", "rank"))
  writeLines(c(",Model,Elo Rating", "1,m1,Inf"), path)
  err <- expect_error(arena_read_ratings(path), class = "predictivebench_error_field")
  expect_identical(c(err$row, err$field), c("1", "Elo Rating"))
})

test_that("questions.csv: a missing column, a ragged row, a missing or empty file", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "questions.csv")
  writeLines(c("prompt", "hello"), path)
  err <- tryCatch(arena_dataset(path), error = identity)
  expect_s3_class(err, "predictivebench_error_schema")
  expect_equal(err$field, "question")
  # read.csv() alone would pad the short row and wrap a long one into the next.
  writeLines(c("question,source", "hi,a", "there"), path)
  err <- tryCatch(arena_read_questions(path), error = identity)
  expect_s3_class(err, "predictivebench_error_csv")
  expect_equal(err$row, 2)
  writeLines(c(",question", '0,"a"', '1,"b",extra'), path)
  expect_error(prepare_arena(path), class = "predictivebench_error_csv")
  expect_error(arena_dataset(file.path(dir, "nope.csv")),
               class = "predictivebench_error_missing_file")
  writeLines("   ", path)
  expect_error(arena_dataset(path), class = "predictivebench_error")
  withr::local_dir(dir)
  writeLines(c("question,source", "hi,a", "there"), "questions.csv")
  expect_snapshot(arena_dataset("questions.csv"), error = TRUE)
})

test_that("a byte that is not UTF-8 is named by its data row as the file is read: blank lines are no rows, a quoted line break is one row", {
  path <- file.path(withr::local_tempdir(), "questions.csv")
  writeBin(c(charToRaw('question\n"one\nquestion"\n\n"two"\n"thr'), as.raw(0xe9),
             charToRaw('e"\n')), path)
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_encoding")
  expect_identical(err$row, 3L)
  # the same rows as the field check counts: a short row after the blank line is row 3 too
  writeLines(c("question,source", '"one', 'question",a', "", "two,b", "three"), path)
  err <- expect_error(arena_read_questions(path), class = "predictivebench_error_csv")
  expect_equal(err$row, 3)
})
