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
