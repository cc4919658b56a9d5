test_that("comparison_options() checks each field once, naming it", {
  o <- comparison_options(cluster = NULL, times = 200, reducer = "pass_at_k", k = 2)
  expect_s3_class(o, "comparison_options")
  expect_null(o$cluster)
  expect_equal(o$reducer$label, "pass_at_2")
  bad <- list(list(cluster = 3), list(statistic = "mean"), list(level = 1.5),
              list(times = 0), list(seed = "a"), list(k = 2))
  for (args in bad) {
    err <- expect_error(rlang::exec(comparison_options, !!!args),
                        class = "predictivebench_error_argument")
  }
  err <- expect_error(comparison_options(level = 2), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "Field: level")
  expect_error(comparison_options(method = "exact"))
})

test_that("power_options() checks the assumptions once, naming the field", {
  o <- power_options(var_x = 0.25, var_y = 0.21)
  expect_equal(o$sd_diff, sqrt(0.46))
  err <- expect_error(power_options(design_effect = -1),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "Field: design_effect")
  err <- expect_error(power_options(sd_diff = -1), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "Field: sd_diff")
  expect_error(power_options(comparison = list(level = 0.9)),
               class = "predictivebench_error_argument")
  expect_error(power_options(comparison = comparison_options(statistic = mean)),
               class = "predictivebench_error_argument")
  expect_error(power_analysis(n = 10, options = list(sd_diff = 1)),
               class = "predictivebench_error_argument")
  expect_error(compare_models(data.frame(id = 1, score = 1), data.frame(id = 1, score = 1),
                              options = comparison_options),
               class = "predictivebench_error_argument")
})

test_that("the old argument names still work for a release, with a deprecation warning", {
  x <- data.frame(id = 1:8, score = c(1, 1, 1, 0, 1, 1, 0, 1), cluster = rep(1:4, each = 2))
  y <- data.frame(id = 1:8, score = c(1, 0, 1, 0, 0, 1, 0, 1), cluster = rep(1:4, each = 2))
  new <- compare_models(x, y, options = comparison_options(cluster = NULL, method = "bootstrap",
                                                           times = 100, seed = 3))
  expect_warning(old <- compare_models(x, y, cluster = NULL, method = "bootstrap", times = 100,
                                       seed = 3),
                 class = "lifecycle_warning_deprecated")
  expect_equal(old, new)
  # an old name wins over the same field of `options`
  expect_warning(mixed <- compare_models(x, y, options = comparison_options(times = 5),
                                         cluster = NULL, method = "bootstrap", times = 100,
                                         seed = 3),
                 class = "predictivebench_warning_deprecated")
  expect_equal(mixed, new)
  expect_error(compare_models(x, y, tims = 100), class = "predictivebench_error_argument")

  strict <- power_options(sd_diff = 0.3, power = 0.9,
                          comparison = comparison_options(level = 0.99))
  expect_warning(old <- power_analysis(difference = 0.05, sd_diff = 0.3, power = 0.9,
                                       level = 0.99),
                 class = "lifecycle_warning_deprecated")
  expect_equal(old, power_analysis(difference = 0.05, options = strict))
  expect_warning(pilot <- power_analysis(x, y, n = 100, cluster = NULL),
                 class = "lifecycle_warning_deprecated")
  expect_equal(pilot$design_effect, 1)
  expect_error(power_analysis(n = 10, sd_diff = 1, times = 5),
               class = "predictivebench_error_argument")
})
