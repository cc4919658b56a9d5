# One value per sample, so that an interval is over samples (the unit drawn), not samples x
# epochs. `reducer = NULL` never reaches this file: the numbers without one stay as they were.

#' Reduce each sample's epochs to one score
#'
#' @description
#' A task evaluated with `$eval(epochs = n)` has `n` rows per sample, one per epoch.
#' `reduce_epochs()` gives one row per sample, its score reduced over its epochs, as Inspect
#' AI's epoch reducers do. Summaries that take `reducer =` ([futurex_summary()],
#' [dsbench_summary()], [grouped_summary()], and through them [leaderboard()] and
#' [eval_set()]) reduce this way, so their intervals are over samples: `n` counts samples,
#' and a sample's epochs are never counted as independent evidence.
#'
#' * `"mean"`: the mean of the epochs' scores.
#' * `"mode"`: the most frequent score (majority vote). A tie goes to the **lowest** of the
#'   tied scores, so a sample with one correct and one incorrect epoch counts as incorrect,
#'   and the result does not depend on the order of the epochs (Inspect AI's `mode_score()`
#'   takes the first one seen instead).
#' * `"max"`: the best epoch.
#' * `"pass_at_k"`: pass@k, the probability that at least one of `k` epochs drawn without
#'   replacement from the `n` is correct: the unbiased estimator of Chen et al. (2021,
#'   "Evaluating Large Language Models Trained on Code"), `1 - C(n - c, k) / C(n, k)` with
#'   `c` correct epochs, computed as the product `1 - prod((1 - k / (n - c + 1:c)))`, which
#'   never forms a binomial coefficient (they overflow past `n` of about 1000).
#' * `"pass_hat_k"`: pass^k, the probability that all `k` of `k` epochs drawn without
#'   replacement are correct: `C(c, k) / C(n, k)`, computed as
#'   `prod((c - 0:(k - 1)) / (n - 0:(k - 1)))` (Yao et al. 2024, tau-bench).
#' * `"at_least_k"`: 1 when at least `k` of the `n` epochs are correct, else 0.
#'
#' An epoch is **correct** when its score is at least `threshold` (1 by default: full
#' credit, so a FutureX numeric answer scored 0.8 is not correct). Epochs without a score
#' (a failed request) are dropped; a sample left with fewer than `k` scored epochs has no
#' reduced score for the `k` reducers (`NA`, counted as missing by the summaries).
#'
#' **Where reducers apply.** A summary reduces epochs when it takes `reducer =`:
#' [futurex_summary()] (each item's scores), [dsbench_summary()] (each question's
#' verdicts), and a benchmark of your own whose summary passes `reducer`, `k` and
#' `id = x$id` on to [grouped_summary()]. [leaderboard()] and [eval_set()] take `reducer =`
#' and `k =` for those. The others refuse a reducer with an error of class
#' `predictivebench_error_reducer`: probsem's scores are log-probabilities, the same in
#' every epoch (its epochs only repeat them); the arena's numbers are ratings fitted to
#' battles, not a mean of per-sample scores; ProcessBench already reduces inside its solver
#' (the majority of `n_votes` critiques per solution, so its numbers stay the original's)
#' and, like DeltaBench, reports F1 scores (DeltaBench's micro F1 from summed counts), which
#' are not means of one score per sample.
#'
#' @param samples Samples of an evaluated task (its `$get_samples()`, or
#'   [benchmark_samples()] of a log): a data frame with columns `id` and `score` (and
#'   `epoch`).
#' @param reducer One of `"mean"`, `"mode"`, `"max"`, `"pass_at_k"`, `"pass_hat_k"` or
#'   `"at_least_k"`.
#' @param k For `"pass_at_k"`, `"pass_hat_k"` and `"at_least_k"`: how many epochs are drawn
#'   (or must be correct), at most the number of epochs. Refused for the other reducers.
#' @param threshold The score from which an epoch counts as correct.
#' @returns `reduce_epochs()`: a tibble with one row per sample (in order of first
#'   appearance), the columns of its first epoch's row but `epoch`, its `score` reduced, and
#'   `epochs`, how many epochs had a score.
#' @family results
#' @export
#' @examples
#' samples <- data.frame(id = rep(c("a", "b"), each = 3), epoch = rep(1:3, 2),
#'                       score = c(1, 0, 0, 1, 1, 0))
#' reduce_epochs(samples, "mode")
#' reduce_epochs(samples, "pass_at_k", k = 2)
#' # sample a: n = 3, c = 1, k = 2: 1 - C(2, 2) / C(3, 2) = 1 - 1/3
#' # sample b: n = 3, c = 2, k = 2: 1 - C(1, 2) / C(3, 2) = 1 - 0 = 1
reduce_epochs <- function(samples, reducer = reducers, k = NULL, threshold = 1) {
  spec <- epoch_reducer(reducer, k, threshold)
  if (!is.data.frame(samples) || !all(c("id", "score") %in% names(samples))) {
    abort_pb("{.arg samples} must be a data frame with columns {.field id} and {.field score}.",
             "argument")
  }
  reduce_epoch_rows(samples, spec)
}

