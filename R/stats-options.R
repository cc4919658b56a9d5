#' How two models are compared
#'
#' `comparison_options()` gathers what [compare_models()] is told beyond the two runs and
#' their benchmark: the clusters, the statistic, the interval and test, the bootstrap and
#' the epoch reducer, each checked once here. [power_options()] takes one too, for the
#' pilot's items and the test's level.
#'
#' @param cluster Clusters of items: `"default"` (a `cluster` column if there is one, else
#'   the benchmark's default, as in its `<benchmark>_summary()`), a column name, or `NULL`
#'   for none (each item its own cluster). Epochs are always averaged within an item first.
#' @param statistic `NULL` for the benchmark's headline, or a function of a data frame of
#'   items (one row per item: `id`, `score` and the other columns of the samples) returning
#'   one number; a function always uses the bootstrap.
#' @param level Confidence level.
#' @param method `"auto"` (paired differences for means, bootstrap otherwise), `"paired"`
#'   or `"bootstrap"`.
#' @param times,seed Bootstrap draws and seed (the global random stream is untouched).
#' @param reducer,k `NULL` (each item's mean over its epochs), or an epoch reducer of
#'   [reduce_epochs()] and its `k`: each item's score is its epochs reduced, and the
#'   comparison's `metric` names the reducer (`"overall pass_at_2"`, as on the board).
#' @returns An object of class `comparison_options`.
#' @seealso [compare_models()], [power_analysis()]
#' @export
#' @examples
#' comparison_options(cluster = NULL, times = 200)
#' comparison_options(reducer = "pass_at_k", k = 2)
comparison_options <- function(cluster = "default", statistic = NULL, level = 0.95,
                               method = c("auto", "paired", "bootstrap"), times = 1000,
                               seed = 1, reducer = NULL, k = NULL) {
  method <- rlang::arg_match(method)
  if (!is.null(cluster) && !rlang::is_string(cluster)) {
    abort_pb("{.arg cluster} must be a column name, {.val default} or {.code NULL}.",
             "argument", field = "cluster")
  }
  if (!is.null(statistic) && !is.function(statistic)) {
    abort_pb("{.arg statistic} must be a function of the items, or {.code NULL}.", "argument",
             field = "statistic")
  }
  check_level(level, "level")
  check_count(times)
  check_number(seed)
  structure(list(cluster = cluster, statistic = statistic, level = level, method = method,
                 times = times, seed = seed, reducer = epoch_reducer(reducer, k)),
            class = "comparison_options")
}

#' What a power analysis assumes
#'
#' `power_options()` gathers what [power_analysis()] assumes beyond the pilot runs: the
#' power, the variance of the paired differences when there is no pilot, the design effect,
#' and (in `comparison`) how the pilot's items are read and the test's level, each checked
#' once here.
#'
#' @param power Probability of detecting the difference.
#' @param sd_diff Standard deviation of the paired item differences, instead of a pilot.
#' @param var_x,var_y,correlation The two models' item-score variances and the correlation
#'   of their scores, instead of a pilot or `sd_diff`.
#' @param design_effect The design effect `D`; `NULL` estimates it from the pilot's clusters
#'   (1 without clusters or pilot).
#' @param comparison A [comparison_options()] object: its `level` is the test's, its
#'   `cluster`, `reducer` and `k` read the pilot's items as [compare_models()] reads them.
#'   A power analysis plans a comparison of mean scores, so it takes no `statistic`.
#' @returns An object of class `power_options`.
#' @seealso [power_analysis()]
#' @export
#' @examples
#' power_options(sd_diff = 0.5, power = 0.9)
#' power_options(var_x = 0.21, var_y = 0.21, correlation = 0.5,
#'               comparison = comparison_options(level = 0.99))
power_options <- function(power = 0.8, sd_diff = NULL, var_x = NULL, var_y = NULL,
                          correlation = 0, design_effect = NULL,
                          comparison = comparison_options()) {
  check_level(power, "power")
  check_options(comparison, "comparison_options", "comparison")
  if (!is.null(comparison$statistic)) {
    abort_pb("A power analysis plans a comparison of mean scores: it takes no {.arg statistic}.",
             "argument", field = "statistic")
  }
  if (!is.null(sd_diff)) {
    check_number(sd_diff)
    if (sd_diff < 0) abort_pb("{.arg sd_diff} must be >= 0.", "argument", field = "sd_diff")
  }
  if (!is.null(var_x) || !is.null(var_y)) {
    sd_diff <- variance_sd_diff(var_x, var_y, correlation)
  }
  if (!is.null(design_effect)) check_design_effect(design_effect)
  structure(list(power = power, sd_diff = sd_diff, design_effect = design_effect,
                 comparison = comparison),
            class = "power_options")
}

# sqrt(Var(x) + Var(y) - 2 Cov(x, y)) from the variances and the correlation.
variance_sd_diff <- function(var_x, var_y, correlation, call = rlang::caller_env()) {
  if (is.null(var_x) || is.null(var_y)) {
    abort_pb("Give both {.arg var_x} and {.arg var_y}.", "argument",
             field = if (is.null(var_x)) "var_x" else "var_y", call = call)
  }
  check_number(var_x, call = call)
  check_number(var_y, call = call)
  check_number(correlation, call = call)
  if (var_x < 0 || var_y < 0 || abs(correlation) > 1) {
    abort_pb("Variances must be >= 0 and {.arg correlation} in [-1, 1].", "argument",
             field = if (abs(correlation) > 1) "correlation" else "var_x", call = call)
  }
  sqrt(max(0, var_x + var_y - 2 * correlation * sqrt(var_x * var_y)))
}

check_design_effect <- function(deff, call = rlang::caller_env()) {
  check_number(deff, "design_effect", call = call)
  if (deff <= 0) {
    abort_pb("{.arg design_effect} must be positive.", "argument", field = "design_effect",
             call = call)
  }
}

check_level <- function(p, arg, call = rlang::caller_env()) {
  if (!is.numeric(p) || length(p) != 1 || is.na(p) || p <= 0 || p >= 1) {
    abort_pb("{.arg {arg}} must be a number between 0 and 1.", "argument", field = arg,
             call = call)
  }
}

check_options <- function(options, class, arg = "options", call = rlang::caller_env()) {
  if (!inherits(options, class)) {
    abort_pb("{.arg {arg}} must be made by {.fn {sub('_options$', '', class)}_options}.",
             "argument", field = arg, call = call)
  }
}

# Options given by their names before 0.2.0, through `...`: taken for one release, with a
# warning; they win over the same fields of `options`.
options_with_dots <- function(options, dots, fun, old_names, call = rlang::caller_env()) {
  if (!length(dots)) return(options)
  deprecated_dots(dots, fun, old_names, paste0("options = ", class(options)[[1]], "()"),
                  call = call)
  if (inherits(options, "power_options")) power_options_with(options, dots)
  else comparison_options_with(options, dots)
}

old_comparison_names <- names(formals(comparison_options))
old_power_names <- c(setdiff(names(formals(power_options)), "comparison"), "level", "cluster",
                     "reducer", "k")

comparison_options_with <- function(options, old) {
  fields <- unclass(options)
  fields[names(old)] <- old
  rlang::exec(comparison_options, !!!fields)
}

power_options_with <- function(options, old) {
  moved <- intersect(names(old), old_comparison_names)
  comparison <- comparison_options_with(options$comparison, old[moved])
  fields <- unclass(options)[c("power", "sd_diff", "design_effect")]
  fields[setdiff(names(old), moved)] <- old[setdiff(names(old), moved)]
  rlang::exec(power_options, !!!fields, comparison = comparison)
}
