test_that("a cell is done only with its record and a complete log it names inside log_dir", {
  dir <- withr::local_tempdir()
  cell <- list(id = "cell-1", benchmark = list(label = "futurex", version = "sample"),
               label = "m/x", epochs = NULL)
  expect_null(read_cell_record(dir, "cell-1"))
  log <- file.path(dir, "a.json")
  writeLines('{"version": 2, "status": "success", "eval": {}}', log)
  write_cell_record(dir, cell, new_outcome("done", log_path = log, metric = "overall",
                                        headline = 0.25, cost = 0.5))
  got <- read_cell_record(dir, "cell-1")
  expect_equal(got$status, "done")
  expect_equal(got$headline, 0.25)
  expect_true(got$reused)
  # a log that did not finish, or a record naming a file outside the folder, is not done
  writeLines('{"version": 2, "status": "started", "eval": {}}', log)
  expect_null(read_cell_record(dir, "cell-1"))
  record <- record_path(dir, "cell-1")
  writeLines('{"log": "../outside.json"}', record)
  expect_null(read_cell_record(dir, "cell-1"))
})

test_that("a log cut off inside its samples is not done, and is set aside, kept", {
  dir <- withr::local_tempdir()
  cell <- list(id = "cell-1", benchmark = list(label = "futurex", version = "sample"),
               label = "m/x", epochs = NULL)
  log <- file.path(dir, "run.json")
  samples <- lapply(1:50, function(i) list(id = paste0("s", i), input = strrep("words ", 40)))
  writeLines(yyjsonr::write_json_str(
    list(version = 2L, status = "success", eval = list(task = "t"),
         results = list(total_samples = 50L), samples = samples),
    opts = log_json_options()
  ), log)
  write_cell_record(dir, cell, new_outcome("done", log_path = log, metric = "overall",
                                        headline = 0.5, cost = 0))
  record <- jsonlite::read_json(record_path(dir, "cell-1"))
  expect_equal(record$samples, 50L)
  expect_equal(record$log_bytes, file.size(log))
  expect_equal(read_cell_record(dir, "cell-1")$status, "done")
  # cut in the middle of its samples: its header alone still reads as a finished run
  bytes <- readBin(log, "raw", file.size(log))
  writeBin(bytes[seq_len(length(bytes) %/% 2)], log)
  expect_equal(read_log_header(log)$status, "success")
  expect_null(read_cell_record(dir, "cell-1"))
  expect_true(file.exists(log))  # only looked at
  expect_message(expect_null(read_cell_record(dir, "cell-1", set_aside = TRUE)),
                 class = "predictivebench_message_log_set_aside")
  expect_false(file.exists(log))
  kept <- list.files(dir, pattern = "^run[.]json[.]partial-")
  expect_length(kept, 1)
  expect_equal(file.size(file.path(dir, kept)), length(bytes) %/% 2)
  expect_false(file.exists(record_path(dir, "cell-1")))
  # nothing left that a reader of `*.json` logs would take
  expect_length(list.files(dir, pattern = "[.]json$", recursive = TRUE), 0)
})

test_that("a whole log with fewer samples than its record counted is not done", {
  dir <- withr::local_tempdir()
  log <- file.path(dir, "run.json")
  write_log_with <- function(n) {
    writeLines(yyjsonr::write_json_str(
      list(version = 2L, status = "success", eval = list(task = "t"),
           results = list(total_samples = n),
           samples = lapply(seq_len(n), function(i) list(id = i))),
      opts = log_json_options()
    ), log)
  }
  write_log_with(3L)
  expect_equal(log_sample_count(log), 3L)
  expect_true(complete_log(log, bytes = file.size(log), samples = 3L))
  write_log_with(2L)
  expect_false(complete_log(log, samples = 3L))
  expect_false(complete_log(log, bytes = file.size(log) + 1, samples = 2L))
  # a header that counts samples the file does not hold
  writeLines('{"version": 2, "status": "success", "eval": {}, "results": {"total_samples": 4},
             "samples": [{"id": 1}]}', log)
  expect_true(is.na(log_sample_count(log)))
})

test_that("a log's samples are counted from its lines, never read whole, when the writer wrote it", {
  dir <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}"), view = FALSE))
  path <- tsk$log_path
  n <- nrow(tsk$get_samples())
  local({
    local_replace_internal("read_log_samples_whole", function(path) stop("read whole"))
    expect_equal(log_sample_count(path), n)
  })
  # a log laid out another way (vitals' pretty-printed samples) is counted by reading it
  pretty <- file.path(dir, "pretty.json")
  writeLines(jsonlite::toJSON(jsonlite::read_json(path), auto_unbox = TRUE, pretty = TRUE,
                              null = "null"), pretty)
  expect_null(log_sample_line_count(pretty))
  expect_equal(log_sample_count(pretty), n)
  # cut short, or a header that counts other samples than the log holds: not whole
  cut <- file.path(dir, "cut.json")
  writeBin(readBin(path, "raw", file.size(path) - 40), cut)
  expect_identical(log_sample_count(cut), NA_integer_)
  miscounted <- file.path(dir, "miscounted.json")
  text <- readLines(path, encoding = "UTF-8")
  at <- grep("\"total_samples\":", text)[[1]]
  text[[at]] <- sub("[0-9]+", as.character(n + 1L), text[[at]])
  writeLines(text, miscounted)
  expect_identical(log_sample_count(miscounted), NA_integer_)
})
