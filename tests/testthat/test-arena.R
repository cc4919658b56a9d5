reference_file <- function(name) {
  candidates <- c(
    file.path(testthat::test_path(), "..", "..", "..", "shared", "reference", "elobench", name),
    file.path("/work/shared/reference/elobench", name)
  )
  for (path in candidates) if (file.exists(path)) return(normalizePath(path))
  NULL
}

sample_battles <- function(n_questions = 3, models = c("m1", "m2", "m3")) {
  questions <- paste("Question", seq_len(n_questions))
  answers <- tibble::tibble(question = questions)
  for (i in seq_along(models)) {
    answers[[models[[i]]]] <- paste(strrep("word ", i), "answer to", questions)
  }
  arrangement <- arena_arrange(questions, models, n = n_questions, seed = 1)
  arena_battles(arrangement, answers)
}

counting_judge <- function(counter, rule = "longer", name = "counting-judge", sleep = 0) {
  inner <- arena_baseline_judge(rule)
  baseline_chat(function(prompt) {
    counter$n <- counter$n + 1
    if (sleep > 0) Sys.sleep(sleep)
    inner$responder(prompt)
  }, name = name)
}

test_that("the judge prompt is EloBench's, filled and split as the original does", {
  p <- arena_judge_prompt("What is 2+2?", "4", "five")
  expect_equal(p$system,
               "You are a helpful assistant who can evaluate Large Language Model (LLM) responses.")
  expect_true(startsWith(p$user, "Task: \n\nEvaluate Large Language Model (LLM) Responses \n\n"))
  expect_true(endsWith(p$user, "Response of LLM-2: \n\n``` \n\nfive \n\n```"))
  expect_match(p$user, "User-submitted Question: \n\n``` \n\nWhat is 2+2? \n\n```", fixed = TRUE)
  expect_match(p$user, "`winner`: Use an integer (1 if LLM-1", fixed = TRUE)
  # Placeholders are replaced in order, as str.replace does: text in the question that looks
  # like a later placeholder is replaced too.
  odd <- arena_judge_prompt("Say {llm_response_1}", "A", "B")
  expect_match(odd$user, "Say A", fixed = TRUE)
  old <- arena_judge_prompt("Q", "x", "y", version = "231113")
  expect_equal(old$system, "You are a helpful assistant.")
  expect_true(startsWith(old$user, "Given two responses from different models"))
  expect_true(endsWith(old$user, "GPT-4's Evaluation and Scoring:"))
  expect_match(old$user, "Model 1's Answer:\nx\n\nModel 2's Answer:\ny\n\n", fixed = TRUE)
  expect_length(arena_judge_prompt(c("a", "b"), "x", "y")$user, 2)
})

test_that("verdicts map to the original winners", {
  v <- arena_parse_verdict(c(
    '{"winner": 1, "explanation": "x"}', '{"winner": 2}', '{"winner": 0}', '{"winner": -1}',
    '{"winner": 3}', '{"winner": "first"}', '{"winner": "2"}',
    '```json\n{"winner": 2, "explanation": "y"}\n```',
    "- Score of Model 1: 1\n- Score of Model 2: 0", "Score for Model 1: 0\nScore for Model 2: 1",
    "- Score of Model 1: 0.5\n- Score of Model 2: 0.5", "- Score of Model 1: 0\n- Score of Model 2: 0",
    "- Score of Model 1: 1\n- Score of Model 2: 1", "I cannot decide.", NA
  ))
  expect_equal(v$winner, c("model_a", "model_b", "tie", "tie(all bad)", "invalid", "invalid",
                           "invalid", "model_b", "model_a", "model_b", "tie", "tie(all bad)",
                           "invalid", "invalid", NA))
  expect_equal(v$gpt_4_score[[9]], "{'model_a': '1', 'model_b': '0'}")
  expect_equal(v$format[c(1, 7, 9, 14)], c("json", "json", "score", NA))
  # A JSON number written with a decimal point is still the number (as in Python).
  expect_equal(arena_parse_verdict('{"winner": 2.0}')$winner, "model_b")
})

