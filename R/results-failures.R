# Saying plainly when requests failed, and not calling a failed solve a success; and, after a
# run, which samples failed.

#' Report failed requests: while solving, or after a run
#'
#' @description
#' **After a run**, give `report_failures()` an evaluated task (any `<benchmark>_task()`), a
#' log file it wrote (`tsk$log_path`), or a folder of logs (such as
#' `vitals::vitals_log_dir()`): it returns one row per failed sample and says how many
#' samples of each run failed, in three kinds that call for different remedies:
#'
#' * `"request"`: a request failed for good (its solver's or scorer's metadata holds an
#'   error: a vote, a judge call or a log-probability request). Check the model name, the
#'   API key and the endpoint, then run `$eval()` again (for a cell of an evaluation set:
#'   call [eval_set()] again): every answered request comes from the cache, and only the
#'   failed ones are sent.
#' * `"answer"`: every request was answered, but no answer could be scored (no result: the
#'   reply had no answer the benchmark reads, such as ProcessBench votes without a boxed
#'   step). Running again changes nothing (the answers are cached): look at the replies
#'   (`$get_samples()`, the viewer), the answer format the prompt asks for, and `max_tokens`
#'   (an answer cut off before its box).
#' * `"truncated"`: the answer was cut off at the token limit (or exists only in unfinished
#'   reasoning) and was scored on what the model had room to write: a low score that is
#'   `max_tokens`'s, not the model's. Raise `max_tokens`; the same chat would bring the same
#'   answers from the cache.
#'
#' A sample may also carry a **note**: its solver's or scorer's metadata field `note` or
#' `*_note` (such as FutureX's `judge_note`, a judge that answered without the values it was
#' asked for, so the plain parse scored the item). A note is not a failure: the sample was
#' scored, no request failed, and running again would bring the same answers from the
#' cache. `report_failures()` counts the notes by what they say (the three most frequent,
#' each with its count: an arena judge's "judge-ds gave no readable verdict (18)"); they are
#' not rows of its table, but its attribute `"notes"` (one row per noted sample, with `note`
#' for `error`). An arena battle whose judge's reply had no verdict the prompt's format reads
#' carries such a note, naming the judge.
#'
#' A run whose log is in several files (an [arena_run()] of many battles) is one run: any
#' of its files, or its folder, reports all its battles, each row's `log` the run's log
#' (its first file, as on [leaderboard()]).
#'
#' In an evaluation set's folder, a cell tried several times (its `retries`, or later calls)
#' left a log of each attempt: only its last attempt is reported, so each sample counts
#' once (a message says how many earlier logs were left out).
#'
#' In a folder, a log that was not written by predictivebench (another Inspect AI or vitals
#' log) or can't be read is skipped with a warning (class
#' `predictivebench_warning_skipped_logs`, as [leaderboard()]'s); the others are reported.
#'
#' **While solving**, a solver calls `report_failures()` with the error of each request it
#' sent (`NA` for a request that was answered):
#'
#' * when **every** request failed, it warns loudly (class
#'   `predictivebench_warning_all_failed`) with the count and the first error, and, in a
#'   task made by a `<benchmark>_task()`, marks the `$eval()` step that is running as
#'   failed: vitals prints "✖ Solving" instead of "✔ Solving" (the task's `$solve()` hears
#'   of it through a condition of class `predictivebench_step_failed`; a plain
#'   [vitals::Task] only warns);
#' * when **some** failed, it warns with the count, the first error, and how to retry: run
#'   `$eval()` again, and the answered requests come from the cache.
#'
#' Both warnings also have the class `predictivebench_warning_failed_requests`.
#'
#' @param x An evaluated task, a log file, or a folder of logs; or, in a solver, a
#'   character vector of errors: one element per request, `NA` where it succeeded. (A single
#'   string is read as a log when it names an existing file or folder.)
#' @param what What a request is, for the message (`"request"`, `"vote"`, `"judge call"`).
#' @param hint What to do when every request failed. `NULL` suggests checking the model name,
#'   the API key and the endpoint, right for errors of the request itself; a solver whose
#'   requests were answered but whose answers could not be used says what to change instead.
#' @returns For a task, log or folder: a tibble with one row per failed sample, `log` (the
#'   file, `NA` for a task), `benchmark`, `model`, `id`, `epoch`, `step` (`"solve"` or
#'   `"score"`), `kind` (`"request"`, `"answer"` or `"truncated"`, above) and `error` (the
#'   first error, `"no result"` for an answer that could not be scored, or `"answer cut off
#'   at the token limit"`); no rows when nothing failed.
#'   For errors: the number of failed requests, invisibly.
#' @family results
#' @export
#' @examples
#' report_failures(c(NA, NA))
#' tryCatch(report_failures(c("HTTP 401 Unauthorized", NA)), warning = conditionMessage)
#'
#' # After a run: an offline chat that fails on every second question
#' failing <- baseline_chat(function(prompt) {
#'   if (nchar(prompt) %% 2) stop("HTTP 500 Internal Server Error")
#'   "\\boxed{A}"
#' })
#' tsk <- futurex_task(futurex_dataset(version = "sample", limit = 4), dir = tempfile(),
#'                     solver = futurex_solver(settings = request_settings(cache = FALSE,
#'                                                                         max_tries = 1)))
#' suppressWarnings(tsk$eval(solver_chat = failing, view = FALSE))
#' report_failures(tsk)
#' report_failures(tsk$log_path)
report_failures <- function(x, what = "request", hint = NULL) {
  if (is_run_record(x)) return(failed_samples(x))
  warn_failed_requests(x, what, hint)
}

