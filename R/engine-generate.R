# The orchestration: every request of a call through the cache, then the pool or a batch.
# Cache identity is in R/engine-identity.R, the vitals solver in R/engine-solver.R, chat
# configuration in R/engine-chat.R.

#' Send prompts through a chat, in parallel, with a response cache
#'
#' `generate_responses()` is the engine behind every predictivebench solver and judge.
#' Internal: how every solver and judge sends its prompts. What each request gets (a
#' continuous pool, the response cache, retries, deadlines, failure isolation, accounting,
#' provider batches) is documented for users under "What every request gets" in
#' [request_settings()].
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
#'   `output_tokens`, `cost`, `seconds`, `reasoning` (the model's reasoning, kept apart from
#'   `result`: see R/engine-reasoning.R), `truncated` (stopped at the token limit, or inside
#'   unfinished reasoning) and, with `keep_json`, `json`. `cached` is `TRUE` only for answers
#'   paid for by an earlier run: inside an evaluation set, the set's own answers read back
#'   from the cache are its run's (its request session's), with their tokens and cost.
#' @keywords internal
generate_responses <- function(chat, prompts, settings = NULL, ..., epoch = NULL,
                               key_extra = NULL, keep_json = FALSE,
                               progress = interactive()) {
  settings <- settings_with_dots(settings %||% request_settings(), ...)
  chat <- as_chat(chat)
  prompts <- as_prompt_list(prompts)
  run_requests(list(chat), rep(1L, length(prompts)), prompts, settings, epoch = epoch,
               key_extra = key_extra, keep_json = keep_json, progress = progress)
}

# generate_responses() for prompts that go to different chats (ProcessBench's per-vote seeds,
# DSBench's system prompts and tools): prompt i is sent through chats[[chat_index[i]]], all in
# one pool, and provider warnings are shown once for the whole call.
# `chat_keys` (one per chat) replaces `key_extra` when the chats differ by more than their
# identity shows (DSBench's workbook tools, whose folder is in their closure).
# `chat_per` (a group per prompt): the caller keeps one chat per group, its first answered
# row's (else its first row's), and only those are built; the others' `chat` is NULL
# (rebuilding a chat from an answer is most of the CPU of reading it back from the cache).
run_requests <- function(chats, chat_index, prompts, settings = NULL, epoch = NULL,
                         key_extra = NULL, keep_json = FALSE, progress = interactive(),
                         chat_keys = NULL, chat_per = NULL) {
  settings <- settings %||% request_settings()
  check_settings_object(settings)
  session <- current_request_session()  # R/engine-session.R: the one place it is read
  batch <- dry_run_batch(settings$batch, session$price)  # R/engine-price.R: one by one
  check_flag(keep_json)
  n <- length(prompts)
  epoch <- if (is.null(epoch)) occurrence_index(prompts, chat_index) else
    rep_len(as.integer(epoch), n)
  # A baseline answers locally for free, and two baselines can share a name (two constant
  # answers): caching them could only serve one's answers to the other.
  offline <- all(vapply(chats, inherits, TRUE, what = "BaselineChat"))
  dir <- if (offline) cache_dir(FALSE) else cache_dir(settings$cache)
  keys <- response_keys(chats, chat_index, prompts, epoch, key_extra, chat_keys)

  state <- new.env(parent = emptyenv())
  local <- vapply(chats, inherits, TRUE, what = "BaselineChat")[chat_index]
  state$records <- cache_get_many(dir, keys)
  state$records[local] <- list(NULL)  # (a baseline among real chats: see `offline`)
  state$errors <- rep(NA_character_, n)
  state$paid <- vector("list", n)  # usage of failed requests that were paid (tool rounds)
  cached <- !vapply(state$records, is.null, TRUE)
  # Every answer is kept (and cached, atomically) the moment it arrives, so a run that is
  # killed loses only the requests in flight. A failure is never cached. An answer `stored`
  # already (an evaluation set's overlap cached it as it arrived) is not written again.
  keep <- function(i, value, stored = FALSE) {
    if (inherits(value, "error")) {
      state$errors[[i]] <- conditionMessage(value)
      state$paid[[i]] <- error_usage(value)
    } else {
      value$run <- session$run
      set_element(state, "records", i, value)  # R/engine-cache.R: in place
      if (!local[[i]] && !stored) cache_set(dir, keys[[i]], value)
    }
  }
  todo <- which(!cached)
  answer_offline(chats, chat_index, prompts, todo[local[todo]], keep, keep_json)
  todo <- todo[!local[todo]]
  # R/engine-price.R: inside estimate_cost() they are answered here, and nothing is sent
  todo <- dry_run_answer(session$price, state, chats, chat_index, prompts, keys, todo,
                         hits = sum(cached & !local))
  # The session's collector may take over sending them (an evaluation set's overlap sends them
  # with its other cells'): it keeps what it answers (`keep(i, value, stored = TRUE)`: cached
  # already) and hands back what is left to send here; or it stops the caller (a condition).
  if (length(todo) && !batch && !is.null(session$collector)) {
    todo <- session$collector$take(list(
      chats = chats, chat_index = chat_index, prompts = prompts, epoch = epoch, keys = keys,
      todo = todo, settings = settings, keep_json = keep_json, cache = dir,
      extras = lapply(seq_along(chats), function(k) {
        if (is.null(chat_keys)) key_extra else chat_keys[[k]]
      })
    ), keep)
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
              cached = !is.null(dir))
  }
  # Answers this run paid for already (an evaluation set's overlap sent them, then the cell read
  # them back from the cache) are this run's, with their usage, not earlier runs' answers.
  cached <- cached & !paid_by_run(state$records, session$run)
  out <- responses_tibble(chats, chat_index, prompts, state$records, state$errors, cached,
                          keep_json, chat_rows(state$errors, chat_per))
  with_paid_failures(out, state$paid)
}

