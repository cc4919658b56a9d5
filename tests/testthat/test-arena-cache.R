test_that("judge responses are read from JSON and from the original's Python dicts", {
  expect_equal(arena_response_text('{"is_valid": true, "response": "hi\\nthere"}'), "hi\nthere")
  py <- "{'is_valid': True, 'response': 'It\\'s \"fine\"\\n- Score', 'usage': None}"
  expect_equal(arena_response_text(py), "It's \"fine\"\n- Score")
  py2 <- "{'is_valid': True, 'response': \"Model 1's answer\\u00e9\", 'usage': None}"
  expect_equal(arena_response_text(py2), "Model 1's answer\u00e9")
  expect_true(is.na(arena_response_text(NA_character_)))
  expect_equal(arena_response_text("plain text"), "plain text")
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
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = records, settings = request_settings(cache = FALSE)),
                    dir = withr::local_tempdir())
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
  tsk2 <- arena_judge_task(battles,
                     solver = arena_judge_solver(records = records, settings = request_settings(cache = FALSE)),
                     dir = withr::local_tempdir())
  suppressWarnings(tsk2$eval(solver_chat = judge, view = FALSE))
  expect_equal(server$count() - before, sum(q == "Question 3"))
  expect_equal(nrow(arena_read_battles(records)), nrow(battles))
  ratings <- arena_ratings(tsk2, bootstrap = 0)
  expect_s3_class(ratings, "arena_ratings")
})

test_that("the battle cache is keyed by the judge, and position swap judges both orders", {
  battles <- sample_battles(2)
  dir <- withr::local_tempdir()
  records <- file.path(dir, "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  run <- function(judge, swap = FALSE) {
    tsk <- arena_judge_task(battles,
                      solver = arena_judge_solver(records = records, position_swap = swap, settings = request_settings(cache = FALSE)),
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
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = records, version = "231113", settings = request_settings(cache = FALSE)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "judge-one"), view = FALSE)
  expect_equal(counter$n, 3 * nrow(battles))
  saved <- arena_read_battles(records)
  expect_equal(nrow(saved), 3 * nrow(battles))
  expect_equal(table(record_fields(saved$gpt_4_response)$prompt_version)[["231113"]],
               nrow(battles))
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = records, version = "231113", settings = request_settings(cache = FALSE)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "judge-one"), view = FALSE)
  expect_equal(counter$n, 3 * nrow(battles))
  counter$n <- 0
  records_first <- file.path(dir, "first.csv")
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = records_first, position_swap = TRUE, settings = request_settings(cache = FALSE)),
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
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = file.path(dir, "longer.csv"), position_swap = TRUE, settings = request_settings(cache = FALSE)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, rule = "longer"), view = FALSE)
  winners <- vapply(tsk$get_samples()$solver_metadata, `[[`, "", "winner")
  expect_true(all(winners %in% c("model_a", "model_b")))
})

