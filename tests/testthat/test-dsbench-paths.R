# A DSBench task table from anywhere (a shared parquet, a data frame) names its folders, image
# and workbooks; none of them may lead outside the data folder, and the run stops with an
# error naming the row and field before any request is sent (images are uploaded to the
# provider, workbooks opened by the model's tools).

# A copy of the bundled DSBench folder in a temp dir, with a secret file beside it (outside
# the data folder) that a hostile table would like to send.
local_dsbench_copy <- function(env = parent.frame()) {
  dir <- withr::local_tempdir(.local_envir = env)
  file.copy(sample_dir(), dir, recursive = TRUE)
  writeBin(as.raw(c(0x89, 0x50, 0x4e, 0x47, 1:20)), file.path(dir, "secret.png"))
  file.copy(file.path(sample_dir(), "data", "00000101", "lemonade.xlsx"),
            file.path(dir, "secret.xlsx"))
  list(root = file.path(dir, "dsbench"), outside = dir)
}

# Runs `table` (rows of the sample, with their data folder) against a fake server; returns
# the error and how many requests reached the server.
run_dsbench_table <- function(table, ...) {
  server <- local_fake_openai(function(body, n) "ok")
  tsk <- dsbench_task(table, solver = dsbench_solver( ...,
                                                     settings = request_settings(cache = FALSE)),
                      scorer = dsbench_scorer_exact(), dir = withr::local_tempdir())
  error <- tryCatch(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)),
                    error = identity)
  list(error = error, sent = length(server$requests()))
}

expect_path_error <- function(run, row, field) {
  expect_s3_class(run$error, "predictivebench_error_path")
  expect_identical(run$error$field, field)
  expect_match(as.character(run$error$row), paste0("^", row, " \\(id "))
  expect_identical(run$sent, 0L)
}

test_that("an image that leaves the data folder is refused before any request", {
  skip_on_os("windows")  # symbolic links
  copy <- local_dsbench_copy()
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  file.symlink(file.path(copy$outside, "secret.png"),
               file.path(copy$root, "data", "00000101", "linked.png"))
  for (used in c("00000101/../../secret.png", file.path(copy$outside, "secret.png"),
                 "00000101/linked.png", "00000102/../../secret.png")) {
    bad <- data
    bad$image_used[[2]] <- used
    expect_path_error(run_dsbench_table(bad), 2, "image_used")
  }
  # Inside the data folder but in another competition's folder: not this row's image.
  file.copy(file.path(copy$root, "data", "00000101", "chart.png"),
            file.path(copy$root, "data", "00000102", "other.png"))
  bad <- data
  bad$image_used[[3]] <- "00000102/other.png"
  expect_path_error(run_dsbench_table(bad), 3, "image_used")
})

test_that("an image that is missing or not an image names the row before any request", {
  copy <- local_dsbench_copy()
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  bad <- data
  bad$image_used[[2]] <- "00000101/gone.png"
  run <- run_dsbench_table(bad)
  expect_s3_class(run$error, "predictivebench_error_missing_file")
  expect_identical(c(run$error$row, run$error$field), c("2 (id 00000101_question2)", "image_used"))
  expect_identical(run$sent, 0L)
  bad$image_used[[2]] <- "00000101/introduction.txt"
  run <- run_dsbench_table(bad)
  expect_s3_class(run$error, "predictivebench_error_field")
  expect_identical(run$error$field, "image_used")
  expect_identical(run$sent, 0L)
})

test_that("a shared parquet gets the same checks as a prepared table", {
  copy <- local_dsbench_copy()
  bad <- dsbench_dataset(version = "sample", data_dir = copy$root)
  bad$folder <- NULL
  bad$image_used[[1]] <- "00000101/../../secret.png"
  path <- write_task_table(bad, file.path(copy$outside, "shared.parquet"), "dsbench")
  run <- run_dsbench_table(dsbench_dataset(path, data_dir = copy$root))
  expect_path_error(run, 1, "image_used")
  expect_snapshot(stop(run$error), error = TRUE,
                  transform = function(x) gsub(copy$outside, "<tmp>", x, fixed = TRUE))
})

