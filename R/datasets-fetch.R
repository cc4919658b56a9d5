# Downloading pinned files: once, verified, into the datasets cache. No other network call
# is made (no Hub API: those are the rate-limited kind).
#
#   fetch_version()   every file of a version in the cache, verified; says the licence once
#   fetch_file()      one file: reuse (verified) or download to a temporary file, check size,
#                     X-Linked-Etag and sha256, then rename into place
#   download_to()     the HTTP transfer: retries on 429/5xx honouring Retry-After, redirects
#                     handled by hand so the Hugging Face token never leaves its origin

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
#'   mirror or a local server can stand in.
#' * `HF_TOKEN`, when set, is sent as a bearer token to the Hugging Face endpoint only; a
#'   redirect to another origin (Hugging Face's file CDN) is followed without it.
#' * Requests answered 429 or 5xx, and broken transfers, are retried (at most 5 tries),
#'   waiting as long as the server's `Retry-After` says.
#' * With `HF_HUB_OFFLINE=1` (or the option `predictivebench.offline = TRUE`) nothing is
#'   downloaded: a missing file is an error of class `predictivebench_error_offline` that
#'   lists each URL and the exact path to save it at, after which the same call works.
#' * A file whose size or sha256 differs from the pin is an error of class
#'   `predictivebench_error_checksum` naming the file; it is not kept. A file with no pinned
#'   sha256 has its sha256 recorded at first download and verified whenever it is used.
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
  dest <- raw_file_path(rows)
  missing <- !file.exists(dest)
  if (any(missing) && is_offline()) abort_offline(rows[missing, ], dest[missing], call)
  if (any(missing)) say_licence(rows[1, ])
  for (i in seq_len(nrow(rows))) fetch_file(rows[i, ], dest[[i]], call = call)
  rlang::set_names(dest, rows$path)
}

is_offline <- function() {
  isTRUE(getOption("predictivebench.offline")) ||
    tolower(Sys.getenv("HF_HUB_OFFLINE")) %in% c("1", "true", "yes", "on")
}

abort_offline <- function(rows, dest, call, reason = "Offline ({.envvar HF_HUB_OFFLINE} is set)") {
  fn <- paste0(rows$benchmark[[1]], "_dataset")
  files <- paste0(pinned_url(rows), " -> ", dest)
  abort_pb(
    c(paste0(reason, ": {rows$benchmark[[1]]} version {.val {rows$version[[1]]}} is not in the cache."),
      i = "Download {cli::qty(length(files))}{?this file/these files} and save {?it/them} at exactly {?this path/these paths}:",
      rlang::set_names(files, rep("*", length(files))),
      i = "Then call {.code {fn}(version = \"{rows$version[[1]]}\")} again: it verifies and prepares {cli::qty(length(files))}{?it/them}."),
    "offline", call = call, urls = pinned_url(rows), paths = dest
  )
}

say_licence <- function(row) {
  cli::cli_inform(c(
    i = "Downloading {row$benchmark} version {.val {row$version}} (pinned at commit {substr(row$commit, 1, 7)}).",
    "*" = "Licence: {row$licence}.",
    "*" = "Cite: {row$citation}"
  ))
}

# One file in place and verified. A file already there is checked against the pinned or
# recorded sha256; a download goes through a temporary file, renamed only once it passed.
fetch_file <- function(row, dest, call = rlang::caller_env()) {
  if (file.exists(dest)) {
    check_sha256(row, dest, expected_sha256(row), call = call)
    return(invisible(dest))
  }
  write_atomic(dest, function(tmp) {
    headers <- download_to(pinned_url(row), tmp, token = hf_token(row), call = call)
    check_download(row, tmp, headers, call = call)
  })
  record_sha256(row, dest)
  invisible(dest)
}

hf_token <- function(row) {
  token <- Sys.getenv("HF_TOKEN")
  if (row$host == "hf" && nzchar(token)) token
}

