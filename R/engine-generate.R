# The shared solver: parallel ellmer requests with retries, failure isolation and a cache.

#' Send prompts through a chat, in parallel, with a response cache
#'
#' `generate_responses()` is the engine behind every predictivebench solver and judge. It
#' sends each prompt as a fresh conversation (the chat's system prompt and earlier turns are
#' kept) and adds what vitals' `generate()` lacks:
#'
#' How requests are sent (`max_active`, `rpm`, `max_tries`, `backoff`, `timeout`, `cache`,
#' `batch`, `wait`) is one [request_settings()] object, the same for every solver and judge.
#'
#' * **A continuous pool.** `max_active` requests are in flight until the work is done: when
#'   one answers, the next starts, so one slow request never holds up the others. At most
#'   `rpm` requests start per minute.
#' * **A response cache.** A request already answered (same provider and every provider
#'   and model property, headers included, system prompt, turns, tools, messages and epoch)
#'   is read from disk instead of sent, so a
#'   second run makes no request. Each answer is written (atomically) the moment it
#'   arrives, so a run that is interrupted or killed loses only the requests in flight and
#'   resumes where it stopped. See [cache_dir()]; `cache = FALSE` turns it off. Offline
#'   [baseline_chat()]s are never cached: they cost nothing, and two of them may share a name.
#' * **Failure isolation.** A request that fails leaves every other answer in place; the
#'   failed prompt gets `NA` and its error message. Transient failures (HTTP 408, 409,
#'   425, 429, 5xx, timeouts, dropped or reset connections) go back into the pool and are sent again after the
#'   provider's `retry-after`, or `backoff` seconds doubling with each retry, while the
#'   other requests go on; after `max_tries` attempts the request is given up ("Gave up
#'   after ... tries"), never retried endlessly.
#' * **A deadline on every request.** A request that has not answered within the
#'   `timeout` setting (by default `getOption("ellmer_timeout_s", 300)` seconds, ellmer's
#'   own request timeout) is cancelled
#'   by the pool and counts as a transient failure (retried up to `max_tries`), on the fast
#'   path and on ellmer's `$chat_async()` path alike, so a server that accepts a connection
#'   and never answers cannot hang a run. With tools, the deadline covers every tool-call
#'   round of the request, and at most `max_turns` turns are paid: past either, the request
#'   fails with its own error (`predictivebench_error_sample_deadline`,
#'   `predictivebench_error_max_turns`), is not sent again, and the turns it was paid for
#'   count in its tokens and cost.
#' * **No redirects.** A provider answering 30x gets an error naming where it pointed, and
#'   the redirect is not followed, to another host or the same one: following it would send
#'   the API key (and, on a 307/308, the prompt) wherever it points, and an API answering
#'   a POST with a redirect is misconfigured anyway. Point `base_url` at the final address.
#'   The same holds for provider batch APIs (upload, submit, poll, results).
#' * **The provider's own words.** A failed request's error is the HTTP status followed by
#'   the provider's explanation (the `message` of an OpenAI, Anthropic or Gemini error
#'   body, or a plain-text body), e.g.
#'   `HTTP 400 Bad Request: Invalid model (invalid_request_error)`.
#' * **An error is never an answer.** A 200 whose body is an error object (as OpenRouter
#'   sends for errors met while generating), an empty `choices` list or an answer with no
#'   content at all is a failed request: retried when transient, never cached. A cached
#'   entry that holds no answer is sent again.
#' * **A refusal is not a refused key.** A 400 or 403 whose body flags the prompt's content
#'   (OpenRouter's moderation 403, Azure's `content_filter`, a safety or policy code) is
#'   that prompt's error (class `predictivebench_error_refusal`), and the run goes on.
#' * **A refused key stops the run.** At the first HTTP 401, or 403 that is not a content
#'   refusal, nothing more is sent:
#'   the requests already in flight (at most `max_active`) are awaited, their answers
#'   cached, and the call ends with one error of class `predictivebench_error_auth` naming
#'   the provider and its address, rather than failing every prompt one by one.
#' * **Warnings once.** A provider warning (a parameter it does not support, such as
#'   `seed`; a truncated answer) is shown once per call, not once per request.
#' * **Accounting.** Per prompt: input/output tokens, cost, seconds, whether it came from
#'   the cache, and the error. With tools, tokens and cost are summed over every round of
#'   the request (each tool call is one more request to the provider).
#' * **Provider batches.** With the setting `batch = TRUE` the prompts not in the cache go
#'   as one provider batch through [ellmer::batch_chat()] (OpenAI, Anthropic, Gemini, Groq):
#'   half the price, answers in minutes to hours, resumable across R sessions (the batch's
#'   state file is kept in the cache directory, `batches/`, so calling again after quitting
#'   R resumes the same batch; its answers enter the same cache). An item the provider failed
#'   (or that expired) is marked failed with the provider's error; the next call sends the
#'   failed ones in a new batch. A corrupt state file, one made for another chat, a batch
#'   refused as a whole or one that ended without completing are errors of class
#'   `predictivebench_error_batch_state` or `predictivebench_error_batch` naming the file and
#'   batch. With `wait = FALSE` the call submits the batch (or checks on it) and returns at
#'   once; until the batch ends the prompts have result `NA` and an error saying it is still
#'   running. Log-probability requests cannot be batched.
#'
#' Identical prompts within one call are told apart by their epoch (their occurrence
#' number: 1, 2, ...), so `vitals` epochs and repeated votes are separate requests and
#' separate cache entries.
#'
#' Requests to OpenAI-compatible chat-completion APIs ([ellmer::chat_openai_compatible()],
#' without tools) are sent on a fast path: ellmer builds the request once, each prompt is
#' put into it, and ellmer's own parser reads each answer, so turns, tokens and costs are
#' ellmer's. Every other chat is sent through ellmer's `$chat_async()`. Offline
#' [baseline_chat()]s are answered locally, with the same outputs.
#'
#' @param chat An ellmer chat (or a baseline chat) with the provider, model and parameters
#'   to use. It is cloned, never modified.
#' @param prompts A character vector, or a list whose elements are strings or lists of
#'   ellmer content (e.g. text plus [ellmer::content_image_file()]).
#' @inheritParams settings-args
#' @param ... Named settings that override those of `settings` (as `$eval()` passes them
#'   to a solver), e.g. `cache = FALSE, max_active = 50`.
#' @param epoch Epoch of each prompt (integers, recycled). `NULL` numbers repeated
#'   prompts 1, 2, ....
#' @param key_extra Anything else that should make a cache key distinct (a prompt version).
#' @param keep_json Keep the provider's raw response JSON (for log-probabilities).
#' @param progress Show a progress bar (advancing with each answer).
#' @returns A tibble with one row per prompt: `result` (the response text, `NA` on failure),
#'   `chat` (an ellmer Chat holding the conversation), `error`, `cached`, `input_tokens`,
#'   `output_tokens`, `cost`, `seconds` and, with `keep_json`, `json`.
#' @keywords internal
generate_responses <- function(chat, prompts, settings = NULL, ..., epoch = NULL,
                               key_extra = NULL, keep_json = FALSE,
                               progress = interactive()) {
  settings <- settings_with_dots(settings, ...)
  chat <- as_chat(chat)
  prompts <- as_prompt_list(prompts)
  run_requests(list(chat), rep(1L, length(prompts)), prompts, settings, epoch = epoch,
               key_extra = key_extra, keep_json = keep_json, progress = progress)
}

