# A content-addressed response cache on disk: one file per answered request, written atomically.

#' Where cached responses live
#'
#' Every request predictivebench sends (solver answers, judge verdicts, log-probabilities)
#' is cached on disk under a key made from the provider, model, request parameters, messages
#' and epoch, never the API key. A second `$eval()` of the same task therefore sends no
#' request, and a run that was interrupted resumes where it stopped.
#'
#' The directory is, in order: `getOption("predictivebench.cache_dir")`, the environment
#' variable `PREDICTIVEBENCH_CACHE_DIR`, or `tools::R_user_dir("predictivebench", "cache")`.
#' Every function that sends requests has a `cache` argument: `TRUE` (this directory),
#' `FALSE` (no cache: every request is sent and nothing is written) or a path to use instead.
#' `cache_clear()` deletes the cached responses.
#'
#' Each answer is written the moment it arrives, atomically (a temporary file renamed into
#' place), so a run that is killed leaves only whole entries and loses only the requests in
#' flight. The subdirectory `batches/` holds the state files of provider batches
#' (`batch = TRUE` in [generate_responses()]), which let a batch be resumed after quitting R;
#' `cache_clear()` leaves them.
#'
#' @param cache `TRUE`, `FALSE` or a directory.
#' @returns `cache_dir()` returns the directory (or `NULL` when `cache` is `FALSE`);
#'   `cache_clear()` returns the number of files deleted, invisibly.
#' @export
#' @examples
#' cache_dir()
#' cache_dir(FALSE)
#' cache_dir(file.path(tempdir(), "my-cache"))
cache_dir <- function(cache = TRUE) {
  if (isFALSE(cache)) return(NULL)
  if (isTRUE(cache)) {
    env <- Sys.getenv("PREDICTIVEBENCH_CACHE_DIR")
    cache <- getOption("predictivebench.cache_dir") %||%
      (if (nzchar(env)) env else tools::R_user_dir("predictivebench", "cache"))
  }
  if (!rlang::is_string(cache)) {
    abort_pb("{.arg cache} must be {.code TRUE}, {.code FALSE} or a directory.", "argument")
  }
  cache
}

#' @rdname cache_dir
#' @export
cache_clear <- function(cache = TRUE) {
  dir <- cache_dir(cache)
  if (is.null(dir) || !dir.exists(dir)) return(invisible(0L))
  files <- list.files(dir, pattern = "\\.rds$", recursive = TRUE, full.names = TRUE)
  unlink(files)
  invisible(length(files))
}

# Keys hash canonical JSON rather than R serialization, so they do not change with the R
# version or with attributes that do not affect a request.
cache_key <- function(...) {
  json <- jsonlite::toJSON(list(...), auto_unbox = TRUE, digits = NA, null = "null",
                           na = "null", force = TRUE)
  digest::digest(as.character(json), algo = "sha256", serialize = FALSE)
}

cache_path <- function(dir, key) {
  file.path(dir, substr(key, 1, 2), paste0(key, ".rds"))
}

cache_get <- function(dir, key) {
  if (is.null(dir)) return(NULL)
  path <- cache_path(dir, key)
  if (!file.exists(path)) return(NULL)
  # A file that can't be read (a disk error, a foreign file) counts as a miss, not a crash:
  # the request is simply sent again and the entry rewritten.
  tryCatch(readRDS(path), error = function(e) NULL)
}

cache_set <- function(dir, key, value) {
  if (is.null(dir)) return(invisible(NULL))
  path <- cache_path(dir, key)
  write_atomic(path, function(tmp) saveRDS(value, tmp, compress = FALSE))
  invisible(path)
}

cache_has <- function(dir, keys) {
  if (is.null(dir)) return(rep(FALSE, length(keys)))
  file.exists(cache_path(dir, keys))
}

