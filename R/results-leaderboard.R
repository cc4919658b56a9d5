# One table of headline numbers across benchmarks and models, from tasks or log files.

#' Headline numbers across benchmarks and models
#'
#' @description
#' `leaderboard()` takes evaluated tasks and log files of the package's benchmarks and
#' returns one row per benchmark, model and headline metric: the benchmark's own summary of
#' each run (`<benchmark>_summary()`), by the same function that prints it, so every number
#' equals that summary's (its notes about skipped items or tiny groups are not repeated
#' here: call the summary to see them). The intervals are the summaries' defaults, so they
#' are clustered where the summary clusters (DSBench questions by competition, epochs of one
#' item; see each summary's `cluster`).
#'
#' Each argument is a task made by a `<benchmark>_task()`, another [vitals::Task] (named by
#' its benchmark: `leaderboard(futurex = tsk)`), or a character vector of log files and
#' directories (every `.json` and `.eval` log inside). A log written by a `<benchmark>_task()` names its
#' benchmark; other logs take the argument's name. Plot it with `ggplot2::autoplot()`.
#' An `.eval` log Inspect AI wrote for a task of its own is named by its task and gives one
#' row per scorer and metric of its `results` (`"includes accuracy"`, `"includes stderr"`),
#' Inspect's own numbers, with no interval; an unfinished one (no `header.json`) is skipped.
#' Named like a package benchmark, it is `"<task> (Inspect)"` (`"futurex (Inspect)"`).
#'
#' A log of the package holds its headline rows (estimates and intervals, as its task's
#' summary gave them, with the interval's label, the direction and the scale its
#' registration gave them) in its header, so a log's rows are read from the header alone,
#' without reading or summarising its samples, and without its benchmark's registration: a
#' benchmark of your own ([new_benchmark()]) is on the board of a new R session that never
#' registered it. Older logs and logs of plain vitals tasks are summarised from their
#' samples by their registered benchmark's summary.
#'
#' An [arena_run()] log gives one row per competitor: each is a model, its rating (metric
#' `"rating"`, on the Elo scale: 1000 the mean, 400 points for 10:1 odds) the run's
#' `method` gave, equal to its `elo_rating.csv`. Whether a smaller estimate is
#' better and which scale it is on come from the benchmark's registration
#' ([new_benchmark()]'s `lower_is_better` and `elo_scale`), such as probsem's
#' Jensen-Shannon distance to human judgements.
#'
#' Every row says which run it comes from (`run`, `created`), so two runs of one model are
#' told apart, and which judge scored it (`judge`): a run scored again with another judge
#' ([rescore()]) sits beside its original, each with its judge; `runs = "latest"` keeps the
#' latest run of each benchmark, model and judge.
#'
#' A folder of an evaluation set ([eval_set()]'s `log_dir`) holds, beside each cell's
#' completed log, the logs of attempts that failed before it (a run whose every request
#' failed, an outage): the board shows each cell's completed run only, the one the set's
#' record names, and says how many attempts it left out; `attempts = TRUE` shows them too. A log in
#' a directory (or named) that can't be read (a truncated file) or placed (it names no
#' benchmark and the argument has no name, or its benchmark is not registered and the log
#' does not hold its rows) is skipped, with one warning (class
#' `predictivebench_warning_skipped_logs`) naming every skipped file and why; the other logs
#' still give their rows.
#'
#' @param ... Tasks, log files or directories.
#' @param runs `"all"` runs, or only the `"latest"` of each benchmark and model (by
#'   `created`).
#' @param attempts For a folder of an evaluation set: `FALSE` (the default) shows each
#'   cell's completed run only; `TRUE` also the logs of its earlier, failed attempts (and of
#'   cells that never completed).
#' @param reducer,k `NULL` (the default: the numbers each log's header holds), or an epoch
#'   reducer of [reduce_epochs()] and its `k`: each run is summarised again from its samples
#'   by its benchmark's summary with `reducer =` (one score per sample from its epochs, the
#'   interval over samples), and its metric names the reducer (`"overall pass_at_2"`).
#'   Benchmarks whose summary takes no reducer (see [reduce_epochs()]) are an error for a
#'   task, and a log of theirs is skipped with the skipped-logs warning saying why.
#' @returns A tibble of class `benchmark_leaderboard`, sorted by benchmark and model:
#'   `benchmark`, `model`, `judge` (the model of the judge whose verdicts scored the run, as
#'   its log names it: a rescore's `judge`, else the scorer's chat; `NA` for a run scored
#'   without a judge, or a task without a log), `metric` (the summary row's headline key:
#'   its group, such as `"overall"`, or `"<group> <metric>"` where a group has several
#'   metrics, such as `"overall f1"`; for a benchmark whose groups are models, the
#'   summary's metric, such as `"rating"`),
#'   `estimate`, `lower`, `upper`, `n` (samples, or battles, behind the estimate),
#'   `interval` (what `lower` and `upper` are), `better` (`"higher"` or `"lower"`), `scale`
#'   (`"0-1"` or `"Elo"`), `truncated` (answers of the run cut off at the token limit or
#'   inside unfinished reasoning: a low score may be a too-small `max_tokens`, not a weak
#'   model; `NA` when the log does not say), `all_tied` (probsem: `TRUE` when every query of
#'   every context tied, as broken log-probabilities give; `NA` for other benchmarks),
#'   `judge_consistency` (the run's pairwise judge's position consistency, the share of
#'   battles whose verdict survived swapping the answers, for a run that judged both orders;
#'   `NA` otherwise: [judge_audit()] gives it, with an interval, for any run), `run`
#'   (the run id in the log), `created`
#'   (when the log was written, as in the log) and `source` (the log file, the first of a
#'   run's log in several files (a large [arena_run()]'s), or `NA` for a
#'   task without one).
#' @family results
#' @export
#' @examples
#' data <- futurex_dataset(version = "sample")
#' run <- function(answer, name) {
#'   tsk <- futurex_task(data, dir = tempfile())
#'   tsk$eval(solver_chat = baseline_chat(answer, name = name), view = FALSE)
#' }
#' board <- leaderboard(run("\\boxed{Yes}", "always-yes"), run("\\boxed{No}", "always-no"))
#' board
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(board)
leaderboard <- function(..., runs = c("all", "latest"), attempts = FALSE, reducer = NULL,
                        k = NULL) {
  runs <- rlang::arg_match(runs)
  check_flag(attempts)
  spec <- epoch_reducer(reducer, k)
  inputs <- rlang::list2(...)
  if (!length(inputs)) abort_pb("Give at least one task or log file.", "argument")
  labels <- rlang::names2(inputs)
  rows <- list()
  skipped <- character()
  for (i in seq_along(inputs)) {
    x <- inputs[[i]]
    label <- if (nzchar(labels[[i]])) labels[[i]] else NULL
    if (inherits(x, "Task")) {
      rows <- c(rows, list(task_board_rows(x, label, spec)))
    } else if (is.character(x)) {
      for (path in log_files(x, attempts = attempts)) {
        found <- tryCatch(
          log_board_rows(path, label, spec),
          predictivebench_error = function(e) {
            skipped[[path]] <<- conditionMessage(e)
            NULL
          }
        )
        rows <- c(rows, list(found))
      }
    } else {
      abort_pb("Argument {i} is neither a vitals Task nor a log file.", "argument")
    }
  }
  warn_skipped_logs(skipped)
  out <- do.call(rbind, c(list(empty_board()), rows))
  # a run's log in several files gives its rows once (each file's are its first file's)
  out <- out[is.na(out$source) | !duplicated(out), ]
  if (runs == "latest") out <- latest_runs(out)
  # by benchmark and model; each run's headline metrics stay in their registered order
  out <- out[order(out$benchmark, out$model, method = "radix"), ]
  class(out) <- c("benchmark_leaderboard", class(out))
  out
}

