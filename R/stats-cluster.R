# After E. Miller, "Adding Error Bars to Evals" (arXiv 2411.00640, 2024).

#' Standard error of a mean, naive or clustered
#'
#' @description
#' `clustered_se()` gives the standard error of `mean(x)` from the central limit theorem.
#' Without `cluster` it is the naive `sd(x) / sqrt(n)`, which assumes every score is an
#' independent draw. With `cluster` (questions of one DSBench competition, solutions of one
#' ProcessBench problem, epochs of one item) scores of one cluster may move together, and
#' the clustered (sandwich) standard error of Miller (2024, eq. 4) is used:
#'
#' \deqn{SE = \sqrt{\frac{G}{G - 1} \sum_{c=1}^{G} \Big(\sum_{i \in c} (x_i - \bar x)\Big)^2} / n}
#'
#' where `G` is the number of clusters and `n` the number of scores. The factor `G / (G - 1)`
#' is the usual small-sample correction (CR1 with one parameter, as Stata's `vce(cluster)`);
#' with it, clusters of one score each give exactly the naive `sd(x) / sqrt(n)`.
#' `small_sample = FALSE` drops it (Miller's formula as printed). With fewer than two
#' clusters the clustered standard error can't be estimated and is `NA`.
#'
#' Use the clustered standard error whenever items were not drawn independently: it is
#' larger than the naive one when scores within a cluster are correlated, and the naive
#' interval then covers the true mean less often than it claims.
#'
#' @param x Numeric scores (logical is treated as 0/1); missing values are dropped with
#'   their cluster labels.
#' @param cluster The cluster of each score (any vector as long as `x`), or `NULL` for the
#'   naive standard error.
#' @param small_sample Apply the `G / (G - 1)` correction.
#' @returns A number.
#' @noRd
clustered_se <- function(x, cluster = NULL, small_sample = TRUE) {
  check_scores(x)
  check_cluster(cluster, x)
  check_flag(small_sample)
  keep <- !is.na(x)
  x <- as.double(x[keep])
  n <- length(x)
  if (is.null(cluster)) {
    return(if (n > 1) stats::sd(x) / sqrt(n) else NA_real_)
  }
  cluster <- cluster[keep]
  groups <- length(unique(cluster))
  if (groups < 2) return(NA_real_)
  sums <- rowsum(x - mean(x), as.character(cluster), reorder = FALSE)[, 1]
  correction <- if (small_sample) groups / (groups - 1) else 1
  sqrt(correction * sum(sums^2)) / n
}

# mean_ci() with clusters: the normal interval from clustered_se(), the bootstrap over whole
# clusters. Scores all equal (all 0 or all 1, say) get constant_bounds() over clusters, not
# scores.
clustered_mean_ci <- function(x, cluster, level, method, times, seed, limits) {
  check_cluster(cluster, x)
  x <- as.double(x)
  n_missing <- sum(is.na(x))
  cluster <- as.character(cluster[!is.na(x)])
  x <- x[!is.na(x)]
  n <- length(x)
  groups <- length(unique(cluster))
  if (n == 0) {
    return(tibble::tibble(mean = NA_real_, lower = NA_real_, upper = NA_real_, n = 0L,
                          n_missing = n_missing, n_clusters = 0L, se = NA_real_))
  }
  m <- mean(x)
  z <- stats::qnorm(1 - (1 - level) / 2)
  se <- clustered_se(x, cluster)
  if (is_constant(x, limits, groups)) {
    bounds <- constant_bounds(m, limits, groups, z)
  } else if (method == "normal" || groups < 2) {
    bounds <- c(m - z * se, m + z * se)
  } else {
    members <- split(seq_len(n), in_order(cluster))
    means <- with_seed(seed, vapply(seq_len(times), function(i) {
      mean(x[unlist(members[sample.int(groups, groups, TRUE)], use.names = FALSE)])
    }, 1))
    alpha <- (1 - level) / 2
    bounds <- unname(stats::quantile(means, c(alpha, 1 - alpha), names = FALSE))
  }
  bounds <- clip_to_limits(bounds, limits)
  tibble::tibble(mean = m, lower = bounds[[1]], upper = bounds[[2]], n = n,
                 n_missing = n_missing, n_clusters = groups, se = se)
}

#' Clusters used by benchmark summaries
#'
#' @description
#' Every `<bench>_summary()` takes `cluster =`: the scores of items that share a context are
#' not independent, and the summary's intervals use `clustered_se()` over these clusters.
#' `cluster` is a column of the samples (a string), a vector with one cluster per sample,
#' `NULL` for naive intervals (every sample independent), or `"default"` for the benchmark's
#' own choice:
#'
#' | benchmark | default cluster | why |
#' |---|---|---|
#' | DSBench | `competition_id` | questions of one competition share its data and workbook |
#' | ProcessBench, DeltaBench | `problem`, when some problem has several solutions | solutions of one problem share its difficulty |
#' | probsem | `id` within a suite row; `suite` across suites | contexts of a suite share its scenario, so one suite is one cluster |
#' | FutureX, arena | `id` | the epochs of one item |
#'
#' With one epoch and no shared context, the clustered interval equals the naive one.
#'
#' @param samples The samples of a run (a data frame).
#' @param cluster See above.
#' @param default The benchmark's default column.
#' @returns `resolve_cluster()` returns the cluster vector (one per row of `samples`) or
#'   `NULL`.
#' @noRd
resolve_cluster <- function(samples, cluster = "default", default = "id") {
  if (is.null(cluster)) return(NULL)
  if (identical(cluster, "default")) {
    if (!default %in% names(samples)) return(NULL)
    return(samples[[default]])
  }
  if (rlang::is_string(cluster)) {
    if (!cluster %in% names(samples)) {
      abort_pb("There is no column {.field {cluster}} to cluster by.", "argument",
               field = cluster)
    }
    return(samples[[cluster]])
  }
  check_cluster(cluster, seq_len(nrow(samples)))
  cluster
}

# Clusters only when some cluster holds several scores (else NULL: the naive interval,
# computed exactly as without clusters).
shared_cluster <- function(cluster) if (anyDuplicated(cluster)) cluster

# so that split() keeps the scores' order
in_order <- function(cluster) factor(cluster, levels = unique(cluster))

check_scores <- function(x, call = rlang::caller_env()) {
  if (!is.numeric(x) && !is.logical(x)) {
    abort_pb("{.arg x} must be numeric.", "argument", call = call)
  }
  invisible(x)
}

check_cluster <- function(cluster, x, call = rlang::caller_env()) {
  if (is.null(cluster)) return(invisible(cluster))
  if (!is.atomic(cluster) || length(cluster) != length(x) || anyNA(cluster)) {
    abort_pb("{.arg cluster} must have one non-missing label per score.", "argument",
             call = call)
  }
  invisible(cluster)
}

# The default cluster of benchmarks whose items are solutions of problems (ProcessBench's,
# DeltaBench's `cluster`): when several solutions share a problem, the problem is the cluster.
solution_cluster <- function(samples) {
  shared <- "problem" %in% names(samples) &&
    anyDuplicated(unique(samples[intersect(c("id", "problem"), names(samples))])$problem)
  if (shared) "problem" else "id"
}
