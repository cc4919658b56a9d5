# query_logprobs()'s completions backend: echoed /v1/completions requests, cached, spans summed.

# Where to send completions requests, from the chat (base URL, credentials, extra headers,
# model). The credentials stay a function so the key is never in a cache key, record or log.
logprob_endpoint <- function(chat) {
  provider <- chat$get_provider()
  list(base_url = sub("/+$", "", provider@base_url), model = chat$get_model(),
       credentials = S7::prop(provider, "credentials"), headers = provider@extra_headers,
       route = "echo")
}

completion_key <- function(endpoint, text, max_tokens) {
  cache_key(kind = "completions-echo", version = 2L, base_url = endpoint$base_url,
            headers = hash_headers(endpoint$headers),
            body = completion_body(endpoint, text, max_tokens))
}

# The echoed prompt's tokens, log-probabilities and offsets (NULL when none), no generated ones.
parse_completion <- function(body, route = "echo") {
  if (identical(route, "prompt_logprobs")) return(parse_prompt_logprobs(body))
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
  offsets <- if (!is.null(lp$text_offset)) {
    vapply(lp$text_offset, function(x) if (is.null(x)) NA_real_ else as.double(x), 1)
  }
  generated <- as.integer(body$usage$completion_tokens %||% 0L)
  if (generated > 0 && generated <= length(tokens)) {
    keep <- seq_len(length(tokens) - generated)
    tokens <- tokens[keep]
    logprobs <- logprobs[keep]
    if (length(offsets) >= length(keep)) offsets <- offsets[keep]
  }
  # a server that ignores `echo` answers with the generated tokens alone
  if (!length(tokens)) {
    abort_pb(
      c("The completions response has no echoed token log-probabilities: only generated tokens.",
        i = "The endpoint must support {.code echo = true} with {.code logprobs}."),
      "logprobs"
    )
  }
  list(tokens = tokens, logprobs = logprobs, offsets = offsets,
       input_tokens = as.double(body$usage$prompt_tokens %||% NA),
       output_tokens = as.double(body$usage$completion_tokens %||% NA))
}

# vLLM's `prompt_logprobs = 0`: per prompt token a map from token id to `{logprob, rank,
# decoded_token}` holding that token alone (`null` for the first, which has no context and
# whose text fill_first_token() finds).
parse_prompt_logprobs <- function(body) {
  entries <- body$choices[[1]]$prompt_logprobs
  if (!length(entries)) {
    abort_pb(
      c("The completions response has no {.code prompt_logprobs}.",
        i = "The endpoint must support vLLM's {.code prompt_logprobs}."),
      "logprobs"
    )
  }
  if (any(lengths(entries) > 1)) {
    abort_pb("The response's {.code prompt_logprobs} give several tokens for one prompt token.",
             "logprobs")
  }
  own <- lapply(entries, function(e) if (length(e)) e[[1]])
  list(
    tokens = vapply(own, function(x) as.character(x$decoded_token %||% NA_character_), ""),
    logprobs = vapply(own, function(x) as.double(x$logprob %||% NA_real_), 1),
    offsets = NULL,
    input_tokens = as.double(body$usage$prompt_tokens %||% NA),
    output_tokens = as.double(body$usage$completion_tokens %||% NA)
  )
}

# One echo request per distinct text, cached on arrival, through the one request pool. A refused
# key stops the call (`predictivebench_error_auth`); `conditions` keeps each failure's error
# (its HTTP status) for the probe.
echo_texts <- function(endpoint, texts, dir, max_tokens, settings) {
  if (!length(texts)) {
    return(list(records = list(), errors = character(), cached = logical(),
                conditions = list()))
  }
  keys <- vapply(texts, function(t) completion_key(endpoint, t, max_tokens), "",
                 USE.NAMES = FALSE)
  found <- cache_get_many(dir, keys)
  # a broken answer an earlier version cached (it checked answers only together) is asked again
  found[vapply(found, function(r) !is.null(broken_echo(r)), TRUE)] <- list(NULL)
  kept <- cache_keeper(dir, keys, found)
  cached <- !vapply(kept$records, is.null, TRUE)
  conditions <- vector("list", length(texts))
  keep <- function(i, value) {
    if (inherits(value, "error")) conditions[[i]] <<- value
    kept$keep(i, value)
  }
  todo <- which(!cached)
  # R/engine-price.R: inside estimate_cost() they are answered here, and nothing is sent
  todo <- dry_run_completions(pricing_collector(), endpoint, texts, keys, todo, sum(cached),
                              kept$keep, max_tokens,
                              read = function(body) parse_completion(body, endpoint$route))
  if (length(todo)) {
    cache_prepare(dir)  # an unwritable cache stops the run before it pays
    send_completions(endpoint, texts, todo, keep, max_tokens, settings,
                     cached = !is.null(dir))
  }
  records <- Map(fill_first_token, kept$records, texts)
  list(records = unname(records), errors = kept$errors, cached = cached,
       conditions = conditions)
}

