test_that("nelder_mead() takes scipy fmin's first steps", {
  f <- function(x) (x - 3)^2
  # Simplex {1, 1.05}; reflect 1 through 1.05 to 1.1 (better than the best), expand to
  # 1.15 (better still): after one iteration the best point is 1.15, after 4 calls.
  one <- nelder_mead(f, 1, maxiter = 2)
  expect_equal(one$par, 1.15)
  expect_equal(one$calls, 4L)
  expect_equal(one$value, 1.85^2)
  # A zero start moves by 0.00025, as scipy's does.
  first <- nelder_mead(function(x) sum((x - 1)^2), 0, maxiter = 1)
  expect_equal(first$calls, 2L)
  expect_equal(first$par, 0.00025)
})

test_that("nelder_mead() converges within its tolerances, in one or more dimensions", {
  fit <- nelder_mead(function(x) (x - 3)^2 + 1, 1)
  expect_equal(fit$par, 3, tolerance = 1e-3)
  expect_equal(fit$value, 1, tolerance = 1e-6)
  expect_lt(fit$iterations, 200)
  rosen <- function(x) 100 * (x[2] - x[1]^2)^2 + (1 - x[1])^2
  fit2 <- nelder_mead(rosen, c(-1.2, 1), maxiter = 2000, maxfun = 2000)
  expect_equal(fit2$par, c(1, 1), tolerance = 1e-3)
  # An infinite value (a temperature <= 0) is never accepted as the best point.
  fit3 <- nelder_mead(function(x) if (x <= 0) Inf else (log(x) + 1)^2, 1)
  expect_equal(fit3$par, exp(-1), tolerance = 1e-3)
  # The call budget stops it.
  expect_lte(nelder_mead(rosen, c(-1.2, 1), maxfun = 30)$calls, 34)
})
