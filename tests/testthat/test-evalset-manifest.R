test_that("a cell is done only with its record and a complete log it names inside log_dir", {
  dir <- withr::local_tempdir()
  cell <- list(id = "cell-1", benchmark = list(label = "futurex", version = "sample"),
               label = "m/x", epochs = NULL)
  expect_null(read_manifest(dir, "cell-1"))
  log <- file.path(dir, "a.json")
  writeLines('{"version": 2, "status": "success", "eval": {}}', log)
  write_manifest(dir, cell, new_outcome("done", log_path = log, metric = "overall",
                                        headline = 0.25, cost = 0.5))
  got <- read_manifest(dir, "cell-1")
  expect_equal(got$status, "done")
  expect_equal(got$headline, 0.25)
  expect_true(got$reused)
  # a log that did not finish, or a record naming a file outside the folder, is not done
  writeLines('{"version": 2, "status": "started", "eval": {}}', log)
  expect_null(read_manifest(dir, "cell-1"))
  record <- manifest_path(dir, "cell-1")
  writeLines('{"log": "../outside.json"}', record)
  expect_null(read_manifest(dir, "cell-1"))
})
