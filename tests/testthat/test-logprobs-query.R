# Requests sent, nothing cached.
no_cache <- request_settings(cache = FALSE)

test_that("a baseline scores queries offline: the query it names, else uniform", {
  withr::local_envvar(http_proxy = "http://127.0.0.1:9", https_proxy = "http://127.0.0.1:9")
  oracle <- baseline_echo(data.frame(input = c("Is it on?\n", "Is it off?\n"),
                                     target = c("True", "False")))
  out <- query_logprobs(oracle, rep(c("Is it on?\n", "Is it off?\n", "Other?\n"), each = 2),
                        c("True", "False"), settings = no_cache)
  expect_equal(out$logp, c(0, -Inf, -Inf, 0, 0, 0))
  expect_true(all(is.na(out$error)))
  expect_equal(logprob_softmax(out$logp[5:6]), c(0.5, 0.5))
  # The chat backend too.
  chat_out <- query_logprobs(oracle, "Is it off?\n", c("True", "False"), backend = "chat",
                             settings = no_cache)
  expect_equal(chat_out$logp, c(-Inf, 0))
})

test_that("probsem runs a baseline offline and refuses chats without log-probabilities", {
  withr::local_envvar(http_proxy = "http://127.0.0.1:9", https_proxy = "http://127.0.0.1:9")
  d <- probsem_dataset(version = "sample")
  tsk <- probsem_task(d, solver = probsem_solver(settings = no_cache), dir = withr::local_tempdir())
  oracle <- baseline_echo(d)  # a context without ground truth gets a uniform guess
  tsk$eval(solver_chat = oracle, view = FALSE)
  samples <- tsk$get_samples()
  has_truth <- d$expected >= 0
  expect_equal(samples$result[has_truth], d$target[has_truth])
  claude <- ellmer::chat_anthropic(model = "claude-sonnet-4-5", credentials = function() "x")
  expect_error(check_logprob_chat(claude), class = "predictivebench_error_logprobs_unsupported")
  expect_error(check_logprob_chat(claude, "chat"),
               class = "predictivebench_error_logprobs_unsupported")
  expect_snapshot(probsem_solver(settings = no_cache)(d$input[1], solver_chat = claude),
                  error = TRUE)
  # An OpenAI-compatible chat or a baseline passes; no chat is refused on both backends
  # (the endpoint is always the chat's).
  expect_error(check_logprob_chat(NULL), class = "predictivebench_error_argument")
  expect_s3_class(check_logprob_chat(baseline_constant("x")), "Chat")
  vllm <- ellmer::chat_openai_compatible(base_url = "http://localhost:8000/v1", model = "m",
                                         credentials = function() "x")
  expect_s3_class(check_logprob_chat(vllm, "chat"), "Chat")
  expect_error(check_logprob_chat(NULL, "chat"), class = "predictivebench_error_argument")
})

test_that("a 'provider/model' string for a provider without log-probabilities is refused", {
  withr::local_envvar(OPENAI_API_KEY = "sk-test")
  expect_error(check_logprob_chat("anthropic/claude-sonnet-4-5", "chat"),
               class = "predictivebench_error_logprobs_unsupported")
})