test_that("judge responses are read from JSON and from the original's Python dicts", {
  expect_equal(arena_response_text('{"is_valid": true, "response": "hi\\nthere"}'), "hi\nthere")
  py <- "{'is_valid': True, 'response': 'It\\'s \"fine\"\\n- Score', 'usage': None}"
  expect_equal(arena_response_text(py), "It's \"fine\"\n- Score")
  py2 <- "{'is_valid': True, 'response': \"Model 1's answer\\u00e9\", 'usage': None}"
  expect_equal(arena_response_text(py2), "Model 1's answer\u00e9")
  expect_true(is.na(arena_response_text(NA_character_)))
  expect_equal(arena_response_text("plain text"), "plain text")
})

test_that("the original's files load", {
  dummy <- reference_file("dummy_battle_records.csv")
  if (is.null(dummy)) skip("The reference folder shared/reference/elobench is absent.")
  records <- arena_read_battles(dummy)
  expect_equal(nrow(records), 18)
  expect_named(records, predictivebench:::battle_record_columns)
  expect_true(all(records$winner == "tie(all bad)"))
  expect_true(all(records$is_valid))
  # Re-parsing the stored responses (multi-line, with doubled quotes) gives the same winners.
  texts <- vapply(records$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  expect_equal(arena_parse_verdict(texts)$winner, records$winner)
  answers <- arena_read_answers(reference_file("quora_100_q_and_as.csv"))
  expect_equal(dim(answers), c(99, 18))
  expect_equal(names(answers)[[1]], "question")
  expect_equal(sum(answers[-1] == "", na.rm = TRUE), 25)
  pairs <- arena_read_battles(reference_file("quora_100_battled_pairs.csv"))
  expect_equal(sum(is.na(pairs$winner)), 71)
  published <- arena_read_ratings(reference_file("quora_100_elo_rating.csv"))
  expect_equal(nrow(published), 17)
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
  expect_error(arena_arrange("q1", c("m1", "m2"), strategy = "reload", path = arr),
               class = "predictivebench_error_model")
  expect_error(arena_arrange("q2", c("m1", "m2", "ghost"), strategy = "reload", path = arr),
               class = "predictivebench_error_question")
  answers <- tibble::tibble(question = "q1", m1 = "a", m2 = "b")
  expect_error(arena_battles(tibble::tibble(question = "q1", model_a = "m1", model_b = "m9"),
                             answers),
               class = "predictivebench_error_model")
})

test_that("arrangements: N distinct answerable questions per pair, seeded, A/B shuffled", {
  questions <- paste0("q", 1:10)
  models <- c("a", "b", "c", "d")
  arr <- arena_arrange(questions, models, n = 3, seed = 5)
  expect_equal(nrow(arr), 6 * 3)
  key <- paste(pmin(arr$model_a, arr$model_b), pmax(arr$model_a, arr$model_b))
  expect_true(all(table(key) == 3))
  expect_false(anyDuplicated(paste(key, arr$question)) > 0)
  expect_equal(arr, arena_arrange(questions, models, n = 3, seed = 5))
  expect_false(isTRUE(all.equal(arr, arena_arrange(questions, models, n = 3, seed = 6))))
  big <- arena_arrange(questions, models, n = 10, seed = 1)
  expect_true(any(big$model_a == "d") && any(big$model_b == "a"))
  expect_true(all(!arena_arrange(questions, models, n = 2, shuffle = FALSE)$model_a %in% "d"))
  # Only questions both models can answer; never a question the pair already met on.
  available <- matrix(TRUE, 10, 4, dimnames = list(NULL, models))
  available[1:8, "d"] <- FALSE
  arr2 <- arena_arrange(questions, models, n = 5, available = available, seed = 1)
  with_d <- arr2[arr2$model_a == "d" | arr2$model_b == "d", ]
  expect_true(all(with_d$question %in% c("q9", "q10")))
  expect_equal(nrow(with_d), 3 * 2)
  more <- arena_arrange(questions, models, n = 10, existing = arr, seed = 1)
  old <- paste(pmin(arr$model_a, arr$model_b), pmax(arr$model_a, arr$model_b), arr$question)
  new <- paste(pmin(more$model_a, more$model_b), pmax(more$model_a, more$model_b),
               more$question)
  expect_length(intersect(old, new), 0)
  expect_equal(nrow(more), 6 * 7)
  all <- arena_arrange(questions[1:3], models, strategy = "all")
  expect_equal(nrow(all), 3 * 6)
  path <- withr::local_tempfile(fileext = ".csv")
  predictivebench:::write_arena_csv(arr, path)
  expect_equal(arena_arrange(questions, models, strategy = "reload", path = path), arr)
})

test_that("answers: only missing ones are generated, and failures stay 'not generated'", {
  dir <- withr::local_tempdir()
  counter <- new.env()
  counter$n <- 0
  flaky <- baseline_chat(function(q) {
    counter$n <- counter$n + 1
    if (grepl("fail", q)) stop("boom")
    paste("A:", q)
  }, name = "flaky")
  models <- list(flaky = flaky, cached_only = NULL)
  questions <- c("one", "two", "please fail")
  answers <- arena_answers(questions, models, dir, cache = FALSE, chunk_size = 1)
  expect_equal(answers$flaky, c("A: one", "A: two", NA))
  expect_true(all(is.na(answers$cached_only)))
  expect_equal(counter$n, 3)
  on_disk <- arena_read_answers(file.path(dir, "q_and_as.csv"))
  expect_equal(on_disk$flaky, answers$flaky)
  expect_match(paste(readLines(file.path(dir, "q_and_as.csv")), collapse = "\n"), "NaN")
  counter$n <- 0
  again <- arena_answers(c(questions, "three"), models, dir, cache = FALSE)
  expect_equal(counter$n, 2) # the failed one and the new one
  expect_equal(again$flaky[[4]], "A: three")
})

test_that("judging through a real chat: temperature 0, the prompt, and the verdicts", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("Question 1", text, fixed = TRUE)) return('{"winner": 1, "explanation": "a"}')
    if (grepl("Question 2", text, fixed = TRUE)) return('{"winner": -1, "explanation": "b"}')
    list(status = 400)
  })
  judge <- fake_chat(server, model = "judge-model")
  battles <- sample_battles(3)
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  tsk <- arena_task(battles, records = records, cache = FALSE, dir = withr::local_tempdir())
  expect_warning(tsk$eval(solver_chat = judge, view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  winner <- vapply(samples$solver_metadata, `[[`, "", "winner")
  q <- samples$question
  expect_true(all(winner[q == "Question 1"] == "model_a"))
  expect_true(all(winner[q == "Question 2"] == "tie(all bad)"))
  expect_true(all(is.na(winner[q == "Question 3"])))
  expect_equal(samples$score[q == "Question 1"], rep(1, sum(q == "Question 1")))
  body <- server$requests()[[1]]
  expect_equal(body$temperature, 0)
  expect_equal(body$messages[[1]]$role, "system")
  expect_match(body$messages[[1]]$content, "evaluate Large Language Model", fixed = TRUE)
  expect_equal(body$model, "judge-model")
  expect_true(identical(body$max_tokens, 800L) || identical(body$max_completion_tokens, 800L))
  saved <- arena_read_battles(records)
  expect_named(saved, predictivebench:::battle_record_columns)
  expect_equal(sum(is.na(saved$winner)), sum(q == "Question 3"))
  expect_true(all(saved$judger == "judge-model"))
  expect_equal(nrow(saved), nrow(battles))
  # A second run asks only for the failed verdicts.
  before <- server$count()
  tsk2 <- arena_task(battles, records = records, cache = FALSE, dir = withr::local_tempdir())
  suppressWarnings(tsk2$eval(solver_chat = judge, view = FALSE))
  expect_equal(server$count() - before, sum(q == "Question 3"))
  expect_equal(nrow(arena_read_battles(records)), nrow(battles))
  ratings <- arena_summary(tsk2, bootstrap = 0)
  expect_s3_class(ratings, "arena_ratings")
})

