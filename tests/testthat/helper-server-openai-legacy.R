# A fake of OpenAI's legacy completions API (`davinci-002`, `gpt-3.5-turbo-instruct`; the
# original probsem's `code-davinci-002`), from its documented wire format (API reference,
# "Completions"):
#
# * POST /v1/completions: `prompt`, `max_tokens` (0 allowed with `echo`), `echo`,
#   `logprobs` (an integer, at most 5; more is HTTP 400). The answer's `logprobs` has
#   `tokens` (GPT-style tokens with their leading space, " the"), `token_logprobs` (`null` for
#   the first token, which has no context), `top_logprobs` (`null` there too) and
#   `text_offset` (each token's character offset in the echoed text). An argument it does
#   not know, such as vLLM's `prompt_logprobs`, is HTTP 400 "Unrecognized request argument
#   supplied: prompt_logprobs".
# * POST /v1/chat/completions: a chat model's answers, scripted by `chat`
#   (helper-server-common.R), no reasoning field.
# `logprobs` is function(tokens, text), every prompt token's log-probability (the first is
# dropped).
local_fake_openai_legacy <- function(logprobs = function(tokens, text) -nchar(tokens) / 2,
                                     chat = "ok", model = "davinci-002",
                                     .local_envir = parent.frame()) {
  options <- list(score = logprobs, chat = chat, model = model,
                  legacy_completion = legacy_completion)
  reply <- server_reply(function(body, n) {
    path <- attr(body, "path")
    if (identical(path, "/v1/completions")) return(legacy_completion(body, n))
    if (identical(path, "/v1/chat/completions")) {
      return(server_chat(chat, body, n, model, reasoning_field = NULL,
                         message_extra = list(refusal = NULL),
                         extra = list(system_fingerprint = NULL)))
    }
    server_error(404L, sprintf("Invalid URL (POST %s)", path))
  }, options)
  local_fake_openai(reply, .local_envir = .local_envir)
}

legacy_completion <- function(body, n) {
  known <- c("model", "prompt", "max_tokens", "echo", "logprobs", "temperature", "top_p",
             "n", "stop", "stream", "suffix", "seed", "user", "best_of", "logit_bias",
             "presence_penalty", "frequency_penalty")
  unknown <- setdiff(names(body), known)
  if (length(unknown)) {
    return(server_error(400L, paste("Unrecognized request argument supplied:", unknown[[1]])))
  }
  if (!is.null(body$logprobs) && body$logprobs > 5) {
    return(server_error(400L, "logprobs must be less than or equal to 5."))
  }
  prompt <- server_prompt(body)
  tokens <- server_tokens(prompt)
  lp <- as.double(score(tokens, prompt))
  lp[1] <- NA
  generated <- server_generated(as.integer(body$max_tokens %||% 16L))
  echoing <- isTRUE(body$echo)
  choice <- list(text = paste0(if (echoing) prompt, paste(generated, collapse = "")),
                 index = 0L, logprobs = NULL, finish_reason = "length")
  if (!is.null(body$logprobs)) {
    choice$logprobs <- if (echoing) {
      server_legacy_logprobs(c(tokens, generated), c(lp, rep(-1, length(generated))))
    } else {
      server_legacy_logprobs(generated, rep(-1, length(generated)))
    }
  }
  list(json = list(
    id = paste0("cmpl-", n), object = "text_completion", created = 1700000000L,
    model = model, choices = list(choice),
    usage = list(prompt_tokens = length(tokens), completion_tokens = length(generated),
                 total_tokens = length(tokens) + length(generated))
  ))
}
