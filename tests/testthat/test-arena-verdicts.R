# Judging through the response cache, the one store of verdicts: a verdict is the response to
# its judge request, reused only by the same request. Baseline chats are never cached, so
# what is reused is counted at local fake servers.

test_that("judge responses are read from JSON and from the original's Python dicts", {
  expect_equal(arena_response_text('{"is_valid": true, "response": "hi\\nthere"}'), "hi\nthere")
  py <- "{'is_valid': True, 'response': 'It\\'s \"fine\"\\n- Score', 'usage': None}"
  expect_equal(arena_response_text(py), "It's \"fine\"\n- Score")
  py2 <- "{'is_valid': True, 'response': \"Model 1's answer\\u00e9\", 'usage': None}"
  expect_equal(arena_response_text(py2), "Model 1's answer\u00e9")
  expect_true(is.na(arena_response_text(NA_character_)))
  expect_equal(arena_response_text("plain text"), "plain text")
})

# A judge server's reply: always the first answer.
first_wins <- function(body, n) '{"winner": 1, "explanation": "first"}'

# The request key each judged battle's record holds (its gpt_4_response JSON).
record_keys <- function(responses) record_fields(responses)$request_sha256

# Battles judged by the judging task with `chat`: its samples.
judge_samples <- function(battles, chat, settings, ..., .local_envir = parent.frame()) {
  tsk <- arena_judge_task(battles, solver = arena_judge_solver(..., settings = settings),
                          dir = withr::local_tempdir(.local_envir = .local_envir))
  tsk$eval(solver_chat = chat, view = FALSE)
  tsk$get_samples()
}

test_that("judging through a real chat: temperature 0, the prompt, and the verdicts", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("Question 1", text, fixed = TRUE)) return('{"winner": 1, "explanation": "a"}')
    if (grepl("Question 2", text, fixed = TRUE)) return('{"winner": -1, "explanation": "b"}')
    list(status = 400)
  })
  judge <- fake_chat(server, model = "judge-model")
  battles <- sample_battles(3)
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, rpm = Inf)
  tsk <- arena_judge_task(battles, solver = arena_judge_solver(settings = settings),
                          dir = withr::local_tempdir())
  expect_warning(tsk$eval(solver_chat = judge, view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  winner <- metadata_field(samples$solver_metadata, "winner")
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
  # each record names its request; the verdicts are in the response cache under it, the
  # failures are not
  response <- metadata_field(samples$solver_metadata, "gpt_4_response")
  keys <- record_keys(response)
  expect_true(all(grepl("^[0-9a-f]{64}$", keys)))
  expect_equal(keys, verdict_keys(configured_judge(judge, "231225"), battles$input, "231225"))
  expect_equal(file.exists(cache_path(cache, keys)), q != "Question 3")
  expect_true(all(metadata_field(samples$solver_metadata, "judger") == "judge-model"))
  # A second run asks only for the failed verdicts.
  before <- server$count()
  tsk2 <- arena_judge_task(battles, solver = arena_judge_solver(settings = settings),
                           dir = withr::local_tempdir())
  suppressWarnings(tsk2$eval(solver_chat = judge, view = FALSE))
  expect_equal(server$count() - before, sum(q == "Question 3"))
  cached <- metadata_field(tsk2$get_samples()$solver_metadata, "cached")
  expect_equal(cached == "TRUE", q != "Question 3")
  ratings <- arena_ratings(tsk2, rating_options(bootstrap = 0))
  expect_s3_class(ratings, "arena_ratings")
})

test_that("no battles: no request and no rows, with or without position swap", {
  server <- local_fake_openai(first_wins)
  battles <- sample_battles(1)[0, ]
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  for (swap in c(FALSE, TRUE)) {
    judged <- judge_battles(battles, fake_chat(server, model = "judge"), position_swap = swap,
                            settings = settings)
    expect_equal(nrow(judged), 0)
    expect_true(all(c("winner", "gpt_4_response", "cached", "usage") %in% names(judged)))
  }
  expect_equal(server$count(), 0)
})

