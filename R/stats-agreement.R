# The bootstrap resamples whole clusters: the verdicts of one sample move together.

#' Agreement between two raters
#'
#' @description
#' How far two raters' labels agree (two judges' verdicts on the same items, a judge's
#' verdicts and human or gold labels, two members of a judge panel). Labels are compared as
#' nominal categories (text): `"model_a"` and `"model_b"` disagree, `TRUE` and `"TRUE"` agree.
#' Items where either label is missing are left out.
#'
#' * `percent_agreement()`: the share of items with the same label.
#' * `cohen_kappa()`: Cohen's (1960) kappa, `(p_o - p_e) / (1 - p_e)`, where `p_o` is the
#'   percent agreement and `p_e` the agreement expected by chance from each rater's own
#'   label shares, `sum_k p_x(k) p_y(k)`. 1 is perfect agreement, 0 chance. `NA` when
#'   `p_e` is 1 (both raters give one and the same label throughout: chance explains
#'   everything, and the statistic is undefined). Equals `irr::kappa2()` (unweighted).
#' * `krippendorff_alpha()`: Krippendorff's alpha for nominal data, `1 - D_o / D_e`, from
#'   the coincidence matrix of the pairable values (every item rated by at least two
#'   raters). Unlike kappa it pools both raters' labels for chance agreement and takes any
#'   number of raters (the columns of a matrix) with missing ratings. `NA` when every
#'   pairable value is the same label. Equals `irr::kripp.alpha(method = "nominal")`.
#' * `agreement_summary()`: the three as summary rows (`group`, `metric`, `estimate`,
#'   `lower`, `upper`, `n`), with percentile bootstrap intervals that resample whole
#'   `cluster`s (by default each item on its own), seeded so they are reproducible.
#'
#' @param x,y The two raters' labels, one per item, in the same order (any atomic vectors,
#'   compared as text). For `krippendorff_alpha()`, `x` may instead be a matrix or data frame
#'   of labels with one row per item and one column per rater (`y` then `NULL`).
#' @param cluster The cluster of each item (a sample's epochs, a question's battles), or
#'   `NULL` for independent items.
#' @param group The rows' `group`.
#' @param level,times,seed Interval level, bootstrap resamples and seed (the global random
#'   stream is left untouched).
#' @returns A number; `agreement_summary()` a tibble of three rows.
#' @noRd
percent_agreement <- function(x, y) {
  pair <- agreement_pairs(x, y)
  if (!length(pair$x)) return(NA_real_)
  mean(pair$x == pair$y)
}

#' @noRd
cohen_kappa <- function(x, y) {
  pair <- agreement_pairs(x, y)
  kappa_of(pair$x, pair$y)
}

#' @noRd
krippendorff_alpha <- function(x, y = NULL) {
  ratings <- rating_matrix(x, y)
  alpha_of(ratings)
}

#' @noRd
agreement_summary <- function(x, y, cluster = NULL, group = "overall", level = 0.95,
                              times = 1000, seed = 1) {
  check_count(times)
  check_number(level)
  pair <- agreement_pairs(x, y)
  if (!is.null(cluster)) {
    check_cluster(cluster, x)
    cluster <- as.character(cluster[pair$kept])
  } else {
    cluster <- as.character(seq_along(pair$x))
  }
  statistics <- list(
    percent_agreement = function(a, b) mean(a == b),
    cohen_kappa = kappa_of,
    krippendorff_alpha = function(a, b) alpha_of(cbind(a, b))
  )
  n <- length(pair$x)
  estimates <- vapply(statistics, function(f) if (n) f(pair$x, pair$y) else NA_real_, 1)
  bounds <- bootstrap_bounds(pair$x, pair$y, cluster, statistics, level, times, seed)
  tibble::tibble(group = rep(as.character(group), 3L), metric = names(statistics),
                 estimate = unname(estimates), lower = bounds[, 1], upper = bounds[, 2],
                 n = rep(as.integer(n), 3L))
}

