test_that("an arena run's options take arena_run()'s defaults and refuse bad values by name", {
  opts <- check_arena_options(list(version = "sample", experiment = "e1"))
  expect_equal(opts$strategy, eval(formals(arena_run)$strategy)[[1]])
  expect_equal(opts$n, eval(formals(arena_run)$n))
  err <- expect_error(check_arena_options(list(version = "sample", experiment = "e1",
                                               strategy = "nope"), arg = "arena$"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "strategy", fixed = TRUE)
  expect_error(check_arena_options(list(version = "sample", experiment = "e1", n = -1)),
               class = "predictivebench_error_argument")
  err <- expect_error(check_arena_options(list(version = "sample", experiment = "e1",
                                               times = -1, method = "bt")),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "times", fixed = TRUE)
  expect_equal(check_arena_options(list(version = "s", experiment = "e", method = "bt"))$method,
               "bt")
  expect_error(check_arena_options(list(version = "../x", experiment = "e1")),
               class = "predictivebench_error")
})

test_that("the arena folder must be a folder this process can make or write in", {
  dir <- withr::local_tempdir()
  expect_invisible(check_arena_dir(file.path(dir, "not", "yet")))
  file <- file.path(dir, "a-file")
  writeLines("x", file)
  expect_error(check_arena_dir(file), class = "predictivebench_error_path")
  expect_error(check_arena_dir(file.path(file, "below")), class = "predictivebench_error_path")
})