test_that("verdicts are keyed by the judge request, and position swap judges both orders", {
  server <- local_fake_openai(first_wins)
  battles <- sample_battles(2)  # 6 battles
  n <- nrow(battles)
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  judge <- function(model = "judge-one") fake_chat(server, model = model)
  judge_samples(battles, judge(), settings)
  expect_equal(server$count(), n)
  again <- judge_samples(battles, judge(), settings)
  expect_equal(server$count(), n)  # all from the response cache
  expect_true(all(metadata_field(again$solver_metadata, "cached") == "TRUE"))
  judge_samples(battles, judge("judge-two"), settings)
  expect_equal(server$count(), 2 * n)  # another judge never reuses verdicts
  # nor does another prompt version
  judge_samples(battles, judge(), settings, version = "231113")
  expect_equal(server$count(), 3 * n)
  judge_samples(battles, judge(), settings, version = "231113")
  expect_equal(server$count(), 3 * n)
  # Position swap: the judge's own order is the request already answered; only the swapped
  # order is new.
  swapped <- judge_samples(battles, judge(), settings, position_swap = TRUE)
  expect_equal(server$count(), 4 * n)
  meta <- swapped$solver_metadata
  expect_true(all(metadata_field(meta, "winner_ab") == "model_a"))
  expect_true(all(metadata_field(meta, "winner_ba") == "model_b"))
  expect_true(all(metadata_field(meta, "winner") == "tie"))  # a biased judge disagrees
  # both orders are in the cache now
  judge_samples(battles, judge(), settings, position_swap = TRUE)
  expect_equal(server$count(), 4 * n)
  # The swapped requests are other requests: a judge asked only in swapped order pays both.
  judge_samples(battles, judge("judge-three"), settings, position_swap = TRUE)
  expect_equal(server$count(), 6 * n)
  # A baseline judge answers offline and is never cached: it judges every time.
  counter <- new.env()
  counter$n <- 0
  judge_samples(battles, counting_judge(counter, rule = "first"), settings)
  judge_samples(battles, counting_judge(counter, rule = "first"), settings)
  expect_equal(counter$n, 2 * n)
  # A consistent judge keeps its verdicts under the swap.
  counter$n <- 0
  longer <- judge_samples(battles, counting_judge(counter, rule = "longer"), settings,
                          position_swap = TRUE)
  expect_equal(counter$n, 2 * n)
  winners <- metadata_field(longer$solver_metadata, "winner")
  expect_true(all(winners %in% c("model_a", "model_b")))
})

test_that("a run killed while judging pays again only for the verdicts in flight", {
  skip_if_not_installed("callr")
  skip_on_cran()
  skip_on_os("windows")
  # Every battle is judged in one pool; the response cache keeps each verdict the moment it
  # arrives, so after a SIGKILL the rerun sends only what was not answered yet.
  server <- local_fake_openai(first_wins, latency = 0.3)
  root <- skip_if_no_source_tree()
  dir <- withr::local_tempdir()
  cache <- file.path(dir, "responses")
  battles <- sample_battles(4) # 12 battles
  battles_rds <- file.path(dir, "battles.rds")
  saveRDS(battles, battles_rds)
  max_active <- 2
  child <- callr::r_bg(function(root, battles_rds, cache, url, max_active) {
    if (file.exists(file.path(root, "DESCRIPTION")) && dir.exists(file.path(root, "R"))) {
      pkgload::load_all(root, quiet = TRUE)
    } else {
      library(predictivebench)
    }
    judge <- ellmer::chat_openai_compatible(base_url = url, model = "judge-lm",
                                            credentials = function() "sk-child")
    settings <- request_settings(cache = cache, max_active = max_active, rpm = Inf)
    tsk <- arena_judge_task(readRDS(battles_rds),
                            solver = arena_judge_solver(settings = settings), dir = tempfile())
    tsk$eval(solver_chat = judge, view = FALSE)
  }, args = list(root = root, battles_rds = battles_rds, cache = cache, url = server$url,
                 max_active = max_active))
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
  samples <- judge_samples(battles, fake_chat(server, model = "judge-lm"),
                           request_settings(cache = cache, rpm = Inf))
  # the rerun sent only the verdicts not in the response cache, none already answered
  expect_equal(server$count() - sent_before, nrow(battles) - done)
  expect_lte(sent_before - done, max_active)  # paid twice: at most those in flight
  expect_equal(sum(metadata_field(samples$solver_metadata, "cached") == "TRUE"), done)
  expect_true(all(metadata_field(samples$solver_metadata, "winner") == "model_a"))
  # every verdict is in the cache now, under the key its record holds
  keys <- record_keys(metadata_field(samples$solver_metadata, "gpt_4_response"))
  expect_true(all(file.exists(cache_path(cache, keys))))
  expect_equal(entries(), nrow(battles))
})

