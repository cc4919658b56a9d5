# Knowing the server before paying for it: the first request probes which log-probabilities the
# endpoint gives, and answers that cannot be a model's are refused before scoring.

# The completions route at `endpoint`, learned from the answer to `text` (the backend's first
# request anyway, same cache key): "echo" (OpenAI's legacy completions, vLLM, llama-cpp-python)
# or vLLM's "prompt_logprobs". At most 3 requests; an endpoint with neither stops with an error
# saying what it lacks and whether the chat backend would work there (chat_probe()).
probe_completions <- function(endpoint, text, dir, max_tokens, settings, span_check,
                              chat_probe, call = rlang::caller_env()) {
  endpoint$route <- "echo"
  first <- echo_texts(endpoint, text, dir, max_tokens, settings)
  # estimate_cost()'s dry run answers with made-up log-probabilities: nothing to learn
  if (!is.null(pricing_collector())) return(list(endpoint = endpoint, echoed = first))
  if (!is.null(first$records[[1]])) {
    check_echoed(first$records, text, endpoint, span_check, call = call)
    note_logprob_route(endpoint)
    return(list(endpoint = endpoint, echoed = first))
  }
  why <- first$conditions[[1]]
  if (is_broken_echo_error(why)) abort_broken_echo(endpoint, 0, call = call)
  status <- error_status(why)
  if (!is.na(status) && status %in% c(404L, 405L, 501L)) {
    abort_no_completions(endpoint, why, chat_probe(), n_sent = 1L, call = call)
  }
  answered <- inherits(why, "predictivebench_error_logprobs") ||
    (!is.na(status) && status >= 400L && status < 500L)
  if (!answered) {
    abort_pb(
      c("The completions endpoint at {.url {shown_url(endpoint$base_url)}} did not answer the first log-probability request, so no query was sent.",
        x = "{conditionMessage(why)}",
        i = "Check that the server is running, or try again later."),
      "logprobs_probe", call = call
    )
  }
  vllm <- endpoint
  vllm$route <- "prompt_logprobs"
  second <- echo_texts(vllm, text, dir, max_tokens, settings)
  if (!is.null(second$records[[1]])) {
    check_echoed(second$records, text, vllm, span_check, call = call)
    note_logprob_route(vllm)
    return(list(endpoint = vllm, echoed = second))
  }
  abort_no_prompt_logprobs(endpoint, why, second$conditions[[1]], chat_probe(), n_sent = 2L,
                           call = call)
}

note_logprob_route <- function(endpoint) {
  how <- switch(endpoint$route,
    echo = "echoes prompt log-probabilities: scoring with {.code echo = true}",
    prompt_logprobs = "gives vLLM's {.code prompt_logprobs} (and no echoed log-probabilities): scoring with them"
  )
  url <- shown_url(endpoint$base_url)
  inform_once(c(i = paste("Log-probabilities: {.url {url}}", how, "(the completions backend).")),
              id = paste("logprobs_route", url, endpoint$model, endpoint$route))
}

chat_advice <- function(chat_ok) {
  if (chat_ok) {
    return(c(i = "Its chat endpoint gives first-token log-probabilities: use {.code backend = \"chat\"} (an approximation, see {.code ?probsem_task}), or a server that echoes prompt log-probabilities (vLLM, or llama-cpp-python's server with {.code --logits_all true}) for the faithful scores."))
  }
  c(x = "Its chat endpoint gives no log-probabilities either.",
    i = "Use a server that echoes prompt log-probabilities, such as vLLM ({.fn ellmer::chat_vllm}) or llama-cpp-python's server with {.code --logits_all true}.")
}

# `n_sent`: the completions probes sent; `chat`: what chat_has_logprobs() found.
abort_no_completions <- function(endpoint, why, chat, n_sent, call) {
  abort_pb(
    c("The server at {.url {shown_url(endpoint$base_url)}} has no completions endpoint, so it can't give the prompt log-probabilities the completions backend scores.",
      x = "{.code POST {shown_url(endpoint$base_url)}/completions}: {conditionMessage(why)}",
      chat_advice(chat$logprobs),
      probes_sent(n_sent + chat$sent)),
    "logprobs_unsupported", status = error_status(why), chat_logprobs = chat$logprobs,
    call = call
  )
}

abort_no_prompt_logprobs <- function(endpoint, echo_why, vllm_why, chat, n_sent, call) {
  abort_pb(
    c("The completions endpoint at {.url {shown_url(endpoint$base_url)}} gives no log-probabilities of the prompt's tokens.",
      x = "With {.code echo = true, logprobs = 0}: {conditionMessage(echo_why)}",
      x = "With vLLM's {.code prompt_logprobs = 0}: {conditionMessage(vllm_why)}",
      chat_advice(chat$logprobs),
      i = "If the server refuses {.code max_tokens = 0}, use {.code max_tokens = 1}.",
      probes_sent(n_sent + chat$sent)),
    "logprobs_unsupported", chat_logprobs = chat$logprobs, call = call
  )
}

# How many requests a refusal cost: those sent, not those answered from the cache.
probes_sent <- function(n) {
  c(i = cli::format_inline("{n} probe request{?s} sent, no query."))
}

# ---- answers that can't be a model's --------------------------------------------------------

