test_that("answers cut off are counted per sample, votes as several answers", {
  samples <- tibble::tibble(solver_metadata = list(
    list(truncated = TRUE), list(truncated = FALSE), list(),  # an old log: not cut
    list(truncated = 3, n_votes = 8)
  ))
  cuts <- answer_cuts(samples)
  expect_equal(cuts$cut, c(1, 0, 0, 3))
  expect_equal(cuts$answers, c(1, 1, 1, 8))
  expect_equal(answer_cuts(tibble::tibble()), list(cut = double(), answers = double()))
})

test_that("a summary with answers cut off says so and keeps the count for the board", {
  rows <- tibble::tibble(group = "overall", estimate = 0.5)
  expect_message(out <- with_truncation(rows, c(1, 0, 2), c(1, 1, 8)),
                 "3 of 10 answers were cut off", class = "predictivebench_message_truncated")
  expect_equal(attr(out, "truncated"), c(truncated = 3, answers = 10))
  expect_silent(none <- with_truncation(rows, c(0, 0), c(1, 1)))
  expect_equal(attr(none, "truncated"), c(truncated = 0, answers = 2))
})

test_that("answers cut off are in the log's header and on the board", {
  dir <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = dir)
  # an answer only inside unfinished reasoning: no answer, cut off
  suppressMessages(tsk$eval(solver_chat = baseline_chat("<think>\\boxed{A}"), view = FALSE))
  header <- read_log_header(tsk$log_path)
  expect_equal(header$eval$metadata$truncated, 3)
  expect_equal(header$eval$metadata$answers, 3)
  board <- suppressMessages(leaderboard(tsk$log_path))
  expect_equal(unique(board$truncated), 3L)
  expect_true(all(is.na(board$all_tied)))
  # a run without cut answers says 0, not NA
  again <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = dir)
  suppressMessages(again$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE))
  expect_equal(unique(suppressMessages(leaderboard(again$log_path))$truncated), 0L)
})

test_that("report_failures() counts answers cut off apart, with the advice that fits", {
  dir <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_chat("<think>\\boxed{A}"), view = FALSE))
  expect_message(failed <- report_failures(tsk$log_path), "max_tokens",
                 class = "predictivebench_message_failures")
  expect_equal(failed$kind, rep("truncated", 3))
  expect_equal(unique(failed$error), "answer cut off at the token limit")
})
