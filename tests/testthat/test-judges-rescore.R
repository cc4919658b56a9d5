# rescore(): a run scored again with another judge, its answers read from its log.

# The summary of the toy benchmarks registered below: the accuracy of their scores.
toy_summary <- function(x) {
  grouped_summary(benchmark_samples(x, "score", "a toy task.")$score, metric = "accuracy")
}

# A server whose solver models answer "42" and whose judges answer by name: a model named
# "judge-true..." says "True", any other judge "False"; FutureX's numeric judge (asked for
# GROUND_TRUTH_VALUE) gives the values of a prediction off by `1` for "judge-off", exact
# otherwise.
local_judge_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("GROUND_TRUTH_VALUE", text, fixed = TRUE)) {
      pred <- if (identical(body$model, "judge-off")) "6" else "5"
      return(paste0("GROUND_TRUTH_VALUE: 5\nPREDICTION_VALUE: ", pred))
    }
    if (startsWith(body$model, "judge")) {
      return(if (startsWith(body$model, "judge-true")) "True" else "False")
    }
    "42"
  }, .local_envir = .local_envir)
}

request_models <- function(server) vapply(server$requests(), function(b) b$model, "")

md5 <- function(paths) unname(tools::md5sum(paths))

test_that("a DSBench run judged again sends only judge requests, with an empty cache", {
  server <- local_judge_server()
  dir <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(data, judge = fake_chat(server, model = "judge-true"), dir = dir)
  tsk$eval(solver_chat = fake_chat(server, model = "solver"), view = FALSE)
  old <- tsk$log_path
  before <- md5(old)
  expect_equal(sum(request_models(server) == "solver"), nrow(data))
  sent <- server$count()

  # a new, empty cache: the answers can only come from the log
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  out <- suppressMessages(rescore(old, judge = fake_chat(server, model = "judge-strict")))
  new <- request_models(server)[-seq_len(sent)]
  expect_equal(new, rep("judge-strict", nrow(data)))  # no solver request
  expect_equal(md5(old), before)                       # the old log untouched
  expect_equal(dirname(out$log), dirname(old))         # the new one beside it
  expect_equal(out$judge, "judge-strict")
  expect_equal(out$model, read_log_header(old)$eval$model)

  # the judge saw each question (recovered from the prompt), answer and the logged result
  prompts <- vapply(server$requests()[-seq_len(sent)], last_user_text, "")
  expect_setequal(prompts,
                  dsbench_judge_prompt(data$question, data$target, rep("42", nrow(data))))

  header <- expect_rescored_header(out$log, old, judge = "judge-strict")
  expect_equal(header$eval$model, read_log_header(old)$eval$model)
  expect_equal(header$eval$model_roles$grader$model, "openai_compatible/judge-strict")
  expect_match(header$eval$task, "^dsbench-judged-by-judge-strict/")

  # the same answers, other verdicts; the log holds the answers and no solver usage
  again <- log_samples(out$log)
  first <- log_samples(old)
  expect_equal(again$result, first$result)
  expect_equal(first$score, rep(1, nrow(data)))
  expect_equal(again$score, rep(0, nrow(data)))
  expect_true(all(vapply(again$solver_metadata, function(m) isTRUE(m$replayed), TRUE)))
  usage <- log_usage(out$log)
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/solver"], 0)
  expect_gt(usage$input_tokens[usage$model == "openai_compatible/judge-strict"], 0)
  expect_inspect_valid(out$log)

  # the board tells the two runs apart by their judge
  board <- leaderboard(dir)
  questions <- board[board$metric == "questions", ]
  expect_setequal(questions$judge, c("judge-true", "judge-strict"))
  expect_equal(questions$estimate[questions$judge == "judge-true"], 1)
  expect_equal(questions$estimate[questions$judge == "judge-strict"], 0)
  expect_equal(nrow(leaderboard(dir, runs = "latest")), nrow(board))
  expect_equal(dsbench_summary(out$log)$estimate[[1]], 0)
  # the two runs paired item by item: the judges disagree on every question
  cmp <- compare_models(old, out$log)
  expect_equal(cmp$difference, 1)
  expect_equal(cmp$n, nrow(data))
})

