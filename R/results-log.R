# The log a ResultsTask writes, in Inspect AI's EvalLog shape: written as the run goes
# (log_writer(): each sample appended to a hidden part file as one compact line, the header
# written at the end and the finished file moved into place; write_log() for a whole log),
# then read back (log_samples(), log_usage(), read_log_header()).
#
# What differs from the log vitals (0.4.0) writes, and why:
# * Numbers: vitals writes with jsonlite's default `digits = 4` (a score of 0.8333333 is
#   logged as 0.8333). Here scores, metrics and numeric metadata are exact (exact_json()).
# * Metadata: vitals writes a sample's `solver_metadata` as one key whose value is lines of
#   `str()` output. Here it is flat key-value pairs (flat_metadata()), read back by
#   log_samples().
# * Usage: vitals counts the solver chats only, under the first chat's model. Here each
#   sample's `model_usage` has every request of the sample per model (votes, judge calls,
#   log-probability requests, from the solver's and scorer's metadata), and the header's is
#   their sum (run_usage()).
# * Inspect's reader: vitals writes `eval.dataset.sample_ids` as 1..n and `null` where a
#   number is `NA`. Here the ids are the samples' own, the headline metric keeps its place,
#   first (the viewer's log list shows the first), with the value "NaN" when it is undefined
#   (`NA`: ProcessBench's F1 with no valid vote; see metric_json()), other undefined metrics
#   are left out, and all are named in `eval.metadata.not_computed`; a sample whose score is
#   `NA` has no `scores`
#   (Inspect's "unscored"), its answer and explanation kept in its metadata field `unscored`
#   (JSON text).
# * Size: vitals pretty-prints every sample and writes each long text up to four times. Here
#   samples are compact, one line each, and condensed (condense_sample()): each text of more
#   than 100 characters once, in the sample's attachments; a FutureX-shaped sample takes
#   ~2.1 KB instead of 8.3 KB (bench/eval-size.R, bench/log-size.R).
# * Translation: a sample whose chat is a prompt and a text answer is written straight from
#   its two turns (direct_samples()), as vitals' translators would write it; others go
#   through vitals' translators (vitals_translate_samples()).
# * Times: to the microsecond, as Inspect writes them (vitals: to the second).

#' Flatten metadata into the key-value fields the viewer shows
#'
#' vitals writes a sample's `solver_metadata` and `scorer_metadata` as lines of R's `str()`
#' output when they are nested lists. `flat_metadata()` turns one sample's metadata into
#' flat named scalars instead: numbers, strings and logicals stay as they are (factors and
#' dates become strings), `NULL` becomes `NA`, and anything longer than one value (a vector
#' of votes, a list) becomes a JSON string. The names of the JSON fields are kept in the
#' `"json"` attribute, so `restore_metadata()` can turn them back into R values.
#' `ResultsTask` does this for every sample when it writes its log.
#'
#' @param x A named list (one sample's metadata). `NULL` gives an empty list.
#' @returns A named list of length-one values, with attribute `json` (the names of the
#'   fields that hold JSON text).
#' @noRd
flat_metadata <- function(x) {
  if (is.null(x)) x <- list()
  if (!is.list(x) || (length(x) && is.null(names(x)))) {
    abort_pb("{.arg x} must be a named list.", "argument")
  }
  json <- character()
  out <- lapply(names(x), function(name) {
    value <- x[[name]]
    if (is.null(value)) return(NA)
    if (is.factor(value)) value <- as.character(value)
    if (inherits(value, c("Date", "POSIXt"))) value <- format(value)
    if (is.atomic(value) && length(value) == 1 && is.null(dim(value))) {
      return(unclass(value))
    }
    json <<- c(json, name)
    metadata_json(value)
  })
  names(out) <- names(x)
  attr(out, "json") <- json
  out
}

# JSON text of a metadata value that reads back as the same R value: numbers exactly (see
# exact_number_json()), Inf, -Inf and NaN as the strings jsonlite reads back as numbers, NA
# as null. jsonlite's toJSON(digits = NA) keeps 15 significant digits and writes -Inf as null.
metadata_json <- function(value) {
  if (is.numeric(value) && is.null(dim(value)) && !is.object(value)) {
    text <- exact_number_json(value)
    odd <- is.infinite(value) | is.nan(value)
    # "Inf", "-Inf" and "NaN" need no escaping; jsonlite reads them back as numbers
    text[odd] <- paste0("\"", as.character(value[odd]), "\"")
    return(paste0("[", paste(text, collapse = ","), "]"))
  }
  as.character(jsonlite::toJSON(value, digits = NA, na = "null", null = "null"))
}