bind_echoed <- function(a, b) {
  list(records = c(a$records, b$records), errors = c(a$errors, b$errors),
       cached = c(a$cached, b$cached), conditions = c(a$conditions, b$conditions))
}

send_completions <- function(endpoint, texts, todo, keep, max_tokens, settings, cached,
                             call = rlang::caller_env()) {
  deadline <- settings_deadline(settings)
  # An answer that can't be a model's (one replica of a load-balanced server with a broken
  # echo) is a failed request, sent again like a 5xx: never cached, never scored.
  read <- function(resp) {
    record <- parse_completion(httr2::resp_body_json(resp), endpoint$route)
    broken_echo(record) %||% record
  }
  transport <- completions_transport(endpoint, texts, max_tokens, read, settings$max_active,
                                     deadline)
  started <- now_seconds()
  tryCatch(
    request_pool(todo, transport, keep, max_active = settings$max_active, rpm = settings$rpm,
                 max_tries = settings$max_tries, backoff = settings$backoff,
                 deadline = deadline),
    predictivebench_pool_halted = function(halt) {
      abort_auth(halt, transport$label(halt$i), cached, call = call)
    }
  )
  note_rpm_pace(length(todo), settings$rpm, settings$max_active, now_seconds() - started,
                list(endpoint_chat(endpoint)))
}

# A chat naming a completions endpoint, for note_rpm_pace(), which reads chats.
endpoint_chat <- function(endpoint) {
  ellmer::chat_openai_compatible(base_url = endpoint$base_url, model = endpoint$model,
                                 credentials = function() "")
}

# The first text is the probe (probe_completions()); every answer is checked (check_echoed())
# before any query is scored.
completions_scores <- function(endpoint, prefix, query, dir, span_check, max_tokens,
                               settings,
                               chat_probe = function() list(logprobs = FALSE, sent = 0L)) {
  full <- paste0(prefix, query)
  texts <- unique(c(full, query))
  probe <- probe_completions(endpoint, texts[[1]], dir, max_tokens, settings, span_check,
                             chat_probe)
  echoed <- bind_echoed(probe$echoed,
                        echo_texts(probe$endpoint, texts[-1], dir, max_tokens, settings))
  if (is.null(pricing_collector())) {
    check_echoed(echoed$records, texts, probe$endpoint, span_check)
  }
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
  # a BOS token an endpoint puts before every text is echoed for the query alone too: not its own
  if (!matches(n, q_tokens) && n > 1 && is.na(alone$logprobs[[1]]) &&
      identical(q_tokens[[1]], f_tokens[[1]]) && matches(n - 1, q_tokens[-1])) {
    q_tokens <- q_tokens[-1]
    n <- n - 1
  }
  if (n == 0 || n >= length(f_tokens)) {
    return(list(logp = NA_real_, n_tokens = n, tokens = character(),
                error = missing_context_error(query, n, length(f_tokens))))
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

# The echo for context + query is no longer than the query's own: the context the query is
# conditioned on is missing. Say so, and what to do.
missing_context_error <- function(query, n_query, n_full) {
  quoted <- encodeString(query, quote = "\"")
  if (n_query == 0) {
    return(sprintf("The endpoint echoed no tokens for the query %s: it does not return the prompt's tokens (echo = true with logprobs).", quoted))
  }
  sprintf(paste(
    "The endpoint echoed %d token(s) for context + query and %d for the query %s alone, so the",
    "context is missing from what it echoed: either the context is empty or the endpoint does",
    "not echo the prompt with log-probabilities (echo = true, logprobs = 0), which the",
    "completions backend needs. For such an endpoint use backend = \"chat\"."
  ), n_full, n_query, quoted)
}

# Whether the text's last tokens `span` are the query's tokens `alone`, or the same text once the
# one word-start mark ("\u2581" or a space) a tokenizer adds to the query alone is dropped; a
# space that is the query's own is never dropped.
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
