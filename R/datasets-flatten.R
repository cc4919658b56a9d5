# The bridge to the Python flatteners: Python parses raw files, R writes parquet.

#' Flatten raw benchmark files into a parquet task table
#'
#' `prepare_task_table()` runs a benchmark's Python flattener (the same code as
#' `python -m predictivebench prepare`) through reticulate, checks the result against the
#' benchmark's schema and writes it with nanoparquet, so it needs pandas but no Python
#' parquet engine. Each benchmark has a wrapper, such as [prepare_futurex()].
#'
#' Python is found as [python_available()] describes: with an internet connection,
#' reticulate's managed environment (declared with `reticulate::py_require()`); otherwise the
#' Python you chose for reticulate (`RETICULATE_PYTHON`), a virtual environment named
#' `r-predictivebench`, or a system Python that has pandas (on Debian, `/usr/bin/python3` with
#' `python3-pandas` and `python3-openpyxl`). The `predictivebench` Python module is the one
#' installed with this package; set `PREDICTIVEBENCH_PYTHON_PATH` (or the option
#' `predictivebench.python_path`) to a folder holding another `predictivebench/` to use that.
#'
#' @section Errors:
#' Every problem with the raw files is a `predictivebench_error_<kind>` condition (see
#' [predictivebench-errors]) naming the file, row and field. Besides each benchmark's own
#' checks, every flattener refuses a NUL byte in a text file (`encoding`: a damaged file, or
#' UTF-16 text) and the numbers `NaN`, `Infinity` and `-Infinity` anywhere in a JSON file
#' (`json`: they are not JSON, though Python's parser takes them; the field is named by its
#' path, such as `Std` or `context[2].expected`). The table it makes is checked again: no
#' infinite number, no NUL character, and for DSBench no file name that leaves the data
#' folder (`path`).
#'
#' @param benchmark The flattener, one of `"futurex"`, `"dsbench"`, `"deltabench"`,
#'   `"processbench"`, `"probsem"` (the arena needs no flattener: see [prepare_arena()]).
#' @param source The raw file or folder; several files where the flattener stacks them
#'   (ProcessBench's splits, see [prepare_processbench()]).
#' @param out The parquet file to write. `NULL` returns the table without writing it.
#' @param ... Options passed to the flattener by name (see each wrapper).
#' @returns The path `out` (invisibly), or the task table when `out` is `NULL`.
#' @export
#' @examplesIf python_available()
#' src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
#' prepare_task_table("futurex", src, out = NULL)
prepare_task_table <- function(benchmark, source, out = NULL, ...) {
  check_string(benchmark)
  check_strings(source)
  check_string(out, allow_null = TRUE)
  module <- python_module()
  preparer <- call_python(module$get_preparer(benchmark), source)
  json <- call_python(module$prepare_json(benchmark, python_strings(source), ...), source)
  table <- table_from_columns(json, preparer$schema)
  if (is.null(out)) return(table)
  write_parquet_table(table, out, preparer$schema)
}

# Strings for Python: one as a str, several as a list (the flattener's "several files").
python_strings <- function(x) {
  if (is.null(x) || length(x) == 1) x else as.list(x)
}

call_python <- function(expr, source, call = rlang::caller_env()) {
  tryCatch(expr, error = function(e) rethrow_python(e, source, call))
}

rethrow_python <- function(e, source, call) {
  # reticulate raises Python exceptions as conditions that are also the Python object.
  info <- if (inherits(e, "predictivebench.errors.PredictiveBenchError")) {
    tryCatch(reticulate::py_to_r(e$as_dict()), error = function(e2) NULL)
  }
  if (is.null(info)) {
    message <- sub("\nRun `reticulate::py_last_error\\(\\)`.*$", "", conditionMessage(e))
    abort_pb(c("The Python flattener failed.", x = message), "python",
             file = paste(source, collapse = ", "), call = call)
  }
  abort_pb(info$message, info$kind, file = info$file %||% paste(source, collapse = ", "),
           row = info$row,
           field = info$field, call = call)
}