test_that("a run killed while judging pays again only for the verdicts in flight", {
  skip_if_not_installed("callr")
  skip_on_cran()
  skip_on_os("windows")
  # Every battle is judged in one pool; the response cache keeps each verdict the moment it
  # arrives, so after a SIGKILL the rerun sends only what was not answered yet.
  server <- local_fake_openai(function(body, n) '{"winner": 1, "explanation": "first"}',
                              latency = 0.3)
  root <- skip_if_no_source_tree()
  dir <- withr::local_tempdir()
  records <- file.path(dir, "battle_records.csv")
  cache <- file.path(dir, "responses")
  battles <- sample_battles(4) # 12 battles
  battles_rds <- file.path(dir, "battles.rds")
  saveRDS(battles, battles_rds)
  max_active <- 2
  child <- callr::r_bg(function(root, battles_rds, records, cache, url, max_active) {
    if (file.exists(file.path(root, "DESCRIPTION")) && dir.exists(file.path(root, "R"))) {
      pkgload::load_all(root, quiet = TRUE)
    } else {
      library(predictivebench)
    }
    judge <- ellmer::chat_openai_compatible(base_url = url, model = "judge-lm",
                                            credentials = function() "sk-child")
    settings <- request_settings(cache = cache, max_active = max_active, rpm = Inf)
    tsk <- arena_judge_task(readRDS(battles_rds),
                      solver = arena_judge_solver(records = records, settings = settings),
                      dir = tempfile())
    tsk$eval(solver_chat = judge, view = FALSE)
  }, args = list(root = root, battles_rds = battles_rds, records = records, cache = cache,
                 url = server$url, max_active = max_active))
  on.exit(if (child$is_alive()) child$kill(), add = TRUE)
  entries <- function() length(list.files(cache, recursive = TRUE, pattern = "\\.rds$"))
  deadline <- Sys.time() + 60
  while (Sys.time() < deadline && child$is_alive() && entries() < 4) Sys.sleep(0.05)
  expect_true(child$is_alive(), info = paste(child$read_all_error(), collapse = "\n"))
  child$signal(tools::SIGKILL)
  child$wait(5000)
  sent_before <- server$count()
  done <- entries()
  expect_gte(done, 4)
  expect_lt(done, nrow(battles))
  # nothing was recorded in the battle file yet: it is written when the pool is done
  expect_false(file.exists(records))
  tsk <- arena_judge_task(battles,
                    solver = arena_judge_solver(records = records, settings = request_settings(cache = cache,
                                                                      rpm = Inf)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server, model = "judge-lm"), view = FALSE)
  # the rerun sent only the verdicts not in the response cache, none already answered
  expect_equal(server$count() - sent_before, nrow(battles) - done)
  expect_lte(sent_before - done, max_active)  # paid twice: at most those in flight
  expect_equal(sum(metadata_field(tsk$get_samples()$solver_metadata, "cached") == "TRUE"),
               done)
  final <- arena_read_battles(records)
  expect_equal(nrow(final), nrow(battles))
  expect_true(all(final$winner == "model_a"))
  expect_length(list.files(dir, pattern = "^\\.battle_records"), 0L)
})

# A child R process running arena_run() on `dir`: `models` answer through the fake server
# (and the response cache in `dir`), a slow "longer" baseline judges; both caches are
# rewritten after every request.
arena_child <- function(dir, experiment, models, url) {
  callr::r_bg(function(pkg, dir, experiment, models, url) {
    pkgload::load_all(pkg, quiet = TRUE)
    chats <- lapply(stats::setNames(models, models), function(m) {
      ellmer::chat_openai_compatible(base_url = url, model = m,
                                     credentials = function() "sk-child")
    })
    inner <- arena_baseline_judge("longer")
    judge <- baseline_chat(function(p) {
      Sys.sleep(0.05)
      inner$responder(p)
    }, name = "judge")
    arena_run(dir, "toy", experiment, chats, judge, strategy = "all", times = 0,
              settings = request_settings(max_active = 1,
                                          cache = file.path(dir, "tempcache", "responses")))
    invisible(NULL)
  }, args = list(skip_if_no_source_tree(), dir, experiment, models, url),
  stdout = tempfile(), stderr = tempfile())
}

arena_caches <- function(dir) {
  folder <- file.path(dir, "tempcache", "toy", "judge_231225")
  answers <- arena_read_answers(file.path(folder, "q_and_as.csv"))
  answers <- answers[order(answers$question), sort(names(answers))]
  records <- read_battle_cache(file.path(folder, "battle_records.csv"))
  records$tstamp <- NULL
  records <- records[order(records$question, records$model_a, records$model_b), ]
  list(answers = as.data.frame(answers), records = as.data.frame(records))
}

test_that("two arena_run()s on one folder at the same time lose no answer or verdict", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(function(body, n) {
    words <- as.integer(sub("^m", "", body$model))
    paste(c(rep(body$model, words), "on", last_user_text(body)), collapse = " ")
  }, latency = 0.05)
  questions <- paste("Question", 1:6)
  together <- arena_folder(questions)
  # m2 is in both runs: both answer it, each run also fills a column of its own
  runs <- list(arena_child(together, "a", c("m1", "m2"), server$url),
               arena_child(together, "b", c("m2", "m3"), server$url))
  for (run in runs) {
    run$wait(120000)
    expect_equal(run$get_exit_status(), 0, info = paste(readLines(run$get_error_file()),
                                                        collapse = "\n"))
  }
  one_by_one <- arena_folder(questions)
  for (args in list(list("a", c("m1", "m2")), list("b", c("m2", "m3")))) {
    run <- arena_child(one_by_one, args[[1]], args[[2]], server$url)
    run$wait(120000)
    expect_equal(run$get_exit_status(), 0)
  }
  concurrent <- arena_caches(together)
  sequential <- arena_caches(one_by_one)
  expect_false(anyNA(as.matrix(concurrent$answers)))
  expect_equal(nrow(concurrent$answers), 6)
  expect_equal(concurrent$answers, sequential$answers, ignore_attr = TRUE)
  expect_equal(nrow(concurrent$records), 2 * 6)  # pairs (m1, m2) and (m2, m3) on 6 questions
  expect_equal(concurrent$records, sequential$records, ignore_attr = TRUE)
  for (x in c("a", "b")) {
    experiment <- function(dir) {
      out <- utils::read.csv(file.path(dir, "results", x, "battle_outcomes.csv"))
      out[do.call(order, out), ]
    }
    expect_equal(experiment(together), experiment(one_by_one), ignore_attr = TRUE)
  }
})

