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
#'   rejects `echo`. The full text `prefix + query` is sent with
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
#'   after [logprob_softmax()], with or without length normalization). It is a
#'   different quantity from the completions backend's, useful to rank short answers
#'   ("True"/"False", "A"-"D"), not to reproduce the original's numbers. The number of
#'   alternatives is sent as `top_logprobs` (an extra argument to [ellmer::params()]):
#'   ellmer's `top_k` is the sampling parameter of that name, which OpenAI-compatible
#'   servers do not read as a number of alternatives.
#'
#' Every request goes through the response cache (see [cache_dir()]): a second run sends
#' nothing. Every request sent is counted: its tokens are in the result (`input_tokens`,
#' `output_tokens`, `cost`, each request counted once, on the first pair that needs it;
#' nothing for cached requests) and in ellmer's session usage ([ellmer::token_usage()]),
#' so a [vitals::Task]'s `$get_cost()` includes them. Completions requests are counted
#' under the chat's provider and model (an OpenAI-compatible one named by `model` when the
#' chat has another model, or there is no chat); their cost is `NA`, as the endpoint gives
#' no prices. Cache keys hold the base URL, model, request body and texts, never the API key.
#' Failed requests (after `max_tries` attempts for HTTP 429/5xx and dropped connections)
#' leave `NA` and their error; the other pairs are kept.
#'
#' @param chat An ellmer chat for an OpenAI-compatible provider, e.g.
#'   `ellmer::chat_openai_compatible(base_url = "http://localhost:8000/v1", model = "...")`
#'   or `ellmer::chat_vllm()`. The completions backend takes the base URL, model name and
#'   credentials from it (override them with `base_url`, `model`, `api_key`); the chat
#'   backend sends through it.
#' @param prefix,query Character vectors of equal length (or length 1, recycled): the text
#'   before each query, and the query. The scored text is `paste0(prefix, query)`.
#' @param backend `"completions"` (sum over the query's tokens, the original's method) or
#'   `"chat"` (first-token approximation).
#' @param base_url,model,api_key Override the chat's endpoint (`base_url` ending in `/v1`),
#'   model name and API key for the completions backend. With `chat = NULL` these are
#'   required (`api_key` may stay `NULL` for a local server).
#' @param span_check `TRUE` (the default) gives `NA` and an error when the last tokens of
#'   the full text are not the query's own tokens; `FALSE` sums them anyway (the original
#'   stopped with an assertion error).
#' @param max_tokens Sent with the completions backend: `0` (the original's). Use `1` with a
#'   server that refuses 0 (some vLLM versions require at least 1) or reads 0 as "no limit"
#'   (llama-cpp-python then generates until the context is full); generated tokens are left
#'   out of the score either way.
#' @param top_logprobs How many alternatives the chat backend asks for (OpenAI allows up to
#'   20).
#' @param system_prompt The chat backend's system prompt.
#' @param cache `TRUE` (the default directory), `FALSE` or a directory; see [cache_dir()].
#' @param max_active Requests in flight at once.
#' @param max_tries Attempts per request.
#' @param timeout Seconds before a completions request is abandoned.
#' @returns A tibble with one row per pair: `prefix`, `query`, `logp` (the summed
#'   log-probability, `NA` on failure), `n_tokens` (the query's token count; always 1 with the
#'   chat backend, which scores one token), `tokens` (a list
#'   of the scored tokens), `error` (`NA` or what went wrong), `cached` (all requests for
#'   the pair came from the cache), and `input_tokens`, `output_tokens` and `cost` of the
#'   requests first needed by the pair (a request shared by several pairs, such as the
#'   query alone, is counted on the first of them).
#' @seealso [logprob_softmax()] to turn scores into a distribution.
#' @export
#' @examples
#' # Turning scores into a distribution works offline:
#' logprob_softmax(c(-1.2, -3.4))
#' \dontrun{
#' # Scoring needs an OpenAI-compatible server with echo support, e.g. `vllm serve gpt2`.
#' chat <- ellmer::chat_openai_compatible(base_url = "http://localhost:8000/v1",
#'                                        model = "gpt2", credentials = function() "none")
#' query_logprobs(chat, "The sky is", c(" blue", " green"))
#' }
query_logprobs <- function(chat = NULL, prefix, query, backend = c("completions", "chat"),
                           base_url = NULL, model = NULL, api_key = NULL, span_check = TRUE,
                           max_tokens = 0, top_logprobs = 20,
                           system_prompt = logprob_chat_system_prompt, cache = TRUE,
                           max_active = 10, max_tries = 3, timeout = 120) {
  backend <- rlang::arg_match(backend)
  chat <- as_chat(chat, allow_null = backend == "completions")
  check_logprob_chat(chat, backend, base_url)
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
  check_count(max_active)
  check_count(max_tries)
  check_number(timeout)
  dir <- cache_dir(cache)
  if (inherits(chat, "BaselineChat")) {
    return(baseline_scores(chat, prefix, query))
  }
  if (backend == "completions") {
    endpoint <- logprob_endpoint(chat, base_url, model, api_key)
    scores <- completions_scores(endpoint, prefix, query, dir, span_check, max_tokens,
                                 max_active, max_tries, timeout)
    log_session_usage(logprob_usage_chat(chat, endpoint), sum(scores$input_tokens),
                      sum(scores$output_tokens), NA_real_)
    scores
  } else {
    check_string(system_prompt, allow_null = TRUE)
    chat_scores(chat, prefix, query, cache, top_logprobs, system_prompt, max_active,
                max_tries)
  }
}

