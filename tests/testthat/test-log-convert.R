test_that("a JSON log converted to .eval and back is the original, byte for byte", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{A}", dir)
  evals <- log_convert(tsk$log_path, to = "eval", dest = file.path(dir, "eval"))
  expect_equal(basename(evals), sub("[.]json$", ".eval", basename(tsk$log_path)))
  expect_inspect_valid(evals, "validate_eval.py")
  back <- log_convert(evals, to = "json", dest = file.path(dir, "json"))
  expect_identical(readBin(back, "raw", file.size(back)),
                   readBin(tsk$log_path, "raw", file.size(tsk$log_path)))
  # the .eval reads as its JSON does
  expect_identical(suppressMessages(futurex_summary(evals)),
                   suppressMessages(futurex_summary(tsk$log_path)))
  # a folder: every log of the other format, nothing outside dest, nothing overwritten
  expect_equal(log_convert(dir, to = "eval", dest = file.path(dir, "eval2")),
               file.path(dir, "eval2", basename(evals)))
  expect_error(log_convert(dir, to = "eval", dest = file.path(dir, "eval")),
               class = "predictivebench_error_argument")
  expect_error(log_convert(tsk$log_path, to = "json", dest = dir),
               class = "predictivebench_error_argument")
})

test_that("a dest named as a file: its extension chooses the format, a differing `to` refused", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{A}", dir)
  one <- log_convert(tsk$log_path, dest = file.path(dir, "out", "one.eval"))
  expect_equal(one, file.path(dir, "out", "one.eval"))
  expect_equal(zip::zip_list(one)$filename[[length(zip::zip_list(one)$filename)]],
               "header.json")
  back <- log_convert(one, dest = file.path(dir, "back", "one.JSON"))
  expect_identical(readBin(back, "raw", file.size(back)),
                   readBin(tsk$log_path, "raw", file.size(tsk$log_path)))
  err <- expect_error(log_convert(tsk$log_path, to = "json", dest = file.path(dir, "two.eval")),
                      class = "predictivebench_error_log_format")
  expect_match(conditionMessage(err), ".eval", fixed = TRUE)
  expect_match(conditionMessage(err), '"json"', fixed = TRUE)
  expect_equal(err$field, "to")
  expect_error(log_convert(one, to = "eval", dest = file.path(dir, "two.json")),
               class = "predictivebench_error_log_format")
  expect_false(any(file.exists(file.path(dir, c("two.eval", "two.json")))))
  # a folder converts into a folder; an existing one is a folder whatever its name
  expect_error(log_convert(dir, dest = file.path(dir, "all.eval")),
               class = "predictivebench_error_argument")
  dir.create(file.path(dir, "logs.eval"))
  expect_equal(log_convert(tsk$log_path, to = "eval", dest = file.path(dir, "logs.eval")),
               file.path(dir, "logs.eval", sub("json$", "eval", basename(tsk$log_path))))
})

test_that("an Inspect-made .eval converted to JSON reads on the board as the .eval does", {
  dir <- withr::local_tempdir()
  made <- file.path(dir, "made.eval")
  write_eval_zip(made, inspect_eval_entries("made_zstd", c("C", "I", "C", "I"), 0.5), "zstd")
  json <- log_convert(made, to = "json", dest = file.path(dir, "json"))
  cols <- c("benchmark", "model", "metric", "estimate", "n")
  expect_equal(suppressMessages(leaderboard(json))[cols],
               suppressMessages(leaderboard(made))[cols])
  expect_equal(log_samples(json)$score, c(1, 0, 1, 0))
  expect_equal(log_samples(json)$result, log_samples(made)$result)
  # unfinished: refused, naming the file
  write_eval_zip(file.path(dir, "half.eval"),
                 inspect_eval_entries("half", c("C", "I"), 0.5, finished = FALSE), "deflate")
  expect_error(log_convert(file.path(dir, "half.eval"), to = "json", dest = file.path(dir, "h")),
               class = "predictivebench_error_unfinished_log")
})

