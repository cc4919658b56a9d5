# The source tree's own rules (they need the checkout, so they skip on an installed package
# unless PREDICTIVEBENCH_SOURCE_DIR names it, as CI's check does: helper-source-tree.R).

test_that("every R file has its own test file", {
  root <- skip_if_no_source_tree()
  sources <- sub("\\.R$", "", list.files(file.path(root, "R"), pattern = "\\.R$"))
  expect_gt(length(sources), 50)
  # the package's help page file holds no code
  sources <- setdiff(sources, "predictivebench-package")
  tests <- list.files(file.path(root, "tests", "testthat"), pattern = "^test-.*\\.R$")
  missing <- sources[!paste0("test-", sources, ".R") %in% tests]
  expect_equal(missing, character())
})

test_that("a PREDICTIVEBENCH_SOURCE_DIR that is no source tree is an error, not a skip", {
  withr::local_envvar(PREDICTIVEBENCH_SOURCE_DIR = withr::local_tempdir())
  expect_error(source_tree(), "not a predictivebench source tree")
})

test_that("PREDICTIVEBENCH_SOURCE_DIR names the source tree wherever the tests run", {
  root <- skip_if_no_source_tree()
  withr::local_envvar(PREDICTIVEBENCH_SOURCE_DIR = root)
  withr::local_dir(withr::local_tempdir())
  expect_identical(source_tree(), normalizePath(root))
  expect_true(file.exists(file.path(skip_if_no_source_tree(), "DESCRIPTION")))
})