# A child R process running arena_run() on the EloBench folder `dir`: `models` answer through
# the fake server (and the response cache in `dir`), a slow "longer" baseline judges; the
# folder's answer and battle files are merged into after every round.
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
    arena_run(chats, judge, version = "toy", elobench = dir, dir = file.path(dir, "logs"),
              settings = request_settings(max_active = 1, rpm = Inf,
                                          cache = file.path(dir, "responses")),
              options = arena_options(experiment = experiment, strategy = "all",
                                      ratings = rating_options(method = "elo", bootstrap = 0)))
    invisible(NULL)
  }, args = list(skip_if_no_source_tree(), dir, experiment, models, url),
  stdout = tempfile(), stderr = tempfile())
}

# The folder's exported answers and verdicts, in a stable order.
arena_exports <- function(dir) {
  folder <- file.path(dir, "tempcache", "toy")
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
  concurrent <- arena_exports(together)
  sequential <- arena_exports(one_by_one)
  expect_named(concurrent$answers, c("m1", "m2", "m3", "question"))
  expect_false(anyNA(as.matrix(concurrent$answers)))
  expect_equal(nrow(concurrent$answers), 6)
  expect_equal(concurrent$answers, sequential$answers, ignore_attr = TRUE)
  expect_equal(nrow(concurrent$records), 2 * 6)  # pairs (m1, m2) and (m2, m3) on 6 questions
  expect_false(anyDuplicated(record_keys(concurrent$records$gpt_4_response)) > 0)
  expect_equal(concurrent$records, sequential$records, ignore_attr = TRUE)
  for (x in c("a", "b")) {
    experiment <- function(dir) {
      out <- utils::read.csv(file.path(dir, "results", x, "battle_outcomes.csv"))
      out[do.call(order, out), ]
    }
    expect_equal(experiment(together), experiment(one_by_one), ignore_attr = TRUE)
  }
  # nothing left behind but the files and their locks
  expect_length(list.files(file.path(together, "tempcache", "toy"), pattern = "tmp"), 0L)
})

test_that("verdicts are reused only by the same judge request: same model name at another server judges again", {
  first <- local_fake_openai(first_wins)
  second <- local_fake_openai(first_wins)
  battles <- sample_battles(2)
  n <- nrow(battles)
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  keys_of <- function(samples) {
    record_keys(metadata_field(samples$solver_metadata, "gpt_4_response"))
  }
  one <- judge_samples(battles, fake_chat(first, model = "judge-model"), settings)
  expect_equal(first$count(), n)
  # the same judge again: every verdict is reused
  judge_samples(battles, fake_chat(first, model = "judge-model"), settings)
  expect_equal(first$count(), n)
  # the same model name at another base URL: it judges every battle itself
  two <- judge_samples(battles, fake_chat(second, model = "judge-model"), settings)
  expect_equal(second$count(), n)
  # other parameters: judged again too
  three <- judge_samples(battles, fake_chat(first, model = "judge-model"), settings,
                         params = list(top_p = 0.5))
  expect_equal(first$count(), 2 * n)
  # and the first judge still finds its own
  judge_samples(battles, fake_chat(first, model = "judge-model"), settings)
  expect_equal(first$count(), 2 * n)
  # EloBench's columns name the judge by model; the request keys tell the three apart
  expect_true(all(metadata_field(two$solver_metadata, "judger") == "judge-model"))
  keys <- list(keys_of(one), keys_of(two), keys_of(three))
  expect_true(all(grepl("^[0-9a-f]{64}$", unlist(keys))))
  expect_length(unique(unlist(keys)), 3 * n)
  responses <- metadata_field(two$solver_metadata, "gpt_4_response")
  expect_false(any(grepl("FAKEKEY", responses)))
})