#' @param flat A list from `flat_metadata()` (or read from a log).
#' @param json Names of the fields holding JSON text; by default the `json` attribute.
#' @noRd
restore_metadata <- function(flat, json = attr(flat, "json")) {
  out <- lapply(names(flat), function(name) {
    value <- flat[[name]]
    if (name %in% json && is.character(value) && !is.na(value)) {
      return(jsonlite::fromJSON(value, simplifyVector = TRUE))
    }
    if (is.null(value)) NA else value
  })
  names(out) <- names(flat)
  out
}

# Numbers as JSON text that reads back as the same double: 15 significant digits when that
# is exact, 17 otherwise; NA is null. jsonlite's `digits = NA` stops at 15 digits (1/3 would
# read back as another double), so numbers whose value matters to the last digit (scores,
# headline metrics, numeric metadata) are handed to the serializer as this text, marked as JSON
# for its `json_verbatim` option.
exact_number_json <- function(x) {
  x <- as.double(x)
  out <- rep("null", length(x))
  finite <- is.finite(x)
  short <- sprintf("%.15g", x[finite])
  inexact <- as.double(short) != x[finite]
  short[inexact] <- sprintf("%.17g", x[finite][inexact])
  out[finite] <- short
  out
}

exact_json <- function(x) structure(exact_number_json(x), class = "json")

# A metric's value for the log: exact, and the string "NaN" when undefined, so the metric
# keeps its place (the viewer shows the first metric as the log's number) with no number.
# Why a string and not the literal `NaN` Inspect writes: vitals_view()'s server parses log
# headers with jsonlite, which can't read `NaN`; one such log blanks the log list of the whole
# folder (model, score, status of every log), and vitals_log_read() fails on it. The string
# is read by jsonlite, shown as "-" in the log list, and read by Inspect's reader as NaN
# (pydantic takes a number's text for a float field); only vitals' log page (which calls
# toFixed() on every metric) fails on it, so it is written for the headline only. Not
# `null`: Inspect rejects a null metric.
metric_json <- function(x) {
  text <- exact_number_json(x)
  text[is.na(x)] <- "\"NaN\""
  structure(text, class = "json")
}

# A metric's `"value": NaN` as Inspect itself writes it (a log from Inspect AI in a folder).
nan_metric <- "\"value\": NaN"

# Log text parsed with jsonlite, which can't read `NaN`: a metric's `"value": NaN` (an
# Inspect AI log's) is read as the string "NaN" (as.double() gives NaN). A `"value": NaN`
# inside a string can't match: a quote inside a JSON string is escaped.
parse_log_json <- function(text, ...) {
  if (grepl(nan_metric, text, fixed = TRUE)) {
    text <- gsub(nan_metric, "\"value\": \"NaN\"", text, fixed = TRUE)
  }
  jsonlite::parse_json(text, ...)
}

# A flat metadata list (see flat_metadata()) ready for the log: every double that 15 digits
# would not give back exactly becomes exact JSON text; an empty list stays a JSON object.
exact_fields <- function(flat) {
  attr(flat, "json") <- NULL
  if (!length(flat)) return(empty_object())
  doubles <- vapply(flat, is.double, TRUE)
  for (k in which(doubles)) {
    value <- flat[[k]]
    if (is.finite(value) && as.double(sprintf("%.15g", value)) != value) {
      flat[[k]] <- exact_json(value)
    }
  }
  flat
}

