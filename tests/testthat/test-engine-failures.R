test_that("requests that failed for good are counted, with the first error", {
  expect_equal(suppressWarnings(warn_failed_requests(c(NA, NA))), 0L)
  expect_warning(n <- warn_failed_requests(c(NA, "HTTP 503", "HTTP 500")),
                 class = "predictivebench_warning_failed_requests")
  expect_equal(n, 2L)
  expect_warning(warn_failed_requests(c(NA, "HTTP 503")), "First error: HTTP 503")
})

test_that("a step whose every request failed says so as a whole", {
  signalled <- FALSE
  withCallingHandlers(
    expect_warning(warn_failed_requests(c("HTTP 404", "HTTP 404"), what = "vote"),
                   "All 2 votes failed", class = "predictivebench_warning_all_failed"),
    predictivebench_step_failed = function(c) signalled <<- TRUE
  )
  expect_true(signalled)
  # report_failures() of an error vector says the same
  expect_warning(report_failures(c("x", NA)), class = "predictivebench_warning_failed_requests")
})
