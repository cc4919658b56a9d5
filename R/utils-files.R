# Writing files so that a reader never sees half of one.

# Write to a unique temporary file beside `path`, then rename: readers see the old or the new
# file, and two writers of one key cannot interleave. `temp` lets a test put a device there.
write_atomic <- function(path, writer, temp = default_temp_file) {
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  tmp <- temp(path)
  on.exit(if (file.exists(tmp)) unlink(tmp), add = TRUE)
  writer(tmp)
  if (!file.rename(tmp, path)) {
    abort_pb("Can't move the finished file into place.", "cache", file = path)
  }
  invisible(path)
}

# Writes `bytes` to `path` whole, or fails in the system's words: R may report a full disk only
# as a warning on close, and a file cut short is still a file, so its size is checked too.
write_bytes <- function(path, bytes) {
  why <- character()
  note <- function(c) {
    why <<- c(why, conditionMessage(c))
    if (inherits(c, "warning")) invokeRestart("muffleWarning")
  }
  con <- tryCatch(withCallingHandlers(file(path, open = "wb", raw = TRUE), warning = note),
                  error = function(e) stop(paste(c(why, conditionMessage(e)), collapse = ": "),
                                           call. = FALSE))
  tryCatch(withCallingHandlers(writeBin(bytes, con), warning = note), error = note)
  tryCatch(withCallingHandlers(close(con), warning = note), error = note)
  size <- file.size(path)
  if (length(why) || !identical(size, as.double(length(bytes)))) {
    stop(paste(c(sprintf("wrote %s of %d bytes", format(size), length(bytes)), why),
               collapse = ": "), call. = FALSE)
  }
  invisible(path)
}

# Whether what a failed write said means the disk (or the user's quota) is full.
disk_is_full <- function(text) {
  any(grepl("No space left|ENOSPC|disk full|quota", text, ignore.case = TRUE))
}

# A unique hidden name beside `path`, shortened to stay at most 255 bytes.
default_temp_file <- function(path) {
  base <- basename(path)
  if (nchar(base, type = "bytes") > 200L) {
    base <- portable_file_name(base, max_bytes = 200L, max_part = 200L)
  }
  tempfile(paste0(".", base, "-"), tmpdir = dirname(path))
}

# Runs `expr` holding an exclusive lock on `.<name>.lock` beside `path`, so processes sharing a
# file (two arena runs on one folder) read-merge-write it in turn.
with_file_lock <- function(path, expr, timeout = getOption("predictivebench.lock_timeout_s", 600)) {
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  lock_file <- file.path(dirname(path), paste0(".", basename(path), ".lock"))
  lock <- filelock::lock(lock_file, timeout = timeout * 1000)
  if (is.null(lock)) {
    abort_pb("Timed out after {timeout} s waiting for another process to release the file.",
             "lock", file = path)
  }
  on.exit(filelock::unlock(lock), add = TRUE)
  expr
}