task_board_rows <- function(task, label, spec = NULL) {
  benchmark <- if (inherits(task, "ResultsTask")) task$benchmark else label
  if (is.null(benchmark)) {
    abort_pb("Name a plain vitals Task by its benchmark: {.code leaderboard(<benchmark> = tsk)}.",
             "argument")
  }
  samples <- task$get_samples()
  if (!"score" %in% names(samples)) abort_pb("A task must be evaluated first.", "argument")
  model <- chat_model_label(samples$solver_chat[[1]])
  source <- if (inherits(task, "ResultsTask")) task$log_path %||% NA_character_ else NA_character_
  header <- if (!is.na(source) && file.exists(source)) read_log_header(source)
  board_rows(benchmark, model, summary_headline(benchmark, task, spec), source, header)
}

# A log's rows come from its header, so no sample is read; a plain vitals log, or one under
# an epoch reducer (`spec`), is summarised from its samples.
log_board_rows <- function(path, label, spec = NULL) {
  header <- read_log_header(path)
  benchmark <- log_benchmark(header) %||% label
  if (is.null(benchmark)) {
    abort_pb("The log names no benchmark: name the argument, as in {.code <benchmark> = path}.",
             "argument", file = path)
  }
  logged <- if (is.null(spec) && ends_like_a_log(path)) {
    logged_headline(header$eval$metadata$headline)
  }
  rows <- logged %||% summary_headline(benchmark, log_run_samples(path), spec)
  # a file of a run in several: the run's rows, from its log (R/results-log-parts.R)
  source <- log_part_paths(path, header)[[1]]
  board_rows(benchmark, header$eval$model %||% NA_character_, rows, source, header)
}

