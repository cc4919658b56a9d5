# A benchmark's summary as vitals metrics, so the log header shows the benchmark's numbers.

#' Headline metrics for a vitals Task from a benchmark's summary
#'
#' @description
#' vitals calls each metric with the vector of scores alone
#' (`metric(task$get_samples()$score)`), stores the single number it returns under the
#' metric's name in the log header, and shows the first metric as the log's primary number.
#' With no `metrics`, it uses its own `accuracy`, which is the mean score **times 100**
#' (0.152 shows as 15.152) and drops silently when any score is `NA`; a benchmark whose
#' headline is not a plain mean (FutureX's level-weighted overall, ProcessBench's F1) can't
#' be computed from the scores alone.
#'
#' `summary_metrics()` returns metric functions that compute the benchmark's summary on the
#' task being measured (the summary is computed once for all of them) and return its
#' `estimate` for one headline row each, named by the row's key (`summary_keys()`),
#' unchanged: the header then shows exactly what the summary prints. vitals calls a metric
#' with the scores alone, so the functions are told their task: a `ResultsTask` does that
#' itself; for a plain [vitals::Task], give `task` and set them with `$set_metrics()` (see
#' the example).
#' `benchmark_metrics()` does the same for a registered benchmark (see
#' [new_benchmark()]); for an unregistered one, it gives `mean`, the mean of the scores
#' that are not `NA`; for one registered with `headline = NULL` (groups that depend on the
#' data), `NULL`: a `ResultsTask` then reports every group of the summary.
#'
#' @param summary A summary function (see [new_benchmark()]).
#' @param headline The headline keys of the summary rows to report (see `summary_keys()`:
#'   the `group`, or `"<group> <metric>"` when groups have several rows), the first being
#'   the viewer's primary metric.
#' @param task The task whose summary the metrics report; a `ResultsTask` sets it itself.
#' @param benchmark A benchmark name.
#' @returns A named list of functions, for `metrics =` of [vitals::Task].
#' @noRd
summary_metrics <- function(summary, headline = "overall", task = NULL) {
  if (!is.function(summary)) abort_pb("{.arg summary} must be a function.", "argument")
  check_headline(headline)
  if (!is.null(task) && !inherits(task, "Task")) {
    abort_pb("{.arg task} must be a vitals Task.", "argument")
  }
  state <- new.env(parent = emptyenv())
  state$task <- task
  metrics <- lapply(headline, function(key) {
    structure(function(scores) {
      rows <- measured_summary(state, summary, scores)
      as.double(headline_rows(rows, key)$estimate)
    }, predictivebench_state = state)
  })
  names(metrics) <- headline
  metrics
}

bind_summary_metrics <- function(metrics, task) {
  for (fn in metrics) {
    state <- attr(fn, "predictivebench_state")
    if (is.environment(state)) state$task <- task
  }
  invisible(metrics)
}

#' @noRd
benchmark_metrics <- function(benchmark) {
  check_string(benchmark)
  b <- benchmark_named(benchmark)
  if (is.null(b)) return(list(mean = function(scores) mean(as_score(scores), na.rm = TRUE)))
  if (is.null(benchmark_headline(b))) return(NULL)
  summary_metrics(benchmark_summary_fn(b), benchmark_headline(b))
}