#' Can a chat give log-probabilities?
#'
#' `check_logprob_chat()` refuses, before any request is sent, a chat whose provider can't
#' give token log-probabilities the way [query_logprobs()] reads them, such as
#' [ellmer::chat_anthropic()] or [ellmer::chat_google_gemini()]. Both backends need an
#' OpenAI-compatible provider ([ellmer::chat_openai()], [ellmer::chat_openai_compatible()],
#' [ellmer::chat_vllm()], [ellmer::chat_ollama()], ...); the completions backend also takes
#' an explicit `base_url`. Baseline chats ([baseline_chat()]) score offline.
#'
#' @param chat An ellmer chat, a `"provider/model"` string, or `NULL` (the completions
#'   backend with an explicit `base_url`).
#' @param backend `"completions"` or `"chat"`, as in [query_logprobs()].
#' @param base_url The completions endpoint, when given explicitly.
#' @returns The chat, invisibly; otherwise an error of class
#'   `predictivebench_error_logprobs_unsupported`.
#' @export
#' @examples
#' check_logprob_chat(baseline_constant("True"))
#' chat <- ellmer::chat_anthropic(credentials = function() "none")
#' try(check_logprob_chat(chat, backend = "chat"))
check_logprob_chat <- function(chat, backend = c("completions", "chat"), base_url = NULL) {
  backend <- rlang::arg_match(backend)
  chat <- as_chat(chat, allow_null = TRUE)
  if (is.null(chat)) {
    if (backend == "chat") {
      abort_pb("The chat backend needs a {.arg chat}.", "argument")
    }
    return(invisible(chat))
  }
  if (inherits(chat, "BaselineChat")) return(invisible(chat))
  if (backend == "completions" && !is.null(base_url)) return(invisible(chat))
  provider <- chat$get_provider()
  if (!inherits(provider, "ellmer::ProviderOpenAICompatible")) {
    abort_pb(
      c("{.cls {class(provider)[[1]]}} chats can't give token log-probabilities.",
        i = "probsem and {.fn query_logprobs} need an OpenAI-compatible provider, such as {.fn ellmer::chat_openai}, {.fn ellmer::chat_vllm} or {.fn ellmer::chat_openai_compatible} (a local server).",
        i = if (backend == "completions") "Or pass the {.arg base_url} of an OpenAI-compatible {.path /v1/completions} endpoint."),
      "logprobs_unsupported"
    )
  }
  invisible(chat)
}

# ---- baselines (offline) ------------------------------------------------------------------

# A baseline scores the queries of each prefix with its answer to that prefix: the query it
# names gets log-probability 0 and the others -Inf; when it names none of them, every query
# gets 0 (a uniform distribution). One token per query; nothing is sent or cached.
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

# ---- usage ----------------------------------------------------------------------------

