# Downloading pinned files: once, verified, into the datasets cache. No other network call
# is made (no Hub API: those are the rate-limited kind).
#
#   fetch_version()      every file of a version in the cache, under the version's lock
#   fetch_files()        the same, for a caller that holds the lock; says the licence once
#   fetch_file()         one file: reuse (verified) or download to a partial file, check size,
#                        HTML, X-Linked-Etag and sha256, then rename into place
#   download_to()        the HTTP transfer: redirects by hand, to http(s) only, so the
#                        Hugging Face token never leaves its origin
#   download_retrying()  one address: retries on 408/429/5xx and broken transfers, honouring
#                        Retry-After up to the request engine's cap
#   download_once()      one request, with a deadline, a stall limit and a size cap
#
# Nothing unverified counts. A download is written to a partial file whose name only the
# package makes (`.predictivebench-partial_*`), removed by the next call; a file with no
# pinned sha256 has its sha256 recorded only once the flattener accepted it
# (real_task_table()). Every URL shown to the user goes through redact_url().

#' Where the real benchmarks are cached, and fetching them
#'
#' `<bench>_dataset()` with no data argument calls `fetch_benchmark()`: the first call
#' downloads the version's files, checks their size and sha256, prepares the task table with
#' the benchmark's flattener and caches both; later calls read the cached table and make no
#' request. Call `fetch_benchmark()` yourself to download ahead of time (for a machine that
#' will be offline).
#'
#' Files live under `datasets_dir()`: the option `predictivebench.datasets_dir`, else the
#' environment variable `PREDICTIVEBENCH_DATASETS_DIR`, else
#' `file.path(tools::R_user_dir("predictivebench", "cache"), "datasets")`, in
#' `<benchmark>/<version>/files/<path in the repository>`.
#'
#' @section Network:
#' * `HF_ENDPOINT` replaces `https://huggingface.co` and `PREDICTIVEBENCH_GITHUB_URL`
#'   replaces `https://raw.githubusercontent.com`; both keep the original path layout
#'   (`/datasets/<id>/resolve/<commit>/<path>` and `/<owner>/<repo>/<commit>/<path>`), so a
#'   mirror or a local server can stand in. A mirror's `user:password@` is sent to it and
#'   shown as `user:****@` in every message.
#' * `HF_TOKEN`, when set, is sent as a bearer token to the Hugging Face endpoint only; a
#'   redirect to another origin (Hugging Face's file CDN) is followed without it. Redirects
#'   are followed only to `http://` and `https://` addresses: any other scheme (`file://`)
#'   is an error of class `predictivebench_error_redirect`, and nothing is copied.
#' * Requests answered 408, 429 or 5xx, and broken or stalled transfers, are retried (at most
#'   `getOption("predictivebench.download_tries", 5)` tries), waiting as long as the
#'   server's `Retry-After` says, up to the same cap as model requests (a minute; see
#'   [request_settings()]). A server asking for a longer wait gets an error of class
#'   `predictivebench_error_retry_later` that says when to try again.
#' * With `HF_HUB_OFFLINE=1` (or the option `predictivebench.offline = TRUE`) nothing is
#'   downloaded: a missing file is an error of class `predictivebench_error_offline` that
#'   lists each URL and the exact path to save it at, after which the same call works.
#'
#' @section Limits:
#' Every file's download, retries and redirects included, has a deadline: the option
#' `predictivebench.download_timeout`, default 3600 seconds. A transfer that receives no
#' byte for `predictivebench.download_stall` seconds (default 30), or less than 1,000 bytes
#' per second over that long, has stalled, and is retried while the deadline allows. Either ends in an error of class
#' `predictivebench_error_deadline` (its field `limit` is `"deadline"` or `"stall"`). A
#' body longer than the file's pinned size (or the size the server announced) is cut off at
#' once; a file with no known size may have at most `predictivebench.download_max_bytes`
#' bytes (default 8 GiB).
#'
#' @section Verification:
#' * A file whose size or sha256 differs from the pin is an error of class
#'   `predictivebench_error_checksum` naming the file; it is not kept.
#' * A body that is an HTML page (a captive portal or a login page answered with HTTP 200)
#'   is an error of class `predictivebench_error_html_page`; it is not kept.
#' * A file with no pinned sha256 (ProcessBench `hf`, DSBench's `data.zip`) counts only once
#'   the benchmark's flattener has accepted it at the first `<bench>_dataset()`: its sha256
#'   is then recorded and verified whenever it is used. If the flattener refuses it, it is
#'   deleted, and the next call downloads it again.
#' * Each version has a lock: processes making the same first call at once wait for each
#'   other, and all read the one cached table. The partial files of a transfer that was
#'   killed are removed by the next call.
#'
#' @param benchmark One of `"futurex"`, `"processbench"`, `"deltabench"`, `"dsbench"`,
#'   `"arena"`, `"probsem"`.
#' @param version A version from [benchmark_versions()]; `NULL` for the default.
#' @returns `datasets_dir()` the folder; `fetch_benchmark()` the paths of the version's
#'   files, named by their path in the repository (invisibly).
#' @family data
#' @export
#' @examples
#' datasets_dir()
#' # a tighter deadline and stall limit, then back to the defaults
#' old <- options(predictivebench.download_timeout = 600, predictivebench.download_stall = 10)
#' options(old)
#' \dontrun{
#' fetch_benchmark("futurex")
#' }
fetch_benchmark <- function(benchmark, version = NULL) {
  check_string(benchmark)
  check_string(version, allow_null = TRUE)
  invisible(fetch_version(version_files(benchmark, version)))
}

