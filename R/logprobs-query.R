# Log-probability scoring through OpenAI-compatible endpoints: the log-probability a model
# gives a query string after a prefix, with the same cache as every other request.

#' Log-probabilities of queries after a prefix
#'
#' @description
#' `query_logprobs()` scores how likely a model finds each `query` right after its `prefix`:
#' the log-probability of the query's tokens given everything before them. It is the engine
#' of [probsem_task()] and works for any likelihood-based evaluation (cloze tests, multiple
#' choice by likelihood, ranking continuations). Two backends:
#'
#' * `"completions"` (the faithful one): an OpenAI-compatible `/v1/completions` endpoint that
#'   echoes prompt log-probabilities, such as vLLM or llama-cpp-python's server
#'   (`python -m llama_cpp.server --logits_all true`); mainline llama.cpp's `llama-server`
#'   does not echo. The full text `prefix + query` is sent with
#'   `echo = true, logprobs = 0, max_tokens = 0` (see `max_tokens` for servers that refuse
#'   0); the score is
#'   the sum of the log-probabilities of its last `n` tokens, where `n` comes from tokenizing
#'   the query alone (a second echo request, shared by every prefix), as the original probsem
#'   did with OpenAI's completion engines. Those last `n` tokens must be the query's own
#'   tokens: a tokenizer can merge the query with the text before it (e.g. `"\nTrue"` or
#'   `" True"` as one token), and then the span would score the wrong text. With
#'   `span_check = TRUE` (the default) such a pair gets `NA` and an error saying which tokens
#'   differ, instead of a silently wrong number. A leading special token that the endpoint
#'   adds to every text (a BOS token with no log-probability) is recognised and skipped. A
#'   tokenizer that marks a word start only at the beginning of a text (SentencePiece gives
#'   `"\u2581True"` for the query alone but `"True"` after a newline; others `" True"` and
#'   `"True"`) is also accepted: the span passes when its joined text equals the query's
#'   joined tokens without their one leading space or `"\u2581"` (U+2581).
#' * `"chat"` (an approximation, for chat-only providers): one request per distinct prefix
#'   asks for a single answer token with its top alternatives (ellmer
#'   `params(log_probs = TRUE, max_tokens = 1)` plus `top_logprobs`; 16 tokens with
#'   [ellmer::chat_openai()], whose Responses API allows no fewer); a query's score is the
#'   log-probability of its **first** token, read from those alternatives (the summed
#'   probability of the alternatives that spell the longest prefix of the query, ignoring
#'   surrounding spaces). Queries sharing a first token get the same score, and a query whose
#'   first token is not among the `top_logprobs` alternatives gets `-Inf` (probability 0
#'   after `logprob_softmax()`, with or without length normalization). It is a
#'   different quantity from the completions backend's, useful to rank short answers
#'   ("True"/"False", "A"-"D"), not to reproduce the original's numbers. The number of
#'   alternatives is sent as `top_logprobs` (an extra argument to [ellmer::params()]):
#'   ellmer's `top_k` is the sampling parameter of that name, which OpenAI-compatible
#'   servers do not read as a number of alternatives. The first prefix's request is sent
#'   alone: a chat endpoint that answers it without log-probabilities (one that ignores
#'   `logprobs`) stops the call there, with `predictivebench_error_logprobs_unsupported`.
#'
#' **The server is known before its queries are sent.** The completions backend's first
#' request (the first full text, which it sends anyway: no extra request at a good server)
#' is a probe. An endpoint that echoes the prompt's log-probabilities is scored through
#' `echo`; one that answers without them but gives vLLM's `prompt_logprobs` (an extra
#' body field) is scored through those (a second request; the same numbers); and one with
#' neither stops the call, after at most 3 requests (the third asks its chat endpoint for
#' first-token log-probabilities), with an error of class
#' `predictivebench_error_logprobs_unsupported` saying what the server lacks and what to
#' do: `backend = "chat"` where the chat endpoint gives log-probabilities (a chat-only
#' server such as Ollama's OpenAI endpoint, or mainline llama.cpp's `llama-server`), or a
#' server that echoes them. A server that does not answer the probe at all (after
#' `max_tries`) stops the call with `predictivebench_error_logprobs_probe`, nothing else
#' sent. Which route was taken is said once per session and endpoint.
#'
#' **Log-probabilities that cannot be right are refused** before any query is scored, with
#' `predictivebench_error_logprobs_broken`: every echoed token at one value (at least four
#' tokens; llama.cpp-style servers are reported to echo 0.0 for each, which would put every
#' query at chance), text offsets that are given but missing for some token or out of
#' order, and tokens that do not spell the text sent (allowing a leading BOS token and the
#' spellings tokenizers give token texts: `"\u2581"` and `"\u0120"` for a space, `"<0x0A>"`;
#' `span_check = FALSE` skips this one). Each answer is also checked on arrival: one whose
#' every echoed token (two or more) is at 0.0 is a failed request, sent again up to
#' `max_tries` attempts like a 5xx (one replica of a load-balanced server may echo so while
#' the others are right), never cached and never scored; if it stays so, its pairs are `NA`
#' with that error, and the probe's stops the call with `predictivebench_error_logprobs_broken`.
#'
#' Every request, of either backend, goes through the one request pool every solver and
#' judge uses, with `settings` (see [request_settings()]): `max_active` requests in flight,
#' at most `rpm` started a minute, a deadline (`timeout`) on each, HTTP 429, 5xx, timeouts
#' and dropped connections retried (after the provider's `retry-after`, or `backoff` seconds
#' doubling) up to `max_tries` attempts, redirects never followed, the provider's own error
#' text in each error, and a refused key (HTTP 401 or 403) stopping the call at once with
#' an error of class `predictivebench_error_auth`. Log-probability requests are never
#' batched: with `batch = TRUE` they are sent
#' through the pool all the same, and a message says so once per session (a provider batch
#' does not give echoed prompt log-probabilities, and the rest of a run may be batched).
#'
#' Every request goes through the response cache (`settings$cache`, see [cache_dir()]): a
#' second run sends nothing. Every request sent is counted: its tokens are in the result (`input_tokens`,
#' `output_tokens`, `cost`, each request counted once, on the first pair that needs it;
#' nothing for cached requests) and in ellmer's session usage ([ellmer::token_usage()]),
#' so a [vitals::Task]'s `$get_cost()` includes them. Completions requests are counted
#' under the chat's provider and model; their cost is `NA`, as the endpoint gives no
#' prices. Cache keys hold the base URL, model, request body and texts, never the API key.
#' Failed requests after the probe (after `max_tries` attempts for HTTP 429/5xx, timeouts
#' and dropped connections) leave `NA` and their error; the other pairs are kept.
#'
#' @param chat An ellmer chat for an OpenAI-compatible provider, e.g.
#'   `ellmer::chat_openai_compatible(base_url = "http://localhost:8000/v1", model = "...")`
#'   or `ellmer::chat_vllm()`. The completions backend takes the base URL, model name,
#'   credentials and extra headers from it (to reach another endpoint, make another chat);
#'   the chat backend sends through it.
#' @param prefix,query Character vectors of equal length (or length 1, recycled): the text
#'   before each query, and the query. The scored text is `paste0(prefix, query)`.
#' @param backend `"completions"` (sum over the query's tokens, the original's method) or
#'   `"chat"` (first-token approximation).
#' @param span_check `TRUE` (the default) gives `NA` and an error when the last tokens of
#'   the full text are not the query's own tokens, and stops the call when the echoed tokens
#'   do not spell the text sent; `FALSE` sums them anyway (the original stopped with an
#'   assertion error).
#' @param max_tokens Sent with the completions backend: `0` (the original's). Use `1` with a
#'   server that refuses 0 (some vLLM versions require at least 1) or reads 0 as "no limit"
#'   (llama-cpp-python then generates until the context is full); generated tokens are left
#'   out of the score either way.
#' @param top_logprobs How many alternatives the chat backend asks for (OpenAI allows up to
#'   20).
#' @param system_prompt The chat backend's system prompt.
#' @param settings How requests are sent: [request_settings()] (`NULL` for the defaults).
#' @returns A tibble with one row per pair: `prefix`, `query`, `logp` (the summed
#'   log-probability, `NA` on failure), `n_tokens` (the query's token count; always 1 with the
#'   chat backend, which scores one token), `tokens` (a list
#'   of the scored tokens), `error` (`NA` or what went wrong), `cached` (all requests for
#'   the pair came from the cache), and `input_tokens`, `output_tokens` and `cost` of the
#'   requests first needed by the pair (a request shared by several pairs, such as the
#'   query alone, is counted on the first of them).
#' @seealso `logprob_softmax()` to turn scores into a distribution.
#' @keywords internal
query_logprobs <- function(chat, prefix, query, backend = c("completions", "chat"),
                           span_check = TRUE, max_tokens = 0, top_logprobs = 20,
                           system_prompt = logprob_chat_system_prompt, settings = NULL) {
  backend <- rlang::arg_match(backend)
  chat <- check_logprob_chat(chat, backend)
  if (!is.character(prefix) || !is.character(query) || anyNA(prefix) || anyNA(query)) {
    abort_pb("{.arg prefix} and {.arg query} must be character vectors without NA.",
             "argument")
  }
  n <- max(length(prefix), length(query))
  if (!length(prefix) || !length(query) || n %% length(prefix) || n %% length(query)) {
    abort_pb("{.arg prefix} and {.arg query} must have the same length (or length 1).",
             "argument")
  }
  prefix <- rep_len(prefix, n)
  query <- rep_len(query, n)
  check_flag(span_check)
  check_count(max_tokens, min = 0)
  check_count(top_logprobs)
  settings <- settings %||% request_settings()
  check_settings_object(settings)
  dir <- cache_dir(settings$cache)
  if (inherits(chat, "BaselineChat")) {
    return(baseline_scores(chat, prefix, query))
  }
  note_logprobs_unbatched(settings)
  if (backend == "completions") {
    chat_probe <- function() {
      chat_has_logprobs(chat, prefix[[1]], settings, top_logprobs, system_prompt)
    }
    scores <- completions_scores(logprob_endpoint(chat), prefix, query, dir, span_check,
                                 max_tokens, settings, chat_probe)
    log_session_usage(chat, sum(scores$input_tokens),
                      sum(scores$output_tokens), NA_real_)
    scores
  } else {
    check_string(system_prompt, allow_null = TRUE)
    chat_scores(chat, prefix, query, settings, top_logprobs, system_prompt)
  }
}

