# Finding a Python with pandas and the predictivebench module that ships in inst/python.

python_packages <- c("pandas", "openpyxl", "pyxlsb")

#' Is the Python side available?
#'
#' `python_available()` is `TRUE` when a Python with pandas and the `predictivebench` module
#' can be used, so the `prepare_*()` functions can prepare raw benchmark files. Evaluating a
#' task from a parquet task table needs no Python. Use it to guard code that needs Python:
#' `if (python_available()) prepare_futurex(...)`.
#'
#' The first call starts Python (as the first `prepare_*()` call would), in this order:
#'
#' 1. a Python reticulate is already running, or one the user chose (`RETICULATE_PYTHON`,
#'    [reticulate::use_python()], an activated virtual environment);
#' 2. otherwise reticulate's managed environment, declared with
#'    `reticulate::py_require(c("pandas", "openpyxl", "pyxlsb"))`: with an internet
#'    connection reticulate installs them itself, with nothing to set up;
#' 3. when that environment can't be made (offline, say), a virtual environment named
#'    `r-predictivebench` (see [reticulate::virtualenv_create()]) or a system Python that has
#'    pandas, such as Debian's `/usr/bin/python3` with `python3-pandas`.
#'
#' The `predictivebench` Python module is the one installed with this package
#' (`system.file("python", package = "predictivebench")`), or the folder in the option
#' `predictivebench.python_path` or the environment variable `PREDICTIVEBENCH_PYTHON_PATH`
#' (a folder holding `predictivebench/`), which take precedence.
#'
#' @returns A single logical.
#' @noRd
python_available <- function() {
  tryCatch({
    python_module()
    TRUE
  }, error = function(e) FALSE)
}

python_module <- function(call = rlang::caller_env()) {
  python_start(call)
  path <- python_module_path(call)
  module <- reticulate::import_from_path("predictivebench", path = path, delay_load = FALSE)
  if (!reticulate::py_has_attr(module, "prepare_json")) {
    abort_pb(
      c("The Python module {.pkg predictivebench} in {.file {path}} is not this package's.",
        i = "Unset {.envvar PREDICTIVEBENCH_PYTHON_PATH} to use the module installed with the package."),
      "dependency", call = call
    )
  }
  module
}

# The override, then the module installed with the R package (under pkgload, the checkout's
# inst/python).
python_module_path <- function(call = rlang::caller_env()) {
  explicit <- c(getOption("predictivebench.python_path"),
                Sys.getenv("PREDICTIVEBENCH_PYTHON_PATH"))
  explicit <- explicit[nzchar(explicit)]
  dir <- if (length(explicit)) explicit[[1]] else system.file("python", package = "predictivebench")
  if (nzchar(dir) && file.exists(file.path(dir, "predictivebench", "__init__.py"))) return(dir)
  abort_pb(
    c("Can't find the {.pkg predictivebench} Python module.",
      x = if (length(explicit)) "{.file {dir}} (from {.envvar PREDICTIVEBENCH_PYTHON_PATH} or the option {.code predictivebench.python_path}) has no {.file predictivebench/__init__.py}.",
      i = if (length(explicit)) "Unset it to use the module installed with the package." else "Reinstall the package: its {.file python} folder is missing."),
    "dependency", call = call
  )
}

# ---- starting Python ----------------------------------------------------------------------

python_start <- function(call = rlang::caller_env()) {
  if (reticulate::py_available(initialize = FALSE)) {
    return(python_check_pandas("the Python reticulate is already using", call))
  }
  reticulate::py_require(python_packages)
  chosen <- tryCatch(reticulate::py_discover_config(), error = function(e) e)
  if (inherits(chosen, "error")) {
    abort_pb(c("reticulate can't use the Python you chose.", x = conditionMessage(chosen)),
             "dependency", call = call)
  }
  if (!is.null(chosen)) {
    started <- tryCatch(python_init_quietly(), error = function(e) e)
    if (inherits(started, "error")) {
      abort_pb(c("reticulate can't start the Python you chose, {.file {chosen$python}}.",
                 x = conditionMessage(started)),
               "dependency", call = call)
    }
    return(python_check_pandas("the Python you chose for reticulate", call))
  }
  if (python_start_managed()) return(invisible(TRUE))
  found <- python_find_system()
  if (is.null(found)) python_abort_missing(call)
  cli::cli_inform(c(
    i = "Using {.file {found}}: reticulate's managed Python environment could not be set up (offline?)."
  ), class = "predictivebench_message_python")
  reticulate::use_python(found, required = TRUE)
  python_init_quietly()
  python_check_pandas("the Python found on this system", call)
}

