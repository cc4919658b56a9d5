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
#   "429"       status 429 with Retry-After: 1
#   "500"       status 500
#   "truncate"  the headers promise the whole file, half of it is sent, the connection closes
#   "corrupt"   the file with one byte changed
#   "redirect"  302 to `to` (another server's URL) with X-Linked-Etag/X-Linked-Size `etag`
fake_file_server <- function(files) {
  app <- webfakes::new_app()
  app$locals$files <- files
  app$locals$log <- list()
  app$locals$faults <- list()
  app$get("/_log", function(req, res) res$send_json(req$app$locals$log, auto_unbox = TRUE))
  app$get("/_fault", function(req, res) {
    q <- req$query
    fault <- list(kind = q$kind, times = as.integer(q$times), to = q$to, etag = q$etag,
                  size = q$size)
    req$app$locals$faults[[q$path]] <- fault
    res$send_json(list(ok = TRUE))
  })
  app$get(webfakes::new_regexp(".*"), function(req, res) {
    app <- req$app
    path <- req$path
    auth <- req$get_header("Authorization")
    app$locals$log[[length(app$locals$log) + 1L]] <- list(
      path = path, authorization = if (is.null(auth)) "" else auth
    )
    fault <- app$locals$faults[[path]]
    kind <- ""
    if (!is.null(fault) && fault$times != 0L) {
      kind <- fault$kind
      app$locals$faults[[path]]$times <- fault$times - 1L
    }
    file <- app$locals$files[[path]]
    if (kind == "429") {
      return(res$set_status(429L)$set_header("Retry-After", "1")$send("slow down"))
    }
    if (kind == "500") return(res$set_status(500L)$send("oops"))
    if (kind == "redirect") {
      res$set_header("Location", fault$to)
      if (!is.null(fault$etag)) res$set_header("X-Linked-Etag", paste0("\"", fault$etag, "\""))
      if (!is.null(fault$size)) res$set_header("X-Linked-Size", fault$size)
      return(res$set_status(302L)$send(""))
    }
    if (is.null(file)) return(res$set_status(404L)$send("Entry not found"))
    bytes <- readBin(file, "raw", file.size(file))
    if (kind == "corrupt") bytes[[length(bytes) %/% 2]] <- as.raw(bitwXor(as.integer(bytes[[length(bytes) %/% 2]]), 1L))
    if (kind == "truncate") {
      res$set_header("Content-Length", length(bytes))
      res$send_chunk(bytes[seq_len(length(bytes) %/% 2)])
      stop("connection dropped on purpose")
    }
    res$set_type("application/octet-stream")$send(bytes)
  })
  proc <- webfakes::new_app_process(app, opts = webfakes::server_opts(num_threads = 2))
  url <- sub("/$", "", proc$url())
  list(
    url = url,
    log = function() {
      log <- jsonlite::fromJSON(paste0(url, "/_log"), simplifyVector = TRUE)
      if (!length(log)) tibble::tibble(path = character(), authorization = character()) else tibble::as_tibble(log)
    },
    fault = function(path, kind, times = 1L, to = NULL, etag = NULL, size = NULL) {
      q <- list(path = path, kind = kind, times = times, to = to, etag = etag, size = size)
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

# Replaces an internal function of the package until the calling test ends (testthat 3.1.6
# has no local_mocked_bindings()).
local_replace_internal <- function(name, value, env = parent.frame()) {
  ns <- asNamespace("predictivebench")
  old <- get(name, envir = ns)
  unlockBinding(name, ns)
  assign(name, value, envir = ns)
  withr::defer({
    assign(name, old, envir = ns)
    lockBinding(name, ns)
  }, envir = env)
}