test_that("a task is rescored from its log, into another folder, and a rerun reads the cache", {
  server <- local_judge_server()
  dir <- withr::local_tempdir()
  other <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  data <- futurex_dataset(version = "sample")
  tsk <- futurex_task(data, judge = fake_chat(server, model = "judge-exact"), dir = dir)
  tsk$eval(solver_chat = fake_chat(server, model = "solver"), view = FALSE)
  sent <- server$count()
  numeric <- sum(futurex_kind(data$level, data$std) == "numeric")

  out <- suppressMessages(rescore(tsk, judge = fake_chat(server, model = "judge-off"),
                                  dir = other))
  expect_equal(request_models(server)[-seq_len(sent)], rep("judge-off", numeric))
  expect_equal(dirname(out$log), other)
  expect_equal(list.files(dir), basename(tsk$log_path))
  items <- log_samples(out$log)
  numeric_items <- items$level >= 3 & !is.na(items$std)
  expect_true(all(vapply(items$scorer_metadata[numeric_items],
                         function(m) m$normalization == "llm", TRUE)))
  expect_inspect_valid(out$log)

  # judged again by the same judge: its verdicts are in the response cache
  sent <- server$count()
  suppressMessages(rescore(tsk, judge = fake_chat(server, model = "judge-off"), dir = other))
  expect_equal(server$count(), sent)
})

test_that("a rescore over max_cost stops before paying", {
  server <- local_judge_server()
  dir <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(data, judge = baseline_chat("True", name = "lenient"), dir = dir)
  tsk$eval(solver_chat = baseline_chat("42", name = "always-42"), view = FALSE)
  files <- list.files(dir)
  # a priced judge: DSBench's judge answers in at most 256 tokens
  judge <- ellmer::chat_openai(model = "gpt-4o", base_url = server$url,
                               credentials = function() "sk-test")
  skip_if(is.null(model_price(judge)), "ellmer has no price for gpt-4o")
  err <- expect_error(rescore(dir, judge = judge, max_cost = 1e-6),
                      class = "predictivebench_error_cost")
  expect_match(cli::ansi_strip(conditionMessage(err)), "nothing was sent", fixed = TRUE)
  expect_equal(server$count(), 0)
  expect_equal(list.files(dir), files)
  # a judge without a price can't be kept under a limit
  expect_error(rescore(dir, judge = fake_chat(server, model = "judge-unpriced"),
                       max_cost = 100),
               class = "predictivebench_error_cost")
  expect_equal(server$count(), 0)
  # under the limit, it runs
  out <- suppressMessages(rescore(dir, judge = judge, max_cost = 1))
  expect_equal(server$count(), nrow(data))
  expect_equal(nrow(out), 1)
})

test_that("a benchmark without a judge is rescored with a scorer, or refused a judge", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  toy <- data.frame(id = c("a", "b", "c"), input = c("1 + 1?", "2 + 2?", "3 + 3?"),
                    target = c("2", "4", "6"), topic = c("x", "x", "y"))
  local_benchmarks(list(new_benchmark("rescore_toy", list(fn = toy_summary), data = list(
    sample = toy, schema = data.frame(name = names(toy), type = "string")))))
  exact <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
  tsk <- benchmark_task(toy, vitals::generate(), exact, dir = dir, benchmark = "rescore_toy")
  tsk$eval(solver_chat = baseline_chat(function(p) "4", name = "fours"), view = FALSE)
  expect_false(registered_benchmarks()$judged[registered_benchmarks()$name == "rescore_toy"])
  expect_error(rescore(tsk, judge = baseline_chat("True")),
               class = "predictivebench_error_no_judge")
  expect_error(rescore(tsk), class = "predictivebench_error_argument")
  expect_error(rescore(tsk, judge = baseline_chat("x"), scorer = exact),
               class = "predictivebench_error_argument")

  # the scorer gets the logged samples: answers and the dataset columns the task logged
  seen <- NULL
  lenient <- function(samples, ...) {
    seen <<- samples
    list(score = rep(1, nrow(samples)))
  }
  out <- suppressMessages(rescore(tsk$log_path, scorer = lenient))
  expect_equal(seen$result, rep("4", 3))
  expect_equal(seen$topic, toy$topic)
  expect_true(is.na(out$judge))
  expect_equal(read_log_header(out$log)$eval$metadata$rescored_with, "scorer")
  expect_equal(toy_summary(out$log)$estimate, 1)
  expect_inspect_valid(out$log)
  # a folder: a rescore is not rescored again, and a judge finds no benchmark to judge
  expect_error(suppressMessages(rescore(dir, judge = baseline_chat("True"))),
               class = "predictivebench_error_no_judge")
})

