# A content-addressed response cache on disk: one file per answered request, written
# atomically, in a layout only predictivebench writes (a marker file and `responses/`).

#' Where cached responses live
#'
#' Every request predictivebench sends (solver answers, judge verdicts, log-probabilities)
#' is cached on disk. A second `$eval()` of the same task therefore sends no request, and a
#' run that was interrupted resumes where it stopped.
#'
#' The directory is, in order: `getOption("predictivebench.cache_dir")`, the environment
#' variable `PREDICTIVEBENCH_CACHE_DIR`, or `tools::R_user_dir("predictivebench", "cache")`.
#' The `cache` field of the [request_settings()] every solver and judge takes (or
#' `$eval(cache = )`) says which cache a run uses: `TRUE` (this directory), `FALSE` (no
#' cache: every request is sent and nothing is written) or a path to use instead.
#' `cache_clear()` deletes the cached responses.
#'
#' @section What the cache guarantees:
#' * **Keyed by everything that changes the answer.** The key is a SHA-256 hash of the
#'   provider's class and every property of the provider and model (base URL, model,
#'   parameters, `api_args`, the names and values of `api_headers`), the system prompt, the
#'   earlier turns, the tools (name, description, arguments and function), the messages and
#'   the epoch. Two chats that differ in any of these never share an answer. The API key is
#'   not part of the key, and neither it nor any header value is written anywhere: only the
#'   hash is. A password in the base URL (`https://team:<password>@gateway/v1`) enters the
#'   key the same way, hashed, and is shown nowhere: names, logs and messages show such a
#'   URL as `https://****@gateway/v1`. Because every property counts, an ellmer update that
#'   adds one makes earlier entries misses (sent again), never wrong answers.
#' * **Owned layout.** The directory holds a marker file, `predictivebench-cache.json`
#'   (format and layout version), and the entries under `responses/`. `cache_clear()`
#'   deletes only files named like entries inside `responses/`; it refuses (an error of class
#'   `predictivebench_error_cache`) a directory without the marker, and leaves everything
#'   else in the directory alone: your own files, `batches/` (the state files of provider
#'   batches, which let a batch be resumed after quitting R) and downloaded data sets.
#'   Entries of the earlier layout (two-character folders at the top of the directory, from
#'   predictivebench before the marker) are neither read (their keys do not cover the
#'   headers or tools) nor deleted: a message says so once, when the marker is written, and
#'   you delete those folders yourself.
#' * **A bad entry is a miss.** An entry that can't be read, or was written by another
#'   layout version, is sent again and rewritten, with one warning per call naming a file.
#'   An entry that holds no answer (a turn without content) is a miss too. A failed
#'   request (an HTTP error, a 200 whose body is an error object or has no answer) is
#'   never cached.
#' * **Nothing paid is lost.** Each answer is written the moment it arrives, atomically (a
#'   temporary file, its write checked, renamed into place), so a run that is killed leaves
#'   only whole entries and the rerun sends only what is missing. Two processes may use one
#'   cache at the same time: an entry is one file, and a reader sees it whole or not at all.
#'   A disk that fills under the cache stops the run with an error of class
#'   `predictivebench_error_disk` naming the directory; the entries written before it are
#'   whole, and the answer that could not be written is sent again by the rerun. A
#'   `cache_clear()` from another session while a run writes takes the entries already
#'   written; the run goes on (an entry it could not put in place is a warning) and writes
#'   its log, and a later run sends again what was cleared.
#' * **Checked before paying.** Before the first request is sent the cache directory is
#'   created and written to once; when that fails the run stops with an error of class
#'   `predictivebench_error_cache` naming the directory, and nothing is sent.
#' * **Dry runs leave it alone.** [estimate_cost()] reads the cache but writes only into a
#'   private temporary directory, so however it ends (an error, Ctrl-C, a killed R) the
#'   cache is as it was.
#'
#' @param cache `TRUE`, `FALSE` or a directory.
#' @returns `cache_dir()` returns the directory (or `NULL` when `cache` is `FALSE`);
#'   `cache_clear()` returns the number of entries deleted, invisibly.
#' @family engine
#' @export
#' @examples
#' cache_dir()
#' cache_dir(FALSE)
#' dir <- file.path(tempdir(), "my-cache")
#' cache_dir(dir)
#' cache_clear(dir)
cache_dir <- function(cache = TRUE) {
  check_cache_arg(cache)
  if (isFALSE(cache)) return(NULL)
  if (isTRUE(cache)) {
    env <- Sys.getenv("PREDICTIVEBENCH_CACHE_DIR")
    cache <- getOption("predictivebench.cache_dir") %||%
      (if (nzchar(env)) env else tools::R_user_dir("predictivebench", "cache"))
  }
  cache
}

