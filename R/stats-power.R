# How many items a comparison of two models needs (Miller 2024, section 5: power analysis).

#' How many items do I need to tell two models apart?
#'
#' @description
#' `power_analysis()` plans a paired comparison ([compare_models()]) before you run it.
#' Give it the number of items `n` and it returns the minimum detectable difference: the
#' smallest true difference in mean score that a two-sided test at `level` detects with
#' probability `power`. Give it a `difference` and it returns the number of items needed.
#' Following Miller (2024, section on power analysis), with the normal quantiles `z_a = qnorm(1 - (1 - level) / 2)`
#' and `z_b = qnorm(power)`:
#'
#' \deqn{MDE = (z_a + z_b) \sqrt{D \cdot Var(d) / n}, \qquad n = (z_a + z_b)^2 D \cdot Var(d) / \delta^2}
#'
#' where `Var(d)` is the variance of the paired item differences,
#' `Var(x) + Var(y) - 2 Cov(x, y)` (item scores averaged over epochs, so the within-item
#' variance of sampling is included at the pilot's number of epochs), and `D` the design
#' effect of clustering: `D = 1` when items are independent, and `(SE_clustered / SE_naive)^2`
#' estimated from the pilot (for equal clusters of size `m` with intra-cluster correlation
#' `rho`, `1 + (m - 1) rho`).
#'
#' The variance comes, in order of preference, from:
#' * a pilot of both models (`x` and `y`): the paired differences, so the correlation between
#'   the models (the same items are hard for both) shrinks the variance;
#' * a pilot of one model (`x` only): `Var(d) = 2 Var(x)`, as if the two models were
#'   uncorrelated with equal variance (conservative when they are correlated);
#' * the two models' score variances `var_x`, `var_y` and the `correlation` of their item
#'   scores: `Var(d) = var_x + var_y - 2 * correlation * sqrt(var_x * var_y)` (0/1 scores
#'   with accuracy `p` have variance `p * (1 - p)`);
#' * `sd_diff` given directly (for 0/1 scores of two models with accuracies `p1`, `p2` that
#'   disagree on a share `q` of items, `Var(d)` is about `q - (p1 - p2)^2`).
#'
#' @param x,y Pilot runs, as for [compare_models()]: evaluated tasks, their samples or log
#'   files, or data frames with `id`, `score` and optionally `cluster`. `y` is optional.
#' @param n Numbers of items (a vector gives one row each): returns the detectable difference.
#' @param difference Differences to detect (on the 0-1 scale of scores): returns the items
#'   needed. Give `n` or `difference`, not both.
#' @param benchmark The pilot's benchmark, as in [compare_models()] (its default cluster).
#' @param options A [power_options()] object: the power, the variance when there is no pilot
#'   (`sd_diff`, or `var_x`, `var_y` and `correlation`), the design effect, and in
#'   `comparison` the test's level and how the pilot's items are read (`cluster`, and an
#'   epoch `reducer` of [reduce_epochs()] with its `k`: the power of a comparison of reduced
#'   scores, pass@k, ...).
#' @param ... Deprecated: the options by their names before 0.2.0 (`power`, `level`,
#'   `sd_diff`, `var_x`, `var_y`, `correlation`, `design_effect`, `cluster`, `reducer`, `k`),
#'   taken with a warning.
#' @returns A tibble with one row per `n` or `difference`: `n` (items; needed items are
#'   rounded up), `difference` (detectable or asked), `power`, `level`, `sd_diff`,
#'   `design_effect` and `source` (where the variance came from).
#' @family results
#' @export
#' @examples
#' # stated inputs: sd of differences 0.5, 400 items, 80% power at 5%
#' power_analysis(n = 400, options = power_options(sd_diff = 0.5))
#' # items needed to detect 3 points
#' power_analysis(difference = 0.03, options = power_options(sd_diff = 0.5))
#' # from variances: two models near 70% accuracy whose item scores correlate at 0.5
#' power_analysis(difference = 0.03,
#'                options = power_options(var_x = 0.21, var_y = 0.21, correlation = 0.5))
#' # from a pilot of two models
#' set.seed(1)
#' hard <- rnorm(60)
#' a <- data.frame(id = 1:60, score = as.double(hard + rnorm(60, 0, 0.7) > 0))
#' b <- data.frame(id = 1:60, score = as.double(hard + rnorm(60, 0, 0.7) > 0.2))
#' power_analysis(a, b, n = c(100, 500, 1000))
power_analysis <- function(x = NULL, y = NULL, n = NULL, difference = NULL,
                           benchmark = NULL, options = power_options(), ...) {
  check_options(options, "power_options")
  check_string(benchmark, allow_null = TRUE)
  o <- options_with_dots(options, list(...), "power_analysis", old_power_names)
  if (is.null(n) == is.null(difference)) {
    abort_pb("Give exactly one of {.arg n} and {.arg difference}.", "argument")
  }
  if (!is.null(n) && (!is.numeric(n) || any(is.na(n) | n < 1))) {
    abort_pb("{.arg n} must be positive numbers of items.", "argument", field = "n")
  }
  if (!is.null(difference) && (!is.numeric(difference) || any(is.na(difference) |
                                                               difference <= 0))) {
    abort_pb("{.arg difference} must be positive numbers.", "argument", field = "difference")
  }
  variance <- pilot_variance(x, y, benchmark, o)
  deff <- o$design_effect %||% variance$design_effect
  level <- o$comparison$level
  power <- o$power
  z <- stats::qnorm(1 - (1 - level) / 2) + stats::qnorm(power)
  spread <- deff * variance$sd_diff^2
  if (!is.null(n)) {
    difference <- z * sqrt(spread / n)
  } else {
    n <- ceiling(z^2 * spread / difference^2)
  }
  tibble::tibble(n = n, difference = difference, power = power, level = level,
                 sd_diff = variance$sd_diff, design_effect = deff, source = variance$source)
}

# The standard deviation of paired differences and the design effect, from what was given.
pilot_variance <- function(x, y, benchmark, options, call = rlang::caller_env()) {
  if (!is.null(options$sd_diff)) {
    return(list(sd_diff = options$sd_diff, design_effect = 1, source = "sd_diff"))
  }
  if (is.null(x)) {
    abort_pb("Give a pilot run {.arg x} (and {.arg y}) or {.arg sd_diff}.", "argument",
             call = call)
  }
  cluster <- options$comparison$cluster
  spec <- options$comparison$reducer
  benchmark <- benchmark %||% task_benchmark(x)
  if (!is.null(spec) && !is.null(benchmark)) check_reducible(benchmark, call = call)
  items_x <- comparison_items(x, cluster, benchmark, "x", spec = spec, call = call)
  if (is.null(y)) {
    d <- items_x$score
    scale <- sqrt(2)
    source <- "one pilot run (models assumed uncorrelated)"
    cl <- items_x$cluster
  } else {
    pair <- suppressMessages(pair_items(items_x,
                                        comparison_items(y, cluster, benchmark, "y",
                                                         spec = spec, call = call)))
    d <- pair$x$score - pair$y$score
    scale <- 1
    source <- "paired pilot"
    cl <- pair$x$cluster
  }
  if (length(d) < 2) abort_pb("The pilot needs at least two items.", "argument", call = call)
  naive <- clustered_se(d)
  deff <- if (anyDuplicated(cl) && naive > 0) (clustered_se(d, cl) / naive)^2 else 1
  list(sd_diff = scale * stats::sd(d), design_effect = deff, source = source)
}