empty_object <- function() structure(list(), names = character())

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
log_file_name <- function(created, task_id) {
  parts <- gsub("[_/:]", "-", c(created, task_id))
  portable_file_name(parts, ext = ".json", sep = "_", max_part = 200L)
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
log_writer <- function(dir, task_id, created = log_timestamp(), stale = c("keep", "remove")) {
  check_string(dir)
  check_string(task_id)
  check_string(created)
  stale <- rlang::arg_match(stale)
  check_log_dir(dir)
  if (stale == "remove") remove_stale_log_parts(dir, task_id)
  name <- log_file_name(created, task_id)
  w <- new.env(parent = emptyenv())
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
  w
}

#' @noRd
log_writer_add <- function(w, samples) {
  check_writer_open(w)
  if (!length(samples)) return(invisible(w))
  opts <- sample_json_options()
  lines <- vapply(samples, sample_json, "", opts = opts)
  # the part file is the log's samples array as it will stand, a sample a line, the commas
  # between them written as they come: finished, it is copied into the log as it is
  # (copy_log(): by the system, so that copying a log of 20,000 samples costs R no memory)
  separator <- if (w$n == 0L) "\n" else ",\n"
  # a write that fails leaves half a line: the writer takes nothing more
  w$state <- "broken by a failed write"
  write_log_text(w$part, paste0(separator, paste(lines, collapse = ",\n")), append = TRUE,
                 dir = w$dir)
  w$state <- "open"
  w$n <- w$n + length(samples)
  invisible(w)
}

#' @noRd
log_writer_finish <- function(w, header) {
  check_writer_open(w)
  header$samples <- NULL
  json <- json_text(nulls_as_objects(header), opts = log_json_options())
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

# One sample as one line of compact JSON (a newline inside a string is escaped), condensed.
# A sample direct_samples() wrote is condensed already (but for the usage log_sample() set)
# and holds no NULL (written as {}).
sample_json <- function(sample, opts = sample_json_options()) {
  if (!isTRUE(attr(sample, "predictivebench_direct"))) {
    sample <- nulls_as_objects(condense_sample(sample))
  } else if (length(sample$model_usage)) {
    sample$model_usage <- lapply(sample$model_usage, lean_usage)
  }
  json_text(sample, opts = opts)
}

# yyjson's JSON text of `x`, marked as the UTF-8 it is. (yyjsonr returns its bytes unmarked:
# enc2utf8() would then read them in the session's encoding, and in a C locale, as in a
# container or a cron job without LANG, write "<e3><80><81>" for each "\u3001".)
json_text <- function(x, opts) {
  json <- yyjsonr::write_json_str(x, opts = opts)
  Encoding(json) <- "UTF-8"
  json
}

# A sample without the texts and events it holds twice (issue 37: a FutureX-shaped sample
# took 8.3 KB pretty-printed, its prompt written three times and its answer four):
# * `messages`: a text of more than 100 characters becomes an `attachment://<hash>`
#   reference to the sample's `attachments`, as vitals (condense_sample()) and Inspect
#   already do in events, with vitals' key (rlang::hash()), so the prompt's attachment is the
#   one the events refer to. The sample's `input` and its score's `answer` stay plain: the
#   viewer shows them in its sample list and score panel without resolving references
#   (vitals' reader and log_samples() resolve references anywhere, Inspect's viewer only in
#   the `input`, `messages` and `events` of the sample it opens). So the prompt is stored
#   twice: once where the list shows it, once where the messages and events refer to it.
# * Model events lose `call`: vitals' restatement of the event's own input and output as a
#   provider's request and response (made up: an Anthropic-shaped reply for every provider).
# * `output` is left out (Inspect's default, an empty ModelOutput): the last assistant
#   message and the model event's output hold it; neither the viewer nor vitals' reader
#   reads it.
# * The `sample_init` event and the "init" step around it are left out: they restate the
#   sample's input, target and id; the viewer hides sample_init by default and needs neither.
# * The solver's step events (begin and end of "generate") are left out: they hold a name
#   and the model event's timestamp. The scorer's stay: vitals' reader splits the solver's
#   model events from the scorer's at the scorer step.
# * Usage counts of cache reads and writes that are 0 (Inspect's default) are left out, and
#   times are rounded to the microsecond (0.5990000000000002 s is 0.599 s); a model event's
#   `completed`, when it is its `timestamp` again, is left out.
# * The epoch is an integer, as Inspect writes it.
condense_sample <- function(sample) {
  attachments <- attachment_pool(sample$attachments, referred = TRUE)
  refer <- attachments$refer
  # `input` and a score's `answer` stay plain: the viewer shows them in its sample list and
  # score panel without resolving attachments
  if (length(sample$messages)) {
    sample$messages <- lapply(sample$messages, condense_message, refer = refer)
  }
  sample$output <- NULL
  if (length(sample$events)) sample$events <- condense_events(sample$events)
  # vitals' events refer to its own (longer) keys of the same texts
  pool <- attachments$texts()
  if (length(pool)) {
    names(pool) <- substr(names(pool), 1, attachment_key_chars)
    pool <- pool[!duplicated(names(pool))]
  }
  sample$events <- shorter_keys(sample$events)
  if (length(sample$model_usage)) sample$model_usage <- lapply(sample$model_usage, lean_usage)
  if (is.double(sample$epoch) && length(sample$epoch) == 1 && isTRUE(sample$epoch %% 1 == 0)) {
    sample$epoch <- as.integer(sample$epoch)
  }
  if (length(pool)) sample$attachments <- sorted_attachments(pool)
  sample
}

condense_message <- function(message, refer) {
  content <- message$content
  if (is.character(content)) {
    message$content <- refer(content)
  } else if (is.list(content)) {
    message$content <- one_text(lapply(content, function(block) {
      if (!is.list(block)) return(block)
      if (identical(block$type, "text")) block$text <- refer(block$text)
      if (identical(block$type, "reasoning")) block$reasoning <- refer(block$reasoning)
      block
    }))
  }
  message
}

# A content of one text block is written as the text itself, as Inspect writes a plain reply.
one_text <- function(content) {
  if (length(content) == 1 && is.list(content[[1]]) &&
      identical(names(content[[1]]), c("type", "text")) &&
      identical(content[[1]]$type, "text")) {
    return(content[[1]]$text)
  }
  content
}

# A model event's messages are the sample's messages again: their ids, sources and model
# (optional in Inspect's schema) are said once, in `messages`.
event_message <- function(message) {
  if (!is.list(message)) return(message)
  message$id <- NULL
  message$source <- NULL
  message$model <- NULL
  if (is.list(message$content)) message$content <- one_text(message$content)
  message
}

# Attachment references cut to attachment_key()'s length, at any depth.
shorter_keys <- function(x) {
  if (is.character(x) && length(x) == 1 && !is.na(x) && startsWith(x, "attachment://")) {
    return(substr(x, 1, nchar("attachment://") + attachment_key_chars))
  }
  if (!is.list(x)) return(x)
  out <- lapply(x, shorter_keys)
  names(out) <- names(x)
  out
}

condense_events <- function(events) {
  kind <- vapply(events, function(e) as.character(e$event %||% ""), "")
  name <- vapply(events, function(e) as.character(e$name %||% "")[1], "")
  type <- vapply(events, function(e) as.character(e$type %||% "")[1], "")
  events <- events[!(kind == "sample_init" | (kind == "step" & (name == "init" | type == "solver")))]
  lapply(events, function(e) {
    if (!identical(e$event, "model")) return(e)
    e$call <- NULL
    if (is.list(e$input)) e$input <- lapply(e$input, event_message)
    if (is.list(e$output) && is.list(e$output$choices)) {
      e$output$choices <- lapply(e$output$choices, function(choice) {
        if (is.list(choice)) choice$message <- event_message(choice$message)
        choice
      })
    }
    # vitals makes `completed` the event's own timestamp (its duration is `working_time`)
    if (identical(e$completed, e$timestamp)) e$completed <- NULL
    e$working_time <- microseconds(e$working_time)
    if (is.list(e$output)) {
      e$output$time <- microseconds(e$output$time)
      if (is.list(e$output$usage)) e$output$usage <- lean_usage(e$output$usage)
    }
    e
  })
}

microseconds <- function(x) if (is.double(x)) round(x, 6) else x

lean_usage <- function(usage) {
  if (!is.list(usage)) return(usage)
  for (field in c("input_tokens_cache_write", "input_tokens_cache_read")) {
    value <- usage[[field]]
    if (is.numeric(value) && length(value) == 1 && !is.na(value) && value == 0) {
      usage[[field]] <- NULL
    }
  }
  usage
}

sample_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE)
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
  ours <- same_task_log(task, task_id) & endsWith(name, ".json") & name != files
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
  exact <- paste0(portable_part(gsub("[_/:]", "-", task_id), max_part = 200L), ".json")
  if (!grepl("/", task_id, fixed = TRUE)) return(names == exact)
  stem <- sub("/[^/]*$", "", task_id)
  prefix <- paste0(portable_part(gsub("[_/:]", "-", stem), max_part = 200L), "-")
  names == exact | startsWith(names, prefix)
}