test_that("a verdict is keyed by the answers it judged: changed answers are judged again", {
  server <- local_fake_openai(first_wins)
  judge <- fake_chat(server, model = "judge")
  battles <- sample_battles(2, models = c("m1", "m2"))  # 2 battles
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  judged <- judge_battles(battles, judge, settings = settings)
  expect_equal(server$count(), 2)
  keys <- record_keys(judged$gpt_4_response)
  expect_true(all(grepl("^[0-9a-f]{64}$", keys)))
  expect_false(anyDuplicated(keys) > 0)
  # one answer changed under the same model name: that battle alone is judged again
  changed <- battles
  changed$answer_a[[1]] <- "a new answer"
  changed$input[[1]] <- arena_judge_prompt(changed$question[[1]], changed$answer_a[[1]],
                                           changed$answer_b[[1]])$user
  rejudged <- judge_battles(changed, judge, settings = settings)
  expect_equal(server$count(), 3)
  expect_equal(rejudged$cached, c(FALSE, TRUE))
  new_keys <- record_keys(rejudged$gpt_4_response)
  expect_false(new_keys[[1]] == keys[[1]])
  expect_equal(new_keys[[2]], keys[[2]])
  # both verdicts are kept, each with the answers it judged
  expect_true(all(judge_battles(battles, judge, settings = settings)$cached))
  expect_true(all(judge_battles(changed, judge, settings = settings)$cached))
  expect_equal(server$count(), 3)
  # the models' names are not in the request: the same answers under other names are reused
  renamed <- battles
  renamed$model_a <- "x1"
  renamed$model_b <- "x2"
  again <- judge_battles(renamed, judge, settings = settings)
  expect_equal(server$count(), 3)
  expect_equal(again$model_a, c("x1", "x1"))
})

json_text <- function(parsed) {
  as.character(jsonlite::toJSON(parsed, auto_unbox = TRUE, null = "null"))
}

# The battle record (EloBench's columns) of judge_battles()' first row, its gpt_4_response
# replaced by `parsed` written as JSON.
store_record_of <- function(judged, parsed) {
  record <- judged[1, predictivebench:::battle_record_columns]
  record$gpt_4_response <- json_text(parsed)
  record
}

test_that("a verdict's request key is read as JSON, not from the judge's text", {
  server <- local_fake_openai(first_wins)
  judge <- fake_chat(server, model = "judge")
  battles <- sample_battles(1, models = c("m1", "m2"))
  judged <- judge_battles(battles, judge,
                          settings = request_settings(cache = withr::local_tempdir(), rpm = Inf))
  expect_equal(server$count(), 1)
  parsed <- jsonlite::parse_json(judged$gpt_4_response)
  key <- parsed$request_sha256
  expect_match(key, "^[0-9a-f]{64}$")
  expect_equal(key, verdict_keys(configured_judge(judge, "231225"), battles$input, "231225"))
  # another judge's request for the same battle has another key
  other <- verdict_keys(configured_judge(fake_chat(server, model = "another"), "231225"),
                        battles$input, "231225")
  expect_false(identical(key, other))
  # EloBench's file with the record, written as given; imported into a fresh cache
  import_as <- function(parsed) {
    record <- store_record_of(judged, parsed)
    path <- file.path(withr::local_tempdir(), "battle_records.csv")
    write_battle_cache(record, path)
    cache <- withr::local_tempdir()
    settings <- request_settings(cache = cache, rpm = Inf)
    filed <- import_elobench_verdicts(path, configured_judge(judge, "231225"), "231225",
                                      settings)
    before <- server$count()
    rejudged <- judge_battles(battles, judge, settings = settings)
    list(filed = filed, sent = server$count() - before, cached = rejudged$cached)
  }
  expect_equal(import_as(parsed), list(filed = 1L, sent = 0, cached = TRUE))
  # a judge's text that quotes another key and version changes nothing
  quoting <- parsed
  quoting$response <- paste0(parsed$response, ' "request_sha256": "', other,
                             '", "prompt_version": "231113"')
  expect_equal(record_fields(json_text(quoting))$request_sha256, key)
  expect_equal(import_as(quoting), list(filed = 1L, sent = 0, cached = TRUE))
  # a package record without its request key names no request: judged again, even when its
  # text quotes the right key
  keyless <- parsed
  keyless$request_sha256 <- NULL
  keyless$response <- paste0(parsed$response, ' "request_sha256": "', key, '"')
  expect_true(is.na(record_fields(json_text(keyless))$request_sha256))
  expect_equal(import_as(keyless), list(filed = 0L, sent = 1, cached = FALSE))
  # a record holding another request's key is not this request's verdict
  stale <- parsed
  stale$request_sha256 <- other
  expect_equal(import_as(stale), list(filed = 0L, sent = 1, cached = FALSE))
  # a Python dict (the original's) is no package record, whatever its text says
  fields <- record_fields(paste0("{'response': 'x', 'request_sha256': '", key,
                                 "', 'prompt_version': '231225'}"))
  expect_false(fields$package)
  expect_true(is.na(fields$request_sha256))
})

