# R/engine-transport-errors.R: what a failed request becomes (no HTTP: responses built in memory).

error_response <- function(status, body, type = "application/json", headers = list()) {
  httr2::response(status_code = status, url = "https://api.example.com/v1/chat/completions",
                  headers = c(list(`Content-Type` = type), headers),
                  body = charToRaw(enc2utf8(body)))
}

test_that("the provider's message is read from each provider's error format", {
  said <- function(body, type = "application/json") {
    provider_error_text(error_response(400, body, type))
  }
  expect_equal(said('{"error":{"message":"Bad key","type":"invalid_request_error"}}'),
               "Bad key (invalid_request_error)")
  expect_equal(said('{"type":"error","error":{"type":"overloaded_error","message":"Busy"}}'),
               "Busy (overloaded_error)")
  # Gemini: a status instead of a type, sometimes wrapped in an array
  expect_equal(said('[{"error":{"code":400,"message":"Bad arg","status":"INVALID_ARGUMENT"}}]'),
               "Bad arg (INVALID_ARGUMENT)")
  expect_equal(said('{"error":"plain string error"}'), "plain string error")
  expect_equal(said('{"detail":"Not found"}'), "Not found")
  # no message field: the body itself
  expect_equal(said('{"unexpected":true}'), '{"unexpected":true}')
  expect_equal(said("Service   Unavailable\n\n(upstream)", "text/plain"),
               "Service Unavailable (upstream)")
  expect_null(said("", "text/plain"))
  long <- said(strrep("x", 2000), "text/plain")
  expect_equal(nchar(long), 500)
  expect_match(long, "\\.\\.\\.$")
})

test_that("an HTTP error keeps httr2's classes and fields, so retries and retry-after work", {
  e <- http_error(error_response(429, '{"error":{"message":"Slow down"}}',
                                 headers = list(`retry-after` = "7")))
  expect_s3_class(e, "httr2_http_429")
  expect_equal(conditionMessage(e), "HTTP 429 Too Many Requests: Slow down")
  expect_equal(error_status(e), 429L)
  expect_equal(error_retry_after(e), "7")
  expect_true(is_transient_error(e))
  expect_false(is_auth_error(e))
  auth <- http_error(error_response(401, "", "text/plain"))
  expect_equal(conditionMessage(auth), "HTTP 401 Unauthorized.")
  expect_true(is_auth_error(auth))
  expect_false(is_transient_error(auth))
  expect_true(is_auth_error(http_error(error_response(403, "{}"))))
})

test_that("a redirect is an error naming where it pointed, never retried", {
  e <- http_error(error_response(308, "", "text/plain",
                                 headers = list(Location = "http://evil.example:8080/steal?k=1")))
  expect_s3_class(e, "predictivebench_error_redirect")
  expect_match(conditionMessage(e),
               "^HTTP 308 Permanent Redirect to http://evil.example:8080: not followed")
  # the target's path and query (which could carry anything) are left out of the message
  expect_no_match(conditionMessage(e), "steal")
  expect_false(is_transient_error(e))
  relative <- http_error(error_response(302, "", headers = list(Location = "/v2/chat")))
  expect_match(conditionMessage(relative), "to https://api.example.com: not followed")
})

test_that("a curl timeout is the deadline's error; other failures keep their message", {
  withr::local_options(ellmer_timeout_s = 7)
  timeout <- connection_error("Timeout was reached: [x] Operation timed out after 7001 ms")
  expect_s3_class(timeout, "predictivebench_error_deadline")
  expect_match(conditionMessage(timeout), "deadline of 7 s")
  expect_true(is_transient_error(timeout))
  refused <- connection_error("Failed to connect to 127.0.0.1 port 1: Connection refused")
  expect_s3_class(refused, "predictivebench_connection_error")
  expect_match(conditionMessage(refused), "Connection refused")
  # ellmer's path rejects with httr2's conditions: mapped to the same ones
  httr2_timeout <- rlang::error_cnd(c("httr2_failure", "httr2_error"),
                                    message = "Timeout was reached")
  expect_s3_class(request_error(httr2_timeout), "predictivebench_error_deadline")
  withr::local_options(ellmer_timeout_s = -1)
  expect_error(request_deadline(), class = "predictivebench_error_argument")
})
