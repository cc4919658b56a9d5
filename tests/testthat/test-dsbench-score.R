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
  # a set takes `judge =`: refused before any answer is paid for (eval_set()'s check)
  err <- expect_error(suppressMessages(eval_set(
    "dsbench@sample", list(fake_chat(server)), log_dir = withr::local_tempdir(),
    settings = request_settings(cache = withr::local_tempdir(), rpm = Inf), options = set_options(limit = 2))), class = "predictivebench_error_argument")
  said <- conditionMessage(err)
  expect_equal(server$count(), 0)
  expect_match(said, "eval_set(..., judge = )", fixed = TRUE)
  expect_no_match(said, "scorer_chat", fixed = TRUE)
  expect_true(all(named_functions(said) %in% c(exported, "eval_set")))
  # a task object in a set keeps its own scorer, which the set's judge never reaches: the
  # task takes its judge, refused before its answers are paid
  tsk <- dsbench_task(dsbench_dataset(version = "sample", limit = 2),
                      dir = withr::local_tempdir())
  set <- suppressMessages(suppressWarnings(eval_set(
    list(dsbench = tsk), list(fake_chat(server)), log_dir = withr::local_tempdir(),
    judge = baseline_chat("True"),
    settings = request_settings(cache = withr::local_tempdir(), rpm = Inf)
  )))
  expect_equal(set$status, "failed")
  expect_match(set$error, "dsbench_task(judge = )", fixed = TRUE)
  expect_match(set$error, "Nothing was sent.", fixed = TRUE)
  expect_equal(server$count(), 0)
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

test_that("a panel of judges: the majority's verdict, each judge's own in the log, one request a judge and question, none on a rerun", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (!startsWith(text, "Please judge")) {
      option <- if (grepl("A. North", text)) "C" else if (grepl("A. Left", text)) "A" else "X"
      return(paste0("ANSWER-", option))
    }
    said_c <- grepl("predicted answer is \n ANSWER-C.", text, fixed = TRUE)
    said_a <- grepl("predicted answer is \n ANSWER-A.", text, fixed = TRUE)
    switch(body$model,
      "judge-a" = "True",                                   # always
      "judge-b" = if (said_c) "True" else "False",          # ANSWER-C only
      "judge-c" = if (said_a) list(status = 400) else "False"  # fails on ANSWER-A
    )
  })
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, retry = list(max_tries = 1))
  data <- dsbench_dataset(version = "sample")
  judges <- list(fake_chat(server, "judge-a"), fake_chat(server, "judge-b"),
                 fake_chat(server, "judge-c"))
  tsk <- dsbench_task(data, solver = dsbench_solver(settings = settings),
                      scorer = dsbench_scorer(scorer_chat = judges, settings = settings),
                      dir = withr::local_tempdir())
  solver <- fake_chat(server)
  preview <- estimate_cost(tsk, solver, cache = cache)
  expect_equal(server$count(), 0)
  # every member of the panel is counted: the solver's 7 and 3 judges x 7
  expect_equal(preview$requests, nrow(data) + 3 * nrow(data))
  expect_warning(tsk$eval(solver_chat = solver, view = FALSE),
                 class = "predictivebench_warning_failed_judgements")
  judge_req <- Filter(function(b) startsWith(b$model, "judge-"), server$requests())
  expect_length(judge_req, 3 * nrow(data))
  expect_equal(table(vapply(judge_req, `[[`, "", "model"))[["judge-b"]], nrow(data))
  samples <- tsk$get_samples()
  said <- vapply(samples$solver_metadata, function(m) m$answer %||% NA_character_, "")
  answers <- vapply(samples$result, function(r) sub("^.*(ANSWER-.).*$", "\\1", r), "",
                    USE.NAMES = FALSE)
  # a and b agree on ANSWER-C (True); on ANSWER-A, a says True, b False and c failed: 1 of 3
  expect_identical(as_score(samples$score), as.double(answers == "ANSWER-C"))
  meta <- samples$scorer_metadata
  each <- panel_judges(vapply(meta, `[[`, "", "judges"))
  expect_equal(nrow(each), 3 * nrow(data))
  expect_setequal(each$judge, c("judge-a", "judge-b", "judge-c"))
  a <- which(answers == "ANSWER-A")[[1]]
  mine <- each[each$sample == a, ]
  expect_identical(mine$reply, c("True", "False", NA))
  expect_identical(mine$correct, c(TRUE, FALSE, FALSE))
  expect_match(mine$error[[3]], "400")
  # the failed member's error is the sample's: the cell is partial, asked again next time
  expect_match(meta[[a]]$judge_error, "^judge-c: ")
  expect_true(all(vapply(meta[answers != "ANSWER-A"], function(m) is.na(m$judge_error), TRUE)))
  expect_match(samples$scorer_explanation[[a]], "The panel said incorrect (1 of 3 judges",
               fixed = TRUE)
  # the log keeps each judge's verdicts
  log <- jsonlite::read_json(tsk$log_path %||% tail(list.files(tsk$dir, full.names = TRUE), 1))
  expect_true(grepl("judge-c", log$samples[[a]]$scores[[1]]$metadata$judges, fixed = TRUE))
  # a rerun: everything from the cache but the failed member's judgements
  before <- server$count()
  expect_warning(tsk$eval(solver_chat = solver, view = FALSE),
                 class = "predictivebench_warning_failed_judgements")
  expect_equal(server$count() - before, sum(answers == "ANSWER-A"))
})

test_that("a panel's even split is incorrect, and a list of one judge is that judge", {
  yes <- baseline_chat("True", name = "yes")
  no <- baseline_chat("False", name = "no")
  judged <- dsbench_judge("Q?", "4", "4", check_judge(list(yes, no)))
  expect_false(judged$correct)
  expect_match(judged$panel_said, "incorrect (1 of 2 judges", fixed = TRUE)
  one <- dsbench_judge("Q?", "4", "4", check_judge(list(yes)))
  expect_identical(names(one), names(dsbench_judge("Q?", "4", "4", yes)))
  expect_true(one$correct)
  expect_error(dsbench_scorer(scorer_chat = list(yes, 3)),
               class = "predictivebench_error_argument")
})