test_that("arena_run(elobench =) imports EloBench's own verdicts by judge name and prompt version format", {
  judge_server <- local_fake_openai(function(body, n) '{"winner": 2, "explanation": "second"}')
  questions <- paste("Question", 1:3)
  folder <- arena_folder(questions)
  answers <- tibble::tibble(question = questions, m1 = paste("m1 says", questions),
                            m2 = paste("m2 says", questions))
  arrangement <- tibble::tibble(question = questions, model_a = "m1", model_b = "m2")
  original <- tibble::tibble(
    model_a = "m1", model_b = "m2", winner = "model_a",
    judger = c("gpt-4", "gpt-3.5-turbo", "gpt-4"), tstamp = "2023-12-25 00:00:00",
    question = questions, answer_a = answers$m1, answer_b = answers$m2,
    gpt_4_response = c("{'is_valid': True, 'response': '{\"winner\": 1}', 'usage': None}",
                       "{'is_valid': True, 'response': '{\"winner\": 1}', 'usage': None}",
                       paste0("{'is_valid': True, 'response': ",
                              "'Score of Model 1: 1\\nScore of Model 2: 0'}")),
    gpt_4_score = "", is_valid = TRUE
  )
  verdicts <- file.path(folder, "tempcache", "toy", "battle_records.csv")
  dir.create(dirname(verdicts), recursive = TRUE)
  write_battle_cache(original, verdicts)
  run <- function(judge, cache, prompt_version = "231225", experiment = "exp") {
    arena_run(list(), judge, version = "toy", answers = answers, elobench = folder,
              dir = withr::local_tempdir(), settings = request_settings(cache = cache, rpm = Inf),
              options = arena_options(experiment = experiment, strategy = "reload", arrangement = arrangement, prompt_version = prompt_version,
                                      ratings = rating_options(method = "elo", bootstrap = 0)))
  }
  first_cache <- withr::local_tempdir()
  judge <- fake_chat(judge_server, model = "gpt-4")
  one <- run(judge, first_cache)
  # Question 1: EloBench's own verdict of this judge model in this format, imported; Question
  # 2 (another judge) and 3 (the scores of prompt 231113) are judged
  expect_equal(judge_server$count(), 2)
  expect_equal(one$records$winner, c("model_a", "model_b", "model_b"))
  expect_equal(one$records$question, questions)
  # the folder's battle file keeps EloBench's records and gains the run's, each with its key
  exported <- read_battle_cache(verdicts)
  keys <- record_keys(exported$gpt_4_response)
  expect_equal(sum(is.na(keys)), 3)
  expect_equal(sum(!is.na(keys)), 3)
  expect_equal(sort(keys[!is.na(keys)]), sort(record_keys(one$records$gpt_4_response)))
  # Another machine (a fresh cache), the same judge: EloBench's record by name, the package's
  # by their request key: nothing is sent
  two <- run(fake_chat(judge_server, model = "gpt-4"), withr::local_tempdir(), experiment = "two")
  expect_equal(judge_server$count(), 2)
  expect_equal(two$records$winner, one$records$winner)
  # The same model name at another server: EloBench's record still counts (the original's rule,
  # by name), the package's records hold another server's keys: judged there
  other_server <- local_fake_openai(function(body, n) '{"winner": 0, "explanation": "tie"}')
  three <- run(fake_chat(other_server, model = "gpt-4"), withr::local_tempdir(),
               experiment = "three")
  expect_equal(other_server$count(), 2)
  expect_equal(three$records$winner, c("model_a", "tie", "tie"))
  # Prompt 231113: EloBench's scores count (same judge, that format), nothing else does
  four <- run(fake_chat(judge_server, model = "gpt-4"), withr::local_tempdir(),
              prompt_version = "231113", experiment = "four")
  expect_equal(judge_server$count(), 2 + 2)
  expect_equal(four$records$winner[[3]], "model_a")
  # With cache = FALSE nothing is imported: every battle is judged
  arena_run(list(), fake_chat(judge_server, model = "gpt-4"), version = "toy", answers = answers,
            elobench = folder, dir = withr::local_tempdir(),
            settings = request_settings(cache = FALSE, rpm = Inf),
            options = arena_options(experiment = "five", strategy = "reload", arrangement = arrangement,
                                    ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(judge_server$count(), 4 + 3)
})

test_that("an arena run with one model's new answers judges that model's battles again", {
  judge_server <- local_fake_openai(first_wins)
  answer_server <- local_fake_openai(function(body, n) {
    brief <- identical(body$messages[[1]]$role, "system")
    paste(body$model, if (brief) "in brief:" else "answers", last_user_text(body))
  })
  questions <- data.frame(question = paste("Question", 1:3))
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf, retry = list(max_tries = 1))
  logs <- withr::local_tempdir()
  run <- function(experiment, m3 = fake_chat(answer_server, model = "m3")) {
    models <- list(m1 = fake_chat(answer_server, model = "m1"),
                   m2 = fake_chat(answer_server, model = "m2"), m3 = m3)
    suppressMessages(arena_run(models, fake_chat(judge_server, model = "judge-model"),
                               dataset = questions, dir = logs, settings = settings,
                               options = arena_options(experiment = experiment, strategy = "all",
                                                       ratings = rating_options(method = "elo",
                                                                                bootstrap = 0))))
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
  # and again: everything is reused, answers and verdicts
  run("three", fake_chat(answer_server, model = "m3", system_prompt = "Be brief."))
  expect_equal(judge_server$count(), 3 * 3 + 2 * 3)
  expect_equal(answer_server$count(), 3 * 3 + 3)
  # without an EloBench folder nothing but the logs is written
  expect_true(all(grepl("[.]json$", list.files(logs, recursive = TRUE))))
})

test_that("battle records' JSON is jsonlite's, written for all rows at once", {
  res <- data.frame(
    result = c('{"winner": 1, "explanation": "x"}', NA, "é ✓ \\ \"q\" \n\r\t\b\f",
               "ctl \001 x \037", "/slash/ \u2028 \u007f", ""),
    output_tokens = c(1, NA, 123456, 0, 7, 99999999), input_tokens = c(10, 20, NA, 1, 2, 3),
    error = c(NA, "HTTP 500 \"bad\"", NA, NA, "e\nx", NA), stringsAsFactors = FALSE
  )
  key <- paste0("k", 1:6)
  one_by_one <- vapply(seq_len(nrow(res)), function(i) {
    as.character(jsonlite::toJSON(list(
      is_valid = !is.na(res$result[[i]]),
      response = if (is.na(res$result[[i]])) "" else res$result[[i]],
      prompt_version = "231225", request_sha256 = key[[i]],
      usage = list(completion_tokens = res$output_tokens[[i]],
                   prompt_tokens = res$input_tokens[[i]]),
      error = res$error[[i]]
    ), auto_unbox = TRUE, null = "null", na = "null"))
  }, "")
  expect_identical(response_json(res, "231225", key), one_by_one)
  expect_identical(response_json(res[0, ], "231225", character()), character())
})

# A fake server for panels: judge-a and judge-c prefer the first answer, judge-b the second;
# judge-t calls every battle a tie, judge-x fails; other models answer with their name.
local_panel_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    switch(body$model,
      "judge-a" = , "judge-c" = '{"winner": 1, "explanation": "The first."}',
      "judge-b" = '{"winner": 2, "explanation": "The second."}',
      "judge-t" = '{"winner": 0, "explanation": "Alike."}',
      "judge-x" = list(status = 400),
      paste(rep(body$model, 3), collapse = " "))
  }, .local_envir = .local_envir)
}

