# A fake vLLM OpenAI-compatible server (`vllm serve <model>`), from its documented wire
# format (docs.vllm.ai, "OpenAI-Compatible Server"; vllm/entrypoints/openai/protocol.py):
#
# * POST /v1/completions: `prompt`, `max_tokens` (default 16), `logprobs` (an integer),
#   `echo`, and vLLM's extra field `prompt_logprobs` (an integer). With `echo` the prompt
#   comes back before the generated text, and with `logprobs` the legacy `logprobs` object
#   covers the prompt's tokens too (`tokens`, `token_logprobs` with `null` for the first,
#   `top_logprobs`, `text_offset`). `prompt_logprobs = k` adds `choices[[1]]$prompt_logprobs`:
#   `null` for the first prompt token, then per token a map from token id to
#   `{logprob, rank, decoded_token}`, holding the prompt's own token (plus `k` alternatives).
#   `finish_reason` is "length" when `max_tokens` stopped it, `stop_reason` is `null`.
#   `min_max_tokens = 1` is a vLLM version that refuses `max_tokens = 0` (HTTP 400,
#   "max_tokens must be at least 1, got 0.").
# * POST /v1/chat/completions: `logprobs` / `top_logprobs`, and a reasoning model's thinking
#   in `message$reasoning_content` (with `--reasoning-parser`; `reasoning_field = NULL` is a
#   server without one, the thinking inline in `<think>` tags), `finish_reason = "length"`
#   at the token limit. Scripted by `chat` (helper-server-common.R).
# * GET /v1/models: the served model (what ellmer::models_vllm() lists).
# * Any other path: HTTP 404 `{"detail": "Not Found"}` (FastAPI's).
#
# Options: `logprobs` is function(tokens, text) giving every prompt token's log-probability
# (the first is dropped); `bos` a token the model's tokenizer puts before every prompt
# ("<s>", whose echoed text takes no room); `echo = FALSE` a server (or proxy in front of
# one) that drops `echo` and `logprobs` for the prompt, leaving only `prompt_logprobs`.
local_fake_vllm <- function(chat = "ok", logprobs = function(tokens, text) -nchar(tokens) / 2,
                            bos = NULL, echo = TRUE, min_max_tokens = 0L,
                            reasoning_field = "reasoning_content",
                            model = "Qwen/Qwen2.5-0.5B", latency = 0,
                            .local_envir = parent.frame()) {
  options <- list(chat = chat, score = logprobs, bos = bos, echo = echo,
                  min_max_tokens = min_max_tokens, reasoning_field = reasoning_field,
                  model = model, vllm_completion = vllm_completion)
  reply <- server_reply(function(body, n) {
    path <- attr(body, "path")
    if (identical(path, "/v1/completions")) return(vllm_completion(body, n))
    if (identical(path, "/v1/chat/completions")) {
      return(server_chat(chat, body, n, model, reasoning_field,
                         message_extra = list(tool_calls = list()),
                         extra = list(prompt_logprobs = NULL)))
    }
    vllm_not_found
  }, c(options, list(vllm_not_found = vllm_not_found)))
  local_fake_openai(reply, latency = latency,
                    static = list("GET /v1/models" = server_models(model, "vllm")),
                    not_found = vllm_not_found, .local_envir = .local_envir)
}

vllm_not_found <- list(status = 404L, json = list(detail = "Not Found"))

# The /v1/completions answer (runs in the server's process, with local_fake_vllm()'s options).
vllm_completion <- function(body, n) {
  max_tokens <- as.integer(body$max_tokens %||% 16L)
  if (max_tokens < min_max_tokens) {
    return(server_error(400L, sprintf("max_tokens must be at least %d, got %d.",
                                      min_max_tokens, max_tokens), "BadRequestError"))
  }
  prompt <- server_prompt(body)
  tokens <- c(bos, server_tokens(prompt))
  lp <- as.double(score(tokens, prompt))
  lp[1] <- NA
  generated <- server_generated(max_tokens)
  gen_lp <- rep(-1, length(generated))
  echoing <- isTRUE(body$echo) && echo
  text <- paste0(if (echoing) prompt, paste(generated, collapse = ""))
  choice <- list(index = 0L, text = text, logprobs = NULL,
                 finish_reason = "length",
                 stop_reason = NULL, prompt_logprobs = NULL)
  if (!is.null(body$logprobs)) {
    choice$logprobs <- if (echoing) {
      server_legacy_logprobs(c(tokens, generated), c(lp, gen_lp), special = bos)
    } else {
      server_legacy_logprobs(generated, gen_lp)
    }
  }
  if (!is.null(body$prompt_logprobs)) {
    k <- as.integer(body$prompt_logprobs)
    choice$prompt_logprobs <- c(list(NULL), lapply(seq_along(tokens)[-1], function(i) {
      own <- list(logprob = lp[[i]], rank = 1L + k, decoded_token = tokens[[i]])
      entries <- stats::setNames(list(own), server_token_id(tokens[[i]]))
      # the prompt's own token, and `k` likelier alternatives
      for (j in seq_len(k)) {
        alt <- paste0(" alt", j)
        entries[[as.character(server_token_id(alt))]] <- list(logprob = lp[[i]] + 1 / j,
                                                               rank = j, decoded_token = alt)
      }
      entries
    }))
  }
  usage <- list(prompt_tokens = length(tokens), total_tokens = length(tokens) +
                  length(generated), completion_tokens = length(generated),
                prompt_tokens_details = NULL)
  list(json = list(id = paste0("cmpl-", n), object = "text_completion", created = 1700000000L,
                   model = model, choices = list(choice), usage = usage))
}
