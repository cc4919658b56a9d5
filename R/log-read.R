# Reading a log back: its header without its samples, its samples a chunk of lines at a
# time, their metadata restored, its usage.

# The log's header: everything but the samples. A log written pretty-printed (by vitals or
# here) has its samples after the header at two spaces' indent, so only the text before
# them is parsed; any other JSON log is parsed whole. A file that is not JSON (a truncated
# log) is an error of class `predictivebench_error_json` naming it.
read_log_header <- function(path) {
  if (!file.exists(path)) abort_pb("Can't find the log.", "missing_file", file = path)
  if (is_eval_log(path)) return(eval_log_header(path))
  header <- tryCatch(parse_log_json(read_log_header_text(path)),
                     error = function(e) {
                       abort_pb("The log is not valid JSON (a truncated or unfinished file?).",
                                "json", file = path, parent = e)
                     })
  if (!is.list(header) || is.null(header$eval)) {
    abort_pb("This is not a vitals log: it has no {.field eval} header.", "json", file = path)
  }
  header$samples <- NULL
  header
}

# The header's JSON text as the log holds it, without its samples (log_convert() keeps it).
read_log_header_text <- function(path) {
  text <- read_log_prefix(path)
  at <- regexpr("\n  \"samples\": ", text, fixed = TRUE)
  if (at > 0) paste0(sub(",\\s*$", "", substr(text, 1, at - 1)), "\n}") else text
}

# The start of a log, up to and including its top-level `"samples"` key (the whole file when
# it has none): a header is read without reading the samples, however large.
read_log_prefix <- function(path, chunk = 65536L) {
  con <- file(path, open = "rb")
  on.exit(close(con))
  marker <- charToRaw("\n  \"samples\": ")
  read <- raw()
  repeat {
    more <- readBin(con, "raw", chunk)
    # search the new bytes (and the marker's length before them)
    from <- max(1L, length(read) - length(marker) + 2L)
    read <- c(read, more)
    at <- if (length(read) >= from) grepRaw(marker, read, offset = from, fixed = TRUE)
    if (length(at)) {
      read <- read[seq_len(at + length(marker) - 1L)]
      break
    }
    if (length(more) < chunk) break
    chunk <- chunk * 2L
  }
  text <- rawToChar(read)
  Encoding(text) <- "UTF-8"
  text
}

# A whole log, parsed; a file that is not JSON is a classed error naming it.
read_log_json <- function(path) {
  tryCatch(parse_log_json(read_text(path), simplifyVector = FALSE),
           error = function(e) {
             abort_pb("The log is not valid JSON (a truncated or unfinished file?).", "json",
                      file = path, parent = e)
           })
}

read_text <- function(path) {
  text <- readChar(path, file.size(path), useBytes = TRUE)
  Encoding(text) <- "UTF-8"
  text
}

# The logs in a folder and its subfolders: Inspect's JSON and `.eval` files.
log_files_in <- function(dir) {
  list.files(dir, pattern = "[.](json|eval)$", full.names = TRUE, recursive = TRUE)
}

# Whether a log file is whole: JSON valid to its end, or an .eval with a finished header.
log_file_valid <- function(path) {
  if (is_eval_log(path)) return(eval_log_valid(path))
  isTRUE(yyjsonr::validate_json_file(path))
}

#' Read a log's samples back, with their metadata
#'
#' `log_samples()` reads a log written by a `ResultsTask` (or any vitals log) into a tibble
#' shaped like the task's `$get_samples()`: `id`, `epoch`, `input`, `target`, the dataset
#' columns the task logged (such as FutureX's `level`), `result`, `solver_metadata`,
#' `score`, `scorer`, `scorer_explanation` and `scorer_metadata`, with metadata restored from
#' its flat form (see `flat_metadata()`). A benchmark's summary gives the same numbers on it
#' as on the live task.
#'
#' [vitals::vitals_log_read()] returns no metadata. Its output is accepted when it already
#' has the columns a summary needs; `dataset` adds the task table's columns by `id`, which
#' is enough for summaries that need only the scores and dataset columns. Scorer metadata
#' can only come from the file.
#'
#' @param x A log file, or a data frame from [vitals::vitals_log_read()].
#' @param dataset For a data frame: the task table whose columns to add by `id`.
#' @returns A tibble with one row per sample and epoch.
#' @noRd
log_samples <- function(x, dataset = NULL) {
  if (is.data.frame(x)) return(log_samples_frame(x, dataset))
  check_string(x)
  if (!file.exists(x)) abort_pb("Can't find the log.", "missing_file", file = x)
  header <- read_log_header(x)
  layout <- header$eval$metadata %||% list()
  layout <- lapply(layout[c("dataset_fields", "solver_json", "scorer_json")],
                   function(x) as.character(unlist(x)))
  # a field that turned JSON text after the first sample (a later chunk's, json_turned() in
  # R/results-eval.R) is read as JSON text from its first such sample on
  from <- lapply(header$eval$metadata[c("solver_json_from", "scorer_json_from")], unlist)
  position <- 0L
  each <- function(sample) {
    position <<- position + 1L
    log_sample_fields(sample, layout = layout_at(layout, from, position))
  }
  # a log of this writer: its samples a line at a time; any other log parsed whole
  rows <- log_sample_lines(x, each)
  if (is.null(rows)) {
    log <- read_log_json(x)
    rows <- lapply(log$samples, each)
    header <- log
  }
  if (!length(rows)) return(tibble::tibble())
  out <- tibble::tibble(
    id = vapply(rows, function(r) r$id, ""),
    epoch = vapply(rows, function(r) r$epoch, 1L),
    input = vapply(rows, function(r) r$input, ""),
    target = vapply(rows, function(r) r$target, "")
  )
  fields <- unique(unlist(lapply(rows, function(r) names(r$dataset))))
  for (field in fields) {
    values <- lapply(rows, function(r) r$dataset[[field]] %||% NA)
    # a list column of the dataset (logged as JSON) stays a list column
    list_column <- field %in% layout$solver_json || any(lengths(values) != 1)
    out[[field]] <- if (list_column) values else unlist(values)
  }
  out$result <- vapply(rows, function(r) r$result, "")
  out$solver_metadata <- lapply(rows, function(r) r$solver)
  out$score <- as_score(unlist(lapply(rows, function(r) r$score %||% NA)))
  out$scorer <- vapply(rows, function(r) r$scorer, "")
  out$scorer_explanation <- vapply(rows, function(r) r$explanation, "")
  out$scorer_metadata <- lapply(rows, function(r) r$scorer_metadata)
  attr(out, "log") <- header[c("eval", "results", "stats")]
  out
}

