# A log in Inspect AI's `.eval` layout (issue 46): a zip of `_journal/start.json`, one
# `samples/<id>_epoch_<n>.json` a sample, `_journal/summaries/<k>.json` a batch added,
# `summaries.json`, `reductions.json` and `header.json` last. The content is the JSON log's
# (the same header, the same sample text, sample_json()); entries are deflated by the CRAN
# package zip. Until finished, the zip is the writer's hidden part file (see log_writer()),
# without header.json: unfinished by Inspect's rule as by ours.

# The stage: a folder beside nothing else, holding each batch's entries until zip_append()
# has taken them, and the summaries and reductions as they grow (text files, so R holds none).
eval_writer_open <- function(w) {
  w$stage <- tempfile("eval-log-")
  dir.create(file.path(w$stage, "_journal", "summaries"), recursive = TRUE)
  dir.create(file.path(w$stage, "samples"))
  w$batches <- 0L
  w$staged <- character()  # entries in the stage not yet in the zip
  w$staged_samples <- 0L
  w$reductions <- character()  # scorer name -> its reductions' text file
  start <- list(version = 2L, eval = list(task_id = w$task_id, created = w$created))
  eval_stage_text(w, "_journal/start.json", eval_json(start))
  eval_zip(w, "_journal/start.json", new = TRUE)
  invisible(w)
}

# `texts`: the samples' JSON when the caller has it already (a log converted keeps its text).
eval_writer_add <- function(w, samples, texts = NULL) {
  opts <- sample_json_options()
  entries <- vapply(samples, eval_sample_entry, "")
  # a write that fails leaves a zip half appended: the writer takes nothing more
  w$state <- "broken by a failed write"
  texts <- texts %||% vapply(samples, sample_json, "", opts = opts)
  eval_stage_texts(w, entries, texts)
  w$batches <- w$batches + 1L
  journal <- sprintf("_journal/summaries/%d.json", w$batches)
  json_opts <- eval_json_options()
  summaries <- vapply(samples, function(s) eval_json(eval_sample_summary(s), json_opts), "")
  eval_stage_text(w, journal, paste0("[", paste(summaries, collapse = ","), "]"))
  eval_append_lines(w, "summaries", summaries)
  eval_add_reductions(w, samples, json_opts)
  w$staged <- c(w$staged, entries, journal)
  w$staged_samples <- w$staged_samples + length(samples)
  w$n <- w$n + length(samples)
  # each zip_append() rewrites the zip's central directory, so appending every batch costs
  # the square of the log's size (200 batches of 100: 10 s of a 20,000-sample run, one call
  # 3 s); batches are appended together once they are a tenth of what the zip holds, so
  # a killed run loses at most that tenth of its log (the cache keeps its answers)
  if (w$staged_samples * 10L >= w$n - w$staged_samples) eval_flush(w)
  w$state <- "open"
  invisible(w)
}

# The staged batches into the zip, then out of the stage.
eval_flush <- function(w) {
  if (!length(w$staged)) return(invisible(w))
  eval_zip(w, w$staged)
  unlink(file.path(w$stage, w$staged))
  w$staged <- character()
  w$staged_samples <- 0L
  invisible(w)
}

eval_writer_finish <- function(w, header) {
  eval_flush(w)
  # a header given as JSON text (a log converted) is written as it is
  usage <- if (is.list(header)) header$stats$model_usage
  if (is.list(usage)) header$stats$model_usage <- json_object(usage)
  text <- if (is.character(header)) header else eval_json(nulls_as_objects(header))
  if (is.character(header)) header <- parse_log_json(header)
  eval_close_array(w, "summaries", "summaries.json")
  reductions <- vapply(names(w$reductions), function(scorer) {
    sprintf('{"scorer":%s,"samples":[%s]}', eval_json(scorer),
            paste(readLines(w$reductions[[scorer]], encoding = "UTF-8"), collapse = ","))
  }, "")
  # with several epochs a sample's reduction is its reducer's, which the header does not name
  if (!identical(as.integer(header$eval$config$epochs %||% 1L), 1L)) reductions <- character()
  eval_stage_text(w, "reductions.json", paste0("[", paste(reductions, collapse = ","), "]"))
  eval_zip(w, c("summaries.json", "reductions.json"))
  eval_stage_text(w, "header.json", text)
  eval_zip(w, "header.json")
  if (!file.rename(w$part, w$path)) {
    disk_error(w$dir, simpleError("moving the finished log into place failed"))
  }
  w$path
}

