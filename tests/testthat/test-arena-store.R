# EloBench's folder as an import and export of the one store (R/arena-store.R): where its files
# are, how the run's answers and verdicts are merged into them, and which of its verdicts are
# filed in the response cache.

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
  dry <- settings_with_dots(request_settings(cache = cache), dry_run = new_dry_run())
  expect_equal(import_elobench_verdicts(path, judge, "231225", dry), 0L)
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
  others <- files[basename(files) != "arena-store.R"]
  expect_equal(elobench_file_mentions(others), character())
  # arena-store.R does name them (the check would see it)
  expect_gt(length(elobench_file_mentions(file.path(root, "R", "arena-store.R"))), 0)
  # the check sees a name in code, and not in a comment
  fake <- withr::local_tempfile(fileext = ".R")
  writeLines(c("# q_and_as.csv in a comment", "f <- function(d) file.path(d, \"q_and_as.csv\")",
               "g <- function() merge_battle_records"), fake)
  expect_equal(elobench_file_mentions(fake), paste0(basename(fake), c(":2", ":3")))
})