# `settings` updated by `...`, which must all name settings: a misspelt one (`max_activ`)
# would otherwise be ignored without a word.
settings_with_dots <- function(settings, ..., call = rlang::caller_env()) {
  dots <- list(...)
  unknown <- setdiff(rlang::names2(dots), request_setting_names())
  if (length(unknown)) {
    abort_pb(c("Unknown request setting{?s} {.arg {unknown}}.",
               i = "Settings: {.field {request_setting_names()}}."),
             "argument", call = call)
  }
  as_request_settings(settings, ..., call = call)
}

# generate_responses() for prompts that go to different chats (ProcessBench's per-vote seeds,
# DSBench's system prompts and tools): prompt i is sent through chats[[chat_index[i]]], all in
# one pool, and provider warnings are shown once for the whole call.
# `chat_keys` (one per chat) replaces `key_extra` when the chats differ by more than their
# identity shows (DSBench's workbook tools, whose folder is in their closure).
# `chat_group` (one name per chat) and `group_max_active` (a limit by group name): each
# group's requests in flight stay within its own limit (an evaluation set's models, one pool).
run_requests <- function(chats, chat_index, prompts, settings = NULL, epoch = NULL,
                         key_extra = NULL, keep_json = FALSE, progress = interactive(),
                         chat_keys = NULL, chat_group = NULL, group_max_active = NULL) {
  settings <- as_request_settings(settings)
  batch <- dry_run_batch(settings$batch)  # R/engine-estimate-cost.R: counted one by one, at the batch price
  check_flag(keep_json)
  n <- length(prompts)
  epoch <- if (is.null(epoch)) occurrence_index(prompts, chat_index) else
    rep_len(as.integer(epoch), n)
  # A baseline answers locally for free, and two baselines can share a name (two constant
  # answers): caching them could only serve one's answers to the other.
  offline <- all(vapply(chats, inherits, TRUE, what = "BaselineChat"))
  dir <- if (offline) cache_dir(FALSE) else cache_dir(settings$cache)
  identities <- lapply(seq_along(chats), function(k) {
    request_identity(chats[[k]], if (is.null(chat_keys)) key_extra else chat_keys[[k]])
  })
  keys <- vapply(seq_len(n), function(i) {
    cache_key(identities[[chat_index[[i]]]], prompt_fingerprint(prompts[[i]]), epoch[[i]])
  }, "")

  state <- new.env(parent = emptyenv())
  local <- vapply(chats, inherits, TRUE, what = "BaselineChat")[chat_index]
  state$records <- cache_get_many(dir, keys)
  state$records[local] <- list(NULL)  # (a baseline among real chats: see `offline`)
  state$errors <- rep(NA_character_, n)
  state$paid <- vector("list", n)  # usage of failed requests that were paid (tool rounds)
  cached <- !vapply(state$records, is.null, TRUE)
  # Every answer is kept (and cached, atomically) the moment it arrives, so a run that is
  # killed loses only the requests in flight. A failure is never cached.
  keep <- function(i, value) {
    if (inherits(value, "error")) {
      state$errors[[i]] <- conditionMessage(value)
      state$paid[[i]] <- error_usage(value)
    } else {
      state$records[[i]] <- value
      if (!local[[i]]) cache_set(dir, keys[[i]], value)
    }
  }
  todo <- which(!cached)
  answer_offline(chats, chat_index, prompts, todo[local[todo]], keep, keep_json)
  todo <- todo[!local[todo]]
  # R/evalset-overlap.R: inside an evaluation set's round, the set sends them with its other cells'
  if (length(todo) && !batch) {
    todo <- defer_to_eval_set(chats, chat_index, prompts, epoch, keys, todo, settings,
                              key_extra, chat_keys, keep_json, keep)
  }
  if (length(todo)) cache_prepare(dir)  # an unwritable cache stops the run before it pays
  if (length(todo) && batch) {
    if (is.null(dir)) {
      abort_pb("{.code batch = TRUE} needs the cache: the batch's state file is kept there.",
               "argument")
    }
    send_batches(chats, chat_index, prompts, keys, todo, dir, settings$wait, keep, keep_json)
  } else if (length(todo)) {
    # ellmer logs the usage of what it sends itself; what the curl fast path sent is logged
    # here, also when the run is interrupted.
    on.exit(log_fast_path_usage(chats, chat_index, todo, state$records), add = TRUE)
    send_pool(chats, chat_index, prompts, todo, keep, settings, keep_json, progress,
              cached = !is.null(dir), group = chat_group[chat_index], group_max_active)
  }
  out <- responses_tibble(chats, chat_index, prompts, state$records, state$errors, cached,
                          keep_json)
  with_paid_failures(out, state$paid)
}

