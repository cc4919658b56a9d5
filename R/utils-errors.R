# Every input problem ends in one of these: a classed condition that names where it happened.

#' Conditions signalled by predictivebench
#'
#' Every problem with input data or arguments is signalled with [cli::cli_abort()] and the
#' classes `predictivebench_error_<kind>` and `predictivebench_error`. Conditions about data
#' carry the fields `file`, `row` and `field` (each `NULL` when it does not apply), so code can
#' react to them and messages always say where the problem is.
#'
#' Kinds in use: `missing_file`, `json`, `encoding`, `field`, `schema`, `duplicate_id`,
#' `path`, `dependency`, `python`, `argument`, `cache`, `lock`, `auth` (the provider refused
#' the credentials: the run stopped), `credentials` (the key a chat would send can't be read
#' in this session: see [eval_set()]), `log_dir` (a log folder that is a file or can't be
#' written, refused before anything is sent), `disk` (the disk filled while a log or a
#' cache entry was written; `file` names the folder), `deadline`, `redirect`, `empty` (a task table or
#' question file without rows), `batch_state`, `logprobs_unsupported` (a server that can't
#' give the log-probabilities asked for: what it lacks and what to do), `logprobs_broken`
#' (log-probabilities that can't be a model's, refused before scoring), `logprobs_probe`
#' (a server that did not answer the first log-probability request), and benchmark-specific ones
#' documented on each benchmark's help page.
#'
#' @name predictivebench-errors
#' @examples
#' tryCatch(
#'   read_task_table(tempfile(fileext = ".parquet")),
#'   predictivebench_error = function(e) conditionMessage(e)
#' )
NULL

# Messages already given this session, by id: cli's `.frequency = "once"` footer says "once per
# session" even when the id names a model, so inform_once() says how often itself.
the_informed <- new.env(parent = emptyenv())

inform_once <- function(message, id, .envir = parent.frame()) {
  if (exists(id, envir = the_informed, inherits = FALSE)) return(invisible(FALSE))
  assign(id, TRUE, envir = the_informed)
  cli::cli_inform(message, class = "predictivebench_message_once", .envir = .envir)
  invisible(TRUE)
}

abort_pb <- function(message, kind, file = NULL, row = NULL, field = NULL,
                     ..., call = rlang::caller_env(), .envir = parent.frame()) {
  where <- c(
    if (!is.null(file)) cli::format_inline("File: {.file {file}}"),
    if (!is.null(row)) paste0("Row: ", row),
    if (!is.null(field)) cli::format_inline("Field: {.field {field}}")
  )
  if (length(where)) {
    where <- rlang::set_names(where, rep("i", length(where)))
  }
  cli::cli_abort(
    c(message, where),
    class = c(paste0("predictivebench_error_", kind), "predictivebench_error"),
    file = file, row = row, field = field,
    ...,
    call = user_call(call),
    .envir = .envir
  )
}

# The frame of the function the user called: the outermost predictivebench function called
# from outside the package (not a vitals-called closure or handler), so an error names what
# the user typed; else `call`.
user_call <- function(call) {
  if (is.null(call) || !is.environment(call)) return(call)
  ns <- topenv(environment(user_call))
  in_package <- function(fn) {
    env <- environment(fn)
    is.environment(env) && identical(topenv(env), ns)
  }
  parents <- sys.parents()
  seen <- FALSE
  for (i in seq_len(sys.nframe())) {
    fn <- sys.function(i)
    if (identical(fn, abort_pb) || identical(fn, user_call)) break
    if (!in_package(fn)) next
    seen <- TRUE
    name <- call_name(sys.call(i))
    from_package <- parents[[i]] > 0 && in_package(sys.function(parents[[i]]))
    if (!is.null(name) && !from_package &&
        identical(get0(name, envir = ns, inherits = FALSE), fn)) {
      return(sys.frame(i))
    }
  }
  if (seen) NULL else call
}