# The benchmark a log names; an Inspect task's (is_inspect_task()) is never a package benchmark.
log_benchmark <- function(header) {
  benchmark <- header$eval$metadata$benchmark
  clash <- is_inspect_task(header) && !is.null(benchmark_named(benchmark))
  if (clash) paste(benchmark, "(Inspect)") else benchmark
}

# A file cut short is read whole instead (failing, naming it) rather than trusting its header.
ends_like_a_log <- function(path) {
  if (is_eval_log(path)) return(check_eval_finished(path))
  size <- file.size(path)
  con <- file(path, open = "rb")
  on.exit(close(con))
  if (size > 64) seek(con, size - 64)
  tail <- rawToChar(readBin(con, "raw", 64))
  grepl("\n  ]\n}\\s*$", tail, useBytes = TRUE)
}

# The headline rows of a benchmark's summary of `x`; under an epoch reducer (`spec`) each key
# names it ("overall pass_at_2").
summary_headline <- function(benchmark, x, spec = NULL) {
  headline <- benchmark_headline(require_benchmark(benchmark))
  rows <- check_summary_rows(quiet_summary(reduced_summary(benchmark, spec), x))
  rows <- headline_rows(rows, headline %||% summary_keys(rows))
  if (!is.null(spec)) rows$key <- paste(rows$key, spec$label)
  rows
}

# The headline rows logged in a header, with their board labels (NA in older logs).
logged_headline <- function(logged) {
  if (!length(logged)) return(NULL)
  field <- function(name, as) {
    missing <- if (identical(as, as.character)) NA_character_ else NA_real_
    as(vapply(logged, function(r) {
      value <- r[[name]]
      if (is.null(value) || (is.list(value) && !length(value))) missing else value
    }, FUN.VALUE = missing))
  }
  tibble::tibble(group = field("group", as.character), metric = field("metric", as.character),
                 estimate = field("estimate", as.double), lower = field("lower", as.double),
                 upper = field("upper", as.double), n = as.integer(field("n", as.double)),
                 key = field("key", as.character), interval = field("interval", as.character),
                 better = field("better", as.character), scale = field("scale", as.character),
                 model = field("model", as.character))
}

warn_skipped_logs <- function(skipped) {
  if (!length(skipped)) return(invisible())
  reasons <- vapply(strsplit(skipped, "\n"), `[[`, "", 1)
  lines <- sprintf("%s: %s", names(skipped), reasons)
  cli::cli_warn(
    c("Skipped {length(skipped)} log{?s} that could not be read or placed:",
      rlang::set_names(lines, rep("x", length(lines)))),
    class = "predictivebench_warning_skipped_logs", files = names(skipped)
  )
}

# Each benchmark, model and judge's rows from its latest run (unlogged runs come last).
latest_runs <- function(board) {
  key <- paste(board$benchmark, board$model, board$judge, sep = "\r")
  run <- paste(board$run, board$source, board$created, sep = "\r")
  newest <- order(board$created, decreasing = TRUE, na.last = TRUE, method = "radix")
  first <- !duplicated(key[newest])
  latest <- stats::setNames(run[newest][first], key[newest][first])
  board[run == latest[key], ]
}

empty_board <- function() {
  tibble::tibble(benchmark = character(), model = character(), judge = character(),
                 metric = character(),
                 estimate = double(), lower = double(), upper = double(), n = integer(),
                 interval = character(), better = character(), scale = character(),
                 judge_consistency = double(), run = character(), created = character(),
                 source = character())
}

