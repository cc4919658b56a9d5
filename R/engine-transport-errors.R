# What a failed request becomes, the same on every transport: `predictivebench_error_deadline`
# (transient, sent again), `predictivebench_error_redirect` (never followed nor retried), or
# `httr2_http_<status>` ending with the provider's own explanation (provider_error_text()).

deadline_error <- function(seconds) {
  structure(class = c("predictivebench_error_deadline", "error", "condition"), list(
    message = paste0("Timed out: no answer within the deadline of ", format(seconds),
                     " s (setting `timeout`, by default option `ellmer_timeout_s`); the request ",
                     "was cancelled."),
    call = NULL, deadline = seconds
  ))
}

# A sample past its deadline after tool-call rounds: they were paid (`usage`), so it is not resent.
sample_deadline_error <- function(seconds, rounds, usage = NULL) {
  structure(class = c("predictivebench_error_sample_deadline", "error", "condition"), list(
    message = paste0("Timed out: the sample took longer than its deadline of ",
                     format(seconds), " s (setting `timeout`) over ", rounds,
                     " tool-call round", if (rounds != 1) "s", "; it was stopped and is ",
                     "not sent again (its rounds were paid and are counted)."),
    call = NULL, deadline = seconds, rounds = rounds, usage = usage
  ))
}

# A sample whose model asked for tools after `max_turns` paid turns.
max_turns_error <- function(max_turns, usage = NULL) {
  structure(class = c("predictivebench_error_max_turns", "error", "condition"), list(
    message = paste0("Stopped after ", max_turns, " turn", if (max_turns != 1) "s",
                     " (setting `max_turns`): the model was still calling tools. Its turns ",
                     "were paid and are counted; raise `max_turns` to allow more."),
    call = NULL, max_turns = max_turns, usage = usage
  ))
}

connection_error <- function(message, deadline = request_deadline()) {
  if (grepl("Timeout was reached|timed out", message, ignore.case = TRUE)) {
    return(deadline_error(deadline))
  }
  structure(class = c("predictivebench_connection_error", "error", "condition"),
            list(message = message, call = NULL))
}

http_error <- function(resp) {
  status <- httr2::resp_status(resp)
  head <- paste0("HTTP ", status, " ", httr2::resp_status_desc(resp) %|NA|% "")
  if (status < 400) return(redirect_error(resp, trimws(head)))
  said <- provider_error_text(resp)
  flagged <- status %in% c(400L, 403L) && content_flagged(error_body_json(resp))
  structure(
    class = c(if (flagged) "predictivebench_error_refusal", paste0("httr2_http_", status),
              "httr2_http", "httr2_error", "error", "condition"),
    list(message = paste0(trimws(head), if (length(said)) paste0(": ", said) else ".",
                          if (flagged) " (the provider refused this prompt's content)"),
         call = NULL, status = status, resp = resp, provider_message = said,
         content_flagged = flagged)
  )
}

redirect_error <- function(resp, head) {
  location <- httr2::resp_header(resp, "location") %||% ""
  target <- tryCatch(url_origin(httr2::url_parse(location, base_url = httr2::resp_url(resp))),
                     error = function(e) "an unreadable address")
  structure(class = c("predictivebench_error_redirect", "error", "condition"), list(
    message = paste0(head, " to ", target, ": not followed. predictivebench never follows ",
                     "a provider's redirects (one would carry the API key, and the prompt, ",
                     "to another host); point `base_url` at the final address."),
    call = NULL, status = httr2::resp_status(resp), location = location
  ))
}

