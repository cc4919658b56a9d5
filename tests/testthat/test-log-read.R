# Reading a log back (R/log-read.R).

test_that("a log Inspect AI wrote with a NaN metric is read", {
  path <- withr::local_tempfile(fileext = ".json")
  writeLines(c('{"version": 2, "status": "success",',
               ' "eval": {"task": "t", "model": "m", "metadata": {}},',
               ' "results": {"scores": [{"name": "s", "metrics": {"mean": {"name": "mean",',
               '   "value": NaN, "params": {}}}}]}}'), path)
  header <- read_log_header(path)
  expect_identical(as.double(header$results$scores[[1]]$metrics$mean$value), NaN)
})

test_that("log_samples() reads a log's samples a chunk of lines at a time, and older logs whole", {
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{Yes}", dir)
  lines <- log_sample_lines(tsk$log_path, function(s) s$id, lines = 3L)
  expect_equal(unlist(lines), tsk$get_samples()$id)
  back <- log_samples(tsk$log_path)
  # the same log laid out as before issue 37 (samples pretty-printed): read whole
  old <- file.path(withr::local_tempdir(), "old.json")
  writeLines(yyjsonr::write_json_str(jsonlite::read_json(tsk$log_path), opts = log_json_options()),
             old, useBytes = TRUE)
  expect_null(log_sample_lines(old, identity))
  expect_equal(log_samples(old), back, ignore_attr = TRUE)
  expect_identical(futurex_summary(back), futurex_summary(tsk))
  # a log cut short inside its samples is an error naming it
  cut <- file.path(withr::local_tempdir(), "cut.json")
  text <- readLines(tsk$log_path)
  writeLines(text[seq_len(length(text) - 4)], cut)
  expect_error(log_samples(cut), class = "predictivebench_error_json")
})

test_that("log_samples() takes vitals_log_read() output with the dataset", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant("4"))
  expect_false("level" %in% names(read))
  back <- log_samples(read, dataset = arith_dataset())
  expect_identical(arith_summary(back), arith_summary(tsk))
  expect_error(log_samples(read, dataset = arith_dataset()[1:2, ]), "not in")
  expect_error(log_samples(tempfile(fileext = ".json")),
               class = "predictivebench_error_missing_file")
})

test_that("a list column of the dataset comes back as a list column", {
  data <- arith_dataset()
  data$sections <- list(2L, 3L, 1L, 4L)
  tsk <- ResultsTask$new(dataset = data, solver = generate_solver(settings = request_settings(cache = FALSE)),
                         scorer = arith_scorer(), benchmark = "sections",
                         metadata_fields = c("level", "sections"), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  back <- log_samples(tsk$log_path)
  expect_type(back$sections, "list")
  expect_identical(back$sections, data$sections)
  expect_type(back$level, "integer")
})
