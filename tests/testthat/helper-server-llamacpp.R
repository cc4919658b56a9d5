# A fake llama.cpp server (`llama-server -m model.gguf`), from its documented wire format
# (tools/server/README.md of ggml-org/llama.cpp):
#
# * POST /v1/completions (OpenAI-compatible): `prompt`, `max_tokens` (its `n_predict`),
#   `logprobs` (its `n_probs`). Mainline llama-server has no `echo`: it answers with the
#   generated text only, and `logprobs` covers the generated tokens, in the chat-style shape
#   `{"content": [{"id", "token", "logprob", "bytes", "top_logprobs"}]}` (`echo =
#   "ignored"`). `echo = "zeros"` is the broken echo users report (of llama.cpp's server and
#   of llama-cpp-python's without `--logits_all`): the prompt's tokens come back in the
#   legacy shape, but every prompt token's log-probability is 0.0 (the first `null`), a
#   distribution at chance if scored.
# * POST /completion (its own API): `prompt`, `n_predict`, `n_probs`; the answer has
#   `content`, `tokens_predicted`, `tokens_evaluated`, `stop_type`, `truncated` and
#   `completion_probabilities` for the generated tokens only (never the prompt's).
# * POST /v1/chat/completions: as vLLM's; with `--reasoning-format deepseek` the thinking
#   is in `message$reasoning_content` (`reasoning_field = NULL`: inline `<think>` tags).
#   Scripted by `chat` (helper-server-common.R). Reached through
#   ellmer::chat_openai_compatible(base_url = "<server>/v1").
# * GET /health (`{"status": "ok"}` once the model is loaded), GET /props (the server's
#   settings: `default_generation_settings`, `total_slots`, `model_path`, `chat_template`),
#   GET /v1/models.
# * Any other path: HTTP 404, `{"error": {"code": 404, "message": "File Not Found",
#   "type": "not_found_error"}}`.
local_fake_llamacpp <- function(chat = "ok", echo = c("zeros", "ignored"),
                                reasoning_field = "reasoning_content",
                                model = "qwen2.5-0.5b-instruct-q8_0.gguf",
                                .local_envir = parent.frame()) {
  echo <- match.arg(echo)
  options <- list(chat = chat, echo_mode = echo, reasoning_field = reasoning_field,
                  model = model, llamacpp_v1_completion = llamacpp_v1_completion,
                  llamacpp_completion = llamacpp_completion, llamacpp_probs = llamacpp_probs)
  reply <- server_reply(function(body, n) {
    path <- attr(body, "path")
    if (identical(path, "/v1/completions")) return(llamacpp_v1_completion(body, n))
    if (identical(path, "/completion")) return(llamacpp_completion(body, n))
    if (identical(path, "/v1/chat/completions")) {
      return(server_chat(chat, body, n, model, reasoning_field,
                         extra = list(system_fingerprint = "b5000-fake")))
    }
    server_error(404L, "File Not Found", "not_found_error")
  }, options)
  static <- list(
    "GET /health" = list(status = "ok"),
    "GET /props" = list(default_generation_settings = list(n_ctx = 4096L, n_predict = -1L),
                        total_slots = 1L, model_path = paste0("models/", model),
                        chat_template = "{{ messages }}"),
    "GET /v1/models" = server_models(model, "llamacpp")
  )
  local_fake_openai(reply, routes = "/completion", static = static,
                    not_found = server_error(404L, "File Not Found", "not_found_error"),
                    .local_envir = .local_envir)
}

# llama.cpp's per-token probabilities (`completion_probabilities`, `logprobs$content`).
llamacpp_probs <- function(tokens, n_probs) {
  lapply(tokens, function(token) {
    own <- list(id = server_token_id(token), token = token, logprob = -1,
                bytes = as.list(as.integer(charToRaw(token))))
    c(own, list(top_logprobs = if (n_probs > 0) list(own) else list()))
  })
}

llamacpp_v1_completion <- function(body, n) {
  prompt <- server_prompt(body)
  tokens <- server_tokens(prompt)
  generated <- server_generated(as.integer(body$max_tokens %||% 16L))
  choice <- list(text = paste(generated, collapse = ""), index = 0L, logprobs = NULL,
                 finish_reason = "length")
  if (identical(echo_mode, "zeros") && isTRUE(body$echo)) {
    # the reported broken echo: the prompt's tokens, every log-probability 0
    choice$text <- paste0(prompt, choice$text)
    if (!is.null(body$logprobs)) {
      lp <- c(NA, rep(0, length(tokens) - 1L), rep(-1, length(generated)))
      choice$logprobs <- server_legacy_logprobs(c(tokens, generated), lp)
    }
  } else if (!is.null(body$logprobs)) {
    choice$logprobs <- list(content = llamacpp_probs(generated, as.integer(body$logprobs)))
  }
  usage <- list(completion_tokens = length(generated), prompt_tokens = length(tokens),
                total_tokens = length(tokens) + length(generated))
  list(json = list(choices = list(choice), created = 1700000000L, model = model,
                   system_fingerprint = "b5000-fake", object = "text_completion",
                   usage = usage, id = paste0("chatcmpl-", n),
                   timings = list(prompt_n = length(tokens), predicted_n = length(generated))))
}

llamacpp_completion <- function(body, n) {
  prompt <- server_prompt(body)
  n_predict <- as.integer(body$n_predict %||% 16L)
  generated <- server_generated(n_predict)
  out <- list(index = 0L, content = paste(generated, collapse = ""), tokens = list(),
              id_slot = 0L, stop = TRUE, model = model,
              tokens_predicted = length(generated),
              tokens_evaluated = length(server_tokens(prompt)),
              prompt = prompt, has_new_line = FALSE, truncated = FALSE,
              stop_type = "limit", stopping_word = "", tokens_cached = 0L)
  n_probs <- as.integer(body$n_probs %||% 0L)
  if (n_probs > 0) out$completion_probabilities <- llamacpp_probs(generated, n_probs)
  list(json = out)
}
