# EloBench's online Elo: one pass in file order, and the median over random orders.

#' Online Elo ratings, as the original computes them
#'
#' @description
#' `elo_online()` plays the battles in order: both models start at `initial`, each battle
#' updates both from their pre-battle ratings, `rating + k * (actual - expected)`, with
#' `expected = 1 / (1 + base^((other - rating) / scale))`; a tie and a `tie(all bad)` count 0.5.
#' This is EloBench's rating, and it depends on the order of battles; `elo_median()` takes the
#' median over `n` seeded random orders, which removes most of that dependence. For ratings
#' with intervals, use [arena_ratings()] (Bradley-Terry by default).
#'
#' @param battles A data frame with `model_a`, `model_b` and `winner` (`model_a`,
#'   `model_b`, `tie`, `tie(all bad)`; FastChat's `tie (bothbad)` is read as `tie(all bad)`;
#'   `invalid` and empty winners are failed judgements).
#' @param k The K-factor (4, as EloBench). Larger values follow recent battles more.
#' @param initial,scale,base Starting rating, scale and base of the logistic curve (1000,
#'   400 and 10 as EloBench and FastChat).
#' @param invalid What a failed judgement counts as: `"tie"` (the original pipeline did so,
#'   and the published figures need it) or `"drop"` (leave it out).
#' @param n Number of random orders for `elo_median()`.
#' @param seed Seed for the orders; the global random stream is left untouched.
#' @returns A named numeric vector of ratings, in the order models first appear (all
#'   `model_a` values first, then `model_b`, as the original).
#' @keywords internal
elo_online <- function(battles, k = 4, initial = 1000, scale = 400, base = 10,
                       invalid = c("tie", "drop")) {
  check_number(k)
  check_number(initial)
  check_number(scale)
  check_number(base)
  scores <- battle_scores(battles, invalid)
  models <- battle_models(scores)
  elo_pass(match(scores$model_a, models), match(scores$model_b, models), scores$score_a,
           models, k, initial, scale, base)
}

elo_pass <- function(a, b, s, models, k, initial, scale, base) {
  r <- rep(initial, length(models))
  for (i in seq_along(a)) {
    ra <- r[[a[[i]]]]
    rb <- r[[b[[i]]]]
    ea <- 1 / (1 + base^((rb - ra) / scale))
    eb <- 1 / (1 + base^((ra - rb) / scale))
    r[[a[[i]]]] <- ra + k * (s[[i]] - ea)
    r[[b[[i]]]] <- rb + k * ((1 - s[[i]]) - eb)
  }
  stats::setNames(r, models)
}

#' @rdname elo_online
elo_median <- function(battles, n = 100, k = 4, initial = 1000, scale = 400, base = 10,
                       invalid = c("tie", "drop"), seed = 1) {
  check_count(n)
  scores <- battle_scores(battles, invalid)
  models <- battle_models(scores)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  runs <- with_seed(seed, vapply(seq_len(n), function(i) {
    o <- sample.int(length(a))
    elo_pass(a[o], b[o], scores$score_a[o], models, k, initial, scale, base)
  }, numeric(length(models))))
  runs <- matrix(runs, nrow = length(models))
  stats::setNames(apply(runs, 1, stats::median), models)
}
