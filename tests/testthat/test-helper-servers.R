# The fake local servers (helper-server-*.R) answer in their real counterparts' wire
# formats: what the probes and the reasoning tests rely on, checked over real HTTP.

post_json <- function(server, path, body) {
  req <- httr2::request(paste0(sub("/v1$", "", server$url), path))
  req <- httr2::req_body_json(req, body, auto_unbox = TRUE)
  req <- httr2::req_error(req, is_error = function(resp) FALSE)
  resp <- httr2::req_perform(req)
  list(status = httr2::resp_status(resp), json = httr2::resp_body_json(resp))
}

test_that("the vLLM server echoes prompt log-probabilities and gives prompt_logprobs", {
  server <- local_fake_vllm()
  r <- post_json(server, "/v1/completions", list(model = "m", prompt = "Is it true?",
                                                 echo = TRUE, logprobs = 0L, max_tokens = 0L))
  expect_equal(r$status, 200L)
  lp <- r$json$choices[[1]]$logprobs
  expect_equal(unlist(lp$tokens), c("Is", " it", " true?"))
  expect_null(lp$token_logprobs[[1]])
  expect_equal(unlist(lp$token_logprobs), c(-1.5, -3))
  expect_equal(unlist(lp$text_offset), c(0L, 2L, 5L))
  expect_equal(r$json$choices[[1]]$text, "Is it true?")
  r <- post_json(server, "/v1/completions", list(model = "m", prompt = "Is it true?",
                                                 prompt_logprobs = 0L, max_tokens = 1L))
  plp <- r$json$choices[[1]]$prompt_logprobs
  expect_null(plp[[1]])
  expect_length(plp, 3)
  expect_equal(plp[[3]][[1]]$decoded_token, " true?")
  expect_equal(plp[[3]][[1]]$logprob, -3)
  expect_equal(r$json$usage$completion_tokens, 1L)
  expect_equal(server$count(), 2)
})

test_that("a vLLM that refuses max_tokens = 0, and one whose echo is dropped", {
  server <- local_fake_vllm(min_max_tokens = 1L, echo = FALSE, bos = "<s>")
  r <- post_json(server, "/v1/completions", list(prompt = "a b", echo = TRUE,
                                                 logprobs = 0L, max_tokens = 0L))
  expect_equal(r$status, 400L)
  expect_match(r$json$error$message, "at least 1")
  r <- post_json(server, "/v1/completions", list(prompt = "a b", echo = TRUE,
                                                 logprobs = 0L, max_tokens = 1L,
                                                 prompt_logprobs = 0L))
  expect_equal(unlist(r$json$choices[[1]]$logprobs$tokens), " and")
  expect_equal(vapply(r$json$choices[[1]]$prompt_logprobs[-1],
                      function(x) x[[1]]$decoded_token, ""), c("a", " b"))
})

test_that("chat replies are scriptable: text, reasoning, finish_reason, logprobs", {
  chat <- function(body, n) {
    list(text = "\\boxed{Y}", reasoning = "First guess \\boxed{X}",
         alternatives = c(True = -0.5, False = -1.5))
  }
  server <- local_fake_vllm(chat = chat)
  r <- post_json(server, "/v1/chat/completions", list(
    model = "m", messages = list(list(role = "user", content = "hi")),
    logprobs = TRUE, top_logprobs = 2L))
  m <- r$json$choices[[1]]$message
  expect_equal(m$content, "\\boxed{Y}")
  expect_equal(m$reasoning_content, "First guess \\boxed{X}")
  expect_equal(r$json$choices[[1]]$finish_reason, "stop")
  top <- r$json$choices[[1]]$logprobs$content[[1]]$top_logprobs
  expect_equal(vapply(top, `[[`, "", "token"), c("True", "False"))
  # cut at the token limit inside the thinking: no answer, finish_reason "length"
  r <- post_json(server, "/v1/chat/completions", list(
    model = "m", messages = list(list(role = "user", content = "hi")), max_tokens = 2L))
  m <- r$json$choices[[1]]$message
  expect_null(m$content)
  expect_equal(m$reasoning_content, "First guess")
  expect_equal(r$json$choices[[1]]$finish_reason, "length")
  # without a reasoning parser the thinking is inline, and unfinished thinking stays open
  inline <- local_fake_vllm(chat = chat, reasoning_field = NULL)
  r <- post_json(inline, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = "hi"))))
  expect_equal(r$json$choices[[1]]$message$content,
               "<think>First guess \\boxed{X}</think>\n\n\\boxed{Y}")
  r <- post_json(inline, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = "hi")), max_completion_tokens = 3L))
  expect_equal(r$json$choices[[1]]$message$content, "<think>First guess \\boxed{X}")
  # an ellmer chat reads the answer
  expect_equal(as.character(fake_chat(server)$chat("hi", echo = "none")), "\\boxed{Y}")
})

test_that("the llama.cpp server's echo is broken, its own /completion scores no prompt", {
  server <- local_fake_llamacpp()
  r <- post_json(server, "/v1/completions", list(prompt = "one two three", echo = TRUE,
                                                 logprobs = 0L, max_tokens = 0L))
  lp <- r$json$choices[[1]]$logprobs
  expect_equal(unlist(lp$tokens), c("one", " two", " three"))
  expect_equal(unlist(lp$token_logprobs), c(0, 0))
  r <- post_json(server, "/completion", list(prompt = "one two", n_predict = 2L, n_probs = 1L))
  expect_equal(r$json$content, " and so")
  expect_length(r$json$completion_probabilities, 2)
  expect_equal(r$json$tokens_evaluated, 2L)
  mainline <- local_fake_llamacpp(echo = "ignored")
  r <- post_json(mainline, "/v1/completions", list(prompt = "one two", echo = TRUE,
                                                   logprobs = 1L, max_tokens = 1L))
  expect_equal(r$json$choices[[1]]$text, " and")
  expect_equal(r$json$choices[[1]]$logprobs$content[[1]]$token, " and")
})

test_that("Ollama's OpenAI endpoint is chat only", {
  server <- local_fake_ollama(chat = list(text = "hi", reasoning = "hmm"))
  expect_equal(post_json(server, "/v1/completions", list(prompt = "x"))$status, 404L)
  r <- post_json(server, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = "hi")), logprobs = TRUE))
  expect_equal(r$json$choices[[1]]$message$reasoning, "hmm")
  expect_null(r$json$choices[[1]]$logprobs)
  ignoring <- local_fake_ollama(completions = "ignore")
  r <- post_json(ignoring, "/v1/completions", list(prompt = "x", echo = TRUE, logprobs = 0L,
                                                   max_tokens = 1L))
  expect_equal(r$json$choices[[1]]$text, " and")
  expect_null(r$json$choices[[1]]$logprobs)
})

test_that("OpenAI's legacy completions: null first token, offsets, leading spaces", {
  server <- local_fake_openai_legacy()
  r <- post_json(server, "/v1/completions", list(model = "davinci-002", prompt = "A cat\nsat",
                                                 echo = TRUE, logprobs = 0L, max_tokens = 0L))
  lp <- r$json$choices[[1]]$logprobs
  expect_equal(unlist(lp$tokens), c("A", " cat", "\n", "sat"))
  expect_null(lp$token_logprobs[[1]])
  expect_null(lp$top_logprobs[[1]])
  expect_equal(unlist(lp$text_offset), c(0L, 1L, 5L, 6L))
  r <- post_json(server, "/v1/completions", list(prompt = "x", prompt_logprobs = 0L))
  expect_equal(r$status, 400L)
  expect_match(r$json$error$message, "prompt_logprobs")
})