# The provider's own explanation of an error response (OpenAI's, Anthropic's or Gemini's
# `error.message`, or a plain-text body cut to 500 characters), or NULL.
provider_error_text <- function(resp) {
  text <- tryCatch(httr2::resp_body_string(resp, encoding = "UTF-8"), error = function(e) "")
  text <- trimws(gsub("\\s+", " ", text))
  if (!nzchar(text)) return(NULL)
  json <- tryCatch(jsonlite::parse_json(text), error = function(e) NULL)
  if (is.null(json)) return(truncate_text(text, 500))
  if (is.null(names(json)) && length(json) && is.list(json[[1]])) json <- json[[1]]
  error <- if (is.list(json)) json$error %||% json else json
  if (rlang::is_string(error)) return(truncate_text(error, 500))
  message <- error$message %||% json$message %||% json$detail
  if (!rlang::is_string(message)) return(truncate_text(text, 500))
  type <- error$type %||% error$status %||% error$code
  truncate_text(paste0(message, if (rlang::is_scalar_atomic(type)) paste0(" (", type, ")")),
                500)
}

truncate_text <- function(text, n) {
  if (nchar(text) <= n) text else paste0(substr(text, 1, n - 3), "...")
}

# A rejection from ellmer's `$chat_async()` as the condition the fast path gives for the same
# response, without the credentials its request carried.
request_error <- function(e, secrets = character()) {
  req <- e$request %||% if (inherits(e$resp, "httr2_response")) e$resp$request
  secrets <- c(secrets, request_credentials(req))
  out <- if (inherits(e, "httr2_http") && !is.null(e$resp)) {
    http_error(e$resp)
  } else if (inherits(e, "httr2_failure")) {
    connection_error(conditionMessage(e))
  } else {
    e
  }
  redact_error(out, secrets)
}

# A refusal of the credentials stops the run; a refusal of a prompt's content is that sample's
# error. From the providers' documented bodies: 401 is always the credentials; 403 too
# (Anthropic `permission_error`, Gemini `PERMISSION_DENIED`) unless it flags the content
# (OpenRouter's moderation 403: https://openrouter.ai/docs/api/reference/errors-and-debugging);
# a 400 content filter (Azure's `ResponsibleAIPolicyViolation`) is a refusal too.
is_auth_error <- function(e) {
  status <- error_status(e)
  if (isTRUE(status == 401L)) return(TRUE)
  isTRUE(status == 403L) && !isTRUE(e$content_flagged)
}

# Whether an error body says the provider refused the content; a body whose type names the
# credentials never counts.
content_flagged <- function(json) {
  if (!is.list(json)) return(FALSE)
  if (is.null(names(json)) && length(json) && is.list(json[[1]])) json <- json[[1]]
  error <- json$error
  if (!is.list(error)) error <- json
  codes <- unlist(list(error$type, error$code, error$status, error$innererror$code,
                       error$param), use.names = FALSE)
  codes <- as.character(codes[vapply(codes, rlang::is_scalar_atomic, TRUE)])
  auth <- "authentication|permission|unauthori[sz]ed|invalid_api_key|api_key|credential"
  if (any(grepl(auth, codes, ignore.case = TRUE))) return(FALSE)
  metadata <- error$metadata
  if (is.list(metadata) && any(c("reasons", "flagged_input") %in% names(metadata))) {
    return(TRUE)
  }
  flag <- "content_filter|content_policy|moderation|safety|policy_violation|flagged|ResponsibleAI"
  if (any(grepl(flag, codes, ignore.case = TRUE))) return(TRUE)
  message <- error$message
  rlang::is_string(message) &&
    grepl("flagged|moderation|content (management |filtering )?polic|content filter|safety",
          message, ignore.case = TRUE)
}

error_body_json <- function(resp) {
  text <- tryCatch(httr2::resp_body_string(resp, encoding = "UTF-8"), error = function(e) "")
  if (!nzchar(text)) return(NULL)
  tryCatch(jsonlite::parse_json(text), error = function(e) NULL)
}