# Inspect's entry name of a sample (inspect_ai/log/_recorders/eval.py: `{id}_epoch_{epoch}`),
# a path separator in an id made harmless.
eval_sample_entry <- function(sample) {
  id <- gsub("[/\\\\]", "_", as.character(sample$id))
  sprintf("samples/%s_epoch_%d.json", id, as.integer(sample$epoch %||% 1L))
}

# The EvalSampleSummary Inspect lists a sample by (its log viewer's sample list).
eval_sample_summary <- function(s) {
  scores <- lapply(s$scores, function(score) score[intersect(names(score),
    c("value", "answer", "explanation", "history"))])
  summary <- list(id = s$id, epoch = as.integer(s$epoch %||% 1L), input = s$input,
                  target = s$target %||% "", metadata = json_object(s$metadata),
                  scores = scores,
                  model_usage = json_object(lapply(s$model_usage, lean_usage)),
                  role_usage = empty_object(), started_at = s$started_at,
                  completed_at = s$completed_at, total_time = s$total_time,
                  working_time = s$working_time, uuid = s$uuid,
                  error = s$error$message, retries = 0L, completed = TRUE,
                  message_count = length(s$messages))
  if (!length(summary$scores)) summary$scores <- NULL
  summary[lengths(summary) > 0 | vapply(summary, is.list, TRUE)]
}

# A field Inspect's schema wants an object of: `{}` when empty (not `[]`: a sample without usage).
json_object <- function(x) if (length(x)) x else empty_object()

# Each sample's scores as Inspect reduces them with one epoch: the score itself, by scorer.
# A batch's reductions are appended once a scorer (a file opened a sample was a tenth of the
# writer's time).
eval_add_reductions <- function(w, samples, json_opts = eval_json_options()) {
  lines <- list()  # scorer -> the batch's reduction lines
  for (s in samples) {
    for (scorer in names(s$scores)) {
      score <- s$scores[[scorer]]
      entry <- c(score[intersect(names(score), c("value", "answer", "explanation"))],
                 list(history = list(), sample_id = s$id))
      lines[[scorer]] <- c(lines[[scorer]], eval_json(entry, json_opts))
    }
  }
  for (scorer in names(lines)) {
    if (is.na(w$reductions[scorer])) {
      w$reductions[[scorer]] <- file.path(w$stage, paste0("reductions-", length(w$reductions)))
    }
    eval_append_text(w, w$reductions[[scorer]], paste0(lines[[scorer]], "\n", collapse = ""))
  }
}

eval_append_lines <- function(w, name, lines) {
  path <- file.path(w$stage, paste0(name, ".part"))
  sep <- if (file.exists(path)) "," else ""
  eval_append_text(w, path, paste0(sep, paste(lines, collapse = ",")))
}

eval_close_array <- function(w, name, entry) {
  part <- file.path(w$stage, paste0(name, ".part"))
  eval_stage_text(w, entry, "[")
  if (file.exists(part)) file.append(file.path(w$stage, entry), part)
  eval_append_text(w, file.path(w$stage, entry), "]")
}

# A batch's samples into the stage, a file each: writeBin() without a connection of R's
# (write_log_text()'s checks cost half a millisecond a file, a fifth of the writer's time),
# the sizes checked once for the batch, so a full disk is the writer's classed disk error.
eval_stage_texts <- function(w, entries, texts) {
  paths <- file.path(w$stage, entries)
  tryCatch(
    for (k in seq_along(paths)) writeBin(charToRaw(texts[[k]]), paths[[k]]),
    error = function(e) disk_error(w$dir, e), warning = function(e) disk_error(w$dir, e)
  )
  if (!identical(unname(file.size(paths)), as.double(nchar(texts, type = "bytes")))) {
    disk_error(w$dir, simpleError("writing the samples' entries failed"))
  }
}

eval_stage_text <- function(w, entry, text) {
  write_log_text(file.path(w$stage, entry), text, append = FALSE, dir = w$dir)
}

eval_append_text <- function(w, path, text) {
  write_log_text(path, text, append = TRUE, dir = w$dir)
}

# (the options made once a batch: opts_write_json() made a sample was a twelfth of the time)
eval_json <- function(x, opts = eval_json_options()) json_text(x, opts = opts)

eval_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, json_verbatim = TRUE)
}

# Entries (paths in the stage) into the part file, deflated; a zip that can't be written
# (a full disk) is the writer's classed disk error.
eval_zip <- function(w, entries, new = FALSE) {
  add <- if (new) zip::zip else zip::zip_append
  tryCatch(
    add(w$part, entries, root = w$stage, mode = "mirror", include_directories = FALSE,
        compression_level = 6),
    error = function(e) disk_error(w$dir, e, why = probe_write(w$part))
  )
  invisible(w)
}