# A failed request's paid rounds (a sample past its deadline or turn cap, with tool rounds
# answered before) count in its usage: tokens, cost.
with_paid_failures <- function(out, paid) {
  for (i in which(!vapply(paid, is.null, TRUE))) {
    tokens <- paid[[i]]$tokens
    out$input_tokens[[i]] <- as.double(tokens[[1]])
    out$output_tokens[[i]] <- as.double(tokens[[2]])
    out$cost[[i]] <- as.double(paid[[i]]$cost)
  }
  out
}

# `error` carrying the usage (request_usage()) of the rounds its request was paid for.
with_usage <- function(error, usage) {
  if (!is.null(usage) && length(usage$tokens) >= 2) error$usage <- usage
  error
}

error_usage <- function(error) {
  usage <- error$usage %||% error$parent$usage
  if (is.list(usage) && length(usage$tokens) >= 2) usage else NULL
}

log_fast_path_usage <- function(chats, chat_index, rows, records) {
  for (k in unique(chat_index[rows])) {
    if (!uses_fast_path(chats[[k]])) next
    answered <- Filter(Negate(is.null), records[rows[chat_index[rows] == k]])
    if (!length(answered)) next
    total <- function(field) sum(vapply(answered, function(r) as.double(r[[field]]), 1))
    log_session_usage(chats[[k]], total("input_tokens"), total("output_tokens"), total("cost"))
  }
}

