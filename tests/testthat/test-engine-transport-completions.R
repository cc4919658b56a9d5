# One completions request sent by the transport alone, outside the pool: the value it
# delivers for request 1 of `texts`.
transport_value <- function(endpoint, texts = "Q\nyes", read = identity) {
  got <- NULL
  transport <- completions_transport(endpoint, texts, 0, read, max_active = 1)
  on.exit(transport$close())
  transport$start(1L, function(i, value) got <<- value)
  while (is.null(got)) transport$drive(1)
  got
}

test_that("a 429 becomes the pool's transient error, with retry-after and the provider's words", {
  server <- local_fake_openai(function(body, n) {
    list(status = 429, headers = list(`retry-after` = "7"))
  })
  got <- transport_value(logprob_endpoint(fake_chat(server)))
  expect_equal(error_status(got), 429L)
  expect_equal(error_retry_after(got), "7")
  expect_true(is_transient_error(got))
  expect_false(is_auth_error(got))
  expect_match(conditionMessage(got), "HTTP 429 Too Many Requests: fake error 429 (fake)",
               fixed = TRUE)
})

test_that("the request is the chat's endpoint: bearer key, extra headers, the echo body", {
  bystander <- local_fake_bystander()
  chat <- ellmer::chat_openai_compatible(
    base_url = paste0(bystander$origin, "/v1"), model = "tiny",
    credentials = function() "sk-test-FAKEKEY", api_headers = c(`X-Route` = "eu")
  )
  got <- transport_value(logprob_endpoint(chat), read = function(resp) "read")
  expect_identical(got, "read")
  seen <- bystander$seen()[[1]]
  expect_identical(toupper(seen$method), "POST")
  expect_identical(seen$path, "/v1/completions")
  expect_true(all(c("authorization", "x-route") %in% tolower(unlist(seen$headers))))
  body <- jsonlite::fromJSON(seen$body)
  expect_identical(body, list(model = "tiny", prompt = "Q\nyes", echo = TRUE, logprobs = 0L,
                              max_tokens = 0L))
  expect_no_match(seen$body, "FAKEKEY", fixed = TRUE)
})

test_that("inside estimate_cost()'s dry run requests go to httr2's mock, never the server", {
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  seen <- list()
  mock <- function(req) {
    seen[[length(seen) + 1]] <<- httr2::req_get_body(req)
    httr2::response(status_code = 503L, url = req$url)
  }
  got <- httr2::with_mocked_responses(
    mock, with_request_session(new_request_session(price = new_dry_run()),
                               transport_value(logprob_endpoint(fake_chat(server))))
  )
  expect_equal(server$count(), 0)
  expect_equal(seen[[1]]$prompt, "Q\nyes")
  expect_equal(error_status(got), 503L)
})
