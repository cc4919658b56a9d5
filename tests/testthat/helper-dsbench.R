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

# pyxlsb for the .xlsb tests: the Python in use if it has it, else ../shared/vendor, put on
# sys.path (only then) for the rest of the calling test.
local_pyxlsb <- function(env = parent.frame()) {
  if (reticulate::py_module_available("pyxlsb")) return(invisible())
  vendor <- normalizePath(file.path(skip_if_no_source_tree(), "..", "shared", "vendor"),
                          mustWork = TRUE)
  sys <- reticulate::import("sys", convert = FALSE)
  sys$path$insert(0L, vendor)
  withr::defer(sys$path$remove(vendor), envir = env)
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
