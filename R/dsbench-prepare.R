# DSBench: prepare_dsbench(), the R side of the Python flattener (raw folder -> task table).

#' Flatten a DSBench data-analysis folder into a task table
#'
#' Runs the Python flattener (`python -m predictivebench prepare dsbench`) through
#' reticulate and writes the `dsbench` task table with nanoparquet. The folder is the
#' original repository's `data_analysis/` layout: `data.json` (JSON Lines) and
#' `data/<id>/` competition folders with `introduction.txt`, `questionN.txt`, Excel workbooks
#' and images. Each question becomes one row whose `input` is, byte for byte, the prompt the
#' original notebooks send: every workbook (`xlsx`, `xlsb`, `xlsm`, except names containing
#' "answer") read with pandas defaults and rendered with `DataFrame.to_string(index=False)`,
#' then the introduction and the question. `.xlsb` workbooks are read the same way, by
#' pandas through the Python package `pyxlsb` (its engine for binary workbooks; install it
#' with `pip install pyxlsb`), so their dates come through as Excel serial numbers, as in
#' the original. The workbook names go into the `workbook_files` column, the list the files
#' mode of [dsbench_solver()] lets a model open. See [prepare_task_table()] for how Python
#' is found and `task_table_schema()` (`"dsbench"`) for the columns.
#'
#' @section Errors:
#' Problems are signalled as `predictivebench_error_<kind>` conditions (see
#' [predictivebench-errors]) naming the file and the competition: `missing_file` (a
#' missing `data.json`, competition folder, `introduction.txt` or question file), `json`
#' (a line that is not JSON), `field` (a malformed competition object), `count_mismatch`
#' (questions and answers differ in number), `path` (an id, question name or link that
#' would leave the folder), `workbook` (a corrupt or password-protected workbook) and
#' `dependency` (an `.xlsb` workbook without the Python package `pyxlsb`).
#'
#' @param source The folder holding `data.json` (competition folders in its `data/`
#'   subfolder or beside it), or the `data.json` file.
#' @param out The parquet file to write, or `NULL` to return the table. The file records
#'   the DSBench folder it was made from (its path, and its path relative to `out` when
#'   `out` is written inside that folder), so [dsbench_dataset()] finds the competition
#'   folders without its `data_dir`.
#' @param on_error `"error"` (the default) stops at the first broken competition or
#'   question (missing file or folder, unreadable or password-protected workbook,
#'   question/answer count mismatch, a name that would leave `source`) with an error naming
#'   the competition and the file. `"skip"` leaves broken items out, warns with the list,
#'   and attaches it to the result as the attribute `"skipped"`.
#' @param ... Passed on to [prepare_task_table()].
#' @returns The path `out` (invisibly), or the table; with `on_error = "skip"` either has
#'   an attribute `"skipped"` (a tibble: `competition`, `question`, `file`, `kind`,
#'   `message`).
#' @noRd
prepare_dsbench <- function(source, out = NULL, on_error = c("error", "skip"), ...) {
  check_string(source)
  check_string(out, allow_null = TRUE)
  on_error <- rlang::arg_match(on_error)
  table <- if (on_error == "skip") dsbench_prepare_skipping(source, ...) else
    run_flattener("dsbench", source, ...)
  if (is.null(out)) return(table)
  write_parquet_table(table, out, "dsbench", metadata = dsbench_root_metadata(source, out))
  skipped <- attr(table, "skipped")
  invisible(if (is.null(skipped)) out else structure(out, skipped = skipped))
}

# Where the table came from, for dsbench_dataset() to find the competition folders without
# `data_dir`: the folder's absolute path, and its path relative to the parquet file's folder
# when it lies inside that folder (then the two can be moved together).
dsbench_root_metadata <- function(source, out) {
  root <- dsbench_root(source)
  dir.create(dirname(out), recursive = TRUE, showWarnings = FALSE)
  here <- normalizePath(dirname(out), mustWork = TRUE)
  meta <- c(predictivebench.dsbench_root = root)
  if (root == here) {
    meta[["predictivebench.dsbench_root_relative"]] <- "."
  } else if (startsWith(root, paste0(here, "/"))) {
    meta[["predictivebench.dsbench_root_relative"]] <- substring(root, nchar(here) + 2)
  }
  meta
}

dsbench_prepare_skipping <- function(source, ...) {
  report <- tempfile(fileext = ".json")
  on.exit(unlink(report), add = TRUE)
  result <- run_flattener("dsbench", source, on_error = "skip",
                               skipped_report = report, quiet = TRUE, ...)
  items <- if (file.exists(report)) jsonlite::read_json(report) else list()
  skipped <- tibble::tibble(
    competition = vapply(items, function(x) x$competition %||% NA_character_, ""),
    question = vapply(items, function(x) x$question %||% NA_character_, ""),
    file = vapply(items, function(x) x$file %||% NA_character_, ""),
    kind = vapply(items, function(x) x$kind %||% NA_character_, ""),
    message = vapply(items, function(x) x$message %||% NA_character_, "")
  )
  if (nrow(skipped)) {
    cli::cli_warn(
      c("Skipped {nrow(skipped)} broken item{?s}:",
        rlang::set_names(skipped$message, rep("*", nrow(skipped)))),
      class = "predictivebench_warning_skipped"
    )
  }
  attr(result, "skipped") <- skipped
  result
}

# A pinned version: data.zip unpacked once, with data.json beside the competition folders.
dsbench_real_dir <- function(rows, files = NULL) {
  dir <- file.path(version_dir(rows$benchmark[[1]], rows$version[[1]]), "dsbench")
  if (dir.exists(dir) || is.null(files)) return(dir)
  zip <- files[rows$role == "zip"]
  answers <- files[rows$role == "answers"]
  write_atomic_dir(dir, function(tmp) {
    unzip_safely(zip, tmp)
    file.copy(answers, file.path(tmp, "data.json"), overwrite = TRUE)
  })
  dir
}
