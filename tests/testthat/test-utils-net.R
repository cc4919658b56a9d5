test_that("an origin is scheme, host and port: what a key may be sent to", {
  expect_equal(url_origin("https://api.example.com/v1/chat?x=1"), "https://api.example.com")
  expect_equal(url_origin("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080")
  expect_false(identical(url_origin("https://a.example.com/v1"),
                         url_origin("https://a.example.com.evil.test/v1")))
})

test_that("a server's Retry-After is honoured up to one cap, in the engine and the downloads", {
  expect_equal(retry_delay(list(retry_after = "5"), 1L, 1), 5)
  expect_equal(retry_delay(list(retry_after = "600"), 1L, 1), retry_after_cap_s)
  expect_equal(retry_delay(list(), 3L, 1), 4)  # no Retry-After: the backoff doubles
})

test_that("missing counts add up as nothing", {
  expect_equal(zero_na(c(1, NA, 2)), c(1, 0, 2))
  expect_equal(zero_na(NULL), double())
  expect_gte(now_seconds(), 0)
})

test_that("a URL is shown without its userinfo or query values, which are credentials", {
  expect_equal(
    shown_url(c("at http://team:s3cret@127.0.0.1:8/v1?key=abc&v=2 or https://tok@h/x",
                "mail@h and http://h/a@b", NA)),
    c("at http://****@127.0.0.1:8/v1?key=****&v=**** or https://****@h/x",
      "mail@h and http://h/a@b", NA)
  )
  expect_equal(shown_url("https://api.openai.com/v1"), "https://api.openai.com/v1")
  expect_equal(url_credentials("http://te%40am:s3c%2Fret@h/v1?key=abc"),
               c("te@am", "s3c/ret", "abc"))
  expect_equal(url_credentials("https://api.openai.com/v1"), character())
  # a provider's error that repeats the URL says it without the password, however short
  err <- redact_error(simpleError("GET http://team:pw@h/v1 failed"),
                      credential_values(url = "http://team:pw@h/v1"))
  expect_equal(conditionMessage(err), "GET http://****@h/v1 failed")
  expect_true("s3cret" %in% credential_values(url = "http://team:s3cret@h/v1"))
})