#' @rdname cache_dir
#' @export
cache_clear <- function(cache = TRUE) {
  dir <- cache_dir(cache)
  if (is.null(dir) || !dir.exists(dir)) return(invisible(0L))
  if (!file.exists(cache_marker_path(dir))) {
    abort_pb(c("{.path {dir}} is not a predictivebench response cache: it has no marker file.",
               i = "Nothing was deleted."), "cache", file = dir)
  }
  read_cache_marker(dir)
  root <- file.path(dir, cache_entries_folder)
  folders <- list.files(root, pattern = "^[0-9a-f]{2}$", full.names = TRUE)
  folders <- folders[dir.exists(folders)]
  files <- as.character(unlist(lapply(folders, list.files, full.names = TRUE,
                                      all.files = TRUE, pattern = "^\\.?[0-9a-f]{64}\\.rds")))
  entries <- sum(grepl("^[0-9a-f]{64}\\.rds$", basename(files)))
  unlink(files)
  # Only folders the clearing emptied go: a folder holding anything else is the user's.
  for (f in folders) {
    if (!length(list.files(f, all.files = TRUE, no.. = TRUE))) unlink(f, recursive = TRUE)
  }
  invisible(entries)
}

cache_format <- "predictivebench-cache"
cache_layout_version <- 2L
cache_marker_file <- "predictivebench-cache.json"
cache_entries_folder <- "responses"

cache_marker_path <- function(dir) file.path(dir, cache_marker_file)

# The marker of `dir`, or NULL when there is none; a marker of another format or layout
# version is an error: its entries are not ours to read, write or delete.
read_cache_marker <- function(dir) {
  path <- cache_marker_path(dir)
  if (!file.exists(path)) return(NULL)
  marker <- tryCatch(jsonlite::read_json(path), error = function(e) NULL)
  if (!identical(marker$format, cache_format) ||
      !identical(as.integer(marker$version %||% NA), cache_layout_version)) {
    abort_pb(c("{.path {dir}} holds a response cache of another format or layout version.",
               i = "Use another cache directory, or delete this one yourself."),
             "cache", file = path)
  }
  marker
}

# Keys hash canonical JSON rather than R serialization, so they do not change with the R
# version or with attributes that do not affect a request.
cache_key <- function(...) {
  digest::digest(key_json(list(...)), algo = "sha256", serialize = FALSE)
}

key_json <- function(x) {
  as.character(jsonlite::toJSON(x, auto_unbox = TRUE, digits = NA, null = "null", na = "null",
                                force = TRUE))
}

# The keys of many requests, byte for byte as cache_key() makes them, with each chat's identity
# (the costly part) serialised once; toJSON() per request was most of the CPU over 27,200.
request_keys <- function(identities, chat_index, fingerprints, epoch) {
  if (!length(chat_index)) return(character())
  identity_json <- vapply(identities, key_json, "")
  fingerprint_json <- if (all(grepl("^[0-9a-f]+$", fingerprints))) {
    paste0("\"", fingerprints, "\"")
  } else {
    vapply(fingerprints, key_json, "")
  }
  epoch_json <- if (is.integer(epoch) && !anyNA(epoch)) {
    as.character(epoch)
  } else {
    vapply(as.list(epoch), key_json, "")
  }
  json <- paste0("[", identity_json[chat_index], ",", fingerprint_json, ",", epoch_json, "]")
  vapply(json, digest::digest, "", algo = "sha256", serialize = FALSE, USE.NAMES = FALSE)
}

cache_path <- function(dir, key) {
  file.path(dir, cache_entries_folder, substr(key, 1, 2), paste0(key, ".rds"))
}

# Where a cache directory is read and written. Inside estimate_cost()'s dry run (a pricing
# session) it is only read, so neither an error nor a kill can leave a placeholder answer where a
# real run would read it.
cache_view <- function(dir) {
  list(read = dir, write = if (is.null(pricing_collector())) dir)
}

# Entries of `keys`, NULL for a miss (unreadable or foreign entries too, warned about once).
cache_get_many <- function(dir, keys) {
  if (is.null(dir)) return(vector("list", length(keys)))
  bad <- character()
  read <- cache_view(dir)$read
  out <- lapply(keys, function(key) {
    for (d in read) {
      path <- cache_path(d, key)
      if (!file.exists(path)) next
      value <- read_cache_entry(path, key)
      if (!inherits(value, "cache_miss")) return(if (holds_answer(value)) value)
      bad <<- c(bad, path)
    }
    NULL
  })
  if (length(bad)) {
    cli::cli_warn(c(
      "{length(bad)} cache entr{?y/ies} could not be read or {?is/are} of another layout;
       {?its/their} request{?s} {?is/are} sent again.",
      i = "First: {.file {bad[[1]]}}"
    ), class = "predictivebench_warning_cache_entry")
  }
  out
}

cache_get <- function(dir, key) cache_get_many(dir, key)[[1]]

# An entry whose answer turn has no content is a miss, sent again (cached before such a 200 was
# an error); records checked to be answers (`answered`) keep an empty answer `""` a hit.
holds_answer <- function(value) {
  if (!is.list(value)) return(FALSE)
  if (is.list(value$turn)) {
    return(isTRUE(value$answered) || length(value$turn$props$contents) > 0)
  }
  TRUE
}

read_cache_entry <- function(path, key) {
  entry <- tryCatch(readRDS(path), error = function(e) NULL)
  ok <- is.list(entry) && identical(entry$format, cache_format) &&
    identical(entry$version, cache_layout_version) && identical(entry$key, key)
  if (ok) entry$value else structure(list(), class = "cache_miss")
}