test_that("the battle cache is keyed by the judge, and position swap judges both orders", {
  battles <- sample_battles(2)
  dir <- withr::local_tempdir()
  records <- file.path(dir, "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  run <- function(judge, swap = FALSE) {
    tsk <- arena_task(battles, records = records, cache = FALSE, position_swap = swap,
                      dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    tsk$eval(solver_chat = judge, view = FALSE)
    tsk$get_samples()
  }
  run(counting_judge(counter, name = "judge-one"))
  expect_equal(counter$n, nrow(battles))
  run(counting_judge(counter, name = "judge-one"))
  expect_equal(counter$n, nrow(battles)) # all from the battle cache
  run(counting_judge(counter, name = "judge-two"))
  expect_equal(counter$n, 2 * nrow(battles)) # another judge never reuses verdicts
  # Nor does another prompt version, in the same file.
  tsk <- arena_task(battles, records = records, cache = FALSE, version = "231113",
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "judge-one"), view = FALSE)
  expect_equal(counter$n, 3 * nrow(battles))
  saved <- arena_read_battles(records)
  expect_equal(nrow(saved), 3 * nrow(battles))
  expect_equal(table(predictivebench:::record_version(saved$gpt_4_response))[["231113"]],
               nrow(battles))
  tsk <- arena_task(battles, records = records, cache = FALSE, version = "231113",
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "judge-one"), view = FALSE)
  expect_equal(counter$n, 3 * nrow(battles))
  counter$n <- 0
  records_first <- file.path(dir, "first.csv")
  tsk <- arena_task(battles, records = records_first, cache = FALSE, position_swap = TRUE,
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, rule = "first", name = "biased"), view = FALSE)
  expect_equal(counter$n, 2 * nrow(battles))
  meta <- tsk$get_samples()$solver_metadata
  expect_true(all(vapply(meta, `[[`, "", "winner_ab") == "model_a"))
  expect_true(all(vapply(meta, `[[`, "", "winner_ba") == "model_b"))
  expect_true(all(vapply(meta, `[[`, "", "winner") == "tie"))
  expect_equal(nrow(arena_read_battles(records_first)), 2 * nrow(battles))
  # A consistent judge keeps its verdicts under the swap.
  counter$n <- 0
  tsk <- arena_task(battles, records = file.path(dir, "longer.csv"), cache = FALSE,
                    position_swap = TRUE, dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, rule = "longer"), view = FALSE)
  winners <- vapply(tsk$get_samples()$solver_metadata, `[[`, "", "winner")
  expect_true(all(winners %in% c("model_a", "model_b")))
})

