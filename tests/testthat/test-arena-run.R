# A fake OpenAI-compatible server for arena runs: the chat of model "judge" always prefers
# the first answer (a decisive verdict); every other model answers with its name three times.
local_arena_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    if (identical(body$model, "judge")) return('{"winner": 1, "explanation": "The first."}')
    paste(rep(body$model, 3), collapse = " ")
  }, .local_envir = .local_envir)
}

# The model of each request the server got, in arrival order.
requested_models <- function(server) {
  vapply(server$requests(), function(body) body$model, "")
}

# ellmer::chat() replaced by `chat` until the calling test ends (testthat 3.1.6 here has no
# local_mocked_bindings()).
local_ellmer_chat <- function(chat, env = parent.frame()) {
  ns <- asNamespace("ellmer")
  old <- get("chat", envir = ns)
  locked <- bindingIsLocked("chat", ns)
  if (locked) unlockBinding("chat", ns)
  assign("chat", chat, envir = ns)
  withr::defer({
    assign("chat", old, envir = ns)
    if (locked) lockBinding("chat", ns)
  }, envir = env)
}

# The files under `dir`, relative to it (lock files aside).
files_in <- function(dir) {
  files <- list.files(dir, recursive = TRUE, all.files = TRUE)
  files[!grepl("[.]lock$", files)]
}

# Chats that answer with their name `words` times, counting the questions in `counter$n`.
counting_models <- function(counter, ...) {
  words <- list(...)
  Map(function(name, n) {
    baseline_chat(function(q) {
      counter$n <- counter$n + 1
      paste(rep(name, n), collapse = " ")
    }, name = name)
  }, names(words), words)
}

test_that("arena_run with elobench writes EloBench's files there, its log in dir, and resumes from the response cache", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_arena_server()
  folder <- arena_folder(c(paste("Question", 1:6), "Question 1"))
  logs <- withr::local_tempdir()
  models <- list(big = fake_chat(server, "big"), mid = fake_chat(server, "mid"),
                 small = fake_chat(server, "small"))
  judge <- fake_chat(server, "judge")
  run <- arena_run(models, judge, version = "toy", elobench = folder, dir = logs,
                   options = arena_options(experiment = "exp1", n = 2,
                                           ratings = rating_options(method = "elo",
                                                                    bootstrap = 50)))
  results <- file.path(folder, "results", "exp1")
  expect_setequal(list.files(results),
                  c("questions.csv", "models.csv", "battle_arrangement.csv",
                    "battle_records.csv", "battle_outcomes.csv", "elo_rating.csv"))
  expect_equal(run$paths[c("questions", "models", "arrangement", "records", "outcomes",
                           "ratings")],
               list(questions = file.path(results, "questions.csv"),
                    models = file.path(results, "models.csv"),
                    arrangement = file.path(results, "battle_arrangement.csv"),
                    records = file.path(results, "battle_records.csv"),
                    outcomes = file.path(results, "battle_outcomes.csv"),
                    ratings = file.path(results, "elo_rating.csv")))
  expect_equal(read.csv(file.path(results, "questions.csv"))$question, paste("Question", 1:6))
  expect_equal(read.csv(file.path(results, "models.csv"))$model, c("big", "mid", "small"))
  expect_named(arena_read_battles(file.path(results, "battle_outcomes.csv")),
               c("model_a", "model_b", "winner"))
  expect_named(arena_read_battles(file.path(results, "battle_records.csv")),
               predictivebench:::battle_record_columns)
  ratings <- read.csv(file.path(results, "elo_rating.csv"), check.names = FALSE)
  expect_equal(names(ratings)[-1], c("model", "elo_rating", "rank"))
  expect_equal(arena_read_ratings(file.path(results, "elo_rating.csv"))$rank,
               run$ratings$rank)
  expect_equal(nrow(run$records), 6)
  expect_true(all(run$records$winner == "model_a"))
  # EloBench's caches, one per data version: every answer by model name, every verdict
  tempcache <- file.path(folder, "tempcache", "toy")
  expect_setequal(files_in(tempcache), c("q_and_as.csv", "battle_records.csv"))
  exported <- arena_read_answers(file.path(tempcache, "q_and_as.csv"))
  expect_named(exported, c("question", "big", "mid", "small"))
  expect_equal(exported$question, paste("Question", 1:6))
  asked <- unique(run$arrangement$question)
  expect_equal(exported$big[exported$question %in% asked], rep("big big big", length(asked)))
  expect_true(all(is.na(exported$small[!exported$question %in% asked])))
  expect_equal(nrow(arena_read_battles(file.path(tempcache, "battle_records.csv"))), 6)
  # the log goes to `dir`, not into the EloBench folder
  expect_equal(files_in(logs), basename(run$paths$log))
  expect_equal(normalizePath(dirname(run$paths$log)), normalizePath(logs))
  expect_false(any(grepl("[.]json$", files_in(folder))))
  # every answer and verdict was requested once
  sent <- requested_models(server)
  expect_equal(sum(sent == "judge"), 6)
  expect_equal(as.vector(table(sent[sent != "judge"])), rep(length(asked), 3))

  # A second run (another experiment) resumes from the response cache: nothing is sent
  # again, and it arrives at the same battles.
  before <- server$count()
  run2 <- arena_run(models, judge, version = "toy", elobench = folder, dir = logs,
                    options = arena_options(experiment = "exp2", n = 2,
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 50)))
  expect_equal(server$count(), before)
  expect_equal(run2$arrangement, run$arrangement)
  expect_equal(run2$records$winner, run$records$winner)
  expect_true(all(vapply(log_samples(run2$paths$log)$scorer_metadata, `[[`, TRUE, "cached")))
  # the same battles reloaded from the first experiment's arrangement: nothing sent either
  run3 <- arena_run(models, judge, version = "toy", elobench = folder, dir = logs,
                    options = arena_options(experiment = "exp3", strategy = "reload", arrangement = file.path(results, "battle_arrangement.csv"),
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 0)))
  expect_equal(server$count(), before)
  expect_equal(run3$records[c("model_a", "model_b", "question", "winner")],
               run$records[c("model_a", "model_b", "question", "winner")])
  expect_length(list.files(logs, pattern = "[.]json$"), 3)
  # exporting again merges: the files hold each answer and verdict once
  expect_equal(nrow(arena_read_battles(file.path(tempcache, "battle_records.csv"))), 6)
  expect_equal(arena_read_answers(file.path(tempcache, "q_and_as.csv")), exported)

  # Baseline chats are answered offline and never cached: a rerun asks them again.
  counter <- new.env()
  counter$n <- 0
  offline <- counting_models(counter, big = 5, small = 1)
  toy <- data.frame(question = paste("Question", 1:6))
  arena_run(offline, judge, dataset = toy, dir = logs,
            options = arena_options(n = 1, ratings = rating_options(method = "elo", bootstrap = 0)))
  first <- counter$n
  expect_gt(first, 0)
  arena_run(offline, judge, dataset = toy, dir = logs,
            options = arena_options(n = 1, ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(counter$n, 2 * first)
})