# A log's samples as the writer lays them out (after the header, "[" alone on its line, then
# one sample a line): a connection at its first sample's line (the caller closes it); "[]"
# for a log without samples; NULL for a log laid out otherwise.
open_sample_lines <- function(path) {
  prefix <- read_log_prefix(path)
  if (!endsWith(prefix, "\n  \"samples\": ")) return(NULL)
  con <- file(path, open = "rb")
  seek(con, nchar(prefix, type = "bytes"))
  first <- readLines(con, n = 1L, warn = FALSE)
  if (identical(first, "[")) return(con)
  close(con)
  if (identical(first, "[]")) "[]"
}

# `each()` of every sample of a log whose samples are one line each (log_writer()), read and
# parsed a chunk of lines at a time, so the log's text is never one string. NULL for a log
# laid out otherwise (pretty-printed samples: vitals', or this package's before issue 37).
log_sample_lines <- function(path, each, lines = 1000L) {
  if (is_eval_log(path)) return(eval_log_samples(path, each))
  con <- open_sample_lines(path)
  if (!inherits(con, "connection")) return(if (identical(con, "[]")) list())
  on.exit(close(con))
  rows <- list()
  repeat {
    chunk <- readLines(con, n = lines, warn = FALSE, encoding = "UTF-8")
    if (!length(chunk)) break
    end <- match("  ]", chunk)
    if (!is.na(end)) chunk <- chunk[seq_len(end - 1L)]
    if (length(chunk) && !startsWith(chunk[[1]], "{")) return(NULL)
    if (length(chunk)) {
      chunk <- sub(",$", "", chunk)
      samples <- tryCatch(
        jsonlite::parse_json(paste0("[", paste(chunk, collapse = ","), "]")),
        error = function(e) {
          abort_pb("The log is not valid JSON (a truncated or unfinished file?).", "json",
                   file = path, parent = e)
        })
      rows <- c(rows, lapply(samples, each))
    }
    if (!is.na(end)) return(rows)
  }
  abort_pb("The log is not valid JSON (a truncated or unfinished file?).", "json", file = path)
}

# The number of samples of a log whose samples are one line each (log_writer()), counted
# without parsing them: in valid JSON a sample's line breaks are escaped, so the lines between
# the samples' "[" and "  ]" are the samples. NULL for a log laid out otherwise.
log_sample_line_count <- function(path, lines = 10000L) {
  if (is_eval_log(path)) return(eval_sample_count(path))
  con <- open_sample_lines(path)
  if (!inherits(con, "connection")) return(if (identical(con, "[]")) 0L)
  on.exit(close(con))
  n <- 0L
  repeat {
    chunk <- readLines(con, n = lines, warn = FALSE)
    if (!length(chunk)) return(NULL)
    end <- match("  ]", chunk)
    samples <- if (is.na(end)) chunk else chunk[seq_len(end - 1L)]
    # a sample pretty-printed (vitals' layout) spans lines that start with spaces
    if (!all(startsWith(samples, "{"))) return(NULL)
    n <- n + length(samples)
    if (!is.na(end)) return(n)
  }
}