#' @rdname fetch_benchmark
#' @export
datasets_dir <- function() {
  dir <- getOption("predictivebench.datasets_dir") %||%
    Sys.getenv("PREDICTIVEBENCH_DATASETS_DIR", "")
  if (!nzchar(dir)) dir <- file.path(tools::R_user_dir("predictivebench", "cache"), "datasets")
  dir
}

version_dir <- function(benchmark, version) file.path(datasets_dir(), benchmark, version)

# Where each pinned file is kept. A path from the versions table must stay inside its
# version's folder.
raw_file_path <- function(rows) {
  bad <- grepl("^(/|[A-Za-z]:|~)", rows$path) |
    vapply(strsplit(rows$path, "[/\\\\]"), function(p) any(p %in% c("..", "")), TRUE)
  if (any(bad)) {
    abort_pb("A pinned path must be relative and stay inside its folder.", "path",
             field = "path", file = rows$path[bad][[1]])
  }
  file.path(version_dir(rows$benchmark, rows$version), "files", rows$path)
}

fetch_version <- function(rows, call = rlang::caller_env()) {
  limits <- download_limits(call)
  with_version_lock(rows, limits, fetch_files(rows, limits, call))
}

fetch_files <- function(rows, limits = download_limits(call), call = rlang::caller_env()) {
  dest <- raw_file_path(rows)
  missing <- !file.exists(dest)
  if (any(missing) && is_offline()) abort_offline(rows[missing, ], dest[missing], call)
  if (any(missing)) say_licence(rows[1, ])
  for (i in seq_len(nrow(rows))) fetch_file(rows[i, ], dest[[i]], limits, call = call)
  rlang::set_names(dest, rows$path)
}

# ---- the version's lock and partial files -------------------------------------------------

# Runs `expr` holding the lock of the version of `rows` (`.<version>.lock` in the
# benchmark's folder), after removing the partial files a killed process left there: with
# the lock held, no other process is writing them. A waiting process waits as long as the
# holder may take to download every file, plus the usual lock timeout.
with_version_lock <- function(rows, limits, expr) {
  dir <- version_dir(rows$benchmark[[1]], rows$version[[1]])
  wait <- limits$timeout * nrow(rows) + getOption("predictivebench.lock_timeout_s", 600)
  with_file_lock(dir, {
    remove_partial_files(dir)
    expr
  }, timeout = wait)
}

partial_prefix <- "predictivebench-partial_"

# A name beside `path` that only the package makes, for the file (or folder) being written.
partial_path <- function(path) {
  name <- portable_file_name(c(sub("_$", "", partial_prefix), basename(tempfile("")),
                               basename(path)), max_bytes = 254L)
  file.path(dirname(path), paste0(".", name))
}

remove_partial_files <- function(dir) {
  found <- list.files(dir, pattern = paste0("^[.]+", partial_prefix), recursive = TRUE,
                      all.files = TRUE, include.dirs = TRUE, full.names = TRUE)
  unlink(found, recursive = TRUE)
  invisible(found)
}

# ---- limits -------------------------------------------------------------------------------

download_low_speed <- 1000  # bytes per second; slower than this for `stall` s is a stall

# The download limits in force, read from their options and checked once.
download_limits <- function(call = rlang::caller_env()) {
  limits <- list(
    timeout = getOption("predictivebench.download_timeout", 3600),
    stall = getOption("predictivebench.download_stall", 30),
    max_bytes = getOption("predictivebench.download_max_bytes", 8 * 1024^3),
    tries = getOption("predictivebench.download_tries", 5),
    backoff = getOption("predictivebench.download_backoff")
  )
  for (name in c("timeout", "stall", "max_bytes", "tries")) {
    value <- limits[[name]]
    if (!is.numeric(value) || length(value) != 1 || is.na(value) || value <= 0) {
      abort_pb("Option {.code predictivebench.download_{name}} must be a positive number, not {.val {format(value)}}.",
               "argument", call = call)
    }
  }
  limits
}

