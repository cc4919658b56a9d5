# Writing files so that a reader never sees half of one.

# Write to a unique temporary file beside `path`, then rename: readers see the old file or
# the new one, never half of one, and two writers of the same key cannot interleave.
write_atomic <- function(path, writer) {
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  tmp <- tempfile(paste0(".", basename(path), "-"), tmpdir = dirname(path))
  on.exit(if (file.exists(tmp)) unlink(tmp), add = TRUE)
  writer(tmp)
  if (!file.rename(tmp, path)) {
    abort_pb("Can't move the finished file into place.", "cache", file = path)
  }
  invisible(path)
}
