# FutureX summary: the level-weighted overall score and each level's, with intervals.

futurex_weights <- c(`1` = 0.1, `2` = 0.2, `3` = 0.3, `4` = 0.4)

futurex_interval <- c(
  normal = "95% normal interval (levels' standard errors combined)",
  bootstrap = "95% bootstrap interval (items resampled within levels)"
)

#' FutureX headline numbers
#'
#' The reference evaluator's summary: the mean score of each level, the number of items
#' scored, and the overall score `sum(mean(level) * weight)` over the levels present
#' (weights 0.1, 0.2, 0.3, 0.4, no renormalization), each with a 95% interval.
#'
#' A level without a scored item weighs 0 in the overall, as in FutureX's `eval.py`, so a
#' subset without levels 3 and 4 (`futurex_dataset(version = "sample", limit = 5)`) has an
#' overall of at most 0.3. The overall stays eval.py's (the headline); beside it, the row
#' `overall_present_levels` is the overall over the levels present (divided by their
#' weights' sum, interval included), and the summary says which levels are missing. The overall
#' interval combines the levels' standard errors (`sqrt(sum(w^2 * var / n))`), or, with
#' `method = "bootstrap"`, resamples items within each level. Intervals are clipped to
#' `[0, 1]`, the range of the scores. A level whose scores are all 0 or all 1 gets a Wilson
#' interval rather than a zero-width one, and its width stands in for that
#' level's standard error in the overall interval.
#'
#' @param x An evaluated [futurex_task()], its `$get_samples()` tibble, the log file it
#'   wrote, or the result of [futurex_score()].
#' @param method Interval method, `"normal"` or `"bootstrap"`.
#' @param times,seed Bootstrap resamples and seed.
#' @param cluster Clusters of samples (`"default"`, a column name, or `NULL`): by default
#'   each item's epochs form one cluster (`"id"`), so several epochs of an item are not counted as
#'   independent evidence; with one epoch this is the naive interval. `NULL` treats every
#'   sample as independent. The levels' standard errors are then clustered (CR1) and the
#'   bootstrap draws whole clusters within each level.
#' @param reducer `NULL` (the default: every epoch's score, as FutureX's `eval.py` averages
#'   them), or an epoch reducer of [reduce_epochs()]: `"mean"`, `"mode"`, `"max"`,
#'   `"pass_at_k"`, `"pass_hat_k"` or `"at_least_k"`. Each item's epochs are reduced to one
#'   score first (an epoch is correct when it scores 1: a numeric answer scored 0.8 is not),
#'   so `n` counts items and the intervals are over items; the metric becomes
#'   `"score_<reducer>"`, such as `"score_pass_at_2"`.
#' @param k The `k` of `"pass_at_k"`, `"pass_hat_k"` and `"at_least_k"`, at most the epochs.
#' @returns A tibble with rows `overall`, `overall_present_levels` and `level 1` to
#'   `level 4`, in the columns every predictivebench summary has: `group`, `metric`
#'   (`"score"`, or `"score_<reducer>"`), `estimate` (the mean score,
#'   or for `overall` the level-weighted score), `lower`, `upper`, `n` (items scored), then
#'   `n_missing` (items skipped: no answer) and `weight`. Its class `benchmark_summary` gives
#'   it a plot: `ggplot2::autoplot()` draws a bar per row (see [autoplot.benchmark_summary()]). The
#'   rows are the task's headline metrics: the numbers
#'   the log's header shows in `vitals_view()`.
#' @family futurex
#' @export
#' @examples
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE)
#' s <- futurex_summary(tsk)
#' s
#' # the same numbers from the log file
#' futurex_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
futurex_summary <- function(x, method = c("normal", "bootstrap"), times = 1000, seed = 1,
                            cluster = "default", reducer = NULL, k = NULL) {
  method <- rlang::arg_match(method)
  spec <- epoch_reducer(reducer, k)
  metric <- reduced_metric("score", spec)
  items <- futurex_items(x)
  items$cluster <- resolve_cluster(items, cluster, benchmark_cluster("futurex", items)) %||%
    seq_len(nrow(items))
  cuts <- items[c("cut", "answers")]  # every epoch's answer, before any reduction
  if (!is.null(spec)) items <- reduce_epoch_rows(items, spec)  # R/stats-epochs.R
  levels <- 1:4
  rows <- lapply(levels, function(l) {
    ci <- mean_ci(items$score[items$level == l], method = method, times = times, seed = seed,
                  limits = c(0, 1), cluster = shared_cluster(items$cluster[items$level == l]))
    summary_rows(paste("level", l), metric, ci, n_missing = ci$n_missing,
                 weight = futurex_weights[[l]])
  })
  by_level <- do.call(rbind, rows)
  present <- by_level$n > 0
  overall <- sum(by_level$estimate[present] * by_level$weight[present])
  bounds <- futurex_overall_interval(items, by_level, method, times, seed)
  top <- summary_rows(
    "overall", metric,
    list(mean = if (any(present)) overall else NA_real_, lower = bounds[[1]],
         upper = bounds[[2]], n = sum(by_level$n)),
    n_missing = sum(by_level$n_missing), weight = sum(by_level$weight[present])
  )
  rescaled <- futurex_present_levels_row(top)
  absent <- by_level$group[!present]
  if (any(present) && length(absent)) {
    summary_note(
      c("{.val {absent}} {?has/have} no scored item: the overall counts {?it/them} as 0, as
         FutureX's {.file eval.py} does, so it is at most {top$weight}.",
        i = "{.field overall_present_levels} is the overall over the levels present
             ({signif(rescaled$estimate, 3)})."),
      class = "predictivebench_message_missing_levels"
    )
  }
  skipped <- sum(by_level$n_missing)
  if (skipped) {
    summary_note("{skipped} item{?s} without an answer {?was/were} skipped.",
                    class = "predictivebench_message_skipped")
  }
  out <- benchmark_summary(rbind(top, rescaled, by_level), "futurex", method = method,
                           title = summary_title("FutureX", "score", "level"))
  with_truncation(out, cuts$cut, cuts$answers)  # R/results-truncation.R
}

# The overall over the levels present: eval.py's overall (and its interval) divided by the
# present levels' weights, so a subset without levels 3-4 is not capped at 0.3.
futurex_present_levels_row <- function(top) {
  row <- top
  row$group <- "overall_present_levels"
  scale <- if (isTRUE(top$weight > 0)) top$weight else NA_real_
  row[c("estimate", "lower", "upper")] <- top[c("estimate", "lower", "upper")] / scale
  row$weight <- if (is.na(scale)) NA_real_ else 1
  row
}

futurex_overall_interval <- function(items, by_level, method, times, seed) {
  present <- by_level$n > 0
  if (!any(present)) return(c(NA_real_, NA_real_))
  if (method == "normal") {
    z <- stats::qnorm(0.975)
    var_terms <- vapply(which(present), function(l) {
      keep <- items$level == l & !is.na(items$score)
      s <- items$score[keep]
      # an all-0 or all-1 level has a Wilson interval (mean_ci()): its width stands in for the
      # standard error var() would put at zero
      se <- if (length(s) > 1 && stats::var(s) > 0) clustered_se(s, items$cluster[keep]) else
        (by_level$upper[[l]] - by_level$lower[[l]]) / (2 * z)
      if (is.na(se)) return(0)
      futurex_weights[[l]]^2 * se^2
    }, 1)
    est <- sum(by_level$estimate[present] * by_level$weight[present])
    half <- z * sqrt(sum(var_terms))
    return(clip_to_limits(c(est - half, est + half), c(0, 1)))
  }
  keep <- !is.na(items$score)
  groups <- lapply(which(present), function(l) {
    split(items$score[keep & items$level == l],
          in_order(items$cluster[keep & items$level == l]))
  })
  weights <- futurex_weights[which(present)]
  draws <- with_seed(seed, vapply(seq_len(times), function(b) {
    sum(vapply(seq_along(groups), function(k) {
      g <- groups[[k]]
      mean(unlist(g[sample.int(length(g), length(g), replace = TRUE)])) * weights[[k]]
    }, 1))
  }, 1))
  # every level all right (or wrong) resamples to one value: combine the levels' own intervals
  # as the normal method does instead of a point
  if (all(draws == draws[[1]])) return(futurex_overall_interval(items, by_level, "normal"))
  clip_to_limits(unname(stats::quantile(draws, c(0.025, 0.975))), c(0, 1))
}

futurex_items <- function(x, call = rlang::caller_env()) {
  if (inherits(x, "futurex_scores")) {
    # answers from a predictions file: whether they were cut off is not known
    items <- x$items
    items$cut <- rep(0, nrow(items))
    items$answers <- rep(1, nrow(items))
    return(items)
  }
  x <- benchmark_samples(
    x, c("level", "score"),
    "an evaluated FutureX task, its samples or log file, or {.fn futurex_score} output.",
    call = call
  )
  cuts <- answer_cuts(x)
  tibble::tibble(id = x$id, level = x$level, score = as.double(x$score), cut = cuts$cut,
                 answers = cuts$answers)
}

