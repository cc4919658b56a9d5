# DSBench: the original's two headline accuracies, with intervals, tokens and cost.

#' DSBench headline numbers
#'
#' The original prints two accuracies: over all questions, and the unweighted mean of the
#' per-competition accuracies. `dsbench_summary()` gives both with 95% intervals (a normal
#' interval over questions, clustered by competition (see `cluster`); for the competition mean, a normal interval over the
#' competitions' accuracies, or with `method = "bootstrap"` resampled competitions; bounds
#' are clipped to `[0, 1]`), the
#' number of questions, competitions and failed requests/judgements, and the tokens and
#' cost of the solver and the judge from the samples' metadata.
#'
#' @param x An evaluated [dsbench_task()], its `$get_samples()` tibble, or its log file
#'   (`tsk$log_path`): the same numbers from each.
#' @param by_competition Also return one row per competition.
#' @param cluster Clusters of samples for the `questions` row (a column of the samples, a
#'   vector with one cluster per sample, or `NULL`): by
#'   default the questions of one competition (`"competition_id"`), which share its data
#'   and workbook, so the interval is the clustered one (a cluster-robust standard error; the bootstrap
#'   draws whole competitions). `NULL` treats every question as independent (the naive
#'   interval). With a single competition the clustered interval can't be estimated
#'   and is `NA`: use `NULL` (or `"id"` for epochs) there. The `competitions` row is already a mean over competitions and is not
#'   affected; per-competition rows cluster only the epochs of one question (`id`).
#' @param reducer `NULL` (the default: every epoch's verdict, as the original counts its
#'   one run), or an epoch reducer of [reduce_epochs()]: `"mean"`, `"mode"`, `"max"`,
#'   `"pass_at_k"`, `"pass_hat_k"` or `"at_least_k"`. Each question's epochs are reduced to
#'   one score first, so `n` counts questions and every interval is over questions (still
#'   clustered by competition on the `questions` row); the metric becomes
#'   `"accuracy_<reducer>"`, such as `"accuracy_pass_at_2"`. Failures, tokens and cost still
#'   count every epoch.
#' @param k The `k` of `"pass_at_k"`, `"pass_hat_k"` and `"at_least_k"`, at most the epochs.
#' @inheritParams futurex_summary
#' @returns A tibble in the shape of every predictivebench summary, with rows `questions`
#'   and `competitions` (and, with `by_competition`, one per competition): `group`,
#'   `metric` (`"accuracy"`, or `"accuracy_<reducer>"`), `estimate` (on the 0-1 scale),
#'   `lower`, `upper`, `n`
#'   (questions, or competitions on the `competitions` row), then `n_missing` (unscored
#'   samples) and `solver_failures`, `judge_failures`, `input_tokens`, `output_tokens`,
#'   `cost` on the first row (`NA` elsewhere). The cost is `NA` (unknown) when any request
#'   the run paid for has no known price (ellmer knows none for the model), whatever the
#'   others cost; answers from the cache cost 0.
#'   Its class `benchmark_summary` gives it a plot: `ggplot2::autoplot()` draws it by
#'   competition.
#' @family dsbench
#' @export
#' @examples
#' data <- dsbench_dataset(version = "sample")
#' # offline: an oracle answers with the targets, a baseline judge says "True"
#' no_cache <- request_settings(cache = FALSE)
#' tsk <- dsbench_task(data, solver = dsbench_solver(settings = no_cache),
#'                     scorer = dsbench_scorer(scorer_chat = baseline_chat("True"),
#'                                             settings = no_cache),
#'                     dir = tempfile())
#' oracle <- baseline_chat(function(prompt) data$target[match(prompt, data$input)])
#' tsk$eval(solver_chat = oracle, view = FALSE)
#' s <- dsbench_summary(tsk, by_competition = TRUE)
#' s
#' dsbench_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
dsbench_summary <- function(x, method = c("normal", "bootstrap"), times = 1000, seed = 1,
                            by_competition = FALSE, cluster = "default", reducer = NULL,
                            k = NULL) {
  method <- rlang::arg_match(method)
  check_flag(by_competition)
  spec <- epoch_reducer(reducer, k)
  metric <- reduced_metric("accuracy", spec)
  x <- benchmark_samples(x, c("score", "competition_id"),
                         "an evaluated DSBench task or its samples.")
  cl <- resolve_cluster(x, cluster, benchmark_cluster("dsbench", x))
  epochs <- x  # every epoch: failures, tokens, cost and cut answers count them all
  if (!is.null(spec)) {
    cl <- cl[!duplicated(as.character(x$id))]
    x <- reduce_epoch_rows(x, spec)  # R/stats-epochs.R
  }
  correct <- as_score(x$score)
  columns <- c("group", "metric", "estimate", "lower", "upper", "n", "n_missing")
  questions <- grouped_summary(correct, metric = metric, method = method, times = times,
                               seed = seed, limits = c(0, 1), cluster = cl)[columns]
  questions$group[[1]] <- "questions"
  # Within one competition, only the epochs of a question are clustered.
  rows <- if (by_competition) {
    grouped_summary(correct, by = x$competition_id, metric = metric, method = method,
                    times = times, seed = seed, limits = c(0, 1),
                    cluster = shared_cluster(x[["id"]]))[-1, columns]
  }
  competitions <- mean_ci(as.double(tapply(correct, x$competition_id, mean)), method = method,
                          times = times, seed = seed, limits = c(0, 1))
  out <- rbind(questions,
               summary_rows("competitions", metric, competitions,
                            n_missing = competitions$n_missing),
               rows)
  first <- function(value) c(value, rep(NA, nrow(out) - 1))
  out$solver_failures <- first(dsbench_failures(epochs, "solver_metadata", "error"))
  out$judge_failures <- first(dsbench_failures(epochs, "scorer_metadata", "judge_error"))
  usage <- lapply(c(input_tokens = "input_tokens", output_tokens = "output_tokens",
                    cost = "cost"), function(field) {
    c(dsbench_usage(epochs, "solver_metadata", field),
      dsbench_usage(epochs, "scorer_metadata", field))
  })
  for (field in c("input_tokens", "output_tokens")) {
    tokens <- usage[[field]]
    out[[field]] <- first(if (length(tokens) && all(is.na(tokens))) NA_real_ else
      sum(tokens, na.rm = TRUE))
  }
  # a paid request at no known price makes the whole cost unknown (R/results-usage.R)
  out$cost <- first(known_cost(usage$cost, usage$input_tokens + zero_na(usage$output_tokens)))
  out <- benchmark_summary(out, "dsbench", method = method,
                           title = summary_title("DSBench", "accuracy", "competition"))
  cuts <- answer_cuts(epochs)
  dsbench_note_judge_cuts(epochs)
  with_truncation(out, cuts$cut, cuts$answers)  # R/results-truncation.R
}

# A reasoning judge that thinks past the original's `max_tokens = 256` gives no verdict, and
# its question counts as incorrect: say how many.
dsbench_note_judge_cuts <- function(x) {
  if (!"scorer_metadata" %in% names(x)) return(invisible())
  cut <- sum(vapply(x$scorer_metadata, function(m) isTRUE(m$judge_truncated), TRUE))
  if (!cut) return(invisible())
  summary_note(
    c("{cut} of {nrow(x)} judge verdict{?s} {?was/were} cut off at the judge's token limit
       (the original's {.code max_tokens = 256}) and count{?s/} as incorrect.",
      i = "Use a judge that answers without long reasoning, as the original's gpt-4o did."),
    class = "predictivebench_message_truncated"
  )
}

# One usage field of every sample's metadata (NA for failed requests); none without it.
dsbench_usage <- function(x, column, field) {
  if (!column %in% names(x)) return(double())
  vapply(x[[column]], function(m) as.double(m[[field]] %||% NA), 1)
}

dsbench_failures <- function(x, column, field) {
  if (!column %in% names(x)) return(NA_integer_)
  sum(vapply(x[[column]], function(m) !is.null(m[[field]]) && !is.na(m[[field]]), TRUE))
}
