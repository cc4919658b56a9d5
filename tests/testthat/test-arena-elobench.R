# EloBench's folder as an import and export of the one store (R/arena-elobench.R): where
# its files are, how the run's answers and verdicts are merged into them, and which of its
# verdicts are filed in the response cache.

# Battle records (EloBench's columns) of `battles`, one per row, with the given winners and
# gpt_4_response values.
store_records <- function(battles, winner, response, judger = "gpt-4") {
  n <- nrow(battles)
  tibble::tibble(
    model_a = battles$model_a, model_b = battles$model_b,
    winner = rep_len(as.character(winner), n), judger = rep_len(judger, n),
    tstamp = "2023-12-25 00:00:00", question = battles$question,
    answer_a = battles$answer_a, answer_b = battles$answer_b,
    gpt_4_response = rep_len(as.character(response), n), gpt_4_score = "",
    is_valid = !is.na(rep_len(as.character(winner), n))
  )
}

# A gpt_4_response as the package writes it (response_json()), with `key` as its request.
package_response <- function(text, key = NULL, version = "231225") {
  fields <- list(is_valid = TRUE, response = text, prompt_version = version)
  fields$request_sha256 <- key
  as.character(jsonlite::toJSON(fields, auto_unbox = TRUE, null = "null"))
}

test_that("the layout keeps every file inside the folder, in EloBench's places", {
  dir <- withr::local_tempdir()
  paths <- elobench_layout(dir, "toy", "exp")
  expect_true(all(vapply(paths, function(p) startsWith(p, dir), TRUE)))
  expect_setequal(names(paths), c("source_questions", "answers", "verdicts", "questions",
                                  "models", "arrangement", "records", "outcomes", "ratings"))
  # one answer file and one battle file per data version, for every judge
  expect_equal(paths$answers, file.path(dir, "tempcache", "toy", "q_and_as.csv"))
  expect_equal(paths$verdicts, file.path(dir, "tempcache", "toy", "battle_records.csv"))
  expect_equal(paths$source_questions, file.path(dir, "data", "toy", "questions.csv"))
  results <- file.path(dir, "results", "exp")
  expect_equal(unname(unlist(paths[c("questions", "models", "arrangement", "records",
                                     "outcomes", "ratings")])),
               file.path(results, c("questions.csv", "models.csv", "battle_arrangement.csv",
                                    "battle_records.csv", "battle_outcomes.csv",
                                    "elo_rating.csv")))
  # no folder, no files
  expect_null(elobench_layout(NULL, "toy", "exp"))
  expect_null(export_answers(NULL, tibble::tibble(question = "q", m = "a")))
  expect_null(export_verdicts(NULL, empty_records()))
  expect_null(open_elobench_results(NULL, "q", c("m1", "m2")))
})

test_that("the run's questions and models are written before the first round", {
  dir <- withr::local_tempdir()
  paths <- elobench_layout(dir, "toy", "exp")
  open_elobench_results(paths, c("q1", "q2"), c("m1", "m2"))
  expect_equal(utils::read.csv(paths$questions)$question, c("q1", "q2"))
  expect_equal(utils::read.csv(paths$models)$model, c("m1", "m2"))
  expect_false(file.exists(paths$answers))
  expect_false(file.exists(paths$verdicts))
})

test_that("store_caching() follows the settings' cache", {
  expect_true(store_caching(request_settings()))
  expect_true(store_caching(request_settings(cache = "somewhere")))
  expect_false(store_caching(request_settings(cache = FALSE)))
})

test_that("export_answers() merges by model name without losing an answer to NA", {
  dir <- withr::local_tempdir()
  paths <- elobench_layout(dir, "toy", "exp")
  dir.create(dirname(paths$answers), recursive = TRUE)
  # the folder's file: an answer of m1 for q1, a missing one for q2, another model's column
  writeLines(c('"","question","m1","other"', '"0","q1","kept","o1"', '"1","q2","NaN","o2"'),
             paths$answers)
  run <- tibble::tibble(question = c("q1", "q2", "q3"), m1 = c(NA, "new", "three"),
                        m2 = c("x", NA, ""))
  export_answers(paths, run)
  out <- arena_read_answers(paths$answers)
  expect_equal(out$question, c("q1", "q2", "q3"))
  expect_equal(out$m1, c("kept", "new", "three"))  # NA never replaces an answer
  expect_equal(out$other, c("o1", "o2", NA))       # another model's answers kept
  expect_equal(out$m2, c("x", NA, ""))             # a real empty answer is one
  expect_match(paste(readLines(paths$answers), collapse = "\n"), "NaN")
  # an answer given again under the model's name replaces the one there (by model name)
  export_answers(paths, tibble::tibble(question = "q1", m1 = "changed"))
  out <- arena_read_answers(paths$answers)
  expect_equal(out$m1, c("changed", "new", "three"))
  expect_equal(out$other, c("o1", "o2", NA))
  expect_length(list.files(dirname(paths$answers), pattern = "^q_and_as.*tmp"), 0L)
})