# Offline chats answer at once and for free: no pool, no rpm, no batch, no cache.
answer_offline <- function(chats, chat_index, prompts, rows, keep, keep_json) {
  for (i in rows) {
    keep(i, tryCatch(record_from_turn(chats[[chat_index[[i]]]]$respond(prompts[[i]]), 0,
                                      keep_json), error = identity))
  }
}

send_pool <- function(chats, chat_index, prompts, todo, keep, settings, keep_json, progress,
                      cached, group = NULL, group_max_active = NULL) {
  max_active <- settings$max_active
  rpm <- settings$rpm
  deadline <- settings_deadline(settings)
  env <- environment()
  if (progress) cli::cli_progress_bar("Generating", total = length(todo), .envir = env)
  deliver <- function(i, value) {
    keep(i, value)
    if (progress) cli::cli_progress_update(.envir = env)
  }
  with_warnings_once({
    transport <- request_transport(chats, chat_index, prompts, keep_json, max_active,
                                   deadline, settings$max_turns)
    send <- function() {
      request_pool(todo, transport, deliver, max_active = max_active, rpm = rpm,
                   max_tries = settings$max_tries, backoff = settings$backoff,
                   deadline = deadline, group = group, group_max_active = group_max_active)
    }
    started <- Sys.time()
    # Refused credentials stop the run with one error (the pool sent nothing more).
    tryCatch(
      if (transport$uses_later) without_jit(send()) else send(),  # R/engine-compat-ellmer.R
      predictivebench_pool_halted = function(halt) {
        abort_auth(halt, transport$label(halt$i), cached)
      }
    )
  })
  note_rpm_pace(length(todo), rpm, max_active, as.double(Sys.time() - started, units = "secs"),
                chats)
}