cache_set <- function(dir, key, value) {
  dir <- cache_view(dir)$write
  if (is.null(dir)) return(invisible(NULL))
  path <- cache_path(dir, key)
  entry <- list(format = cache_format, version = cache_layout_version, key = key,
                value = value)
  # (what saveRDS(compress = FALSE) writes, byte for byte, but written checked)
  write_cache_entry(dir, path, serialize(entry, NULL))
}

# An entry is in place whole or not at all (checked before the rename). A full disk stops the
# run with the classed disk error; an entry whose temporary file vanished (a cache_clear()
# elsewhere) is written once more, else left out with a warning: the run keeps the answer.
write_cache_entry <- function(dir, path, bytes) {
  for (attempt in 1:2) {
    done <- tryCatch(
      write_atomic(path, function(tmp) write_bytes(tmp, bytes), temp = cache_temp_file),
      error = identity
    )
    if (!inherits(done, "error")) return(invisible(path))
    why <- conditionMessage(done)
    if (disk_is_full(why)) {
      abort_pb(c("Can't write the response cache: the disk holding {.file {dir}} is full.",
                 x = "{why}",
                 i = "The answers received before this one are in the cache: a rerun does not
                      pay for them again. This one was not kept (and nothing was left
                      half-written); free some space and run again."),
               "disk", file = dir)
    }
  }
  cli::cli_warn(c("An answer could not be kept in the response cache {.file {dir}}; the run
                   goes on with it, and a later run sends its request again.",
                  x = "{why}"),
                class = "predictivebench_warning_cache_write")
  invisible(NULL)
}

# The temporary file of an entry (a function so a test can put a device there).
cache_temp_file <- function(path) default_temp_file(path)

# Keeps what a request pool delivers: an answer into `records` and the cache at once (a killed
# run loses only what was in flight), an error into `errors` (never cached). `run` is stamped on
# each answer (paid_by_run()).
cache_keeper <- function(dir, keys, records = vector("list", length(keys)), run = NULL) {
  kept <- new.env(parent = emptyenv())
  kept$records <- records
  kept$errors <- rep(NA_character_, length(keys))
  kept$keep <- function(i, value) {
    if (inherits(value, "error")) {
      kept$errors[[i]] <- conditionMessage(value)
    } else {
      value$run <- run
      set_element(kept, "records", i, value)
      cache_set(dir, keys[[i]], value)
    }
  }
  kept
}

# `env[[name]][[i]] <- value` without copying the whole list (~0.1 ms a request otherwise):
# taken out of `env`, set, and put back.
set_element <- function(env, name, i, value) {
  x <- env[[name]]
  env[[name]] <- NULL
  x[[i]] <- value
  env[[name]] <- x
  invisible()
}

# Before the first request (not in a dry run): make the cache and write a probe, so an
# unwritable cache stops the run before anything is paid.
cache_prepare <- function(dir) {
  target <- cache_view(dir)$write
  if (is.null(target)) return(invisible(NULL))
  read_cache_marker(target)
  done <- tryCatch({
    if (!file.exists(cache_marker_path(target))) {
      write_cache_marker(target)
      inform_old_layout(target)
    }
    probe <- file.path(target, cache_entries_folder, paste0(".probe-", Sys.getpid()))
    write_atomic(probe, function(tmp) writeLines("probe", tmp))
    unlink(probe)
    TRUE
  }, error = identity, warning = identity)
  if (!isTRUE(done)) {
    abort_pb(c("Can't write to the response cache {.path {target}}; no request was sent.",
               i = "Give a writable directory as the {.arg cache} setting
                    ({.code settings = request_settings(cache = )} or {.code $eval(cache = )}),
                    or {.code cache = FALSE}.",
               x = conditionMessage(done)),
             "cache", file = target)
  }
  invisible(target)
}

# Entries of the layout before the marker sit in two-character folders at the top: they are
# never read (their keys are of another version) and not ours to delete unasked.
inform_old_layout <- function(dir) {
  old <- list.files(dir, pattern = "^[0-9a-f]{2}$")
  old <- old[vapply(file.path(dir, old), function(d) {
    any(grepl("^[0-9a-f]{64}\\.rds$", list.files(d)))
  }, TRUE)]
  if (!length(old)) return(invisible())
  cli::cli_inform(c(
    "{.path {dir}} holds {length(old)} folder{?s} of cached responses of an earlier layout,
     which {?is/are} not used.",
    i = "Delete {?it/them} ({.val {old}}) to free the space."
  ), class = "predictivebench_message_old_cache")
}

write_cache_marker <- function(dir) {
  marker <- list(format = cache_format, version = cache_layout_version,
                 entries = cache_entries_folder,
                 about = "Written by the R package predictivebench. cache_clear() deletes only the entries under responses/.")
  write_atomic(cache_marker_path(dir), function(tmp) {
    jsonlite::write_json(marker, tmp, auto_unbox = TRUE, pretty = TRUE)
  })
}