# The share of battles whose verdict survived swapping the answers (`judge_consistency`); NA
# for a run judged in one order (judge_audit() judges the other) or with no such judge.
judge_consistency_of <- function(header) {
  counts <- header$eval$metadata$judge_consistency
  if (is.null(counts$both) || !isTRUE(counts$both > 0)) return(NA_real_)
  as.double(counts$consistent) / as.double(counts$both)
}

board_rows <- function(benchmark, model, rows, source, header = NULL) {
  labels <- logged_labels(rows) %||% board_labels(benchmark, rows)
  # a benchmark whose groups are models gives each row as a model, under the summary's metric
  by_model <- !is.na(labels$model)
  models <- rep(as.character(model), nrow(rows))
  models[by_model] <- labels$model[by_model]
  metrics <- as.character(rows$key)
  metrics[by_model] <- as.character(rows$metric)[by_model]
  tibble::tibble(benchmark = benchmark, model = models,
                 judge = rep(log_judge(header), nrow(rows)), metric = metrics,
                 estimate = as.double(rows$estimate), lower = as.double(rows$lower),
                 upper = as.double(rows$upper), n = as.integer(rows$n),
                 interval = labels$interval, better = labels$better, scale = labels$scale,
                 truncated = as.integer(header$eval$metadata$truncated %||% NA),
                 all_tied = as.logical(header$eval$metadata$all_tied %||% NA),
                 judge_consistency = judge_consistency_of(header),
                 run = header$eval$run_id %||% NA_character_,
                 created = header$eval$created %||% NA_character_, source = source)
}

# The judge that scored a run: as a rescore names it, else from the scorer's name.
log_judge <- function(header) {
  judge <- header$eval$metadata$judge
  if (rlang::is_string(judge)) return(judge)
  scores <- header$results$scores
  name <- if (length(scores)) scores[[1]]$name
  if (rlang::is_string(name) && grepl("\\(.+\\)$", name)) {
    return(sub("^.*?\\((.+)\\)$", "\\1", name, perl = TRUE))
  }
  NA_character_
}

# The labels the log's header holds: the log says what its rows are, whatever is registered.
logged_labels <- function(rows) {
  needed <- c("interval", "better", "scale")
  if (!all(needed %in% names(rows)) || anyNA(unlist(rows[needed]))) return(NULL)
  list(interval = rows$interval, better = rows$better, scale = rows$scale,
       model = rows$model %||% rep(NA_character_, nrow(rows)))
}

# Log files named, and the .json logs in folders named (newest first); in a set's folder only
# the logs its records name (completed runs) unless `attempts`.
log_files <- function(paths, attempts = TRUE) {
  files <- unlist(lapply(paths, function(p) {
    if (dir.exists(p)) {
      found <- log_files_in(p)
      found <- sort(found[basename(found) != "listing.json"], decreasing = TRUE)
      if (attempts) found else completed_runs(found)
    } else if (file.exists(p)) {
      p
    } else {
      abort_pb("Can't find the log.", "missing_file", file = p)
    }
  }))
  files
}

# In a set's folder, a log counts when a record names it or it rescores one a record names.
completed_runs <- function(files) {
  folders <- dirname(files)
  keep <- rep(TRUE, length(files))
  for (folder in unique(folders)) {
    records <- list.files(records_dir(folder), pattern = "\\.json$", full.names = TRUE)
    if (!length(records)) next
    named <- unlist(lapply(records, function(path) {
      record <- tryCatch(jsonlite::read_json(path), error = function(e) NULL)
      # a run's log in several files names them all (`log_parts`)
      c(if (rlang::is_string(record$log)) record$log else NA_character_,
        as.character(unlist(record$log_parts)))
    }))
    here <- folders == folder
    keep[here] <- basename(files[here]) %in% named
    others <- which(here & !keep)
    keep[others] <- vapply(files[others], function(path) {
      from <- tryCatch(read_log_header(path)$eval$metadata$rescored_from,
                       predictivebench_error = function(e) NULL)
      rlang::is_string(from) && from %in% named
    }, TRUE)
  }
  if (!all(keep)) {
    cli::cli_inform(
      c(i = "Left out {sum(!keep)} log{?s} of attempts that did not complete a cell of an
             evaluation set ({.code attempts = TRUE} shows them)."),
      class = "predictivebench_message_attempts"
    )
  }
  files[keep]
}

# Where a set's folder records its completed runs (R/evalset-records.R).
records_dir <- function(log_dir) file.path(log_dir, ".eval-set")
