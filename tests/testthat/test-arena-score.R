# arena_scorer(): each answer of the evaluated model against each reference model's answer to
# the same question, judged by EloBench's judge; win 1, tie 0.5, loss 0, the sample's score
# the mean over its battles.

reference_answers <- function() {
  tibble::tibble(question = c("q1", "q2", "q3"),
                 long = c("a very long reference answer", "another long answer", NA),
                 short = c("x", "y", "z"))
}

scored_samples <- function(results, chat = baseline_chat("unused", name = "candidate")) {
  tibble::tibble(input = paste0("q", seq_along(results)), result = results,
                 solver_chat = rep(list(chat), length(results)))
}

offline_scorer <- function(judge, ...) {
  arena_scorer(reference_answers(), judge, settings = request_settings(cache = FALSE), ...)
}

test_that("the evaluated answer is the judge's first answer and the reference the second", {
  samples <- scored_samples(c("medium answer", "the longest answer of all of them here", "zz"))
  # a judge that always prefers the first answer: every battle is a win for the model
  first <- offline_scorer(arena_baseline_judge("first"))(samples)
  expect_identical(first$score, c(1, 1, 1))
  # the longer answer wins: q1 loses to long and beats short; q2 beats both; q3 has only
  # short to battle (long did not answer it) and beats it
  longer <- offline_scorer(arena_baseline_judge("longer"))(samples)
  expect_identical(longer$score, c(0.5, 1, 1))
  expect_equal(longer$explanation,
               c("vs long: loss (0); vs short: win (1).", "vs long: win (1); vs short: win (1).",
                 "vs short: win (1)."))
  meta <- longer$scorer_metadata
  expect_equal(vapply(meta, `[[`, 1L, "wins"), c(1L, 2L, 1L))
  expect_equal(vapply(meta, `[[`, 1L, "losses"), c(1L, 0L, 0L))
  battles <- jsonlite::fromJSON(as.character(meta[[1]]$battles))
  expect_equal(battles, list(opponent = c("long", "short"), winner = c("model_b", "model_a")))
  expect_length(longer$scorer_chat, 3)
})

test_that("a model named like a reference model is told apart in its battles", {
  samples <- scored_samples(c("medium answer", "b"), chat = baseline_chat("x", name = "long"))
  out <- offline_scorer(arena_baseline_judge("longer"))(samples)
  models <- vapply(out$scorer_metadata, `[[`, "", "model")
  expect_equal(unique(models), "long (evaluated)")
  # it still battles the reference model "long"
  expect_match(out$explanation[[1]], "^vs long: loss")
})

test_that("unanswered questions and questions no reference answered have no battle", {
  samples <- tibble::tibble(input = c("q1", "not a reference question"),
                            result = c(NA, "an answer"))
  scorer <- offline_scorer(arena_baseline_judge("longer"))
  expect_message(out <- scorer(samples), "1 of 2 questions has no reference answer",
                 class = "predictivebench_message_skipped")
  expect_identical(out$score, c(NA_real_, NA_real_))
  expect_match(out$explanation, "^No battle")
  expect_equal(vapply(out$scorer_metadata, `[[`, 1L, "wins"), c(0L, 0L))
  # each sample still gets a judge chat for the log (vitals needs one), saying the judge
  # was not asked: no request was sent for it
  expect_length(out$scorer_chat, 2)
  turns <- out$scorer_chat[[1]]$get_turns()
  expect_length(turns, 2)
  expect_match(turns[[1]]@text, "^No battle")
})

test_that("without a judge the scorer stops before judging, naming where to give one", {
  scorer <- arena_scorer(reference_answers(), settings = request_settings(cache = FALSE))
  err <- expect_error(scorer(scored_samples("an answer")), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "judge")
  expect_match(conditionMessage(err), "scorer_chat")
})