# The pool starts at most `rpm` requests a minute, so `n` requests take at least
# (n - max_active) * 60 / rpm seconds whatever the server does. When that floor is most of
# the run (a fast server, often a local one, behind the default rpm = 500), say so once per
# session, with the setting to change: the throttle would otherwise cost time without a word.
note_rpm_pace <- function(n, rpm, max_active, seconds, chats) {
  least <- max(0, n - max_active) * 60 / rpm
  if (least < 1 || least < seconds / 2) return(invisible(FALSE))
  urls <- unique(unlist(lapply(chats, chat_base_url)))
  local <- length(urls) && all(is_loopback_url(urls))
  inform_once(c(
    "The {.arg rpm} limit set the pace: {n} requests at {.code rpm = {rpm}} take at least
     {round(least, 1)} s of this run's {round(seconds, 1)} s.",
    i = if (local) {
      "{.url {urls[[1]]}} is a local server, with no rate limit to respect: raise
       {.arg rpm}, e.g. {.code settings = request_settings(rpm = Inf)} or
       {.code $eval(rpm = Inf)}."
    } else {
      "If your provider allows more, raise {.arg rpm}, e.g.
       {.code settings = request_settings(rpm = 2000)} or {.code $eval(rpm = 2000)}."
    },
    i = "Shown once per session."
  ), id = "rpm_pace")
}

chat_base_url <- function(chat) {
  if (inherits(chat, "BaselineChat")) return(NULL)
  tryCatch(chat$get_provider()@base_url, error = function(e) NULL)
}

is_loopback_url <- function(url) {
  host <- sub("^[a-zA-Z][a-zA-Z0-9+.-]*://", "", url)
  host <- sub("^[^@/]*@", "", host)
  host <- sub("[/?#].*$", "", host)
  host <- ifelse(startsWith(host, "["), sub("^\\[([^]]*)\\].*$", "\\1", host),
                 sub(":[0-9]*$", "", host))
  tolower(host) %in% c("localhost", "::1") | grepl("^127\\.", host) |
    grepl("\\.localhost$", tolower(host))
}

# One provider batch per chat (R/engine-batch.R).
send_batches <- function(chats, chat_index, prompts, keys, todo, dir, wait, keep, keep_json) {
  with_warnings_once(for (k in unique(chat_index[todo])) {
    rows <- todo[chat_index[todo] == k]
    values <- batch_requests(chats[[k]], prompts[rows], keys[rows], dir, wait, keep_json)
    for (j in seq_along(rows)) {
      keep(rows[[j]], values[[j]] %||%
             simpleError("The batch is still running: run the call again to collect it."))
    }
    # The answers are cached: the ended batch's state is no longer needed.
    unlink(attr(values, "done"))
  })
}

# Runs `expr` holding back its warnings, then gives each distinct one once: ellmer warns per
# request (a parameter the provider does not support, a truncated answer), which over
# thousands of requests would bury the message, while suppressing it would hide it.
with_warnings_once <- function(expr) {
  seen <- list()
  out <- withCallingHandlers(expr, warning = function(w) {
    message <- conditionMessage(w)
    if (!message %in% names(seen)) seen[[message]] <<- w
    tryInvokeRestart("muffleWarning")
  })
  for (w in seen) warning(w)
  out
}

as_prompt_list <- function(prompts) {
  if (is.character(prompts)) return(as.list(prompts))
  if (!is.list(prompts)) {
    abort_pb("{.arg prompts} must be a character vector or a list.", "argument")
  }
  prompts
}

occurrence_index <- function(prompts, group = rep(1L, length(prompts))) {
  fingerprints <- paste(group, vapply(prompts, prompt_fingerprint, ""))
  stats::ave(seq_along(fingerprints), fingerprints, FUN = seq_along)
}

prompt_fingerprint <- function(prompt) {
  if (is.character(prompt)) return(digest::digest(prompt, algo = "sha256"))
  digest::digest(lapply(prompt, function(x) {
    if (is.character(x)) x else ellmer::contents_record(x)
  }), algo = "sha256")
}

# What identifies a request besides its messages: the provider's class and every property
# of the provider and model, the system prompt, turns and tools; never the credentials.
# Header values (gateway routing, but also keys some gateways take as headers) enter only
# hashed, and the whole identity only ever as part of a hashed cache key.
request_identity <- function(chat, key_extra = NULL) {
  provider <- chat$get_provider()
  list(
    version = 2L,
    provider_class = class(provider)[[1]],
    provider = provider_properties(provider),
    model = canonical_value(chat$get_model_object()),
    system_prompt = chat$get_system_prompt(),
    turns = lapply(chat$get_turns(), function(t) ellmer::contents_record(t)),
    tools = lapply(unname(chat$get_tools()), tool_fingerprint),
    extra = key_extra
  )
}

