# The HTTP transfers of R/datasets-fetch.R: one address at a time, redirects by hand.

download_status <- c(301L, 302L, 303L, 307L, 308L)

# Downloads `url` into `path`, following up to five redirects by hand, to http(s) only: the
# token goes only to the origin it was meant for. At most `size` bytes. Returns the server's
# X-Linked-Etag, X-Linked-Size (Hugging Face's for Git LFS files) and content type.
download_to <- function(url, path, token = NULL, size = NA, limits = download_limits(call),
                        label = basename(path), call = rlang::caller_env()) {
  origin <- url_origin(url)
  deadline <- now_seconds() + limits$timeout
  linked <- list()
  for (hop in 0:5) {
    check_download_scheme(url, hop, call)
    max_bytes <- c(size, linked$size, limits$max_bytes)
    max_bytes <- max_bytes[!is.na(max_bytes)][[1]]
    resp <- download_retrying(url, path, if (identical(url_origin(url), origin)) token,
                              max_bytes, limits, deadline, label, call)
    linked$etag <- linked$etag %||% linked_header(resp, "x-linked-etag")
    linked$size <- linked$size %||% suppressWarnings(as.numeric(linked_header(resp, "x-linked-size")))
    if (resp$status %in% download_status && !is.null(resp$headers$location)) {
      url <- httr2::url_build(httr2::url_parse(resp$headers$location, base_url = resp$url))
      next
    }
    if (resp$status >= 400) abort_http_status(resp, url, call)
    linked$type <- resp$headers[["content-type"]]
    return(linked)
  }
  abort_pb("Too many redirects from {.url {redact_url(url)}}.", "download",
           file = redact_url(url), call = call)
}

abort_http_status <- function(resp, url, call) {
  hint <- if (is_transient_download(resp)) {
    "Gave up after {resp$tries} tr{?y/ies}; try again later."
  } else {
    "The pinned file may have moved; see {.fn benchmark_versions}."
  }
  abort_pb(c("Can't download {.url {redact_url(resp$url)}}: HTTP {resp$status}.", i = hint),
           "download", file = redact_url(url), call = call)
}

check_download_scheme <- function(url, hop, call) {
  scheme <- tolower(sub("^([A-Za-z][A-Za-z0-9+.-]*):.*$|^.*$", "\\1", url))
  if (scheme %in% c("http", "https")) return(invisible(url))
  shown <- redact_url(url)
  if (hop == 0) {
    abort_pb(c("Can't download {.val {shown}}: only http and https addresses are fetched.",
               i = "Check {.envvar HF_ENDPOINT} and {.envvar PREDICTIVEBENCH_GITHUB_URL}."),
             "download", file = shown, call = call)
  }
  abort_pb(c("Refused a redirect to {.val {shown}}: only http and https addresses are followed.",
             i = "Nothing was downloaded; the mirror is misconfigured or hostile."),
           "redirect", file = shown, call = call)
}

# One address, tried up to `limits$tries` times while the deadline allows.
download_retrying <- function(url, path, token, max_bytes, limits, deadline, label, call) {
  for (try in seq_len(limits$tries)) {
    resp <- download_once(url, path, token, max_bytes, limits, deadline, label, call)
    if (!is_transient_download(resp)) break
    wait <- retry_wait(resp, try, limits, call)
    if (try == limits$tries) break
    if (now_seconds() + wait > deadline) {
      abort_deadline(url, "deadline", limits, call,
                     why = paste0("the next try would start after it (a wait of ", wait, " s)"))
    }
    Sys.sleep(wait)
  }
  if (inherits(resp, "error")) abort_transfer(url, path, resp, limits, call)
  resp$tries <- try
  resp
}

is_transient_download <- function(resp) {
  if (inherits(resp, "error")) return(!identical(resp$limit, "deadline"))
  resp$status %in% c(408L, 429L, 500:599)
}

# Seconds to wait: the server's Retry-After up to the engine's cap (retry_after_cap_s), else
# the backoff.
retry_wait <- function(resp, try, limits, call) {
  after <- download_retry_after(resp)
  if (is.na(after)) return(download_backoff(limits, try))
  wait <- min(after, retry_after_cap_s)
  if (after > wait) abort_retry_later(resp, after, wait, call)
  wait
}

download_backoff <- function(limits, try) limits$backoff %||% min(2^try, 60)

abort_retry_later <- function(resp, after, cap, call) {
  at <- Sys.time() + after
  when <- format(at, "%Y-%m-%d %H:%M:%S UTC", tz = "UTC")
  abort_pb(
    c("{.url {redact_url(resp$url)}} answered HTTP {resp$status} and asks to retry in {format(round(after), big.mark = ',', scientific = FALSE)} s, longer than the {cap} s predictivebench waits.",
      i = "Try again after {when}."),
    "retry_later", file = redact_url(resp$url), retry_after = after, retry_at = at, call = call
  )
}

download_retry_after <- function(resp) {
  value <- if (!inherits(resp, "error")) resp$headers[["retry-after"]]
  if (is.null(value)) return(NA_real_)
  seconds <- suppressWarnings(as.numeric(value))
  if (is.na(seconds)) {
    date <- curl::parse_date(value)
    if (!is.na(date)) seconds <- max(0, as.numeric(difftime(date, Sys.time(), units = "secs")))
  }
  seconds
}

linked_header <- function(resp, name) {
  value <- resp$headers[[name]]
  if (is.null(value)) return(NULL)
  gsub('^(W/)?"|"$', "", value)
}

