test_that("max_cost refuses a set whose preview is above it, or can't be bounded", {
  preview <- tibble::tibble(benchmark = c("futurex", "dsbench"), model = "m/x",
                            to_send = c(2, 3), cost_max = c(0.5, 0.75))
  expect_error(check_max_cost(preview, 1), class = "predictivebench_error_cost")
  expect_identical(check_max_cost(preview, 2), preview)
  # a cell with nothing to send costs nothing, even unpriced
  done <- tibble::tibble(benchmark = "futurex", model = "m/x", to_send = 0, cost_max = NA_real_)
  expect_identical(check_max_cost(rbind(preview, done), 2), rbind(preview, done))
  unpriced <- preview
  unpriced$cost_max[[2]] <- NA
  expect_error(check_max_cost(unpriced, 100), "unknown", class = "predictivebench_error_cost")
})
