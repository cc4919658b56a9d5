reference_eval <- function() {
  testthat::test_path("..", "..", "..", "shared", "reference", "inspect",
                      "inspect-0.3.260-fake-server-5-samples.eval")
}

test_that("leaderboard() of a folder shows Inspect-made .eval logs (zstd and deflate) beside a package JSON log, with Inspect's own metrics", {
  dir <- withr::local_tempdir()
  json <- futurex_run("\\boxed{A}", dir)
  write_eval_zip(file.path(dir, "zstd.eval"),
                 inspect_eval_entries("made_zstd", c("C", "I", "I", "I"), 0.25), "zstd")
  write_eval_zip(file.path(dir, "deflate.eval"),
                 inspect_eval_entries("made_deflate", c("C", "C", "C", "I"), 0.75), "deflate")
  board <- suppressMessages(leaderboard(dir))
  expect_setequal(unique(board$benchmark), c("futurex", "made_zstd", "made_deflate"))
  made <- board[board$benchmark != "futurex", ]
  expect_equal(made$estimate[made$metric == "includes accuracy"][order(
    made$benchmark[made$metric == "includes accuracy"])], c(0.75, 0.25))
  expect_equal(unique(made$estimate[made$metric == "includes stderr"]), 0.25)
  expect_equal(unique(made$n), 4L)
  expect_equal(unique(made$model), "openai/m")
  expect_equal(unique(made$run), c("made_zstd-r", "made_deflate-r")[
    match(unique(made$benchmark), c("made_zstd", "made_deflate"))])
  live <- suppressMessages(futurex_summary(json))
  expect_identical(board$estimate[board$benchmark == "futurex" & board$metric == "overall"],
                   live$estimate[[1]])
  # the samples, one entry at a time: Inspect's C/I as 1/0 (its value_to_float())
  expect_equal(log_samples(file.path(dir, "zstd.eval"))$score, c(1, 0, 0, 0))
  expect_equal(log_samples(file.path(dir, "deflate.eval"))$result, rep("A", 4))
})

test_that("the reference .eval written by Inspect AI 0.3.260 is on the board with its own metrics", {
  path <- reference_eval()
  skip_if_not(file.exists(path), "the reference .eval (../shared/reference/inspect) is absent")
  dir <- withr::local_tempdir()
  file.copy(path, dir)
  futurex_run("\\boxed{A}", dir)
  board <- suppressMessages(leaderboard(dir))
  fx <- board[board$benchmark == "fx", ]
  expect_equal(fx$metric, c("includes accuracy", "includes stderr"))
  expect_equal(fx$estimate, c(0.4, 0.24494897427831783))
  expect_equal(fx$n, c(5L, 5L))
  samples <- log_samples(file.path(dir, basename(path)))
  expect_equal(mean(samples$score), 0.4)
  expect_equal(log_usage(path)$input_tokens, 50)
})

test_that("a package log read from an .eval gives what its JSON gives: samples, summary, board", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{A}", dir)
  for (method in c("zstd", "deflate")) {
    path <- file.path(withr::local_tempdir(), "run.eval")
    json_log_as_eval(tsk$log_path, path, method)
    expect_equal(log_samples(path), log_samples(tsk$log_path))
    expect_identical(suppressMessages(futurex_summary(path)),
                     suppressMessages(futurex_summary(tsk$log_path)))
    columns <- c("benchmark", "model", "metric", "estimate", "lower", "upper", "n", "run")
    expect_equal(leaderboard(path)[columns], leaderboard(tsk$log_path)[columns])
    expect_true(complete_log(path, samples = 11L))
    expect_equal(log_sample_count(path), 11L)
  }
})

