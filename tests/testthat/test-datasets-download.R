# The downloads themselves are tested end to end in test-datasets-fetch*.R; here, the waits.

retry_response <- function(after) {
  httr2::response(status_code = 503L, url = "https://example.test/file",
                  headers = list(`retry-after` = after))
}

test_that("a server's Retry-After is honoured up to the engine's cap, else refused", {
  limits <- list(backoff = 0.5)
  expect_equal(retry_wait(retry_response("3"), 1L, limits, NULL), 3)
  err <- expect_error(retry_wait(retry_response("3600"), 1L, limits, NULL),
                      class = "predictivebench_error_retry_later")
  expect_match(conditionMessage(err), "longer than the 60 s", fixed = TRUE)
  # no Retry-After: the download's own backoff
  expect_equal(retry_wait(httr2::response(status_code = 503L), 2L, limits, NULL), 0.5)
})

test_that("Retry-After is read in seconds or as an HTTP date", {
  expect_equal(download_retry_after(retry_response("7")), 7)
  later <- format(Sys.time() + 30, "%a, %d %b %Y %H:%M:%S GMT", tz = "GMT")
  expect_gt(download_retry_after(retry_response(later)), 20)
  expect_true(is.na(download_retry_after(httr2::response(status_code = 503L))))
})
