# No test reaches the real GitHub or Hugging Face, nor the user's datasets cache: a call of a
# real benchmark that a test forgot to point at a local server fails at once, offline.
Sys.setenv(HF_HUB_OFFLINE = "1")
options(predictivebench.datasets_dir = file.path(tempdir(), "predictivebench-datasets"))

# Local stand-ins for GitHub and Hugging Face: files served in the real URL layouts.
#
# fake_file_server(files) starts a webfakes app in a child process serving `files`, a named
# list: URL path (e.g. "/Qwen/ProcessBench/<commit>/dataset/gsm8k.json") -> local file.
# The returned object has $url, $log() (every request: path and Authorization header),
# $fault(path, kind, times) and $stop(). Faults are answered before the file:
#   "429"       status 429 with Retry-After: `after` (default 1)
#   "500"       status 500 (also "408" and "503")
#   "truncate"  the headers promise the whole file, half of it is sent, the connection closes
#   "corrupt"   the file with one byte changed
#   "redirect"  302 to `to` (another server's URL or any address, file:///etc/passwd) with
#               X-Linked-Etag `etag` and X-Linked-Size `size`
#   "stall"     the headers promise the whole file, half of it is sent, then nothing more
#   "slow"      the whole file in 20 pieces, `delay` seconds apart (default 0.2)
#   "endless"   200 with no length and a body that never ends (64 KiB chunks)
#   "html"      200 text/html: a captive portal's login page
#   "garbage"   200 with plain text that is no benchmark's data
fake_file_server <- function(files) {
  # (defined here: the handler runs in the server's process, which sees only this frame)
  # Half the file, then silence (checked every half second, for at most 30 s).
  send_stalled <- function(res, bytes) {
    if (is.null(res$locals$waits)) {
      res$locals$waits <- 0L
      res$set_header("Content-Length", length(bytes))$set_type("application/octet-stream")
      res$send_chunk(bytes[seq_len(length(bytes) %/% 2)])
    }
    res$locals$waits <- res$locals$waits + 1L
    if (res$locals$waits > 60L) stop("stalled long enough")
    res$delay(0.5)
  }

  # The file in 20 pieces, `delay` seconds apart.
  send_slowly <- function(res, bytes, delay) {
    pieces <- split(bytes, ceiling(seq_along(bytes) / ceiling(length(bytes) / 20)))
    if (is.null(res$locals$piece)) {
      res$locals$piece <- 0L
      res$set_header("Content-Length", length(bytes))$set_type("application/octet-stream")
    }
    res$locals$piece <- res$locals$piece + 1L
    res$send_chunk(pieces[[res$locals$piece]])
    if (res$locals$piece < length(pieces)) res$delay(delay)
  }

  # 64 KiB chunks with no end (at most 1 GiB, should the client never stop).
  send_endless <- function(res) {
    if (is.null(res$locals$chunks)) {
      res$locals$chunks <- 0L
      res$set_type("application/octet-stream")
    }
    chunk <- as.raw(rep(0x61, 65536))
    for (i in 1:16) res$send_chunk(chunk)
    res$locals$chunks <- res$locals$chunks + 16L
    if (res$locals$chunks > 16384L) stop("endless enough")
    res$delay(0.01)
  }

  app <- webfakes::new_app()
  app$locals$files <- files
  app$locals$log <- list()
  app$locals$faults <- list()
  app$get("/_log", function(req, res) res$send_json(req$app$locals$log, auto_unbox = TRUE))
  app$get("/_fault", function(req, res) {
    q <- req$query
    fault <- list(kind = q$kind, times = as.integer(q$times), to = q$to, etag = q$etag,
                  size = q$size, after = q$after, delay = if (is.null(q$delay)) 0.2 else as.numeric(q$delay))
    req$app$locals$faults[[q$path]] <- fault
    res$send_json(list(ok = TRUE))
  })
  app$get(webfakes::new_regexp(".*"), function(req, res) {
    app <- req$app
    path <- req$path
    auth <- req$get_header("Authorization")
    # a response that goes on after a delay (res$delay() calls the handler again) keeps
    # its fault in res$locals, and is logged once
    fault <- res$locals$fault
    kind <- res$locals$kind
    if (is.null(kind)) {
      fault <- app$locals$faults[[path]]
      kind <- ""
      app$locals$log[[length(app$locals$log) + 1L]] <- list(
        path = path, authorization = if (is.null(auth)) "" else auth
      )
      if (!is.null(fault) && fault$times != 0L) {
        kind <- fault$kind
        app$locals$faults[[path]]$times <- fault$times - 1L
      }
      res$locals$kind <- kind
      res$locals$fault <- fault
    }
    file <- app$locals$files[[path]]
    if (kind == "429") {
      return(res$set_status(429L)$set_header("Retry-After", if (is.null(fault$after)) "1" else fault$after)$send("slow down"))
    }
    if (kind %in% c("408", "500", "503")) return(res$set_status(as.integer(kind))$send("oops"))
    if (kind == "redirect") {
      res$set_header("Location", fault$to)
      if (!is.null(fault$etag)) res$set_header("X-Linked-Etag", paste0("\"", fault$etag, "\""))
      if (!is.null(fault$size)) res$set_header("X-Linked-Size", fault$size)
      return(res$set_status(302L)$send(""))
    }
    if (kind == "html") {
      return(res$set_status(200L)$set_type("text/html")$send(paste0(
        "<!DOCTYPE html>\n<html><head><title>Wi-Fi login</title></head>",
        "<body><form>Accept the terms to get online</form></body></html>")))
    }
    if (kind == "garbage") return(res$set_type("text/plain")$send("no data here\n"))
    if (kind == "endless") return(send_endless(res))
    if (is.null(file)) return(res$set_status(404L)$send("Entry not found"))
    bytes <- readBin(file, "raw", file.size(file))
    if (kind == "corrupt") bytes[[length(bytes) %/% 2]] <- as.raw(bitwXor(as.integer(bytes[[length(bytes) %/% 2]]), 1L))
    if (kind == "truncate") {
      res$set_header("Content-Length", length(bytes))
      res$send_chunk(bytes[seq_len(length(bytes) %/% 2)])
      stop("connection dropped on purpose")
    }
    if (kind == "stall") return(send_stalled(res, bytes))
    if (kind == "slow") return(send_slowly(res, bytes, fault$delay))
    res$set_type("application/octet-stream")$send(bytes)
  })
  proc <- webfakes::new_app_process(app, opts = webfakes::server_opts(num_threads = 8))
  url <- sub("/$", "", proc$url())
  list(
    url = url,
    log = function() {
      log <- jsonlite::fromJSON(paste0(url, "/_log"), simplifyVector = TRUE)
      if (!length(log)) tibble::tibble(path = character(), authorization = character()) else tibble::as_tibble(log)
    },
    fault = function(path, kind, times = 1L, to = NULL, etag = NULL, size = NULL,
                     after = NULL, delay = NULL) {
      q <- list(path = path, kind = kind, times = times, to = to, etag = etag, size = size,
                after = after, delay = delay)
      q <- q[!vapply(q, is.null, TRUE)]
      invisible(jsonlite::fromJSON(paste0(url, "/_fault?", paste0(
        names(q), "=", vapply(q, function(v) utils::URLencode(as.character(v), reserved = TRUE), ""),
        collapse = "&"))))
    },
    stop = function() proc$stop()
  )
}