test_that("a run killed while judging re-judges nothing already recorded", {
  skip_if_not_installed("callr")
  skip_on_cran()
  root <- normalizePath(file.path(testthat::test_path(), "..", ".."))
  dir <- withr::local_tempdir()
  records <- file.path(dir, "battle_records.csv")
  battles <- sample_battles(4) # 12 battles
  battles_rds <- file.path(dir, "battles.rds")
  saveRDS(battles, battles_rds)
  child <- callr::r_bg(function(root, battles_rds, records) {
    if (file.exists(file.path(root, "DESCRIPTION")) && dir.exists(file.path(root, "R"))) {
      pkgload::load_all(root, quiet = TRUE)
    } else {
      library(predictivebench)
    }
    inner <- arena_baseline_judge("longer")
    slow <- baseline_chat(function(p) {
      Sys.sleep(0.3)
      inner$responder(p)
    }, name = "slow-judge")
    tsk <- arena_task(readRDS(battles_rds), records = records, cache = FALSE, chunk_size = 2,
                      dir = tempfile())
    tsk$eval(solver_chat = slow, view = FALSE)
  }, args = list(root = root, battles_rds = battles_rds, records = records))
  on.exit(if (child$is_alive()) child$kill(), add = TRUE)
  deadline <- Sys.time() + 60
  recorded <- 0
  while (Sys.time() < deadline && child$is_alive()) {
    if (file.exists(records)) {
      recorded <- nrow(arena_read_battles(records))
      if (recorded >= 4) break
    }
    Sys.sleep(0.05)
  }
  expect_true(child$is_alive(), info = paste(child$read_all_error(), collapse = "\n"))
  child$kill()
  # The file is whole after the kill (atomic writes): it reads, and has whole chunks.
  saved <- arena_read_battles(records)
  expect_gte(nrow(saved), 4)
  expect_lt(nrow(saved), nrow(battles))
  expect_equal(nrow(saved) %% 2, 0)
  expect_length(list.files(dir, pattern = "^\\.battle_records"), 0L)
  counter <- new.env()
  counter$n <- 0
  tsk <- arena_task(battles, records = records, cache = FALSE, dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "slow-judge"), view = FALSE)
  expect_equal(counter$n, nrow(battles) - nrow(saved))
  final <- arena_read_battles(records)
  expect_equal(nrow(final), nrow(battles))
  expect_equal(final[seq_len(nrow(saved)), ], saved)
})

