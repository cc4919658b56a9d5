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

