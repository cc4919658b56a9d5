# DeltaBench summary: macro and micro precision, recall, F1 and accuracy by group.

deltabench_interval <- "95% normal interval (macro means and accuracies; none for micro)"

# The grouping columns in words, for the plot (summary_title()): DeltaBench's task and subtask.
deltabench_by_labels <- c(task_l1 = "task", task_l2 = "subtask")

ratio0 <- function(x, y) if (y > 0) x / y else 0

#' DeltaBench headline numbers
#'
#' @description
#' DeltaBench's section-level metrics, as fractions from 0 to 1, overall and by group (by default
#' `task_l1`), computed from the critiques (the samples' `result`) as DeltaBench's
#' evaluation does:
#'
#' * **macro** precision, recall and F1: the mean over samples with errors of each sample's
#'   values, with 95% normal intervals;
#' * **micro** precision, recall and F1: from the summed true/false positives and false
#'   negatives;
#' * `accuracy`: the share of answered samples whose critique is `correct` (right conclusion
#'   and, with errors, at least one gold section named), the original's `accuracy`;
#' * `error_free_accuracy`: the share of error-free samples judged error-free.
#'
#' The rows have the columns every predictivebench summary has, one row per group and
#' metric; `n` is the number of samples behind each estimate (samples with errors for the
#' macro and micro metrics, error-free ones for `error_free_accuracy`, all answered ones for
#' `accuracy`).
#'
#' @param x An evaluated [deltabench_task()], its `$get_samples()` tibble, or the log file
#'   it wrote.
#' @param by The grouping column: `"default"` (the default) is the registered one,
#'   `task_l1` (DeltaBench's task), or `NULL` for the overall row only.
#' @param clip_predictions `TRUE` (the default, the original's rule) drops predicted
#'   sections beyond the last gold section before counting. That rule never penalises a
#'   guess past the last error, so a constant guess that names every section scores far
#'   above chance (see `vignette("processbench")`); `FALSE` counts every predicted section.
#' @param failed `"drop"` (the default, as the original) leaves samples without a critique
#'   out of the metrics (they are still counted in `n_failed`, and a message says so);
#'   `"zero"` counts them as critiques that found nothing.
#' @param cluster Clusters of samples for the macro and accuracy intervals (a column of the
#'   samples, or a vector with one cluster per sample): by default the solutions of one `problem` when some problem has
#'   several in the data, else each item's epochs (`id`); with one of each, the naive
#'   interval. `NULL` treats every sample as independent.
#' @returns A tibble with eight rows per group (`"overall"` first), one per `metric`
#'   (`"precision_macro"`, `"recall_macro"`, `"f1_macro"`, `"precision_micro"`,
#'   `"recall_micro"`, `"f1_micro"`, `"accuracy"`, `"error_free_accuracy"`): `group`,
#'   `metric`, `estimate`, `lower`, `upper` (95% normal intervals for the means; `NA` for
#'   the micro metrics), `n`, and the group's counts `n_with_errors`, `n_error_free` and
#'   `n_failed` (samples without a critique, counted in the first two as well). Its class
#'   `benchmark_summary` gives it a plot: `ggplot2::autoplot()` draws a panel per metric and
#'   a bar per group (see [autoplot.benchmark_summary()]). The rows `"overall f1_macro"`,
#'   `"overall precision_macro"`, `"overall recall_macro"` and `"overall accuracy"` (their
#'   keys: group and metric) are the task's headline metrics: the numbers the log's
#'   header shows in `vitals_view()`.
#' @family processbench and deltabench
#' @export
#' @examples
#' samples <- tibble::tibble(
#'   task_l1 = c("math", "math", "code"),
#'   error_sections = list(c(2L, 4L), integer(), 1L),
#'   unuseful_sections = list(integer(), integer(), integer()),
#'   result = c("Conclusion: yes\nError Section Number: 2", "Conclusion: no error", NA)
#' )
#' deltabench_summary(samples)
#' # a task's summary, read from its log file, and its plot
#' tsk <- deltabench_task(deltabench_dataset(version = "sample"),
#'                        dir = tempfile(),
#'                        solver = deltabench_solver(settings = request_settings(cache = FALSE)))
#' tsk$eval(solver_chat = baseline_chat("Conclusion: yes\nError Section Number: 2"),
#'          view = FALSE)
#' s <- deltabench_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
deltabench_summary <- function(x, by = "default", clip_predictions = TRUE,
                               failed = c("drop", "zero"), cluster = "default") {
  failed <- rlang::arg_match(failed)
  by <- summary_by(by, "deltabench")
  x <- benchmark_samples(
    x, c("result", "error_sections", "unuseful_sections"),
    paste("an evaluated DeltaBench task, its log file, or its samples (with {.field result},",
          "{.field error_sections} and {.field unuseful_sections})."),
    by = by
  )
  unuseful <- lapply(x$unuseful_sections, function(s) s %||% integer())
  scored <- deltabench_score_critiques(x$result, x$error_sections, unuseful,
                                       clip_predictions = clip_predictions)
  scored$cluster <- resolve_cluster(x, cluster, benchmark_cluster("deltabench", x)) %||%
    seq_len(nrow(x))
  if (failed == "zero") {
    gold_n <- vapply(seq_len(nrow(x)), function(i) {
      length(unique(c(x$error_sections[[i]], unuseful[[i]])))
    }, 1L)
    f <- scored$failed
    scored$tp[f & scored$has_error] <- 0L
    scored$fp[f & scored$has_error] <- 0L
    scored$fn[f & scored$has_error] <- gold_n[f & scored$has_error]
    scored$precision[f & scored$has_error] <- 0
    scored$recall[f & scored$has_error] <- 0
    scored$f1[f & scored$has_error] <- 0
    scored$correct[f] <- 0L
  }
  group <- if (is.null(by)) rep(NA_character_, nrow(x)) else as.character(x[[by]])
  groups <- if (is.null(by)) character() else sort(unique(group[!is.na(group)]))
  rows <- lapply(c("overall", groups), function(g) {
    keep <- if (g == "overall") rep(TRUE, nrow(x)) else group %in% g
    deltabench_group_row(g, scored[keep, ], failed)
  })
  n_failed <- sum(scored$failed)
  if (n_failed) {
    summary_note(
      c("{n_failed} sample{?s} ha{?s/ve} no critique (a failed request, or one cut off at
         the token limit before it concluded).",
        i = if (failed == "drop") "They are left out of the metrics; {.code failed = \"zero\"} counts them as wrong."
            else "They count as critiques that found nothing."),
      class = "predictivebench_message_failed"
    )
  }
  out <- benchmark_summary(
    do.call(rbind, rows), "deltabench", by = by %||% "group",
    title = summary_title("DeltaBench", "precision, recall, F1 and accuracy", by,
                          deltabench_by_labels),
    by_label = groups_label(by, deltabench_by_labels)
  )
  cuts <- answer_cuts(x)
  with_truncation(out, cuts$cut, cuts$answers)  # R/results-truncation.R
}

