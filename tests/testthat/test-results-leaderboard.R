test_that("a FutureX log's header and log file give futurex_summary()'s numbers", {
  tsk <- futurex_run("\\boxed{A}", withr::local_tempdir())
  live <- suppressMessages(futurex_summary(tsk))
  log <- log_json(tsk$log_path)
  expect_identical(log$results$scores[[1]]$metrics$overall$value,
                   live$estimate[live$group == "overall"])
  expect_equal(log$results$scores[[1]]$name, "futurex_score")
  expect_identical(suppressMessages(futurex_summary(log_samples(tsk$log_path))), live)
})

test_that("leaderboard() gives each benchmark's summary per model, from tasks and logs", {
  local_arith_benchmark()
  dir <- withr::local_tempdir()
  a <- futurex_run("\\boxed{A}", dir)
  b <- futurex_run("\\boxed{B}", dir)
  arith <- arith_task(dir = withr::local_tempdir())
  arith$eval(solver_chat = baseline_constant("4"), view = FALSE)
  board <- suppressMessages(leaderboard(a, b, arith))
  expect_s3_class(board, "benchmark_leaderboard")
  expect_named(board, c("benchmark", "model", "judge", "metric", "estimate", "lower", "upper",
                        "n", "interval", "better", "scale", "truncated", "all_tied",
                        "judge_consistency", "run", "created", "source"))
  expect_equal(unique(board$better), "higher")
  expect_equal(unique(board$scale), "0-1")
  expect_equal(nrow(board), 6 + 6 + 2)
  summary_a <- suppressMessages(futurex_summary(a))
  row <- board[board$benchmark == "futurex" & board$metric == "overall", ][1, ]
  expect_identical(row$estimate, summary_a$estimate[1])
  expect_identical(row$lower, summary_a$lower[1])
  expect_identical(row$n, as.integer(summary_a$n[1]))
  arith_rows <- board[board$benchmark == "arith", ]
  arith_live <- arith_summary(arith)
  expect_identical(arith_rows$estimate,
                   arith_live$estimate[match(c("weighted", "level 1"), arith_live$group)])
  # the same runs read back from the log directory give the same numbers
  from_logs <- suppressMessages(leaderboard(dir))
  expect_equal(nrow(from_logs), 12)
  key <- function(x) x[order(x$source, x$metric), c("benchmark", "model", "metric",
                                                     "estimate", "lower", "upper", "n")]
  expect_equal(key(from_logs), key(board[board$benchmark == "futurex", ]))
})

test_that("leaderboard() names what it can't place", {
  local_arith_benchmark()
  plain <- vitals::Task$new(dataset = arith_dataset(), solver = generate_solver(settings = request_settings(cache = FALSE)),
                            scorer = arith_scorer(), dir = withr::local_tempdir())
  plain$eval(solver_chat = baseline_constant("2"), view = FALSE)
  expect_error(leaderboard(plain), class = "predictivebench_error_argument")
  expect_equal(leaderboard(arith = plain)$metric, c("weighted", "level 1"))
  expect_error(leaderboard(unknown = plain), "No benchmark")
  expect_error(leaderboard(file.path(tempdir(), "nope.json")),
               class = "predictivebench_error_missing_file")
})

test_that("a benchmark registered without a headline reports every group", {
  local_benchmarks(list(new_benchmark("arith", list(fn = arith_summary, headline = NULL,
                                                   by = "level"))))
  listed <- registered_benchmarks()
  expect_length(listed$headline[[match("arith", listed$name)]], 0)
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  groups <- arith_summary(tsk)$group
  expect_named(tsk$metrics, groups)
  expect_named(log_json(tsk$log_path)$results$scores[[1]]$metrics, groups)
  expect_equal(leaderboard(tsk)$metric, groups)
})

test_that("a FutureX run with a judge over HTTP logs the usage get_cost() reports", {
  server <- local_fake_openai(futurex_judge_reply)
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      scorer = futurex_scorer(scorer_chat = fake_chat(server, "judge"),
                                              settings = request_settings(cache = FALSE)),
                      dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  logged <- log_usage(tsk$log_path)
  spent <- task_usage(tsk)
  key <- function(x) x[order(x$model), c("model", "input_tokens", "output_tokens")]
  expect_equal(key(logged), key(spent))
  expect_equal(logged$input_tokens[logged$model == "openai_compatible/fake-model"], 11 * 20)
  expect_gt(logged$input_tokens[logged$model == "openai_compatible/judge"], 0)
  live <- suppressMessages(futurex_summary(tsk))
  expect_identical(log_json(tsk$log_path)$results$scores[[1]]$metrics$overall$value,
                   live$estimate[[1]])
  expect_identical(suppressMessages(futurex_summary(log_samples(tsk$log_path))), live)
})