check_download <- function(row, tmp, headers, call) {
  size <- file.size(tmp)
  expected_size <- c(row$size, headers$size)
  expected_size <- expected_size[!is.na(expected_size)]
  if (length(expected_size) && any(size != expected_size)) {
    abort_pb(
      c("{.file {row$path}} has {size} bytes, not {expected_size[[1]]}: the download is not the pinned file.",
        i = "Nothing was kept; try again, or check the mirror at {.url {pinned_url(row)}}."),
      "checksum", file = row$path, call = call
    )
  }
  etag <- headers$etag
  expected <- expected_sha256(row)
  if (is.na(expected) && !is.null(etag) && grepl("^[0-9a-f]{64}$", etag)) expected <- etag
  check_sha256(row, tmp, expected, call = call)
}

check_sha256 <- function(row, path, expected, call) {
  if (is.na(expected)) return(invisible(path))
  actual <- sha256_file(path)
  if (!identical(unname(actual), unname(expected))) {
    if (!startsWith(basename(path), ".")) unlink(path)
    abort_pb(
      c("{.file {row$path}} does not match its pinned sha256.",
        i = "Expected {expected}, got {actual}. The file was not kept.",
        i = "From {.url {pinned_url(row)}}."),
      "checksum", file = row$path, call = call
    )
  }
  invisible(path)
}

sha256_file <- function(path) digest::digest(file = path, algo = "sha256")

# A file pinned without a sha256 gets the one of its first download, in the version's
# sha256.json, and is verified against it from then on.
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

# Downloads `url` into `path`, following up to five redirects by hand: the token goes only
# to the origin it was meant for. Returns what the server said about the file
# (X-Linked-Etag and X-Linked-Size, sent by Hugging Face for files in Git LFS).
download_to <- function(url, path, token = NULL, call = rlang::caller_env()) {
  origin <- url_origin(url)
  linked <- list()
  for (hop in 0:5) {
    req <- download_request(url, if (identical(url_origin(url), origin)) token)
    resp <- tryCatch(
      httr2::req_perform(req, path = path),
      httr2_failure = function(e) abort_unreachable(url, path, e, call)
    )
    linked$etag <- linked$etag %||% linked_header(resp, "x-linked-etag")
    linked$size <- linked$size %||% suppressWarnings(as.numeric(linked_header(resp, "x-linked-size")))
    status <- httr2::resp_status(resp)
    if (status %in% download_status && httr2::resp_header_exists(resp, "location")) {
      url <- httr2::url_parse(httr2::resp_header(resp, "location"), base_url = httr2::resp_url(resp))
      url <- httr2::url_build(url)
      next
    }
    if (status >= 400) {
      abort_pb(c("Can't download {.url {httr2::resp_url(resp)}}: HTTP {status}.",
                 i = "The pinned file may have moved; see {.fn benchmark_versions}."),
               "download", file = url, call = call)
    }
    return(linked)
  }
  abort_pb("Too many redirects from {.url {url}}.", "download", file = url, call = call)
}

download_request <- function(url, token) {
  req <- httr2::request(url) |>
    httr2::req_user_agent("predictivebench (https://github.com/predictivebench)") |>
    httr2::req_options(followlocation = 0L) |>
    httr2::req_error(is_error = function(resp) FALSE) |>
    httr2::req_retry(
      max_tries = getOption("predictivebench.download_tries", 5),
      retry_on_failure = TRUE,
      is_transient = function(resp) httr2::resp_status(resp) %in% c(429L, 500:599),
      backoff = function(i) getOption("predictivebench.download_backoff", min(2^i, 60)),
      after = function(resp) download_retry_after(resp)
    ) |>
    httr2::req_progress()
  if (!is.null(token)) req <- httr2::req_auth_bearer_token(req, token)
  req
}

# Seconds the server asked to wait (Retry-After), NA when it did not say.
download_retry_after <- function(resp) httr2::resp_retry_after(resp)

linked_header <- function(resp, name) {
  value <- httr2::resp_header(resp, name)
  if (is.null(value)) return(NULL)
  gsub('^(W/)?"|"$', "", value)
}

abort_unreachable <- function(url, path, e, call) {
  abort_pb(
    c("Can't reach {.url {url}}.", x = conditionMessage(e),
      i = "Offline? Download the file by hand and save it as {.file {sub('^[.](.*)-[^-]+$', '\\\\1', basename(path))}} in {.file {dirname(path)}}."),
    "offline", file = url, call = call, urls = url, paths = file.path(dirname(path))
  )
}
