test_that("a chat's spec carries no secret and rebuilds the same chat", {
  server <- local_set_server()
  chat <- fake_chat(server, model = "m1", system_prompt = "Be brief.",
                    params = ellmer::params(temperature = 0.5, max_tokens = 20))
  spec <- chat_spec(chat)
  expect_equal(spec$provider, "openai_compatible")
  expect_equal(spec$model, "m1")
  expect_equal(spec$args$base_url, server$url)
  expect_false(any(grepl("FAKEKEY", rawToChar(serialize(spec, NULL, ascii = TRUE)))))
  withr::local_envvar(OPENAI_API_KEY = "sk-from-the-worker-env")
  rebuilt <- chat_from_spec(spec)
  expect_equal(rebuilt$get_model(), "m1")
  expect_equal(rebuilt$get_system_prompt(), "Be brief.")
  expect_equal(chat_params(rebuilt), chat_params(chat))
  expect_equal(spec_identity(chat_spec(rebuilt)), spec_identity(spec))
  # the key is the environment's, and the rebuilt chat works
  expect_equal(generate_responses(rebuilt, "hi", set_settings(FALSE))$result, "\\boxed{A}")
  expect_equal(server$requests()[[1]]$model, "m1")
})

test_that("provider/model strings are specs; unknown providers are refused", {
  spec <- chat_spec("openai/gpt-4.1")
  expect_equal(spec[c("provider", "model")], list(provider = "openai", model = "gpt-4.1"))
  expect_equal(spec_label(spec), "openai/gpt-4.1")
  expect_error(chat_spec("nosuchprovider/x"), class = "predictivebench_error_argument")
  expect_error(chat_spec(42), class = "predictivebench_error_argument")
})

test_that("baselines travel as they are, identified by name and answer", {
  a1 <- baseline_chat("A", name = "a")
  a2 <- baseline_chat("A", name = "a")
  b <- baseline_chat("B", name = "a")
  expect_identical(chat_from_spec(chat_spec(a1)), a1)
  expect_equal(spec_identity(chat_spec(a1)), spec_identity(chat_spec(a2)))
  expect_false(identical(spec_identity(chat_spec(a1)), spec_identity(chat_spec(b))))
})

test_that("a closure's fingerprint ignores request settings and is stable", {
  f <- function(settings) function(x) paste(x, settings$max_active)
  expect_equal(closure_fingerprint(f(request_settings(max_active = 1))),
               closure_fingerprint(f(request_settings(max_active = 50))))
  s1 <- futurex_solver(settings = request_settings(cache = tempfile()))
  s2 <- futurex_solver(settings = request_settings(cache = tempfile()))
  expect_equal(closure_fingerprint(s1), closure_fingerprint(s2))
  expect_false(identical(closure_fingerprint(futurex_solver(params = ellmer::params(max_tokens = 5))),
                         closure_fingerprint(s1)))
})
