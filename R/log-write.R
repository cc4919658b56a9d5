# Writing a log as the run goes: a hidden part file a sample a line, the header at the end,
# the finished file moved into place; locks, stale parts of crashed runs, a full disk.

# A log (a list in Inspect's EvalLog shape, `samples` last) written whole, for callers that
# hold one: through the writer below, so it is the same text as a log written as the run goes.
write_log <- function(log, dir) {
  w <- log_writer(dir, log$eval$task_id, created = log$eval$created)
  on.exit(log_writer_abandon(w), add = TRUE)
  if (length(log$samples)) log_writer_add(w, log$samples)
  log$samples <- NULL
  log_writer_finish(w, log)
}

# The log's file name is vitals' (eval_log_filename()): "<created>_<task id>.json", each
# part with `_`, `/` and `:` as `-` and the one `_` between them kept, as Inspect names its
# logs ("<time>_<task>_<id>.json"); made portable (no spaces, at most 255 bytes) by
# portable_file_name(): a task id holds model names. Each part is at most 200 bytes, so the
# whole (~230 bytes) is never cut: the task's part of the name is the same at any time
# (stale_log_parts() finds a task's part files by it).
log_file_name <- function(created, task_id, format = "json") {
  parts <- gsub("[_/:]", "-", c(created, task_id))
  portable_file_name(parts, ext = paste0(".", format), sep = "_", max_part = 200L)
}

# The log's format: the argument `log_format` of a run (taken out of its `...` by
# local_log_format()), else the option `predictivebench.log_format`: "json" (the default)
# or "eval" (Inspect AI's zip, R/log-eval-write.R).
log_format <- function(format = getOption("predictivebench.log_format", "json"),
                       call = rlang::caller_env()) {
  if (!rlang::is_string(format) || !format %in% c("json", "eval")) {
    abort_pb("{.arg log_format} must be {.val json} or {.val eval}.", "argument",
             field = "log_format", call = call)
  }
  format
}