# Starts Python, keeping reticulate's messages and download warnings out of the console;
# an error still propagates.
python_init_quietly <- function() {
  utils::capture.output(
    invisible(suppressMessages(suppressWarnings(reticulate::py_config()))),
    type = "message"
  )
  invisible(TRUE)
}

# reticulate's managed environment (uv) for the requirements declared above. Offline it fails
# when it can't download uv: the short timeout makes that quick where the network drops
# packets instead of refusing them.
python_start_managed <- function() {
  ok <- tryCatch(
    withr::with_options(list(timeout = 15), python_init_quietly()),
    error = function(e) FALSE
  )
  isTRUE(ok) && reticulate::py_available(initialize = FALSE)
}

# A virtual environment named r-predictivebench, then the system's Pythons: the first that
# imports pandas.
python_find_system <- function() {
  venv <- tryCatch(
    if (reticulate::virtualenv_exists("r-predictivebench")) {
      reticulate::virtualenv_python("r-predictivebench")
    },
    error = function(e) NULL
  )
  candidates <- unique(c(venv, Sys.which("python3"), "/usr/bin/python3",
                         "/usr/local/bin/python3", Sys.which("python")))
  candidates <- candidates[nzchar(candidates) & file.exists(candidates)]
  for (python in candidates) {
    status <- suppressWarnings(system2(python, c("-c", shQuote("import pandas")),
                                       stdout = FALSE, stderr = FALSE, timeout = 60))
    if (identical(as.integer(status), 0L)) return(unname(python))
  }
  NULL
}

python_check_pandas <- function(which, call) {
  if (reticulate::py_module_available("pandas")) return(invisible(TRUE))
  python_abort_no_pandas(reticulate::py_exe(), which, call)
}

python_abort_no_pandas <- function(python, which, call) {
  abort_pb(
    c("{.pkg pandas} is not installed in {which}, {.file {python}}.",
      i = "Install it there: {.code {shQuote(python)} -m pip install pandas openpyxl pyxlsb}",
      python_install_hint()),
    "dependency", call = call
  )
}

python_abort_missing <- function(call) {
  abort_pb(
    c("No Python with {.pkg pandas} is available to prepare raw benchmark files.",
      x = "reticulate's managed environment could not be set up (it needs an internet connection the first time), and no system Python has pandas.",
      python_install_hint(),
      i = "Evaluating a task from a parquet task table needs no Python."),
    "dependency", call = call
  )
}

# What to install, for this platform.
python_install_hint <- function() {
  if (file.exists("/etc/debian_version")) {
    return(c(i = "On Debian or Ubuntu: {.code sudo apt-get install python3-pandas python3-openpyxl}"))
  }
  if (.Platform$OS.type == "windows") {
    return(c(
      i = "Make a virtual environment that predictivebench finds by itself:",
      " " = "{.code py -m venv %USERPROFILE%\\.virtualenvs\\r-predictivebench}",
      " " = "{.code %USERPROFILE%\\.virtualenvs\\r-predictivebench\\Scripts\\pip install pandas openpyxl pyxlsb}"
    ))
  }
  c(
    i = "Make a virtual environment that predictivebench finds by itself:",
    " " = "{.code python3 -m venv ~/.virtualenvs/r-predictivebench}",
    " " = "{.code ~/.virtualenvs/r-predictivebench/bin/pip install pandas openpyxl pyxlsb}"
  )
}
