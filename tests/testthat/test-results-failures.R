test_that("report_failures() is silent without failures and counts partial ones", {
  expect_silent(expect_equal(report_failures(c(NA, NA)), 0L))
  w <- expect_warning(report_failures(c(NA, "HTTP 500", "timeout")),
                      class = "predictivebench_warning_failed_requests")
  expect_match(conditionMessage(w), "2 of 3 requests failed")
  expect_match(conditionMessage(w), "HTTP 500")
  expect_match(conditionMessage(w), "cache")
  expect_false(inherits(w, "predictivebench_warning_all_failed"))
})

test_that("when every request fails, the warning says so and Solving is not a success", {
  server <- local_fake_openai(function(body, n) list(status = 400))
  tsk <- ResultsTask$new(dataset = arith_dataset(), solver = arith_solver(votes = 2),
                         scorer = arith_scorer(), benchmark = "arith-failing",
                         dir = withr::local_tempdir())
  messages <- character()
  w <- expect_warning(
    withCallingHandlers(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                        message = function(m) {
                          messages <<- c(messages, conditionMessage(m))
                          invokeRestart("muffleMessage")
                        }),
    class = "predictivebench_warning_all_failed"
  )
  expect_match(conditionMessage(w), "All 8 requests failed")
  expect_match(conditionMessage(w), "400")
  solving <- grep("Solving", messages, value = TRUE)
  expect_true(any(grepl("^(\u2716|x) Solving", solving)))
  expect_false(any(grepl("^(\u2714|v) Solving", solving)))
  expect_true(any(grepl("^(\u2714|v) Scoring", messages)))
})

test_that("outside a ResultsTask's eval, report_failures() only warns", {
  expect_warning(report_failures("boom", what = "vote"), "All 1 vote failed")
  # a plain vitals Task hears nothing of the failed step: "Solving" is not marked
  server <- local_fake_openai(function(body, n) list(status = 400))
  plain <- vitals::Task$new(dataset = arith_dataset(), solver = arith_solver(votes = 1),
                            scorer = arith_scorer(), dir = withr::local_tempdir())
  expect_warning(suppressMessages(plain$eval(solver_chat = fake_chat(server), view = FALSE)),
                 class = "predictivebench_warning_all_failed")
})

test_that("a hint replaces the API-key advice when every request failed", {
  w <- expect_warning(report_failures(c("bad answer", "bad answer"), hint = "Use another backend."),
                      class = "predictivebench_warning_all_failed")
  expect_match(conditionMessage(w), "Use another backend.", fixed = TRUE)
  expect_no_match(conditionMessage(w), "API key")
  w <- expect_warning(report_failures("HTTP 401"), class = "predictivebench_warning_all_failed")
  expect_match(conditionMessage(w), "API key")
  expect_error(report_failures(NA, hint = 1), class = "predictivebench_error_argument")
})

test_that("after a run, report_failures() lists failed samples of a task, a log or a folder", {
  dir <- withr::local_tempdir()
  server <- local_fake_openai(function(body, n) {
    if (grepl("reject", last_user_text(body))) list(status = 400) else "\\boxed{A}"
  })
  ds <- futurex_dataset(version = "sample", limit = 4)
  ds$input[[2]] <- paste(ds$input[[2]], "(reject)")
  settings <- request_settings(cache = FALSE, retry = list(max_tries = 1))
  tsk <- futurex_task(ds, solver = futurex_solver(settings = settings), dir = dir)
  suppressWarnings(tsk$eval(solver_chat = fake_chat(server), view = FALSE))

  expect_message(from_task <- report_failures(tsk), "1 of 4 samples failed in 1 run",
                 class = "predictivebench_message_failures")
  expect_named(from_task, c("log", "benchmark", "model", "id", "epoch", "step", "kind",
                            "error"))
  expect_equal(from_task$id, ds$id[[2]])
  expect_equal(from_task$step, "solve")
  expect_equal(from_task$kind, "request")
  expect_equal(from_task$benchmark, "futurex")
  expect_equal(from_task$model, "openai_compatible/fake-model")
  expect_match(from_task$error, "400")
  expect_true(is.na(from_task$log))

  from_log <- suppressMessages(report_failures(tsk$log_path))
  expect_equal(from_log$log, tsk$log_path)
  expect_equal(from_log[-1], from_task[-1])

  # a folder: every log in it, the clean run adds no row
  clean <- futurex_task(futurex_dataset(version = "sample", limit = 3),
                        solver = futurex_solver(settings = settings), dir = dir)
  clean$eval(solver_chat = fake_chat(server), view = FALSE)
  writeLines('{"not": "a log"}', file.path(dir, "other.json"))
  expect_message(from_dir <- report_failures(dir), "1 of 7 samples failed in 2 runs")
  expect_equal(from_dir[-1], from_task[-1])
  expect_message(none <- report_failures(clean), "No failed sample",
                 class = "predictivebench_message_failures")
  expect_equal(nrow(none), 0)
  expect_named(none, names(from_task))
})

