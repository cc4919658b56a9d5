# arena_task(): one model's answers to the arena's questions, judged in battles against
# reference models' answers.

arena_toy <- function() {
  csv <- withr::local_tempfile(fileext = ".csv", .local_envir = parent.frame())
  writeLines(c("question", "q1", "q2", "q3"), csv)
  list(
    questions = arena_dataset(csv),
    answers = tibble::tibble(question = c("q1", "q2", "q3"),
                             long = c("a very long answer", "another long answer", NA),
                             short = c("x", "", "y")),
    model = baseline_chat(function(q) c(q1 = "medium answer", q2 = "", q3 = "zz")[[q]],
                          name = "candidate")
  )
}

no_cache <- function() request_settings(cache = FALSE)

test_that("arena_task(arena_dataset()) scores each answer by its battles: win 1, tie 0.5, loss 0", {
  toy <- arena_toy()
  tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                    judge = arena_baseline_judge("longer"), answers = toy$answers,
                    dir = withr::local_tempdir())
  expect_s3_class(tsk, "Task")
  tsk$eval(solver_chat = toy$model, view = FALSE)
  samples <- tsk$get_samples()
  # q1: loses to long, beats short; q2: loses to long, both empty vs short is a
  # tie(all bad), 0.5; q3: long has no answer (no battle), beats short.
  expect_identical(samples$score, c(0.5, 0.25, 1))
  meta <- samples$scorer_metadata
  expect_equal(vapply(meta, `[[`, 1L, "wins"), c(1L, 0L, 1L))
  expect_equal(vapply(meta, `[[`, 1L, "ties"), c(0L, 1L, 0L))
  expect_equal(vapply(meta, `[[`, 1L, "losses"), c(1L, 1L, 0L))
  expect_match(samples$scorer_explanation[[2]], "vs short: tie\\(all bad\\) \\(0.5\\)")

  s <- arena_summary(tsk)
  expect_named(s, c("group", "metric", "estimate", "lower", "upper", "n", "n_missing"))
  expect_equal(s$group, c("overall", "vs long", "vs short"))
  expect_equal(s$estimate, c(mean(c(0.5, 0.25, 1)), 0, 2.5 / 3))
  expect_equal(s$n, c(3L, 2L, 3L))
  expect_true(all(s$lower <= s$estimate & s$estimate <= s$upper))
  expect_identical(arena_summary(tsk$log_path), s)
  # the board gives the same headline, estimates and intervals, from the task and its log
  from_task <- leaderboard(tsk)
  from_log <- leaderboard(tsk$log_path)
  expect_equal(from_task$metric, s$group)
  for (column in c("model", "metric", "estimate", "lower", "upper", "n", "better", "scale")) {
    expect_identical(from_log[[column]], from_task[[column]], label = column)
  }
  expect_identical(from_task$estimate, s$estimate)
  expect_identical(from_task$upper, s$upper)

  # long never lost: separated battles, rated with the prior
  expect_warning(ratings <- arena_ratings(tsk, rating_options(bootstrap = 0)),
                 class = "predictivebench_warning_separated")
  expect_setequal(ratings$model, c(meta[[1]]$model, "long", "short"))
  expect_equal(ratings$battles[ratings$model == "long"], 2L)
})

test_that("failed judgements are ties or dropped; unanswered questions are unscored", {
  toy <- arena_toy()
  garbage <- baseline_chat(function(prompt) "no verdict here", name = "garbage-judge")
  scored <- function(invalid) {
    tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                      scorer = arena_scorer(toy$answers, garbage, invalid = invalid,
                                            settings = no_cache()),
                      dir = withr::local_tempdir())
    suppressWarnings(tsk$eval(solver_chat = toy$model, view = FALSE))
    tsk$get_samples()$score
  }
  expect_identical(scored("tie"), c(0.5, 0.5, 0.5))
  expect_identical(scored("drop"), c(NA_real_, NA_real_, NA_real_))

  # a question the model did not answer, or no reference answered, has no battle
  scorer <- arena_scorer(toy$answers, arena_baseline_judge("longer"), settings = no_cache())
  expect_message(
    out <- scorer(tibble::tibble(input = c("q1", "unknown"), result = c(NA, "an answer"))),
    "1 of 2 questions has no reference answer", class = "predictivebench_message_skipped"
  )
  expect_identical(out$score, c(NA_real_, NA_real_))
  expect_match(out$explanation[[1]], "No battle")
})

test_that("position_swap keeps only verdicts both orders agree on", {
  toy <- arena_toy()
  tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                    scorer = arena_scorer(toy$answers, arena_baseline_judge("first"),
                                          position_swap = TRUE, settings = no_cache()),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = toy$model, view = FALSE)
  # a judge that always prefers the first answer disagrees with itself: every battle ties
  expect_identical(tsk$get_samples()$score, c(0.5, 0.5, 0.5))
})