# The format a log's path names ("json", "eval"; else NULL); a `format` that differs is refused.
log_path_format <- function(path, format = NULL, field = "log_format", call = rlang::caller_env()) {
  ext <- tolower(tools::file_ext(path))
  if (ext %in% c("json", "eval") && !is.null(format) && !identical(format, ext)) {
    abort_pb("The path ends {.file .{ext}}, which chooses the format, but {.arg {field}} is
              {.val {format}}.", "log_format", file = path, field = field, call = call)
  }
  if (ext %in% c("json", "eval")) ext
}

# A run's `...` without `log_format`, which becomes the format of the logs written in the
# caller's frame.
local_log_format <- function(dots, .env = parent.frame(), call = rlang::caller_env()) {
  if (is.null(dots$log_format)) return(dots)
  withr::local_options(predictivebench.log_format = log_format(dots$log_format, call = call),
                       .local_envir = .env)
  dots$log_format <- NULL
  dots
}

# The unfinished log: hidden and not *.json, so nothing that lists logs (vitals_view()'s
# list, leaderboard(), a set's records, report_failures() of a folder) takes it for one.
part_file_name <- function(name) if (length(name)) paste0(".", name, ".part") else character()

# Beside each part file, the lock its writer holds while it lives: a part whose lock no
# process holds is a crashed run's (stale_log_parts()).
part_lock_name <- function(part) paste0(part, ".lock")

#' Write a log as the run goes
#'
#' A log written in pieces: `log_writer()` opens an unfinished log in `dir`,
#' `log_writer_add()` appends samples as they finish (each written at once and dropped from
#' memory), `log_writer_finish()` writes the header and moves the finished log into place,
#' and `log_writer_abandon()` removes an unfinished one. Until it is finished, the log is a
#' hidden part file (`.<name>.json.part`), never a `*.json` file, so a run that crashes
#' leaves nothing that the viewer's list, [leaderboard()] or a set could read as a log.
#'
#' The finished file is the one `ResultsTask`'s `$log()` writes: Inspect AI's EvalLog, its
#' header pretty-printed (vitals' header reader finds the samples after it), its samples one
#' compact JSON text a line.
#'
#' @param dir The folder to write the log in (created if missing).
#' @param task_id The log's task id (`eval$task_id`): part of the file's name.
#' @param created The log's creation time (`eval$created`), see `log_timestamp()`.
#' @param stale `"keep"` (the default) leaves other part files alone; `"remove"` first removes
#'   the part files of earlier runs of the same task and model in `dir` (task ids that
#'   differ only in their last, per-run part) that no living writer holds (a crashed run's;
#'   see `stale_log_parts()`). For whoever reruns a task.
#' @param w A writer from `log_writer()`.
#' @param samples A list of samples, each a list in Inspect's EvalSample shape.
#' @param header The log without its samples: a list in Inspect's EvalLog shape (`version`,
#'   `status`, `eval`, `plan`, `results`, `stats`).
#' @returns `log_writer()`: a writer (an environment). `log_writer_add()` and
#'   `log_writer_abandon()`: the writer, invisibly. `log_writer_finish()`: the log's path.
#'   A folder that can't be written is an error of class `predictivebench_error_log_dir`; a
#'   write that fails (a full disk) is an error of class `predictivebench_error_disk`, and
#'   no log is left in `dir`.
#' @noRd
log_writer <- function(dir, task_id, created = log_timestamp(), stale = c("keep", "remove"),
                       format = log_format()) {
  check_string(dir)
  check_string(task_id)
  check_string(created)
  stale <- rlang::arg_match(stale)
  format <- log_format(format)
  check_log_dir(dir)
  if (stale == "remove") remove_stale_log_parts(dir, task_id)
  name <- log_file_name(created, task_id, format)
  w <- new.env(parent = emptyenv())
  w$format <- format
  w$task_id <- task_id
  w$dir <- dir
  w$path <- file.path(dir, name)
  w$part <- file.path(dir, part_file_name(name))
  w$created <- created
  # another writer of this log, here or in another process (filelock's locks count per
  # process, so one of this process's own is found by the_log_parts)
  mine <- exists(w$part, envir = the_log_parts, inherits = FALSE)
  w$lock <- if (!mine) {
    tryCatch(filelock::lock(part_lock_name(w$part), timeout = 0), error = function(e) {
      abort_pb("Can't write the log in {.file {dir}}.", "log_dir", file = dir, parent = e,
               call = NULL)
    })
  }
  if (is.null(w$lock)) {
    abort_pb("Another process is writing this log.", "lock", file = w$path)
  }
  if (!isTRUE(suppressWarnings(file.create(w$part)))) {
    filelock::unlock(w$lock)
    unlink(part_lock_name(w$part))
    abort_pb("Can't write the log in {.file {dir}}.", "log_dir", file = dir)
  }
  w$n <- 0L
  w$state <- "open"
  assign(w$part, TRUE, envir = the_log_parts)
  class(w) <- "predictivebench_log_writer"
  if (format == "eval") {
    tryCatch(eval_writer_open(w), error = function(e) {
      log_writer_close(w, "abandoned")
      stop(e)
    })
  }
  w
}

#' @noRd
log_writer_add <- function(w, samples, texts = NULL) {
  check_writer_open(w)
  # `texts`: the samples' JSON text when the caller has it (a log converted keeps its text)
  if (is.null(texts) && !length(samples)) return(invisible(w))
  if (w$format == "eval") {
    if (missing(samples)) samples <- lapply(texts, parse_log_json)
    return(eval_writer_add(w, samples, texts))
  }
  opts <- sample_json_options()
  lines <- texts %||% vapply(samples, sample_json, "", opts = opts)
  if (!length(lines)) return(invisible(w))
  # the part file is the log's samples array as it will stand, a sample a line, the commas
  # between them written as they come: finished, it is copied into the log as it is
  # (copy_log(): by the system, so that copying a log of 20,000 samples costs R no memory)
  separator <- if (w$n == 0L) "\n" else ",\n"
  # a write that fails leaves half a line: the writer takes nothing more
  w$state <- "broken by a failed write"
  write_log_text(w$part, paste0(separator, paste(lines, collapse = ",\n")), append = TRUE,
                 dir = w$dir)
  w$state <- "open"
  w$n <- w$n + length(lines)
  invisible(w)
}

#' @noRd
log_writer_finish <- function(w, header) {
  check_writer_open(w)
  # a header given as JSON text (a log converted) is written as it is
  if (is.list(header)) header$samples <- NULL
  if (w$format == "eval") {
    path <- eval_writer_finish(w, header)
    log_writer_close(w, "finished")
    return(path)
  }
  json <- if (is.character(header)) header else {
    json_text(nulls_as_objects(header), opts = log_json_options())
  }
  # the header's closing brace is replaced by the samples, at two spaces' indent as vitals
  # writes them (its header reader looks for that key)
  json <- sub("\\s*\\}\\s*$", "", json)
  if (!length(header)) json <- "{"
  head <- paste0(json, if (length(header)) ",", "\n  \"samples\": [")
  write_atomic(w$path, function(tmp) copy_log(w, head, tmp), temp = log_temp_file)
  log_writer_close(w, "finished")
  w$path
}

#' @noRd
log_writer_abandon <- function(w) {
  if (!inherits(w, "predictivebench_log_writer")) {
    abort_pb("{.arg w} must be a log writer from {.fn log_writer}.", "argument")
  }
  if (!w$state %in% c("finished", "abandoned")) log_writer_close(w, "abandoned")
  invisible(w)
}

log_writer_close <- function(w, state) {
  if (exists(w$part, envir = the_log_parts, inherits = FALSE)) {
    rm(list = w$part, envir = the_log_parts)
  }
  unlink(w$part)
  if (!is.null(w$lock)) filelock::unlock(w$lock)
  unlink(part_lock_name(w$part))
  if (!is.null(w$stage)) unlink(w$stage, recursive = TRUE)
  w$state <- state
  invisible(w)
}

check_writer_open <- function(w, call = rlang::caller_env()) {
  if (!inherits(w, "predictivebench_log_writer")) {
    abort_pb("{.arg w} must be a log writer from {.fn log_writer}.", "argument", call = call)
  }
  if (!identical(w$state, "open")) {
    abort_pb("This log writer is {w$state}: it takes no more samples.", "argument",
             file = w$path, call = call)
  }
}

# A folder the log can go in: created if missing, and not a file. Checked before anything
# is paid; the writer's part file is the probe that it can be written.
check_log_dir <- function(dir, call = rlang::caller_env()) {
  if (file.exists(dir) && !dir.exists(dir)) {
    abort_pb("Can't write the log: {.file {dir}} is a file, not a folder.", "log_dir",
             file = dir, call = call)
  }
  if (!dir.exists(dir)) suppressWarnings(dir.create(dir, recursive = TRUE))
  if (!dir.exists(dir) || file.access(dir, 2) != 0) {
    abort_pb("Can't write the log: this process can't write in {.file {dir}}.", "log_dir",
             file = dir, call = call)
  }
  invisible(dir)
}

# The finished log into `tmp`: the header's text, the part file's samples (with their commas
# already), the end. The samples are copied by file.append(), a buffer at a time in C: R
# holds none of the log's text (issue 37: read into R, the copy of a 48 MB log grew the
# run's peak by 28 to 70 MB). file.append() checks neither its last write nor its close, so
# the copy is checked by its size.
copy_log <- function(w, head, tmp) {
  write_log_text(tmp, head, append = FALSE, dir = w$dir)
  expected <- file.size(tmp) + file.size(w$part)
  copied <- suppressWarnings(file.append(tmp, w$part))
  if (!isTRUE(copied) || !identical(file.size(tmp), expected)) {
    disk_error(w$dir, simpleError("copying the samples into the log failed"),
               why = probe_write(tmp))
  }
  write_log_text(tmp, if (w$n == 0L) "]\n}\n" else "\n  ]\n}\n", append = TRUE,
                 dir = w$dir)
  invisible(tmp)
}

# Appends (or writes) `text` to `path`, failing with a classed error when the disk refuses.
write_log_text <- function(path, text, append, dir) {
  con <- open_log_file(path, if (append) "ab" else "wb", dir)
  closed <- FALSE
  on.exit(if (!closed) close_quietly(con))
  write_connection(con, text, dir, path)
  closed <- TRUE
  close_checked(con, dir)
  invisible(path)
}

open_log_file <- function(path, mode, dir) {
  tryCatch(file(path, open = mode, raw = TRUE),
           error = function(e) disk_error(dir, e), warning = function(e) disk_error(dir, e))
}

# R reports a failed write as a warning, an error, or (a small write, buffered) only when
# the connection is closed: each is turned into the same classed error. Never flush():
# R ignores a failed fflush(), and the buffer it dropped then closes without an error.
write_connection <- function(con, text, dir, path) {
  failed <- function(e) disk_error(dir, e, why = probe_write(path))
  if (is.character(text)) text <- charToRaw(text)
  tryCatch(writeBin(text, con), error = failed, warning = failed)
}

# Why writing `path` fails, in the system's own words ("No space left on device"), or NULL:
# a failed writeBin() says only "problem writing to connection", and the error is gone by the
# time the connection closes; one byte more, closed at once, reports it.
probe_write <- function(path) {
  con <- tryCatch(file(path, open = "ab", raw = TRUE), condition = function(c) c)
  if (inherits(con, "condition")) return(conditionMessage(con))
  why <- NULL
  # the warning of a failed close() is taken as it comes: unwinding from it (tryCatch())
  # would leave the connection open
  withCallingHandlers({
    writeBin(as.raw(10L), con)
    close(con)
  }, warning = function(w) {
    why <<- c(why, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  why
}

close_checked <- function(con, dir) {
  why <- NULL
  status <- withCallingHandlers(close(con), warning = function(w) {
    why <<- c(why, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  if (length(why) || (is.numeric(status) && !identical(as.integer(status), 0L))) {
    disk_error(dir, simpleError(paste(c("closing the file failed", why), collapse = ": ")), why)
  }
  invisible()
}

close_quietly <- function(con) {
  try(suppressWarnings(close(con)), silent = TRUE)
}

disk_error <- function(dir, error, why = NULL, call = rlang::caller_env()) {
  full <- disk_is_full(c(conditionMessage(error), why))
  abort_pb(c(
    if (full) "Can't write the log: the disk holding {.file {dir}} is full." else
      "Can't write the log in {.file {dir}}.",
    if (length(why)) c(x = "{why}"),
    # (true since every cache entry's write is checked: one the disk refused stopped the run)
    i = "No log was written; free some space and run again (answers already paid are in the
         response cache, unless the run had none: {.code cache = FALSE})."
  ), "disk", file = dir, parent = error, call = call)
}

# The finished log's temporary file (write_atomic()); a function of its own so that a test
# can put a device in its place.
log_temp_file <- function(path) default_temp_file(path)

# The part files this process's open writers hold: filelock's locks count per process, so a
# lock taken here on a part of this process's own would be granted.
the_log_parts <- new.env(parent = emptyenv())

# Part files of `task_id`'s task and model in `dir` (see same_task_log()) that no living
# writer holds: a crashed run's, found by
# their name (only files log_writer() makes: `.<log name>.part`, and the finished log's
# temporary `.<log name>-<random>` of write_atomic(), left by a kill while it was copied), with
# their locks. A part is held while its writer's lock is (a lock of a killed process is
# released by the system).
stale_log_parts <- function(dir, task_id) {
  files <- list.files(dir, all.files = TRUE, no.. = TRUE)
  files <- files[startsWith(files, ".")]
  if (!length(files)) return(character())
  name <- log_name_of(files)
  task <- sub("^[^_]*_", "", name)  # the name after its creation time
  ours <- same_task_log(task, task_id) & grepl("\\.(json|eval)$", name) & name != files
  # (none: part_file_name(character()) would be "..part", whose lock part_held() would make)
  if (!any(ours)) return(character())
  files <- files[ours]
  parts <- file.path(dir, part_file_name(name[ours]))
  held <- vapply(unique(parts), part_held, TRUE)
  file.path(dir, files)[!held[parts]]
}

# Whether log names (without their creation time: "<task id>.json") are of `task_id`'s task:
# its id, or another run's id of the same task and model. A task id is
# "<task>/<model>/<run hash>" and each run has its own hash, so a rerun after a crash knows
# the crashed run's part only by what comes before the hash.
same_task_log <- function(names, task_id) {
  names <- sub("\\.eval$", ".json", names)
  exact <- paste0(portable_part(gsub("[_/:]", "-", task_id), max_part = 200L), ".json")
  if (!grepl("/", task_id, fixed = TRUE)) return(names == exact)
  stem <- sub("/[^/]*$", "", task_id)
  prefix <- paste0(portable_part(gsub("[_/:]", "-", stem), max_part = 200L), "-")
  names == exact | startsWith(names, prefix)
}

# The log a hidden file of the writer belongs to: ".<name>.part", ".<name>-<random>".
log_name_of <- function(files) {
  files <- basename(files)
  ifelse(grepl("\\.(json|eval)\\.part$", files), sub("^\\.(.*)\\.part$", "\\1", files),
         sub("^\\.(.*\\.json)-[A-Za-z0-9]+$", "\\1", files))
}

part_held <- function(part) {
  if (exists(part, envir = the_log_parts, inherits = FALSE)) return(TRUE)
  lock <- tryCatch(filelock::lock(part_lock_name(part), timeout = 0), error = function(e) NULL)
  if (is.null(lock)) return(file.exists(part_lock_name(part)))
  filelock::unlock(lock)
  FALSE
}

remove_stale_log_parts <- function(dir, task_id) {
  stale <- stale_log_parts(dir, task_id)
  locks <- part_lock_name(file.path(dir, part_file_name(log_name_of(stale))))
  unlink(c(stale, locks))
  invisible(stale)
}