# The one error a run ends with when the provider refuses its credentials (the first 401/403).
abort_auth <- function(halt, label, cached, call = rlang::caller_env()) {
  abort_pb(
    c("The provider refused the credentials: {halt$error$message}",
      i = "Provider: {label}.",
      i = "Stopped after {halt$sent} request{?s}; {halt$unsent} w{?as/ere} not sent.",
      i = if (cached) paste("Answers received before are kept in the cache: a rerun does",
                            "not pay for them again."),
      i = "Check the API key (and its permissions for this model), then run again."),
    "auth", status = error_status(halt$error), provider = label, parent = NULL, call = call
  )
}

# A 200 that is not an answer is a failed request, never cached: an error object (OpenRouter
# reports errors mid-generation as 200s, same page as above), empty `choices`, or no content.
# Transient unless the code is not, or the provider filtered the content (Azure's
# "content_filter", Anthropic's "refusal"). `class` adds classes (R/logprobs-probe.R).
no_answer_error <- function(problem, code = NA, transient = TRUE, flagged = FALSE,
                            class = NULL) {
  structure(
    class = c(class, if (flagged) "predictivebench_error_refusal",
              "predictivebench_error_no_answer", "error", "condition"),
    list(message = paste0("HTTP 200 without an answer: ", problem,
                          if (flagged) " (the provider refused this prompt's content)"),
         call = NULL, code = code, transient = transient && !flagged,
         content_flagged = flagged)
  )
}

# Why a 200 body `json` (and its `turn`, maybe NULL) holds no answer (no_answer_error()), or NULL.
answer_problem <- function(json, turn = NULL) {
  if (is.list(json) && !is.null(names(json))) {
    error <- json$error
    answered <- !is.null(json$choices) || !is.null(json$output) || !is.null(json$content)
    if (!is.null(error) && !answered) {
      said <- if (is.list(error)) error$message %||% "" else as.character(error)[[1]]
      code <- if (is.list(error)) suppressWarnings(as.integer(error$code %||% NA)) else NA
      code <- code[1] %|NA|% NA_integer_
      transient <- is.na(code) || code %in% transient_statuses || code >= 500
      return(no_answer_error(paste0("the body is an error object",
                                    if (!is.na(code)) paste0(" (code ", code, ")"),
                                    if (nzchar(said)) paste0(": ", truncate_text(said, 300))),
                             code, transient, content_flagged(json)))
    }
    if ("choices" %in% names(json) && !length(json$choices)) {
      return(no_answer_error("the list of choices is empty"))
    }
  }
  # (ellmer drops an empty text, so a real empty answer `""` also reads as a turn without
  # contents: the body tells them apart)
  if (!is.null(turn) && !length(turn@contents) && body_without_content(json)) {
    reason <- filter_reason(json)
    return(no_answer_error(paste0("the answer has no content",
                                  if (!is.na(reason)) paste0(" (", reason, ")")),
                           flagged = !is.na(reason)))
  }
  NULL
}

# Whether a response body holds no content at all (null message content without tool calls,
# empty Anthropic `content`, empty Responses `output`); an empty string is an empty answer.
body_without_content <- function(json) {
  if (!is.list(json) || is.null(names(json))) return(FALSE)
  if (length(json$choices)) {
    message <- json$choices[[1]]$message
    return(is.list(message) && is.null(message$content) && !length(message$tool_calls))
  }
  if (identical(json$type, "message")) return(!length(json$content))
  if ("output" %in% names(json)) return(!length(json$output))
  FALSE
}

# Why a provider gave no content for good: "finish_reason: content_filter" (OpenAI, Azure),
# OpenAI's `refusal` message, "stop_reason: refusal" (Anthropic); NA for any other.
filter_reason <- function(json) {
  if (!is.list(json)) return(NA_character_)
  first <- tryCatch(json$choices[[1]], error = function(e) NULL)
  if (identical(first$finish_reason, "content_filter")) return("finish_reason: content_filter")
  if (rlang::is_string(first$message$refusal)) {
    return(paste("refusal:", truncate_text(first$message$refusal, 200)))
  }
  if (identical(json$stop_reason, "refusal")) return("stop_reason: refusal")
  NA_character_
}

