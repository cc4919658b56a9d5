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

test_that("configure_chat() signals the chat's settings it replaces, and only those", {
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                         credentials = function() "k",
                                         system_prompt = "Mine.",
                                         params = ellmer::params(temperature = 0.5, seed = 1))
  caught <- list()
  catch <- function(expr) {
    caught <<- list()
    withCallingHandlers(expr, predictivebench_setting_overridden = function(c) {
      caught[[length(caught) + 1]] <<- c
    })
  }
  catch(configure_chat(chat, params = list(temperature = 0.7, max_tokens = 5, seed = 3)))
  expect_length(caught, 1)
  expect_equal(caught[[1]]$model, "m")
  expect_equal(caught[[1]]$overridden, list(temperature = list(own = 0.5, sent = 0.7)))
  catch(configure_chat(chat, system_prompt = "Theirs."))
  expect_equal(caught[[1]]$overridden$system_prompt, list(own = "Mine.", sent = "Theirs."))
  # the same values, or settings the chat was not made with: nothing replaced
  catch(configure_chat(chat, "Mine.", params = list(temperature = 0.5, top_p = 0.9)))
  expect_length(caught, 0)
})
