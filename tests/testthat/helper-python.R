# Tests that run the Python flatteners need /usr/bin/python3 (Debian's pandas) unless the
# user chose another interpreter.
if (!nzchar(Sys.getenv("RETICULATE_PYTHON")) && file.exists("/usr/bin/python3")) {
  Sys.setenv(RETICULATE_PYTHON = "/usr/bin/python3")
}

skip_if_no_python <- function() {
  skip_if_not(predictivebench:::python_available(), "Python with pandas is not available")
}

reference_dir <- function(...) {
  # beside the checkout: ../shared/reference
  root <- file.path(source_tree() %||% testthat::test_path("..", ".."), "..", "shared", "reference")
  file.path(root, ...)
}

skip_if_no_reference <- function(...) {
  path <- reference_dir(...)
  skip_if_not(file.exists(path), paste("reference file not present:", path))
  path
}