test_that("export_verdicts() merges by request key: a failure is replaced, a verdict kept, none twice", {
  dir <- withr::local_tempdir()
  paths <- elobench_layout(dir, "toy", "exp")
  battles <- sample_battles(2)[1:6, ]
  key <- paste0(strrep("0", 63), 1:6)
  dir.create(dirname(paths$verdicts), recursive = TRUE)
  # EloBench's own record (no key), a failed package record (key 1), a verdict (key 2)
  foreign <- store_records(battles[1, ], "tie", "{'response': '{\"winner\": 0}'}")
  stored <- rbind(
    foreign,
    store_records(battles[2, ], NA, package_response("", key[[1]])),
    store_records(battles[3, ], "model_a", package_response('{"winner": 1}', key[[2]]))
  )
  write_battle_cache(stored, paths$verdicts)
  new <- rbind(
    store_records(battles[2, ], "model_b", package_response('{"winner": 2}', key[[1]])),
    store_records(battles[3, ], NA, package_response("", key[[2]])),
    store_records(battles[3, ], "model_b", package_response('{"winner": 2}', key[[2]])),
    store_records(battles[4, ], "model_a", package_response('{"winner": 1}', key[[3]])),
    store_records(battles[4, ], "model_a", package_response('{"winner": 1}', key[[3]])),
    store_records(battles[5, ], NA, package_response("", key[[4]])),
    # a record naming no request is never taken for another
    store_records(battles[1, ], "model_b", "{'response': '{\"winner\": 2}'}")
  )
  export_verdicts(paths, new)
  out <- read_battle_cache(paths$verdicts)
  keys <- record_fields(out$gpt_4_response)$request_sha256
  expect_named(out, predictivebench:::battle_record_columns)
  expect_equal(sum(is.na(keys)), 2)  # EloBench's own record kept, the new keyless one added
  expect_equal(out$winner[is.na(keys)], c("tie", "model_b"))
  expect_false(anyDuplicated(keys[!is.na(keys)]) > 0)
  winner_of <- function(k) out$winner[keys %in% k]
  expect_equal(winner_of(key[[1]]), "model_b")   # the failure replaced by the verdict
  expect_equal(winner_of(key[[2]]), "model_a")   # the verdict there kept
  expect_equal(winner_of(key[[3]]), "model_a")   # recorded once
  expect_true(is.na(winner_of(key[[4]])))        # a new failure recorded
  expect_equal(nrow(out), 6)
  # the failure judged later: replaced, not added
  export_verdicts(paths, store_records(battles[5, ], "tie",
                                       package_response('{"winner": 0}', key[[4]])))
  out <- read_battle_cache(paths$verdicts)
  keys <- record_fields(out$gpt_4_response)$request_sha256
  expect_equal(nrow(out), 6)
  expect_equal(out$winner[keys %in% key[[4]]], "tie")
  # nothing new: no change
  export_verdicts(paths, empty_records())
  expect_equal(nrow(read_battle_cache(paths$verdicts)), 6)
})