test_that("an arena panel: the majority's verdict, each judge's own in the log and records, judges x battles requests, none on a rerun", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_panel_server()
  models <- list(big = fake_chat(server, "big"), small = fake_chat(server, "small"))
  panel <- list(fake_chat(server, "judge-a"), fake_chat(server, "judge-b"),
                fake_chat(server, "judge-c"))
  folder <- arena_folder(paste("Question", 1:3))
  logs <- withr::local_tempdir()
  run <- arena_run(models, panel, version = "toy", elobench = folder, dir = logs,
                   options = arena_options(n = 2, strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  battles <- nrow(run$records)
  asked <- table(Filter(function(m) startsWith(m, "judge-"), vapply(server$requests(),
                                                                      `[[`, "", "model")))
  expect_equal(as.vector(asked), rep(battles, 3))
  # a and c say model_a, b says model_b: model_a
  expect_true(all(run$records$winner == "model_a"))
  expect_true(all(run$records$judger == "panel(judge-a, judge-b, judge-c)"))
  record <- jsonlite::fromJSON(run$records$gpt_4_response[[1]])
  expect_null(record$request_sha256)
  expect_identical(record$judges$judge, c("judge-a", "judge-b", "judge-c"))
  expect_identical(record$judges$winner, c("model_a", "model_b", "model_a"))
  expect_length(unique(record$judges$request_sha256), 3)
  # the log keeps each judge's verdict beside the panel's
  log <- jsonlite::read_json(run$paths$log)
  each <- panel_judges(vapply(log$samples, function(s) s$metadata$judges, ""))
  expect_equal(nrow(each), 3 * battles)
  expect_identical(unique(each$winner[each$judge == "judge-b"]), "model_b")
  expect_match(log$eval$scorers[[1]]$name %||% names(log$samples[[1]]$scores)[[1]],
               "panel(judge-a, judge-b, judge-c)", fixed = TRUE)
  # a rerun reads every judge's verdicts from the cache
  before <- server$count()
  again <- arena_run(models, panel, version = "toy", elobench = folder, dir = logs,
                     options = arena_options(n = 2, strategy = "all",
                                             ratings = rating_options(method = "elo",
                                                                      bootstrap = 0)))
  expect_equal(server$count(), before)
  expect_identical(again$records$winner, run$records$winner)
  # a panel's records are never imported as one judge's: judge-b alone asks for its own
  # verdicts only (already in the cache: nothing sent) and keeps them
  alone <- arena_run(models, panel[[2]], version = "toy", elobench = folder, dir = logs,
                     options = arena_options(n = 2, strategy = "all",
                                             ratings = rating_options(method = "elo",
                                                                      bootstrap = 0)))
  expect_equal(server$count(), before)
  expect_true(all(alone$records$winner == "model_b"))
})

test_that("an arena panel without a majority: a tie when every judge spoke, none while a failed judge could decide", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_panel_server()
  battles <- sample_battles(2, c("m1", "m2"))
  settings <- request_settings(retry = list(max_tries = 1))
  judge <- function(...) {
    configured_judge(check_judge(lapply(c(...), function(m) fake_chat(server, m))), "231225")
  }
  split <- judge_verdicts(battles, judge("judge-a", "judge-b", "judge-t"), settings = settings)
  expect_true(all(split$winner == "tie"))
  expect_true(all(is.na(split$error)))
  failed <- suppressWarnings(judge_verdicts(battles, judge("judge-a", "judge-b", "judge-x"),
                                            settings = settings))
  expect_true(all(is.na(failed$winner)))
  expect_match(failed$error, "^judge-x: ")
  decided <- suppressWarnings(judge_verdicts(battles, judge("judge-a", "judge-c", "judge-x"),
                                             settings = settings))
  expect_true(all(decided$winner == "model_a"))
  # usage: every judge's requests (the failed one's have no tokens)
  fresh <- request_settings(cache = FALSE)
  one <- judge_verdicts(battles, judge("judge-a"), settings = fresh)
  all3 <- judge_verdicts(battles, judge("judge-a", "judge-b", "judge-t"), settings = fresh)
  expect_equal(all3$input_tokens, 3 * one$input_tokens)
  expect_true(all(one$input_tokens > 0))
  # position swap: each judge's verdicts combined first (a judge preferring the first
  # answer is a tie by itself), then the panel's majority
  swapped <- judge_verdicts(battles, judge("judge-a", "judge-b", "judge-c"),
                            position_swap = TRUE, settings = settings)
  expect_true(all(swapped$winner == "tie"))
  expect_true(all(swapped$winner_ab == "model_a"))
})

