# Means with intervals, and the one row shape every benchmark's summary is built from.

#' Mean with a confidence interval
#'
#' `mean_ci()` gives the mean of `x` with a normal-approximation (`method = "normal"`,
#' mean +/- z * sd / sqrt(n)) or percentile-bootstrap (`method = "bootstrap"`) interval.
#' Missing values are dropped and counted in `n_missing`.
#'
#' @param x Numeric scores (logical is treated as 0/1).
#' @param level Confidence level.
#' @param method `"normal"` or `"bootstrap"`.
#' @param times Bootstrap resamples.
#' @param seed Seed for the bootstrap, so intervals are reproducible. The global random
#'   stream is left untouched.
#' @param limits The range scores can take, such as `c(0, 1)`: the interval is clipped to
#'   it (a normal interval can otherwise fall outside). `NULL` clips nothing. When every
#'   score is the same, the normal interval and every bootstrap resample would have no
#'   width, claiming a certainty a few samples can't give; instead another value may hold
#'   for up to the share `z^2 / (n + z^2)` of items (the Wilson bound of a proportion seen 0
#'   times in `n`), anywhere in the range. At one end of the range (all 0 or all 1) this is
#'   the Wilson score interval for that proportion (for 10 zeros on `c(0, 1)`: 0 to 0.278),
#'   also for a single score (one 1 on `c(0, 1)`: 0.207 to 1); ten scores of 0.5 give 0.40
#'   to 0.60. A single score strictly inside the range has no interval (`NA`): one value
#'   says nothing about its spread. Bounds within rounding
#'   error of a limit are set to it exactly, so an interval reads `0`, never `2.78e-17`.
#' @param cluster The cluster of each score (items sharing a context), or `NULL` (every
#'   score independent). With clusters the normal interval uses the clustered standard error
#'   of `clustered_se()`, the bootstrap resamples whole clusters, the Wilson interval at a
#'   limit counts clusters rather than scores, and the result gains `n_clusters` and `se`.
#' @returns A one-row tibble: `mean`, `lower`, `upper`, `n`, `n_missing` (and with
#'   `cluster`, `n_clusters` and `se`).
#' @noRd
mean_ci <- function(x, level = 0.95, method = c("normal", "bootstrap"), times = 1000,
                    seed = 1, limits = NULL, cluster = NULL) {
  method <- rlang::arg_match(method)
  if (!is.null(cluster)) {
    check_scores(x)
    return(clustered_mean_ci(x, cluster, level, method, times, seed, limits))
  }
  if (!is.numeric(x) && !is.logical(x)) {
    abort_pb("{.arg x} must be numeric.", "argument")
  }
  x <- as.double(x)
  n_missing <- sum(is.na(x))
  x <- x[!is.na(x)]
  n <- length(x)
  if (n == 0) {
    return(tibble::tibble(mean = NA_real_, lower = NA_real_, upper = NA_real_, n = 0L,
                          n_missing = n_missing))
  }
  m <- mean(x)
  alpha <- (1 - level) / 2
  if (is_constant(x, limits)) {
    bounds <- constant_bounds(m, limits, n, stats::qnorm(1 - alpha))
  } else if (method == "normal" || n == 1) {
    half <- if (n > 1) stats::qnorm(1 - alpha) * stats::sd(x) / sqrt(n) else NA_real_
    bounds <- c(m - half, m + half)
  } else {
    means <- with_seed(seed, vapply(seq_len(times), function(i) mean(sample(x, n, TRUE)), 1))
    bounds <- unname(stats::quantile(means, c(alpha, 1 - alpha), names = FALSE))
  }
  bounds <- clip_to_limits(bounds, limits)
  tibble::tibble(mean = m, lower = bounds[[1]], upper = bounds[[2]], n = n,
                 n_missing = n_missing)
}

# ---- Summary rows: one shape for every <bench>_summary(), on the 0-1 scale (never percent)

summary_rows <- function(group, metric, ci, ...) {
  tibble::tibble(group = as.character(group), metric = metric, estimate = ci$mean,
                 lower = ci$lower, upper = ci$upper, n = as.integer(ci$n), ...)
}

