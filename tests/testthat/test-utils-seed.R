test_that("with_seed() is reproducible and leaves the global stream where it was", {
  set.seed(7)
  expected_next <- stats::runif(1)
  set.seed(7)
  a <- with_seed(3, stats::runif(2))
  b <- with_seed(3, stats::runif(2))
  expect_equal(a, b)
  expect_equal(stats::runif(1), expected_next)
  expect_equal(with_seed(NULL, 1 + 1), 2)
})

test_that("with_seed() removes a seed it created when there was none", {
  withr::local_preserve_seed()
  if (exists(".Random.seed", globalenv())) rm(".Random.seed", envir = globalenv())
  with_seed(1, stats::runif(1))
  expect_false(exists(".Random.seed", globalenv()))
})

test_that("chat_seed() reads the seed set with ellmer::params()", {
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                         credentials = function() "x",
                                         params = ellmer::params(seed = 11))
  expect_equal(chat_seed(chat), 11)
  expect_null(chat_seed(baseline_constant("a")))
})
