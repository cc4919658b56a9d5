test_that("the judging task rates the bundled battles; old records parse the same", {
  judge <- arena_baseline_judge("longer")
  tsk <- arena_judge_task(solver = arena_judge_solver(settings = request_settings(cache = FALSE)), dir = withr::local_tempdir())
  tsk$eval(solver_chat = judge, view = FALSE)
  ratings <- arena_ratings(tsk, rating_options(bootstrap = 20))
  expect_equal(ratings$model[[1]], "wordy-model")
  old <- arena_read_battles(file.path(predictivebench:::arena_sample_dir(), "tempcache",
                                      "sample", "battle_records.csv"))
  expect_true(all(predictivebench:::original_version(old$gpt_4_response) == "231113"))
  texts <- vapply(old$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  expect_equal(arena_parse_verdict(texts)$winner, old$winner)
})

test_that("two battles with the same prompt keep their own models and records over epochs", {
  # m2 and m3 answer alike, so m1-vs-m2 and m1-vs-m3 send the judge the same prompt.
  answers <- tibble::tibble(question = "Same question?", m1 = "short", m2 = "a longer answer",
                            m3 = "a longer answer")
  arrangement <- tibble::tibble(question = "Same question?", model_a = "m1",
                                model_b = c("m2", "m3"))
  battles <- arena_battles(arrangement, answers)
  expect_identical(battles$input[[1]], battles$input[[2]])
  server <- local_fake_openai(function(body, n) '{"winner": 2, "explanation": "second"}')
  settings <- request_settings(cache = withr::local_tempdir())
  tsk <- arena_judge_task(battles, solver = arena_judge_solver(settings = settings),
                          dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server, model = "epoch-judge"), epochs = 2, view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), 4)
  meta <- samples$solver_metadata
  # Each battle keeps its own models in its record, though the judge was asked once: the
  # prompt (question and answers, not the model names) is the request.
  expect_equal(sort(samples$model_b), c("m2", "m2", "m3", "m3"))
  expect_true(all(vapply(meta, `[[`, "", "winner") == "model_b"))
  records <- predictivebench:::experiment_records(samples, samples)
  expect_equal(records$model_b, samples$model_b)
  keys <- predictivebench:::record_fields(records$gpt_4_response)$request_sha256
  expect_match(keys, "^[0-9a-f]{64}$")
  expect_length(unique(keys), 1)
  expect_equal(server$count(), 1)
  # Every epoch of a battle reuses its one verdict; a second eval sends nothing.
  tsk$eval(solver_chat = fake_chat(server, model = "epoch-judge"), epochs = 2, view = FALSE)
  expect_equal(server$count(), 1)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  expect_equal(sort(tsk$get_samples()$model_b), c("m2", "m2", "m3", "m3"))
  # The positional rule itself is solver_rows()'s, tested in test-benchmark-skeleton.R.
})

test_that("the judging solver needs its battles, and arena_ratings() its samples", {
  solver <- arena_judge_solver(settings = request_settings(cache = FALSE))
  expect_snapshot(solver("prompt", solver_chat = arena_baseline_judge("longer")), error = TRUE)
  expect_snapshot(arena_judge_task(data.frame(input = "x")), error = TRUE)
  expect_snapshot(arena_ratings(list()), error = TRUE)
})