test_that("the arena's scorer says when it has no judge", {
  toy <- arena_toy()
  tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                    answers = toy$answers, dir = withr::local_tempdir())
  expect_error(tsk$eval(solver_chat = toy$model, view = FALSE),
               class = "predictivebench_error_argument")
  # before any answer is paid
  server <- local_fake_openai(function(body, n) "an answer")
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "Nothing was sent.", fixed = TRUE)
  expect_equal(server$count(), 0)
  expect_error(arena_scorer(answers = data.frame(x = 1)),
               class = "predictivebench_error_argument")
})

test_that("arena_summary() of battles gives each model's win rate", {
  battles <- data.frame(model_a = c("a", "a", "b"), model_b = c("b", "c", "c"),
                        winner = c("model_a", "tie", "model_b"))
  s <- arena_summary(battles)
  expect_true(all(c("group", "metric", "estimate", "lower", "upper", "n") %in% names(s)))
  expect_equal(s$estimate[s$group == "a"], 0.75)
})

test_that("the bundled sample: arena_task() with the sample's reference answers", {
  tsk <- arena_task(arena_dataset(version = "sample"),
                    solver = arena_solver(settings = no_cache()),
                    judge = arena_baseline_judge("longer"), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat(function(q) "It depends."), view = FALSE)
  score <- tsk$get_samples()$score
  expect_type(score, "double")
  expect_true(all(score >= 0 & score <= 1))
  expect_equal(arena_summary(tsk)$group[-1],
               paste("vs", sort(c("careful-model", "quick-model", "wordy-model", "echo-model"))))
})

test_that("prepare_arena() writes the question table as parquet, without Python", {
  src <- file.path(predictivebench:::arena_sample_dir(), "data", "sample", "questions.csv")
  out <- withr::local_tempfile(fileext = ".parquet")
  prepare_arena(src, out)
  table <- arena_dataset(out)
  expect_equal(table, arena_dataset(src))
  # Blank lines, quoted commas and a field spanning lines, as pandas writes them.
  odd <- withr::local_tempfile(fileext = ".csv")
  writeLines(c(',question', '0,"b, with comma"', '', '1,a', '2,"b, with comma"',
               '3,"multi', 'line"', '4,""'), odd)
  expect_equal(prepare_arena(odd)$input, c("b, with comma", "a", "multi\nline", ""))
  expect_equal(arena_dataset(odd)$occurrences, c(2L, 1L, 1L, 1L))
  expect_equal(arena_dataset(odd)$first_row, c(1L, 2L, 4L, 5L))
})


test_that("arena_dataset() takes part of the table like every benchmark", {
  ds <- arena_dataset(version = "sample")
  expect_equal(arena_dataset(version = "sample", limit = 3), ds[1:3, ])
  shuffled <- arena_dataset(version = "sample", shuffle = 2)
  expect_setequal(shuffled$input, ds$input)
  expect_equal(arena_dataset(version = "sample", limit = 2, shuffle = 2), shuffled[1:2, ])
})



test_that("request settings given to $eval() reach the arena's solver", {
  toy <- arena_toy()
  server <- local_fake_openai(function(body, n) "medium answer")
  tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                    scorer = arena_scorer(toy$answers, arena_baseline_judge("longer"),
                                          settings = no_cache()),
                    dir = withr::local_tempdir())
  cache <- withr::local_tempdir()
  tsk$eval(solver_chat = fake_chat(server, model = "candidate-lm"), cache = cache,
           view = FALSE)
  expect_equal(server$count(), 3)
  first <- tsk$get_samples()$score
  # the solver's settings said no cache; $eval(cache = ) overrides it
  tsk$eval(solver_chat = fake_chat(server, model = "candidate-lm"), cache = cache,
           view = FALSE)
  expect_equal(server$count(), 3)
  expect_identical(tsk$get_samples()$score, first)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  expect_equal(tsk$get_samples()$scorer_metadata[[1]]$model, "candidate-lm")
})

test_that("prepare_arena(on_error = 'skip') leaves out ragged rows and names them", {
  odd <- withr::local_tempfile(fileext = ".csv")
  writeLines(c(',question', '0,"first"', '1,"two, fields",extra', '', '2,"multi', 'line"',
               '3', '4,"first"'), odd)
  expect_error(prepare_arena(odd), class = "predictivebench_error_csv")
  expect_warning(table <- prepare_arena(odd, on_error = "skip"),
                 class = "predictivebench_warning_skipped")
  expect_equal(table$input, c("first", "multi\nline"))
  expect_equal(table$occurrences, c(2L, 1L))
  # rows of the file as it is: the skipped rows 2 and 4 still count
  expect_equal(table$first_row, c(1L, 3L))
  # a clean file reads the same either way
  clean <- file.path(predictivebench:::arena_sample_dir(), "data", "sample", "questions.csv")
  expect_identical(prepare_arena(clean, on_error = "skip"), prepare_arena(clean))
})

