# How requests are sent: one object for every solver, judge and log-probability request.

#' How requests are sent
#'
#' Every request predictivebench makes (a solver's answer, a judge's verdict, a DSBench
#' question, an arena answer or battle, a log-probability) goes through one pool with these
#' settings. Pass them once, as `settings = request_settings(...)` to a `<bench>_task()`,
#' solver or scorer, or as named arguments to `$eval()` (which hands them to the solver), as
#' with vitals' `generate()`: `tsk$eval(solver_chat = chat, max_active = 50)`.
#'
#' @param max_active Requests in flight at once.
#' @param rpm Requests started per minute at most. The default, 500, suits hosted
#'   providers; when it, rather than the server, sets the pace of most of a run (a local
#'   server such as vLLM or a mock), a message says so once per session. `Inf` for none.
#' @param max_tries Attempts per request, the first included. Transient failures (HTTP 408,
#'   409, 425, 429, 5xx, timeouts, dropped or reset connections, a 200 without an answer)
#'   are retried; others are not.
#' @param backoff Seconds before the first retry (doubling with each retry), unless the
#'   provider says when to retry (`retry-after`).
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
#'   price, answers in minutes to hours, resumable across sessions); log-probability requests
#'   cannot be batched. Like every request, the batch API's follow no redirect (a 30x is an
#'   error), so the key goes nowhere else. The default is
#'   `getOption("predictivebench.batch", FALSE)`.
#' @param wait With `batch = TRUE`: `TRUE` waits for the batch to end; `FALSE` submits it
#'   and returns at once, saying how to collect the answers.
#' @returns A `predictivebench_settings` object (a list with these fields).
#' @family engine
#' @export
#' @examples
#' request_settings(max_active = 50, rpm = Inf)
request_settings <- function(max_active = 10, rpm = 500, max_tries = 3, backoff = 1,
                             timeout = NULL, max_turns = 20L, cache = TRUE,
                             batch = getOption("predictivebench.batch", FALSE),
                             wait = TRUE) {
  check_count(max_active)
  check_rpm(rpm)
  check_count(max_tries)
  check_number(backoff)
  check_number(timeout, allow_null = TRUE)
  if (!is.null(timeout) && timeout <= 0) {
    abort_pb("{.arg timeout} must be a positive number of seconds, not {timeout}.",
             "argument")
  }
  check_count(max_turns)
  check_cache_arg(cache)
  check_flag(batch)
  check_flag(wait)
  structure(
    list(max_active = max_active, rpm = rpm, max_tries = max_tries, backoff = backoff,
         timeout = timeout, max_turns = max_turns, cache = cache, batch = batch,
         wait = wait),
    class = "predictivebench_settings"
  )
}

#' @export
print.predictivebench_settings <- function(x, ...) {
  show <- function(value) {
    if (is.null(value)) "default" else format(value)
  }
  cli::cli_text("<request_settings>")
  for (field in names(x)) cli::cli_text("{.field {field}}: {show(x[[field]])}")
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

# `settings` as given to a constructor (NULL, a settings object, or a list of fields),
# updated by named arguments (from `$eval(...)`, say) that name settings; other arguments
# are left for the caller.
as_request_settings <- function(settings = NULL, ..., call = rlang::caller_env()) {
  if (is.null(settings)) settings <- request_settings()
  if (!inherits(settings, "predictivebench_settings")) {
    if (!is.list(settings) || is.null(names(settings)) ||
        !all(names(settings) %in% request_setting_names())) {
      abort_pb(c("{.arg settings} must be made by {.fn request_settings}.",
                 i = "Fields: {.field {request_setting_names()}}."),
               "argument", call = call)
    }
    settings <- rlang::exec(request_settings, !!!settings)
  }
  updates <- list(...)
  updates <- updates[names(updates) %in% request_setting_names()]
  if (length(updates)) {
    fields <- utils::modifyList(unclass(settings), updates, keep.null = TRUE)
    settings <- rlang::exec(request_settings, !!!fields)
  }
  settings
}

request_setting_names <- function() names(formals(request_settings))

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
