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
#' task being measured (found on the call stack, so they work in any [vitals::Task], and
#' the summary is computed once for all of them) and return its `estimate` for one headline
#' row each, unchanged: the header then shows exactly what the summary prints.
#' `benchmark_metrics()` does the same for a registered benchmark (see
#' [register_benchmark()]); for an unregistered one, it gives `mean`, the mean of the scores
#' that are not `NA`; for one registered with `headline = NULL` (groups that depend on the
#' data), `NULL`: a [ResultsTask] then reports every group of the summary.
#'
#' @param summary A summary function (see [register_benchmark()]).
#' @param headline The summary's `group` values to report, the first being the primary one.
#' @param benchmark A benchmark name.
#' @returns A named list of functions, for `metrics =` of [vitals::Task].
#' @export
#' @examples
#' summary <- function(x) grouped_summary(x$get_samples()$score, limits = c(0, 1))
#' tsk <- vitals::Task$new(
#'   dataset = tibble::tibble(input = c("1+1?", "2+2?"), target = c("2", "4")),
#'   solver = generate_solver(cache = FALSE),
#'   scorer = function(samples, ...) list(score = as.double(samples$result == samples$target)),
#'   metrics = summary_metrics(summary),
#'   dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
#' tsk$metrics
summary_metrics <- function(summary, headline = "overall") {
  if (!is.function(summary)) abort_pb("{.arg summary} must be a function.", "argument")
  if (!is.character(headline) || !length(headline) || anyNA(headline)) {
    abort_pb("{.arg headline} must name at least one summary group.", "argument")
  }
  state <- new.env(parent = emptyenv())
  metrics <- lapply(headline, function(row) {
    function(scores) {
      rows <- measured_summary(state, summary, scores)
      value <- rows$estimate[rows$group == row]
      if (length(value) != 1) {
        abort_pb("The summary has no single {.val {row}} row.", "argument", field = "group")
      }
      as.double(value)
    }
  })
  names(metrics) <- headline
  metrics
}

#' @rdname summary_metrics
#' @export
benchmark_metrics <- function(benchmark) {
  check_string(benchmark)
  if (is.null(the_benchmarks[[benchmark]])) {
    return(list(mean = function(scores) mean(as_score(scores), na.rm = TRUE)))
  }
  entry <- benchmark_entry(benchmark)
  if (is.null(entry$headline)) return(NULL)
  summary_metrics(entry$summary, entry$headline)
}

# The summary of the task whose scores are being measured, computed once per state of its
# samples.
measured_summary <- function(state, summary, scores) {
  task <- measured_task(scores)
  samples <- task$get_samples()
  if (!identical(state$task, task) || !identical(state$samples, samples)) {
    state$rows <- check_summary_rows(summary(task))
    state$task <- task
    state$samples <- samples
  }
  state$rows
}

# vitals calls metric(self$get_samples()$score) inside the Task's private apply_metrics():
# the Task is the `self` of a calling frame.
measured_task <- function(scores) {
  for (i in rev(seq_len(sys.nframe()))) {
    self <- get0("self", envir = sys.frame(i), inherits = TRUE)
    if (inherits(self, "Task") && identical(self$get_samples()$score, scores)) return(self)
  }
  abort_pb(c("Summary metrics are computed by a vitals Task.",
             i = "Give them as {.code metrics =} to {.code vitals::Task$new()}."), "argument")
}

# A summary as rows with `group`, `estimate`, `lower`, `upper`, `n`.
check_summary_rows <- function(rows) {
  if (!is.data.frame(rows)) abort_pb("A summary must return a data frame.", "argument")
  if (!"estimate" %in% names(rows) && "mean" %in% names(rows)) rows$estimate <- rows$mean
  missing <- setdiff(c("group", "estimate", "lower", "upper", "n"), names(rows))
  if (length(missing)) {
    abort_pb("A summary must have the columns group, estimate, lower, upper and n.",
             "argument", field = missing[[1]])
  }
  tibble::as_tibble(rows)
}
