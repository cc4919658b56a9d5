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
    arena_run(models, judge, strategy = "all", times = 0, dir = dir,
              dataset = data.frame(question = paste("Question", 1:8)))
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
