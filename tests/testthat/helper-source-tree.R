# The package's source tree (DESCRIPTION, R/, .ci/, _pkgdown.yml, inst/python): tests that
# build the package, load it in a child process with pkgload, or scan its sources need it.
# From a checkout (`make test`, `testthat::test_local()`) it is "../.." of tests/testthat.
# Under `R CMD check` the tests run in <pkg>.Rcheck/tests/testthat, where "../.." holds no
# sources: CI names the checkout in PREDICTIVEBENCH_SOURCE_DIR (.ci/check.sh) so that these
# tests run there too. Without either (an installed package, CRAN) they skip, saying why.

source_tree <- function() {
  named <- Sys.getenv("PREDICTIVEBENCH_SOURCE_DIR")
  if (nzchar(named)) {
    # Named on purpose: a wrong name must fail, not quietly skip every source-tree test.
    if (!is_source_tree(named)) {
      stop("PREDICTIVEBENCH_SOURCE_DIR is not a predictivebench source tree: ", named)
    }
    return(normalizePath(named))
  }
  here <- testthat::test_path("..", "..")
  if (is_source_tree(here)) normalizePath(here) else NULL
}

is_source_tree <- function(dir) {
  description <- file.path(dir, "DESCRIPTION")
  file.exists(description) && dir.exists(file.path(dir, "R")) &&
    dir.exists(file.path(dir, "tests", "testthat")) &&
    identical(unname(read.dcf(description, "Package")[1, 1]), "predictivebench")
}

# The source tree, or a skip (the test cannot run on an installed package alone).
skip_if_no_source_tree <- function() {
  root <- source_tree()
  if (is.null(root)) {
    testthat::skip("needs the package's source tree (set PREDICTIVEBENCH_SOURCE_DIR)")
  }
  root
}
