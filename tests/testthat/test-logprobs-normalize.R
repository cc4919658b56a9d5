test_that("the softmax is the original's wherever that is finite, and stable elsewhere", {
  x <- c(-1.3, -2.7, -0.2)
  expect_identical(logprob_softmax(x), exp(x) / sum(exp(x)))
  expect_equal(logprob_softmax(log(c(1, 3))), c(0.25, 0.75))
  # The original gives NaN for these (0/0 and Inf/Inf).
  expect_true(all(is.nan(exp(c(-1000, -1001)) / sum(exp(c(-1000, -1001))))))
  expect_equal(logprob_softmax(c(-1000, -1001)), c(1, exp(-1)) / (1 + exp(-1)))
  expect_equal(logprob_softmax(c(800, 799)), c(1, exp(-1)) / (1 + exp(-1)))
  expect_equal(logprob_softmax(c(-Inf, -1)), c(0, 1))
  expect_true(all(is.na(logprob_softmax(c(-Inf, -Inf)))))
  expect_true(all(is.na(logprob_softmax(c(NA, -1)))))
  expect_equal(logprob_softmax(c(-2, -2)), c(0.5, 0.5))
})

test_that("normalization and temperature follow the original's order", {
  expect_equal(logprob_normalize(c(-4, -6), c(2, 3)), c(-4, -6))
  expect_equal(logprob_normalize(c(-4, -6), c(2, 3), "tokens"), c(-2, -2))
  expect_equal(logprob_normalize(c(-4, -6), c(2, 3), TRUE), c(-2, -2))
  expect_equal(logprob_normalize(c(-4, -6), c(4, 9), "sqrt"), c(-2, -2))
  expect_equal(logprob_normalize(c(-4, -6), c(2, 3), "tokens", temperature = 0.5), c(-4, -4))
  expect_equal(logprob_normalize(-3, 1, temperature = 2), -1.5)
  expect_error(logprob_normalize(-3, 1, temperature = 0), class = "predictivebench_error_argument")
  expect_error(logprob_normalize(-3, 1, norm = "mean"), class = "predictivebench_error_argument")
})

test_that("normalization keeps -Inf, so a missing query gets probability 0", {
  for (norm in c("none", "tokens", "sqrt")) {
    logp <- logprob_normalize(c(-1, -Inf, -3), c(1L, NA, 4L), norm, temperature = 2)
    expect_identical(logp[[2]], -Inf)
    expect_false(anyNA(logp))
    p <- logprob_softmax(logp)
    expect_identical(p[[2]], 0)
    expect_equal(sum(p), 1)
  }
  expect_equal(logprob_normalize(c(-1, -Inf, -3), c(1L, NA, 4L), "tokens"), c(-1, -Inf, -0.75))
  expect_identical(logprob_normalize(c(NA, -Inf), c(1L, 0L), "tokens"), c(NA, -Inf))
})

test_that("the softmax equals numpy's exp(x) / sum(exp(x)) within a few ulp", {
  # Computed with numpy 1.24.2 (Python 3.11.2) as
  #   a = np.array(x); p = np.exp(a) / np.sum(np.exp(a)); [repr(float(v)) for v in p]
  # R's exp() and sum() differ from numpy's by up to 2 units in the last place here.
  cases <- list(
    list(x = c(-1.3, -2.7, -0.2),
         p = c(0.23525188368520228, 0.05801240027831481, 0.7067357160364829)),
    list(x = c(-12.345, -13.5, -20.25, -12.5),
         p = c(0.4604387336219158, 0.14506469330984775, 0.00016985329309282253,
               0.39432671977514355)),
    list(x = c(-0.1, -3.2, -7.7, -45.0, -2.0),
         p = c(0.8367372690639715, 0.03769434658429568, 0.00041874636571624646,
               2.647078836475116e-20, 0.1251496379860167))
  )
  for (case in cases) {
    p <- logprob_softmax(case$x)
    expect_true(all(abs(p - case$p) <= 1e-15 * case$p))
    # The same formula as the original, evaluated in R.
    expect_identical(p, exp(case$x) / sum(exp(case$x)))
  }
})