test_that("report_failures() tells failed requests from answers it could not score, with advice for each", {
  dir <- withr::local_tempdir()
  # ProcessBench: one sample's requests fail, one gets replies without a boxed step
  pb <- processbench_dataset(version = "sample")[1:3, ]
  chat <- baseline_chat(function(prompt) {
    if (grepl(pb$problem[[1]], prompt, fixed = TRUE)) stop("HTTP 404 Not Found: no such model")
    if (grepl(pb$problem[[2]], prompt, fixed = TRUE)) return("I can't tell.")
    "\\boxed{-1}"
  })
  settings <- request_settings(cache = FALSE, retry = list(max_tries = 1))
  tsk <- processbench_task(pb, solver = processbench_solver(settings = settings), dir = dir)
  suppressWarnings(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))
  msg <- expect_message(out <- report_failures(tsk), class = "predictivebench_message_failures")
  expect_equal(out$id, pb$id[1:2])
  expect_equal(out$kind, c("request", "answer"))
  expect_match(out$error[[1]], "404")
  expect_equal(out$error[[2]], "no result")
  text <- conditionMessage(msg)
  expect_match(text, "2 of 3 samples failed")
  expect_match(text, "1 with a request that failed for good. First error: .*404")
  expect_match(text, "API key")
  expect_match(text, "1 whose answer could not be scored")
  expect_match(text, "Running again changes nothing")
  expect_match(text, "max_tokens")
  # unparseable answers alone: no advice to run again or to check the key
  only <- out[out$kind == "answer", ]
  quiet <- withr::local_tempdir()
  tsk2 <- processbench_task(pb[2, ], solver = processbench_solver(settings = settings), dir = quiet)
  suppressWarnings(suppressMessages(tsk2$eval(solver_chat = chat, view = FALSE)))
  msg2 <- expect_message(report_failures(tsk2), class = "predictivebench_message_failures")
  expect_no_match(conditionMessage(msg2), "API key|to retry them")
  expect_equal(nrow(only), 1L)
})

test_that("report_failures(<folder>) skips a log it did not write, with a warning, and reports the rest", {
  dir <- withr::local_tempdir()
  failing <- baseline_chat(function(prompt) stop("HTTP 500 Internal Server Error"))
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2), dir = dir,
                      solver = futurex_solver(settings = request_settings(cache = FALSE, retry = list(max_tries = 1))))
  suppressWarnings(suppressMessages(tsk$eval(solver_chat = failing, view = FALSE)))
  # an Inspect AI log, as Inspect writes it (a NaN metric included)
  writeLines(c(
    '{"version": 2, "status": "success",',
    ' "eval": {"task": "popularity", "task_id": "x1", "model": "openai/gpt-4o", "metadata": {},',
    '   "dataset": {"name": "popularity", "samples": 1}},',
    ' "results": {"scores": [{"name": "match", "scorer": "match", "params": {},',
    '   "metrics": {"accuracy": {"name": "accuracy", "value": NaN, "params": {}}}}]},',
    ' "samples": [{"id": 1, "epoch": 1, "input": "Hi", "target": "A",',
    '   "scores": {"match": {"value": "C", "answer": "A"}}}]',
    '}'), file.path(dir, "2024-01-01T00-00-00+00-00_popularity_x1.json"))
  expect_warning(
    out <- suppressMessages(report_failures(dir)),
    "not written by predictivebench", class = "predictivebench_warning_skipped_logs"
  )
  expect_equal(nrow(out), 2L)
  expect_equal(unique(out$log), tsk$log_path)
  expect_equal(unique(out$kind), "request")
})