# No provider batch echoes prompt log-probabilities, so with `batch = TRUE` for a whole run these
# requests go through the pool instead, said once.
note_logprobs_unbatched <- function(settings) {
  if (!isTRUE(settings$batch)) return(invisible(FALSE))
  inform_once(c(
    "Log-probability requests are never batched: {.code batch = TRUE} is ignored for them.",
    i = "They are sent one by one through the request pool (and cached) instead.",
    i = "Shown once per session."
  ), id = "logprobs_unbatched")
}

#' Can a chat give log-probabilities?
#'
#' `check_logprob_chat()` refuses, before any request is sent, a chat whose provider can't
#' give token log-probabilities the way `query_logprobs()` reads them, such as
#' [ellmer::chat_anthropic()] or [ellmer::chat_google_gemini()]. Both backends need an
#' OpenAI-compatible provider ([ellmer::chat_openai()], [ellmer::chat_openai_compatible()],
#' [ellmer::chat_vllm()], [ellmer::chat_ollama()], ...). Baseline chats ([baseline_chat()])
#' score offline.
#'
#' @param chat An ellmer chat or a `"provider/model"` string.
#' @param backend `"completions"` or `"chat"`, as in `query_logprobs()`.
#' @returns The chat, invisibly; otherwise an error of class
#'   `predictivebench_error_logprobs_unsupported` (or `predictivebench_error_argument`
#'   without a chat).
#' @noRd
check_logprob_chat <- function(chat, backend = c("completions", "chat")) {
  backend <- rlang::arg_match(backend)
  chat <- as_chat(chat, allow_null = TRUE)
  if (is.null(chat)) {
    abort_pb(c("Log-probabilities need a {.arg chat}.",
               i = "An OpenAI-compatible one, such as
                    {.code ellmer::chat_openai_compatible(base_url = , model = )}."),
             "argument")
  }
  if (inherits(chat, "BaselineChat")) return(invisible(chat))
  provider <- chat$get_provider()
  if (!inherits(provider, "ellmer::ProviderOpenAICompatible")) {
    abort_pb(
      c("{.cls {class(provider)[[1]]}} chats can't give token log-probabilities.",
        i = "probsem needs an OpenAI-compatible provider, such as {.fn ellmer::chat_openai}, {.fn ellmer::chat_vllm} or {.fn ellmer::chat_openai_compatible} (a local server)."),
      "logprobs_unsupported"
    )
  }
  invisible(chat)
}

# ---- baselines (offline) ------------------------------------------------------------------

# A baseline's answer to a prefix names a query: it gets log-probability 0, the others -Inf
# (every query 0 when it names none). Nothing is sent or cached.
baseline_scores <- function(chat, prefix, query) {
  answers <- vapply(unique(prefix), function(p) chat$respond(p)@text, "", USE.NAMES = FALSE)
  answer <- trimws(answers[match(prefix, unique(prefix))])
  named <- trimws(query) == answer
  any_named <- stats::ave(named, prefix, FUN = any)
  tibble::tibble(
    prefix = prefix,
    query = query,
    logp = ifelse(named | !any_named, 0, -Inf),
    n_tokens = rep(1L, length(query)),
    tokens = as.list(query),
    error = rep(NA_character_, length(query)),
    cached = rep(FALSE, length(query)),
    input_tokens = 0, output_tokens = 0, cost = 0
  )
}
