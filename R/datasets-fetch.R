# Downloading pinned files: once, verified, into the datasets cache. No other network call
# is made (no Hub API: those are the rate-limited kind).
#
#   fetch_version()  every file of a version in the cache, under the version's lock
#   fetch_file()     one file: reuse (verified) or download to a partial file, check size,
#                    HTML, X-Linked-Etag and sha256, then rename into place
#   R/datasets-download.R, the HTTP transfer (redirects by hand, so the Hugging Face token
#                    never leaves its origin; retries honouring Retry-After)
#
# Nothing unverified counts: a file with no pinned sha256 has it recorded only once the
# flattener accepted it (real_task_table()). Every URL shown goes through redact_url().

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
#' * A file whose size or sha256 differs from what is pinned is an error of class
#'   `predictivebench_error_checksum` naming the file; it is not kept.
#' * A body that is an HTML page (a captive portal or a login page answered with HTTP 200)
#'   is an error of class `predictivebench_error_html_page`; it is not kept.
#' * A file with no pinned size or sha256 (ProcessBench `hf`, DSBench's `data.zip`) is
#'   trusted on first use: it counts only once the benchmark's flattener has accepted it at
#'   the first `<bench>_dataset()`; its sha256 and size are then recorded (shown by
#'   [benchmark_versions()], `verified = "first use"`), and every later copy, downloaded
#'   again or changed on disk, that differs is an error of class
#'   `predictivebench_error_checksum`. If the flattener refuses it, it is deleted, and the
#'   next call downloads it again.
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

# Where each pinned file is kept; a path from the versions table must stay in its folder.
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

# Runs `expr` holding the version's lock, after removing the partial files a killed process
# left (with the lock held, no one else writes them). A waiter waits as long as the holder may
# take to download every file, plus the usual lock timeout.
with_version_lock <- function(rows, limits, expr) {
  dir <- version_dir(rows$benchmark[[1]], rows$version[[1]])
  wait <- limits$timeout * nrow(rows) + getOption("predictivebench.lock_timeout_s", 600)
  with_file_lock(dir, {
    remove_partial_files(dir)
    expr
  }, timeout = wait)
}

partial_prefix <- "predictivebench-partial_"

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

# One file in place and checked against the pinned or recorded sha256; a download goes
# through a partial file, renamed only once it passed.
fetch_file <- function(row, dest, limits = download_limits(call), call = rlang::caller_env()) {
  if (file.exists(dest)) {
    check_sha256(row, dest, expected_sha256(row), call = call)
    return(invisible(dest))
  }
  dir.create(dirname(dest), recursive = TRUE, showWarnings = FALSE)
  partial <- partial_path(dest)
  on.exit(unlink(partial), add = TRUE)
  headers <- download_to(pinned_url(row), partial, token = hf_token(row), size = expected_size(row),
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
  expected_size <- c(expected_size(row), headers$size)
  expected_size <- expected_size[!is.na(expected_size)]
  if (length(expected_size) && any(size != expected_size)) {
    abort_pb(
      c("{.file {row$path}} has {size} bytes, not {expected_size[[1]]}: the download is not the {pinned_or_recorded(row)} file.",
        i = first_use_note(row),
        i = "Nothing was kept; try again, or check the mirror at {.url {redact_url(pinned_url(row))}}."),
      "checksum", file = row$path, call = call
    )
  }
  check_sha256(row, tmp, expected, call = call)
}

# An HTML document (text/html, or a doctype or <html>/<head>/<body> first): no benchmark file is one.
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
      c("{.file {row$path}} does not match its {pinned_or_recorded(row)} sha256.",
        i = first_use_note(row),
        i = "Expected {expected}, got {actual}. The file was not kept.",
        i = "From {.url {redact_url(pinned_url(row))}}."),
      "checksum", file = row$path, call = call
    )
  }
  invisible(path)
}

sha256_file <- function(path) digest::digest(file = path, algo = "sha256")

pinned_or_recorded <- function(row) if (is.na(row$sha256)) "recorded" else "pinned"

first_use_note <- function(row) {
  if (is.na(row$sha256)) {
    "This file is trusted on first use: its sha256 and size were recorded at its first
     download, and every later copy must match them."
  }
}

# A file pinned without a sha256 (trusted on first use) gets its sha256 and size recorded once
# the flattener accepted it (record_sha256()); every later copy is verified against them.
sha256_record_path <- function(row) file.path(version_dir(row$benchmark, row$version), "sha256.json")

recorded_file <- function(row) {
  record <- sha256_record_path(row)
  if (!file.exists(record)) return(NULL)
  known <- jsonlite::read_json(record)[[row$path]]
  if (is.character(known)) list(sha256 = known) else known
}

expected_sha256 <- function(row) {
  if (!is.na(row$sha256)) return(row$sha256)
  recorded_file(row)$sha256 %||% NA_character_
}

expected_size <- function(row) {
  if (!is.na(row$size)) return(row$size)
  as.double(recorded_file(row)$size %||% NA)
}

record_sha256 <- function(row, dest) {
  if (!is.na(row$sha256)) return(invisible())
  record <- sha256_record_path(row)
  known <- if (file.exists(record)) jsonlite::read_json(record) else list()
  known[[row$path]] <- list(sha256 = sha256_file(dest), size = file.size(dest),
                            recorded_at = format(Sys.time(), "%Y-%m-%dT%H:%M:%SZ", tz = "UTC"))
  write_atomic(record, function(tmp) jsonlite::write_json(known, tmp, auto_unbox = TRUE))
}
