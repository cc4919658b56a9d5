# Installs the package the way a user does (R CMD build, then R CMD INSTALL of the tarball)
# into a temporary library, and runs it from a fresh R process with none of the project's
# environment variables: the Python module must come from the installed package and Python
# must be found without RETICULATE_PYTHON.
# Under R CMD check (CI) that install is the check's own: the tests run on the installed
# tarball, whose files the check unpacked into <pkg>.Rcheck/00_pkg_src. The test uses them
# rather than building and installing the package a second time.

# The library holding the installed tarball, and the tarball's file names.
installed_tarball <- function(work) {
  checked <- checked_install()
  if (!is.null(checked)) return(checked)
  root <- skip_if_no_source_tree()
  r <- file.path(R.home("bin"), "R")
  built <- processx::run(r, c("CMD", "build", "--no-build-vignettes", "--no-manual", root),
                         wd = work, error_on_status = FALSE)
  expect_equal(built$status, 0, info = built$stderr)
  tarball <- list.files(work, "^predictivebench_.*\\.tar\\.gz$", full.names = TRUE)
  expect_length(tarball, 1)
  lib <- file.path(work, "lib")
  dir.create(lib)
  installed <- processx::run(r, c("CMD", "INSTALL", "--no-test-load", paste0("--library=", lib),
                                  tarball),
                             wd = work, error_on_status = FALSE)
  expect_equal(installed$status, 0, info = installed$stderr)
  list(lib = lib, files = utils::untar(tarball, list = TRUE))
}

# Under R CMD check: the check's library and the tarball's files it unpacked; else NULL.
checked_install <- function() {
  if (!nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_"))) return(NULL)
  lib <- dirname(find.package("predictivebench"))
  unpacked <- file.path(lib, "00_pkg_src")
  if (!dir.exists(file.path(unpacked, "predictivebench"))) return(NULL)
  files <- list.files(unpacked, recursive = TRUE, all.files = TRUE)
  list(lib = lib, files = files[startsWith(files, "predictivebench/")])
}

test_that("the installed tarball prepares every benchmark's raw files and runs an offline eval", {
  skip_on_cran()
  skip_if_not_installed("callr")
  skip_if_not_installed("processx")

  work <- withr::local_tempdir()
  install <- installed_tarball(work)
  lib <- install$lib
  # The tarball carries the Python module and its schemas, and no python/ project folder.
  files <- install$files
  expect_true("predictivebench/inst/python/predictivebench/__init__.py" %in% files)
  expect_true(any(grepl("^predictivebench/inst/python/predictivebench/schemas/.*\\.json$", files)))
  expect_false(any(startsWith(files, "predictivebench/python/")))

  out <- callr::r(function(lib, work) {
    Sys.unsetenv(c("RETICULATE_PYTHON", "PREDICTIVEBENCH_PYTHON_PATH",
                   "PREDICTIVEBENCH_CACHE_DIR", "RETICULATE_PYTHON_ENV"))
    # reticulate's and predictivebench's own caches go to the temporary folder.
    Sys.setenv(R_USER_CACHE_DIR = file.path(work, "cache"))
    library(predictivebench, lib.loc = lib)
    src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
    table <- prepare_task_table("futurex", src, out = file.path(work, "futurex.parquet"))
    tsk <- futurex_task(futurex_dataset(file.path(work, "futurex.parquet")),
                        dir = file.path(work, "logs"))
    tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}"), view = FALSE)
    # Every benchmark's raw files, flattened by the installed package alone.
    extdata <- function(...) system.file("extdata", ..., package = "predictivebench")
    prepared <- c(
      dsbench = nrow(prepare_task_table("dsbench", extdata("dsbench"))),
      processbench = nrow(prepare_task_table("processbench", extdata("processbench-sample.json"))),
      deltabench = nrow(prepare_task_table("deltabench", extdata("deltabench-sample.jsonl"))),
      probsem = nrow(prepare_task_table("probsem", extdata("probsem", "weather.txt"))),
      arena = nrow(prepare_task_table("arena", extdata("arena", "data", "sample", "questions.csv")))
    )
    list(
      prepared = prepared,
      package = find.package("predictivebench"),
      module = reticulate::py_eval("__import__('predictivebench').__file__"),
      python = reticulate::py_exe(),
      n = nrow(tsk$get_samples()),
      results = unique(tsk$get_samples()$result),
      logs = list.files(file.path(work, "logs"))
    )
  }, args = list(lib = lib, work = work), libpath = c(lib, .libPaths()))

  expect_equal(normalizePath(out$package), normalizePath(file.path(lib, "predictivebench")))
  expect_true(startsWith(normalizePath(out$module),
                         normalizePath(file.path(lib, "predictivebench", "python"))))
  expect_equal(out$n, 11)
  expect_equal(out$results, "\\boxed{Yes}")
  expect_length(out$logs, 1)
  expect_named(out$prepared, c("dsbench", "processbench", "deltabench", "probsem", "arena"))
  expect_true(all(out$prepared > 0))
})