# The layout of the sample at `position` in the log: without the fields that turn JSON text
# only in a later sample (`from`: the header's `solver_json_from` and `scorer_json_from`).
layout_at <- function(layout, from, position) {
  for (step in c("solver", "scorer")) {
    later <- from[[paste0(step, "_json_from")]]
    later <- names(later)[later > position]
    key <- paste0(step, "_json")
    if (length(later)) layout[[key]] <- setdiff(layout[[key]], later)
  }
  layout
}

log_sample_fields <- function(sample, layout) {
  meta <- sample$metadata %||% list()
  unscored <- meta[[unscored_field]]
  meta[[unscored_field]] <- NULL
  meta <- restore_metadata(meta, json = layout$solver_json)
  dataset <- meta[intersect(layout$dataset_fields, names(meta))]
  solver <- meta[setdiff(names(meta), names(dataset))]
  score <- if (length(sample$scores)) sample$scores[[1]] else list()
  if (!length(sample$scores) && is.character(unscored)) {
    score <- jsonlite::parse_json(unscored)
    sample$scores <- stats::setNames(list(score), score$scorer)
  }
  scorer_meta <- score$metadata %||% list()
  scorer_meta$grading <- NULL
  # the input and the answer may be references to the sample's attachments (condense_sample())
  attached <- function(x) resolve_attachment(x, sample$attachments)
  list(
    id = as.character(sample$id), epoch = as.integer(sample$epoch %||% 1L),
    input = log_text(attached(sample$input)),
    target = paste(unlist(sample$target), collapse = "\n"),
    dataset = dataset, solver = solver,
    result = as.character(attached(score$answer) %||% NA_character_),
    score = score$value,
    scorer = names(sample$scores)[1] %||% NA_character_,
    explanation = as.character(score$explanation %||% NA_character_),
    scorer_metadata = restore_metadata(scorer_meta, json = layout$scorer_json)
  )
}

# A text, or the attachment it refers to ("attachment://<key>"), at any depth of a list
# (an input given as messages).
resolve_attachment <- function(x, attachments) {
  if (is.character(x) && length(x) == 1 && !is.na(x) && startsWith(x, "attachment://")) {
    return(attachments[[substring(x, 14L)]] %||% x)
  }
  if (is.list(x) && length(attachments)) return(lapply(x, resolve_attachment, attachments))
  x
}

# The sample metadata field that keeps an unscored sample's answer, explanation and scorer
# metadata (JSON text), since Inspect takes no score without a number.
unscored_field <- "unscored_score"

# A sample's input is a string, or a list of messages whose content is a string or blocks.
log_text <- function(input) {
  if (is.character(input)) return(paste(input, collapse = "\n"))
  texts <- unlist(lapply(input, function(message) {
    content <- message$content
    if (is.character(content)) return(content)
    vapply(Filter(function(b) identical(b$type, "text"), content), function(b) b$text, "")
  }))
  paste(texts, collapse = "\n")
}

# vitals::vitals_log_read() output: a sample's columns without vitals' `scorer` column, which
# every scored task's $get_samples() and log_samples() of a file have.
is_log_read <- function(x) {
  all(c("id", "epoch", "input", "target", "result", "score", "solver_chat") %in% names(x)) &&
    !"scorer" %in% names(x)
}

log_samples_frame <- function(x, dataset) {
  if (!all(c("id", "score") %in% names(x))) {
    abort_pb("{.arg x} must be a log file or {.fn vitals::vitals_log_read} output.", "argument")
  }
  out <- tibble::as_tibble(x)
  out$id <- as.character(out$id)
  out$score <- as_score(out$score)
  if (is.null(dataset)) return(out)
  if (!is.data.frame(dataset) || !"id" %in% names(dataset)) {
    abort_pb("{.arg dataset} must be a task table with an {.field id} column.", "argument")
  }
  extra <- setdiff(names(dataset), names(out))
  rows <- match(out$id, as.character(dataset$id))
  if (anyNA(rows)) {
    abort_pb("Sample {.val {out$id[is.na(rows)][1]}} is not in {.arg dataset}.", "argument",
             field = "id")
  }
  for (column in extra) out[[column]] <- dataset[[column]][rows]
  out
}

#' Model usage recorded in a log
#'
#' The header's model usage of a log, one row per model: input and output tokens and, when
#' known, the cost in dollars. For a `ResultsTask` log it counts every request the solver and
#' the scorer made (all votes, judge calls and log-probability requests), and nothing for
#' cached answers, as `$get_cost()` does.
#'
#' @param path A log file.
#' @returns A tibble: `model`, `input_tokens`, `output_tokens`, `total_cost`.
#' @noRd
log_usage <- function(path) {
  check_string(path)
  header <- read_log_header(path)
  usage <- header$stats$model_usage %||% list()
  tibble::tibble(
    model = names(usage) %||% character(),
    input_tokens = unname(vapply(usage, function(u) as.double(u$input_tokens %||% 0), 1)),
    output_tokens = unname(vapply(usage, function(u) as.double(u$output_tokens %||% 0), 1)),
    total_cost = unname(vapply(usage, function(u) as.double(u$total_cost %||% NA), 1))
  )
}