is_run_record <- function(x) {
  inherits(x, "Task") || (rlang::is_string(x) && (file.exists(x) || dir.exists(x)))
}

# The failed samples of a task, a log, or every log in a folder.
failed_samples <- function(x) {
  runs <- if (inherits(x, "Task")) {
    list(run_failures(x$get_samples(), NA_character_, x$benchmark %||% NA_character_,
                      task_model(x)))
  } else {
    if (dir.exists(x)) {
      folder_failures(x)
    } else {
      list(log_failures(x))
    }
  }
  out <- do.call(rbind, c(list(no_failures()), runs))
  notes <- do.call(rbind, c(list(no_notes()), lapply(runs, attr, "notes")))
  say_failures(out, runs, notes)
  attr(out, "notes") <- notes
  out
}

# Every run of a folder that predictivebench wrote, each once (a run in several files is one
# run, R/results-log-parts.R); other JSON is passed over, unreadable logs skipped with one
# warning. Of a set's cell only its last attempt counts: earlier samples were asked again.
folder_failures <- function(dir) {
  # newest first: a cell's last attempt is the first of its logs met
  paths <- sort(log_files_in(dir), decreasing = TRUE)
  skipped <- character()
  seen <- character()
  cells <- character()
  earlier <- 0L
  runs <- lapply(paths, function(path) {
    tryCatch({
      header <- read_log_header(path)
      if (is.null(header$eval$metadata$predictivebench) && !is_eval_log(path)) {
        skipped[[path]] <<- "not written by predictivebench (another Inspect AI or vitals log)."
        return(NULL)
      }
      cell <- header$eval$metadata$cell_id
      if (rlang::is_string(cell)) {
        if (cell %in% cells) {
          earlier <<- earlier + 1L
          return(NULL)
        }
        cells <<- c(cells, cell)
      }
      # a run's files are read together, once (a run missing one is skipped once)
      run <- log_part_paths(path, header)[[1]]
      if (run %in% seen) return(NULL)
      seen <<- c(seen, run)
      log_failures(run)
    }, predictivebench_error_json = function(e) NULL, error = function(e) {
      skipped[[path]] <<- conditionMessage(e)
      NULL
    })
  })
  warn_skipped_logs(skipped)
  if (earlier) {
    cli::cli_inform(c(i = "Left out {earlier} log{?s} of earlier attempts of an evaluation
                           set's cells: each cell's last attempt is reported."),
                    class = "predictivebench_message_attempts")
  }
  rev(Filter(Negate(is.null), runs))
}

# One run's failures, from any of its files, named by the run's log (the board's `source`).
log_failures <- function(path) {
  samples <- log_run_samples(path)
  header <- attr(samples, "log") %||% read_log_header(path)
  log <- log_part_paths(path, header)[[1]]
  benchmark <- as.character(header$eval$metadata$benchmark %||% header$eval$task %||% NA)
  out <- run_failures(samples, log, benchmark, as.character(header$eval$model %||% NA))
  # a set's cell is run again by eval_set(), not by `$eval()`
  attr(out, "eval_set") <- rlang::is_string(header$eval$metadata$cell_id)
  out
}

task_model <- function(task) {
  samples <- task$get_samples()
  if (!"solver_chat" %in% names(samples) || !nrow(samples)) return(NA_character_)
  chat_model_label(samples$solver_chat[[1]])
}

# One row per failed sample of one run: an error in the solver's or scorer's metadata (kind
# "request"), else no result (kind "answer"), else an answer cut off at the token limit or in
# unfinished reasoning (kind "truncated": scored, but on what the model had room to write).
run_failures <- function(samples, log, benchmark, model) {
  n <- nrow(samples)
  solve_error <- metadata_errors(samples$solver_metadata, n)
  score_error <- metadata_errors(samples$scorer_metadata, n)
  no_result <- if ("result" %in% names(samples)) is.na(samples$result) else rep(FALSE, n)
  cut <- answer_cuts(samples)$cut > 0
  failed <- no_result | !is.na(solve_error) | !is.na(score_error) | cut
  step <- ifelse(no_result | !is.na(solve_error) | cut, "solve", "score")
  request <- !is.na(solve_error) | !is.na(score_error)
  kind <- ifelse(request, "request", ifelse(no_result, "answer", "truncated"))
  error <- ifelse(!is.na(solve_error), solve_error,
                  ifelse(!is.na(score_error), score_error,
                         ifelse(no_result, "no result", "answer cut off at the token limit")))
  out <- tibble::tibble(
    log = rep(log, n)[failed], benchmark = rep(benchmark, n)[failed],
    model = rep(model, n)[failed], id = as.character(samples$id)[failed],
    epoch = as.integer(if ("epoch" %in% names(samples)) samples$epoch else rep(1L, n))[failed],
    step = step[failed],
    kind = kind[failed],
    error = error[failed]
  )
  attr(out, "samples") <- n
  attr(out, "notes") <- run_notes(samples, log, benchmark, model)
  attr(out, "eval_set") <- FALSE  # (a cell of an evaluation set: log_failures())
  out
}

# One row per sample with a note (`note`, `*_note`): scored, so not a failed sample.
run_notes <- function(samples, log, benchmark, model) {
  n <- nrow(samples)
  solve <- metadata_notes(samples$solver_metadata, n)
  score <- metadata_notes(samples$scorer_metadata, n)
  noted <- !is.na(solve) | !is.na(score)
  tibble::tibble(
    log = rep(log, n)[noted], benchmark = rep(benchmark, n)[noted],
    model = rep(model, n)[noted], id = as.character(samples$id)[noted],
    epoch = as.integer(if ("epoch" %in% names(samples)) samples$epoch else rep(1L, n))[noted],
    step = ifelse(!is.na(solve), "solve", "score")[noted],
    note = ifelse(!is.na(solve), solve, score)[noted]
  )
}

metadata_errors <- function(metadata, n) {
  metadata_texts(metadata, n, function(fields) {
    fields %in% c("error", "errors") | endsWith(fields, "_error")
  })
}

metadata_notes <- function(metadata, n) {
  metadata_texts(metadata, n, function(fields) fields == "note" | endsWith(fields, "_note"))
}

metadata_texts <- function(metadata, n, which_fields) {
  if (is.null(metadata)) return(rep(NA_character_, n))
  vapply(metadata, function(m) {
    if (!is.list(m) || is.null(names(m))) return(NA_character_)
    fields <- names(m)[which_fields(names(m))]
    texts <- unlist(lapply(m[fields], function(v) if (is.character(v)) v), use.names = FALSE)
    texts <- texts[!is.na(texts) & nzchar(texts)]
    if (length(texts)) texts[[1]] else NA_character_
  }, "")
}

# The notes by what they say, most frequent first, with counts; three at most.
note_counts <- function(note) {
  counts <- sort(table(note), decreasing = TRUE)
  shown <- utils::head(counts, 3)
  said <- paste0(names(shown), " (", as.integer(shown), ")", collapse = "; ")
  more <- length(counts) - length(shown)
  if (more) said <- paste0(said, "; and ", more, " other note", if (more > 1) "s")
  said
}

no_notes <- function() {
  tibble::tibble(log = character(), benchmark = character(), model = character(),
                 id = character(), epoch = integer(), step = character(), note = character())
}

no_failures <- function() {
  tibble::tibble(log = character(), benchmark = character(), model = character(),
                 id = character(), epoch = integer(), step = character(), kind = character(),
                 error = character())
}

# Each kind of failure with its advice: a failed request is worth sending again (after
# checking the key and model), an unscorable answer is cached and would come back the same.
say_failures <- function(out, runs, notes = no_notes()) {
  total <- sum(vapply(runs, function(r) attr(r, "samples") %||% 0L, 1))
  noted <- if (nrow(notes)) {
    said <- note_counts(notes$note)
    c(i = "{nrow(notes)} sample{?s} with a note (scored; not a failure: running again brings
           the same answers from the cache): {said}")
  }
  if (!nrow(out)) {
    cli::cli_inform(c(v = "No failed sample in {length(runs)} run{?s} ({total} sample{?s}).",
                      noted),
                    class = "predictivebench_message_failures")
    return(invisible())
  }
  requests <- out$error[out$kind == "request"]
  answers <- sum(out$kind == "answer")
  cut <- sum(out$kind == "truncated")
  lines <- c("!" = "{nrow(out)} of {total} sample{?s} failed in {length(runs)} run{?s}.")
  if (length(requests)) {
    first <- requests[[1]]
    # the advice of the path the runs were made on: a set's cells, or tasks
    in_set <- vapply(runs, function(r) isTRUE(attr(r, "eval_set")), TRUE)
    again <- if (all(in_set)) {
      "call {.fn eval_set} again (with the same arguments)"
    } else if (any(in_set)) {
      "call {.fn eval_set} again for the set's cells, or run {.code $eval()} again for the others,"
    } else {
      "run {.code $eval()} again"
    }
    lines <- c(lines,
      x = "{length(requests)} with a request that failed for good. First error: {first}",
      i = paste0("Check the model name, the API key and the endpoint, then ", again,
                 " to retry them: answered requests come from the cache."))
  }
  if (answers) {
    lines <- c(lines,
      x = "{answers} whose answer{?s} could not be scored (answered, but with nothing the
           benchmark reads).",
      i = "Running again changes nothing (answers are cached): look at the replies, the
           answer format the prompt asks for, and {.arg max_tokens} (an answer cut off
           before its box).")
  }
  if (cut) {
    lines <- c(lines,
      x = "{cut} whose answer{?s} {?was/were} cut off at the token limit (or inside unfinished
           reasoning), and scored on what the model had room to write.",
      i = "Raise {.arg max_tokens} (e.g. {.code params = list(max_tokens = 8192)}): running
           again with the same chat brings the same answers from the cache.")
  }
  cli::cli_inform(c(lines, noted), class = "predictivebench_message_failures")
}
