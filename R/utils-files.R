# Writing files so that a reader never sees half of one.

# Write to a unique temporary file beside `path`, then rename: readers see the old file or
# the new one, never half of one, and two writers of the same key cannot interleave.
# `temp` names the temporary file (a test puts a device there: see log_temp_file()).
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

# Writes `bytes` to `path` whole, or fails saying why in the system's words: R reports a
# refused write (a full disk) as an error, a warning, or, where the write was buffered, only
# as a warning when the file is closed ("Problem closing connection: No space left on
# device"), and a file cut short is still a file, so its size is checked too.
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

# A unique hidden name beside `path`. (The temporary name adds ~14 bytes: a long name is
# shortened so that it stays a valid file name, at most 255 bytes.)
default_temp_file <- function(path) {
  base <- basename(path)
  if (nchar(base, type = "bytes") > 200L) {
    base <- portable_file_name(base, max_bytes = 200L, max_part = 200L)
  }
  tempfile(paste0(".", base, "-"), tmpdir = dirname(path))
}

# Runs `expr` holding an exclusive lock on `path` (the hidden file `.<name>.lock` beside it), so that
# processes sharing a file (two arena runs on one folder) read-merge-write it in turn
# instead of overwriting each other's updates.
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