#' Summary rows of a score by group
#'
#' `grouped_summary()` gives the rows every `<bench>_summary()` returns, for scores of your
#' own: an `"overall"` row and one per group, each with `group`, `metric`, `estimate`,
#' `lower`, `upper`, `n` (and `n_missing`), on the scale of the scores. Use it for the summary
#' of a benchmark you add with [new_benchmark()].
#'
#' @param x Numeric scores.
#' @param by Group of each score, or `NULL` for the overall row only.
#' @param metric The name of the metric, stored in the `metric` column.
#' @param cluster The cluster of each score (items sharing a context), or `NULL` (every
#'   score independent). With clusters the interval uses the clustered standard error and
#'   the rows gain `n_clusters` and `se_method` (`"clustered"`).
#' @param ... The interval's options: `level` (0.95), `method` (`"normal"`, mean +/- z *
#'   sd / sqrt(n), or `"bootstrap"`, percentile), `times` and `seed` (of the bootstrap), `limits` (the range the scores
#'   can take, such as `c(0, 1)`: the interval is clipped to it, and scores that are all
#'   the same get the interval of a proportion seen 0 times (a Wilson interval when every
#'   score sits at one end), never one of no width).
#' @param reducer `NULL` (the default: every score counts, epochs included, as they were
#'   given), or an epoch reducer of [reduce_epochs()] (`"mean"`, `"mode"`, `"max"`,
#'   `"pass_at_k"`, `"pass_hat_k"`, `"at_least_k"`): the scores of each `id` (a sample's
#'   epochs) are reduced to one first, so `n` counts samples and the interval is over them;
#'   the metric is named after the reducer (`"accuracy_pass_at_2"`). A sample's group and
#'   cluster are those of its first score.
#' @param k The `k` of `"pass_at_k"`, `"pass_hat_k"` and `"at_least_k"`.
#' @param id With `reducer`: the sample of each score (its epochs share one id), such as
#'   the samples' `id` column.
#' @returns A tibble with an `"overall"` row first, then one per group in sorted order.
#' @family adding a benchmark
#' @export
#' @examples
#' grouped_summary(c(1, 0, 1, 1), by = c("a", "a", "b", "b"), metric = "accuracy",
#'                 limits = c(0, 1))
#' # two samples with two epochs each: a sample passes at 2 when either epoch is correct
#' grouped_summary(c(1, 0, 0, 0), id = c("q1", "q1", "q2", "q2"), metric = "accuracy",
#'                 reducer = "pass_at_k", k = 2, limits = c(0, 1))
grouped_summary <- function(x, by = NULL, metric = "mean", ..., cluster = NULL,
                            reducer = NULL, k = NULL, id = NULL) {
  if (!is.null(by) && length(by) != length(x)) {
    abort_pb("{.arg by} must be as long as {.arg x}.", "argument")
  }
  check_cluster(cluster, x)
  spec <- epoch_reducer(reducer, k)
  if (!is.null(spec)) {
    if (is.null(id)) {
      abort_pb("{.arg id} (the sample of each score) is needed to reduce epochs.",
               "argument", field = "id")
    }
    check_cluster(id, x)
    first <- !duplicated(as.character(id))
    return(grouped_summary(reduce_scores(x, as.character(id), spec), by = by[first],
                           metric = reduced_metric(metric, spec), ...,
                           cluster = cluster[first]))
  }
  groups <- if (is.null(by)) character() else sort(unique(by[!is.na(by)]))
  rows <- lapply(c("overall", groups), function(g) {
    keep <- if (g == "overall") rep(TRUE, length(x)) else !is.na(by) & by == g
    if (is.null(cluster)) {
      ci <- mean_ci(x[keep], ...)
      return(summary_rows(g, metric, ci, n_missing = ci$n_missing))
    }
    ci <- mean_ci(x[keep], ..., cluster = cluster[keep])
    summary_rows(g, metric, ci, n_missing = ci$n_missing, n_clusters = ci$n_clusters,
                 se_method = "clustered")
  })
  do.call(rbind, rows)
}

#' F1 scores
#'
#' `f1_score()` is the harmonic mean `2pr / (p + r)`, `NA` when both are 0 or either is
#' missing (a silent 0 would hide an empty group). `set_f1()` compares two sets: the F1 of
#' precision `|pred n truth| / |pred|` and recall `|pred n truth| / |truth|`, 1 when both
#' sets are empty and 0 when only one is.
#'
#' @param precision,recall Numbers in `[0, 1]` (or percentages; the scale is kept).
#' @param pred,truth Vectors treated as sets (duplicates ignored).
#' @returns A number.
#' @noRd
f1_score <- function(precision, recall) {
  out <- 2 * precision * recall / (precision + recall)
  out[is.na(precision) | is.na(recall) | (precision + recall) == 0] <- NA_real_
  out
}

#' @noRd
set_f1 <- function(pred, truth) {
  pred <- unique(pred)
  truth <- unique(truth)
  if (!length(pred) && !length(truth)) return(1)
  hits <- length(intersect(pred, truth))
  precision <- if (length(pred)) hits / length(pred) else 0
  recall <- if (length(truth)) hits / length(truth) else 0
  if (precision + recall == 0) return(0)
  2 * precision * recall / (precision + recall)
}

# What lower and upper of mean_ci(method = ) rows are, short enough for a plot's axis: the
# `interval` of a benchmark whose summary rows are mean_ci()'s (DSBench's, probsem's).
# "Wilson" because mean_ci() gives the Wilson interval when every score is 0 or every score
# is 1 (with either method).
mean_ci_interval <- function(method) {
  if (method == "normal") "95% normal (or Wilson) interval" else "95% bootstrap (or Wilson) interval"
}