test_that("a set run with .eval logs counts them done as JSON ones: rerun sends nothing", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, "m1")
  withr::local_options(predictivebench.log_format = "eval")
  set <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                   limit = 2)
  expect_equal(set$status, rep("done", 2), info = set$error)
  expect_match(set$log_path, "[.]eval$")
  sent <- server$count()
  again <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 2)
  expect_equal(server$count(), sent)
  expect_true(all(again$reused))
  expect_equal(again[c("cell_id", "status", "log_path", "headline")],
               set[c("cell_id", "status", "log_path", "headline")])
  # the board counts the same cells
  board <- suppressMessages(leaderboard(logs))
  expect_setequal(unique(board$source), set$log_path)
})

test_that("on daemons, a set honours predictivebench.log_format of the calling process", {
  server <- local_set_server()
  local_daemons(1)
  withr::local_options(predictivebench.log_format = "eval")
  set <- quiet_set("futurex@sample", set_chats(server, "m1"), log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(set$status, "done", info = set$error)
  expect_match(set$log_path, "[.]eval$")
})

test_that("arena_run() honours predictivebench.log_format: an .eval log, its identical rerun writes none", {
  withr::local_options(predictivebench.log_format = "eval")
  offline <- withr::local_tempdir()
  models <- list(a = named_constant("aaa", "a"), b = named_constant("b", "b"))
  opts <- arena_options(ratings = rating_options(method = "elo", bootstrap = 0))
  one <- arena_run(models, arena_baseline_judge(), version = "sample", dir = offline,
                   options = opts)
  expect_match(one$paths$log, "[.]eval$")
  expect_message(two <- arena_run(models, arena_baseline_judge(), version = "sample",
                                  dir = offline, options = opts),
                 class = "predictivebench_message_same_run")
  expect_equal(two$paths$log, one$paths$log)
  expect_equal(list.files(offline, pattern = "[.](json|eval)$", full.names = TRUE),
               one$paths$log)
  expect_equal(nrow(suppressMessages(leaderboard(offline))), nrow(suppressMessages(
    leaderboard(log_convert(one$paths$log, to = "json", dest = withr::local_tempdir())))))
})

test_that("the same run written as JSON and as .eval gives identical summaries (FutureX, a judged DSBench)", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  run_both <- function(make, chat) {
    lapply(c(json = "json", eval = "eval"), function(format) {
      tsk <- make(withr::local_tempdir(.local_envir = parent.frame(3)))
      suppressMessages(tsk$eval(solver_chat = chat, view = FALSE, log_format = format))
      tsk$log_path
    })
  }
  fx <- run_both(function(dir) futurex_task(futurex_dataset(version = "sample"), dir = dir),
                 baseline_chat("\\boxed{A}"))
  expect_match(fx$eval, "[.]eval$")
  expect_identical(suppressMessages(futurex_summary(fx$eval)),
                   suppressMessages(futurex_summary(fx$json)))
  ds <- run_both(function(dir) {
    dsbench_task(dsbench_dataset(version = "sample"),
                 judge = baseline_chat("True", name = "lenient-judge"), dir = dir)
  }, baseline_chat("42", name = "answers-42"))
  expect_identical(suppressMessages(dsbench_summary(ds$eval)),
                   suppressMessages(dsbench_summary(ds$json)))
  cols <- c("benchmark", "model", "metric", "estimate", "lower", "upper", "n")
  board <- function(path) suppressMessages(leaderboard(path))[cols]
  expect_identical(board(ds$eval), board(ds$json))
  expect_identical(board(fx$eval), board(fx$json))
})

# vitals 0.4.0's viewer lists `*.json` only (get_log_files_metadata()) and serves a log as
# JSON: an .eval is not on its list; converted to JSON, it is.
test_that("vitals_view() lists a .eval log once it is converted to JSON (its /api/logs)", {
  skip_if_not_installed("httpuv")
  dir <- withr::local_tempdir()
  withr::local_options(predictivebench.log_format = "eval")
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE))
  port <- httpuv::randomPort()
  server <- suppressMessages(vitals::vitals_view(dir, port = port))
  withr::defer(httpuv::stopServer(server))
  listed <- function() {
    url <- sprintf("http://127.0.0.1:%d/api/logs", port)
    fetch <- callr::r_bg(function(url) jsonlite::fromJSON(url, simplifyVector = FALSE),
                         args = list(url = url))
    while (fetch$is_alive()) httpuv::service(50)
    basename(vapply(fetch$get_result()$files, function(f) f$name, ""))
  }
  expect_equal(listed(), character())
  json <- log_convert(tsk$log_path, to = "json", dest = dir)
  expect_equal(listed(), basename(json))
})