# The response cache's key of each request: prompt i sent through chats[[chat_index[i]]] at
# epoch[i] (see run_requests() for `key_extra` and `chat_keys`). What names a request outside
# the cache too (an arena verdict's record), and where an answer made elsewhere is filed
# (import_responses()).
response_keys <- function(chats, chat_index, prompts, epoch, key_extra = NULL,
                          chat_keys = NULL) {
  identities <- lapply(seq_along(chats), function(k) {
    request_identity(chats[[k]], if (is.null(chat_keys)) key_extra else chat_keys[[k]])
  })
  request_keys(identities, chat_index, vapply(prompts, prompt_fingerprint, ""),
               rep_len(as.integer(epoch), length(prompts)))
}

# Answers obtained elsewhere (an original benchmark's own records) filed in the response
# cache under the request that would get them (`prompts` sent through `chat` at epoch 1 with
# `key_extra`), so that a run reads them as it reads its own: `texts` (one per prompt; NA is
# none), kept only where the cache has no answer yet, with no tokens or cost and `source`
# saying where they came from. Nothing is filed without a cache (`settings$cache` FALSE, or a
# baseline chat, which is never cached), nor inside estimate_cost()'s dry run. Returns how
# many were filed.
import_responses <- function(chat, prompts, texts, settings, key_extra = NULL, source = NULL) {
  check_settings_object(settings)
  dir <- if (inherits(chat, "BaselineChat")) NULL else cache_dir(settings$cache)
  ok <- !is.na(texts)
  if (is.null(dir) || !is.null(pricing_collector()) || !any(ok)) return(invisible(0L))
  prompts <- as_prompt_list(prompts)[ok]
  keys <- response_keys(list(chat), rep(1L, length(prompts)), prompts, 1L, key_extra)
  new <- vapply(cache_get_many(dir, keys), is.null, TRUE) & !duplicated(keys)
  if (!any(new)) return(invisible(0L))
  cache_prepare(dir)
  for (i in which(new)) cache_set(dir, keys[[i]], imported_entry(texts[ok][[i]], source))
  invisible(sum(new))
}

