# DSBench: the original's two headline accuracies, with intervals, tokens and cost.

#' DSBench headline numbers
#'
#' The original prints two accuracies: over all questions, and the unweighted mean of the
#' per-competition accuracies. `dsbench_summary()` gives both with 95% intervals (a normal
#' interval over questions; for the competition mean, a normal interval over the
#' competitions' accuracies, or with `method = "bootstrap"` resampled competitions; bounds
#' are clipped to `[0, 1]`), the
#' number of questions, competitions and failed requests/judgements, and the tokens and
#' cost of the solver and the judge from the samples' metadata.
#'
#' @param x An evaluated [dsbench_task()] or its `$get_samples()` tibble.
#' @param by_competition Also return one row per competition.
#' @inheritParams futurex_summary
#' @returns A tibble with rows `questions` and `competitions` (and, with `by_competition`,
#'   one per competition): `group`, `accuracy`, `lower`, `upper`, `n`, plus columns
#'   `solver_failures`, `judge_failures`, `input_tokens`, `output_tokens`, `cost` on the
#'   first row (`NA` elsewhere; cost `NA` when the provider gives no prices).
#' @export
#' @examples
#' data <- dsbench_dataset()
#' tsk <- dsbench_task(solver = dsbench_solver(cache = FALSE),
#'                     scorer = dsbench_scorer_exact(), dir = tempfile())
#' tsk$eval(solver_chat = baseline_echo(data, "target"), view = FALSE)
#' dsbench_summary(tsk, by_competition = TRUE)
dsbench_summary <- function(x, method = c("normal", "bootstrap"), times = 1000, seed = 1,
                            by_competition = FALSE) {
  method <- rlang::arg_match(method)
  check_flag(by_competition)
  if (inherits(x, "Task")) x <- x$get_samples()
  if (!is.data.frame(x) || !all(c("score", "competition_id") %in% names(x))) {
    abort_pb("{.arg x} must be an evaluated DSBench task or its samples.", "argument")
  }
  correct <- as.double(as.character(x$score) == "C")
  questions <- mean_ci(correct, method = method, times = times, seed = seed,
                       limits = c(0, 1))
  per <- tapply(correct, x$competition_id, mean)
  competitions <- mean_ci(as.double(per), method = method, times = times, seed = seed,
                          limits = c(0, 1))
  # Failed requests report no usage (NA) and count as 0; all NA (no prices) stays NA.
  meta_sum <- function(column, field) {
    if (!column %in% names(x)) return(0)
    values <- vapply(x[[column]], function(m) as.double(m[[field]] %||% NA), 1)
    if (length(values) && all(is.na(values))) return(NA_real_)
    sum(values, na.rm = TRUE)
  }
  failures <- function(column, field) {
    if (!column %in% names(x)) return(NA_integer_)
    sum(vapply(x[[column]], function(m) !is.null(m[[field]]) && !is.na(m[[field]]), TRUE))
  }
  top <- tibble::tibble(
    group = c("questions", "competitions"),
    accuracy = c(questions$mean, competitions$mean),
    lower = c(questions$lower, competitions$lower),
    upper = c(questions$upper, competitions$upper),
    n = c(questions$n, competitions$n),
    solver_failures = c(failures("solver_metadata", "error"), NA),
    judge_failures = c(failures("scorer_metadata", "judge_error"), NA),
    input_tokens = c(add_na(meta_sum("solver_metadata", "input_tokens"),
                            meta_sum("scorer_metadata", "input_tokens")), NA),
    output_tokens = c(add_na(meta_sum("solver_metadata", "output_tokens"),
                             meta_sum("scorer_metadata", "output_tokens")), NA),
    cost = c(add_na(meta_sum("solver_metadata", "cost"), meta_sum("scorer_metadata", "cost")),
             NA)
  )
  if (!by_competition) return(top)
  rows <- lapply(names(per), function(cid) {
    ci <- mean_ci(correct[x$competition_id == cid], method = method, times = times,
                  seed = seed, limits = c(0, 1))
    tibble::tibble(group = cid, accuracy = ci$mean, lower = ci$lower,
                   upper = ci$upper,
                   n = ci$n, solver_failures = NA, judge_failures = NA, input_tokens = NA,
                   output_tokens = NA, cost = NA)
  })
  rbind(top, do.call(rbind, rows))
}

add_na <- function(a, b) if (is.na(a) && is.na(b)) NA_real_ else sum(a, b, na.rm = TRUE)
