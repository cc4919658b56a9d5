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
#' @param ... Tasks, log files or directories.
#' @returns A tibble of class `benchmark_leaderboard`, sorted by benchmark and model:
#'   `benchmark`, `model`, `metric` (the summary row's headline key, [summary_keys()]: its
#'   group, such as `"overall"`, or `"<group> <metric>"`, such as `"overall f1"`),
#'   `estimate`, `lower`, `upper`, `n` (samples behind the estimate),
#'   `interval` (what `lower` and `upper` are) and `source` (the log file, or `NA` for a
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
#'     dataset = data, solver = generate_solver(cache = FALSE),
#'     scorer = function(samples, ...) list(score = samples$result == samples$target),
#'     benchmark = "arithmetic", dir = tempfile()
#'   )
#'   tsk$eval(solver_chat = baseline_constant(answer), view = FALSE)
#' }
#' board <- leaderboard(run("2"), run("4"))
#' board
#' unregister_benchmark("arithmetic")
leaderboard <- function(...) {
  inputs <- rlang::list2(...)
  if (!length(inputs)) abort_pb("Give at least one task or log file.", "argument")
  labels <- rlang::names2(inputs)
  rows <- list()
  for (k in seq_along(inputs)) {
    x <- inputs[[k]]
    label <- if (nzchar(labels[[k]])) labels[[k]] else NULL
    if (inherits(x, "Task")) {
      rows <- c(rows, list(task_board_rows(x, label)))
    } else if (is.character(x)) {
      rows <- c(rows, lapply(log_files(x), log_board_rows, label = label))
    } else {
      abort_pb("Argument {k} is neither a vitals Task nor a log file.", "argument")
    }
  }
  out <- do.call(rbind, rows)
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
  board_rows(benchmark, model, task, source)
}

log_board_rows <- function(path, label) {
  header <- jsonlite::parse_json(split_log_text(read_text(path), path)$header)
  benchmark <- header$eval$metadata$benchmark %||% label
  if (is.null(benchmark)) {
    abort_pb("The log names no benchmark: name the argument, as in {.code futurex = path}.",
             "argument", file = path)
  }
  board_rows(benchmark, header$eval$model %||% NA_character_, log_samples(path), path)
}

board_rows <- function(benchmark, model, x, source) {
  entry <- benchmark_entry(benchmark)
  rows <- check_summary_rows(quiet_summary(entry$summary, x))
  rows <- headline_rows(rows, entry$headline %||% summary_keys(rows))
  tibble::tibble(benchmark = benchmark, model = model, metric = rows$key,
                 estimate = as.double(rows$estimate), lower = as.double(rows$lower),
                 upper = as.double(rows$upper), n = as.integer(rows$n),
                 interval = entry$interval, source = source)
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
