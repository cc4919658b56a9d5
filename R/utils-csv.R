# Reading a CSV file that a user or another tool wrote, all of it or a classed error naming the
# file, row and field: read.csv() alone drops rows after a NUL byte or a bad byte and pads or
# wraps ragged rows with at most a warning.

# `path` as a tibble of text columns (an empty field is "", never missing).
read_csv_checked <- function(path, required, what = "file", call = rlang::caller_env()) {
  if (!file.exists(path)) {
    abort_pb("The {what} does not exist.", "missing_file", file = path, call = call)
  }
  check_csv_nul(path, what, call)
  check_csv_utf8(path, what, call)
  check_csv_fields(path, what, call)
  data <- tryCatch(
    utils::read.csv(path, colClasses = "character", na.strings = character(),
                    check.names = FALSE, encoding = "UTF-8", fileEncoding = "UTF-8"),
    error = function(e) {
      abort_pb(c("Can't read the {what} as CSV.", x = conditionMessage(e)), "csv",
               file = path, call = call)
    }
  )
  # pandas' to_csv() writes its index as a first, unnamed column
  first <- names(data)[1]
  if (length(first) && (first %in% c("", "X", "Unnamed: 0"))) data <- data[-1]
  dup <- names(data)[duplicated(names(data))]
  if (length(dup)) {
    abort_pb("The {what} has two columns named {.field {dup[[1]]}}.", "schema",
             file = path, field = dup[[1]], call = call)
  }
  missing <- setdiff(required, names(data))
  if (length(missing)) {
    abort_pb("The {what} lacks column{?s} {.field {missing}}.", "schema", file = path,
             field = missing[[1]], call = call)
  }
  tibble::as_tibble(data)
}

# read.csv() drops a line with a NUL byte (or, with fileEncoding, every line after it) with
# only a warning: the first NUL is named by its data row and column.
check_csv_nul <- function(path, what, call) {
  bytes <- readBin(path, "raw", file.size(path))
  at <- match(as.raw(0), bytes)
  if (is.na(at)) return(invisible())
  place <- csv_place(bytes[seq_len(at - 1)])
  field <- csv_header(bytes)[place$field]
  if (is.na(field) || !nzchar(field)) field <- paste("column", place$field)
  abort_pb(
    c("The {what} holds a NUL byte.",
      i = "The file is damaged, or is not UTF-8 text (UTF-16?): re-save it as UTF-8."),
    "encoding", file = path, row = if (place$record == 0) "header" else place$record,
    field = field, call = call
  )
}

# Which record (0 = the header) and field the byte after `prefix` falls in, quotes respected.
csv_place <- function(prefix) {
  quote <- prefix == charToRaw('"')
  outside <- (cumsum(quote) %% 2 == 0) & !quote
  breaks <- which(outside & prefix == charToRaw("\n"))
  start <- if (length(breaks)) max(breaks) else 0L
  commas <- which(outside & prefix == charToRaw(","))
  list(record = length(breaks), field = 1L + sum(commas > start))
}

csv_header <- function(bytes) {
  end <- match(charToRaw("\n"), bytes, nomatch = length(bytes) + 1L)
  line <- bytes[seq_len(end - 1)]
  line <- rawToChar(line[line != as.raw(0)])
  names(tryCatch(utils::read.csv(text = line, check.names = FALSE, colClasses = "character"),
                 error = function(e) NULL))
}

# read.csv(fileEncoding = "UTF-8") stops at an invalid byte with only a warning and drops the
# rows after it, so the bytes are checked first and the bad record is named.
check_csv_utf8 <- function(path, what, call) {
  bytes <- readBin(path, "raw", file.size(path))
  text <- rawToChar(bytes[bytes != as.raw(0)])
  if (validUTF8(text)) return(invisible())
  lines <- strsplit(text, "\n", useBytes = TRUE)[[1]]
  bad_line <- which(!validUTF8(lines))[[1]]
  abort_pb(
    c("The {what} is not valid UTF-8 (line {bad_line}).",
      i = "Re-save it as UTF-8, e.g. with {.code iconv -f latin1 -t utf-8}."),
    "encoding", file = path, row = csv_line_records(lines)[[bad_line]], call = call
  )
}

# read.csv() pads a short row and wraps a long one silently, so every record must have the
# header's field count (blank lines are no records, as in pandas).
check_csv_fields <- function(path, what, call) {
  fields <- csv_field_counts(path)
  bad <- ragged_rows(fields)
  if (!length(bad)) return(invisible())
  found <- fields[[bad[[1]] + 1]]
  abort_pb("The {what} has {found} field{?s} in a row; its header has {fields[[1]]}.",
           "csv", file = path, row = bad[[1]], call = call)
}

csv_field_counts <- function(path) {
  fields <- utils::count.fields(path, sep = ",", quote = "\"", comment.char = "",
                                blank.lines.skip = TRUE)
  fields[!is.na(fields)]
}

ragged_rows <- function(fields) which(fields[-1] != fields[1])

# A copy of a CSV file without its ragged records (warned about), and the data rows it keeps.
csv_without_ragged_rows <- function(path) {
  fields <- csv_field_counts(path)
  bad <- ragged_rows(fields)
  rows <- setdiff(seq_len(length(fields) - 1L), bad)
  if (!length(bad)) return(list(path = path, rows = rows))
  cli::cli_warn(
    c("Skipped {length(bad)} row{?s} of {.file {path}} whose field count differs from the
       header's: data row{?s} {bad}."),
    class = "predictivebench_warning_skipped"
  )
  lines <- readLines(path, encoding = "UTF-8", warn = FALSE)
  record <- csv_line_records(lines)
  copy <- tempfile(fileext = ".csv")
  writeLines(lines[!is.na(record) & !record %in% bad], copy, useBytes = TRUE)
  list(path = copy, rows = rows)
}

# The record of each line (0 = the header; NA = a blank line), quotes respected.
csv_line_records <- function(lines) {
  quotes <- vapply(gregexpr('"', lines, useBytes = TRUE), function(m) sum(m > 0), 1)
  record <- rep(NA_integer_, length(lines))
  open <- FALSE
  current <- -1L
  for (i in seq_along(lines)) {
    if (!open && !nzchar(lines[[i]])) next
    if (!open) current <- current + 1L
    record[[i]] <- current
    if (quotes[[i]] %% 2 == 1) open <- !open
  }
  record
}