test_that("arena_run writes EloBench's files inside dir and resumes from its caches", {
  dir <- withr::local_tempdir()
  dir.create(file.path(dir, "data", "toy"), recursive = TRUE)
  utils::write.csv(data.frame(question = c(paste("Question", 1:6), "Question 1")),
                   file.path(dir, "data", "toy", "questions.csv"), row.names = FALSE)
  counter <- new.env()
  counter$n <- 0
  answers <- new.env()
  answers$n <- 0
  chat <- function(name, words) {
    baseline_chat(function(q) {
      answers$n <- answers$n + 1
      paste(rep(name, words), collapse = " ")
    }, name = name)
  }
  models <- list(big = chat("big", 5), mid = chat("mid", 3), small = chat("small", 1))
  judge <- counting_judge(counter, name = "toy-judge")
  run <- arena_run(dir, "toy", "exp1", models, judge, n = 2, bootstrap = 50)
  results <- file.path(dir, "results", "exp1")
  expect_setequal(list.files(results),
                  c("questions.csv", "models.csv", "battle_arrangement.csv",
                    "battle_records.csv", "battle_outcomes.csv", "elo_rating.csv", "logs"))
  expect_equal(read.csv(file.path(results, "questions.csv"))$question, paste("Question", 1:6))
  expect_named(arena_read_battles(file.path(results, "battle_outcomes.csv")),
               c("model_a", "model_b", "winner"))
  expect_named(arena_read_battles(file.path(results, "battle_records.csv")),
               predictivebench:::battle_record_columns)
  ratings <- read.csv(file.path(results, "elo_rating.csv"), check.names = FALSE)
  expect_equal(names(ratings)[-1], c("model", "elo_rating", "rank"))
  expect_equal(ratings$model, c("big", "mid", "small"))
  expect_equal(arena_read_ratings(file.path(results, "elo_rating.csv"))$rank,
               run$ratings$rank)
  expect_equal(run$ratings$model[[1]], "big")
  expect_equal(nrow(run$records), 6)
  cache <- file.path(dir, "tempcache", "toy", "toy-judge_231225")
  expect_true(file.exists(file.path(cache, "q_and_as.csv")))
  expect_true(file.exists(file.path(cache, "battle_records.csv")))
  expect_equal(counter$n, 6)
  # Another experiment on the same battles judges nothing and answers nothing again.
  answered <- answers$n
  file.copy(file.path(results, "battle_arrangement.csv"), file.path(dir, "arr.csv"))
  run2 <- arena_run(dir, "toy", "exp2", models, judge, strategy = "reload",
                    arrangement = file.path(dir, "arr.csv"), bootstrap = 0)
  expect_equal(counter$n, 6)
  expect_equal(answers$n, answered)
  expect_equal(run2$records$winner, run$records$winner)
  # Ties send the pair to another round with a new question.
  tie_judge <- baseline_chat(function(p) '{"winner": 0}', name = "tie-judge")
  # max_rounds stops it with every pair short of a decisive battle, and it says so.
  expect_warning(
    run3 <- arena_run(dir, "toy", "exp3", models, tie_judge, n = 1, max_rounds = 3,
                      bootstrap = 0),
    class = "predictivebench_warning_short_pairs"
  )
  expect_equal(run3$rounds, 3)
  expect_equal(nrow(run3$records), 9)
  expect_true(all(run3$records$winner == "tie"))
  expect_error(arena_run(dir, "../toy", "x", models, judge),
               class = "predictivebench_error_path")
  expect_error(arena_run(dir, "toy", "a/b", models, judge),
               class = "predictivebench_error_path")
  expect_error(arena_run(dir, "toy", "x", list(only = models$big), judge),
               class = "predictivebench_error_argument")
  outside <- list.files(dirname(dir), pattern = "^(results|tempcache|data)$")
  expect_length(outside, 0)
})

