# How requests are sent: one object for every solver, judge and log-probability request.

#' How requests are sent
#'
#' Every request predictivebench makes (a solver's answer, a judge's verdict, a DSBench
#' question, an arena answer or battle, a log-probability) goes through one pool with these
#' settings. Pass them once, as `settings = request_settings(...)` to a `<bench>_task()`,
#' solver or scorer, or as named arguments to `$eval()` (which hands them to the solver), as
#' with vitals' `generate()`: `tsk$eval(solver_chat = chat, max_active = 50)`.
#'
#' @param max_active Requests in flight at once; `Inf` for no limit.
#' @param rpm Requests started per minute at most. The default, 500, suits hosted
#'   providers; when it, rather than the server, sets the pace of most of a run (a local
#'   server such as vLLM or a mock), a message says so once per session. `Inf` for none.
#' @param retry How failed requests are tried again, as httr2's `req_retry()` has it: a list
#'   of `max_tries` (attempts per request, the first included; default 3) and `backoff`
#'   (seconds before the first retry, doubling with each retry, unless the provider says
#'   when to retry with `retry-after`; default 1). Transient failures (HTTP 408, 409, 425,
#'   429, 5xx, timeouts, dropped or reset connections, a 200 without an answer) are
#'   retried; others are not.
#' @param timeout Seconds a request may take before the pool cancels it (a transient
#'   failure). `NULL` uses ellmer's own `getOption("ellmer_timeout_s", 300)`. With tools
#'   (DSBench's `mode = "files"`) it is the sample's one deadline, over all its tool-call
#'   rounds: past it the sample fails (`predictivebench_error_sample_deadline`) and is not
#'   sent again, its paid rounds counted in its usage.
#' @param max_turns With tools: the most turns (requests to the provider, one per
#'   tool-call round) one sample may take. The default, 20, is ample for reading a few
#'   workbooks and stops a model that calls tools forever; past it the sample fails
#'   (`predictivebench_error_max_turns`), its paid turns counted in its usage.
#' @param cache `TRUE` (the default directory, see [cache_dir()]), `FALSE` (no cache) or a
#'   directory.
#' @param batch `TRUE` sends the requests not in the cache as one provider batch (half the
#'   price, answers in minutes to hours, resumable across sessions) and waits for it to end;
#'   `"submit"` submits it (or checks on it) and returns at once, saying how to collect the
#'   answers; `FALSE` (the default) sends no batch. Log-probability requests cannot be
#'   batched. Like every request, the batch API's follow no redirect (a 30x is an error), so
#'   the key goes nowhere else.
#' @param ... Deprecated: `max_tries` and `backoff` (now `retry = list(...)`) and `wait`
#'   (`wait = FALSE` is now `batch = "submit"`), taken for one release with a warning of
#'   class `predictivebench_warning_deprecated`.
#' @section What every request gets:
#' Each prompt is sent as a fresh conversation (the chat's system prompt and earlier turns
#' are kept), with what vitals' `generate()` lacks:
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
#' @returns A `predictivebench_settings` object (a list with these fields), validated once
#'   here and only read afterwards.
#' @family engine
#' @export
#' @examples
#' request_settings(max_active = 50, rpm = Inf)
#' request_settings(retry = list(max_tries = 5, backoff = 2), batch = "submit")
request_settings <- function(max_active = 10, rpm = 500, retry = list(),
                             timeout = NULL, max_turns = 20L, cache = TRUE, batch = FALSE,
                             ...) {
  old <- deprecated_dots(list(...), "request_settings", c("max_tries", "backoff", "wait"),
                         'retry = list(max_tries, backoff)` or `batch = "submit"')
  retry <- retry_fields(retry)
  if (!(isTRUE(batch) || isFALSE(batch) || identical(batch, "submit"))) {
    abort_pb('{.arg batch} must be {.code TRUE}, {.code FALSE} or {.val submit}.', "argument",
             field = "batch")
  }
  fields <- list(max_active = max_active, rpm = rpm, max_tries = retry$max_tries,
                 backoff = retry$backoff, timeout = timeout, max_turns = max_turns,
                 cache = cache, batch = !isFALSE(batch), wait = !identical(batch, "submit"))
  fields[names(old)] <- old
  settings_of(fields)
}

# The retry part of request_settings(), in httr2's req_retry() shape: the fields not given
# keep their defaults. (A list, not an exported constructor: the NAMESPACE cap has no name left.)
retry_fields <- function(retry, call = rlang::caller_env()) {
  defaults <- list(max_tries = 3, backoff = 1)
  if (!is.list(retry) || (length(retry) && !rlang::is_named(retry)) ||
      !all(names(retry) %in% names(defaults))) {
    abort_pb(c("{.arg retry} must be a list of {.field max_tries} and {.field backoff}.",
               i = "For example {.code retry = list(max_tries = 5, backoff = 2)}."),
             "argument", field = "retry", call = call)
  }
  utils::modifyList(defaults, retry)
}

# Every field of the object, validated: request_settings()'s arguments as the engine reads them.
settings_of <- function(fields, call = rlang::caller_env()) {
  check_count(fields$max_active, "max_active", call = call)
  check_rpm(fields$rpm, call = call)
  check_count(fields$max_tries, "max_tries", call = call)
  check_number(fields$backoff, "backoff", call = call)
  check_number(fields$timeout, "timeout", allow_null = TRUE, call = call)
  if (!is.null(fields$timeout) && fields$timeout <= 0) {
    abort_pb("{.arg timeout} must be a positive number of seconds, not {fields$timeout}.",
             "argument", call = call)
  }
  check_count(fields$max_turns, "max_turns", call = call)
  check_cache_arg(fields$cache, call = call)
  check_flag(fields$batch, "batch", call = call)
  check_flag(fields$wait, "wait", call = call)
  new_request_settings(fields[request_setting_names()])
}