# The usage of each request, summed onto the first pair that needs it, so that summing over
# pairs counts every request once. `owner` is that pair for each request; `usage` has one
# row per request (`input_tokens`, `output_tokens`, `cost`).
pair_usage <- function(n, owner, usage) {
  out <- tibble::tibble(input_tokens = rep(0, n), output_tokens = rep(0, n),
                        cost = rep(0, n))
  for (field in names(out)) {
    sums <- as.vector(tapply(usage[[field]], factor(owner, levels = seq_len(n)), sum))
    out[[field]] <- ifelse(seq_len(n) %in% owner, as.double(sums), 0)
  }
  out
}

# The chat that names completions requests in usage records: the scoring chat when it asks
# for the endpoint's model, otherwise an OpenAI-compatible chat for the endpoint's model.
logprob_usage_chat <- function(chat, endpoint) {
  if (!is.null(chat) && identical(chat$get_model(), endpoint$model)) return(chat)
  ellmer::chat_openai_compatible(base_url = endpoint$base_url, model = endpoint$model,
                                 credentials = function() "")
}

logprob_chat_system_prompt <- paste(
  "Continue the user's text exactly where it ends.",
  "Reply with the continuation only, nothing else."
)

# ---- the completions backend -----------------------------------------------------------

# Where to send completions requests. The credentials stay a function, called when a request
# is built, so the key is never stored in a cache key, a record or a log.
logprob_endpoint <- function(chat = NULL, base_url = NULL, model = NULL, api_key = NULL,
                             call = rlang::caller_env()) {
  check_string(base_url, allow_null = TRUE, call = call)
  check_string(model, allow_null = TRUE, call = call)
  check_string(api_key, allow_null = TRUE, call = call)
  provider <- if (!is.null(chat)) chat$get_provider()
  base_url <- base_url %||%
    (if (!is.null(provider)) tryCatch(provider@base_url, error = function(e) NULL))
  model <- model %||% (if (!is.null(chat)) chat$get_model_object()@name)
  if (is.null(base_url) || is.null(model)) {
    abort_pb(
      c("The completions backend needs a base URL and a model.",
        i = "Pass an OpenAI-compatible {.arg chat}, or {.arg base_url} and {.arg model}."),
      "argument", call = call
    )
  }
  credentials <- if (!is.null(api_key)) {
    function() api_key
  } else if (!is.null(provider)) {
    tryCatch(provider@credentials, error = function(e) NULL)
  }
  headers <- if (!is.null(provider)) tryCatch(provider@extra_headers, error = function(e) NULL)
  list(base_url = sub("/+$", "", base_url), model = model, credentials = credentials,
       headers = headers)
}

completion_request <- function(endpoint, text, max_tokens, max_tries, timeout) {
  req <- httr2::request(endpoint$base_url)
  req <- httr2::req_url_path_append(req, "completions")
  if (length(endpoint$headers)) req <- httr2::req_headers(req, !!!endpoint$headers)
  if (!is.null(endpoint$credentials)) {
    creds <- endpoint$credentials()
    if (rlang::is_string(creds) && nzchar(creds)) {
      req <- httr2::req_auth_bearer_token(req, creds)
    } else if (is.list(creds) && length(creds)) {
      req <- httr2::req_headers_redacted(req, !!!creds)
    }
  }
  req <- httr2::req_body_json(req, completion_body(endpoint, text, max_tokens),
                              auto_unbox = TRUE, digits = NA)
  req <- httr2::req_timeout(req, timeout)
  req <- httr2::req_retry(
    req, max_tries = max_tries, retry_on_failure = TRUE,
    is_transient = function(resp) httr2::resp_status(resp) %in% c(429, 500:599),
    backoff = function(i) min(2^(i - 1), 30)
  )
  httr2::req_error(req, body = function(resp) {
    tryCatch(httr2::resp_body_json(resp)$error$message, error = function(e) NULL)
  })
}

completion_body <- function(endpoint, text, max_tokens) {
  list(model = endpoint$model, prompt = text, echo = TRUE, logprobs = 0L,
       max_tokens = as.integer(max_tokens))
}

completion_key <- function(endpoint, text, max_tokens) {
  cache_key(kind = "completions-echo", version = 1L, base_url = endpoint$base_url,
            body = completion_body(endpoint, text, max_tokens))
}

