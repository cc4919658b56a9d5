# ProcessBench summary: error and correct accuracies and F1 by group, with intervals.

processbench_interval <- c(
  normal = "95% normal (or Wilson) interval (accuracies), 95% exact binomial interval (F1)",
  bootstrap = "95% bootstrap (or Wilson) interval (accuracies), 95% exact binomial interval (F1)"
)

# The grouping columns in words for the plot: `task_l1` is ProcessBench's split or DeltaBench's
# task, so "task" reads right for both.
processbench_by_labels <- c(task_l1 = "task", task_l2 = "subtask")

#' ProcessBench headline numbers
#'
#' @description
#' ProcessBench's metrics, as fractions from 0 to 1 (ProcessBench printed percentages):
#' **error accuracy** (samples whose label is not `-1`,
#' i.e. with an error: the first wrong step must be found), **correct accuracy** (samples
#' with label `-1`: the model must say there is no error) and **F1**, their harmonic mean,
#' overall and by group (by default `task_l1`, ProcessBench's split). A sample without a
#' prediction counts as wrong. The last row, `"mean of groups"`, is the mean of the groups'
#' F1, the average ProcessBench reports over its four splits.
#'
#' The rows have the columns every predictivebench summary has, one row per group and
#' metric (`error_acc`, `correct_acc`, `f1`), so the numbers of a group are read with
#' `s[s$group == "overall", ]`.
#'
#' A group with no samples on one side has `NA` for that accuracy and for F1, and one whose
#' two accuracies are both 0 has `NA` F1; both are announced with a message, not reported as
#' a silent 0. A message also warns about groups with fewer than 10 samples on one side:
#' DeltaBench has few error-free solutions, so its correct accuracy is very uncertain.
#'
#' @param x An evaluated [processbench_task()], its `$get_samples()` tibble (columns
#'   `label`, `score` or `result`, and the grouping column), or the log file it wrote.
#' @param by The grouping column: `"default"` (the default) is the registered one,
#'   `task_l1`, which holds ProcessBench's split (a table of several splits from
#'   [prepare_task_table()] also has them in `split`); or `NULL` for the overall row only.
#' @param method Interval for the accuracies, `"normal"` or `"bootstrap"` (as in
#'   [grouped_summary()]).
#'   The F1 interval is the same for both: F1 grows with each accuracy, so its bounds are
#'   quantiles of F1 with each side's accuracy drawn from its exact binomial
#'   (Clopper-Pearson) confidence distribution, `Beta(k, n - k + 1)` for the lower bound
#'   and `Beta(k + 1, n - k)` for the upper (`k` right of `n`). It stays honest when a side
#'   is all right or all wrong, where resampling a side gives one F1 every time (an oracle
#'   reads F1 `1`, interval about 0.6 to 1 with 5 samples a side); in simulations with true
#'   accuracies from 0.02 to 0.98 and 5 to 30 samples a side it covers the true F1 in 94%
#'   to 100% of runs, 99% on average (`bench/stats-coverage.R`): a little wider than 95%
#'   needs, never narrower where a side is near 0 or 1.
#' @param times,seed Bootstrap resamples (and draws of the F1 interval) and seed (the global
#'   random stream is untouched).
#' @param cluster Clusters of samples for the accuracies' intervals (a column of the
#'   samples, or a vector with one cluster per sample): by default the solutions of one `problem` when some problem has
#'   several solutions in the data, else each item's epochs (`id`); with one solution per
#'   problem and one epoch this is the naive interval. `NULL` treats every sample as
#'   independent. The F1 interval counts samples, not clusters; for a clustered comparison
#'   of F1 between two models use [compare_models()].
#' @returns A tibble with three rows per group (`"overall"` first), one per `metric`
#'   (`"error_acc"`, `"correct_acc"`, `"f1"`), and one last row `"mean of groups"` (metric
#'   `"f1"`) when there are groups: `group`, `metric`, `estimate`, `lower`, `upper`, `n`
#'   (samples with an error for `error_acc`, without for `correct_acc`, both for `f1`), and
#'   `n_no_prediction` (samples of the group with no valid vote). Its class
#'   `benchmark_summary` gives it a plot: `ggplot2::autoplot()` draws a panel per metric and
#'   a bar per group (see [autoplot.benchmark_summary()]). The rows `"overall f1"`,
#'   `"overall error_acc"` and `"overall correct_acc"` (their keys: group and metric)
#'   are the task's headline metrics: the numbers the log's header shows in
#'   `vitals_view()`.
#' @family processbench and deltabench
#' @export
#' @examples
#' samples <- tibble::tibble(
#'   label = c(2, 0, -1, -1, 3), task_l1 = c("a", "a", "a", "b", "b"),
#'   result = c("2", "1", "-1", "-1", NA)
#' )
#' processbench_summary(samples)
#' # a task's summary, read from its log file, and its plot
#' tsk <- processbench_task(processbench_dataset(version = "sample"), dir = tempfile(),
#'                          solver = processbench_solver(n_votes = 3,
#'                                                       settings = request_settings(cache = FALSE)))
#' tsk$eval(solver_chat = baseline_chat("\\boxed{-1}"), view = FALSE)
#' s <- processbench_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
processbench_summary <- function(x, by = "default", method = c("normal", "bootstrap"),
                                 times = 1000, seed = 1, cluster = "default") {
  method <- rlang::arg_match(method)
  by <- summary_by(by, "processbench")
  items <- processbench_items(x, by, cluster)
  groups <- if (is.null(by)) character() else sort(unique(items$group[!is.na(items$group)]))
  notes <- new.env()
  notes$na <- character()
  notes$small <- character()
  rows <- lapply(c("overall", groups), function(g) {
    keep <- if (g == "overall") rep(TRUE, nrow(items)) else items$group %in% g
    processbench_group_row(g, items[keep, ], method, times, seed, notes)
  })
  out <- do.call(rbind, rows)
  if (length(groups)) {
    f1s <- out$estimate[out$group %in% groups & out$metric == "f1"]
    mean_of_groups <- list(mean = mean(f1s), lower = NA_real_, upper = NA_real_,
                           n = nrow(items))
    out <- rbind(out, summary_rows("mean of groups", "f1", mean_of_groups,
                                   n_no_prediction = sum(is.na(items$prediction))))
    if (anyNA(f1s)) notes$na <- c(notes$na, "the mean of groups' F1, since a group's F1 is NA")
  }
  if (length(notes$na)) {
    summary_note(c("Some metrics are NA, not 0:", rlang::set_names(notes$na, "*")),
                    class = "predictivebench_message_na")
  }
  if (length(notes$small)) {
    summary_note(
      c("Some groups are tiny, so their accuracy and F1 are very uncertain:",
        rlang::set_names(notes$small, "*")),
      class = "predictivebench_message_small_group"
    )
  }
  out <- benchmark_summary(
    out, "processbench", by = by %||% "group", method = method,
    title = summary_title("ProcessBench", "accuracy and F1", by, processbench_by_labels),
    by_label = groups_label(by, processbench_by_labels)
  )
  with_truncation(out, items$cut, items$answers)  # R/results-truncation.R: votes cut off
}

