test_that("atomic writes leave no temporary files and replace whole files", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "sub", "f.txt")
  write_atomic(path, function(tmp) writeLines("one", tmp))
  write_atomic(path, function(tmp) writeLines("two", tmp))
  expect_equal(readLines(path), "two")
  expect_equal(list.files(dirname(path), all.files = TRUE, no.. = TRUE), "f.txt")
  expect_error(write_atomic(path, function(tmp) stop("disk full")), "disk full")
  expect_equal(readLines(path), "two")
})


test_that("with_file_lock() waits for another process's lock, and times out with a classed error", {
  skip_on_cran()
  dir <- withr::local_tempdir()
  path <- file.path(dir, "shared.csv")
  ready <- file.path(dir, "ready")
  holder <- callr::r_bg(function(lock_file, ready) {
    lock <- filelock::lock(lock_file)
    writeLines("", ready)
    Sys.sleep(600)
  }, args = list(file.path(dir, ".shared.csv.lock"), ready))
  withr::defer(holder$kill())
  deadline <- Sys.time() + 30
  while (!file.exists(ready) && Sys.time() < deadline) Sys.sleep(0.05)
  err <- expect_error(with_file_lock(path, writeLines("x", path), timeout = 0.3),
                      class = "predictivebench_error_lock")
  expect_equal(err$file, path)
  expect_false(file.exists(path))  # nothing written without the lock
  holder$kill()
  holder$wait(5000)
  expect_equal(with_file_lock(path, {
    writeLines("x", path)
    "done"
  }), "done")
  expect_equal(readLines(path), "x")
})

test_that("write_atomic() writes a file whose name is near the 255-byte limit", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, paste0(strrep("n", 250), ".json"))
  write_atomic(path, function(tmp) writeLines("x", tmp))
  expect_equal(readLines(path), "x")
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(path))
})