test_that("an unfinished .eval (no header.json) is not done for the board or a set", {
  dir <- withr::local_tempdir()
  futurex_run("\\boxed{A}", dir)
  path <- file.path(dir, "running.eval")
  write_eval_zip(path, inspect_eval_entries("made", c("C", "I"), 0.5, finished = FALSE))
  expect_equal(read_log_header(path)$status, "started")
  w <- expect_warning(board <- suppressMessages(leaderboard(dir)),
                      class = "predictivebench_warning_skipped_logs")
  expect_equal(w$files, path)
  expect_match(conditionMessage(w), "unfinished")
  expect_equal(unique(board$benchmark), "futurex")
  expect_false(complete_log(path))
  expect_true(is.na(log_sample_count(path)))
  expect_error(log_samples(path), class = "predictivebench_error_unfinished_log")
  # a package run's .eval killed before its header: the same
  tsk <- futurex_run("\\boxed{A}", withr::local_tempdir())
  cut <- file.path(dir, "cut.eval")
  json_log_as_eval(tsk$log_path, cut)
  kept <- setdiff(zip::zip_list(cut)$filename, "header.json")
  kept <- stats::setNames(lapply(kept, function(name) eval_entry_text(cut, name)), kept)
  write_eval_zip(cut, kept)
  expect_error(futurex_summary(cut), class = "predictivebench_error_unfinished_log")
  expect_false(complete_log(cut))
})

test_that("a damaged .eval is refused naming the file, and skipped by the board", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "made.eval")
  write_eval_zip(path, inspect_eval_entries("made", c("C", "I"), 0.5))
  bytes <- readBin(path, "raw", file.size(path))
  writeBin(bytes[seq_len(length(bytes) %/% 2)], path)
  err <- expect_error(read_log_header(path), class = "predictivebench_error_json")
  expect_equal(err$file, path)
  expect_false(complete_log(path))
  expect_warning(leaderboard(dir), class = "predictivebench_warning_skipped_logs")
})

test_that("report_failures() and compare_models() read Inspect's .eval samples", {
  dir <- withr::local_tempdir()
  entries <- inspect_eval_entries("made", c("C", "I", "C"), 2 / 3)
  broken <- jsonlite::parse_json(entries[["samples/s2_epoch_1.json"]])
  broken$error <- list(message = "RuntimeError: the model went away", traceback = "")
  entries[["samples/s2_epoch_1.json"]] <- as.character(jsonlite::toJSON(broken,
                                                                        auto_unbox = TRUE))
  a <- write_eval_zip(file.path(dir, "a.eval"), entries)
  failures <- suppressMessages(report_failures(a))
  expect_equal(failures$id, "s2")
  expect_match(failures$error, "the model went away")
  # in a folder, beside a package run
  futurex_run("\\boxed{A}", dir)
  in_folder <- suppressMessages(report_failures(dir))
  expect_equal(in_folder$id[in_folder$log == a], "s2")
  expect_equal(in_folder$benchmark[in_folder$log == a], "made")
  b <- write_eval_zip(file.path(dir, "b.eval"),
                      inspect_eval_entries("made", c("I", "I", "C"), 1 / 3))
  comparison <- suppressMessages(compare_models(a, b))
  expect_equal(comparison$difference, 2 / 3 - 1 / 3)
  expect_equal(comparison$n, 3L)
})

test_that("inspect_value_to_float() is Inspect's value_to_float()", {
  expect_equal(vapply(list("C", "P", "I", "N", "yes", "True", "no", "FALSE", "0.25", 0.5,
                           TRUE, "maybe"), inspect_value_to_float, 1),
               c(1, 0.5, 0, 0, 1, 1, 0, 0, 0.25, 0.5, 1, 0))
})

test_that("rescore() of a judged run's .eval log reads its answers from the zip", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  tsk <- dsbench_task(dsbench_dataset(version = "sample"),
                      judge = baseline_chat("True", name = "lenient-judge"), dir = dir)
  tsk$eval(solver_chat = baseline_chat("42", name = "answers-42"), view = FALSE)
  path <- file.path(withr::local_tempdir(), "judged.eval")
  json_log_as_eval(tsk$log_path, path)
  strict <- baseline_chat("False", name = "strict-judge")
  from_eval <- suppressMessages(rescore(path, judge = strict, dir = withr::local_tempdir()))
  from_json <- suppressMessages(rescore(tsk$log_path, judge = strict,
                                        dir = withr::local_tempdir()))
  expect_equal(log_samples(from_eval$log)$result, log_samples(tsk$log_path)$result)
  expect_equal(dsbench_summary(from_eval$log)$estimate, dsbench_summary(from_json$log)$estimate)
  expect_equal(dsbench_summary(path)$estimate[[1]], 1)
  expect_equal(dsbench_summary(from_eval$log)$estimate[[1]], 0)
})
