# Shared by the test-dsbench-*.R files: the bundled sample's DSBench folder.
sample_dir <- function() system.file("extdata", "dsbench", package = "predictivebench")

# Behave as if rtiktoken were not installed, for the rest of the calling test (testthat
# 3.1.6 here has no local_mocked_bindings()).
local_no_tiktoken <- function(env = parent.frame()) {
  ns <- asNamespace("predictivebench")
  old <- get("tiktoken_installed", envir = ns)
  locked <- bindingIsLocked("tiktoken_installed", ns)
  if (locked) unlockBinding("tiktoken_installed", ns)
  assign("tiktoken_installed", function() FALSE, envir = ns)
  withr::defer({
    assign("tiktoken_installed", old, envir = ns)
    if (locked) lockBinding("tiktoken_installed", ns)
  }, envir = env)
}

# The .xlsb tests need pyxlsb in the Python in use; where `import pyxlsb` fails they skip,
# saying why (nothing is put on sys.path from outside the project).
skip_if_no_pyxlsb <- function() {
  if (!reticulate::py_module_available("pyxlsb")) {
    testthat::skip("pyxlsb is not installed in the Python in use: .xlsb workbooks can't be read")
  }
  invisible()
}

# Python behaves as if pyxlsb were not installed (`import pyxlsb` fails) for the rest of the
# calling test, whether or not it is.
local_no_pyxlsb <- function(env = parent.frame()) {
  modules <- reticulate::import("sys", convert = FALSE)$modules
  had <- reticulate::py_to_r(modules$`__contains__`("pyxlsb"))
  old <- if (had) reticulate::py_get_item(modules, "pyxlsb")
  reticulate::py_set_item(modules, "pyxlsb", reticulate::py_none())
  withr::defer(
    if (had) {
      reticulate::py_set_item(modules, "pyxlsb", old)
    } else {
      reticulate::py_del_item(modules, "pyxlsb")
    },
    envir = env
  )
}