test_that("the bundled sample and the question table", {
  ds <- arena_dataset()
  expect_equal(nrow(ds), 8)
  expect_equal(sum(ds$occurrences), 10)
  expect_equal(validate_task_table(ds, "arena")$input, ds$input)
  battles <- predictivebench:::arena_sample_battles()
  expect_equal(nrow(battles), 12)
  judge <- arena_baseline_judge("longer")
  tsk <- arena_task(cache = FALSE, dir = withr::local_tempdir())
  tsk$eval(solver_chat = judge, view = FALSE)
  ratings <- arena_summary(tsk, bootstrap = 20)
  expect_equal(ratings$model[[1]], "wordy-model")
  old <- arena_read_battles(file.path(predictivebench:::arena_sample_dir(), "tempcache",
                                      "sample", "battle_records.csv"))
  expect_true(all(predictivebench:::record_version(old$gpt_4_response) == "231113"))
  texts <- vapply(old$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  expect_equal(arena_parse_verdict(texts)$winner, old$winner)
})

test_that("prepare_arena() runs the Python flattener", {
  skip_if_not(predictivebench:::python_available(), "Python with pandas is not available.")
  src <- file.path(predictivebench:::arena_sample_dir(), "data", "sample", "questions.csv")
  out <- withr::local_tempfile(fileext = ".parquet")
  prepare_arena(src, out)
  table <- arena_dataset(out)
  expect_equal(table, arena_dataset(src))
  # R's own reader of questions.csv agrees with the flattener, blank lines and all.
  odd <- withr::local_tempfile(fileext = ".csv")
  writeLines(c(',question', '0,"b, with comma"', '', '1,a', '2,"b, with comma"',
               '3,"multi', 'line"', '4,""'), odd)
  expect_equal(prepare_arena(odd), arena_dataset(odd))
  expect_equal(arena_dataset(odd)$occurrences, c(2L, 1L, 1L, 1L))
})

test_that("arena_run starts from the original's per-dataset answer cache", {
  dir <- withr::local_tempdir()
  dir.create(file.path(dir, "data", "old"), recursive = TRUE)
  dir.create(file.path(dir, "tempcache", "old"), recursive = TRUE)
  utils::write.csv(data.frame(question = c("q1", "q2")),
                   file.path(dir, "data", "old", "questions.csv"), row.names = FALSE)
  old <- data.frame(question = c("q1", "q2"), `org/big-model` = c("long answer one", "long two"),
                    tiny = c("a", "b"), check.names = FALSE)
  utils::write.csv(old, file.path(dir, "tempcache", "old", "q_and_as.csv"))
  # Models given by name only: their answers must come from the cache.
  run <- arena_run(dir, "old", "exp", c("org/big-model", "tiny"), arena_baseline_judge(),
                   n = 2, bootstrap = 0)
  expect_equal(nrow(run$records), 2)
  expect_true(all(run$records$winner[run$records$model_a == "tiny"] == "model_b"))
  expect_equal(run$ratings$model[[1]], "org/big-model")
})

test_that("a real empty answer is kept, and one model is enough to generate answers", {
  dir <- withr::local_tempdir()
  writeLines(c('"","question","solo"', '"0","q1",""', '"1","q2","NaN"'),
             file.path(dir, "q_and_as.csv"))
  counter <- new.env()
  counter$n <- 0
  solo <- baseline_chat(function(q) {
    counter$n <- counter$n + 1
    paste("A:", q)
  }, name = "solo")
  answers <- arena_answers(c("q1", "q2"), list(solo = solo), dir, cache = FALSE)
  expect_equal(counter$n, 1) # only the NaN one
  expect_equal(answers$solo, c("", "A: q2"))
  expect_equal(arena_read_answers(file.path(dir, "q_and_as.csv"))$solo, c("", "A: q2"))
  arena_answers(c("q1", "q2"), list(solo = solo), dir, cache = FALSE)
  expect_equal(counter$n, 1)
  # Battles still need two models.
  expect_error(arena_arrange("q1", "solo"), class = "predictivebench_error_argument")
})

test_that("two battles with the same prompt keep their own models and records over epochs", {
  # m2 and m3 answer alike, so m1-vs-m2 and m1-vs-m3 send the judge the same prompt.
  answers <- tibble::tibble(question = "Same question?", m1 = "short", m2 = "a longer answer",
                            m3 = "a longer answer")
  arrangement <- tibble::tibble(question = "Same question?", model_a = "m1",
                                model_b = c("m2", "m3"))
  battles <- arena_battles(arrangement, answers)
  expect_identical(battles$input[[1]], battles$input[[2]])
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  tsk <- arena_task(battles, records = records, cache = FALSE, dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "epoch-judge"), epochs = 2,
           view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), 4)
  meta <- samples$solver_metadata
  expect_equal(vapply(meta, `[[`, "", "model_b"), samples$model_b)
  expect_equal(sort(vapply(meta, `[[`, "", "model_b")), c("m2", "m2", "m3", "m3"))
  expect_true(all(vapply(meta, `[[`, "", "winner") == "model_b"))
  saved <- arena_read_battles(records)
  expect_equal(nrow(saved), 2)
  expect_setequal(saved$model_b, c("m2", "m3"))
  expect_equal(counter$n, 2) # one request per battle, none per epoch
  # Each epoch of a battle reuses its one record; a second eval asks for nothing.
  before <- counter$n
  tsk$eval(solver_chat = counting_judge(counter, name = "epoch-judge"), epochs = 2,
           view = FALSE)
  expect_equal(counter$n, before)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  # Inputs by position: either epoch layout; text matching refuses a shared prompt.
  rows <- predictivebench:::battle_rows
  expect_equal(rows(battles$input[c(1, 1, 2, 2)], battles), c(1L, 1L, 2L, 2L))
  three <- rbind(battles, battles[1, ])
  three$input[[3]] <- "other"
  expect_equal(rows(three$input[c(1, 2, 3, 1, 2, 3)], three), c(1:3, 1:3))
  expect_equal(rows("other", three), 3L)
  expect_error(rows(battles$input[1], battles), class = "predictivebench_error_argument")
  expect_error(rows("unknown", battles), class = "predictivebench_error_argument")
})