test_that("a judge's failed verdicts are ties, or left out with invalid = \"drop\"", {
  garbage <- baseline_chat(function(prompt) "no verdict here", name = "garbage-judge")
  samples <- scored_samples(c("medium answer", "b"))
  tie <- suppressWarnings(offline_scorer(garbage)(samples))
  drop <- suppressWarnings(offline_scorer(garbage, invalid = "drop")(samples))
  expect_identical(tie$score, c(0.5, 0.5))
  expect_identical(drop$score, c(NA_real_, NA_real_))
  expect_equal(vapply(tie$scorer_metadata, `[[`, 1L, "failed"), c(2L, 2L))
  expect_match(drop$explanation[[1]], "\\(dropped\\)")
})

test_that("each answer is judged: two epochs' answers to one question are two battles each", {
  samples <- scored_samples(c("yy", "an answer far longer than any reference answer here"))
  samples$input <- c("q1", "q1")  # one question, two epochs
  counter <- new.env()
  counter$n <- 0
  scored <- arena_scorer(reference_answers(), counting_judge(counter, "longer"),
                         settings = request_settings(cache = FALSE))(samples)
  expect_equal(counter$n, 2 * 2)  # each answer against both references
  expect_identical(scored$score, c(0.5, 1))
})

test_that("an answer table with two columns of one name is a classed error naming it", {
  answers <- data.frame(question = "q", a = "x", question = "y", check.names = FALSE)
  err <- expect_error(arena_scorer(answers = answers), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "two columns named")
  expect_identical(err$field, "question")
})

test_that("without a judge inside an evaluation set, the scorer names the set's judge =", {
  scorer <- arena_scorer(reference_answers(), settings = request_settings(cache = FALSE))
  # an evaluation set's run reaches the scorer as the settings' `run` context
  run <- structure(list(id = "a set"), class = "predictivebench_run")
  err <- expect_error(scorer(scored_samples("an answer"), run = run),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "eval_set(..., judge = )", fixed = TRUE)
  expect_no_match(conditionMessage(err), "scorer_chat")
  # outside a set: the arena's own doors, each one a user can call
  err <- expect_error(scorer(scored_samples("an answer")), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "arena_task(judge = )", fixed = TRUE)
  expect_match(conditionMessage(err), "arena_scorer(scorer_chat = )", fixed = TRUE)
})

test_that("arena_task() takes a panel of judges: the majority's verdicts, each battle's judges kept", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  first <- function(name) baseline_chat('{"winner": 1, "explanation": "first"}', name = name)
  second <- baseline_chat('{"winner": 2, "explanation": "second"}', name = "second")
  dataset <- arena_dataset(version = "sample", limit = 2)
  tsk <- arena_task(dataset, judge = list(first("first-a"), second, first("first-b")),
                    dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_chat("An answer."), view = FALSE))
  samples <- tsk$get_samples()
  meta <- samples$scorer_metadata[[1]]
  expect_equal(meta$losses, 0)
  expect_gt(meta$wins, 0)
  each <- jsonlite::fromJSON(meta$judges, simplifyVector = FALSE)
  expect_length(each, meta$wins)
  expect_identical(vapply(each[[1]], `[[`, "", "judge"), c("first-a", "second", "first-b"))
  expect_identical(vapply(each[[1]], `[[`, "", "winner"), c("model_a", "model_b", "model_a"))
})

test_that("arena_task()'s scorer names a judge that gives no readable verdict", {
  samples <- scored_samples(c("medium answer", "another answer", "zz"))
  expect_warning(offline_scorer(baseline_chat("True", "judge-ds"))(samples),
                 "judge-ds gave no readable verdict in 5 of 5 judgements",
                 class = "predictivebench_warning_unreadable_verdicts")
  scored <- suppressWarnings(offline_scorer(baseline_chat("True", "judge-ds"))(samples))
  expect_equal(vapply(scored$scorer_metadata, `[[`, "", "verdict_note"),
               rep("judge-ds gave no readable verdict", 3))
})