# The package's own pins, only the rows whose file is in ../shared/reference, served from
# there: the real bytes checked against the real pins.
reference_pins <- function(benchmark, version, files) {
  pins <- predictivebench:::pinned_files()
  rows <- pins[pins$benchmark == benchmark & pins$version == version & pins$path %in% names(files), ]
  rows$local <- unname(vapply(rows$path, function(p) skip_if_no_reference(files[[p]]), ""))
  rows
}

# A versions table (the layout of pinned_files()) for fixtures: one row per file, its size
# and sha256 computed from the fixture itself.
fixture_pins <- function(benchmark, version, host, repo, files, default = TRUE,
                         role = "data", items = NA, licence = "test licence",
                         sha256 = TRUE) {
  commit <- strrep("a", 40)
  tibble::tibble(
    benchmark = benchmark, version = version, default = default, host = host, repo = repo,
    commit = commit, path = names(files),
    size = as.numeric(file.size(unname(files))),
    sha256 = if (sha256) unname(vapply(files, function(f) digest::digest(file = f, algo = "sha256"), "")) else NA_character_,
    licence = licence, citation = "a test", items = as.integer(items), role = role,
    local = unname(files)
  )
}

# The URL path each pinned row is served at, in the real layouts.
fixture_url_path <- function(rows) {
  ifelse(rows$host == "hf",
         paste0("/datasets/", rows$repo, "/resolve/", rows$commit, "/", rows$path),
         paste0("/", rows$repo, "/", rows$commit, "/", rows$path))
}