test_that("a set's folder rescored gives a board with both judges", {
  server <- local_judge_server()
  logs <- withr::local_tempdir()
  settings <- request_settings(cache = withr::local_tempdir(),
                               rpm = Inf, retry = list(max_tries = 1, backoff = 0))
  set <- suppressMessages(suppressWarnings(eval_set(
    c("dsbench@sample", "futurex@sample", "processbench@sample"),
    list(fake_chat(server, model = "m1"), fake_chat(server, model = "m2")),
    log_dir = logs, judge = fake_chat(server, model = "judge-true"),
    settings = settings, options = set_options(limit = 3))))
  expect_equal(set$status, rep("done", 6))
  before <- md5(set$log_path)
  sent <- server$count()

  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  out <- suppressMessages(rescore(logs, judge = fake_chat(server, model = "judge-b")))
  # DSBench's and FutureX's runs of both models; ProcessBench has no judge
  expect_setequal(out$benchmark, c("dsbench", "futurex"))
  expect_equal(nrow(out), 4)
  expect_true(all(request_models(server)[-seq_len(sent)] == "judge-b"))
  expect_equal(md5(set$log_path), before)

  board <- leaderboard(logs)
  ds <- board[board$benchmark == "dsbench" & board$metric == "questions", ]
  expect_equal(nrow(ds), 4)
  expect_setequal(ds$judge, c("judge-true", "judge-b"))
  expect_equal(sort(table(paste(ds$model, ds$judge))[[1]]), 1L)
  expect_true(all(is.na(board$judge[board$benchmark == "processbench"])))
  # compare_models() of the folder names each model with its judge where it has several
  cmp <- suppressMessages(compare_models(logs, benchmark = "dsbench"))
  expect_setequal(c(cmp$model_x, cmp$model_y),
                  paste0(rep(c("openai_compatible/m1", "openai_compatible/m2"), each = 2),
                         c(" [judge judge-true]", " [judge judge-b]")))
  # a second rescore of the folder leaves the rescores alone
  sent <- server$count()
  out2 <- suppressMessages(rescore(logs, judge = fake_chat(server, model = "judge-b")))
  expect_equal(nrow(out2), 4)
})

test_that("rescore() of a large judged log sends only judge requests", {
  # 100 judged samples here (10,000 in bench/rescore.R): no solver request, one judge
  # request per numeric item, with an empty cache
  server <- local_judge_server()
  dir <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  n <- 100
  data <- futurex_dataset(version = "sample")
  row <- data[futurex_kind(data$level, data$std) == "numeric", ][1, ]
  big <- row[rep(1, n), ]
  big$id <- sprintf("q%05d", seq_len(n))
  big$input <- paste(big$input, big$id)
  judge_a <- baseline_chat("GROUND_TRUTH_VALUE: 5\nPREDICTION_VALUE: 5", name = "judge-a")
  tsk <- futurex_task(big, judge = judge_a, dir = dir)
  # each answer its own, so each judge prompt is a request of its own (the numeric judge's
  # prompt holds the answer and the target, not the question)
  numbered <- baseline_chat(function(p) sprintf("\\boxed{%s}", sub(".* q", "", p)),
                            name = "solver")
  tsk$eval(solver_chat = numbered, view = FALSE)
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  out <- suppressMessages(rescore(tsk$log_path, judge = fake_chat(server, model = "judge-off")))
  expect_equal(server$count(), n)
  expect_true(all(request_models(server) == "judge-off"))
  rescored <- log_samples(out$log)
  expect_equal(nrow(rescored), n)
  expect_equal(rescored$result, sprintf("\\boxed{%05d}", seq_len(n)))
})

test_that("a benchmark of your own is rescored through its judge_scorer", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))
  # the judge answers "yes" or "no" to each answer
  judged_by <- function(judge) {
    function(samples, ...) {
      verdicts <- vapply(samples$result, function(r) judge$clone()$chat(r), "")
      list(score = as.numeric(verdicts == "yes"))
    }
  }
  judged <- function(scorer) {
    new_benchmark("rescore_judged", list(fn = toy_summary), judging = list(scorer = scorer),
                  data = list(sample = toy, schema = data.frame(name = names(toy), type = "string")))
  }
  expect_error(judged("judged_by"), class = "predictivebench_error_argument")
  local_benchmarks(list(judged(judged_by)))
  expect_true(registered_benchmarks()$judged[registered_benchmarks()$name == "rescore_judged"])
  yes_judge <- baseline_chat("yes", name = "yes-judge")
  tsk <- benchmark_task(toy, vitals::generate(), judged_by(yes_judge),
                        dir = dir, benchmark = "rescore_judged")
  tsk$eval(solver_chat = baseline_chat("4", name = "fours"), view = FALSE)
  out <- suppressMessages(rescore(tsk, judge = baseline_chat("no", name = "no-judge")))
  expect_equal(toy_summary(tsk)$estimate, 1)
  expect_equal(toy_summary(out$log)$estimate, 0)
  expect_equal(read_log_header(out$log)$eval$metadata$judge, "no-judge")
})