named_constant <- function(answer, name) baseline_chat(function(q) answer, name = name)

arena_folder <- function(questions, dataset = "toy") {
  dir <- withr::local_tempdir(.local_envir = parent.frame())
  dir.create(file.path(dir, "data", dataset), recursive = TRUE)
  utils::write.csv(data.frame(question = questions),
                   file.path(dir, "data", dataset, "questions.csv"), row.names = FALSE)
  dir
}

test_that("name-only models without cached answers are an error, not an empty run", {
  dir <- arena_folder(c("q1", "q2"))
  err <- tryCatch(arena_run(dir, "toy", "exp", c("ghost1", "ghost2"), arena_baseline_judge()),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_answers")
  expect_match(conditionMessage(err), "ghost1")
  expect_match(conditionMessage(err), "ghost2")
  # A chat and a name-only model with answers only to other questions: the same.
  dir.create(file.path(dir, "tempcache", "toy"), recursive = TRUE)
  utils::write.csv(data.frame(question = "not registered", ghost1 = "x"),
                   file.path(dir, "tempcache", "toy", "q_and_as.csv"))
  models <- list(real = baseline_constant("hello"), ghost1 = NULL)
  err <- tryCatch(arena_run(dir, "toy", "exp", models, arena_baseline_judge()),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_answers")
  expect_match(conditionMessage(err), "ghost1")
  expect_false(grepl("real", conditionMessage(err)))
  expect_false(file.exists(file.path(dir, "results", "exp", "battle_arrangement.csv")))
})

test_that("pairs left short are named: no question left, or no battle in a round", {
  dir <- arena_folder(c("q1", "q2", "q3"))
  dir.create(file.path(dir, "tempcache", "toy"), recursive = TRUE)
  # `few` has a cached answer to q1 only, so its pairs can meet once.
  utils::write.csv(data.frame(question = c("q1", "q2", "q3"), few = c("f", NA, NA)),
                   file.path(dir, "tempcache", "toy", "q_and_as.csv"), na = "NaN")
  # Distinct chat names: baseline chats with one name share response-cache entries.
  models <- list(big = named_constant("a long answer", "big"),
                 mid = named_constant("mid", "mid"), few = NULL)
  warnings <- list()
  run <- withCallingHandlers(
    arena_run(dir, "toy", "exp", models, arena_baseline_judge(), n = 2, bootstrap = 0),
    warning = function(w) {
      warnings[[length(warnings) + 1]] <<- w
      invokeRestart("muffleWarning")
    }
  )
  expect_length(warnings, 1)
  expect_s3_class(warnings[[1]], "predictivebench_warning_short_pairs")
  msg <- conditionMessage(warnings[[1]])
  expect_match(msg, "big vs few (1 of 2)", fixed = TRUE)
  expect_match(msg, "mid vs few (1 of 2)", fixed = TRUE)
  expect_false(grepl("big vs mid", msg, fixed = TRUE))
  expect_match(msg, "No question is left")
  expect_equal(nrow(run$records), 4)
  expect_true(file.exists(run$paths$ratings))
  # A model whose every answer fails: its pairs get no battle in the round, and say so.
  broken <- baseline_chat(function(q) stop("down"), name = "broken")
  dir2 <- arena_folder(c("q1", "q2"))
  classes <- character()
  run2 <- withCallingHandlers(
    arena_run(dir2, "toy", "exp", list(big = models$big, broken = broken, mid = models$mid),
              arena_baseline_judge(), n = 1, max_rounds = 1, bootstrap = 0),
    warning = function(w) {
      classes <<- c(classes, class(w)[[1]])
      if (inherits(w, "predictivebench_warning_no_battles")) {
        expect_match(conditionMessage(w), "Round 1: 2 pairs got no battle")
        expect_match(conditionMessage(w), "big vs broken")
        expect_match(conditionMessage(w), "broken vs mid")
      }
      if (inherits(w, "predictivebench_warning_short_pairs")) {
        expect_match(conditionMessage(w), "max_rounds")
      }
      invokeRestart("muffleWarning")
    },
    predictivebench_message_skipped = function(m) invokeRestart("muffleMessage")
  )
  expect_equal(classes, c("predictivebench_warning_no_battles",
                          "predictivebench_warning_short_pairs"))
  expect_equal(nrow(run2$records), 1)
})

test_that("arena_run with strategy 'all': every pair on every question, in one round", {
  dir <- arena_folder(c("q1", "q2", "q1", "q3"))
  models <- list(big = named_constant("a long answer", "big"),
                 mid = named_constant("mid", "mid"), small = named_constant("s", "small"))
  tie_judge <- baseline_chat(function(p) '{"winner": 0}', name = "tie-judge")
  run <- arena_run(dir, "toy", "all", models, tie_judge, strategy = "all", bootstrap = 0)
  expect_equal(run$rounds, 1)
  expect_equal(nrow(run$records), 3 * 3)
  key <- paste(pmin(run$records$model_a, run$records$model_b),
               pmax(run$records$model_a, run$records$model_b), run$records$question)
  expect_false(anyDuplicated(key) > 0)
  expect_setequal(unique(run$records$question), c("q1", "q2", "q3"))
  expect_true(all(run$records$winner == "tie"))
  arranged <- arena_read_arrangement(run$paths$arrangement)
  expect_equal(nrow(arranged), 9)
  expect_equal(arena_read_ratings(run$paths$ratings)$elo_rating, rep(1000, 3))
})