# One request, run by curl's multi interface a step at a time so the limits are checked in
# between: curl enforces the deadline, an announced body over `max_bytes` and a low speed;
# the loop stops a transfer with no byte for `limits$stall` seconds (curl's average would
# first wait out an earlier burst), and the writer stops before a byte past `max_bytes`.
# Returns list(status, headers, url), or the failure as a condition (`limit` says which).
download_once <- function(url, path, token, max_bytes, limits, deadline, label, call) {
  left <- deadline - now_seconds()
  if (left <= 0) abort_deadline(url, "deadline", limits, call)
  out <- file(path, "wb")
  on.exit(close(out), add = TRUE)
  received <- 0
  last_byte <- now_seconds()
  stopped <- NULL
  result <- NULL
  bar <- cli::cli_progress_bar(format = paste0("Downloading ", label, " {cli::pb_current_bytes}"),
                               total = NA, clear = TRUE)
  write_body <- function(bytes, ...) {
    if (!is.null(stopped) || !length(bytes)) return(invisible())
    last_byte <<- now_seconds()
    if (received + length(bytes) > max_bytes) {
      stopped <<- "too_big"
      received <<- received + length(bytes)
      return(invisible())
    }
    writeBin(bytes, out)
    received <<- received + length(bytes)
    cli::cli_progress_update(id = bar, set = received)
  }
  handle <- download_handle(url, token, max_bytes, limits, left)
  pool <- curl::new_pool()
  curl::multi_add(handle, pool = pool, data = write_body,
                  done = function(resp) result <<- resp,
                  fail = function(message) result <<- download_failure(message))
  on.exit(try(curl::multi_cancel(handle), silent = TRUE), add = TRUE)
  while (is.null(result) && is.null(stopped)) {
    before <- received
    curl::multi_run(timeout = 0, pool = pool)
    if (!is.null(result) || received > before) next
    if (now_seconds() - last_byte > limits$stall) stopped <- "stall" else Sys.sleep(0.1)
  }
  cli::cli_progress_done(id = bar)
  if (identical(stopped, "too_big") || identical(result$limit, "too_big")) {
    abort_too_big(label, url, max_bytes, received, call)
  }
  if (identical(stopped, "stall")) result <- download_failure("No byte arrived.", "stall")
  if (inherits(result, "error")) {
    result$address <- url
    return(result)
  }
  list(status = result$status_code, headers = curl::parse_headers_list(result$headers),
       url = result$url)
}

download_handle <- function(url, token, max_bytes, limits, left) {
  handle <- curl::new_handle(
    url = url, useragent = "predictivebench (https://github.com/predictivebench)",
    followlocation = 0L, timeout_ms = ceiling(left * 1000),
    connecttimeout_ms = ceiling(min(left, limits$stall) * 1000),
    low_speed_limit = download_low_speed, low_speed_time = max(1L, ceiling(limits$stall)),
    maxfilesize_large = max_bytes
  )
  if (!is.null(token)) curl::handle_setheaders(handle, Authorization = paste("Bearer", token))
  handle
}

# A failed transfer as a condition; `limit` ("stall", "deadline", "too_big") is read from
# curl's message when not given.
download_failure <- function(message, limit = NULL) {
  limit <- limit %||% if (grepl("too slow", message, ignore.case = TRUE)) {
    "stall"
  } else if (grepl("timed out|timeout", message, ignore.case = TRUE) &&
             !grepl("connect", message, ignore.case = TRUE)) {
    "deadline"
  } else if (grepl("maximum file size", message, ignore.case = TRUE)) {
    "too_big"
  }
  structure(class = c("predictivebench_download_failure", "error", "condition"),
            list(message = message, call = NULL, limit = limit))
}

abort_too_big <- function(label, url, max_bytes, received, call) {
  abort_pb(
    c("{.file {label}} is longer than its {format(max_bytes, big.mark = ',', scientific = FALSE)} bytes: the transfer was stopped at {format(received, big.mark = ',', scientific = FALSE)} bytes.",
      i = "Nothing was kept. Check the mirror at {.url {redact_url(url)}}."),
    "checksum", file = label, received = received, call = call
  )
}

abort_transfer <- function(url, path, e, limits, call) {
  if (!is.null(e$limit)) abort_deadline(url, e$limit, limits, call)
  abort_unreachable(url, path, e, call)
}

abort_deadline <- function(url, limit, limits, call, why = NULL) {
  what <- if (limit == "stall") {
    paste0("stalled (no byte, or less than ", download_low_speed, " bytes/s, for ", limits$stall, " s; option {.code predictivebench.download_stall})")
  } else {
    paste0("passed its deadline of ", limits$timeout, " s (option {.code predictivebench.download_timeout})")
  }
  abort_pb(
    c(paste0("The download of {.url {redact_url(url)}} ", what, if (!is.null(why)) paste0(": ", why), "."),
      i = "Nothing was kept; call again, or raise the limit."),
    "deadline", file = redact_url(url), limit = limit, call = call
  )
}

abort_unreachable <- function(url, path, e, call) {
  abort_pb(
    c("Can't reach {.url {redact_url(url)}}.", x = redact_url(conditionMessage(e)),
      i = "Offline? Download the file by hand and save it as {.file {download_name(path)}} in {.file {dirname(path)}}."),
    "offline", file = redact_url(url), call = call, urls = redact_url(url),
    paths = file.path(dirname(path))
  )
}

download_name <- function(path) {
  sub(paste0("^[.]", partial_prefix, "[^_]+_"), "", basename(path))
}

# `text` with the password (or the lone user token) of every URL in it replaced by ****,
# as pip does: "http://user:****@host", "http://****@host".
redact_url <- function(text) {
  text <- gsub("(://[^/@:\\s]*):[^/@\\s]*@", "\\1:****@", text, perl = TRUE)
  gsub("(://)[^/@:\\s]+@", "\\1****@", text, perl = TRUE)
}