test_that("each epoch of a sample keeps its own answer", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  toy <- data.frame(id = c("a", "b"), input = c("same?", "same?"), target = c("1", "2"))
  local_benchmarks(list(new_benchmark("rescore_epochs", list(fn = toy_summary), data = list(
    sample = toy, schema = data.frame(name = names(toy), type = "string")))))
  exact <- function(samples, ...) list(score = as.numeric(samples$result %in% samples$target))
  # two samples with one prompt, two epochs: each answer numbered as it was asked
  asked <- 0
  counter <- baseline_chat(function(p) {
    asked <<- asked + 1
    as.character(asked)
  }, name = "counter")
  tsk <- benchmark_task(toy, generate_solver(settings = request_settings(cache = FALSE)), exact,
                        dir = dir, benchmark = "rescore_epochs",
                        epochs = 2)
  tsk$eval(solver_chat = counter, view = FALSE)
  first <- log_samples(tsk$log_path)
  seen <- NULL
  keep <- function(samples, ...) {
    seen <<- samples
    list(score = rep(1, nrow(samples)))
  }
  out <- suppressMessages(rescore(tsk$log_path, scorer = keep))
  again <- log_samples(out$log)
  expect_equal(nrow(again), 4)
  expect_equal(paste(again$id, again$epoch, again$result),
               paste(first$id, first$epoch, first$result))
  expect_equal(asked, 4)  # nothing asked again
})

test_that("a panel of judges rescores a run, named as logs name panels", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(data, judge = baseline_chat("True", name = "judge-a"), dir = dir)
  tsk$eval(solver_chat = baseline_chat("42", name = "always-42"), view = FALSE)
  panel <- list(baseline_chat("False", name = "j1"), baseline_chat("False", name = "j2"),
                baseline_chat("True", name = "j3"))
  out <- suppressMessages(rescore(tsk, judge = panel))
  expect_equal(out$judge, "panel(j1, j2, j3)")
  roles <- read_log_header(out$log)$eval$model_roles
  expect_equal(names(roles), paste0("grader_", 1:3))
  expect_equal(roles$grader_3$model, "predictivebench_baseline/j3")
  expect_equal(dsbench_summary(out$log)$estimate[[1]], 0)  # the majority says False
  board <- leaderboard(dir)
  expect_setequal(board$judge, c("judge-a", "panel(j1, j2, j3)"))
  expect_inspect_valid(out$log)
})

test_that("a panel's rescore log names the panel as its scorer and counts each judge's tokens under its model", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_judge_server()
  dir <- withr::local_tempdir()
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(data, judge = baseline_chat("True", name = "judge-a"), dir = dir)
  tsk$eval(solver_chat = baseline_chat("42", name = "always-42"), view = FALSE)
  panel <- list(fake_chat(server, "judge-true-1"), fake_chat(server, "judge-false"))
  out <- suppressMessages(rescore(tsk, judge = panel))
  header <- read_log_header(out$log)
  expect_identical(header$results$scores[[1]]$name,
                   "dsbench_score (panel(judge-true-1, judge-false))")
  asked <- table(request_models(server))
  usage <- header$stats$model_usage
  for (model in c("judge-true-1", "judge-false")) {
    label <- chat_model_label(fake_chat(server, model))
    expect_equal(usage[[label]]$input_tokens, 10 * asked[[model]])
    expect_equal(usage[[label]]$output_tokens, 5 * asked[[model]])
  }
  expect_setequal(leaderboard(out$log)$judge, "panel(judge-true-1, judge-false)")
})

test_that("rescore() says it reads the answers from the log, not that it solves", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), dir = dir,
                      judge = baseline_chat("True", name = "lenient"))
  suppressMessages(tsk$eval(solver_chat = baseline_chat("42", name = "always-42"),
                            view = FALSE))
  said <- character()
  withCallingHandlers(
    rescore(tsk, judge = baseline_chat("False", name = "strict")),
    message = function(m) {
      said <<- c(said, cli::ansi_strip(conditionMessage(m)))
      invokeRestart("muffleMessage")
    }
  )
  expect_false(any(grepl("Solving", said, fixed = TRUE)))
  expect_true(any(grepl("Reading the answers from the log", said, fixed = TRUE)))
  expect_true(any(grepl("Scoring", said, fixed = TRUE)))
})
