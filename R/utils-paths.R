# Paths that come from data: a name read from a task table or a file stays inside the folder
# the user gave, after links are resolved (as Python's readers.safe_join() does). Checked
# where the path is used, so a table made anywhere gets the same checks as a prepared one.

# The real path of `name` under `root`, or NULL when it would leave it: absolute, a `..` part
# (refused even coming back inside, as in Python), or a link resolving outside.
path_inside <- function(root, name) {
  if (!rlang::is_string(name) || is.na(name) || !nzchar(name) || is_absolute(name)) {
    return(NULL)
  }
  if (".." %in% strsplit(name, "[/\\\\]")[[1]]) return(NULL)
  real <- real_path(file.path(root, name))
  if (is_within(real, real_path(root))) real else NULL
}

is_within <- function(real, root) {
  root <- sub("/+$", "", root)
  identical(real, root) || startsWith(real, paste0(root, "/"))
}

# "/x", "\\server\\x", "C:x". A leading "~" is a file name here (Excel's "~$book.xlsx"):
# file.path() does not expand it.
is_absolute <- function(name) grepl("^([/\\\\]|[A-Za-z]:)", name)

# normalizePath() resolves links only in existing paths: go through the nearest existing folder.
real_path <- function(path) {
  if (file.exists(path)) return(normalizePath(path, winslash = "/", mustWork = TRUE))
  parent <- dirname(path)
  if (identical(parent, path)) return(path)
  file.path(real_path(parent), basename(path))
}

# The real path of `name` under `root`, or a `predictivebench_error_path` naming where it came from.
check_path_inside <- function(root, name, what, file = NULL, row = NULL, field = NULL,
                              call = rlang::caller_env()) {
  path_inside(root, name) %||%
    abort_path_outside(root, name, what, file = file, row = row, field = field, call = call)
}

abort_path_outside <- function(root, name, what, file = NULL, row = NULL, field = NULL,
                               call = rlang::caller_env()) {
  abort_pb(
    c("The {what} {.val {name}} leads outside its folder {.file {root}}.",
      i = "Names from data must stay inside their folder (no absolute path, no {.val ..},
           no link that leads out)."),
    "path", file = file, row = row, field = field, call = call
  )
}

# A portable file name of at most `max_bytes` bytes; an over-long part keeps its head and a
# short hash of the original, so two long names never meet.
portable_file_name <- function(parts, ext = "", sep = "_", max_bytes = 255L, max_part = 64L) {
  parts <- as.character(parts)
  clean <- vapply(parts, portable_part, "", max_part = max_part, USE.NAMES = FALSE)
  name <- paste(clean, collapse = sep)
  room <- max_bytes - nchar(ext, type = "bytes")
  if (nchar(name, type = "bytes") > room) {
    name <- paste0(substr(name, 1, room - 13L), "-", short_hash(paste(parts, collapse = "\n")))
  }
  paste0(name, ext)
}

portable_part <- function(part, max_part = 64L) {
  clean <- gsub("[^A-Za-z0-9.+_-]+", "-", enc2utf8(part))
  clean <- gsub("^[.-]+|-+$", "", clean)
  if (!nzchar(clean)) clean <- "x"
  if (nchar(clean, type = "bytes") > max_part) {
    clean <- paste0(substr(clean, 1, max_part - 13L), "-", short_hash(part))
  }
  clean
}

short_hash <- function(x) substr(digest::digest(enc2utf8(x), algo = "sha256", serialize = FALSE), 1, 12)