test_that("a judge's note is shown as a note, not as a failed request", {
  # FutureX's judge answers without the two values: the plain parse scores the item, and
  # the sample carries a note (scorer_metadata$judge_note), not an error
  server <- local_fake_openai(function(body, n) "I am not sure")
  dir <- withr::local_tempdir()
  ds <- futurex_dataset(version = "sample")
  settings <- request_settings(cache = FALSE, retry = list(max_tries = 1))
  tsk <- futurex_task(ds, solver = futurex_solver(settings = settings),
                      scorer = futurex_scorer(scorer_chat = fake_chat(server, "judge"),
                                              settings = settings), dir = dir)
  suppressWarnings(tsk$eval(solver_chat = baseline_constant("\\boxed{12}"), view = FALSE))
  numeric <- sum(!is.na(ds$std) & ds$level >= 3)
  msg <- expect_message(out <- report_failures(tsk$log_path),
                        class = "predictivebench_message_failures")
  expect_equal(nrow(out), 0)
  notes <- attr(out, "notes")
  expect_equal(nrow(notes), numeric)
  expect_equal(notes$step, rep("score", numeric))
  expect_match(notes$note, "plain parse")
  text <- conditionMessage(msg)
  expect_match(text, "No failed sample")
  expect_match(text, paste(numeric, "samples? with a note"))
  expect_no_match(text, "API key|failed for good")
})

test_that("an arena run's log in parts is one run: its failures are the same as in one file", {
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  inner <- arena_baseline_judge("longer")
  judge <- baseline_chat(function(prompt) {
    if (grepl("Question 3", prompt, fixed = TRUE)) stop("HTTP 500 Internal Server Error")
    inner$responder(prompt)
  }, name = "flaky-judge")
  arena <- function(dir) {
    suppressWarnings(arena_run(models, judge, dir = dir,
                               dataset = data.frame(question = paste("Question", 1:8)),
                               options = arena_options(strategy = "all",
                                                       ratings = rating_options(method = "elo",
                                                                                bootstrap = 0))))
  }
  whole_dir <- withr::local_tempdir()
  whole <- arena(whole_dir)
  expect_length(list.files(whole_dir, pattern = "[.]json$"), 1)
  one <- suppressMessages(report_failures(whole$paths$log))
  expect_equal(nrow(one), 3)
  # the same run in parts of a few kilobytes, 4 battles at a time
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  dir <- withr::local_tempdir()
  parted <- arena(dir)
  parts <- parted$paths$log_parts
  expect_gt(length(parts), 2)
  expect_message(from_dir <- report_failures(dir), "3 of 24 samples failed in 1 run\\.",
                 class = "predictivebench_message_failures")
  expect_equal(from_dir[-1], one[-1])
  expect_equal(unique(from_dir$log), parted$paths$log)
  # any part names the whole run
  for (path in parts[c(1, length(parts))]) {
    expect_message(from_part <- report_failures(path), "3 of 24 samples failed in 1 run\\.",
                   class = "predictivebench_message_failures")
    expect_equal(from_part, from_dir)
  }
  # a run with a part missing is skipped once, not read as a run of its other parts
  unlink(parts[[2]])
  w <- expect_warning(out <- suppressMessages(report_failures(dir)),
                      class = "predictivebench_warning_skipped_logs")
  expect_equal(nrow(out), 0)
})

test_that("a set's folder counts each sample once, with the set's advice", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  warned <- character()
  set <- withCallingHandlers(
    suppressMessages(eval_set("futurex@sample", set_chats(server, c("m1", "broken")),
                              log_dir = logs, settings = set_settings(withr::local_tempdir()))),
    warning = function(w) {
      warned <<- c(warned, conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  )
  n <- nrow(futurex_dataset(version = "sample"))
  expect_equal(set$attempts, c(1L, 2L))
  # two attempts of the broken cell: two logs
  expect_length(list.files(logs, pattern = "broken.*[.]json$"), 2)
  # the set says what failed and that eval_set() asks it again; no warning says `$eval()`
  expect_false(any(grepl("$eval()", warned, fixed = TRUE)))
  said <- NULL
  failed <- withCallingHandlers(
    report_failures(logs),
    predictivebench_message_failures = function(m) {
      said <<- cli::ansi_strip(conditionMessage(m))
      invokeRestart("muffleMessage")
    },
    predictivebench_message_attempts = function(m) invokeRestart("muffleMessage")
  )
  expect_equal(nrow(failed), n)
  expect_equal(anyDuplicated(failed$id), 0L)
  expect_match(said, sprintf("%d of %d samples failed in 2 runs", n, 2 * n), fixed = TRUE)
  expect_match(said, "call `eval_set()` again", fixed = TRUE)
  expect_no_match(said, "$eval()", fixed = TRUE)
  # a task's run: the advice of `$eval()`
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2), dir = withr::local_tempdir(),
                      solver = futurex_solver(settings = set_settings(withr::local_tempdir())))
  suppressWarnings(suppressMessages(tsk$eval(solver_chat = fake_chat(server, "broken"),
                                             view = FALSE)))
  expect_message(report_failures(tsk), "run `$eval()` again", fixed = TRUE)
})