test_that("leaderboard() gives DSBench's clustered interval (worked numbers)", {
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver(settings = request_settings(cache = FALSE)), scorer = dsbench_scorer_exact(),
                      dir = withr::local_tempdir())
  # only the first of the 7 sample questions is "C": competitions 1, 0, 0 | 0, 0 | 0, 0
  tsk$eval(solver_chat = baseline_constant("The answer is C."), view = FALSE)
  board <- leaderboard(tsk)
  row <- board[board$metric == "questions", ]
  expect_equal(row$estimate, 1 / 7)
  # residual sums per competition 4/7, -2/7, -2/7: SE = sqrt(3 / 2 * 24 / 49) / 7 = 6 / 49;
  # the naive SE would be sd / sqrt(7) = 1 / 7
  z <- stats::qnorm(0.975)
  expect_equal(row$upper, 1 / 7 + z * 6 / 49)
  expect_identical(row$upper, dsbench_summary(tsk)$upper[[1]])
  expect_equal(dsbench_summary(tsk, cluster = NULL)$upper[[1]], 1 / 7 + z / 7)
})

test_that("a truncated log and a log naming no benchmark are skipped with one warning", {
  dir <- withr::local_tempdir()
  a <- futurex_run("\\boxed{A}", dir)
  b <- futurex_run("\\boxed{B}", dir)
  # a run killed while writing: half of the file
  text <- readChar(b$log_path, file.size(b$log_path), useBytes = TRUE)
  writeChar(substr(text, 1, nchar(text) %/% 2), b$log_path, eos = NULL, useBytes = TRUE)
  # a vitals log of no benchmark
  plain <- vitals::Task$new(dataset = arith_dataset(), solver = generate_solver(settings = request_settings(cache = FALSE)),
                            scorer = arith_scorer(), dir = dir)
  plain$eval(solver_chat = baseline_constant("2"), view = FALSE)
  w <- expect_warning(board <- suppressMessages(leaderboard(dir)),
                      class = "predictivebench_warning_skipped_logs")
  expect_setequal(w$files, c(b$log_path, list.files(dir, "dataset", full.names = TRUE)))
  expect_match(conditionMessage(w), basename(b$log_path), fixed = TRUE)
  expect_match(conditionMessage(w), "truncated")
  expect_match(conditionMessage(w), "names no benchmark")
  # the good log still gives its rows, equal to its summary
  expect_equal(unique(board$source), a$log_path)
  live <- suppressMessages(futurex_summary(a))
  expect_identical(board$estimate[board$metric == "overall"], live$estimate[[1]])
})

test_that("re-runs of one model are told apart, or only the latest is kept", {
  dir <- withr::local_tempdir()
  first <- futurex_run("\\boxed{A}", dir)
  Sys.sleep(1.1) # the logs' `created` is to the second
  second <- futurex_run("\\boxed{B}", dir)
  board <- suppressMessages(leaderboard(dir))
  expect_equal(length(unique(board$run)), 2)
  runs <- vapply(c(first$log_path, second$log_path), function(p) log_json(p)$eval$run_id, "")
  expect_setequal(board$run, unname(runs))
  expect_false(anyNA(board$created))
  latest <- suppressMessages(leaderboard(dir, runs = "latest"))
  expect_equal(unique(latest$source), second$log_path)
  expect_equal(nrow(latest), nrow(board) / 2)
  # tasks: the run of each task's own log
  from_tasks <- suppressMessages(leaderboard(first, second))
  expect_setequal(from_tasks$run, unname(runs))
})