# The log a hidden file of the writer belongs to: ".<name>.part", ".<name>-<random>".
log_name_of <- function(files) {
  files <- basename(files)
  ifelse(endsWith(files, ".json.part"), sub("^\\.(.*)\\.part$", "\\1", files),
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

log_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE)
}

# A NULL inside the log becomes an empty object, as jsonlite (and so vitals) writes it: the
# fields vitals leaves NULL (a sample's `store`, a message's `metadata`) are objects in
# Inspect's schema, and yyjson would write null.
nulls_as_objects <- function(x) {
  if (!is.list(x) || is.data.frame(x) || !length(x)) return(x)
  # (a loop over the elements that have a length: twice as fast as vapply() over all of
  # them, and this walks every sample of a log)
  len <- lengths(x, use.names = FALSE)
  for (k in which(len == 0L)) if (is.null(x[[k]])) x[k] <- list(empty_object())
  for (k in which(len > 0L)) {
    value <- x[[k]]
    if (is.list(value) && !is.data.frame(value)) x[[k]] <- nulls_as_objects(value)
  }
  x
}

# A time as Inspect writes it: ISO 8601 to the microsecond, the offset as +hh:mm. To the
# second only (as vitals writes it), a run under a second started and completed at the same
# time: the viewer, which takes a log's duration from `stats.started_at` and
# `stats.completed_at`, showed 0.0 s for every set cell (issue 36).
log_timestamp <- function(time = Sys.time()) {
  stamp <- format(time, "%Y-%m-%dT%H:%M:%OS6%z")
  sub("([+-][0-9]{2})([0-9]{2})$", "\\1:\\2", stamp)
}