# The echoed prompt's tokens and log-probabilities, without any generated tokens.
parse_completion <- function(body) {
  choice <- body$choices[[1]]
  lp <- choice$logprobs
  if (is.null(lp) || is.null(lp$tokens)) {
    abort_pb(
      c("The completions response has no echoed token log-probabilities.",
        i = "The endpoint must support {.code echo = true} with {.code logprobs}."),
      "logprobs"
    )
  }
  tokens <- vapply(lp$tokens, function(t) if (is.null(t)) NA_character_ else as.character(t), "")
  logprobs <- vapply(lp$token_logprobs %||% list(),
                     function(x) if (is.null(x)) NA_real_ else as.double(x), 1)
  if (length(logprobs) != length(tokens)) {
    abort_pb("The response has {length(tokens)} tokens but {length(logprobs)} log-probabilities.",
             "logprobs")
  }
  generated <- as.integer(body$usage$completion_tokens %||% 0L)
  if (generated > 0 && generated <= length(tokens)) {
    keep <- seq_len(length(tokens) - generated)
    tokens <- tokens[keep]
    logprobs <- logprobs[keep]
  }
  list(tokens = tokens, logprobs = logprobs,
       input_tokens = as.double(body$usage$prompt_tokens %||% NA),
       output_tokens = as.double(body$usage$completion_tokens %||% NA))
}

# One echo request per distinct text, cached, in parallel; a record or an error message each.
echo_texts <- function(endpoint, texts, dir, max_tokens, max_active, max_tries, timeout) {
  keys <- vapply(texts, function(t) completion_key(endpoint, t, max_tokens), "",
                 USE.NAMES = FALSE)
  records <- lapply(keys, function(k) cache_get(dir, k))
  cached <- !vapply(records, is.null, TRUE)
  errors <- rep(NA_character_, length(texts))
  todo <- which(!cached)
  chunks <- split(todo, ceiling(seq_along(todo) / (4 * max_active)))
  for (chunk in chunks) {
    reqs <- lapply(texts[chunk], function(t) {
      completion_request(endpoint, t, max_tokens, max_tries, timeout)
    })
    resps <- httr2::req_perform_parallel(reqs, on_error = "continue", progress = FALSE,
                                         max_active = max_active)
    for (j in seq_along(chunk)) {
      i <- chunk[[j]]
      resp <- resps[[j]]
      record <- tryCatch({
        if (inherits(resp, "error")) stop(resp)
        parse_completion(httr2::resp_body_json(resp))
      }, error = function(e) e)
      if (inherits(record, "error")) {
        errors[[i]] <- conditionMessage(record)
      } else {
        records[[i]] <- record
        cache_set(dir, keys[[i]], record)
      }
    }
  }
  list(records = records, errors = errors, cached = cached)
}

completions_scores <- function(endpoint, prefix, query, dir, span_check, max_tokens,
                               max_active, max_tries, timeout) {
  full <- paste0(prefix, query)
  texts <- unique(c(full, query))
  echoed <- echo_texts(endpoint, texts, dir, max_tokens, max_active, max_tries, timeout)
  at <- function(text) match(text, texts)
  rows <- lapply(seq_along(full), function(i) {
    f <- at(full[[i]])
    q <- at(query[[i]])
    err <- echoed$errors[[f]] %|NA|% echoed$errors[[q]]
    if (!is.na(err)) {
      return(list(logp = NA_real_, n_tokens = NA_integer_, tokens = character(), error = err))
    }
    query_span(echoed$records[[f]], echoed$records[[q]], query[[i]], span_check)
  })
  # Requests answered from the cache, or failed, cost nothing here.
  sent <- !echoed$cached & is.na(echoed$errors)
  spent <- function(field) {
    ifelse(sent, vapply(echoed$records, function(r) zero_na(r[[field]] %||% 0), 1), 0)
  }
  usage <- pair_usage(length(full), pmin(match(texts, full), match(texts, query),
                                         na.rm = TRUE),
                      list(input_tokens = spent("input_tokens"),
                           output_tokens = spent("output_tokens"),
                           cost = ifelse(sent, NA_real_, 0)))
  tibble::tibble(
    prefix = prefix,
    query = query,
    logp = vapply(rows, `[[`, 1, "logp"),
    n_tokens = vapply(rows, function(r) as.integer(r$n_tokens), 1L),
    tokens = lapply(rows, `[[`, "tokens"),
    error = vapply(rows, function(r) as.character(r$error), ""),
    cached = echoed$cached[match(full, texts)] & echoed$cached[match(query, texts)],
    !!!usage
  )
}