test_that("a log's rows come from its header alone, as its task gave them", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{A}", dir)
  columns <- c("benchmark", "model", "metric", "estimate", "lower", "upper", "n", "better",
               "scale", "run", "created")
  from_task <- suppressMessages(leaderboard(tsk))
  logged <- log_json(tsk$log_path)$eval$metadata$headline
  expect_equal(vapply(logged, `[[`, "", "key"), from_task$metric)
  expect_identical(leaderboard(tsk$log_path)[columns], from_task[columns])
  # no sample is read: a log whose samples can't be parsed still gives its rows
  text <- readChar(tsk$log_path, file.size(tsk$log_path), useBytes = TRUE)
  unreadable <- file.path(withr::local_tempdir(), "unreadable.json")
  writeChar(sub("\n  \"samples\": [", "\n  \"samples\": [not JSON,", text, fixed = TRUE),
            unreadable, eos = NULL, useBytes = TRUE)
  expect_error(log_samples(unreadable), class = "predictivebench_error_json")
  expect_identical(leaderboard(unreadable)[columns], from_task[columns])
  # a log without headline rows in its header (written before they were) is summarised
  # from its samples, to the same numbers
  older <- file.path(withr::local_tempdir(), "older.json")
  writeChar(sub("\"headline\": ", "\"headline_before\": ", text, fixed = TRUE), older,
            eos = NULL, useBytes = TRUE)
  from_samples <- suppressMessages(leaderboard(older))
  expect_identical(from_samples$estimate, from_task$estimate)
  expect_identical(from_samples$lower, from_task$lower)
  expect_identical(from_samples$upper, from_task$upper)
})

test_that("the board says which metrics are lower-is-better and on the Elo scale, from the registry", {
  local_benchmarks(list(new_benchmark("arith", list(
    fn = arith_summary, headline = c("weighted", "level 1"), by = "level",
    lower_is_better = "score"))))
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  board <- leaderboard(tsk)
  expect_equal(board$better, c("lower", "lower"))
  expect_equal(board$scale, c("0-1", "0-1"))
  # the same benchmark registered as a board of ratings of models: each group is a model
  register_benchmark(new_benchmark("arith", list(fn = arith_summary, headline = NULL,
                                                 by = "model", elo_scale = "score")),
                     replace = TRUE)
  board <- leaderboard(tsk)
  expect_equal(board$model, sort(c("weighted", "overall", "level 1", "level 2")))
  expect_equal(unique(board$metric), "score")
  expect_equal(unique(board$scale), "Elo")
  expect_equal(unique(board$better), "higher")
  expect_error(new_benchmark("x", identity, elo_scale = NA_character_),
               class = "predictivebench_error_argument")
})

test_that("a log's header is read from the start of the file only, in any chunk size", {
  tsk <- futurex_run("\\boxed{A}", withr::local_tempdir())
  text <- readChar(tsk$log_path, file.size(tsk$log_path), useBytes = TRUE)
  end <- regexpr("\n  \"samples\": ", text, fixed = TRUE) + nchar("\n  \"samples\": ") - 1
  for (chunk in c(5L, 64L, 65536L)) {
    prefix <- read_log_prefix(tsk$log_path, chunk = chunk)
    expect_identical(nchar(prefix, "bytes"), as.integer(end), label = chunk)
  }
  # a file without the key is read whole
  plain <- withr::local_tempfile(fileext = ".json")
  writeLines('{"eval": {"model": "m"}}', plain)
  expect_identical(read_log_header(plain)$eval$model, "m")
})

test_that("a set's folder shows each cell's completed run; its failed attempts on request", {
  logs <- withr::local_tempdir()
  state <- new.env()
  state$fail <- TRUE
  flaky <- baseline_chat(function(prompt) {
    if (state$fail) stop("HTTP 503 Service Unavailable")
    "\\boxed{Yes}"
  }, name = "flaky")
  chats <- list(flaky = flaky, steady = baseline_chat("\\boxed{No}", name = "steady"))
  run <- function() {
    suppressWarnings(suppressMessages(eval_set(
      "futurex@sample", chats, log_dir = logs,
      settings = request_settings(cache = FALSE, retry = list(max_tries = 1)), options = set_options(retries = 1))))
  }
  first <- run()
  expect_equal(first$status, c("failed", "done"))
  state$fail <- FALSE
  second <- run()
  expect_equal(second$status, c("done", "done"))
  # each failed try of the first call left its log (two tries: retries = 1)
  attempts <- setdiff(list.files(logs, pattern = "[.]json$", full.names = TRUE),
                      second$log_path)
  expect_length(attempts, 2L)

  msg <- expect_message(board <- leaderboard(logs), class = "predictivebench_message_attempts")
  expect_match(conditionMessage(msg), paste("Left out", length(attempts), "log"))
  expect_setequal(board$source, second$log_path)
  expect_equal(sort(unique(board$model)),
               c("predictivebench_baseline/flaky", "predictivebench_baseline/steady"))
  # one run per cell, so the plot names no "(run 1)", "(run 2)"
  expect_equal(length(unique(board$run[board$model == "predictivebench_baseline/flaky"])), 1L)
  flaky_overall <- board$estimate[board$model == "predictivebench_baseline/flaky" &
                                    board$metric == "overall"]
  expect_equal(flaky_overall, second$headline[[1]])

  all <- suppressWarnings(leaderboard(logs, attempts = TRUE))
  expect_setequal(unique(all$source), c(second$log_path, attempts))
  expect_gt(length(unique(all$run[all$model == "predictivebench_baseline/flaky"])), 1L)
  expect_error(leaderboard(logs, attempts = NA), class = "predictivebench_error_argument")
  # a folder that is not a set's: every log, as before
  plain <- withr::local_tempdir()
  file.copy(c(second$log_path, attempts), plain)
  expect_no_message(leaderboard(plain), class = "predictivebench_message_attempts")
})

