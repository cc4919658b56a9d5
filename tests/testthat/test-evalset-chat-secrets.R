# A chat's own credentials travel to a worker beside its spec (the daemons' side, over real
# HTTP, is in test-evalset-mirai.R).

test_that("a chat's secrets: its own credentials, never the constructor's default", {
  withr::local_envvar(OPENAI_API_KEY = "sk-parent-env", ANTHROPIC_API_KEY = "sk-parent-env")
  own <- ellmer::chat_openai(model = "g", credentials = function() "sk-own")
  expect_equal(chat_secrets(own)$credentials, "sk-own")
  expect_null(chat_secrets(ellmer::chat_openai(model = "g"))$credentials)
  expect_null(chat_secrets(ellmer::chat_anthropic(model = "c"))$credentials)
  expect_null(chat_secrets(baseline_chat("A")))
  # a key given through ellmer's deprecated `api_key` is the user's, though ellmer wraps it
  old <- suppressWarnings(ellmer::chat_openai(model = "g", api_key = "sk-old"))
  expect_equal(chat_secrets(old)$credentials, "sk-old")
  # default credentials at the constructor's default address: the worker's own key
  spec <- chat_spec(ellmer::chat_openai(model = "g"))
  spec$secrets <- chat_secrets(ellmer::chat_openai(model = "g"))
  expect_equal(chat_from_spec(spec)$get_provider()@credentials(), "sk-parent-env")
  # ... and at another address, no key at all
  spec <- chat_spec(ellmer::chat_openai(model = "g", base_url = "http://127.0.0.1:9/v1"))
  expect_error(chat_from_spec(spec), class = "predictivebench_error_credentials")
  # a key that can't be read here fails the cell there, saying why
  spec <- chat_spec(ellmer::chat_openai(model = "g"))
  spec$secrets <- list(error = "vault locked")
  expect_error(chat_from_spec(spec), "vault locked",
               class = "predictivebench_error_credentials")
})

test_that("a judge travels to a worker with its own credentials", {
  server <- local_set_server()
  chat <- fake_chat(server, model = "m1", key = "sk-solver")
  judge <- fake_chat(server, model = "j", key = "sk-judge")
  cell <- list(model = chat_spec(chat), chat = chat,
               benchmark = list(judge = chat_spec(judge), judge_chat = judge))
  portable <- portable_cell(cell)
  expect_null(portable$chat)
  expect_null(portable$benchmark$judge_chat)
  expect_equal(portable$model$secrets$credentials, "sk-solver")
  expect_equal(portable$benchmark$judge$secrets$credentials, "sk-judge")
  expect_equal(chat_from_spec(portable$benchmark$judge)$get_provider()@credentials(),
               "sk-judge")
  # what a cell's identity is made of holds neither
  expect_false(grepl("sk-", paste(unlist(spec_identity(portable$model)), collapse = " ")))
})
