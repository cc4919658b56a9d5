test_that("each request's usage is counted once, on the first pair that needs it", {
  # requests 1 and 2 are first needed by pair 1, request 3 by pair 3; pair 2 needs none new
  usage <- pair_usage(3, owner = c(1L, 1L, 3L),
                      list(input_tokens = c(10, 5, 7), output_tokens = c(1, 2, 3),
                           cost = c(0.5, NA, 0)))
  expect_equal(usage$input_tokens, c(15, 0, 7))
  expect_equal(usage$output_tokens, c(3, 0, 3))
  # an unknown price stays unknown on its pair, and nowhere else
  expect_equal(usage$cost, c(NA, 0, 0))
  expect_equal(sum(usage$input_tokens), 22)
})