test_that("a log is on the board where its benchmark is not registered, from its header alone", {
  # registered as "lower is better" and on the Elo scale, to see the labels travel
  local_benchmarks(list(new_benchmark("arith-gone", list(
    fn = arith_summary, headline = c("weighted", "level 1"), by = "level",
    interval = "90% made-up interval", lower_is_better = "score"))))
  dir <- withr::local_tempdir()
  tsk <- ResultsTask$new(dataset = arith_dataset(), solver = arith_solver(),
                         scorer = arith_scorer(), benchmark = "arith-gone", dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  registered <- suppressMessages(leaderboard(dir))
  expect_equal(unique(registered$better), "lower")
  logged <- log_json(tsk$log_path)$eval$metadata$headline
  expect_equal(vapply(logged, `[[`, "", "interval"), rep("90% made-up interval", 2))
  unregister_benchmark("arith-gone")
  # a session that never registered it: the same rows, and no warning
  expect_no_warning(gone <- suppressMessages(leaderboard(dir)))
  expect_identical(gone, registered)
  # a log that predates the labels in its header can't be placed without the registration
  text <- read_text(tsk$log_path)
  older <- file.path(withr::local_tempdir(), "older.json")
  writeLines(gsub(',\n\\s*"(interval|better|scale)": "[^"]*"', "", text), older,
             useBytes = TRUE)
  expect_true(all(is.na(logged_headline(log_json(older)$eval$metadata$headline)$interval)))
  expect_warning(board <- suppressMessages(leaderboard(older)),
                 class = "predictivebench_warning_skipped_logs")
  expect_equal(nrow(board), 0)
})

test_that("a benchmark whose groups are models logs each row's model, for any session", {
  # one row per level, each a competitor with a rating
  rates <- function(x) {
    x <- benchmark_samples(x, c("score", "level"), "a task.")
    means <- tapply(as.numeric(x$score), x$level, mean)
    tibble::tibble(group = paste0("model-", names(means)), metric = "rating",
                   estimate = 1000 + 100 * as.double(means), lower = NA_real_,
                   upper = NA_real_, n = as.integer(table(x$level)))
  }
  local_benchmarks(list(new_benchmark("arith-models", list(fn = rates, headline = NULL,
                                                          by = "model",
                                                          elo_scale = "rating"))))
  dir <- withr::local_tempdir()
  tsk <- ResultsTask$new(dataset = arith_dataset(), solver = arith_solver(),
                         scorer = arith_scorer(), benchmark = "arith-models", dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  registered <- suppressMessages(leaderboard(dir))
  expect_equal(registered$model, c("model-1", "model-2"))
  expect_equal(unique(registered$metric), "rating")
  expect_equal(unique(registered$scale), "Elo")
  unregister_benchmark("arith-models")
  expect_identical(suppressMessages(leaderboard(dir)), registered)
})

test_that("an Inspect log of a task named like a package benchmark is its own task on the board", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{A}", dir)
  model <- read_log_header(tsk$log_path)$eval$model
  entries <- inspect_eval_entries("futurex", c("C", "I"), 0.5)
  entries <- lapply(entries, gsub, pattern = '"openai/m"', replacement = deparse(model),
                    fixed = TRUE)
  made <- write_eval_zip(file.path(dir, "made.eval"), entries, "deflate")
  board <- suppressMessages(leaderboard(dir, runs = "latest"))
  expect_setequal(unique(board$benchmark), c("futurex", "futurex (Inspect)"))
  expect_equal(board$source[board$benchmark == "futurex (Inspect)"], rep(made, 2))
  expect_equal(board$estimate[board$metric == "includes accuracy"], 0.5)
  expect_true("overall" %in% board$metric[board$benchmark == "futurex"])
})
