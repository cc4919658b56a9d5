test_that("the judge rule matches the original on hand cases", {
  expect_identical(
    dsbench_judge_correct(c("True", "true.", "TRUE", "False", "Flase", "", NA, "untrue")),
    c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE, TRUE)
  )
})

test_that("a judged question's explanation gives the verdict, prediction and answer", {
  judged <- tibble::tibble(reply = c("True", NA, NA), error = c(NA, NA, "HTTP 500"),
                           correct = c(TRUE, FALSE, FALSE))
  out <- dsbench_judge_explanation(c("It is 4.", NA, "five"), c("4", "4", "5"), judged)
  expect_equal(out[[1]], 'The judge replied "True": correct. Prediction: "It is 4.". Answer: "4".')
  expect_match(out[[2]], "^Not judged .*Prediction: none")
  expect_match(out[[3]], "^The judgement failed \\(HTTP 500\\): incorrect")
  long <- dsbench_excerpt(strrep("x", 400))
  expect_equal(nchar(long), 300 + 5)
})

# The functions a message names, `f()` or `f(arg = )`, less `$eval()`: each must be exported.
named_functions <- function(message) {
  found <- regmatches(message, gregexpr("(?<![$A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_.]*(?=\\()",
                                        message, perl = TRUE))[[1]]
  unique(found)
}

test_that("without a judge, DSBench names only what the user can call, in the words of the set or of the task", {
  server <- local_fake_openai(function(body, n) "42")
  exported <- getNamespaceExports("predictivebench")
  # a set takes `judge =`
  set <- suppressMessages(suppressWarnings(eval_set(
    "dsbench@sample", list(fake_chat(server)), log_dir = withr::local_tempdir(), limit = 2,
    settings = request_settings(cache = withr::local_tempdir(), rpm = Inf)
  )))
  expect_equal(set$status, "failed")
  expect_match(set$error, "eval_set(..., judge = )", fixed = TRUE)
  expect_no_match(set$error, "scorer_chat", fixed = TRUE)
  expect_true(all(named_functions(set$error) %in% c(exported, "eval_set")))
  # a task takes it as dsbench_task(judge = ), dsbench_scorer(scorer_chat = ) or $eval()
  tsk <- dsbench_task(dsbench_dataset(version = "sample", limit = 2),
                      dir = withr::local_tempdir())
  err <- expect_error(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)),
                      class = "predictivebench_error_argument")
  said <- conditionMessage(err)
  expect_match(said, "$eval(scorer_chat = )", fixed = TRUE)
  expect_match(said, "dsbench_task(judge = )", fixed = TRUE)
  expect_no_match(said, "eval_set", fixed = TRUE)
  expect_true(length(named_functions(said)) > 0)
  expect_true(all(named_functions(said) %in% exported))
})
