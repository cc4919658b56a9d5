# What a failed request becomes, the same on every transport (R/engine-transport.R): a condition
# whose message says what the provider said, and whose class says what kind of failure it is.
# * `predictivebench_error_deadline`: no answer within the deadline (request_deadline());
#   transient, so the pool sends the request again.
# * `predictivebench_error_redirect`: the provider answered 30x; never followed, never retried.
# * `httr2_http_<status>` (with `status` and `resp`, as httr2's own): any other HTTP error,
#   its message ending with the provider's own explanation (provider_error_text()).

# Seconds a request may take: ellmer's own request timeout, which request_pool() enforces
# itself on every path (ellmer's `$chat_async()` path does not: there, httr2 waits on the
# connection's file descriptor with curl's millisecond timeout read as seconds, so a server
# that accepts and never answers holds the request for hours).
request_deadline <- function() {
  seconds <- getOption("ellmer_timeout_s", 5 * 60)
  if (!is.numeric(seconds) || length(seconds) != 1 || is.na(seconds) || seconds <= 0) {
    abort_pb("Option {.code ellmer_timeout_s} must be a positive number of seconds.",
             "argument")
  }
  seconds
}

deadline_error <- function(seconds) {
  structure(class = c("predictivebench_error_deadline", "error", "condition"), list(
    message = paste0("Timed out: no answer within the deadline of ", format(seconds),
                     " s (setting `timeout`, by default option `ellmer_timeout_s`); the request ",
                     "was cancelled."),
    call = NULL, deadline = seconds
  ))
}

connection_error <- function(message, deadline = request_deadline()) {
  if (grepl("Timeout was reached|timed out", message, ignore.case = TRUE)) {
    return(deadline_error(deadline))
  }
  structure(class = c("predictivebench_connection_error", "error", "condition"),
            list(message = message, call = NULL))
}

# The error for an HTTP response with a status of 300 or more.
http_error <- function(resp) {
  status <- httr2::resp_status(resp)
  head <- paste0("HTTP ", status, " ", httr2::resp_status_desc(resp) %|NA|% "")
  if (status < 400) return(redirect_error(resp, trimws(head)))
  said <- provider_error_text(resp)
  structure(
    class = c(paste0("httr2_http_", status), "httr2_http", "httr2_error", "error", "condition"),
    list(message = paste0(trimws(head), if (length(said)) paste0(": ", said) else "."),
         call = NULL, status = status, resp = resp, provider_message = said)
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

# "scheme://host[:port]" of a URL (a string or httr2::url_parse() output).
url_origin <- function(url) {
  if (is.character(url)) url <- httr2::url_parse(url)
  paste0(url$scheme, "://", url$hostname, if (!is.null(url$port)) paste0(":", url$port))
}

# The provider's own explanation of an error response, or NULL: the `message` of OpenAI's
# {"error":{"message":...}}, Anthropic's {"type":"error","error":{"type":,"message":}} and
# Gemini's {"error":{"code":,"message":,"status":}} (with the error's type), or a plain-text
# body, whitespace collapsed and cut to 500 characters.
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

# A rejection from ellmer's `$chat_async()` (an httr2 error) as the same condition the fast
# path gives for the same response.
request_error <- function(e) {
  if (inherits(e, "httr2_http") && !is.null(e$resp)) return(http_error(e$resp))
  if (inherits(e, "httr2_failure")) return(connection_error(conditionMessage(e)))
  e
}

is_auth_error <- function(e) isTRUE(error_status(e) %in% c(401L, 403L))

# The one error a run ends with when the provider refuses its credentials (request_pool()
# stopped sending at the first 401/403). `label` names the provider and its address.
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