# "f" for f(...) and pkg::f(...); NULL for anything else, such as g()(...) or x$f(...).
call_name <- function(call) {
  head <- call[[1]]
  if (is.symbol(head)) return(as.character(head))
  if (is.call(head) && length(head) == 3 && as.character(head[[1]]) %in% c("::", ":::")) {
    return(as.character(head[[3]]))
  }
  NULL
}

check_string <- function(x, arg = rlang::caller_arg(x), allow_null = FALSE,
                         call = rlang::caller_env()) {
  if (allow_null && is.null(x)) return(invisible(x))
  if (!rlang::is_string(x)) {
    abort_pb("{.arg {arg}} must be a single string.", "argument", call = call)
  }
  invisible(x)
}

check_strings <- function(x, arg = rlang::caller_arg(x), call = rlang::caller_env()) {
  if (!is.character(x) || !length(x) || anyNA(x) || any(!nzchar(x))) {
    abort_pb("{.arg {arg}} must be a character vector of non-empty strings.", "argument",
             call = call)
  }
  invisible(x)
}

check_count <- function(x, arg = rlang::caller_arg(x), min = 1, call = rlang::caller_env()) {
  if (!is.numeric(x) || length(x) != 1 || is.na(x) || x != round(x) || x < min) {
    abort_pb("{.arg {arg}} must be a whole number >= {min}.", "argument", call = call)
  }
  invisible(x)
}

check_number <- function(x, arg = rlang::caller_arg(x), allow_null = FALSE,
                         call = rlang::caller_env()) {
  if (allow_null && is.null(x)) return(invisible(x))
  if (!is.numeric(x) || length(x) != 1 || is.na(x)) {
    abort_pb("{.arg {arg}} must be a single number.", "argument", call = call)
  }
  invisible(x)
}

check_flag <- function(x, arg = rlang::caller_arg(x), call = rlang::caller_env()) {
  if (!rlang::is_bool(x)) {
    abort_pb("{.arg {arg}} must be {.code TRUE} or {.code FALSE}.", "argument", call = call)
  }
  invisible(x)
}

# How every chat argument is taken: an ellmer Chat, or a "provider/model" string as ellmer::chat().
as_chat <- function(x, arg = rlang::caller_arg(x), allow_null = FALSE,
                    call = rlang::caller_env()) {
  if (allow_null && is.null(x)) return(x)
  if (inherits(x, "Chat")) return(x)
  if (rlang::is_string(x) && nzchar(x)) {
    return(tryCatch(
      ellmer::chat(x),
      error = function(e) {
        abort_pb(c("Can't make a chat from {.arg {arg}} = {.val {x}}.",
                   i = "Use {.val provider/model} as in {.fn ellmer::chat}, e.g. {.val openai/gpt-4.1}."),
                 "argument", parent = e, call = call)
      }
    ))
  }
  abort_pb(
    c("{.arg {arg}} must be an ellmer chat or a {.val provider/model} string, not {.obj_type_friendly {x}}.",
      i = "For example {.code ellmer::chat_openai()} or {.val openai/gpt-4.1}; a baseline chat from {.fn baseline_chat} works offline."),
    "argument", call = call
  )
}

check_chat <- as_chat

`%||%` <- function(x, y) if (is.null(x)) y else x

# ---- credentials kept out of text -------------------------------------------------------