# Every property of the provider except its credentials and those ellmer keeps on the model
# object (reading them on the provider is deprecated).
provider_properties <- function(provider) {
  names <- setdiff(S7::prop_names(provider), c("credentials", "model", "params", "extra_args"))
  props <- lapply(stats::setNames(names, names), function(name) {
    value <- S7::prop(provider, name)
    if (name == "extra_headers") hash_headers(value) else canonical_value(value)
  })
  Filter(Negate(is.null), props)
}

# Names and values of headers, as one hash each: they change the answer (gateway routing)
# but may hold credentials.
hash_headers <- function(headers) {
  if (!length(headers)) return(list())
  pairs <- paste0(tolower(rlang::names2(headers)), ":", vapply(headers, paste, "",
                                                              collapse = ","))
  vapply(sort(pairs), digest::digest, "", algo = "sha256", serialize = FALSE, USE.NAMES = FALSE)
}

# A tool changes the answer by its definition and by what its function returns.
tool_fingerprint <- function(tool) {
  list(definition = canonical_value(tool),
       fun = digest::digest(deparse(S7::S7_data(tool)), algo = "sha256"))
}

# A value reduced to what JSON can hold: S7 objects become their class and properties;
# functions and environments (credentials, callbacks) are left out.
canonical_value <- function(x) {
  if (is.function(x) && !inherits(x, "S7_object") || is.environment(x)) return(NULL)
  if (inherits(x, "S7_object")) {
    props <- lapply(S7::props(x), canonical_value)
    return(c(list(.class = class(x)[[1]]), Filter(Negate(is.null), props)))
  }
  if (is.list(x)) return(lapply(x, canonical_value))
  x
}

# Tokens and cost of every assistant turn this request added (with tools, one per round),
# not only the last; the chat's earlier turns (`n_before`, counting the system prompt) are
# not this request's.
request_usage <- function(x, n_before) {
  turns <- x$get_turns(include_system_prompt = TRUE)
  new <- turns[setdiff(seq_along(turns), seq_len(n_before))]
  new <- Filter(function(t) identical(t@role, "assistant"), new)
  if (!length(new)) new <- list(x$last_turn())
  tokens <- Reduce(`+`, lapply(new, function(t) t@tokens))
  # Added as they are (not sum()), so the cost keeps ellmer's class.
  list(tokens = tokens, cost = Reduce(`+`, lapply(new, function(t) t@cost)))
}

`%|NA|%` <- function(x, y) if (length(x) != 1 || is.na(x)) y else x

# `tokens`/`cost` override the turn's own (the sum over a request's tool-call rounds).
record_from_turn <- function(turn, seconds, keep_json, tokens = turn@tokens, cost = turn@cost) {
  list(
    turn = ellmer::contents_record(
      ellmer::AssistantTurn(contents = turn@contents, tokens = tokens, cost = cost,
                            duration = seconds, finish_reason = turn@finish_reason)
    ),
    text = turn@text,
    json = if (keep_json) turn@json else NULL,
    input_tokens = tokens[[1]],
    output_tokens = tokens[[2]],
    cost = cost,
    seconds = seconds,
    # checked to be an answer (answer_problem()), even when empty: see holds_answer()
    answered = TRUE
  )
}

