# The fake local servers (helper-server-*.R) answer in their real counterparts' wire
# formats: what the probes and the reasoning tests rely on, checked over real HTTP.

# A request to a path of the server's root: POST `body`, or GET without one. The answer's
# status, and its body: `json`, or `text` when the server answers in plain text.
post_json <- function(server, path, body = NULL, auth = NULL) {
  req <- httr2::request(paste0(sub("/v1$", "", server$url), path))
  if (!is.null(body)) req <- httr2::req_body_json(req, body, auto_unbox = TRUE)
  if (!is.null(auth)) req <- httr2::req_auth_bearer_token(req, auth)
  req <- httr2::req_error(req, is_error = function(resp) FALSE)
  resp <- httr2::req_perform(req)
  if (identical(httr2::resp_content_type(resp), "application/json")) {
    return(list(status = httr2::resp_status(resp), json = httr2::resp_body_json(resp)))
  }
  list(status = httr2::resp_status(resp), text = httr2::resp_body_string(resp))
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
  r <- post_json(server, "/v1/completions", list(prompt = "x"))
  expect_equal(r$status, 404L)
  expect_equal(r$text, "404 page not found")
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

test_that("chat scripts see the test's variables, answer n choices, are cut in the thinking", {
  answers <- c(hi = "\\boxed{Y}")
  chat <- function(body, n) {
    text <- last_user_text(body)
    if (identical(body$n, 2L)) {
      return(list(list(text = answers[[text]], reasoning = "a"),
                  list(reasoning = "b, then", finish_reason = "length")))
    }
    list(text = answers[[text]], reasoning = "First guess")
  }
  server <- local_fake_vllm(chat = chat)
  r <- post_json(server, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = list(list(type = "text", text = "hi"))))))
  expect_equal(r$json$choices[[1]]$message$content, "\\boxed{Y}")
  r <- post_json(server, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = "hi")), n = 2L))
  choices <- r$json$choices
  expect_equal(vapply(choices, `[[`, 1L, "index"), c(0L, 1L))
  expect_equal(choices[[1]]$message$reasoning_content, "a")
  expect_equal(choices[[1]]$finish_reason, "stop")
  # scripted as cut off inside its thinking: no answer at all
  expect_null(choices[[2]]$message$content)
  expect_equal(choices[[2]]$message$reasoning_content, "b, then")
  expect_equal(choices[[2]]$finish_reason, "length")
  inline <- local_fake_llamacpp(chat = chat, reasoning_field = NULL)
  r <- post_json(inline, "/v1/chat/completions", list(
    messages = list(list(role = "user", content = "hi")), n = 2L))
  expect_equal(vapply(r$json$choices, function(x) x$message$content, ""),
               c("<think>a</think>\n\n\\boxed{Y}", "<think>b, then"))
})

test_that("each server serves its own other paths, 404s the rest its way, logs all", {
  vllm <- local_fake_vllm(model = "m")
  expect_equal(post_json(vllm, "/v1/models")$json$data[[1]]$id, "m")
  r <- post_json(vllm, "/api/tags")
  expect_equal(r$status, 404L)
  expect_equal(r$json$detail, "Not Found")
  expect_equal(post_json(vllm, "/health")$status, 404L)

  ollama <- local_fake_ollama(model = "qwen3")
  tags <- post_json(ollama, "/api/tags")$json$models
  expect_equal(vapply(tags, `[[`, "", "name"), "qwen3:latest")
  show <- post_json(ollama, "/api/show", list(model = "qwen3", verbose = FALSE))$json
  expect_true("thinking" %in% unlist(show$capabilities))
  expect_equal(post_json(ollama, "/v1/models")$json$data[[1]]$id, "qwen3:latest")
  expect_equal(post_json(ollama, "/health")$text, "404 page not found")

  llamacpp <- local_fake_llamacpp(model = "q.gguf")
  expect_equal(post_json(llamacpp, "/health")$json$status, "ok")
  expect_equal(post_json(llamacpp, "/props")$json$total_slots, 1L)
  expect_equal(post_json(llamacpp, "/v1/models")$json$data[[1]]$id, "q.gguf")
  r <- post_json(llamacpp, "/api/tags")
  expect_equal(r$status, 404L)
  expect_equal(r$json$error$type, "not_found_error")

  # the log has every request, answered or not, with its key; only chats are counted
  post_json(ollama, "/v1/chat/completions",
            list(messages = list(list(role = "user", content = "hi"))), auth = "k")
  log <- ollama$log()
  expect_equal(log$method, c("GET", "POST", "GET", "GET", "POST"))
  expect_equal(log$path, c("/api/tags", "/api/show", "/v1/models", "/health",
                           "/v1/chat/completions"))
  expect_equal(log$auth, c(NA, NA, NA, NA, "Bearer k"))
  expect_equal(ollama$count(), 1)
  # ellmer's own constructor finds the model there, and chats
  chat <- ellmer::chat_ollama(base_url = sub("/v1$", "", ollama$url), model = "qwen3")
  expect_equal(as.character(chat$chat("hi", echo = "none")), "ok")
})
