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
  settings <- request_settings(cache = FALSE, max_tries = 1)
  tsk <- futurex_task(ds, solver = futurex_solver(settings = settings), dir = dir)
  suppressWarnings(tsk$eval(solver_chat = fake_chat(server), view = FALSE))

  expect_message(from_task <- report_failures(tsk), "1 of 4 samples failed in 1 run",
                 class = "predictivebench_message_failures")
  expect_named(from_task, c("log", "benchmark", "model", "id", "epoch", "step", "error"))
  expect_equal(from_task$id, ds$id[[2]])
  expect_equal(from_task$step, "solve")
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
