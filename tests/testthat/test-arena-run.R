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

test_that("arena_run writes EloBench's files inside dir and resumes from its caches", {
  dir <- withr::local_tempdir()
  dir.create(file.path(dir, "data", "toy"), recursive = TRUE)
  utils::write.csv(data.frame(question = c(paste("Question", 1:6), "Question 1")),
                   file.path(dir, "data", "toy", "questions.csv"), row.names = FALSE)
  counter <- new.env()
  counter$n <- 0
  answers <- new.env()
  answers$n <- 0
  models <- counting_models(answers, big = 5, mid = 3, small = 1)
  judge <- counting_judge(counter, name = "toy-judge")
  run <- arena_run(dir, "toy", "exp1", models, judge, n = 2, times = 50)
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
                    arrangement = file.path(dir, "arr.csv"), times = 0)
  expect_equal(counter$n, 6)
  expect_equal(answers$n, answered)
  expect_equal(run2$records$winner, run$records$winner)
  # Ties send the pair to another round with a new question.
  tie_judge <- baseline_chat(function(p) '{"winner": 0}', name = "tie-judge")
  # max_rounds stops it with every pair short of a decisive battle, and it says so.
  expect_warning(
    run3 <- arena_run(dir, "toy", "exp3", models, tie_judge, n = 1, max_rounds = 3,
                      times = 0),
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
                   n = 2, times = 0)
  expect_equal(nrow(run$records), 2)
  expect_true(all(run$records$winner[run$records$model_a == "tiny"] == "model_b"))
  expect_equal(run$ratings$model[[1]], "org/big-model")
})

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
    arena_run(dir, "toy", "exp", models, arena_baseline_judge(), n = 2, times = 0),
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
              arena_baseline_judge(), n = 1, max_rounds = 1, times = 0),
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
  run <- arena_run(dir, "toy", "all", models, tie_judge, strategy = "all", times = 0)
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

test_that("arena_run's argument and answer errors read well", {
  dir <- arena_folder(c("q1", "q2"))
  models <- list(big = named_constant("a long answer", "big"), mid = named_constant("m", "mid"))
  expect_snapshot(arena_run(dir, "../toy", "x", models, arena_baseline_judge()), error = TRUE)
  expect_snapshot(arena_run(dir, "toy", "a/b", models, arena_baseline_judge()), error = TRUE)
  expect_snapshot(arena_run(dir, "toy", "exp", c("ghost1", "ghost2"), arena_baseline_judge()),
                  error = TRUE, transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE))
})

test_that("one run writes one log: ratings as headline, competitors and judge, readable rows", {
  dir <- withr::local_tempdir()
  dir.create(file.path(dir, "data", "toy"), recursive = TRUE)
  utils::write.csv(data.frame(question = paste("Question", 1:6)),
                   file.path(dir, "data", "toy", "questions.csv"), row.names = FALSE)
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "toy-judge")
  # several rounds (n = 2 decisive battles per pair), one log
  run <- suppressWarnings(arena_run(dir, "toy", "exp1", models, judge, n = 2, times = 50))
  logs <- list.files(file.path(dir, "results", "exp1", "logs"), pattern = "[.]json$",
                     full.names = TRUE)
  expect_length(logs, 1)
  expect_equal(run$paths$log, logs)
  log <- log_json(logs)
  expect_equal(log$eval$metadata$benchmark, "arena_ratings")
  # the competitors are the model evaluated, the judge the scorer's model
  expect_match(log$eval$model, "big vs small vs mid", fixed = TRUE)
  expect_match(log$results$scores[[1]]$name, "toy-judge", fixed = TRUE)
  # rows: the question and both answers, then the verdict, told from model_a's side as
  # its score is
  expect_equal(length(log$samples), nrow(run$records))
  first <- log$samples[[1]]
  expect_match(first$input, "^Question:\nQuestion")
  expect_match(first$input, paste0("Answer of ", first$metadata$model_a, " \\(model_a\\)"))
  expect_match(first$messages[[2]]$content[[1]]$text, "^Verdict: ")
  for (sample in log$samples) {
    a <- sample$metadata$model_a
    b <- sample$metadata$model_b
    said <- c(`1` = "wins against", `0` = "loses to", `0.5` = "ties with")
    expect_equal(sample$scores[[1]]$answer,
                 paste(a, said[[as.character(sample$scores[[1]]$value)]], b))
    expect_match(sample$scores[[1]]$explanation,
                 paste0("The score is ", a, "'s (model_a) points: ", sample$scores[[1]]$value),
                 fixed = TRUE)
  }
  expect_inspect_valid(logs)
})