# The two label vectors as text, items where either is missing left out (`kept`: their
# positions in the input).
agreement_pairs <- function(x, y, call = rlang::caller_env()) {
  if (!is.atomic(x) || !is.atomic(y) || is.null(x) || is.null(y)) {
    abort_pb("{.arg x} and {.arg y} must be vectors of labels.", "argument", call = call)
  }
  if (length(x) != length(y)) {
    abort_pb("{.arg x} and {.arg y} must have one label per item each ({length(x)} and
              {length(y)} given).", "argument", call = call)
  }
  x <- as.character(x)
  y <- as.character(y)
  kept <- which(!is.na(x) & !is.na(y))
  list(x = x[kept], y = y[kept], kept = kept)
}

# Cohen's kappa of two complete label vectors: chance agreement from each rater's own
# marginal shares.
kappa_of <- function(x, y) {
  if (!length(x)) return(NA_real_)
  observed <- mean(x == y)
  labels <- union(x, y)
  px <- tabulate(match(x, labels), length(labels)) / length(x)
  py <- tabulate(match(y, labels), length(labels)) / length(y)
  expected <- sum(px * py)
  if (isTRUE(all.equal(expected, 1))) return(NA_real_)
  (observed - expected) / (1 - expected)
}

rating_matrix <- function(x, y, call = rlang::caller_env()) {
  if (is.null(y)) {
    if (!is.matrix(x) && !is.data.frame(x)) {
      abort_pb("{.arg x} must be a matrix of labels (items in rows, raters in columns) when
                {.arg y} is not given.", "argument", call = call)
    }
    x <- as.matrix(as.data.frame(lapply(as.data.frame(x), as.character)))
    if (ncol(x) < 2) abort_pb("{.arg x} needs at least two raters (columns).", "argument",
                              call = call)
    return(x)
  }
  if (length(x) != length(y)) {
    abort_pb("{.arg x} and {.arg y} must have one label per item each.", "argument",
             call = call)
  }
  cbind(as.character(x), as.character(y))
}

# Krippendorff's alpha (nominal) of a label matrix (items x raters, NA for a missing rating):
# each item with m >= 2 ratings adds its ordered pairs of values from different raters to the
# coincidence matrix, weighted 1 / (m - 1); then alpha = 1 - (n - 1) * D / E, where n is the
# number of pairable values, D the off-diagonal sum of the coincidences and E the sum of
# n_c * n_k over different labels c != k.
alpha_of <- function(ratings) {
  labels <- sort(unique(ratings[!is.na(ratings)]))
  if (!length(labels)) return(NA_real_)
  k <- length(labels)
  coincidence <- matrix(0, k, k)
  for (i in seq_len(nrow(ratings))) {
    values <- match(ratings[i, ][!is.na(ratings[i, ])], labels)
    m <- length(values)
    if (m < 2) next
    counts <- tabulate(values, k)
    # ordered pairs of different raters: counts %o% counts, less each value with itself
    pairs <- outer(counts, counts) - diag(counts, k)
    coincidence <- coincidence + pairs / (m - 1)
  }
  totals <- rowSums(coincidence)
  n <- sum(totals)
  expected <- n^2 - sum(totals^2)
  if (n < 2 || expected == 0) return(NA_real_)
  disagreement <- n - sum(diag(coincidence))
  1 - (n - 1) * disagreement / expected
}

# Percentile bootstrap bounds of each statistic (a function of the two label vectors), whole
# clusters resampled; a resample where a statistic is undefined is left out of its bounds.
bootstrap_bounds <- function(x, y, cluster, statistics, level, times, seed) {
  out <- matrix(NA_real_, length(statistics), 2)
  if (length(x) < 2) return(out)
  members <- split(seq_along(x), in_order(cluster))
  groups <- length(members)
  draws <- with_seed(seed, vapply(seq_len(times), function(i) {
    rows <- unlist(members[sample.int(groups, groups, TRUE)], use.names = FALSE)
    vapply(statistics, function(f) f(x[rows], y[rows]), 1)
  }, double(length(statistics))))
  draws <- matrix(draws, nrow = length(statistics))
  alpha <- (1 - level) / 2
  for (s in seq_along(statistics)) {
    values <- draws[s, ][!is.na(draws[s, ])]
    if (length(values)) {
      out[s, ] <- unname(stats::quantile(values, c(alpha, 1 - alpha), names = FALSE))
    }
  }
  out
}