# The summary of the task being measured, computed once per state of its samples.
measured_summary <- function(state, summary, scores) {
  task <- state$task
  if (is.null(task) || !identical(task$get_samples()$score, scores)) {
    abort_pb(c("Summary metrics are computed on the task they measure.",
               i = "Use a {.cls ResultsTask}, or give the task: {.code
                    tsk$set_metrics(summary_metrics(summary, task = tsk))}."), "argument")
  }
  samples <- task$get_samples()
  if (!identical(state$task, task) || !identical(state$samples, samples)) {
    # the summary's notes (skipped items, tiny groups) are for the user who calls it
    state$rows <- check_summary_rows(quiet_summary(summary, task))
    state$task <- task
    state$samples <- samples
  }
  state$rows
}

quiet_summary <- function(summary, x) {
  withr::local_options(predictivebench.quiet_summary_notes = TRUE)
  withCallingHandlers(summary(x), message = function(m) {
    if (any(startsWith(class(m), "predictivebench_message"))) invokeRestart("muffleMessage")
  })
}

# A summary's note to its caller, not even formatted inside quiet_summary() (~5 ms a note,
# paid for every cell a set measures).
summary_note <- function(message, class, .envir = parent.frame()) {
  if (isTRUE(getOption("predictivebench.quiet_summary_notes"))) return(invisible())
  cli::cli_inform(message, class = class, .envir = .envir)
}

# A summary in the shape every <bench>_summary() returns (see summary_rows()).
check_summary_rows <- function(rows, call = rlang::caller_env()) {
  if (!is.data.frame(rows)) {
    abort_pb("A summary must return a data frame.", "argument", call = call)
  }
  missing <- setdiff(summary_columns, names(rows))
  if (length(missing)) {
    abort_pb("A summary must have the columns {.field {summary_columns}}.", "argument",
             field = missing[[1]], call = call)
  }
  tibble::as_tibble(rows)
}

summary_columns <- c("group", "metric", "estimate", "lower", "upper", "n")

#' The headline key of each summary row
#'
#' @description
#' Log headers, [leaderboard()] rows and plots name a summary row by one key: its `group`
#' when every group of the summary has one row (FutureX: `"overall"`, `"level 1"`, ...), else
#' `"<group> <metric>"` (ProcessBench: `"overall f1"`, `"overall error_acc"`, ...,
#' `"mean of groups f1"`). The `headline` of [new_benchmark()] and
#' `summary_metrics()` lists such keys.
#'
#' @param rows A summary: a tibble with the columns `group`, `metric`, `estimate`, `lower`,
#'   `upper` and `n` (as [grouped_summary()] returns).
#' @returns A character vector, one key per row.
#' @noRd
summary_keys <- function(rows) {
  rows <- check_summary_rows(rows)
  group <- as.character(rows$group)
  keys <- if (anyDuplicated(group)) paste(group, rows$metric) else group
  if (anyDuplicated(keys)) {
    abort_pb("Summary row {.val {keys[duplicated(keys)][1]}} appears twice.", "argument",
             row = which(duplicated(keys))[1], field = "metric")
  }
  keys
}

headline_rows <- function(rows, keys, call = rlang::caller_env()) {
  all_keys <- summary_keys(rows)
  at <- match(keys, all_keys)
  if (anyNA(at)) {
    abort_pb(c("The summary has no single {.val {keys[is.na(at)][1]}} row.",
               i = "Its rows are {.val {all_keys}}."), "argument", field = "group",
             call = call)
  }
  out <- rows[at, , drop = FALSE]
  out$key <- keys
  out
}

# The measured headline rows for the header, with the board's labels, so the board reads a
# log without its samples or its benchmark registered.
headline_metadata <- function(metrics) {
  state <- if (length(metrics)) attr(metrics[[1]], "predictivebench_state")
  if (!is.environment(state) || is.null(state$rows)) return(NULL)
  rows <- headline_rows(state$rows, names(metrics))
  benchmark <- if (inherits(state$task, "ResultsTask")) state$task$benchmark
  labels <- if (!is.null(benchmark_named(benchmark))) board_labels(benchmark, rows)
  number <- function(x) if (is.na(x)) NULL else exact_json(as.double(x))
  lapply(seq_len(nrow(rows)), function(i) {
    row <- list(key = rows$key[[i]], group = as.character(rows$group[[i]]),
                metric = as.character(rows$metric[[i]]), estimate = number(rows$estimate[[i]]),
                lower = number(rows$lower[[i]]), upper = number(rows$upper[[i]]),
                n = as.integer(rows$n[[i]]))
    if (!is.null(labels)) {
      row[c("interval", "better", "scale")] <- list(labels$interval[[i]], labels$better[[i]],
                                                    labels$scale[[i]])
      if (!is.na(labels$model[[i]])) row$model <- labels$model[[i]]
    }
    row[!vapply(row, is.null, TRUE)]
  })
}

# What the board shows beside each row: interval label, direction, scale, and its model.
board_labels <- function(benchmark, rows, call = rlang::caller_env()) {
  b <- require_benchmark(benchmark, call = call)
  n <- nrow(rows)
  list(interval = rep(benchmark_interval(b), n),
       better = ifelse(rows$metric %in% benchmark_lower_is_better(b), "lower", "higher"),
       scale = ifelse(rows$metric %in% benchmark_elo_scale(b), "Elo", "0-1"),
       model = if (identical(benchmark_by(b), "model")) as.character(rows$group) else
         rep(NA_character_, n))
}