test_that("verdicts are reused only by the same judge request: same model name at another server judges again", {
  verdict <- function(body, n) '{"winner": 1, "explanation": "first"}'
  first <- local_fake_openai(verdict)
  second <- local_fake_openai(verdict)
  battles <- sample_battles(2)
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  judge_with <- function(chat, params = NULL) {
    tsk <- arena_judge_task(battles,
                            solver = arena_judge_solver(records = records, params = params,
                                                        settings = request_settings(cache = FALSE)),
                            dir = withr::local_tempdir(.local_envir = parent.frame()))
    tsk$eval(solver_chat = chat, view = FALSE)
    tsk
  }
  judge_with(fake_chat(first, model = "judge-model"))
  expect_equal(first$count(), nrow(battles))
  # the same judge again: every verdict is reused
  judge_with(fake_chat(first, model = "judge-model"))
  expect_equal(first$count(), nrow(battles))
  # the same model name at another base URL: it judges every battle itself
  judge_with(fake_chat(second, model = "judge-model"))
  expect_equal(second$count(), nrow(battles))
  # other parameters: judged again too
  judge_with(fake_chat(first, model = "judge-model"), params = list(top_p = 0.5))
  expect_equal(first$count(), 2 * nrow(battles))
  # EloBench's layout is kept, each record naming its judge request by a hash
  saved <- arena_read_battles(records)
  expect_named(saved, predictivebench:::battle_record_columns)
  expect_true(all(saved$judger == "judge-model"))
  identities <- unique(vapply(saved$gpt_4_response,
                              function(r) jsonlite::parse_json(r)$judge_identity, ""))
  expect_length(identities, 3)
  expect_true(all(grepl("^[0-9a-f]{64}$", identities)))
  expect_false(any(grepl("FAKEKEY", readLines(records))))
})

test_that("EloBench's own records are still reused by judge name; older package records are not", {
  battles <- sample_battles(1)
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "gpt-4")
  original <- tibble::tibble(
    model_a = battles$model_a, model_b = battles$model_b, winner = "model_a", judger = "gpt-4",
    tstamp = "2023-12-25 00:00:00", question = battles$question, answer_a = battles$answer_a,
    answer_b = battles$answer_b,
    gpt_4_response = "{'response': '{\"winner\": 1}'}", gpt_4_score = "", is_valid = TRUE
  )
  write_battle_cache(original, records)
  judged <- judge_battles(battles, judge, records = records)
  expect_equal(counter$n, 0)
  expect_true(all(judged$cached))
  # a record this package wrote before identities were recorded names no judge request
  older <- original
  older$gpt_4_response <- '{"is_valid":true,"response":"{\\"winner\\": 1}","prompt_version":"231225"}'
  write_battle_cache(older, records)
  judge_battles(battles, judge, records = records)
  expect_equal(counter$n, nrow(battles))
})

