# The arena task's summary rows: win rates, overall and against each reference model.

#' Arena summary: the evaluated model's win rates
#'
#' `arena_summary()` gives an evaluated [arena_task()]'s summary rows, as every
#' `<bench>_summary()` does: `overall` (the mean score of the questions: its win rate, ties
#' half) and one row per reference model (`"vs <model>"`: its points in the battles against
#' that model), `metric` `"win_rate"`, `estimate` on the 0-1 scale, a 95% interval
#' (normal, clipped to `[0, 1]`; a question's epochs form one cluster) and `n` (questions,
#' or battles against that model), then `n_missing` (unscored). Given battles (`model_a`,
#' `model_b`, `winner`, as [arena_run()] records them) it gives each model's win rate
#' instead, one row per model, with bootstrap intervals: so does an [arena_run()]'s result,
#' whose battles are its `records` (the same rows as its log gives). The Elo ratings are
#' [arena_ratings()].
#'
#' @param x An evaluated [arena_task()], its samples, its log file, battles, or an
#'   [arena_run()]'s result.
#' @param invalid Failed judgements count as a `"tie"` (the original) or are dropped.
#' @param method,times,seed Interval method (`"normal"` or `"bootstrap"`), bootstrap rounds
#'   and seed.
#' @param cluster Clusters of samples: by default a question's
#'   epochs (`"id"`); `NULL` treats every sample as independent.
#' @returns A summary tibble (class `benchmark_summary`, which `ggplot2::autoplot()`
#'   draws): `group`, `metric`, `estimate`, `lower`, `upper`, `n`, then `n_missing`.
#' @family arena
#' @export
#' @examples
#' judge <- baseline_chat('{"winner": 1, "explanation": "The first is better."}')
#' tsk <- arena_task(arena_dataset(version = "sample"), judge = judge, dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat(function(q) "It depends."), view = FALSE)
#' arena_summary(tsk)
arena_summary <- function(x, invalid = c("tie", "drop"), method = c("normal", "bootstrap"),
                          times = 1000, seed = 1, cluster = "default") {
  invalid <- rlang::arg_match(invalid)
  method <- rlang::arg_match(method)
  # a run's battles, as [rescore()] and [judge_audit()] take a run (its log holds the same)
  if (inherits(x, "arena_run")) x <- x$records
  x <- benchmark_samples(x, character(), "an evaluated arena task, its samples, its log file,
                         battles, or an {.fn arena_run} result.")
  if (all(c("model_a", "model_b") %in% names(x))) {
    return(arena_win_rates(x, invalid = invalid, times = times, seed = seed))
  }
  if (!all(c("input", "scorer_metadata") %in% names(x))) {
    abort_pb("{.arg x} must be an evaluated arena task, its samples, its log file, battles, or an
              {.fn arena_run} result.", "argument")
  }
  battles <- arena_reference_outcomes(x)
  points <- winner_points(battles$winner, failed = if (invalid == "tie") 0.5 else NA_real_)
  cl <- resolve_cluster(x, cluster, benchmark_cluster("arena", x))
  sample_of <- battles$.row
  score <- sample_points(points, sample_of, nrow(x))
  ci_args <- list(method = method, times = times, seed = seed, limits = c(0, 1))
  overall <- rlang::exec(mean_ci, score, !!!ci_args, cluster = cl)
  rows <- list(summary_rows("overall", "win_rate", overall, n_missing = overall$n_missing))
  for (opponent in sort(unique(battles$model_b))) {
    mine <- battles$model_b == opponent
    ci <- rlang::exec(mean_ci, points[mine], !!!ci_args,
                      cluster = if (!is.null(cl)) cl[sample_of[mine]])
    rows <- c(rows, list(summary_rows(paste("vs", opponent), "win_rate", ci,
                                      n_missing = ci$n_missing)))
  }
  out <- do.call(rbind, lapply(rows, function(r) r[c(summary_columns, "n_missing")]))
  out <- benchmark_summary(out, "arena", title = "Arena: win rate by opponent")
  cuts <- answer_cuts(x)
  with_truncation(out, cuts$cut, cuts$answers)  # R/results-truncation.R
}