# `text` with every credential in `secrets` as "[redacted]" and URLs as shown_url() shows them
# (gateways echo the Authorization header in error bodies). Each secret is sought as sent,
# JSON-escaped (once and twice) and URL-encoded; one of 8+ characters also cut short (gateways
# truncate); one of 6-7 only standing alone; shorter ones ("EMPTY", "none") are placeholders
# local servers take for any key, left alone.
redact_text <- function(text, secrets) {
  secrets <- unique(as.character(secrets[!is.na(secrets)]))
  secrets <- secrets[nchar(trimws(secrets), "bytes") >= 6]
  # (a URL's userinfo and query values however short: shown_url())
  if (length(text) && is.character(text)) text <- shown_url(text)
  if (!length(secrets) || !length(text)) return(text)
  missing <- is.na(text)
  out <- as.character(text)
  for (s in secret_forms(secrets)) {
    if (nchar(s, "bytes") >= 8) {
      out <- gsub(s, "[redacted]", out, fixed = TRUE, useBytes = TRUE)
    } else {
      pattern <- paste0("(?<![A-Za-z0-9_.+/=-])\\Q", s, "\\E(?![A-Za-z0-9_.+/=-])")
      out <- gsub(pattern, "[redacted]", out, perl = TRUE, useBytes = TRUE)
    }
  }
  for (s in secrets[nchar(secrets, "bytes") >= 8]) out <- redact_runs(out, s)
  out[missing] <- NA_character_
  Encoding(out) <- ifelse(missing, "unknown", Encoding(text))
  out
}

# The forms a credential takes in a text, longest first (one holding another replaced whole).
secret_forms <- function(secrets) {
  json <- function(s) {
    vapply(s, function(x) {
      inner <- as.character(jsonlite::toJSON(x, auto_unbox = TRUE))
      substr(inner, 2, nchar(inner) - 1)
    }, "", USE.NAMES = FALSE)
  }
  forms <- c(secrets, json(secrets), json(json(secrets)),
             vapply(secrets, utils::URLencode, "", reserved = TRUE, USE.NAMES = FALSE))
  forms <- unique(forms[nzchar(forms)])
  forms[order(-nchar(forms, "bytes"))]
}

# Every run of 8+ bytes of `x` that begins `secret` (a text may cut it off), replaced.
redact_runs <- function(x, secret) {
  head <- substr(secret, 1, 8)
  secret_bytes <- charToRaw(secret)
  vapply(x, function(s) {
    if (is.na(s) || !grepl(head, s, fixed = TRUE, useBytes = TRUE)) return(s)
    bytes <- charToRaw(s)
    starts <- gregexpr(head, s, fixed = TRUE, useBytes = TRUE)[[1]]
    keep <- rep(TRUE, length(bytes))
    marks <- integer()
    for (start in starts) {
      if (!keep[[start]]) next
      n <- 0L
      while (n < length(secret_bytes) && start + n <= length(bytes) &&
             bytes[[start + n]] == secret_bytes[[n + 1L]]) {
        n <- n + 1L
      }
      keep[start + seq_len(n) - 1L] <- FALSE
      marks <- c(marks, start)
    }
    out <- raw()
    last <- 1L
    for (start in marks) {
      out <- c(out, bytes[seq_len(start - last) + last - 1L], charToRaw("[redacted]"))
      last <- start
      while (last <= length(bytes) && !keep[[last]]) last <- last + 1L
    }
    out <- c(out, if (last <= length(bytes)) bytes[last:length(bytes)])
    rawToChar(out)
  }, "", USE.NAMES = FALSE)
}

# Arguments given by their pre-0.2.0 names through `...`: refused when unknown, else taken for
# one release with one warning.
deprecated_dots <- function(dots, fun, old_names, instead, call = rlang::caller_env()) {
  if (!length(dots)) return(dots)
  unknown <- setdiff(names(dots), old_names)
  if (is.null(names(dots)) || any(!nzchar(names(dots))) || length(unknown)) {
    unknown <- unknown %||% "(unnamed)"
    abort_pb("{.fn {fun}} takes no argument {.arg {unknown}}.", "argument",
             field = unknown[[1]], call = call)
  }
  cli::cli_warn(
    c("{.fn {fun}}'s {.arg {names(dots)}} {?is/are} deprecated as of predictivebench 0.2.0.",
      i = "Give {.code {instead}} instead."),
    class = c("predictivebench_warning_deprecated", "lifecycle_warning_deprecated")
  )
  dots
}

`%|NA|%` <- function(x, y) if (length(x) != 1 || is.na(x)) y else x
