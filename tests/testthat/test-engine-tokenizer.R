test_that("tiktoken_encoding() gives tiktoken's encoding for a model, NULL when unknown", {
  skip_if_not_installed("rtiktoken")
  expect_identical(tiktoken_encoding("gpt-4o-2024-05-13"), "o200k_base")
  expect_identical(tiktoken_encoding("gpt-3.5-turbo-0125"), "cl100k_base")
  expect_identical(tiktoken_encoding("cl100k_base"), "cl100k_base")
  expect_null(tiktoken_encoding("not-an-openai-model"))
})

test_that("estimate_cost() counts OpenAI models exactly and estimates any other model", {
  skip_if_not_installed("rtiktoken")
  openai <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "gpt-4o",
                                           credentials = function() "x")
  other <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1",
                                          model = "my-local-model", credentials = function() "x")
  expect_identical(openai_encoding(openai), "o200k_base")
  expect_null(openai_encoding(other))
  body <- list(messages = list(list(role = "user", content = "hello world")))
  # "hello world" is 2 o200k tokens, plus 3 per message and 3 to start the reply
  expect_equal(one_request(body, "o200k_base", NULL)$input, 2 + 3 + 3)
  expect_false(one_request(body, NULL, NULL)$exact)
  expect_equal(one_request(body, NULL, NULL)$input, ceiling(nchar("hello world") / 4))
})