# Seconds before retry number `try` when the server did not say.
download_backoff <- function(limits, try) limits$backoff %||% min(2^try, 60)

# ---- one file -----------------------------------------------------------------------------

is_offline <- function() {
  isTRUE(getOption("predictivebench.offline")) ||
    tolower(Sys.getenv("HF_HUB_OFFLINE")) %in% c("1", "true", "yes", "on")
}

abort_offline <- function(rows, dest, call, reason = "Offline ({.envvar HF_HUB_OFFLINE} is set)") {
  fn <- paste0(rows$benchmark[[1]], "_dataset")
  urls <- redact_url(pinned_url(rows))
  files <- paste0(urls, " -> ", dest)
  abort_pb(
    c(paste0(reason, ": {rows$benchmark[[1]]} version {.val {rows$version[[1]]}} is not in the cache."),
      i = "Download {cli::qty(length(files))}{?this file/these files} and save {?it/them} at exactly {?this path/these paths}:",
      rlang::set_names(files, rep("*", length(files))),
      i = "Then call {.code {fn}(version = \"{rows$version[[1]]}\")} again: it verifies and prepares {cli::qty(length(files))}{?it/them}."),
    "offline", call = call, urls = urls, paths = dest
  )
}

say_licence <- function(row) {
  cli::cli_inform(c(
    i = "Downloading {row$benchmark} version {.val {row$version}} (pinned at commit {substr(row$commit, 1, 7)}).",
    "*" = "Licence: {row$licence}.",
    "*" = "Cite: {row$citation}"
  ))
}

# One file in place and checked. A file already there is checked against the pinned or
# recorded sha256; a download goes through a partial file, renamed only once it passed.
fetch_file <- function(row, dest, limits = download_limits(call), call = rlang::caller_env()) {
  if (file.exists(dest)) {
    check_sha256(row, dest, expected_sha256(row), call = call)
    return(invisible(dest))
  }
  dir.create(dirname(dest), recursive = TRUE, showWarnings = FALSE)
  partial <- partial_path(dest)
  on.exit(unlink(partial), add = TRUE)
  headers <- download_to(pinned_url(row), partial, token = hf_token(row), size = row$size,
                         limits = limits, label = row$path, call = call)
  check_download(row, partial, headers, call = call)
  if (!file.rename(partial, dest)) {
    abort_pb("Can't move the finished file into place.", "cache", file = dest, call = call)
  }
  invisible(dest)
}

hf_token <- function(row) {
  token <- Sys.getenv("HF_TOKEN")
  if (row$host == "hf" && nzchar(token)) token
}

check_download <- function(row, tmp, headers, call) {
  expected <- expected_sha256(row)
  if (is.na(expected) && !is.null(headers$etag) && grepl("^[0-9a-f]{64}$", headers$etag)) {
    expected <- headers$etag
  }
  if (looks_like_html(tmp, headers$type) && !identical(unname(sha256_file(tmp)), unname(expected))) {
    abort_pb(
      c("{.url {redact_url(pinned_url(row))}} sent an HTML page, not {.file {row$path}}.",
        i = "A captive portal, a login page or an error page answered with HTTP 200? Nothing was kept.",
        i = "Once the network lets the download through, call again."),
      "html_page", file = row$path, call = call
    )
  }
  size <- file.size(tmp)
  expected_size <- c(row$size, headers$size)
  expected_size <- expected_size[!is.na(expected_size)]
  if (length(expected_size) && any(size != expected_size)) {
    abort_pb(
      c("{.file {row$path}} has {size} bytes, not {expected_size[[1]]}: the download is not the pinned file.",
        i = "Nothing was kept; try again, or check the mirror at {.url {redact_url(pinned_url(row))}}."),
      "checksum", file = row$path, call = call
    )
  }
  check_sha256(row, tmp, expected, call = call)
}

# An HTML document: served as text/html, or starting (after a byte-order mark and blanks)
# with a doctype or an <html>/<head>/<body> tag. No benchmark file is one.
looks_like_html <- function(path, type = NULL) {
  if (!is.null(type) && grepl("^\\s*text/html", type, ignore.case = TRUE)) return(TRUE)
  head <- readBin(path, "raw", 512)
  head <- head[head != as.raw(0)]
  text <- sub("^(\ufeff|\\s)+", "", rawToChar(head), perl = TRUE, useBytes = TRUE)
  grepl("^<(!doctype\\s+html|html|head|body)[\\s>]", text, ignore.case = TRUE, perl = TRUE,
        useBytes = TRUE)
}