# The object every downstream function reads: what a user tunes, nothing else. What a run is
# (its run, a set's overlap, estimate_cost()'s dry run) is its request session
# (R/engine-session.R), not a setting.
new_request_settings <- function(fields) {
  structure(fields, class = "predictivebench_settings")
}

# A run's identity: unique across processes and machines (workers of one set share it).
new_run <- function() {
  # (tempfile()'s random part, not R's random stream, which a seeded evaluation reads)
  structure(paste0(format(Sys.time(), "%Y%m%dT%H%M%OS6"), "-", Sys.getpid(), "-",
                   basename(tempfile(""))),
            class = "predictivebench_run")
}

#' @export
print.predictivebench_settings <- function(x, ...) {
  show <- function(value) {
    if (is.null(value)) "default" else format(value)
  }
  cli::cli_text("<request_settings>")
  for (field in request_setting_names()) {
    cli::cli_text("{.field {field}}: {show(x[[field]])}")
  }
  invisible(x)
}

#' Request settings argument
#'
#' @param settings How requests are sent: a [request_settings()] object (or a list of
#'   its fields, such as `list(cache = FALSE)`), `NULL` for the defaults. Named settings
#'   given to `$eval()` (`tsk$eval(solver_chat = chat, max_active = 50)`) override these
#'   for that run.
#' @keywords internal
#' @name settings-args
NULL

# The two doors settings pass, each once:
# * as_request_settings(): `settings` as a solver's, scorer's or eval_set()'s constructor is
#   given it (NULL, a request_settings() object, or a list of its fields), validated there.
# * settings_with_dots(): that object merged with the named arguments of `$eval()` when the
#   solver or scorer runs. vitals gives each named argument of `$eval()` to the solver or
#   scorer that declares it by name (`scorer_chat`, say), and every other one to the `...` of
#   both: there, the one rule is that each name must be a setting. A misspelt one
#   (`max_activ`) is refused, naming it, never dropped.
# Everything downstream takes the object as it is and never normalises it again; a change
# (logprob_chat_requests()'s `batch = FALSE`) builds a new object through the same door.
#
# Until the arena's call sites are converted (R/arena-*.R, another change), a call with `...`
# is settings_with_dots() on the validated object: the same one rule for unknown names.
as_request_settings <- function(settings = NULL, call = rlang::caller_env()) {
  if (is.null(settings)) return(request_settings())
  if (inherits(settings, "predictivebench_settings")) return(settings)
  if (!is.list(settings) || is.null(names(settings)) ||
      !all(names(settings) %in% request_setting_names())) {
    abort_pb(c("{.arg settings} must be made by {.fn request_settings}.",
               i = "Fields: {.field {request_setting_names()}}."),
             "argument", call = call)
  }
  settings_of(utils::modifyList(settings_fields(request_settings()), settings,
                                keep.null = TRUE), call = call)
}

settings_with_dots <- function(settings, ..., call = rlang::caller_env()) {
  check_settings_object(settings)
  updates <- list(...)
  if (!length(updates)) return(settings)
  unknown <- setdiff(rlang::names2(updates), request_setting_names())
  if (length(unknown)) {
    abort_pb(c("Unknown request setting{?s} {.arg {unknown}}.",
               i = "Named arguments of {.code $eval()} that the solver or scorer does not
                    take by name must be settings: {.field {request_setting_names()}}."),
             "argument", call = call)
  }
  fields <- utils::modifyList(settings_fields(settings), updates, keep.null = TRUE)
  settings_of(fields, call = call)
}

settings_fields <- function(settings) unclass(settings)[request_setting_names()]

# Downstream functions read the object; handing them anything else is a bug in the package.
check_settings_object <- function(settings, call = rlang::caller_env()) {
  if (!inherits(settings, "predictivebench_settings")) {
    cli::cli_abort("Internal error: {.arg settings} must be a {.cls predictivebench_settings}
                    object, made at a door ({.fn as_request_settings}).", call = call)
  }
}

request_setting_names <- function() {
  c("max_active", "rpm", "max_tries", "backoff", "timeout", "max_turns", "cache", "batch",
    "wait")
}

# The pool's deadline: the settings' timeout, else ellmer's.
settings_deadline <- function(settings) settings$timeout %||% request_deadline()

check_rpm <- function(rpm, call = rlang::caller_env()) {
  if (!is.numeric(rpm) || length(rpm) != 1 || is.na(rpm) || rpm <= 0) {
    abort_pb("{.arg rpm} must be a positive number of requests per minute (or {.code Inf}).",
             "argument", call = call)
  }
}

check_cache_arg <- function(cache, call = rlang::caller_env()) {
  ok <- (is.logical(cache) && length(cache) == 1 && !is.na(cache)) ||
    (is.character(cache) && length(cache) == 1 && !is.na(cache) && nzchar(cache))
  if (!ok) {
    abort_pb("{.arg cache} must be {.code TRUE}, {.code FALSE} or a directory.", "argument",
             call = call)
  }
}

# Seconds a request may take, enforced by request_pool() on every path: on ellmer's path httr2
# reads curl's ms timeout as seconds, so a server that never answers holds a request for hours.
request_deadline <- function() {
  seconds <- getOption("ellmer_timeout_s", 5 * 60)
  if (!is.numeric(seconds) || length(seconds) != 1 || is.na(seconds) || seconds <= 0) {
    abort_pb("Option {.code ellmer_timeout_s} must be a positive number of seconds.",
             "argument")
  }
  seconds
}