# The summed log-probability of the full text's last tokens, as many as the endpoint echoes
# for the query alone, after checking that they are the query's own tokens.
query_span <- function(full, alone, query, span_check) {
  q_tokens <- alone$tokens
  n <- length(q_tokens)
  f_tokens <- full$tokens
  tail_of <- function(k) if (k > 0 && k <= length(f_tokens)) utils::tail(f_tokens, k)
  matches <- function(k, toks) k > 0 && same_span(tail_of(k), toks, query)
  # An endpoint that puts a BOS token before every text echoes it for the query alone too;
  # it is not part of the query.
  if (!matches(n, q_tokens) && n > 1 && is.na(alone$logprobs[[1]]) &&
      identical(q_tokens[[1]], f_tokens[[1]]) && matches(n - 1, q_tokens[-1])) {
    q_tokens <- q_tokens[-1]
    n <- n - 1
  }
  if (n == 0 || n >= length(f_tokens)) {
    return(list(logp = NA_real_, n_tokens = n, tokens = character(),
                error = sprintf("The query %s has %d tokens but the full text has %d.",
                                encodeString(query, quote = "\""), n, length(f_tokens))))
  }
  span <- utils::tail(seq_along(f_tokens), n)
  error <- NA_character_
  if (!matches(n, q_tokens)) {
    error <- sprintf(
      "The last %d token(s) of the text %s do not spell the query %s (tokenized alone: %s); the query merged with the text before it.",
      n, token_list(f_tokens[span]), encodeString(query, quote = "\""), token_list(q_tokens)
    )
    if (span_check) {
      return(list(logp = NA_real_, n_tokens = n, tokens = f_tokens[span], error = error))
    }
  }
  lp <- full$logprobs[span]
  if (anyNA(lp)) {
    return(list(logp = NA_real_, n_tokens = n, tokens = f_tokens[span],
                error = "A token of the query has no log-probability."))
  }
  list(logp = sum(lp), n_tokens = n, tokens = f_tokens[span],
       error = if (span_check) NA_character_ else error)
}

# Whether the full text's last tokens `span` are the query's tokens `alone`: the same
# tokens, or, for a tokenizer that marks a word start only at the beginning of a text
# (SentencePiece's "\u2581True" alone but "True" after a newline; or " True" and "True"),
# the same text once the one leading "\u2581" or space added to the query alone is dropped.
# A space that is the query's own is never dropped, and the span never loses one: " True"
# in the text for "True" alone is the text's space merged with the query.
same_span <- function(span, alone, query) {
  if (identical(span, alone)) return(TRUE)
  if (length(span) != length(alone) || anyNA(span) || anyNA(alone)) return(FALSE)
  alone_text <- paste(alone, collapse = "")
  added <- startsWith(alone_text, "\u2581") ||
    (startsWith(alone_text, " ") && !startsWith(query, " "))
  added && identical(paste(span, collapse = ""), substring(alone_text, 2))
}

token_list <- function(tokens) {
  paste0("[", paste(encodeString(tokens, quote = "\""), collapse = ", "), "]")
}

# ---- the chat backend (first-token approximation) ---------------------------------------