test_that("a competition folder that leaves the data folder is refused", {
  skip_on_os("windows")  # symbolic links
  copy <- local_dsbench_copy()
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  # A name that climbs out, as a data frame would have it.
  bad <- data
  bad$competition_dir[bad$competition_id == "00000103"] <- ".."
  # Refused as soon as the table meets its data folder, before any solver is built.
  err <- expect_error(dsbench_dataset(bad[names(bad) != "folder"], data_dir = copy$root),
                      class = "predictivebench_error_path")
  expect_equal(err$row, 6)
  expect_equal(err$field, "competition_dir")
  # Given with its own `folder` column, the solver refuses it before any request.
  expect_path_error(run_dsbench_table(bad, mode = "files"), 6, "competition_dir")
  # A competition folder that is a link to a folder outside.
  moved <- file.path(copy$outside, "moved")
  file.rename(file.path(copy$root, "data", "00000103"), moved)
  file.symlink(moved, file.path(copy$root, "data", "00000103"))
  expect_path_error(run_dsbench_table(data, mode = "files"), 6, "competition_dir")
  # A `folder` that is not the row's competition_dir in a data folder.
  bad <- data
  bad$folder[[1]] <- copy$outside
  expect_path_error(run_dsbench_table(bad), 1, "folder")
})

test_that("the files mode refuses workbooks that leave the competition folder", {
  skip_on_os("windows")  # symbolic links
  copy <- local_dsbench_copy()
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  file.symlink(file.path(copy$outside, "secret.xlsx"),
               file.path(copy$root, "data", "00000102", "linked.xlsx"))
  for (name in c("../../../secret.xlsx", file.path(copy$outside, "secret.xlsx"),
                 "linked.xlsx")) {
    bad <- data
    bad$workbook_files[[5]] <- c("a_inputs.xlsx", name)
    expect_path_error(run_dsbench_table(bad, mode = "files", images = FALSE), 5,
                      "workbook_files")
  }
})

test_that("links that stay inside the folders are followed", {
  skip_on_os("windows")  # symbolic links
  copy <- local_dsbench_copy()
  folder <- file.path(copy$root, "data", "00000101")
  file.symlink(file.path(folder, "stands.png"), file.path(folder, "alias.png"))
  file.symlink(file.path(folder, "lemonade.xlsx"), file.path(folder, "alias.xlsx"))
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  data$image_used[[1]] <- "00000101/alias.png"
  data$workbook_files[[1]] <- "alias.xlsx"
  run <- run_dsbench_table(data[1, ], mode = "files")
  expect_false(inherits(run$error, "error"))
  expect_identical(run$sent, 1L)
})

test_that("a shared parquet can't choose the data folder", {
  copy <- local_dsbench_copy()
  data <- dsbench_dataset(version = "sample", data_dir = copy$root)
  # A folder outside that holds the same competition folders but is no DSBench folder.
  decoy <- file.path(copy$outside, "decoy")
  for (id in unique(data$competition_dir)) dir.create(file.path(decoy, id), recursive = TRUE)
  table <- data[names(data) != "folder"]
  table$folder <- file.path(decoy, table$competition_dir)  # its own column: ignored
  path <- file.path(copy$outside, "elsewhere", "shared.parquet")
  dir.create(dirname(path))
  write_parquet_table(table, path, "dsbench",
                      metadata = c(predictivebench.dsbench_root = decoy))
  expect_true(all(is.na(dsbench_dataset(path)$folder)))
  # The same record pointing at a real DSBench folder (data.json above it) is followed.
  write_parquet_table(table, path, "dsbench",
                      metadata = c(predictivebench.dsbench_root =
                                     file.path(copy$root, "data")))
  expect_equal(dsbench_dataset(path)$folder,
               file.path(normalizePath(file.path(copy$root, "data")), table$competition_dir))
})