test_that("an arena run's ratings agree: run, elo_rating.csv, log headline, leaderboard", {
  dir <- arena_folder(paste("Question", 1:6))
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
  run <- suppressWarnings(arena_run(dir, "toy", "elo", models, judge, n = 2, times = 30))
  agree(run, arena_ratings(run$records, method = "elo", bootstrap = 30))
  expect_true(all(abs(run$ratings$rating - 1000) < 50))
  # Bradley-Terry on perfectly separated pairs: finite ratings from the prior, a warning
  expect_warning(
    run_bt <- suppressWarnings(arena_run(dir, "toy", "bt", models, judge, n = 2,
                                         method = "bt", times = 30),
                               classes = "predictivebench_warning_short_pairs"),
    class = "predictivebench_warning_separated"
  )
  bt <- suppressWarnings(arena_ratings(run_bt$records, bootstrap = 30),
                         classes = "predictivebench_warning_separated")
  agree(run_bt, bt)
  expect_true(all(abs(bt$rating - 1000) < 600))
  expect_equal(bt$model, c("big", "mid", "small"))
})

test_that("arena_run with eight long real model ids completes and writes its log; names stay portable", {
  dir <- arena_folder(paste("Question", 1:3))
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
  run <- suppressWarnings(arena_run(dir, "toy", "eight-models", models, judge, n = 1,
                                    max_rounds = 1, times = 0))
  expect_equal(counter$n, choose(8, 2))
  expect_true(file.exists(run$paths$log))
  expect_equal(nrow(run$ratings), 8)
  made <- list.files(dir, recursive = TRUE, include.dirs = TRUE, all.files = TRUE)
  names <- unique(unlist(strsplit(made, "/", fixed = TRUE)))
  expect_true(all(nchar(names, type = "bytes") <= 255))
  expect_false(any(grepl(" ", names)))
  expect_lte(nchar(basename(run$paths$log), type = "bytes"), 255)
  # the judge's cache folder is named from its model id, portably
  expect_false(any(grepl(":", list.files(file.path(dir, "tempcache", "toy")))))
})

test_that("a folder name that can't be made is refused before anything is paid", {
  dir <- arena_folder(c("q1", "q2"))
  counter <- new.env()
  counter$n <- 0
  models <- list(a = named_constant("x", "a"), b = named_constant("yy", "b"))
  err <- expect_error(arena_run(dir, "toy", strrep("e", 230), models, counting_judge(counter)),
                      class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "at most 200 bytes")
  expect_error(arena_run(dir, "toy", "tab\there", models, counting_judge(counter)),
               class = "predictivebench_error_path")
  expect_equal(counter$n, 0)
  expect_false(dir.exists(file.path(dir, "results")))
})

test_that("with cache = FALSE nothing is cached: a rerun sends every request again", {
  dir <- arena_folder(paste("Question", 1:4))
  judged <- new.env()
  judged$n <- 0
  asked <- new.env()
  asked$n <- 0
  models <- counting_models(asked, big = 5, small = 1)
  settings <- request_settings(cache = FALSE)
  run1 <- arena_run(dir, "toy", "first", models, counting_judge(judged), n = 2,
                    times = 0, settings = settings)
  first <- c(asked = asked$n, judged = judged$n)
  expect_gt(first[["asked"]], 0)
  expect_gt(first[["judged"]], 0)
  run2 <- arena_run(dir, "toy", "first", models, counting_judge(judged), n = 2,
                    times = 0, settings = settings, strategy = "reload")
  expect_equal(c(asked = asked$n, judged = judged$n), 2 * first)
  # no answer, verdict or response cache anywhere; the results are written
  expect_false(dir.exists(file.path(dir, "tempcache")))
  expect_true(file.exists(file.path(dir, "results", "first", "elo_rating.csv")))
  expect_equal(nrow(run2$records), nrow(run1$records))
  expect_false(settings$cache)
  expect_true(settings$wait)

  # with the default settings the same rerun sends nothing
  dir2 <- arena_folder(paste("Question", 1:4))
  arena_run(dir2, "toy", "first", models, counting_judge(judged), n = 2, times = 0)
  before <- c(asked = asked$n, judged = judged$n)
  arena_run(dir2, "toy", "first", models, counting_judge(judged), n = 2, times = 0,
            strategy = "reload")
  expect_equal(c(asked = asked$n, judged = judged$n), before)
})

test_that("the questions can be a table (dataset), and version names the data", {
  dir <- withr::local_tempdir()
  models <- list(big = named_constant("a long and careful answer", "big"),
                 small = named_constant("short", "small"))
  questions <- tibble::tibble(id = c("a", "b", "c"), input = paste("Question", 1:3))
  run <- arena_run(dir, "mine", "exp", models, arena_baseline_judge("longer"), n = 1,
                   times = 0, dataset = questions, prompt_version = "231113")
  expect_equal(read.csv(file.path(dir, "results", "exp", "questions.csv"))$question,
               questions$input)
  expect_true(dir.exists(file.path(dir, "tempcache", "mine")))
  expect_match(list.files(file.path(dir, "tempcache", "mine")), "231113")
  expect_equal(run$ratings$model[[1]], "big")
  # an old call, with the judge prompt version where the data version now goes
  err <- expect_error(arena_run(dir, "231113", "exp", models, arena_baseline_judge()),
                      class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "prompt_version")
  expect_error(arena_run(dir, "mine", "exp", models, arena_baseline_judge(),
                         dataset = data.frame(text = "q")),
               class = "predictivebench_error_argument")
})