chat_scores <- function(chat, prefix, query, cache, top_logprobs, system_prompt, max_active,
                        max_tries) {
  prompts <- unique(prefix)
  # OpenAI's Responses API (ellmer::chat_openai()) refuses fewer than 16 output tokens; only
  # the first token is read either way.
  max_tokens <- if (inherits(chat$get_provider(), "ellmer::ProviderOpenAI")) 16 else 1
  configured <- configure_chat(
    chat, system_prompt,
    ellmer::params(log_probs = TRUE, max_tokens = max_tokens, top_logprobs = top_logprobs)
  )
  res <- generate_responses(configured, prompts, cache = cache, max_active = max_active,
                            max_tries = max_tries, keep_json = TRUE,
                            key_extra = list(kind = "first-token-logprobs", version = 1L),
                            epoch = 1L, progress = FALSE, batch = FALSE)  # never batched
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

# The alternatives for the first answer token: a data frame of token and logprob, from a
# chat-completions (`choices[[1]]$logprobs$content`) or responses (`output[[]]$content[[]]
# $logprobs`) body.
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

# ---- post-processing --------------------------------------------------------------------

#' Turn query scores into a distribution
#'
#' `logprob_softmax()` is the softmax over one context's query scores, `exp(x) / sum(exp(x))`
#' as in the original probsem. The original overflows for very negative sums (every
#' `exp(x)` is 0, giving `NaN`); here such input is computed stably as
#' `exp(x - max(x)) / sum(exp(x - max(x)))`. Wherever the original's formula is finite, the
#' same formula is used, computed with R's `exp()` and `sum()`: the probabilities equal
#' numpy's within a few units in the last place (numpy's `exp` and summation round
#' differently), i.e. to about 15 significant digits, not bit for bit.
#'
#' `logprob_normalize()` applies the original's post-processing to summed log-probabilities:
#' optional length normalization (`norm = "tokens"`, the original's `--norm`: divide by the
#' query's token count; `"sqrt"`: divide by its square root, a variant used in the
#' literature) and then division by `temperature` (the original's `--temp`). A score of
#' `-Inf` (a query the chat backend did not find among the alternatives) stays `-Inf`
#' whatever the token count, so it gets probability 0 and the other queries a proper
#' distribution.
#'
#' @param x Scores of one context's queries (log-probabilities, already divided by the
#'   temperature).
#' @param logp Summed log-probabilities.
#' @param n_tokens Token counts of the queries.
#' @param norm `"none"` (the default), `"tokens"` or `"sqrt"`. `TRUE`/`FALSE` mean
#'   `"tokens"`/`"none"`, like the original's flag.
#' @param temperature A positive number; scores are divided by it (default 1). Below 1 the
#'   distribution is sharper, above 1 flatter.
#' @returns A numeric vector as long as `x` (or `logp`). `logprob_softmax()` gives `NA`
#'   everywhere when any score is `NA` or no score is finite.
#' @export
#' @examples
#' logprob_softmax(c(-1, -2, -3))
#' logprob_softmax(c(-1000, -1001))   # the original gives NaN here
#' logprob_normalize(c(-4, -6), n_tokens = c(2, 3), norm = "tokens", temperature = 0.5)
logprob_softmax <- function(x) {
  if (!is.numeric(x)) abort_pb("{.arg x} must be numeric.", "argument")
  x <- as.double(x)
  if (!length(x)) return(x)
  if (anyNA(x)) return(rep(NA_real_, length(x)))
  e <- exp(x)
  out <- e / sum(e)
  if (all(is.finite(out))) return(out)
  m <- max(x)
  if (!is.finite(m)) {
    if (m == Inf) return(ifelse(x == Inf, 1 / sum(x == Inf), 0))
    return(rep(NA_real_, length(x)))
  }
  e <- exp(x - m)
  e / sum(e)
}

#' @rdname logprob_softmax
#' @export
logprob_normalize <- function(logp, n_tokens, norm = "none", temperature = 1) {
  norm <- logprob_norm_arg(norm)
  check_number(temperature)
  if (temperature <= 0) {
    abort_pb("{.arg temperature} must be positive.", "argument")
  }
  divisor <- switch(norm, none = 1, tokens = n_tokens, sqrt = sqrt(n_tokens))
  out <- logp / divisor / temperature
  # An impossible query stays impossible, even without a token count.
  out[!is.na(logp) & logp == -Inf] <- -Inf
  out
}

logprob_norm_arg <- function(norm, call = rlang::caller_env()) {
  if (isTRUE(norm)) return("tokens")
  if (isFALSE(norm)) return("none")
  if (!rlang::is_string(norm) || !norm %in% c("none", "tokens", "sqrt")) {
    abort_pb("{.arg norm} must be {.val none}, {.val tokens}, {.val sqrt}, TRUE or FALSE.",
             "argument", call = call)
  }
  norm
}
