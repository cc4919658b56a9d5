test_that("the minimum detectable difference follows the formula on stated inputs", {
  # sd of differences 0.5, 400 items, 80% power, two-sided 5%:
  # (1.959964 + 0.841621) * 0.5 / 20 = 0.0700396
  out <- power_analysis(n = 400, options = power_options(sd_diff = 0.5))
  expect_equal(out$difference, (stats::qnorm(0.975) + stats::qnorm(0.8)) * 0.5 / 20)
  expect_equal(round(out$difference, 5), 0.07004)
  # a vector of n gives one row each; four times the items halve the difference
  curve <- power_analysis(n = c(100, 400), options = power_options(sd_diff = 0.5))
  expect_equal(curve$difference[[1]], 2 * curve$difference[[2]])
  # design effect 2 widens it by sqrt(2)
  doubled <- power_options(sd_diff = 0.5, design_effect = 2)
  expect_equal(power_analysis(n = 400, options = doubled)$difference, sqrt(2) * out$difference)
})

test_that("the items needed follow the formula on stated inputs", {
  # 2.801585^2 * 0.25 / 0.03^2 = 2180.2 -> 2181 items
  out <- power_analysis(difference = 0.03, options = power_options(sd_diff = 0.5))
  expect_equal(out$n, ceiling((stats::qnorm(0.975) + stats::qnorm(0.8))^2 * 0.25 / 0.03^2))
  expect_equal(out$n, 2181)
  # 90% power at 1%: (2.575829 + 1.281552)^2 * 0.09 / 0.05^2 = 535.6 -> 536
  strict <- power_options(sd_diff = 0.3, power = 0.9,
                          comparison = comparison_options(level = 0.99))
  expect_equal(power_analysis(difference = 0.05, options = strict)$n, 536)
  # round trip: n items detect at most the asked difference
  back <- power_analysis(n = out$n, options = power_options(sd_diff = 0.5))
  expect_lte(back$difference, 0.03)
})

test_that("pilot runs give the variance of differences and the design effect", {
  x <- data.frame(id = 1:6, score = c(1, 1, 1, 0, 0, 1))
  y <- data.frame(id = 1:6, score = c(1, 0, 1, 0, 0, 0))
  out <- power_analysis(x, y, n = 100)
  # d = 0 1 0 0 0 1: sd = sqrt((4 * 1/9 + 2 * 4/9) / 5) = sqrt(4 / 15)
  expect_equal(out$sd_diff, sqrt(4 / 15))
  expect_equal(out$design_effect, 1)
  expect_equal(out$source, "paired pilot")
  one <- power_analysis(x, n = 100)
  # one run: sd(x) * sqrt(2), sd(x)^2 = (4 * 1/9 + 2 * 4/9) / 5 = 4 / 15
  expect_equal(one$sd_diff, sqrt(2) * sqrt(4 / 15))
  # clusters: D = (clustered / naive)^2
  x$cluster <- y$cluster <- rep(1:2, each = 3)
  clustered <- power_analysis(x, y, n = 100)
  d <- c(0, 1, 0, 0, 0, 1)
  expect_equal(clustered$design_effect,
               (clustered_se(d, rep(1:2, each = 3)) / clustered_se(d))^2)
})

test_that("bad input is refused", {
  known <- power_options(sd_diff = 1)
  expect_error(power_analysis(n = 10, difference = 0.1, options = known),
               class = "predictivebench_error_argument")
  expect_error(power_analysis(n = 10), class = "predictivebench_error_argument")
  expect_error(power_options(sd_diff = 1, power = 1), class = "predictivebench_error_argument")
  expect_error(power_analysis(difference = -1, options = known),
               class = "predictivebench_error_argument")
})

test_that("variances and a correlation give the variance of differences", {
  # 0.25 + 0.21 - 2 * 0.5 * sqrt(0.25 * 0.21) = 0.46 - 0.2291288 = 0.2308712
  out <- power_analysis(n = 100, options = power_options(var_x = 0.25, var_y = 0.21,
                                                         correlation = 0.5))
  expect_equal(out$sd_diff^2, 0.46 - sqrt(0.0525))
  expect_equal(out$difference, (stats::qnorm(0.975) + stats::qnorm(0.8)) *
                 sqrt(0.46 - sqrt(0.0525)) / 10)
  # uncorrelated: the variances add
  uncorrelated <- power_options(var_x = 0.25, var_y = 0.21)
  expect_equal(power_analysis(n = 100, options = uncorrelated)$sd_diff, sqrt(0.46))
  expect_error(power_options(var_x = 0.25), class = "predictivebench_error_argument")
  expect_error(power_options(var_x = 0.25, var_y = 0.2, correlation = 2),
               class = "predictivebench_error_argument")
})
