# Converting a log between the package's JSON and Inspect AI's `.eval` (issue 46), as
# `inspect log convert` does: streaming, the samples' text kept, so a log converted and
# converted back is the original.

#' Convert logs between JSON and Inspect AI's `.eval`
#'
#' Turns logs into the other format, as `inspect log convert` does: a JSON log (the
#' package's, or vitals') into Inspect AI's `.eval` zip, or an `.eval` (the package's, or one
#' Inspect wrote) into a JSON log. The header is read without the samples and the samples
#' are converted a batch at a time, so a log of any size converts in bounded memory. Each
#' sample's JSON text is kept as it is: a package JSON log converted to `.eval` and back is
#' the original, byte for byte.
#'
#' `vitals::vitals_view()` lists only `.json` logs (vitals 0.4.0, CRAN's newest in December
#' 2026): convert a folder of `.eval` logs into a JSON view folder and view that,
#' `log_convert("logs", to = "json", dest = "logs-view"); vitals::vitals_view("logs-view")`.
#'
#' @param path A log file, or a folder of logs (every finished log in it of the other
#'   format is converted; unfinished and hidden part files are skipped).
#' @section Log formats:
#' `"json"` (the default) or `"eval"`: a run's `log_format` (`tsk$eval(log_format = "eval")`),
#' else the option `predictivebench.log_format`, for `$eval()`, [eval_set()] and [arena_run()].
#' A log path's extension (`dest` here) chooses the format; a format that differs (`to`) is
#' an error of class `predictivebench_error_log_format` naming both. Readers take both.
#'
#' @param to The format to write: `"eval"` or `"json"`; by default the extension of `dest`
#'   when it names a file, else `"eval"`.
#' @param dest The folder the converted logs are written in (created if missing); each keeps
#'   its file name with the new extension. Or, for one log, the converted file's path, ending
#'   `.eval` or `.json`. Nothing is written outside `dest`, and a file already there is not
#'   overwritten.
#' @return The paths of the converted logs, invisibly.
#' @seealso [leaderboard()], which reads both formats, and the option
#'   `predictivebench.log_format` (or `log_format =` of a run) to write `.eval` directly.
#' @examples
#' dir <- tempfile()
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = dir)
#' tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE)
#' evals <- log_convert(tsk$log_path, to = "eval", dest = file.path(dir, "eval"))
#' back <- log_convert(evals, to = "json", dest = file.path(dir, "json"))
#' identical(readLines(back), readLines(tsk$log_path))
#' @export
log_convert <- function(path, to = c("eval", "json"), dest) {
  check_string(path)
  check_string(dest)
  # `dest` a file's path (not a folder there already): its extension is the format
  to <- if (missing(to)) NULL else rlang::arg_match(to)
  named <- !dir.exists(dest) && !is.null(log_path_format(dest))
  to <- if (named) log_path_format(dest, to, field = "to") else to %||% "eval"
  if (!file.exists(path)) {
    abort_pb("There is no log at {.file {path}}.", "argument", file = path, field = "path")
  }
  from <- if (to == "eval") "json" else "eval"
  files <- if (dir.exists(path)) log_files_of_format(path, from) else path
  if (!dir.exists(path) && !identical(tolower(tools::file_ext(path)), from)) {
    abort_pb("{.arg path} must be a {.file .{from}} log to convert to {.val {to}}.",
             "argument", file = path, field = "path")
  }
  if (named && dir.exists(path)) {
    abort_pb("{.arg dest} names a file: give a folder for a folder.", "argument", file = dest)
  }
  check_log_dir(if (named) dirname(dest) else dest)
  out <- if (named) dest else file.path(dest, paste0(tools::file_path_sans_ext(basename(files)),
                                                     ".", to))
  there <- file.exists(out)
  if (any(there)) {
    abort_pb("{.file {out[there]}} exists already: convert into another {.arg dest}.",
             "argument", file = out[there][[1]], field = "dest")
  }
  convert <- if (to == "eval") log_convert_to_eval else log_convert_to_json
  for (k in seq_along(files)) convert(files[[k]], out[[k]])
  invisible(out)
}

