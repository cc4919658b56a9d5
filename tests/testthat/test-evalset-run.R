test_that("only settings that differ from the defaults are named to $eval()", {
  expect_equal(changed_settings(NULL), list())
  expect_equal(changed_settings(request_settings()), setNames(list(), character()))
  changed <- changed_settings(request_settings(max_active = 3, cache = FALSE))
  expect_equal(changed, list(max_active = 3, cache = FALSE))
})

test_that("a cell whose task fails is a failed outcome with its error, and writes no record", {
  dir <- withr::local_tempdir()
  cell <- list(id = "c", chat = baseline_chat("x"), epochs = NULL, label = "b/x",
               benchmark = list(label = "futurex", version = "sample",
                                task = function(...) stop("no task here")))
  out <- run_cell(cell, dir, request_settings(cache = FALSE))
  expect_equal(out$status, "failed")
  expect_false(dir.exists(manifest_dir(dir)))
})