test_that("a single judge's verdicts are as before panels: a list of one is that judge", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_panel_server()
  battles <- sample_battles(2, c("m1", "m2"))
  fresh <- request_settings(cache = FALSE)
  alone <- judge_verdicts(battles, configured_judge(fake_chat(server, "judge-a"), "231225"),
                          settings = fresh)
  listed <- judge_verdicts(battles, configured_judge(check_judge(list(fake_chat(server, "judge-a"))), "231225"),
                           settings = fresh)
  expect_identical(listed[names(listed) != "tstamp"], alone[names(alone) != "tstamp"])
  expect_false("judges" %in% names(alone))
  expect_identical(alone$judger, rep("judge-a", nrow(battles)))
})

# The warnings of `expr`, muffled and returned with its value.
collect_warnings <- function(expr) {
  said <- list()
  value <- withCallingHandlers(expr, warning = function(w) {
    said[[length(said) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(value = value, warnings = said)
}

unreadable_contestants <- function() {
  list(a = named_constant("A.", "a"), b = named_constant("Bb.", "b"),
       c = named_constant("Ccc.", "c"))
}

test_that("a judge that never gives a readable verdict is named and counted everywhere, and rates no one", {
  dir <- withr::local_tempdir()
  got <- collect_warnings(arena_run(unreadable_contestants(), baseline_chat("True", "judge-ds"),
                                    dataset = data.frame(question = paste("Question", 1:6)),
                                    dir = dir,
                                    options = arena_options(strategy = "all",
                                                            ratings = rating_options(method = "elo", bootstrap = 20))))
  run <- got$value
  expect_equal(sum(run$records$winner == "invalid"), 18)
  classes <- vapply(got$warnings, function(w) class(w)[[1]], "")
  said <- got$warnings[[match("predictivebench_warning_unreadable_verdicts", classes)]]
  expect_match(conditionMessage(said), "judge-ds gave no readable verdict in 18 of 18 battles",
               fixed = TRUE)
  expect_equal(said$unreadable, c(`judge-ds` = 18L))
  # the run's print: the battles without a readable verdict, by judge
  shown <- paste(capture.output(print(run)), collapse = "\n")
  expect_match(shown, "18 battles, 0 failed; judge-ds gave no readable verdict in 18.",
               fixed = TRUE)
  expect_equal(run$unreadable, c(`judge-ds` = 18L))
  # ratings built on nothing but unreadable verdicts are no tie of 1000 [1000, 1000]
  expect_true(all(is.na(run$ratings$rating)))
  expect_true(all(is.na(run$ratings$lower) & is.na(run$ratings$upper) & is.na(run$ratings$rank)))
  expect_equal(sort(attr(run$ratings, "unrated")), c("a", "b", "c"))
  expect_match(paste(capture.output(print(run$ratings)), collapse = "\n"),
               "No rating for a, b, and c: every battle of theirs has no readable verdict",
               fixed = TRUE)
  # the log: each battle's note and the count in its header
  header <- read_log_header(run$paths$log)
  expect_equal(header$eval$metadata$unreadable_verdicts, list(`judge-ds` = 18L))
  notes <- metadata_field(log_samples(run$paths$log)$solver_metadata, "verdict_note")
  expect_equal(unique(notes), "judge-ds gave no readable verdict")
  # report_failures(): notes, not failures, counted by what they say
  expect_message(failed <- report_failures(run$paths$log),
                 "18 samples with a note", class = "predictivebench_message_failures")
  expect_equal(nrow(failed), 0)
  expect_equal(nrow(attr(failed, "notes")), 18)
  expect_message(report_failures(run$paths$log), "judge-ds gave no readable verdict (18)",
                 fixed = TRUE)
})

test_that("a panel with one judge that never answers readably warns, naming that judge", {
  dir <- withr::local_tempdir()
  panel <- list(arena_baseline_judge("first"), baseline_chat("True", "judge-ds"))
  got <- collect_warnings(arena_run(unreadable_contestants(), panel,
                                    dataset = data.frame(question = paste("Question", 1:6)),
                                    dir = dir,
                                    options = arena_options(strategy = "all",
                                                            ratings = rating_options(method = "elo", bootstrap = 20))))
  run <- got$value
  classes <- vapply(got$warnings, function(w) class(w)[[1]], "")
  said <- got$warnings[[match("predictivebench_warning_unreadable_verdicts", classes)]]
  expect_match(conditionMessage(said), "judge-ds gave no readable verdict in 18 of 18 battles",
               fixed = TRUE)
  expect_equal(names(said$unreadable), "judge-ds")
  expect_match(paste(capture.output(print(run)), collapse = "\n"),
               "judge-ds gave no readable verdict in 18.", fixed = TRUE)
  header <- read_log_header(run$paths$log)
  expect_equal(header$eval$metadata$unreadable_verdicts, list(`judge-ds` = 18L))
  expect_message(report_failures(run$paths$log), "judge-ds gave no readable verdict (18)",
                 fixed = TRUE)
})
