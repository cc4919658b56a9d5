# Which benchmarks exist, how each summarises a run, and which rows are its headline.

the_benchmarks <- new.env(parent = emptyenv())

#' Register a benchmark's summary for logs and leaderboards
#'
#' @description
#' The registry tells [ResultsTask], [benchmark_metrics()] and [leaderboard()] how a
#' benchmark summarises a run. Each benchmark registers itself when the package loads
#' (`rlang::on_load(register_benchmark(...))` in its file); register your own benchmark to
#' put it in the same leaderboard.
#'
#' A summary function takes an evaluated task, its samples (`$get_samples()`), or the
#' samples read back from its log by [log_samples()], and returns the rows every
#' predictivebench summary has (as [grouped_summary()] gives): `group`, `metric`,
#' `estimate` (on the scores' 0-1 scale), `lower`, `upper` and `n`. Each row is named by
#' its headline key ([summary_keys()]): its `group` when every group has one row, else
#' `"<group> <metric>"`.
#'
#' @param name The benchmark's name, such as `"futurex"`.
#' @param summary The summary function, or its name (looked up when used, in the
#'   predictivebench namespace first).
#' @param headline The headline keys ([summary_keys()]) of the summary rows shown in log
#'   headers and leaderboards, the first being the viewer's primary metric (FutureX:
#'   `"overall"` and each level; ProcessBench: `"overall f1"`, `"overall error_acc"`, ...).
#'   These keys are the metric names in the log. `NULL` shows every row the summary
#'   returns, for summaries whose groups depend on the data (one row per arena opponent, per
#'   probsem suite).
#' @param by What a summary's groups are (`"level"`, `"task"`, `"competition"`, `"suite"`),
#'   for axis labels. `"model"` says each group is a model (the competitors of an arena
#'   run): [leaderboard()] then shows each as a model of its own.
#' @param interval What `lower` and `upper` are, for plot labels.
#' @param lower_is_better The summary `metric`s (the column, such as `"js_distance"`) for
#'   which a smaller estimate is better; boards and plots read it from here and never from
#'   a metric's name.
#' @param elo_scale The summary `metric`s whose estimates are ratings on the Elo scale (1000
#'   the mean, 400 points of difference for 10:1 odds) rather than on 0-1, such as the
#'   arena's `"rating"`; boards and plots put them on an axis of their own.
#' @returns `register_benchmark()`: the previous entry, invisibly. `registered_benchmarks()`:
#'   a tibble of the entries.
#' @keywords internal
register_benchmark <- function(name, summary, headline = "overall", by = "group",
                               interval = "95% confidence interval",
                               lower_is_better = character(), elo_scale = character()) {
  check_string(name)
  if (!is.function(summary) && !rlang::is_string(summary)) {
    abort_pb("{.arg summary} must be a function or the name of one.", "argument")
  }
  check_headline(headline, allow_null = TRUE)
  check_string(by)
  check_string(interval)
  if (!is.character(lower_is_better) || anyNA(lower_is_better)) {
    abort_pb("{.arg lower_is_better} must be a character vector of metric names.", "argument")
  }
  if (!is.character(elo_scale) || anyNA(elo_scale)) {
    abort_pb("{.arg elo_scale} must be a character vector of metric names.", "argument")
  }
  old <- the_benchmarks[[name]]
  the_benchmarks[[name]] <- list(name = name, summary = summary, headline = headline, by = by,
                                 interval = interval, lower_is_better = lower_is_better,
                                 elo_scale = elo_scale)
  # list(headline = NULL) would drop the element
  if (is.null(headline)) the_benchmarks[[name]]["headline"] <- list(NULL)
  invisible(old)
}

#' @rdname register_benchmark
unregister_benchmark <- function(name) {
  check_string(name)
  old <- the_benchmarks[[name]]
  if (!is.null(old)) rm(list = name, envir = the_benchmarks)
  invisible(old)
}

#' @rdname register_benchmark
registered_benchmarks <- function() {
  entries <- mget(sort(ls(the_benchmarks)), envir = the_benchmarks)
  tibble::tibble(
    name = names(entries) %||% character(),
    headline = unname(lapply(entries, function(e) e$headline %||% character())),
    by = vapply(entries, function(e) e$by, "", USE.NAMES = FALSE),
    interval = vapply(entries, function(e) e$interval, "", USE.NAMES = FALSE),
    lower_is_better = unname(lapply(entries, function(e) e$lower_is_better %||% character())),
    elo_scale = unname(lapply(entries, function(e) e$elo_scale %||% character()))
  )
}

benchmark_entry <- function(name, call = rlang::caller_env()) {
  entry <- if (rlang::is_string(name)) the_benchmarks[[name]]
  if (is.null(entry)) {
    abort_pb(c("No benchmark {.val {name}} is registered.",
               i = "Registered: {.val {ls(the_benchmarks)}}; see {.fn register_benchmark}."),
             "argument", call = call)
  }
  entry$summary <- summary_function(entry$summary)
  entry
}

summary_function <- function(summary) {
  if (is.function(summary)) return(summary)
  ns <- topenv(environment(benchmark_entry))
  get0(summary, envir = ns, mode = "function") %||% get(summary, mode = "function")
}