check_sha256 <- function(row, path, expected, call) {
  if (is.na(expected)) return(invisible(path))
  actual <- sha256_file(path)
  if (!identical(unname(actual), unname(expected))) {
    if (!startsWith(basename(path), ".")) unlink(path)
    abort_pb(
      c("{.file {row$path}} does not match its pinned sha256.",
        i = "Expected {expected}, got {actual}. The file was not kept.",
        i = "From {.url {redact_url(pinned_url(row))}}."),
      "checksum", file = row$path, call = call
    )
  }
  invisible(path)
}

sha256_file <- function(path) digest::digest(file = path, algo = "sha256")

# A file pinned without a sha256 gets its sha256 in the version's sha256.json once the
# flattener accepted it (record_sha256(), from real_task_table()), and is verified against
# it from then on.
sha256_record_path <- function(row) file.path(version_dir(row$benchmark, row$version), "sha256.json")

expected_sha256 <- function(row) {
  if (!is.na(row$sha256)) return(row$sha256)
  record <- sha256_record_path(row)
  if (!file.exists(record)) return(NA_character_)
  jsonlite::read_json(record)[[row$path]] %||% NA_character_
}

record_sha256 <- function(row, dest) {
  if (!is.na(row$sha256)) return(invisible())
  record <- sha256_record_path(row)
  known <- if (file.exists(record)) jsonlite::read_json(record) else list()
  known[[row$path]] <- sha256_file(dest)
  write_atomic(record, function(tmp) jsonlite::write_json(known, tmp, auto_unbox = TRUE))
}

# ---- HTTP ---------------------------------------------------------------------------------

download_status <- c(301L, 302L, 303L, 307L, 308L)

# Downloads `url` into `path`, following up to five redirects by hand, to http(s) only: the
# token goes only to the origin it was meant for. At most `size` bytes (the pin, else the
# size the server announced, else the limit for files of unknown size). Returns what the
# server said about the file (X-Linked-Etag and X-Linked-Size, sent by Hugging Face for
# files in Git LFS, and the content type).
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

# One address, tried up to `limits$tries` times while the deadline allows. Returns the last
# response (with the number of `tries`); a transfer that never completed is an error.
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

# Seconds to wait before the next try: as the server said (Retry-After), at most the
# request engine's cap (its retry_delay() says how long it would wait; a server asking for
# longer is told when to come back), else the backoff.
retry_wait <- function(resp, try, limits, call) {
  after <- download_retry_after(resp)
  if (is.na(after)) return(download_backoff(limits, try))
  wait <- retry_delay(list(retry_after = after), 1L, 0)
  if (after > wait) abort_retry_later(resp, after, wait, call)
  wait
}

abort_retry_later <- function(resp, after, cap, call) {
  at <- Sys.time() + after
  when <- format(at, "%Y-%m-%d %H:%M:%S UTC", tz = "UTC")
  abort_pb(
    c("{.url {redact_url(resp$url)}} answered HTTP {resp$status} and asks to retry in {format(round(after), big.mark = ',', scientific = FALSE)} s, longer than the {cap} s predictivebench waits.",
      i = "Try again after {when}."),
    "retry_later", file = redact_url(resp$url), retry_after = after, retry_at = at, call = call
  )
}

# Seconds the server asked to wait (Retry-After, in seconds or as an HTTP date), NA when it
# did not say.
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

# One request into `path`, run by curl's multi interface one step at a time (a tenth of a
# second apart while no byte comes; curl's own waits last a second), so that the limits
# are checked between steps: curl enforces the time left before the
# deadline, a body announced longer than `max_bytes`, and a transfer slower than
# `download_low_speed` (averaged over a few seconds); the loop stops a transfer when no
# byte arrived for `limits$stall` seconds (curl's average would first wait out an earlier
# burst), and the writer stops it before a byte past `max_bytes` is written. Returns
# list(status, headers, url), or the failure as a condition (its `limit` says which limit
# ended it, if one did).
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

# A failed transfer as a condition; `limit` is the limit that ended it ("stall",
# "deadline", "too_big"), read from curl's message when not given.
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

# The name a partial file stands for.
download_name <- function(path) {
  sub(paste0("^[.]", partial_prefix, "[^_]+_"), "", basename(path))
}

# `text` with the password (or the lone user token) of every URL in it replaced by ****,
# as pip does: "http://user:****@host", "http://****@host".
redact_url <- function(text) {
  text <- gsub("(://[^/@:\\s]*):[^/@\\s]*@", "\\1:****@", text, perl = TRUE)
  gsub("(://)[^/@:\\s]+@", "\\1****@", text, perl = TRUE)
}
