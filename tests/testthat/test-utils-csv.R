write_bytes <- function(bytes) {
  path <- withr::local_tempfile(fileext = ".csv", .local_envir = parent.frame())
  writeBin(bytes, path)
  path
}

test_that("read_csv_checked() reads every field as text and drops pandas' index column", {
  path <- write_bytes(charToRaw(',a,b\n0,1,""\n1,"x, y",NA\n'))
  data <- read_csv_checked(path, c("a", "b"), "test file")
  expect_named(data, c("a", "b"))
  expect_identical(data$a, c("1", "x, y"))
  expect_identical(data$b, c("", "NA"))  # nothing is taken as missing
})

test_that("read_csv_checked() names the file, row and field of what it can't read whole", {
  ragged <- write_bytes(charToRaw("a,b\n1,2\n3\n4,5\n"))
  err <- expect_error(read_csv_checked(ragged, "a", "test file"),
                      class = "predictivebench_error_csv")
  expect_match(conditionMessage(err), "The test file has 1 field in a row; its header has 2")
  expect_identical(err$row, 2L)
  expect_identical(err$file, ragged)

  nul <- write_bytes(c(charToRaw("a,b\n1,2\n3,"), as.raw(0), charToRaw("x\n")))
  err <- expect_error(read_csv_checked(nul, "a", "test file"),
                      class = "predictivebench_error_encoding")
  expect_identical(err$row, 2L)
  expect_identical(err$field, "b")

  latin1 <- write_bytes(c(charToRaw("a\nok\ncaf"), as.raw(0xe9), charToRaw("\n")))
  err <- expect_error(read_csv_checked(latin1, "a", "test file"),
                      class = "predictivebench_error_encoding")
  expect_match(conditionMessage(err), "not valid UTF-8")
  expect_identical(err$row, 2L)

  twice <- write_bytes(charToRaw("a,a\n1,2\n"))
  err <- expect_error(read_csv_checked(twice, "a", "test file"),
                      class = "predictivebench_error_schema")
  expect_identical(err$field, "a")

  err <- expect_error(read_csv_checked(twice, "c", "test file"), class = "predictivebench_error_schema")
  err <- expect_error(read_csv_checked(file.path(tempdir(), "none.csv"), "a", "test file"),
                      class = "predictivebench_error_missing_file")
  expect_match(conditionMessage(err), "The test file does not exist")
})

test_that("csv_without_ragged_rows() keeps the file's own row numbers and warns by row", {
  path <- write_bytes(charToRaw('a,b\n1,2\n"multi\nline",3\n4\n5,6\n'))
  expect_warning(kept <- csv_without_ragged_rows(path), class = "predictivebench_warning_skipped")
  expect_identical(kept$rows, c(1L, 2L, 4L))
  expect_identical(read_csv_checked(kept$path, "a", "copy")$a, c("1", "multi\nline", "5"))
})
