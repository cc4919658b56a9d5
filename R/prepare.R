# The bridge to the Python flatteners: Python parses raw files, R writes parquet.

#' Flatten raw benchmark files into a parquet task table
#'
#' `prepare_task_table()` runs a benchmark's Python flattener (the same code as
#' `python -m predictivebench prepare`) through reticulate, checks the result against the
#' benchmark's schema and writes it with nanoparquet, so it needs pandas but no Python
#' parquet engine. Each benchmark has a wrapper, such as [prepare_futurex()].
#'
#' The Python interpreter is the one reticulate picks: set `RETICULATE_PYTHON` to choose it
#' (on Debian, `/usr/bin/python3` with `python3-pandas`). The `predictivebench` Python module
#' is imported from, in order: `getOption("predictivebench.python_path")` or the environment
#' variable `PREDICTIVEBENCH_PYTHON_PATH` (a folder holding `predictivebench/`), the installed
#' module (`pip install ./python`), and the `python/` folder of a source checkout.
#'
#' @param benchmark The flattener, one of `"futurex"`, `"dsbench"`, `"deltabench"`,
#'   `"processbench"`, `"probsem"` (the arena needs no flattener: see [prepare_arena()]).
#' @param source The raw file or folder.
#' @param out The parquet file to write. `NULL` returns the table without writing it.
#' @param ... Options passed to the flattener by name (see each wrapper).
#' @returns The path `out` (invisibly), or the task table when `out` is `NULL`.
#' @export
#' @examplesIf predictivebench:::python_available()
#' src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
#' prepare_task_table("futurex", src, out = NULL)
prepare_task_table <- function(benchmark, source, out = NULL, ...) {
  check_string(benchmark)
  check_string(source)
  check_string(out, allow_null = TRUE)
  module <- python_module()
  preparer <- call_python(module$get_preparer(benchmark), source)
  json <- call_python(module$prepare_json(benchmark, source, ...), source)
  table <- table_from_columns(json, preparer$schema, file = source)
  if (is.null(out)) return(table)
  write_task_table(table, out, preparer$schema)
}

#' Is the Python side available?
#'
#' `TRUE` when reticulate finds a Python with pandas and the `predictivebench` module.
#' @returns A single logical.
#' @keywords internal
python_available <- function() {
  tryCatch({
    python_module()
    TRUE
  }, error = function(e) FALSE)
}

python_module <- function() {
  if (!requireNamespace("reticulate", quietly = TRUE)) {
    abort_pb("The Python bridge needs the {.pkg reticulate} package.", "dependency")
  }
  ok <- tryCatch(reticulate::py_module_available("pandas"), error = function(e) FALSE)
  if (!ok) {
    abort_pb(
      c("Python with {.pkg pandas} is not available to reticulate.",
        i = "Set {.envvar RETICULATE_PYTHON} to a Python that has pandas and openpyxl,",
        i = "e.g. {.code Sys.setenv(RETICULATE_PYTHON = \"/usr/bin/python3\")} on Debian."),
      "dependency"
    )
  }
  path <- python_module_path()
  module <- if (is.null(path)) {
    reticulate::import("predictivebench", delay_load = FALSE)
  } else {
    reticulate::import_from_path("predictivebench", path = path)
  }
  if (!reticulate::py_has_attr(module, "prepare_json")) {
    abort_pb(
      c("The Python module {.pkg predictivebench} that was found is not this package's.",
        i = "Set {.envvar PREDICTIVEBENCH_PYTHON_PATH} to the checkout's {.file python} folder."),
      "dependency"
    )
  }
  module
}

# Explicit settings win; then a pip-installed module; then a source checkout. The installed
# module is checked by file, not by importing: a folder named `predictivebench` in the working
# directory (an R library, a checkout) would otherwise pass for it.
python_module_path <- function() {
  explicit <- c(getOption("predictivebench.python_path"),
                Sys.getenv("PREDICTIVEBENCH_PYTHON_PATH"))
  for (dir in explicit[nzchar(explicit)]) {
    if (file.exists(file.path(dir, "predictivebench", "__init__.py"))) return(dir)
  }
  if (python_module_installed()) return(NULL)
  for (dir in source_python_path()) {
    if (file.exists(file.path(dir, "predictivebench", "__init__.py"))) return(dir)
  }
  abort_pb(
    c("Can't find the {.pkg predictivebench} Python module.",
      i = "Install it with {.code pip install ./python} from a source checkout,",
      i = "or set {.envvar PREDICTIVEBENCH_PYTHON_PATH} to the checkout's {.file python} folder."),
    "dependency"
  )
}

python_module_installed <- function() {
  tryCatch({
    util <- reticulate::import("importlib.util")
    spec <- util$find_spec("predictivebench")
    origin <- if (is.null(spec)) NULL else spec$origin
    !is.null(origin) && grepl("__init__\\.py$", origin) &&
      !startsWith(normalizePath(origin), normalizePath(getwd()))
  }, error = function(e) FALSE)
}

# The module installed with the R package (inst/python); under pkgload, the checkout's copy.
source_python_path <- function() {
  system.file("python", package = "predictivebench")
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
    abort_pb(c("The Python flattener failed.", x = message), "python", file = source,
             call = call)
  }
  abort_pb(info$message, info$kind, file = info$file %||% source, row = info$row,
           field = info$field, call = call)
}