reduce_epoch_rows <- function(samples, spec) {
  id <- as.character(samples$id)
  first <- !duplicated(id)
  out <- tibble::as_tibble(samples[first, setdiff(names(samples), "epoch"), drop = FALSE])
  scores <- as_epoch_scores(samples$score)
  out$score <- reduce_scores(scores, id, spec)
  out$epochs <- as.integer(tapply(!is.na(scores), in_order(id), sum))
  attr(out, "reducer") <- spec
  out
}

reduce_scores <- function(x, id, reducer = reducers, k = NULL, threshold = 1) {
  spec <- if (inherits(reducer, "predictivebench_reducer")) reducer else
    epoch_reducer(reducer, k, threshold)
  check_scores(x)
  check_cluster(id, x)
  x <- as.double(x)
  groups <- split(x, in_order(id))
  max_epochs <- max(c(0L, lengths(groups)))
  if (!is.null(spec$k) && spec$k > max_epochs) {
    abort_pb(c("{.arg k} ({spec$k}) is more than the epochs of any sample ({max_epochs}).",
               i = "Evaluate with {.code $eval(epochs = )} at least {spec$k}, or give a smaller
                    {.arg k}."), "argument", field = "k")
  }
  reduce <- epoch_reducer_function(spec)
  unname(vapply(groups, function(s) {
    s <- s[!is.na(s)]
    if (!length(s)) return(NA_real_)
    reduce(s)
  }, 1))
}

epoch_reducer_function <- function(spec) {
  correct <- function(s) sum(s >= spec$threshold)
  switch(spec$reducer,
    mean = mean,
    max = max,
    mode = function(s) {
      # which.max() takes the first of the most frequent values, sorted: the lowest of a tie
      values <- sort(unique(s))
      values[[which.max(tabulate(match(s, values), length(values)))]]
    },
    pass_at_k = function(s) pass_at_k(length(s), correct(s), spec$k),
    pass_hat_k = function(s) pass_hat_k(length(s), correct(s), spec$k),
    at_least_k = function(s) if (length(s) < spec$k) NA_real_ else as.double(correct(s) >= spec$k)
  )
}

# pass@k and pass^k of samples with `n` scored epochs, `c` of them correct (vectorised over
# n and c); a sample with fewer than `k` epochs gives NA.
pass_at_k <- function(n, c, k) {
  check_pass_counts(n, c, k)
  vapply(seq_along(n), function(i) {
    if (n[[i]] < k) return(NA_real_)
    if (n[[i]] - c[[i]] < k) return(1)
    # C(n - c, k) / C(n, k) = prod over the c correct of (1 - k / j), j = n - c + 1, ..., n
    1 - prod(1 - k / (n[[i]] - c[[i]] + seq_len(c[[i]])))
  }, 1)
}

pass_hat_k <- function(n, c, k) {
  check_pass_counts(n, c, k)
  vapply(seq_along(n), function(i) {
    if (n[[i]] < k) return(NA_real_)
    if (c[[i]] < k) return(0)
    prod((c[[i]] - seq_len(k) + 1) / (n[[i]] - seq_len(k) + 1))
  }, 1)
}

check_pass_counts <- function(n, c, k, call = rlang::caller_env()) {
  check_count(k, call = call)
  ok <- is.numeric(n) && is.numeric(c) && length(n) == length(c) && !anyNA(n) && !anyNA(c) &&
    all(n == round(n)) && all(c == round(c)) && all(c >= 0) && all(c <= n)
  if (!ok) {
    abort_pb("{.arg n} and {.arg c} must be whole numbers, one each per sample, with
              0 <= c <= n.", "argument", call = call)
  }
  invisible()
}

# The metric a summary reports under a reducer: "score" becomes "score_pass_at_2".
reduced_metric <- function(metric, spec) {
  if (is.null(spec)) metric else paste0(metric, "_", spec$label)
}

as_epoch_scores <- function(score) as_score(score)