# Two servers (GitHub and Hugging Face) serving `pins`, the pins in force, an empty datasets
# cache, and the environment pointing at the servers, until the calling test ends.
local_pinned_servers <- function(pins, env = parent.frame()) {
  gh_rows <- pins[pins$host == "github", ]
  hf_rows <- pins[pins$host == "hf", ]
  gh <- fake_file_server(as.list(rlang::set_names(gh_rows$local, fixture_url_path(gh_rows))))
  hf <- fake_file_server(as.list(rlang::set_names(hf_rows$local, fixture_url_path(hf_rows))))
  withr::defer({ gh$stop(); hf$stop() }, envir = env)
  withr::local_options(
    predictivebench.versions = pins, predictivebench.datasets_dir = withr::local_tempdir(.local_envir = env),
    predictivebench.download_backoff = 0, .local_envir = env
  )
  withr::local_envvar(HF_ENDPOINT = hf$url, PREDICTIVEBENCH_GITHUB_URL = gh$url,
                      HF_HUB_OFFLINE = NA, HF_TOKEN = NA, .local_envir = env)
  list(gh = gh, hf = hf)
}

# A three-question arena file, and its pins (a GitHub file; `...` goes to fixture_pins()).
arena_fixture <- function(n = 3, env = parent.frame()) {
  f <- withr::local_tempfile(fileext = ".csv", .local_envir = env)
  questions <- c("What is 2 + 2?", "Name a colour.", "Why is the sky blue?")
  if (n > 3) questions <- c(questions, sprintf("Made-up question %d?", seq_len(n - 3)))
  writeLines(c(",question", paste0(seq_len(n) - 1L, ",", questions[seq_len(n)])), f)
  f
}

arena_pins <- function(file, host = "github", ...) {
  fixture_pins("arena", "tiny", host, "v-xchen-v/EloBench",
               c("data/tiny/questions.csv" = file), items = 3, ...)
}

# Every file left in the datasets cache, but the versions' lock files (they hold no data).
kept_files <- function() {
  files <- list.files(datasets_dir(), recursive = TRUE, all.files = TRUE)
  files[!grepl("[.]lock$", files)]
}

# The partial files of downloads in the datasets cache.
partial_files <- function() {
  list.files(datasets_dir(), pattern = "predictivebench-partial", recursive = TRUE,
             all.files = TRUE, include.dirs = TRUE, full.names = TRUE)
}

# Replaces an internal function of the package until the calling test ends (testthat 3.1.6
# has no local_mocked_bindings()); its binding is locked again only if it was (pkgload's
# namespace leaves them unlocked). Returns the function it replaced.
local_replace_internal <- function(name, value, env = parent.frame()) {
  ns <- asNamespace("predictivebench")
  old <- get(name, envir = ns)
  locked <- bindingIsLocked(name, ns)
  if (locked) unlockBinding(name, ns)
  assign(name, value, envir = ns)
  withr::defer({
    assign(name, old, envir = ns)
    if (locked) lockBinding(name, ns)
  }, envir = env)
  invisible(old)
}