test_that("a run's log can go inside the EloBench folder, and without elobench only the log is written", {
  folder <- arena_folder(paste("Question", 1:3))
  models <- list(big = named_constant("a long answer", "big"),
                 small = named_constant("s", "small"))
  run <- arena_run(models, arena_baseline_judge(), version = "toy", elobench = folder,
                   dir = file.path(folder, "logs"),
                   options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(normalizePath(dirname(run$paths$log)), normalizePath(file.path(folder, "logs")))
  expect_true(file.exists(run$paths$ratings))

  logs <- withr::local_tempdir()
  wd <- withr::local_tempdir()
  withr::local_dir(wd)
  run <- arena_run(models, arena_baseline_judge(),
                   dataset = data.frame(question = paste("Question", 1:3)), dir = logs,
                   options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(files_in(logs), basename(run$paths$log))
  expect_named(run$paths, "log")
  expect_length(files_in(wd), 0)
  expect_equal(run$ratings$model[[1]], "big")
  expect_named(run$answers, c("question", "big", "small"))
})

test_that("models known only by their answers come as `answers`: a table or a q_and_as.csv", {
  folder <- withr::local_tempdir()
  dir.create(file.path(folder, "data", "old"), recursive = TRUE)
  dir.create(file.path(folder, "tempcache", "old"), recursive = TRUE)
  utils::write.csv(data.frame(question = c("q1", "q2")),
                   file.path(folder, "data", "old", "questions.csv"), row.names = FALSE)
  # the original's answer file (row names as its index), with a model id as a column
  old <- data.frame(question = c("q1", "q2"), `org/big-model` = c("long answer one", "long two"),
                    tiny = c("a", "b"), check.names = FALSE)
  path <- file.path(folder, "tempcache", "old", "q_and_as.csv")
  utils::write.csv(old, path)
  run <- arena_run(list(), arena_baseline_judge(), version = "old", answers = path,
                   elobench = folder, dir = withr::local_tempdir(),
                   options = arena_options(experiment = "exp", n = 2,
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(nrow(run$records), 2)
  expect_true(all(run$records$winner[run$records$model_a == "tiny"] == "model_b"))
  expect_equal(run$ratings$model[[1]], "org/big-model")
  expect_equal(read.csv(run$paths$models)$model, c("org/big-model", "tiny"))
  # no chat: nothing to export, and the answer file is left as it was
  expect_equal(utils::read.csv(path, check.names = FALSE)[-1], old)

  # a table, its columns chosen, beside a chat: the chat answers, the table's models do not
  counter <- new.env()
  counter$n <- 0
  chat <- counting_models(counter, mid = 2)
  run2 <- arena_run(chat, arena_baseline_judge(), dataset = old["question"],
                    answers = old[c("question", "org/big-model")], dir = withr::local_tempdir(),
                    options = arena_options(strategy = "all",
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 0)))
  expect_equal(counter$n, 2)
  expect_setequal(c(run2$records$model_a, run2$records$model_b), c("mid", "org/big-model"))
  expect_named(run2$answers, c("question", "mid", "org/big-model"))
  expect_equal(run2$answers$`org/big-model`, old$`org/big-model`)
  # a chat and a column of `answers` can't share a name
  expect_error(arena_run(list(tiny = chat$mid), arena_baseline_judge(), dataset = old["question"],
                         answers = old, dir = withr::local_tempdir()),
               class = "predictivebench_error_argument")
})

test_that("a later run takes an earlier run's exported answers as `answers`, paying nothing again", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_arena_server()
  folder <- arena_folder(paste("Question", 1:4))
  models <- list(big = fake_chat(server, "big"), small = fake_chat(server, "small"))
  run <- arena_run(models, fake_chat(server, "judge"), version = "toy", elobench = folder,
                   dir = withr::local_tempdir(),
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  sent <- server$count()
  expect_equal(sent, 2 * 4 + 4)
  answers <- file.path(folder, "tempcache", "toy", "q_and_as.csv")
  again <- arena_run(list(), fake_chat(server, "judge"), version = "toy", answers = answers,
                     elobench = folder, dir = withr::local_tempdir(),
                     options = arena_options(experiment = "from-answers", strategy = "all",
                                             ratings = rating_options(method = "elo",
                                                                      bootstrap = 0)))
  # the same answers in the same battles: the judge's requests are the same, and cached
  expect_equal(server$count(), sent)
  expect_equal(again$records$winner, run$records$winner)
  expect_equal(again$answers, run$answers)
})

test_that("an answers model with no answer to the questions is an error, not an empty run", {
  folder <- arena_folder(c("q1", "q2"))
  logs <- withr::local_tempdir()
  ghosts <- data.frame(question = c("other", "another"), ghost1 = c("x", NA), ghost2 = NA)
  err <- tryCatch(arena_run(list(), arena_baseline_judge(), version = "toy", answers = ghosts,
                            elobench = folder, dir = logs),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_answers")
  expect_match(conditionMessage(err), "ghost1")
  expect_match(conditionMessage(err), "ghost2")
  # a chat and an answers model with answers only to other questions: the same, naming the
  # file it read
  path <- file.path(withr::local_tempdir(), "q_and_as.csv")
  predictivebench:::write_answers(tibble::tibble(question = "not registered", ghost1 = "x"),
                                  path)
  counter <- new.env()
  counter$n <- 0
  err <- tryCatch(arena_run(counting_models(counter, real = 1), arena_baseline_judge(),
                            version = "toy", answers = path, elobench = folder, dir = logs,
                            options = arena_options(experiment = "exp")),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_answers")
  expect_match(conditionMessage(err), "ghost1")
  expect_false(grepl("real", conditionMessage(err)))
  expect_equal(err$file, path)
  expect_equal(counter$n, 0)
  # refused before any file is written: the results folder and the log folder stay empty
  expect_false(dir.exists(file.path(folder, "results")))
  expect_length(files_in(logs), 0)
})

test_that("models are chats or provider/model strings, in a list or a character vector", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_arena_server()
  # a "provider/model" string becomes ellmer::chat(string): here one at the fake server
  local_ellmer_chat(function(name, ...) fake_chat(server, sub(".*/", "", name)))
  questions <- data.frame(question = paste("Question", 1:2))
  run <- arena_run(c("openai/big", "openai/small"), "openai/judge", dataset = questions,
                   dir = withr::local_tempdir(),
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_named(run$answers, c("question", "openai/big", "openai/small"))
  expect_equal(run$answers$`openai/big`, rep("big big big", 2))
  expect_setequal(run$ratings$model, c("openai/big", "openai/small"))
  expect_equal(sort(unique(requested_models(server))), c("big", "judge", "small"))
  # a list: names name the models; else the string, or the chat's model
  run2 <- arena_run(list(large = "openai/big", fake_chat(server, "small")), "openai/judge",
                    dataset = questions, dir = withr::local_tempdir(),
                    options = arena_options(strategy = "all",
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 0)))
  expect_named(run2$answers, c("question", "large", "small"))
  expect_equal(run2$answers$large, run$answers$`openai/big`)
})

test_that("the questions come from `dataset` or `version`, and an arena without either is refused", {
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("a long and careful answer", "big"),
                 small = named_constant("short", "small"))
  # a table of questions (`input`, as arena_dataset() gives), with EloBench files under the
  # version named (or "custom")
  folder <- withr::local_tempdir()
  questions <- tibble::tibble(id = c("a", "b", "c"), input = paste("Question", 1:3))
  run <- arena_run(models, arena_baseline_judge("longer"), dataset = questions, version = "mine",
                   elobench = folder, dir = logs,
                   options = arena_options(experiment = "exp", prompt_version = "231113",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(read.csv(run$paths$questions)$question, questions$input)
  expect_setequal(list.files(file.path(folder, "tempcache", "mine")),
                  c("q_and_as.csv", "battle_records.csv"))
  expect_false(dir.exists(file.path(folder, "data")))
  expect_equal(run$ratings$model[[1]], "big")
  run <- arena_run(models, arena_baseline_judge("longer"), dataset = questions, elobench = folder,
                   dir = logs,
                   options = arena_options(experiment = "custom",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_true(dir.exists(file.path(folder, "tempcache", "custom")))
  # the bundled sample by its version, copied into the EloBench folder
  sample <- arena_dataset(version = "sample")
  run <- arena_run(models, arena_baseline_judge("longer"), version = "sample", dir = logs,
                   options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_setequal(run$answers$question, sample$input)
  run <- arena_run(models, arena_baseline_judge("longer"), version = "sample", elobench = folder,
                   dir = logs,
                   options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(arena_read_questions(file.path(folder, "data", "sample", "questions.csv")),
               unique(sample$input))
  # neither: a classed error before anything is asked
  err <- expect_error(arena_run(models, arena_baseline_judge(), dir = logs),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "dataset")
  expect_match(conditionMessage(err), "version")
  # a version with no questions anywhere; an old call's judge prompt version as the version
  expect_error(arena_run(models, arena_baseline_judge(), version = "toy", dir = logs),
               class = "predictivebench_error_path")
  err <- expect_error(arena_run(models, arena_baseline_judge(), version = "231113",
                                elobench = folder, dir = logs),
                      class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "prompt_version")
  expect_error(arena_run(models, arena_baseline_judge(), dataset = data.frame(text = "q"),
                         dir = logs),
               class = "predictivebench_error_argument")
})

test_that("pairs left short are named: no question left, or no battle in a round", {
  logs <- withr::local_tempdir()
  questions <- data.frame(question = c("q1", "q2", "q3"))
  # `few` has an answer to q1 only, so its pairs can meet once.
  few <- data.frame(question = c("q1", "q2", "q3"), few = c("f", NA, NA))
  models <- list(big = named_constant("a long answer", "big"),
                 mid = named_constant("mid", "mid"))
  warnings <- list()
  run <- withCallingHandlers(
    arena_run(models, arena_baseline_judge(), dataset = questions, answers = few, dir = logs,
              options = arena_options(n = 2,
                                      ratings = rating_options(method = "elo", bootstrap = 0))),
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
  expect_true(all(run$records$question[run$records$model_a == "few" |
                                         run$records$model_b == "few"] == "q1"))
  # A model whose every answer fails: its pairs get no battle in the round, and say so.
  broken <- baseline_chat(function(q) stop("down"), name = "broken")
  classes <- character()
  run2 <- withCallingHandlers(
    arena_run(list(big = models$big, broken = broken, mid = models$mid), arena_baseline_judge(),
              dataset = questions[1:2, , drop = FALSE], dir = logs,
              options = arena_options(n = 1, max_rounds = 1,
                                      ratings = rating_options(method = "elo", bootstrap = 0))),
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
  # Ties send a pair to another round with a new question, until max_rounds.
  tie_judge <- baseline_chat(function(p) '{"winner": 0}', name = "tie-judge")
  expect_warning(
    run3 <- arena_run(models, tie_judge, dataset = data.frame(question = paste("Q", 1:6)),
                      dir = logs,
                      options = arena_options(n = 1, max_rounds = 3,
                                              ratings = rating_options(method = "elo",
                                                                       bootstrap = 0))),
    class = "predictivebench_warning_short_pairs"
  )
  expect_equal(run3$rounds, 3)
  expect_equal(nrow(run3$records), 3)
  expect_equal(anyDuplicated(run3$records$question), 0L)
  expect_true(all(run3$records$winner == "tie"))
})

test_that("arena_run with strategy 'all': every pair on every question, in one round", {
  folder <- arena_folder(c("q1", "q2", "q1", "q3"))
  models <- list(big = named_constant("a long answer", "big"),
                 mid = named_constant("mid", "mid"), small = named_constant("s", "small"))
  tie_judge <- baseline_chat(function(p) '{"winner": 0}', name = "tie-judge")
  run <- arena_run(models, tie_judge, version = "toy", elobench = folder,
                   dir = withr::local_tempdir(),
                   options = arena_options(experiment = "all", strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
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

test_that("strategy 'reload' judges the arrangement given, as a table or a file", {
  logs <- withr::local_tempdir()
  questions <- data.frame(question = c("q1", "q2", "q3"))
  models <- list(big = named_constant("a long answer", "big"),
                 mid = named_constant("mid", "mid"), small = named_constant("s", "small"))
  arrangement <- tibble::tibble(question = c("q2", "q3", "q3"), model_a = c("big", "mid", "small"),
                                model_b = c("small", "big", "mid"))
  run <- arena_run(models, arena_baseline_judge("longer"), dataset = questions, dir = logs,
                   options = arena_options(strategy = "reload", arrangement = arrangement,
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(run$rounds, 1)
  expect_equal(run$arrangement, arrangement)
  expect_equal(run$records[c("question", "model_a", "model_b")], arrangement)
  expect_equal(run$records$winner, c("model_a", "model_b", "model_b"))
  # only the questions arranged are answered
  expect_equal(run$answers$big, c(NA, "a long answer", "a long answer"))
  path <- file.path(withr::local_tempdir(), "battle_arrangement.csv")
  predictivebench:::write_arena_csv(arrangement, path)
  again <- arena_run(models, arena_baseline_judge("longer"), dataset = questions, dir = logs,
                     options = arena_options(strategy = "reload", arrangement = path,
                                             ratings = rating_options(method = "elo",
                                                                      bootstrap = 0)))
  battle <- c("question", "model_a", "model_b", "answer_a", "answer_b", "winner")
  expect_equal(again$records[battle], run$records[battle])
  # nothing to reload, or an arrangement naming another model
  expect_error(arena_run(models, arena_baseline_judge(), dataset = questions, dir = logs,
                         options = arena_options(strategy = "reload")),
               class = "predictivebench_error_argument")
  expect_error(arena_run(models[1:2], arena_baseline_judge(), dataset = questions, dir = logs,
                         options = arena_options(strategy = "reload", arrangement = arrangement)),
               class = "predictivebench_error_model")
})

test_that("arena_run's argument and answer errors read well", {
  dir <- withr::local_tempdir()
  folder <- arena_folder(c("q1", "q2"))
  models <- list(big = named_constant("a long answer", "big"), mid = named_constant("m", "mid"))
  judge <- arena_baseline_judge()
  expect_snapshot(arena_run(models, judge, version = "../toy", dir = dir), error = TRUE)
  expect_snapshot(arena_run(models, judge, version = "toy", elobench = folder, dir = dir,
                            options = arena_options(experiment = "a/b")), error = TRUE)
  expect_snapshot(arena_run(models, judge, dir = dir), error = TRUE)
  expect_snapshot(arena_run(models["big"], judge, version = "sample", dir = dir),
                  error = TRUE)
  expect_snapshot(arena_run(list(big = models$big, ghost = NULL), judge, version = "sample",
                            dir = dir), error = TRUE)
  path <- file.path(dir, "q_and_as.csv")
  predictivebench:::write_answers(
    tibble::tibble(question = "another question", ghost1 = "x", ghost2 = "y"), path
  )
  expect_snapshot(arena_run(list(), judge, version = "toy", elobench = folder,
                            answers = path, dir = dir),
                  error = TRUE, transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE))
  expect_snapshot(arena_run(models, judge, version = "sample", dir = dir,
                            options = arena_options(strategy = "reload")),
                  error = TRUE)
})

test_that("an arena run's ratings agree: run, elo_rating.csv, log headline, leaderboard", {
  folder <- arena_folder(paste("Question", 1:6))
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  judge <- arena_baseline_judge("longer")
  agree <- function(run, ratings) {
    csv <- arena_read_ratings(run$paths$ratings)
    expect_equal(csv$elo_rating[match(ratings$model, csv$model)], ratings$rating,
                 tolerance = 1e-12)
    expect_equal(run$ratings$rating, ratings$rating)
    log <- log_json(run$paths$log)
    metrics <- log$results$scores[[1]]$metrics
    expect_setequal(names(metrics), ratings$model)
    for (m in ratings$model) {
      expect_identical(as.double(metrics[[m]]$value), ratings$rating[ratings$model == m])
    }
    # the board: one row per competitor, as a model, with the same ratings and intervals
    board <- leaderboard(run$paths$log)
    expect_setequal(board$model, ratings$model)
    expect_equal(unique(board$metric), "rating")
    expect_equal(unique(board$scale), "Elo")
    at <- match(ratings$model, board$model)
    expect_identical(board$estimate[at], ratings$rating)
    expect_identical(board$lower[at], ratings$lower)
    expect_identical(board$upper[at], ratings$upper)
    expect_identical(board$n[at], ratings$battles)
    # the same from the samples of the log (no header headline) as from the header
    from_samples <- suppressWarnings(arena_rating_rows(run$paths$log),
                                     classes = "predictivebench_warning_separated")
    expect_identical(from_samples$estimate[match(ratings$model, from_samples$group)],
                     ratings$rating)
  }
  # EloBench's online Elo, the default
  run <- suppressWarnings(arena_run(models, judge, version = "toy", elobench = folder, dir = logs,
                                    options = arena_options(experiment = "elo", n = 2,
                                                            ratings = rating_options(method = "elo", bootstrap = 30))))
  agree(run, arena_ratings(run$records, rating_options(method = "elo", bootstrap = 30)))
  expect_true(all(abs(run$ratings$rating - 1000) < 50))
  # Bradley-Terry on perfectly separated pairs: finite ratings from the prior, a warning
  expect_warning(
    run_bt <- suppressWarnings(arena_run(models, judge, version = "toy", elobench = folder,
                                         dir = logs,
                                         options = arena_options(experiment = "bt", n = 2,
                                                                 ratings = rating_options(method = "bt", bootstrap = 30))),
                               classes = "predictivebench_warning_short_pairs"),
    class = "predictivebench_warning_separated"
  )
  bt <- suppressWarnings(arena_ratings(run_bt$records, rating_options(bootstrap = 30)),
                         classes = "predictivebench_warning_separated")
  agree(run_bt, bt)
  expect_true(all(abs(bt$rating - 1000) < 600))
  expect_equal(bt$model, c("big", "mid", "small"))
})

test_that("arena_run with eight long real model ids completes: names go into no folder name", {
  folder <- arena_folder(paste("Question", 1:3))
  logs <- withr::local_tempdir()
  ids <- c("meta-llama/Llama-3.3-70B-Instruct-Turbo-Free",
           "anthropic/claude-3-7-sonnet-20250219:thinking",
           "accounts/fireworks/models/deepseek-r1-distill-llama-70b",
           "mistralai/Mixtral-8x22B-Instruct-v0.1 (via Together AI)",
           "Qwen/Qwen2.5-72B-Instruct-Turbo@2024-11-01",
           "google/gemini-2.0-flash-thinking-exp-01-21",
           "nvidia/Llama-3.1-Nemotron-70B-Instruct-HF-hf-endpoint",
           "openai/gpt-4o-2024-11-20:online-with-web-search-preview")
  models <- stats::setNames(lapply(seq_along(ids), function(i) {
    named_constant(strrep("word ", i), ids[[i]])
  }), ids)
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "bedrock/us.anthropic.claude-3-5-sonnet-20241022-v2:0 / judge")
  run <- suppressWarnings(arena_run(models, judge, version = "toy", elobench = folder, dir = logs,
                                    options = arena_options(experiment = "eight-models", n = 1, max_rounds = 1,
                                                            ratings = rating_options(method = "elo", bootstrap = 0))))
  expect_equal(counter$n, choose(8, 2))
  expect_true(file.exists(run$paths$log))
  expect_equal(nrow(run$ratings), 8)
  expect_setequal(run$ratings$model, ids)
  expect_setequal(names(arena_read_answers(file.path(folder, "tempcache", "toy",
                                                     "q_and_as.csv"))),
                  c("question", ids))
  # the folders and files made are the layout's own, whatever the models and judge are named
  made <- c(files_in(folder), files_in(logs))
  names <- unique(unlist(strsplit(made, "/", fixed = TRUE)))
  expect_setequal(names, c("data", "toy", "questions.csv", "tempcache", "q_and_as.csv",
                           "battle_records.csv", "results", "eight-models", "models.csv",
                           "battle_arrangement.csv", "battle_outcomes.csv",
                           "elo_rating.csv", basename(run$paths$log)))
  expect_lte(nchar(basename(run$paths$log), type = "bytes"), 255)
  expect_false(grepl("[: ]", basename(run$paths$log)))
})

test_that("a folder name that can't be made is refused before anything is paid", {
  folder <- arena_folder(c("q1", "q2"))
  logs <- file.path(withr::local_tempdir(), "logs")
  counter <- new.env()
  counter$n <- 0
  models <- counting_models(counter, a = 1, b = 2)
  judge <- counting_judge(counter)
  run <- function(version = "toy", ...) {
    arena_run(models, judge, version = version, elobench = folder, dir = logs, ...)
  }
  err <- expect_error(run(experiment = strrep("e", 230)), class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "at most 200 bytes")
  expect_error(run(experiment = "tab\there"), class = "predictivebench_error_path")
  expect_error(run(experiment = "a/b"), class = "predictivebench_error_path")
  expect_error(run(version = "../toy"), class = "predictivebench_error_path")
  # a log folder or an EloBench folder that is a file
  file <- file.path(folder, "a-file")
  writeLines("x", file)
  expect_error(arena_run(models, judge, version = "toy", dir = file.path(file, "logs")),
               class = "predictivebench_error_path")
  err <- expect_error(arena_run(models, judge, version = "toy", elobench = file, dir = logs),
                      class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "elobench")
  expect_equal(counter$n, 0)
  expect_false(dir.exists(file.path(folder, "results")))
  expect_false(dir.exists(file.path(folder, "tempcache")))
  expect_false(dir.exists(logs))
})

test_that("with cache = FALSE nothing is reused: a rerun sends every request again", {
  cache <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = cache)
  server <- local_arena_server()
  folder <- arena_folder(paste("Question", 1:4))
  logs <- withr::local_tempdir()
  models <- list(big = fake_chat(server, "big"), small = fake_chat(server, "small"))
  settings <- request_settings(cache = FALSE)
  run1 <- arena_run(models, fake_chat(server, "judge"), version = "toy", elobench = folder,
                    dir = logs, settings = settings,
                    options = arena_options(experiment = "first", n = 2,
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 0)))
  first <- server$count()
  expect_equal(sum(requested_models(server) == "judge"), nrow(run1$records))
  # the EloBench folder's verdicts are exported, never read as a cache
  expect_true(file.exists(file.path(folder, "tempcache", "toy", "battle_records.csv")))
  run2 <- arena_run(models, fake_chat(server, "judge"), version = "toy", elobench = folder,
                    dir = logs, settings = settings,
                    options = arena_options(experiment = "first", n = 2, strategy = "reload",
                                            ratings = rating_options(method = "elo",
                                                                     bootstrap = 0)))
  expect_equal(server$count(), 2 * first)
  expect_equal(nrow(run2$records), nrow(run1$records))
  # no response cache anywhere; the results are written
  expect_length(files_in(cache), 0)
  expect_true(file.exists(run2$paths$ratings))
  # the settings object given is left as it was
  expect_identical(settings, request_settings(cache = FALSE))

  # with the default settings the same rerun sends nothing
  toy <- data.frame(question = paste("Question", 1:4))
  arena_run(models, fake_chat(server, "judge"), dataset = toy, dir = logs,
            options = arena_options(n = 2, ratings = rating_options(method = "elo", bootstrap = 0)))
  before <- server$count()
  arena_run(models, fake_chat(server, "judge"), dataset = toy, dir = logs,
            options = arena_options(n = 2, ratings = rating_options(method = "elo", bootstrap = 0)))
  expect_equal(server$count(), before)
})

test_that("with position_swap, EloBench's battle_records.csv holds each request's own verdict", {
  folder <- withr::local_tempdir()
  models <- list(long = named_constant("A long and careful answer.", "long"),
                 short = named_constant("Short.", "short"))
  # a judge that always prefers the first answer: each order says model_a, together a tie
  run <- suppressWarnings(suppressMessages(arena_run(models, arena_baseline_judge("first"),
                                                     dataset = data.frame(question = c("q1", "q2")),
                                                     dir = file.path(folder, "logs"),
                                                     elobench = folder, version = "toy",
                                                     options = arena_options(n = 1, strategy = "all", position_swap = TRUE,
                                                                             ratings = rating_options(method = "elo", bootstrap = 10)))))
  expect_true(all(run$records$winner == "tie"))
  exported <- arena_read_battles(file.path(folder, "tempcache", "toy", "battle_records.csv"))
  expect_equal(nrow(exported), nrow(run$records))
  expect_true(all(exported$winner == "model_a"))
  keys <- vapply(exported$gpt_4_response, function(r) jsonlite::fromJSON(r)$request_sha256, "")
  expect_false(anyDuplicated(keys) > 0)
})

test_that("each chat is asked for an answer once per question over the rounds, also without a cache", {
  b_asked <- 0
  server <- local_fake_openai(function(body, n) {
    # ties only: no pair gets a decisive battle, so every round arranges new questions
    if (identical(body$model, "judge")) return('{"winner": 0, "explanation": "Alike."}')
    if (identical(body$model, "b")) {
      b_asked <<- b_asked + 1
      # b fails its first answers: its pairs meet on those questions again in later rounds,
      # which a and c have answered already
      if (b_asked <= 3) return(list(status = 400))
    }
    paste("An answer of", body$model)
  })
  models <- list(a = fake_chat(server, "a"), b = fake_chat(server, "b"),
                 c = fake_chat(server, "c"))
  run <- suppressWarnings(arena_run(models, fake_chat(server, "judge"),
                                    dataset = data.frame(question = paste("Q", 1:6)),
                                    dir = withr::local_tempdir(),
                                    settings = request_settings(cache = FALSE, retry = list(max_tries = 1)),
                                    options = arena_options(n = 1, max_rounds = 3,
                                                            ratings = rating_options(method = "elo", bootstrap = 0))))
  expect_equal(run$rounds, 3L)
  asked <- requested_models(server)
  for (m in c("a", "c")) {
    # one request per question the model has an answer to: none asked twice
    expect_equal(sum(asked == m), sum(!is.na(run$answers[[m]])))
  }
  # b: its answers, and its three failures, each asked again in a later round
  expect_equal(sum(asked == "b"), sum(!is.na(run$answers$b)) + 3)
  expect_equal(sum(asked == "judge"), nrow(run$records))
})

test_that("a round larger than a pool's chunk is judged and logged chunk by chunk, as one", {
  questions <- data.frame(question = paste("Question", 1:5))
  models <- list(big = named_constant("big big big", "big"), small = named_constant("s", "small"),
                 mid = named_constant("mid mid", "mid"))
  judge <- arena_baseline_judge("random")
  whole <- arena_run(models, judge, dataset = questions, dir = withr::local_tempdir(),
                     options = arena_options(strategy = "all", position_swap = TRUE,
                                             ratings = rating_options(method = "elo",
                                                                      bootstrap = 20)))
  local_replace_internal("arena_chunk", function(settings) 4L)
  sent <- 0
  original <- judge_verdicts
  local_replace_internal("judge_verdicts", function(battles, ...) {
    sent <<- c(sent, nrow(battles))
    original(battles, ...)
  })
  chunked <- arena_run(models, judge, dataset = questions, dir = withr::local_tempdir(),
                       options = arena_options(strategy = "all", position_swap = TRUE,
                                               ratings = rating_options(method = "elo",
                                                                        bootstrap = 20)))
  # position_swap: two requests a battle, so 2 battles a chunk of 4 requests
  expect_equal(max(sent), 2)
  same <- setdiff(names(whole$records), "tstamp")
  expect_equal(chunked$records[same], whole$records[same])
  expect_equal(chunked$ratings, whole$ratings)
  log <- log_json(chunked$paths$log)
  ids <- vapply(log$samples, `[[`, "", "id")
  expect_equal(ids, sprintf("battle-%d", seq_len(nrow(whole$records))))
  expect_equal(unlist(log$eval$dataset$sample_ids), ids)
  expect_equal(leaderboard(chunked$paths$log)$estimate, leaderboard(whole$paths$log)$estimate)
  expect_inspect_valid(chunked$paths$log)
})

test_that("judged battles are a table of vectors, with no chat per battle", {
  battles <- sample_battles(2)
  judge <- configured_judge(arena_baseline_judge(), "231225")
  judged <- judge_verdicts(battles, judge, "231225", position_swap = TRUE,
                           settings = request_settings(cache = FALSE))
  expect_equal(nrow(judged), nrow(battles))
  expect_true(all(vapply(judged, is.atomic, TRUE)))
  # the same verdicts as judge_battles(), which hands vitals a chat per battle
  full <- judge_battles(battles, arena_baseline_judge(), position_swap = TRUE,
                        settings = request_settings(cache = FALSE))
  for (column in c("winner", "winner_ab", "winner_ba", "gpt_4_score", "gpt_4_response_text")) {
    expect_identical(judged[[column]], full[[column]], label = column)
  }
})

test_that("a run judged partly from the cache, partly at no known price, has no known cost", {
  server <- local_arena_server()
  judge <- fake_chat(server, "judge")
  models <- list(big = named_constant("big big big", "big"), small = named_constant("s", "small"))
  cache <- withr::local_tempdir()
  run <- function(n) {
    arena_run(models, judge, dataset = data.frame(question = paste("Question", seq_len(n))),
              dir = withr::local_tempdir(.local_envir = parent.frame(2)),
              settings = request_settings(cache = cache),
              options = arena_options(strategy = "all",
                                      ratings = rating_options(method = "elo", bootstrap = 20)))
  }
  first <- run(2)
  usage <- read_log_header(first$paths$log)$stats$model_usage
  expect_gt(usage[[1]]$input_tokens, 0)
  expect_null(usage[[1]]$total_cost)
  sent <- server$count()
  # two verdicts from the cache (0, known), one paid at no price: unknown, not 0
  again <- run(3)
  expect_equal(server$count(), sent + 1)
  usage <- read_log_header(again$paths$log)$stats$model_usage
  expect_gt(usage[[1]]$input_tokens, 0)
  expect_null(usage[[1]]$total_cost)
})