responses_tibble <- function(chats, chat_index, prompts, records, errors, cached, keep_json) {
  base_turns <- lapply(chats, function(chat) chat$get_turns())
  chats <- lapply(seq_along(prompts), function(i) {
    k <- chat_index[[i]]
    assistant <- if (is.null(records[[i]])) {
      empty_turn()
    } else if (cached[[i]]) {
      # A cached answer cost nothing this run: its replayed turn says so, so that token and
      # cost totals read from the chats (vitals' log, get_cost()) count only what was sent.
      without_usage(ellmer::contents_replay(records[[i]]$turn))
    } else {
      ellmer::contents_replay(records[[i]]$turn)
    }
    chats[[k]]$clone()$set_turns(c(base_turns[[k]], list(user_turn_of(prompts[[i]]), assistant)))
  })
  field <- function(name, default) {
    vapply(records, function(r) if (is.null(r)) default else as.double(r[[name]] %||% default),
           default)
  }
  out <- tibble::tibble(
    result = vapply(records, function(r) if (is.null(r)) NA_character_ else r$text, ""),
    chat = chats,
    error = errors,
    cached = cached,
    input_tokens = ifelse(cached, 0, field("input_tokens", NA_real_)),
    output_tokens = ifelse(cached, 0, field("output_tokens", NA_real_)),
    cost = ifelse(cached, 0, field("cost", NA_real_)),
    seconds = ifelse(cached, 0, field("seconds", NA_real_))
  )
  if (keep_json) out$json <- lapply(records, function(r) r$json)
  out
}

#' A vitals solver built on generate_responses()
#'
#' `generate_solver()` returns a solver for [vitals::Task] that sends each input through
#' [generate_responses()] (cache, retries, failure isolation, accounting) and returns the
#' response text as the result. Benchmarks build their solvers on it; use it directly for a
#' custom task. Per-sample `solver_metadata` holds `error`, `cached`, `input_tokens`,
#' `output_tokens`, `cost` and `seconds`.
#'
#' @param prepare A function turning the task's `input` column into prompts (strings or
#'   lists of contents); the default uses the input as is.
#' @param system_prompt A system prompt that replaces the chat's, or `NULL` to keep it.
#' @param params A list of request parameters (see [ellmer::params()]) that override the
#'   chat's, such as `list(temperature = 0)`; `NULL` keeps the chat's.
#' @inheritParams generate_responses
#' @returns A function `function(inputs, ..., solver_chat)`; named settings among its
#'   `...` (from `$eval(max_active = 50)`, say) override `settings`.
#' @keywords internal
generate_solver <- function(prepare = identity, system_prompt = NULL, params = NULL,
                            settings = NULL, key_extra = NULL, keep_json = FALSE) {
  force(prepare)
  settings <- as_request_settings(settings)
  cache_dir(settings$cache)
  function(inputs, ..., solver_chat) {
    solver_chat <- as_chat(solver_chat)
    chat <- configure_chat(solver_chat, system_prompt, params)
    res <- generate_responses(chat, prepare(inputs), as_request_settings(settings, ...),
                              key_extra = key_extra, keep_json = keep_json)
    report_failures(res$error)
    list(result = res$result, solver_chat = res$chat, solver_metadata = response_metadata(res))
  }
}

response_metadata <- function(res) {
  lapply(seq_len(nrow(res)), function(i) {
    out <- list(
      error = res$error[[i]], cached = res$cached[[i]],
      input_tokens = res$input_tokens[[i]], output_tokens = res$output_tokens[[i]],
      cost = res$cost[[i]], seconds = res$seconds[[i]]
    )
    if ("json" %in% names(res)) out$json <- res$json[[i]]
    out
  })
}

# A clone of `chat` with `system_prompt` (when not NULL), `params` merged into its parameters
# and `api_args` into its extra request-body fields (ellmer's escape hatch, e.g. list(n = 8)),
# so a benchmark can fix, e.g., temperature = 0 whatever chat the user passes. Internal: it
# rests on a workaround (ellmer has no public setter for a chat's parameters; R/engine-compat-ellmer.R).
configure_chat <- function(chat, system_prompt = NULL, params = NULL, api_args = NULL) {
  chat <- as_chat(chat)
  chat <- chat$clone()
  if (!is.null(system_prompt)) chat$set_system_prompt(system_prompt)
  if (length(params) || length(api_args)) {
    chat_set_params(chat, params, api_args)  # R/engine-compat-ellmer.R
  }
  chat
}
