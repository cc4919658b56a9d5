test_that("bounds are clipped to the limits and snapped onto them past rounding error", {
  expect_identical(clip_to_limits(c(-1e-17, 1 + 1e-17, 0.5), c(0, 1)), c(0, 1, 0.5))
  expect_identical(clip_to_limits(c(-0.2, 1.3), c(0, 1)), c(0, 1))
  expect_identical(clip_to_limits(c(-0.2, 1.3), NULL), c(-0.2, 1.3))
})

test_that("scores all the same get the Wilson interval of a proportion seen 0 times", {
  z <- stats::qnorm(0.975)
  expect_true(is_constant(rep(0, 10), c(0, 1)))
  expect_false(is_constant(0.5, c(0, 1)))
  expect_false(is_constant(rep(0, 10), NULL))
  expect_equal(constant_bounds(0, c(0, 1), 10, z), c(0, z^2 / (10 + z^2)))
  expect_equal(constant_bounds(1, c(0, 1), 10, z), c(10 / (10 + z^2), 1))
})