# Refuses echoed answers that cannot be a model's: every scored token at one value (llama.cpp
# style servers' reported broken echo gives 0.0 each; at least 4 tokens), text offsets
# incomplete or out of order, or tokens that don't spell the text (`span_check`). Scoring them
# would give valid-looking numbers: every query at chance, or the wrong span.
check_echoed <- function(records, texts, endpoint, span_check = TRUE,
                         call = rlang::caller_env()) {
  url <- shown_url(endpoint$base_url)
  answered <- !vapply(records, is.null, TRUE)
  lp <- unlist(lapply(records[answered], `[[`, "logprobs"))
  scored <- lp[!is.na(lp)]
  if (length(scored) >= 4 && all(scored == scored[[1]])) {
    abort_broken_echo(endpoint, scored[[1]], call = call)
  }
  for (i in which(answered)) check_echoed_tokens(records[[i]], texts[[i]], url, span_check, call)
  invisible(records)
}

abort_broken_echo <- function(endpoint, value, call) {
  url <- shown_url(endpoint$base_url)
  abort_pb(
    c("The endpoint at {.url {url}} gave every token of the prompt the same log-probability ({value}): those are not a model's.",
      i = "Scored, every query would tie and the result would be chance. llama.cpp-style servers are reported to echo 0.0 for every prompt token (llama-cpp-python needs {.code --logits_all true}).",
      i = "Use a server whose echoed log-probabilities are right (vLLM), or {.code backend = \"chat\"}."),
    "logprobs_broken", call = call
  )
}

# One answer at exactly 0.0 for every scored token (the broken echo above), as one replica of a
# load-balanced server gives: checked per answer on arrival, so it is a transient failed request
# the pool sends again (a check of all answers together would let every second one through).
# Two tokens at least: a model gives one token probability 1 now and then. NULL if plausible.
broken_echo <- function(record) {
  if (is.null(record) || inherits(record, "error")) return(NULL)
  lp <- record$logprobs
  scored <- lp[!is.na(lp)]
  if (length(scored) < 2 || any(scored != 0)) return(NULL)
  no_answer_error(
    paste0("every one of the ", length(scored), " echoed log-probabilities of the prompt is ",
           "0.0, which is not a model's (a server, or one replica behind a load balancer, ",
           "with a broken echo)"),
    class = "predictivebench_error_logprobs_broken"
  )
}

is_broken_echo_error <- function(e) {
  inherits(e, "predictivebench_error_logprobs_broken") ||
    inherits(e$parent, "predictivebench_error_logprobs_broken")
}

check_echoed_tokens <- function(record, text, url, span_check, call) {
  offsets <- record$offsets
  if (!is.null(offsets) &&
      (length(offsets) != length(record$tokens) || anyNA(offsets) || is.unsorted(offsets))) {
    abort_pb(
      c("The endpoint at {.url {url}} echoed {length(record$tokens)} token{?s} with text offsets that are missing or out of order.",
        i = "Without them its tokens can't be placed in the prompt; its echo is broken."),
      "logprobs_broken", call = call
    )
  }
  if (span_check && !spells_text(record$tokens, text)) {
    sent <- encodeString(clip_text(text), quote = "\"")
    echoed <- token_list(clip_tokens(record$tokens))
    abort_pb(
      c("The tokens the endpoint at {.url {url}} echoed do not spell the prompt sent.",
        x = "Sent {sent}; echoed {echoed}.",
        i = "Its log-probabilities are not those of the prompt. {.code span_check = FALSE} scores them anyway."),
      "logprobs_broken", call = call
    )
  }
  invisible(record)
}

# Whether echoed tokens spell `text`, a leading BOS dropped if need be, with the tokenizers'
# spellings (SentencePiece's "\u2581", byte-level BPE's "\u0120"/"\u010a", "<0x0A>" bytes).
spells_text <- function(tokens, text) {
  if (!length(tokens)) return(!nzchar(text))
  tokens[is.na(tokens)] <- ""
  spellings <- function(joined) {
    joined <- gsub("<0x0A>", "\n", joined, fixed = TRUE)
    out <- c(joined, gsub("\u2581", " ", joined, fixed = TRUE),
             chartr("\u0120\u010a", " \n", joined))
    c(out, sub("^ ", "", out))
  }
  text %in% spellings(paste(tokens, collapse = "")) ||
    (length(tokens) > 1 && text %in% spellings(paste(tokens[-1], collapse = "")))
}

# vLLM's prompt_logprobs give no text for the first prompt token: it is what the text sent
# has before the other tokens (an empty string for a BOS token), when they spell its end.
fill_first_token <- function(record, text) {
  if (is.null(record) || !length(record$tokens) || !is.na(record$tokens[[1]])) return(record)
  rest <- paste(record$tokens[-1], collapse = "")
  if (!anyNA(record$tokens[-1]) && endsWith(text, rest)) {
    record$tokens[[1]] <- substr(text, 1, nchar(text) - nchar(rest))
  }
  record
}

# A long text or token list shown by its ends.
clip_text <- function(text, n = 40L) {
  if (nchar(text) <= 2L * n + 5L) return(text)
  paste0(substr(text, 1L, n), " ... ", substr(text, nchar(text) - n + 1L, nchar(text)))
}

clip_tokens <- function(tokens, n = 6L) {
  if (length(tokens) <= 2L * n + 1L) return(tokens)
  c(utils::head(tokens, n), "...", utils::tail(tokens, n))
}
