# One table of headline numbers across benchmarks and models, from tasks or log files.

#' Headline numbers across benchmarks and models
#'
#' @description
#' `leaderboard()` takes evaluated tasks and log files of any registered benchmarks (see
#' [register_benchmark()]) and returns one row per benchmark, model and headline metric: the
#' benchmark's own summary of each run, by the same function that prints it, so every
#' number equals that summary's (its notes about skipped items or tiny groups are not
#' repeated here: call the summary to see them). Logs are read back with [log_samples()].
#' The intervals are the summaries' defaults, so they are clustered where the summary
#' clusters (DSBench questions by competition, epochs of one item; see [resolve_cluster()]).
#'
#' Each argument is a [ResultsTask], a [vitals::Task] (named by its benchmark:
#' `leaderboard(futurex = tsk)`), or a character vector of log files and directories (every
#' `.json` log inside). A log written by a [ResultsTask] names its benchmark; other logs
#' take the argument's name. Plot it with `ggplot2::autoplot()`.
#'
#' Every row says which run it comes from (`run`, `created`), so two runs of one model are
#' told apart; `runs = "latest"` keeps the latest run of each benchmark and model. A log in
#' a directory (or named) that can't be read (a truncated file) or placed (it names no
#' registered benchmark and the argument has no name) is skipped, with one warning (class
#' `predictivebench_warning_skipped_logs`) naming every skipped file and why; the other logs
#' still give their rows.
#'
#' @param ... Tasks, log files or directories.
#' @param runs `"all"` runs, or only the `"latest"` of each benchmark and model (by
#'   `created`).
#' @returns A tibble of class `benchmark_leaderboard`, sorted by benchmark and model:
#'   `benchmark`, `model`, `metric` (the summary row's headline key, [summary_keys()]: its
#'   group, such as `"overall"`, or `"<group> <metric>"`, such as `"overall f1"`),
#'   `estimate`, `lower`, `upper`, `n` (samples behind the estimate),
#'   `interval` (what `lower` and `upper` are), `run` (the run id in the log), `created`
#'   (when the log was written, as in the log) and `source` (the log file, or `NA` for a
#'   task without one).
#' @export
#' @examples
#' register_benchmark("arithmetic", function(x) {
#'   samples <- if (inherits(x, "Task")) x$get_samples() else x
#'   grouped_summary(samples$score, limits = c(0, 1))
#' })
#' data <- tibble::tibble(input = c("1+1?", "2+2?"), target = c("2", "4"))
#' run <- function(answer) {
#'   tsk <- ResultsTask$new(
#'     dataset = data, solver = generate_solver(settings = request_settings(cache = FALSE)),
#'     scorer = function(samples, ...) list(score = samples$result == samples$target),
#'     benchmark = "arithmetic", dir = tempfile()
#'   )
#'   tsk$eval(solver_chat = baseline_constant(answer), view = FALSE)
#' }
#' board <- leaderboard(run("2"), run("4"))
#' board
#' unregister_benchmark("arithmetic")
leaderboard <- function(..., runs = c("all", "latest")) {
  runs <- rlang::arg_match(runs)
  inputs <- rlang::list2(...)
  if (!length(inputs)) abort_pb("Give at least one task or log file.", "argument")
  labels <- rlang::names2(inputs)
  rows <- list()
  skipped <- character()
  for (k in seq_along(inputs)) {
    x <- inputs[[k]]
    label <- if (nzchar(labels[[k]])) labels[[k]] else NULL
    if (inherits(x, "Task")) {
      rows <- c(rows, list(task_board_rows(x, label)))
    } else if (is.character(x)) {
      for (path in log_files(x)) {
        found <- tryCatch(log_board_rows(path, label), predictivebench_error = function(e) {
          skipped[[path]] <<- conditionMessage(e)
          NULL
        })
        rows <- c(rows, list(found))
      }
    } else {
      abort_pb("Argument {k} is neither a vitals Task nor a log file.", "argument")
    }
  }
  warn_skipped_logs(skipped)
  out <- do.call(rbind, c(list(empty_board()), rows))
  if (runs == "latest") out <- latest_runs(out)
  # by benchmark and model; each run's headline metrics stay in their registered order
  out <- out[order(out$benchmark, out$model, method = "radix"), ]
  class(out) <- c("benchmark_leaderboard", class(out))
  out
}

task_board_rows <- function(task, label) {
  benchmark <- if (inherits(task, "ResultsTask")) task$benchmark else label
  if (is.null(benchmark)) {
    abort_pb("Name a plain vitals Task by its benchmark: {.code leaderboard(futurex = tsk)}.",
             "argument")
  }
  samples <- task$get_samples()
  if (!"score" %in% names(samples)) abort_pb("A task must be evaluated first.", "argument")
  model <- chat_model_label(samples$solver_chat[[1]])
  source <- if (inherits(task, "ResultsTask")) task$log_path %||% NA_character_ else NA_character_
  header <- if (!is.na(source) && file.exists(source)) read_log_header(source)
  board_rows(benchmark, model, task, source, header)
}

log_board_rows <- function(path, label) {
  header <- read_log_header(path)
  benchmark <- header$eval$metadata$benchmark %||% label
  if (is.null(benchmark)) {
    abort_pb("The log names no benchmark: name the argument, as in {.code futurex = path}.",
             "argument", file = path)
  }
  board_rows(benchmark, header$eval$model %||% NA_character_, log_samples(path), path, header)
}

# Logs that could not be read or placed, in one warning.
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

# Each benchmark and model's rows from its latest run (by `created`; runs without a log
# come after every logged one).
latest_runs <- function(board) {
  key <- paste(board$benchmark, board$model, sep = "\r")
  run <- paste(board$run, board$source, board$created, sep = "\r")
  newest <- order(board$created, decreasing = TRUE, na.last = TRUE, method = "radix")
  first <- !duplicated(key[newest])
  latest <- stats::setNames(run[newest][first], key[newest][first])
  board[run == latest[key], ]
}

empty_board <- function() {
  tibble::tibble(benchmark = character(), model = character(), metric = character(),
                 estimate = double(), lower = double(), upper = double(), n = integer(),
                 interval = character(), run = character(), created = character(),
                 source = character())
}

board_rows <- function(benchmark, model, x, source, header = NULL) {
  entry <- benchmark_entry(benchmark)
  rows <- check_summary_rows(quiet_summary(entry$summary, x))
  rows <- headline_rows(rows, entry$headline %||% summary_keys(rows))
  tibble::tibble(benchmark = benchmark, model = model, metric = rows$key,
                 estimate = as.double(rows$estimate), lower = as.double(rows$lower),
                 upper = as.double(rows$upper), n = as.integer(rows$n),
                 interval = entry$interval,
                 run = header$eval$run_id %||% NA_character_,
                 created = header$eval$created %||% NA_character_, source = source)
}

# Log files named, and the .json logs inside directories named (newest first).
log_files <- function(paths) {
  files <- unlist(lapply(paths, function(p) {
    if (dir.exists(p)) {
      found <- list.files(p, pattern = "\\.json$", full.names = TRUE, recursive = TRUE)
      sort(found[basename(found) != "listing.json"], decreasing = TRUE)
    } else if (file.exists(p)) {
      p
    } else {
      abort_pb("Can't find the log.", "missing_file", file = p)
    }
  }))
  files
}