test_that("a verdict is keyed by the answers it judged: changed answers are judged again", {
  battles <- sample_battles(2, models = c("m1", "m2"))  # 2 battles
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "judge")
  settings <- request_settings(cache = FALSE)
  judge_battles(battles, judge, records = records, settings = settings)
  expect_equal(counter$n, 2)
  saved <- read_battle_cache(records)
  keys <- record_fields(saved$gpt_4_response)$request_sha256
  expect_true(all(grepl("^[0-9a-f]{64}$", keys)))
  expect_false(anyDuplicated(keys) > 0)
  # one answer changed under the same model name: that battle alone is judged again
  changed <- battles
  changed$answer_a[[1]] <- "a new answer"
  changed$input[[1]] <- arena_judge_prompt(changed$question[[1]], changed$answer_a[[1]],
                                           changed$answer_b[[1]])$user
  judged <- judge_battles(changed, judge, records = records, settings = settings)
  expect_equal(counter$n, 3)
  expect_equal(judged$cached, c(FALSE, TRUE))
  # both verdicts are kept, each with the answers it judged; the old answers reuse theirs
  expect_equal(nrow(read_battle_cache(records)), 3)
  judge_battles(battles, judge, records = records, settings = settings)
  judge_battles(changed, judge, records = records, settings = settings)
  expect_equal(counter$n, 3)
})

test_that("a verdict is found by the request key stored with it, read as JSON, not from the judge's text", {
  battles <- sample_battles(1, models = c("m1", "m2"))
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "judge")
  settings <- request_settings(cache = FALSE)
  judge_battles(battles, judge, records = records, settings = settings)
  expect_equal(counter$n, 1)
  saved <- read_battle_cache(records)
  parsed <- jsonlite::parse_json(saved$gpt_4_response)
  # the stored key is the request's: another judge's request for the same battle differs
  key <- parsed$request_sha256
  expect_match(key, "^[0-9a-f]{64}$")
  other <- verdict_key("another judge", battles$question, battles$model_a, battles$model_b,
                       battles$answer_a, battles$answer_b)
  expect_false(identical(key, other))
  rewrite <- function(parsed) {
    saved$gpt_4_response <- as.character(jsonlite::toJSON(parsed, auto_unbox = TRUE,
                                                          null = "null"))
    write_battle_cache(saved, records)
  }
  # a judge's text that quotes other tags changes nothing: it is not where keys are read
  parsed$response <- paste0(parsed$response, ' "request_sha256": "', other,
                            '", "prompt_version": "231113"')
  rewrite(parsed)
  judged <- judge_battles(battles, judge, records = records, settings = settings)
  expect_equal(counter$n, 1)
  expect_true(judged$cached)
  # a package record without its request key names no request: judged again
  parsed$request_sha256 <- NULL
  rewrite(parsed)
  judge_battles(battles, judge, records = records, settings = settings)
  expect_equal(counter$n, 2)
})

test_that("an arena run with one model's new answers judges that model's battles again", {
  judge_server <- local_fake_openai(function(body, n) '{"winner": 1, "explanation": "first"}')
  answer_server <- local_fake_openai(function(body, n) {
    brief <- identical(body$messages[[1]]$role, "system")
    paste(body$model, if (brief) "in brief:" else "answers", last_user_text(body))
  })
  dir <- arena_folder(paste("Question", 1:3))
  settings <- request_settings(cache = file.path(dir, "responses"), max_tries = 1, rpm = Inf)
  run <- function(experiment, m3 = fake_chat(answer_server, model = "m3")) {
    models <- list(m1 = fake_chat(answer_server, model = "m1"),
                   m2 = fake_chat(answer_server, model = "m2"), m3 = m3)
    suppressMessages(arena_run(dir, "toy", experiment, models,
                               fake_chat(judge_server, model = "judge-model"),
                               strategy = "all", times = 0, settings = settings))
  }
  first <- run("one")
  expect_equal(judge_server$count(), 3 * 3)  # 3 pairs on 3 questions
  expect_equal(answer_server$count(), 3 * 3)
  # m3 answers anew (another request: a system prompt), under the same name
  second <- run("two", fake_chat(answer_server, model = "m3", system_prompt = "Be brief."))
  expect_equal(answer_server$count(), 3 * 3 + 3)
  expect_true(all(grepl("in brief", second$answers$m3)))
  # its battles (2 pairs on 3 questions) are judged again; m1 against m2 is reused
  expect_equal(judge_server$count(), 3 * 3 + 2 * 3)
  records <- second$records
  with_m3 <- records$model_a == "m3" | records$model_b == "m3"
  m3_answer <- ifelse(records$model_a == "m3", records$answer_a, records$answer_b)
  expect_true(all(grepl("in brief", m3_answer[with_m3])))
  # and again: everything is reused
  run("three", fake_chat(answer_server, model = "m3", system_prompt = "Be brief."))
  expect_equal(judge_server$count(), 3 * 3 + 2 * 3)
})
