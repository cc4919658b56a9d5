# The chat backend of query_logprobs(): a query's first-token log-probability read from the
# top alternatives of a chat completion.

logprob_chat_system_prompt <- paste(
  "Continue the user's text exactly where it ends.",
  "Reply with the continuation only, nothing else."
)

chat_scores <- function(chat, prefix, query, settings, top_logprobs, system_prompt) {
  prompts <- unique(prefix)
  configured <- logprob_chat_configured(chat, top_logprobs, system_prompt)
  res <- chat_logprob_responses(configured, prompts, settings)
  at <- match(prefix, prompts)
  rows <- lapply(seq_along(prefix), function(i) {
    j <- at[[i]]
    if (!is.na(res$error[[j]])) {
      return(list(logp = NA_real_, token = NA_character_, error = res$error[[j]]))
    }
    top <- tryCatch(top_alternatives(res$json[[j]]), error = function(e) e)
    if (inherits(top, "error")) {
      return(list(logp = NA_real_, token = NA_character_, error = conditionMessage(top)))
    }
    first_token_logprob(top, query[[i]])
  })
  tibble::tibble(
    prefix = prefix,
    query = query,
    logp = vapply(rows, `[[`, 1, "logp"),
    # The approximation scores one token per query, found among the alternatives or not.
    n_tokens = rep(1L, length(rows)),
    tokens = lapply(rows, function(r) if (is.na(r$token)) character() else r$token),
    error = vapply(rows, function(r) as.character(r$error), ""),
    cached = res$cached[at],
    !!!pair_usage(length(prefix), match(prompts, prefix), res)
  )
}

# The chat asking for the first answer token and its top alternatives.
logprob_chat_configured <- function(chat, top_logprobs, system_prompt) {
  # OpenAI's Responses API (ellmer::chat_openai()) refuses fewer than 16 output tokens; only
  # the first token is read either way.
  max_tokens <- if (inherits(chat$get_provider(), "ellmer::ProviderOpenAI")) 16 else 1
  configure_chat(
    chat, system_prompt,
    ellmer::params(log_probs = TRUE, max_tokens = max_tokens, top_logprobs = top_logprobs)
  )
}

# The first prompt's request alone, then the others: an endpoint that ignores `logprobs` (as
# Ollama's long did) stops the call after one request; an HTTP error fails its prompt only.
chat_logprob_responses <- function(chat, prompts, settings, call = rlang::caller_env()) {
  first <- without_max_tokens_warning(logprob_chat_requests(chat, prompts[1], settings))
  if (is.na(first$error[[1]]) && is.null(pricing_collector()) &&
      inherits(try(top_alternatives(first$json[[1]]), silent = TRUE), "try-error")) {
    url <- shown_url(chat$get_provider()@base_url)
    abort_pb(
      c("The chat endpoint at {.url {url}} answers without token log-probabilities, so the chat backend can't score.",
        i = "It ignored {.code logprobs = true} and {.code top_logprobs}: use a server that gives them (vLLM, llama.cpp's {.code llama-server}, a recent Ollama), or, for the faithful scores, one that echoes prompt log-probabilities with {.code backend = \"completions\"}.",
        i = if (isTRUE(first$cached[[1]])) {
          "No request sent: its answer was in the response cache."
        } else {
          "1 request sent, no other."
        }),
      "logprobs_unsupported", call = call
    )
  }
  if (length(prompts) < 2) return(first)
  rest <- without_max_tokens_warning(logprob_chat_requests(chat, prompts[-1], settings))
  rbind(first, rest)
}

# Whether the chat backend gets log-probabilities at `chat`, from the first request
# chat_scores() would send (same cache key). Never handed to a set's overlap: a cell stopped
# here would send the earlier probes again.
chat_has_logprobs <- function(chat, prefix, settings, top_logprobs, system_prompt) {
  local_request_session(collector = NULL)
  res <- without_max_tokens_warning(
    logprob_chat_requests(logprob_chat_configured(chat, top_logprobs, system_prompt),
                          prefix, settings)
  )
  ok <- is.na(res$error[[1]]) &&
    !inherits(try(top_alternatives(res$json[[1]]), silent = TRUE), "try-error")
  list(logprobs = ok, sent = as.integer(!isTRUE(res$cached[[1]])))
}

# One request per prompt through the engine's pool, keeping the JSON the alternatives are read
# from. Never batched: a batch gives no log-probabilities back the same way.
logprob_chat_requests <- function(chat, prompts, settings) {
  # never batched: a batch returns no log-probabilities (a new object, the original unchanged)
  settings <- settings_with_dots(settings, batch = FALSE)
  run_requests(list(chat), rep(1L, length(prompts)), as.list(prompts), settings,
               key_extra = list(kind = "first-token-logprobs", version = 1L), epoch = 1L,
               keep_json = TRUE, progress = FALSE)
}

# The answers stop at `max_tokens` on purpose (only the first token is read), so ellmer's
# truncation warning reports the design: muffled here and nowhere else.
without_max_tokens_warning <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    message <- cli::ansi_strip(conditionMessage(w))
    if (grepl("truncated", message, fixed = TRUE) && grepl("max_tokens", message, fixed = TRUE)) {
      tryInvokeRestart("muffleWarning")
    }
  })
}

# The first answer token's alternatives (token, logprob) from a chat-completions or responses body.
top_alternatives <- function(json) {
  first <- json$choices[[1]]$logprobs$content[[1]]
  if (is.null(first)) {
    for (item in json$output %||% list()) {
      for (content in item$content %||% list()) {
        if (length(content$logprobs)) {
          first <- content$logprobs[[1]]
          break
        }
      }
      if (!is.null(first)) break
    }
  }
  if (is.null(first)) {
    abort_pb(
      c("The chat response has no token log-probabilities.",
        i = "The provider must support {.code logprobs} with {.code top_logprobs}."),
      "logprobs"
    )
  }
  alts <- first$top_logprobs %||% list(first)
  if (!length(alts)) alts <- list(first)
  data.frame(
    token = vapply(alts, function(a) as.character(a$token %||% NA_character_), ""),
    logprob = vapply(alts, function(a) as.double(a$logprob %||% NA_real_), 1),
    stringsAsFactors = FALSE
  )
}

first_token_logprob <- function(top, query) {
  text <- trimws(top$token)
  ok <- !is.na(text) & nzchar(text) & !is.na(top$logprob) & startsWith(query, text)
  if (!any(ok)) {
    return(list(logp = -Inf, token = NA_character_,
                error = NA_character_))
  }
  best <- max(nchar(text[ok]))
  pick <- ok & nchar(text) == best
  lp <- top$logprob[pick]
  m <- max(lp)
  list(logp = m + log(sum(exp(lp - m))), token = text[pick][[1]], error = NA_character_)
}