processbench_items <- function(x, by, cluster = NULL, call = rlang::caller_env()) {
  x <- processbench_samples(x, by = by, call = call)
  cluster <- resolve_cluster(x, cluster, benchmark_cluster("processbench", x))
  prediction <- if ("result" %in% names(x)) processbench_prediction(x$result) else
    rep(NA_integer_, nrow(x))
  match <- if ("score" %in% names(x)) {
    as_score(x$score) %in% 1
  } else {
    !is.na(prediction) & prediction == x$label
  }
  cuts <- answer_cuts(x)
  tibble::tibble(label = x$label, match = match, prediction = prediction,
                 group = if (is.null(by)) NA_character_ else as.character(x[[by]]),
                 cluster = cluster %||% seq_len(nrow(x)), cut = cuts$cut,
                 answers = cuts$answers)
}

processbench_samples <- function(x, by = NULL, call = rlang::caller_env()) {
  x <- benchmark_samples(
    x, "label",
    "an evaluated ProcessBench task, its samples (with {.field label}) or its log file.",
    by = by,
    call = call
  )
  if (!any(c("score", "result") %in% names(x))) {
    abort_pb("{.arg x} must have a {.field score} or {.field result} column.", "argument",
             call = call)
  }
  x
}

processbench_group_row <- function(group, items, method, times, seed, notes) {
  err <- as.double(items$match[items$label != -1])
  cor <- as.double(items$match[items$label == -1])
  e <- mean_ci(err, method = method, times = times, seed = seed, limits = c(0, 1),
               cluster = shared_cluster(items$cluster[items$label != -1]))
  c <- mean_ci(cor, method = method, times = times, seed = seed, limits = c(0, 1),
               cluster = shared_cluster(items$cluster[items$label == -1]))
  f1 <- f1_score(e$mean, c$mean)
  for (side in list(list("with an error", length(err)), list("without an error", length(cor)))) {
    if (side[[2]] == 0) {
      notes$na <- c(notes$na, paste0(group, ": no sample ", side[[1]], ", so that accuracy and F1"))
    } else if (side[[2]] < 10) {
      notes$small <- c(notes$small, paste0(group, ": ", side[[2]], " sample",
                                           if (side[[2]] > 1) "s", " ", side[[1]]))
    }
  }
  if (length(err) && length(cor) && e$mean == 0 && c$mean == 0) {
    notes$na <- c(notes$na, paste0(group, ": F1, since both accuracies are 0"))
  }
  bounds <- if (is.na(f1)) c(NA_real_, NA_real_) else
    processbench_f1_interval(err, cor, times = times, seed = seed)
  f <- list(mean = f1, lower = bounds[[1]], upper = bounds[[2]], n = e$n + c$n)
  no_prediction <- sum(is.na(items$prediction))
  rbind(summary_rows(group, "error_acc", e, n_no_prediction = no_prediction),
        summary_rows(group, "correct_acc", c, n_no_prediction = no_prediction),
        summary_rows(group, "f1", f, n_no_prediction = no_prediction))
}


# The 95% interval of F1 from each side's Clopper-Pearson distribution: F1 grows with each
# accuracy, so its bounds are F1's 2.5% quantile with sides drawn from Beta(k, n - k + 1) and
# 97.5% from Beta(k + 1, n - k). Unlike resampling, honest when a side is all right or all
# wrong (coverage: bench/stats-coverage.R).
processbench_f1_interval <- function(err, cor, times = 1000, seed = 1, level = 0.95) {
  k <- c(sum(err), sum(cor))
  n <- c(length(err), length(cor))
  alpha <- (1 - level) / 2
  draws <- with_seed(seed, list(
    lower = f1_score(stats::rbeta(times, k[[1]], n[[1]] - k[[1]] + 1),
                     stats::rbeta(times, k[[2]], n[[2]] - k[[2]] + 1)),
    upper = f1_score(stats::rbeta(times, k[[1]] + 1, n[[1]] - k[[1]]),
                     stats::rbeta(times, k[[2]] + 1, n[[2]] - k[[2]]))
  ))
  # two accuracies drawn at 0 (a side with none right) have F1 0 in the limit, not NA
  draws$lower[is.na(draws$lower)] <- 0
  c(stats::quantile(draws$lower, alpha, names = FALSE),
    stats::quantile(draws$upper, 1 - alpha, names = FALSE))
}