test_that("with epochs, each epoch's battles count for that epoch; a question is one cluster", {
  toy <- arena_toy()
  tsk <- arena_task(toy$questions, solver = arena_solver(settings = no_cache()),
                    judge = arena_baseline_judge("longer"), answers = toy$answers,
                    epochs = 2, dir = withr::local_tempdir())
  tsk$eval(solver_chat = toy$model, view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), 6)
  expect_equal(sort(samples$score), sort(rep(c(0.5, 0.25, 1), 2)))
  s <- arena_summary(tsk)
  expect_equal(s$estimate[[1]], mean(c(0.5, 0.25, 1)))
  # the epochs of a question are one cluster: wider than six independent samples
  naive <- arena_summary(tsk, cluster = NULL)
  expect_gt(s$upper[[1]] - s$lower[[1]], naive$upper[[1]] - naive$lower[[1]])
  expect_equal(nrow(predictivebench:::arena_outcomes(tsk)), 2 * 5)
})

test_that("the task's answers and arena_answers() share the response cache", {
  toy <- arena_toy()
  server <- local_fake_openai(function(body, n) "medium answer")
  cache <- withr::local_tempdir()
  chat <- fake_chat(server, model = "candidate-lm")
  arena_answers(toy$questions$input, list(candidate = chat),
                settings = request_settings(cache = cache))
  expect_equal(server$count(), 3)
  tsk <- arena_task(toy$questions,
                    solver = arena_solver(settings = request_settings(cache = cache)),
                    judge = arena_baseline_judge("longer"), answers = toy$answers,
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server, model = "candidate-lm"), view = FALSE)
  expect_equal(server$count(), 3)
})

test_that("arena_task() without answers stops before solving when no question has one", {
  csv <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("question", "A question the sample has no answer to", "Another one"), csv)
  asked <- new.env()
  asked$n <- 0
  model <- baseline_chat(function(q) {
    asked$n <- asked$n + 1
    "an answer"
  }, name = "candidate")
  # the bundled answers cover none of these questions: a classed error that says what to pass
  err <- expect_error(arena_task(arena_dataset(csv), judge = arena_baseline_judge("longer"),
                                 dir = withr::local_tempdir()),
                      class = "predictivebench_error_answers")
  expect_match(conditionMessage(err), "None of the 2 questions has a reference answer")
  expect_match(conditionMessage(err), "arena_task(answers = )", fixed = TRUE)
  expect_match(conditionMessage(err), "q_and_as.csv", fixed = TRUE)
  expect_equal(asked$n, 0)
  toy <- arena_toy()
  expect_error(arena_task(arena_dataset(csv), answers = toy$answers),
               "in `answers`", class = "predictivebench_error_answers")
})

test_that("questions without a reference answer are unscored, and the run still logs", {
  csv <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("question", "q1", "a question nobody answered"), csv)
  toy <- arena_toy()
  tsk <- arena_task(arena_dataset(csv), solver = arena_solver(settings = no_cache()),
                    judge = arena_baseline_judge("longer"), answers = toy$answers,
                    dir = withr::local_tempdir())
  expect_message(tsk$eval(solver_chat = named_constant("medium answer", "candidate"),
                          view = FALSE),
                 "1 of 2 questions has no reference answer")
  samples <- tsk$get_samples()
  expect_identical(samples$score, c(0.5, NA))
  expect_true(file.exists(tsk$log_path))
  logged <- log_samples(tsk$log_path)
  expect_match(logged$scorer_explanation[[2]], "No battle")
  expect_identical(arena_summary(tsk$log_path), arena_summary(tsk))
})

test_that("arena_run() and arena_task() share one default response cache: an answer paid in one is not paid again in the other", {
  cache <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = cache)
  server <- local_fake_openai(function(body, n) paste(body$model, "answers", last_user_text(body)))
  questions <- paste("Question", 1:2)
  folder <- arena_folder(questions)
  logs <- withr::local_tempdir()
  models <- list(m1 = fake_chat(server, model = "m1"), m2 = fake_chat(server, model = "m2"))
  run <- suppressMessages(arena_run(models, arena_baseline_judge(), version = "toy",
                                    elobench = folder, dir = logs,
                                    options = arena_options(experiment = "exp", strategy = "all",
                                                            ratings = rating_options(method = "elo", bootstrap = 0))))
  expect_equal(server$count(), 2 * 2)
  # the default cache is the package's, not the EloBench folder nor the log folder
  expect_false(any(grepl("[.]rds$", list.files(c(folder, logs), recursive = TRUE))))
  expect_length(list.files(file.path(cache, "responses"), recursive = TRUE), 2 * 2)
  tsk <- arena_task(arena_dataset(file.path(folder, "data", "toy", "questions.csv")),
                    judge = arena_baseline_judge(), answers = run$answers[c("question", "m2")],
                    dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server, model = "m1"), view = FALSE))
  expect_equal(server$count(), 2 * 2)
  expect_equal(tsk$get_samples()$result, run$answers$m1[match(questions, run$answers$question)])
})
