# The bridge to the Python flatteners: Python parses raw files, R writes parquet.

#' Make a benchmark's task table from its raw files
#'
#' @description
#' `prepare_task_table()` turns a benchmark's raw files (the original repository's JSON,
#' JSON Lines, CSV, Excel or text files) into its task table: one row per sample in the
#' benchmark's schema, checked, returned as a tibble or written as parquet for
#' `<benchmark>_dataset(path = out)`. The five Python flatteners (`futurex`, `dsbench`,
#' `deltabench`, `processbench`, `probsem`) are the same code as
#' `python -m predictivebench prepare`, run through reticulate; the table is written with
#' nanoparquet, so Python needs pandas but no parquet engine. The arena's `questions.csv` is
#' read by R (no Python). You need this only for your own copy of a benchmark: each
#' `<benchmark>_dataset()` fetches and prepares the real data itself.
#'
#' Options for one benchmark go in `...`:
#'
#' * `"futurex"`: `source` is a question or predictions JSON file;
#'   `duplicate_ids = c("error", "suffix")` for repeated ids.
#' * `"processbench"`: `source` is one or more ProcessBench split files (stacked in the
#'   order given); `split` names each file's split (default: the file name without its
#'   extension); `on_error = c("error", "skip")`.
#' * `"deltabench"`: `source` is DeltaBench's JSON Lines, JSON or CSV release (a
#'   `processbench`-schema table); `count_unuseful = FALSE` also counts unuseful sections as
#'   errors when `TRUE`; `on_error = c("error", "skip")`.
#' * `"probsem"`: `source` is the prompt file `<name>.txt` with its suites
#'   `<name>_<suite>.json` beside it; `suites` picks suites by name (default: all).
#' * `"dsbench"`: `source` is the `data_analysis/` folder (or its `data.json`); skipping
#'   broken competitions leaves them out with a warning and a `"skipped"` attribute. The
#'   written table records the folder, so [dsbench_dataset()] finds the workbooks.
#' * `"arena"`: `source` is a `questions.csv`.
#'
#' Python is found in this order: a Python reticulate already runs, or the one you chose
#' (`RETICULATE_PYTHON`, [reticulate::use_python()], an activated virtual environment);
#' otherwise reticulate's managed environment (declared with `reticulate::py_require()`,
#' installed by reticulate when online); offline, a virtual environment named
#' `r-predictivebench` or a system Python that has pandas (on Debian, `/usr/bin/python3`
#' with `python3-pandas` and `python3-openpyxl`). Without one, the error (class
#' `predictivebench_error_dependency`) says what to install. The `predictivebench` Python
#' module is the one installed with this package; set `PREDICTIVEBENCH_PYTHON_PATH` (or the
#' option `predictivebench.python_path`) to a folder holding another `predictivebench/` to
#' use that.
#'
#' @section Errors:
#' Every problem with the raw files is a `predictivebench_error_<kind>` condition naming the
#' file, row and field. Besides each benchmark's own checks, every flattener refuses a NUL
#' byte in a text file (`encoding`: a damaged file, or UTF-16 text) and the numbers `NaN`,
#' `Infinity` and `-Infinity` anywhere in a JSON file (`json`: they are not JSON, though
#' Python's parser takes them; the field is named by its path, such as `Std` or
#' `context[2].expected`). The table it makes is checked again: no infinite number, no NUL
#' character, and for DSBench no file name that leaves the data folder (`path`).
#'
#' @param benchmark One of `"futurex"`, `"processbench"`, `"deltabench"`, `"probsem"`,
#'   `"dsbench"`, `"arena"`, or any benchmark registered with a preparer.
#' @param source The raw file or folder; several files where the benchmark stacks them
#'   (ProcessBench's splits).
#' @param out The parquet file to write. `NULL` (the default) returns the table without
#'   writing it.
#' @param ... Options of the benchmark, by name (see Details).
#' @returns The path `out` (invisibly), or the task table (a tibble) when `out` is `NULL`.
#' @family data
#' @export
#' @examples
#' src <- system.file("extdata", "arena", "data", "sample", "questions.csv",
#'                    package = "predictivebench")
#' prepare_task_table("arena", src)
#' # The other benchmarks' flatteners need Python with pandas; without it the error says
#' # what to install.
#' src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
#' tryCatch(prepare_task_table("futurex", src),
#'          predictivebench_error_dependency = function(e) conditionMessage(e))
prepare_task_table <- function(benchmark, source, out = NULL, ...) {
  check_string(benchmark)
  preparers <- Filter(Negate(is.null), lapply(indexed_benchmarks(), function(b) b$data$prepare))
  if (!benchmark %in% names(preparers)) {
    abort_pb(c("There is no benchmark {.val {benchmark}}.",
               i = "Use one of {.val {names(preparers)}}."), "argument", field = "benchmark")
  }
  preparers[[benchmark]](source, out = out, ...)
}

# The bridge every Python flattener goes through: runs it, checks the result against the
# benchmark's schema and writes it with nanoparquet.
run_flattener <- function(benchmark, source, out = NULL, ...) {
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