test_that("import_elobench_verdicts() files EloBench's own and matching package verdicts only", {
  server <- local_fake_openai(function(body, n) '{"winner": 2, "explanation": "second"}')
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, rpm = Inf)
  judge <- configured_judge(fake_chat(server, model = "gpt-4"), "231225")
  other <- configured_judge(fake_chat(server, model = "gpt-4",
                                      params = ellmer::params(top_p = 0.5)), "231225")
  battles <- sample_battles(3)  # 9 battles
  prompts <- battles$input
  mine <- verdict_keys(judge, prompts, "231225")
  theirs <- verdict_keys(other, prompts, "231225")
  json_verdict <- "{'is_valid': True, 'response': '{\"winner\": 1}', 'usage': None}"
  scores <- "Score of Model 1: 8\nScore of Model 2: 3"
  records <- rbind(
    store_records(battles[1, ], "model_a", json_verdict),                      # EloBench's: in
    store_records(battles[2, ], "model_a", json_verdict, judger = "gpt-3.5"),  # other judge
    store_records(battles[3, ], "model_a", scores),                            # other version
    store_records(battles[4, ], NA, "{'is_valid': False, 'response': ''}"),    # failed
    store_records(battles[5, ], "model_a", package_response('{"winner": 1}', mine[[5]])),  # in
    store_records(battles[6, ], "model_a", package_response('{"winner": 1}', theirs[[6]])),
    store_records(battles[7, ], "model_a", package_response('{"winner": 1}')),  # no key
    store_records(battles[8, ], "model_a",
                  package_response('{"winner": 1}', mine[[8]], version = "231113"))
  )
  path <- file.path(withr::local_tempdir(), "battle_records.csv")
  write_battle_cache(records, path)
  expect_equal(import_elobench_verdicts(path, judge, "231225", settings), 2L)
  filed <- !vapply(cache_get_many(cache, mine), is.null, TRUE)
  expect_equal(which(filed), c(1L, 5L))
  entry <- cache_get(cache, mine[[1]])
  expect_equal(entry$imported, path)
  # the judge reads them as its own: only the others are sent
  judged <- judge_battles(battles, fake_chat(server, model = "gpt-4"), settings = settings)
  expect_equal(server$count(), nrow(battles) - 2)
  expect_equal(which(judged$cached), c(1L, 5L))
  expect_equal(judged$winner[c(1, 5)], c("model_a", "model_a"))  # the imported verdicts
  expect_true(all(judged$winner[-c(1, 5)] == "model_b"))         # the server's
  # importing again files nothing: the cache has them all
  expect_equal(import_elobench_verdicts(path, judge, "231225", settings), 0L)
  # the other prompt version takes EloBench's scores of its own format, nothing else
  judge_231113 <- configured_judge(fake_chat(server, model = "gpt-4"), "231113")
  expect_equal(import_elobench_verdicts(path, judge_231113, "231113", settings), 1L)
  key_231113 <- verdict_keys(judge_231113, battle_prompts(battles[3, ], "231113"), "231113")
  expect_false(is.null(cache_get(cache, key_231113)))
  # no file, no import
  expect_equal(import_elobench_verdicts(NULL, judge, "231225", settings), 0L)
  expect_equal(import_elobench_verdicts(file.path(cache, "none.csv"), judge, "231225",
                                        settings), 0L)
})

test_that("import_elobench_verdicts() files nothing without a cache, for a baseline, or in a dry run", {
  server <- local_fake_openai(function(body, n) '{"winner": 2}')
  battles <- sample_battles(1)[1, ]
  path <- file.path(withr::local_tempdir(), "battle_records.csv")
  write_battle_cache(store_records(battles, "model_a", "{'response': '{\"winner\": 1}'}",
                                   judger = "gpt-4"), path)
  cache <- withr::local_tempdir()
  entries <- function() list.files(cache, recursive = TRUE, pattern = "[.]rds$")
  judge <- configured_judge(fake_chat(server, model = "gpt-4"), "231225")
  # cache = FALSE: no cache anywhere, nothing imported
  withr::local_options(predictivebench.cache_dir = cache)
  expect_equal(import_elobench_verdicts(path, judge, "231225", request_settings(cache = FALSE)),
               0L)
  expect_length(entries(), 0)
  # a baseline judge is never cached: its verdicts are not imported either
  baseline <- configured_judge(baseline_chat('{"winner": 2}', name = "gpt-4"), "231225")
  expect_equal(import_elobench_verdicts(path, baseline, "231225",
                                        request_settings(cache = cache)), 0L)
  expect_length(entries(), 0)
  # estimate_cost()'s dry run reads the cache, never writes it
  expect_equal(with_request_session(new_request_session(price = new_dry_run()),
    import_elobench_verdicts(path, judge, "231225", request_settings(cache = cache))), 0L)
  expect_length(entries(), 0)
  # the same call outside the dry run files it (the default cache: the option's folder)
  expect_equal(import_elobench_verdicts(path, judge, "231225", request_settings()), 1L)
  expect_length(entries(), 1)
  expect_equal(server$count(), 0)
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
  others <- files[basename(files) != "arena-elobench.R"]
  expect_equal(elobench_file_mentions(others), character())
  # arena-elobench.R does name them (the check would see it)
  expect_gt(length(elobench_file_mentions(file.path(root, "R", "arena-elobench.R"))), 0)
  # the check sees a name in code, and not in a comment
  fake <- withr::local_tempfile(fileext = ".R")
  writeLines(c("# q_and_as.csv in a comment", "f <- function(d) file.path(d, \"q_and_as.csv\")",
               "g <- function() merge_battle_records"), fake)
  expect_equal(elobench_file_mentions(fake), paste0(basename(fake), c(":2", ":3")))
})

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
