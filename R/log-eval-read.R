# Reading Inspect AI's `.eval` logs: a zip of `header.json`, `samples/<id>_epoch_<n>.json`,
# `_journal/start.json` and summaries. The central directory comes from zip::zip_list()
# (nothing inflated); each entry's bytes, sliced at its offset, are inflated by libarchive
# (zstd, method 93, or deflate), so one sample at a time is in memory.

is_eval_log <- function(path) grepl("[.]eval$", path, ignore.case = TRUE)

# The zip's entries (name, offset, sizes), each with where its bytes end.
eval_entries <- function(path) {
  entries <- tryCatch(zip::zip_list(path), error = function(e) {
    abort_pb("The log is not a readable {.file .eval} file (a truncated zip?).", "json",
             file = path, parent = e)
  })
  starts <- sort(entries$offset)
  entries$end <- c(starts[-1], file.size(path))[match(entries$offset, starts)]
  entries
}

# One entry's text, or NULL when the zip has no such entry.
eval_entry_text <- function(path, name, entries = eval_entries(path), con = NULL) {
  i <- match(name, entries$filename)
  if (is.na(i)) return(NULL)
  if (is.null(con)) {
    con <- file(path, open = "rb")
    on.exit(close(con))
  }
  seek(con, entries$offset[[i]])
  bytes <- readBin(con, "raw", entries$end[[i]] - entries$offset[[i]])
  text <- tryCatch({
    entry <- archive::archive_read(rawConnection(bytes), 1L, mode = "rb")
    on.exit(close(entry), add = TRUE)
    rawToChar(readBin(entry, "raw", entries$uncompressed_size[[i]]))
  }, error = function(e) {
    abort_pb("Can't inflate {.file {name}} of the log.", "json", file = path, parent = e)
  })
  Encoding(text) <- "UTF-8"
  text
}

eval_entry_json <- function(path, name, ...) {
  text <- eval_entry_text(path, name, ...)
  if (is.null(text)) return(NULL)
  tryCatch(parse_log_json(text), error = function(e) {
    abort_pb("{.file {name}} of the log is not valid JSON.", "json", file = path, parent = e)
  })
}

# The header: `header.json`, or for a log still being written (or killed) only
# `_journal/start.json`, whose status is "started". A log without the package's metadata is an
# Inspect task's (`inspect_task`, see log_benchmark()), its scorers' metrics its headline rows.
eval_log_header <- function(path) {
  entries <- eval_entries(path)
  header <- eval_entry_json(path, "header.json", entries)
  if (is.null(header)) {
    header <- eval_entry_json(path, "_journal/start.json", entries)
    if (is.null(header)) {
      abort_pb("This is not an Inspect log: it has no {.file header.json}.", "json", file = path)
    }
    header$status <- "started"
  }
  meta <- header$eval$metadata
  if (is.null(meta$predictivebench)) {
    meta <- if (is.list(meta)) meta else list()
    meta$benchmark <- header$eval$task
    meta$inspect_task <- TRUE
    if (length(header$results$scores)) meta$headline <- eval_headline(header$results)
    header$eval$metadata <- meta
  }
  header
}

# Inspect's own metrics as the headline rows a package log holds (headline_metadata()): one
# per scorer and metric, keyed "<scorer> <metric>", without an interval (Inspect's stderr is
# a row of its own).
eval_headline <- function(results) {
  rows <- lapply(results$scores, function(score) {
    lapply(score$metrics, function(metric) {
      spread <- metric$name %in% c("stderr", "std", "var", "bootstrap_stderr")
      list(key = paste(score$name, metric$name), group = score$name, metric = metric$name,
           estimate = metric$value,
           n = as.integer(score$scored_samples %||% results$completed_samples %||% NA),
           interval = "none (Inspect metric)", better = if (spread) "lower" else "higher",
           scale = "0-1")
    })
  })
  unname(unlist(rows, recursive = FALSE))
}

# Whether a header is of a log Inspect wrote for a task of its own (eval_log_header()).
is_inspect_task <- function(header) isTRUE(header$eval$metadata$inspect_task)

# Whether an .eval log is finished (it has `header.json`); an unfinished one is refused.
check_eval_finished <- function(path) {
  if (!"header.json" %in% eval_entries(path)$filename) {
    abort_pb("The log is unfinished: it has no {.file header.json} (a run still going, or
              killed).", "unfinished_log", file = path)
  }
  TRUE
}

eval_sample_names <- function(entries) {
  entries$filename[startsWith(entries$filename, "samples/") &
                     endsWith(entries$filename, ".json")]
}

eval_sample_count <- function(path) length(eval_sample_names(eval_entries(path)))

# `each()` of every sample of a finished .eval, read and translated one at a time.
eval_log_samples <- function(path, each) {
  check_eval_finished(path)
  entries <- eval_entries(path)
  con <- file(path, open = "rb")
  on.exit(close(con))
  lapply(eval_sample_names(entries), function(name) {
    each(inspect_sample(eval_entry_json(path, name, entries, con = con)))
  })
}

# An Inspect sample as the package's readers take one: scores as numbers (Inspect's
# value_to_float()), the answer the output's completion where the score names none, and a
# sample's error as solver metadata `error` (report_failures() reads it).
inspect_sample <- function(sample) {
  sample$scores <- lapply(sample$scores, function(score) {
    score$value <- inspect_value_to_float(score$value)
    score$answer <- score$answer %||% sample$output$completion
    score
  })
  if (length(sample$error)) {
    sample$metadata$error <- as.character(sample$error$message %||% sample$error)[[1]]
  }
  sample
}

# inspect_ai.scorer.value_to_float() with its defaults: C 1, P 0.5, I and N 0, "yes"/"true"
# 1, "no"/"false" 0, a numeric string its number, anything else 0 (Inspect warns).
inspect_value_to_float <- function(value) {
  if (is.null(value)) return(NULL)
  if (is.numeric(value) || is.logical(value)) return(as.double(value))
  if (!rlang::is_string(value)) return(0)
  known <- c(C = 1, P = 0.5, I = 0, N = 0, yes = 1, true = 1, no = 0, false = 0)
  if (value %in% c("C", "P", "I", "N")) return(known[[value]])
  lower <- tolower(value)
  if (lower %in% names(known)[5:8]) return(known[[lower]])
  if (grepl("^[0-9]*[.]?[0-9]*$", value) && grepl("[0-9]", value)) return(as.double(value))
  0
}

# Whether an .eval file is a whole zip with a finished, parseable header (the set's "done").
eval_log_valid <- function(path) {
  header <- tryCatch(eval_log_header(path), predictivebench_error = function(e) NULL)
  identical(header$status, "success")
}