deltabench_group_row <- function(group, s, failed) {
  answered <- if (failed == "drop") !s$failed else rep(TRUE, nrow(s))
  with_errors <- s[s$has_error & answered, ]
  error_free <- s[!s$has_error & answered, ]
  tp <- sum(with_errors$tp)
  fp <- sum(with_errors$fp)
  fn <- sum(with_errors$fn)
  p_micro <- ratio0(tp, tp + fp)
  r_micro <- ratio0(tp, tp + fn)
  micro <- function(value) {
    list(mean = if (nrow(with_errors)) value else NA_real_, lower = NA_real_,
         upper = NA_real_, n = nrow(with_errors))
  }
  ci <- function(x, cl) mean_ci(as.double(x), limits = c(0, 1), cluster = shared_cluster(cl))
  ci_errors <- function(x) ci(x, with_errors$cluster)
  rows <- list(
    precision_macro = ci_errors(with_errors$precision),
    recall_macro = ci_errors(with_errors$recall),
    f1_macro = ci_errors(with_errors$f1), precision_micro = micro(p_micro),
    recall_micro = micro(r_micro),
    f1_micro = micro(ratio0(2 * p_micro * r_micro, p_micro + r_micro)),
    accuracy = ci(s$correct[answered], s$cluster[answered]),
    error_free_accuracy = ci(error_free$judge == 0, error_free$cluster)
  )
  do.call(rbind, lapply(names(rows), function(metric) {
    summary_rows(group, metric, rows[[metric]], n_with_errors = sum(s$has_error),
                 n_error_free = sum(!s$has_error), n_failed = sum(s$failed))
  }))
}
