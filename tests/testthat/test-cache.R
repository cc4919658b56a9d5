test_that("cache round trip, miss, and unreadable entries", {
  dir <- withr::local_tempdir()
  key <- cache_key("a", list(b = 1))
  expect_null(cache_get(dir, key))
  cache_set(dir, key, list(text = "hi"))
  expect_equal(cache_get(dir, key)$text, "hi")
  expect_true(cache_has(dir, key))
  writeLines("garbage", cache_path(dir, key))
  expect_null(cache_get(dir, key))
  expect_equal(cache_clear(dir), 1L)
})

test_that("cache keys depend on content, not on object identity", {
  expect_equal(cache_key(list(a = 1, b = "x")), cache_key(list(a = 1, b = "x")))
  expect_false(cache_key("a", 1) == cache_key("a", 2))
})

test_that("cache_dir honours FALSE, a path, the option and the env var", {
  expect_null(cache_dir(FALSE))
  expect_equal(cache_dir("x"), "x")
  withr::with_options(list(predictivebench.cache_dir = "opt"), expect_equal(cache_dir(), "opt"))
  withr::with_envvar(c(PREDICTIVEBENCH_CACHE_DIR = "env"), expect_equal(cache_dir(), "env"))
  expect_error(cache_dir(1), class = "predictivebench_error_argument")
})