# A cache entry (as entry_from_turn() makes) of an answer made elsewhere: no tokens, cost or time.
imported_entry <- function(text, source) {
  turn <- ellmer::AssistantTurn(contents = list(ellmer::ContentText(text)), tokens = c(0, 0, 0),
                                cost = 0)
  record <- entry_from_turn(turn, 0, keep_json = FALSE, tokens = c(0, 0, 0), cost = 0)
  record$imported <- source
  record
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
    keep(i, tryCatch(entry_from_turn(chats[[chat_index[[i]]]]$respond(prompts[[i]]), 0,
                                      keep_json), error = identity))
  }
}

send_pool <- function(chats, chat_index, prompts, todo, keep, settings, keep_json, progress,
                      cached) {
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
                   deadline = deadline)
    }
    started <- Sys.time()
    # Refused credentials stop the run with one error (the pool sent nothing more).
    tryCatch(
      if (transport$uses_later()) without_jit(send()) else send(),  # R/engine-compat-ellmer.R
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
      "{.url {shown_url(urls[[1]])}} is a local server, with no rate limit to respect: raise
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

# Which records were paid for by `run` (an evaluation set's run: R/evalset.R), as keep()
# stamps them; none outside a set.
paid_by_run <- function(records, run) {
  if (is.null(run)) return(rep(FALSE, length(records)))
  vapply(records, function(r) identical(r$run, run), TRUE)
}

# The rows whose chat is built (see `chat_per` of run_requests()).
chat_rows <- function(errors, chat_per = NULL) {
  if (is.null(chat_per)) return(seq_along(errors))
  rows <- split(seq_along(errors), chat_per)
  unname(vapply(rows, function(r) {
    answered <- r[is.na(errors[r])]
    if (length(answered)) answered[[1]] else r[[1]]
  }, 1L))
}

responses_tibble <- function(chats, chat_index, prompts, records, errors, cached, keep_json,
                             with_chat = seq_along(prompts)) {
  base_turns <- lapply(chats, function(chat) chat$get_turns())
  answers <- lapply(records, entry_answer)
  chatted <- seq_along(prompts) %in% with_chat
  chats <- lapply(seq_along(prompts), function(i) {
    if (!chatted[[i]]) return(NULL)
    k <- chat_index[[i]]
    assistant <- if (is.null(records[[i]])) {
      empty_turn()
    } else if (cached[[i]]) {
      # A cached answer cost nothing this run: its replayed turn says so, so that token and
      # cost totals read from the chats (vitals' log, get_cost()) count only what was sent.
      replay_turn(records[[i]]$turn, zero_usage = TRUE)
    } else {
      replay_turn(records[[i]]$turn)
    }
    if (!is.null(records[[i]])) {
      assistant <- turn_with_reasoning(assistant, answers[[i]]$answer, answers[[i]]$reasoning)
    }
    chats[[k]]$clone()$set_turns(c(base_turns[[k]], list(user_turn_of(prompts[[i]]), assistant)))
  })
  field <- function(name, default) {
    vapply(records, function(r) if (is.null(r)) default else as.double(r[[name]] %||% default),
           default)
  }
  out <- tibble::tibble(
    result = vapply(answers, `[[`, "", "answer"),
    chat = chats,
    error = errors,
    cached = cached,
    input_tokens = ifelse(cached, 0, field("input_tokens", NA_real_)),
    output_tokens = ifelse(cached, 0, field("output_tokens", NA_real_)),
    cost = ifelse(cached, 0, field("cost", NA_real_)),
    seconds = ifelse(cached, 0, field("seconds", NA_real_)),
    reasoning = vapply(answers, `[[`, "", "reasoning"),
    truncated = vapply(answers, `[[`, NA, "truncated")
  )
  if (keep_json) out$json <- lapply(records, function(r) r$json)
  out
}
