test_that("the module comes from the installed package unless overridden", {
  withr::local_envvar(PREDICTIVEBENCH_PYTHON_PATH = NA)
  withr::local_options(predictivebench.python_path = NULL)
  expect_equal(python_module_path(), system.file("python", package = "predictivebench"))
  withr::local_envvar(PREDICTIVEBENCH_PYTHON_PATH = "/nonexistent/folder")
  err <- expect_error(python_module_path(), class = "predictivebench_error_dependency")
  expect_match(conditionMessage(err), "/nonexistent/folder", fixed = TRUE)
  expect_false(grepl("pip install", conditionMessage(err), fixed = TRUE))
})

test_that("without any usable Python the error says what to install", {
  err <- expect_error(python_abort_missing(call = NULL), class = "predictivebench_error_dependency")
  msg <- cli::ansi_strip(conditionMessage(err))
  expect_match(msg, "No Python with pandas", fixed = TRUE)
  if (file.exists("/etc/debian_version")) {
    expect_match(msg, "apt-get install python3-pandas python3-openpyxl", fixed = TRUE)
  } else {
    expect_match(msg, "pip install pandas openpyxl pyxlsb", fixed = TRUE)
  }
  expect_false(grepl("source checkout", msg, fixed = TRUE))
  err <- expect_error(python_abort_no_pandas("/opt/py/bin/python3", "the Python you chose",
                                             call = NULL))
  msg <- cli::ansi_strip(conditionMessage(err))
  expect_match(msg, "/opt/py/bin/python3", fixed = TRUE)
  expect_match(msg, "-m pip install pandas openpyxl pyxlsb", fixed = TRUE)
})

test_that("a system Python with pandas is found when reticulate's own can't be made", {
  skip_if_not(file.exists("/usr/bin/python3") &&
                system2("/usr/bin/python3", c("-c", shQuote("import pandas")),
                        stdout = FALSE, stderr = FALSE) == 0,
              "no system Python with pandas")
  found <- python_find_system()
  expect_true(is.character(found) && file.exists(found))
  expect_equal(system2(found, c("-c", shQuote("import pandas")), stdout = FALSE,
                       stderr = FALSE), 0)
})

test_that("python_available() is a single logical", {
  expect_true(rlang::is_bool(python_available()))
})

test_that("a RETICULATE_PYTHON that does not exist is named in the error", {
  skip_on_cran()
  skip_if_not_installed("callr")
  root <- skip_if_no_source_tree()
  msg <- callr::r(function(root) {
    Sys.setenv(RETICULATE_PYTHON = "/nonexistent/bin/python3")
    pkgload::load_all(root, quiet = TRUE, helpers = FALSE)
    err <- tryCatch(prepare_futurex("questions.json"), error = identity)
    c(class(err)[[1]], cli::ansi_strip(conditionMessage(err)), deparse(err$call[[1]]))
  }, args = list(root = root))
  expect_equal(msg[[1]], "predictivebench_error_dependency")
  expect_match(msg[[2]], "/nonexistent/bin/python3", fixed = TRUE)
  expect_equal(msg[[3]], "prepare_futurex")
})