# ---- what a provider says, without the credentials it was sent ---------------------------

# Some gateways echo the request's Authorization header in error bodies, so every error a
# transport delivers passes through redact_error() first. Answers are not redacted: a model's
# answer never saw the headers.

# Header names whose values are credentials (a bearer token's scheme dropped): ellmer's
# `Authorization`, `x-api-key` (Anthropic), `api-key` (Azure), `x-goog-api-key` (Gemini), and
# any extra header a gateway takes a key in.
credential_header <- "auth|api[-_]?key|token|secret|signature|password|credential|cookie|^key$|-key$"

# The credentials in `headers` and `url` (url_credentials()), plus `also` (httr2's redacted).
credential_values <- function(headers = NULL, url = NULL, also = NULL) {
  headers <- unlist(headers)
  values <- as.character(headers[grepl(credential_header, names(headers) %||% character(),
                                       ignore.case = TRUE)])
  values <- c(values, as.character(unlist(also)))
  # "Bearer <token>", "Basic <base64>": the token alone is the secret too
  values <- c(values, sub("^[A-Za-z]+ +", "", values))
  values <- c(values, url_credentials(url))
  values <- unique(values[!is.na(values) & nzchar(values)])
  values[!tolower(values) %in% c("bearer", "basic")]
}

# The credentials an httr2 request carries: the headers httr2 keeps redacted (ellmer sends
# its keys so) and those named as credentials, and the URL's userinfo and query values.
request_credentials <- function(req) {
  if (!inherits(req, "httr2_request")) return(character())
  shown <- tryCatch(httr2::req_get_headers(req, "reveal"), error = function(e) list())
  redacted <- names(req$headers)[vapply(req$headers, function(v) !is.character(v), TRUE)]
  credential_values(shown, req$url, also = shown[intersect(redacted, names(shown))])
}

# `e` with every credential in `secrets` taken out; a foreign condition whose message held one
# becomes a plain error of its classes (its other fields may hold the text again).
redact_error <- function(e, secrets) {
  if (!inherits(e, "condition") || !length(secrets)) return(e)
  if (inherits(e, "rlang_error")) {
    said <- conditionMessage(e)
    clean <- redact_text(said, secrets)
    if (identical(clean, said)) return(e)
    return(structure(class = setdiff(class(e), "rlang_error"), list(
      message = clean, call = NULL, status = e$status,
      resp = if (inherits(e$resp, "httr2_response")) redact_response(e$resp, secrets)
    )))
  }
  e$message <- redact_text(e$message, secrets)
  if (is.character(e$provider_message)) {
    e$provider_message <- redact_text(e$provider_message, secrets)
  }
  if (inherits(e$resp, "httr2_response")) e$resp <- redact_response(e$resp, secrets)
  if (!is.null(e$request)) e$request <- NULL
  if (inherits(e$parent, "condition")) e$parent <- redact_error(e$parent, secrets)
  e
}

# An httr2 response as the provider sent it, less the credentials: its status, and its URL,
# headers and body redacted; not the request it answered (which holds the key).
redact_response <- function(resp, secrets) {
  body <- tryCatch(httr2::resp_body_raw(resp), error = function(e) raw())
  text <- tryCatch(rawToChar(body), error = function(e) NULL)
  if (!is.null(text)) body <- charToRaw(redact_text(text, secrets))
  headers <- lapply(as.list(resp$headers), redact_text, secrets = secrets)
  httr2::response(status_code = resp$status_code, url = redact_text(resp$url %||% "", secrets),
                  headers = headers, body = body)
}

# HTTP status of a failed request (NA when it never got an answer).
error_status <- function(e) {
  if (!is.null(e$status)) return(as.integer(e$status))
  if (!is.null(e$resp)) return(tryCatch(httr2::resp_status(e$resp), error = function(e2) NA_integer_))
  NA_integer_
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