test_that("an offline arena log shows each model's win rate and reads back the same", {
  tsk <- arena_judge_task(solver = arena_judge_solver(position_swap = TRUE, settings = request_settings(cache = FALSE)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = arena_baseline_judge("longer"), view = FALSE)
  rates <- arena_win_rates(tsk)
  expect_gt(length(unique(rates$estimate)), 1)
  expect_log_metrics(tsk$log_path, rates)
  samples <- expect_key_value_metadata(tsk$log_path)
  expect_equal(names(samples[[1]]$scores), "arena_battles_score")
  expect_equal(samples[[1]]$metadata$model_a, tsk$get_samples()$model_a[[1]])
  expect_match(samples[[1]]$scores[[1]]$explanation,
               "^Verdict AB: model_[ab]; BA \\(in AB's terms\\): model_[ab]; combined: ")
  expect_log_usage(tsk)
  expect_identical(arena_win_rates(tsk$log_path), rates)
  expect_identical(arena_ratings(tsk$log_path, rating_options(bootstrap = 20)),
                   arena_ratings(tsk, rating_options(bootstrap = 20)))
})

test_that("an arena log counts both judge requests of a battle; cached verdicts are free", {
  server <- local_fake_openai(function(body, n) {
    list(text = '{"winner": 1, "explanation": "first"}',
         usage = list(prompt_tokens = 50L, completion_tokens = 8L))
  })
  battles <- sample_battles()
  settings <- request_settings(cache = withr::local_tempdir())
  make <- function() {
    arena_judge_task(battles, arena_judge_solver(position_swap = TRUE, settings = settings),
                     dir = withr::local_tempdir())
  }
  tsk <- make()
  tsk$eval(solver_chat = fake_chat(server, model = "judge-lm"), view = FALSE)
  n <- nrow(battles)
  expect_equal(server$count(), 2 * n)
  usage <- expect_log_usage(tsk)
  expect_equal(c(usage$input_tokens, usage$output_tokens), c(2 * n * 50, 2 * n * 8))
  meta <- tsk$get_samples()$solver_metadata
  expect_equal(vapply(meta, function(m) m$input_tokens, 1), rep(100, n))
  # "1" in both orders: the orders disagree, a tie.
  expect_true(all(vapply(meta, function(m) m$winner, "") == "tie"))
  expect_log_metrics(tsk$log_path, arena_win_rates(tsk))
  expect_match(log_samples(tsk$log_path)$scorer_explanation[[1]],
               "Verdict AB: model_a; BA \\(in AB's terms\\): model_b; combined: tie")

  # the same battles judged again: every verdict (both orders) from the response cache
  again <- make()
  again$eval(solver_chat = fake_chat(server, model = "judge-lm"), view = FALSE)
  expect_equal(server$count(), 2 * n)
  expect_equal(nrow(task_usage(again)), 0)
  expect_equal(sum(log_usage(again$log_path)$input_tokens), 0)
  expect_true(all(vapply(log_samples(again$log_path)$solver_metadata,
                         function(m) m$cached, TRUE)))
  expect_identical(vapply(again$get_samples()$solver_metadata, function(m) m$winner, ""),
                   vapply(meta, function(m) m$winner, ""))
  # another judge model at the same server is another request: judged anew
  other <- make()
  other$eval(solver_chat = fake_chat(server, model = "other-judge"), view = FALSE)
  expect_equal(server$count(), 4 * n)
})

test_that("arena_win_rates() gives each model's mean points with a bootstrap interval", {
  battles <- data.frame(model_a = c("a", "a", "b", "a"), model_b = c("b", "c", "c", "b"),
                        winner = c("model_a", "tie", "model_b", NA))
  rates <- arena_win_rates(battles)
  expect_s3_class(rates, "benchmark_summary")
  expect_equal(rates$group, c("c", "a", "b"))
  # a: 1, 0.5 and a failed judgement as a tie; b: 0, 0 and 0.5; c: 0.5 and 1.
  expect_equal(rates$estimate, c(0.75, 2 / 3, 1 / 6))
  expect_equal(rates$n, c(2L, 3L, 3L))
  expect_equal(rates$ties, c(1L, 2L, 1L))
  expect_true(all(rates$metric == "win_rate"))
  expect_true(all(rates$lower <= rates$estimate & rates$estimate <= rates$upper))
  expect_true(all(rates$lower >= 0 & rates$upper <= 1))
  dropped <- arena_win_rates(battles, invalid = "drop")
  expect_equal(dropped$n[dropped$group == "a"], 2L)
  expect_identical(arena_win_rates(battles), rates)
  expect_equal(attr(rates, "interval"), "95% bootstrap interval (battles resampled)")
  skip_if_not_installed("ggplot2")
  plot <- ggplot2::autoplot(rates)
  expect_equal(plot$labels$y, "model")
  expect_equal(plot$labels$title, "Arena: win rate by model")
})

test_that("arena_ratings() with style control works from an evaluated arena task", {
  tsk <- arena_judge_task(solver = arena_judge_solver(settings = request_settings(cache = FALSE)), dir = withr::local_tempdir())
  tsk$eval(solver_chat = arena_baseline_judge("longer"), view = FALSE)
  samples <- tsk$get_samples()
  outcomes <- predictivebench:::arena_outcomes(tsk)
  expect_identical(outcomes$answer_a, samples$answer_a)
  expect_identical(outcomes$answer_b, samples$answer_b)
  r <- arena_ratings(tsk, rating_options(bootstrap = 0, style_control = TRUE))
  expect_true(all(c("style_rating", "style_lower", "style_upper") %in% names(r)))
  expect_identical(r$rating, arena_ratings(tsk, rating_options(bootstrap = 0))$rating)
  # the judge prefers the longer answer, so length carries a positive coefficient
  expect_gt(attr(r, "style_coefficients")[["length"]], 0)
  # the log keeps the answers too
  expect_identical(arena_ratings(tsk$log_path,
                                 rating_options(bootstrap = 0, style_control = TRUE)), r)
})

test_that("batch = TRUE judges every battle in one batch, whatever the chunk size", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) '{"winner": 1, "explanation": "first"}')
  battles <- sample_battles()
  cache <- withr::local_tempdir()
  tsk <- arena_judge_task(battles, arena_judge_solver(position_swap = TRUE, settings = request_settings(cache = cache, batch = TRUE)),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_responses_chat(server, model = "judge-lm"), view = FALSE)
  expect_equal(server$count(), 2 * nrow(battles))
  expect_equal(server$uploads(), 1)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, "", "winner") == "tie"))
})

test_that("the judging task takes a panel as its solver_chat: the majority's verdicts, each judge's in the metadata", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  a <- baseline_chat('{"winner": 1}', name = "ja")
  b <- baseline_chat('{"winner": 2}', name = "jb")
  t <- baseline_chat('{"winner": 0}', name = "jt")
  tsk <- arena_judge_task(dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = list(a, b, a$clone()), view = FALSE))
  meta <- tsk$get_samples()$solver_metadata
  expect_true(all(vapply(meta, `[[`, "", "winner") == "model_a"))
  expect_true(all(vapply(meta, `[[`, "", "judger") == "panel(ja, jb, ja#2)"))
  each <- panel_judges(vapply(meta, `[[`, "", "judges"))
  expect_identical(unique(each$winner[each$judge == "jb"]), "model_b")
  split <- arena_judge_task(dir = withr::local_tempdir())
  suppressMessages(split$eval(solver_chat = list(a, b, t), view = FALSE))
  expect_true(all(vapply(split$get_samples()$solver_metadata, `[[`, "", "winner") == "tie"))
})