# The finished logs of a folder in one format (a part file is hidden, so not listed).
log_files_of_format <- function(dir, format) {
  files <- list.files(dir, pattern = paste0("[.]", format, "$"), full.names = TRUE,
                      ignore.case = TRUE)
  files[!dir.exists(files)]
}

# JSON log -> `.eval`, streaming: the header read without the samples, the samples' lines a
# batch at a time into the writer, their text kept. A log whose samples are not a line each
# (vitals' own) is read whole. The header's text is kept too (log_convert(): a log converted
# there and back is the original).
log_convert_to_eval <- function(path, dest, lines = 1000L) {
  header <- read_log_header(path)
  withr::local_options(predictivebench.log_format = "eval")
  w <- log_writer(dirname(dest), header$eval$task_id %||% "log", created = header$eval$created)
  on.exit(log_writer_abandon(w), add = TRUE)
  one_a_line <- !is.null(log_sample_line_count(path))
  con <- if (one_a_line) open_sample_lines(path)
  if (inherits(con, "connection")) {
    on.exit(close(con), add = TRUE)
    repeat {
      chunk <- readLines(con, n = lines, warn = FALSE, encoding = "UTF-8")
      end <- match("  ]", chunk)
      if (!is.na(end)) chunk <- chunk[seq_len(end - 1L)]
      chunk <- sub(",$", "", chunk)
      if (length(chunk)) {
        eval_writer_add(w, lapply(chunk, parse_log_json), texts = chunk)
      }
      if (!is.na(end) || !length(chunk)) break
    }
  } else if (!one_a_line) {
    samples <- read_log_json(path)$samples
    if (length(samples)) log_writer_add(w, samples)
  }
  written <- log_writer_finish(w, read_log_header_text(path))
  if (!file.rename(written, dest)) disk_error(dirname(dest), simpleError("renaming failed"))
  invisible(dest)
}

# `.eval` -> JSON log, streaming: `header.json` as written (not the board's reading of it),
# the samples' entries a batch at a time into the JSON writer, their text kept.
log_convert_to_json <- function(path, dest, batch = 100L) {
  check_eval_finished(path)
  entries <- eval_entries(path)
  # a header this package wrote from a JSON log is that log's text, kept; any other is the
  # header as the board reads it (an Inspect task's benchmark and headline in its metadata)
  text <- eval_entry_text(path, "header.json", entries)
  header <- eval_log_header(path)
  w <- log_writer(dirname(dest), header$eval$task_id %||% "log",
                  created = header$eval$created %||% log_timestamp(), format = "json")
  on.exit(log_writer_abandon(w), add = TRUE)
  con <- file(path, open = "rb")
  on.exit(close(con), add = TRUE)
  names <- eval_sample_names(entries)
  for (chunk in split(names, ceiling(seq_along(names) / batch))) {
    texts <- vapply(chunk, eval_entry_text, "", path = path, entries = entries, con = con,
                    USE.NAMES = FALSE)
    # a JSON log holds a sample a line (its readers stream it by line): an entry Inspect
    # wrote indented is written again on one line
    wrapped <- grepl("\n", texts, fixed = TRUE)
    texts[wrapped] <- vapply(texts[wrapped], function(text) {
      sample_json(parse_log_json(text), opts = sample_json_options())
    }, "", USE.NAMES = FALSE)
    log_writer_add(w, texts = texts)
  }
  kept <- grepl("\n", text, fixed = TRUE) && !is.null(header$eval$metadata$predictivebench)
  written <- log_writer_finish(w, if (kept) text else header)
  if (!file.rename(written, dest)) disk_error(dirname(dest), simpleError("renaming failed"))
  invisible(dest)
}
