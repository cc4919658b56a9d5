# Chat configuration: a benchmark's fixed parameters on a clone of the user's chat.

test_that("configure_chat overrides parameters and system prompt in the request", {
  server <- local_fake_openai(echo_reply)
  chat <- configure_chat(fake_chat(server), "Be exact.", list(temperature = 0))
  generate_responses(chat, "q", cache = FALSE)
  body <- server$requests()[[1]]
  expect_equal(body$temperature, 0)
  expect_equal(body$messages[[1]]$role, "system")
  expect_equal(body$messages[[1]]$content, "Be exact.")
  # the original chat is untouched
  original <- fake_chat(server)
  configure_chat(original, params = list(temperature = 0.7))
  expect_null(original$get_model_object()@params$temperature)
})
