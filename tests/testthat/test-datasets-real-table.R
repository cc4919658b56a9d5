# A real benchmark's task table: prepared once from its fetched raw files and cached beside
# them (test-datasets-fetch.R covers the downloads; helper-pinned-server.R the servers).

tiny_arena_pins <- function() {
  csv <- withr::local_tempfile(fileext = ".csv", .local_envir = parent.frame())
  writeLines(c(",question", "0,What is 2 + 2?", "1,Name a colour."), csv)
  fixture_pins("arena", "tiny", "github", "v-xchen-v/EloBench",
               c("data/tiny/questions.csv" = csv), items = 2)
}

prepared_tables <- function() {
  Sys.glob(file.path(datasets_dir(), "arena", "tiny", "table-*.parquet"))
}

# A zip of `files` (names relative to a folder, each written with its own name as content).
make_zip <- function(files) {
  skip_if(!nzchar(Sys.which("zip")), "no zip program to build the archive")
  src <- withr::local_tempdir(.local_envir = parent.frame())
  for (f in files) {
    dir.create(dirname(file.path(src, f)), recursive = TRUE, showWarnings = FALSE)
    writeLines(f, file.path(src, f))
  }
  zip <- withr::local_tempfile(fileext = ".zip", .local_envir = parent.frame())
  withr::with_dir(src, utils::zip(zip, files, flags = "-q"))
  zip
}

test_that("a lost prepared table is prepared again from the cached raw files, offline", {
  servers <- local_pinned_servers(tiny_arena_pins())
  first <- suppressMessages(real_task_table("arena", "tiny"))
  expect_equal(first$input, c("What is 2 + 2?", "Name a colour."))
  expect_length(prepared_tables(), 1)
  unlink(prepared_tables())
  expect_message(again <- real_task_table("arena", "tiny"), "Preparing arena version")
  expect_equal(again, first)
  expect_length(prepared_tables(), 1)
  # the raw file was kept: preparing again sent no second request
  expect_equal(nrow(servers$gh$log()), 1)
  expect_no_message(real_task_table("arena", "tiny"))
})

test_that("the prepared table's name is a key of the pinned files' checksums", {
  pins <- tiny_arena_pins()
  path <- prepared_table_path(pins)
  expect_identical(prepared_table_path(pins), path)
  expect_match(basename(path), "^table-[0-9a-f]{16}\\.parquet$")
  expect_identical(dirname(path), version_dir("arena", "tiny"))
  other <- pins
  other$sha256 <- strrep("0", 64)
  expect_false(identical(prepared_table_path(other), path))
})

test_that("an archive wrapped in one folder is unwrapped; data/ and __MACOSX are not", {
  out <- withr::local_tempdir()
  unzip_safely(make_zip(c("DSBench-main/data/00000001/a.xlsx", "DSBench-main/data.json")), out)
  expect_setequal(list.files(out, recursive = TRUE), c("data/00000001/a.xlsx", "data.json"))

  out2 <- withr::local_tempdir()
  unzip_safely(make_zip(c("data/00000001/a.xlsx", "__MACOSX/data/._a.xlsx")), out2)
  expect_true(file.exists(file.path(out2, "data", "00000001", "a.xlsx")))
  expect_true(dir.exists(file.path(out2, "__MACOSX")))
})

test_that("an archive entry with an absolute path is refused before anything is written", {
  zip <- make_zip("inner/x.txt")
  # rewrite the entry's name to an absolute one (same length, so the archive stays valid)
  bytes <- readBin(zip, "raw", file.size(zip))
  name <- charToRaw("inner/x.txt")
  absolute <- charToRaw("/nner/x.txt")
  at <- which(vapply(seq_len(length(bytes) - length(name) + 1),
                     function(i) identical(bytes[i:(i + length(name) - 1)], name), TRUE))
  for (i in at) bytes[i:(i + length(name) - 1)] <- absolute
  writeBin(bytes, zip)
  out <- withr::local_tempdir()
  err <- expect_error(unzip_safely(zip, out), class = "predictivebench_error_path")
  expect_equal(err$field, "/nner/x.txt")
  expect_length(list.files(out, all.files = TRUE, no.. = TRUE), 0)
})

test_that("a folder is written under a temporary name and appears only when complete", {
  parent <- withr::local_tempdir()
  dir <- file.path(parent, "built")
  expect_error(write_atomic_dir(dir, function(tmp) {
    writeLines("half", file.path(tmp, "part.txt"))
    stop("interrupted")
  }), "interrupted")
  expect_false(dir.exists(dir))
  expect_length(list.files(parent, all.files = TRUE, no.. = TRUE), 0)
  write_atomic_dir(dir, function(tmp) writeLines("whole", file.path(tmp, "part.txt")))
  expect_equal(readLines(file.path(dir, "part.txt")), "whole")
  expect_length(list.files(parent, all.files = TRUE, no.. = TRUE), 1)
})

test_that("DSBench's archive is unpacked once, with data.json beside the competitions", {
  withr::local_options(predictivebench.datasets_dir = withr::local_tempdir())
  rows <- tibble::tibble(benchmark = "dsbench", version = "v", role = c("zip", "answers"))
  answers <- withr::local_tempfile(fileext = ".json")
  writeLines('{"answers": true}', answers)
  dir <- dsbench_real_dir(rows, c(make_zip("data/00000001/a.xlsx"), answers))
  expect_identical(dir, file.path(version_dir("dsbench", "v"), "dsbench"))
  expect_equal(readLines(file.path(dir, "data.json")), '{"answers": true}')
  expect_true(file.exists(file.path(dir, "data", "00000001", "a.xlsx")))
  # unpacked already: another archive is not opened again
  again <- dsbench_real_dir(rows, c(make_zip("data/00000002/b.xlsx"), answers))
  expect_identical(again, dir)
  expect_false(dir.exists(file.path(dir, "data", "00000002")))
})
