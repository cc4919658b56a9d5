# A run's log in several files (R/results-log-parts.R): any file leads to the run's files, and
# reading its samples reads the whole run.

write_toy_part <- function(dir, task_id, ids, files) {
  created <- "2026-01-01T00:00:00+00:00"
  w <- log_writer(dir, task_id, created = created)
  log_writer_add(w, lapply(ids, function(id) {
    list(id = id, epoch = 1L, input = paste("Question", id), target = "A", messages = list(),
         scores = list(toy_score = list(value = 1, answer = "A")),
         metadata = empty_object(), store = empty_object(), events = list(),
         model_usage = empty_object())
  }))
  meta <- list(benchmark = "toy")
  if (length(files) > 1) meta$log_files <- as.list(files)
  log_writer_finish(w, list(version = 2L, status = "success",
                            eval = list(run_id = "run-1", task = task_id, metadata = meta),
                            results = list(total_samples = length(ids))))
}

test_that("any file of a run in several reads back the whole run's samples, in order", {
  dir <- withr::local_tempdir()
  created <- "2026-01-01T00:00:00+00:00"
  ids <- c("toy/model/abc", "toy/model/abc-part2")
  files <- vapply(ids, function(id) log_file_name(created, id), "", USE.NAMES = FALSE)
  first <- write_toy_part(dir, ids[[1]], c("a", "b"), files)
  second <- write_toy_part(dir, ids[[2]], c("c"), files)
  expect_equal(log_part_paths(second), file.path(dir, files))
  for (path in c(first, second)) {
    samples <- log_run_samples(path)
    expect_equal(samples$id, c("a", "b", "c"))
    expect_equal(attr(samples, "log")$eval$task, ids[[1]])
  }
  # a log in one file is its own run
  alone <- write_toy_part(withr::local_tempdir(), "toy/model/one", "z", character())
  expect_equal(log_part_paths(alone), alone)
  expect_equal(log_run_samples(alone)$id, "z")
  # a run with a file missing is not read as the run
  unlink(second)
  expect_error(log_run_samples(first), class = "predictivebench_error_missing_file")
})

test_that("judge_audit() of a folder reads an arena run in parts as the run: the numbers of one file", {
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  judge <- arena_baseline_judge("longer")
  arena <- function(dir) {
    arena_run(models, judge, dir = dir, dataset = data.frame(question = paste("Question", 1:8)),
              options = arena_options(strategy = "all",
                                      ratings = rating_options(method = "elo", bootstrap = 0)))
  }
  whole_dir <- withr::local_tempdir()
  whole <- arena(whole_dir)
  one <- judge_audit(whole_dir, judge = judge, times = 50)
  # the same run in parts of a few kilobytes, 4 battles at a time
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  dir <- withr::local_tempdir()
  parted <- arena(dir)
  expect_gt(length(parted$paths$log_parts), 2)
  audit <- judge_audit(dir, judge = judge, times = 50)
  expect_equal(nrow(audit), nrow(one))
  expect_equal(audit$n, one$n)
  expect_equal(max(audit$n), 2 * nrow(whole$records))
  expect_equal(audit[c("metric", "estimate", "lower", "upper")],
               one[c("metric", "estimate", "lower", "upper")])
})

test_that("a run with a file deleted is no run to any reader, and a folder is refused before any request", {
  server <- arena_parts_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  parted <- arena_parts_run(server$url, logs, cache)
  # (a later run: a folder's newest log comes first)
  healthy <- arena_parts_run(server$url, logs, cache, questions = paste("Other", 1:3))
  parts <- parted$paths$log_parts
  expect_gt(length(parts), 2)
  unlink(parts[[2]])
  sent <- server$count()
  judge <- ellmer::chat_openai_compatible(base_url = server$url, model = "judge-lm",
                                          credentials = function() "sk-x")
  other <- ellmer::chat_openai_compatible(base_url = server$url, model = "judge-2",
                                          credentials = function() "sk-x")
  # the board: the healthy run, and the broken one's files skipped, saying which is missing
  expect_warning(board <- leaderboard(logs), basename(parts[[2]]), fixed = TRUE,
                 class = "predictivebench_warning_skipped_logs")
  expect_equal(nrow(board), 3)
  expect_equal(unique(board$source), healthy$paths$log)
  expect_warning(alone <- leaderboard(parts[[1]]), class = "predictivebench_warning_skipped_logs")
  expect_equal(nrow(alone), 0)
  # the failures, the audit, the rescore and the summaries: the same refusal, naming the file
  for (path in parts[-2]) {
    err <- expect_error(report_failures(path), class = "predictivebench_error_missing_file")
    expect_equal(err$file, parts[[2]])
    expect_match(conditionMessage(err), "Keep a run's files together", fixed = TRUE)
    expect_error(arena_summary(path), class = "predictivebench_error_missing_file")
    expect_error(arena_ratings(path), class = "predictivebench_error_missing_file")
  }
  expect_warning(suppressMessages(report_failures(logs)), basename(parts[[2]]), fixed = TRUE,
                 class = "predictivebench_warning_skipped_logs")
  expect_error(judge_audit(logs, judge = judge), class = "predictivebench_error_missing_file")
  expect_error(judge_audit(parts[[3]], judge = judge), class = "predictivebench_error_missing_file")
  # a rescore of the folder refuses before it judges the healthy run again
  expect_error(rescore(logs, judge = other), class = "predictivebench_error_missing_file")
  expect_equal(server$count(), sent)
  expect_error(rescore(parts[[3]], judge = other), class = "predictivebench_error_missing_file")
  expect_setequal(list.files(logs, pattern = "[.]json$", full.names = TRUE),
                  c(healthy$paths$log_parts %||% healthy$paths$log, parts[-2]))
})