# The log's header: everything but the samples. A log written pretty-printed (by vitals or
# here) has its samples after the header at two spaces' indent, so only the text before
# them is parsed; any other JSON log is parsed whole. A file that is not JSON (a truncated
# log) is an error of class `predictivebench_error_json` naming it.
read_log_header <- function(path) {
  if (!file.exists(path)) abort_pb("Can't find the log.", "missing_file", file = path)
  text <- read_log_prefix(path)
  at <- regexpr("\n  \"samples\": ", text, fixed = TRUE)
  json <- if (at > 0) paste0(sub(",\\s*$", "", substr(text, 1, at - 1)), "\n}") else text
  header <- tryCatch(parse_log_json(json),
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

# The key of a sample's attachment: 64 bits of the text's hash are plenty within one sample
# (its own attachments), and each key is written three times or more
attachment_key <- function(text) substr(rlang::hash(text), 1, attachment_key_chars)
attachment_key_chars <- 16L

# A sample's attachments as its texts are condensed: `refer(text)` gives a text of more than
# 100 characters as an "attachment://<key>" reference to the pool (which starts as `pool`),
# any other value as it is; `texts()` is the pool. With `referred = TRUE` a text that is a
# reference already (vitals' events) stays one; a model's own text is always referred to.
attachment_pool <- function(pool = NULL, referred = FALSE) {
  pool <- pool %||% list()
  refer <- function(text) {
    if (!is.character(text) || length(text) != 1 || is.na(text) || nchar(text) <= 100 ||
        (referred && startsWith(text, "attachment://"))) {
      return(text)
    }
    key <- attachment_key(text)
    pool[[key]] <<- text
    paste0("attachment://", key)
  }
  list(refer = refer, texts = function() pool)
}

# Attachments in the order of their keys (a log is the same text whatever the order its
# texts were met in); none is an empty object.
sorted_attachments <- function(pool) {
  if (length(pool)) pool[order(names(pool))] else empty_object()
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

#' A task's cost by model, as logged
#'
#' `task_usage()` sums a task's `$get_cost()` per model (solver and scorer together), naming
#' models as the log does (`"<provider>/<model>"`), so it can be compared with `log_usage()`.
#'
#' @param task An evaluated [vitals::Task].
#' @returns A tibble: `model`, `input_tokens`, `output_tokens`, `total_cost`.
#' @noRd
task_usage <- function(task) {
  if (!inherits(task, "Task")) abort_pb("{.arg task} must be a vitals Task.", "argument")
  cost <- task$get_cost()
  if (is.null(cost) || !nrow(cost)) {
    return(tibble::tibble(model = character(), input_tokens = double(),
                          output_tokens = double(), total_cost = double()))
  }
  model <- paste0(provider_label(cost$provider), "/", cost$model)
  price <- if ("price" %in% names(cost)) {
    suppressWarnings(as.double(gsub("[$,]", "", cost$price)))
  } else {
    rep(NA_real_, nrow(cost))
  }
  keys <- unique(model)
  tibble::tibble(
    model = keys,
    input_tokens = vapply(keys, function(k) sum(cost$input[model == k]), 1, USE.NAMES = FALSE),
    output_tokens = vapply(keys, function(k) sum(cost$output[model == k]), 1, USE.NAMES = FALSE),
    total_cost = vapply(keys, function(k) sum(price[model == k]), 1, USE.NAMES = FALSE)
  )
}

# vitals names a model "<provider>/<model>" with the provider's name lower-cased and
# non-alphanumerics as "_" (chat_provider_model()); the same here.
provider_label <- function(name) {
  prefix <- tolower(gsub("[^[:alnum:]]+", "_", name))
  prefix[prefix == "lm_studio"] <- "lmstudio"
  prefix[prefix == "portkeyai"] <- "portkey"
  prefix
}

chat_model_label <- function(chat) {
  paste0(provider_label(chat$get_provider()@name), "/", chat$get_model())
}

# ---- a log's samples straight from their chats (issue 37) -----------------------------------
# vitals' translators (vitals_translate_samples()) cost ~2 ms a sample: they walk each chat's
# turns several times, build events the log then drops (the sample's init, the solver's
# steps, the provider's `call`) and draw every id from R's random stream. Most samples are a
# prompt and one text answer; for a chunk of those, direct_samples() writes the sample the
# condensed translation gives (condense_sample(): the same fields in the same order, each
# text of more than 100 characters an attachment) in one pass over each chat's two turns.
# Any other chunk (tools, reasoning, images, several turns, a scorer's chat) goes through
# vitals' translators. test-results-log.R compares both on the same samples.

# The samples of `rows` (a chunk of scored samples whose `solver_chat` carries the logged
# usage), or NULL when a chat is other than a prompt and a text answer. `scorer` is the
# scorer's name, `timestamps` the chunk's (vitals_log_state()).
direct_samples <- function(rows, scorer, timestamps) {
  if ("scorer_chat" %in% names(rows)) return(NULL)
  chats <- rows$solver_chat
  turns <- lapply(chats, function(chat) chat$get_turns())
  if (!all(vapply(turns, is_prompt_and_answer, TRUE))) return(NULL)
  n <- length(chats)
  ids <- message_ids(4L * n + sum(vapply(chats, has_system_prompt, TRUE)))
  next_id <- 0L
  id <- function() {
    next_id <<- next_id + 1L
    ids[[next_id]]
  }
  stamp <- log_timestamp(timestamps$solve$started_at)
  stop_reason <- vitals_internal("turn_stop_reason")
  models <- direct_models(chats)
  has_epoch <- "epoch" %in% names(rows)
  has_explanation <- "scorer_explanation" %in% names(rows)
  start <- 0
  lapply(seq_len(n), function(i) {
    attachments <- attachment_pool()
    refer <- attachments$refer
    chat <- chats[[i]]
    model <- models$model[[i]]
    prompt <- turns[[i]][[1]]
    answer <- turns[[i]][[2]]
    question <- refer(S7::prop(prompt, "text"))
    blocks <- lapply(S7::prop(answer, "contents"), function(content) {
      list(type = "text", text = refer(S7::prop(content, "text")))
    })
    if (!length(blocks)) blocks <- list(list(type = "text", text = refer(S7::prop(answer, "text"))))
    # one text is written as the message's content itself, as Inspect writes a plain reply
    if (length(blocks) == 1) blocks <- blocks[[1]]$text
    system <- chat$get_system_prompt()
    messages <- list(
      list(id = id(), content = question, source = "input", role = "user"),
      list(id = id(), content = blocks, source = "generate", model = model, role = "assistant")
    )
    if (!is.null(system)) {
      messages <- c(list(list(id = id(), content = refer(system), role = "system")), messages)
    }
    # vitals' working times: each answer's duration, started where the chunk's answers
    # before it ended
    took <- S7::prop(answer, "duration")
    took <- if (length(took) == 1 && !is.na(took)) took else 0
    event <- list(
      timestamp = stamp, working_start = start, event = "model",
      model = models$label[[i]],
      # the event's messages are the sample's again: content and role only (ids, sources
      # and the model are optional in Inspect's schema and said by the messages above)
      input = list(list(content = question, role = "user")),
      tools = list(), tool_choice = "none", config = models$config[[i]],
      output = list(
        model = model,
        choices = list(list(
          message = list(content = blocks, role = "assistant"),
          stop_reason = stop_reason(answer)
        )),
        usage = event_usage(S7::prop(answer, "tokens")), time = microseconds(took)
      ),
      working_time = microseconds(took)
    )
    start <<- start + took
    score <- list(
      value = rows$score[[i]], answer = as.character(rows$result[[i]]),
      explanation = if (has_explanation) rows$scorer_explanation[[i]] %||% scorer else scorer,
      metadata = list()
    )
    # (no NULL anywhere: the sample is written without nulls_as_objects(), see sample_json())
    structure(list(
      id = rows$id[[i]], epoch = if (has_epoch) as.integer(rows$epoch[[i]]) else 1L,
      input = S7::prop(prompt, "text"), target = as.character(rows$target[[i]]),
      messages = messages,
      scores = stats::setNames(list(score), scorer), metadata = empty_object(),
      store = empty_object(), events = list(event), model_usage = empty_object(),
      attachments = sorted_attachments(attachments$texts())
    ), predictivebench_direct = TRUE)
  })
}

# Whether a chat's turns are a prompt and one answer, both text only.
is_prompt_and_answer <- function(turns) {
  length(turns) == 2L && S7::prop(turns[[1]], "role") == "user" &&
    S7::prop(turns[[2]], "role") == "assistant" &&
    all(vapply(S7::prop(turns[[1]], "contents"), is_plain_text, TRUE)) &&
    all(vapply(S7::prop(turns[[2]], "contents"), is_plain_text, TRUE))
}

is_plain_text <- function(content) identical(class(content)[[1]], "ellmer::ContentText")

has_system_prompt <- function(chat) !is.null(chat$get_system_prompt())

# Inspect's ModelUsage of one answer (vitals' turn_tokens(), the counts of cache reads and
# writes left out when 0 as lean_usage() leaves them).
event_usage <- function(tokens) {
  tokens <- as.integer(zero_na(c(tokens, 0, 0, 0)[1:3]))
  usage <- list(input_tokens = tokens[[1]])
  if (tokens[[3]] != 0L) usage$input_tokens_cache_read <- tokens[[3]]
  usage$output_tokens <- tokens[[2]]
  usage
}

# Each chat's model, its label as vitals writes it ("<provider>/<model>") and the model
# event's `config` (the request's max_tokens, when set), worked out once per provider and model.
direct_models <- function(chats) {
  model <- vapply(chats, function(chat) chat$get_model(), "")
  provider <- vapply(chats, function(chat) S7::prop(chat$get_provider(), "name"), "")
  key <- paste(provider, model, sep = "\r")
  first <- match(unique(key), key)
  params <- vitals_internal("chat_model_params")
  label <- vitals_internal("chat_provider_model")
  configs <- lapply(chats[first], function(chat) {
    max_tokens <- params(chat)$max_tokens
    if (is.null(max_tokens)) empty_object() else list(max_tokens = max_tokens)
  })
  labels <- vapply(chats[first], label, "")
  at <- match(key, unique(key))
  list(model = model, label = labels[at], config = configs[at])
}

# `n` message ids, unique within a log, drawn without touching R's random stream: Inspect's
# are 22 characters, as these (a run-wide random stem, then a counter).
message_ids <- function(n) {
  if (n == 0L) return(character())
  stem <- substr(unique_id(), 1, 13)
  sprintf("%s%09d", stem, seq_len(n))
}
