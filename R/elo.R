# Ratings from battle outcomes: online Elo, Bradley-Terry on pair counts, bootstrap, ranks.

arena_winners <- c("model_a", "model_b", "tie", "tie(all bad)")

# Winners as the original writes them, plus FastChat's spelling and the failed values
# (`invalid`, empty, missing). Anything else is an error naming the row.
normalize_winner <- function(winner, file = NULL, call = rlang::caller_env()) {
  winner <- as.character(winner)
  winner[!is.na(winner) & winner %in% c("tie (bothbad)", "tie(bothbad)")] <- "tie(all bad)"
  winner[!is.na(winner) & winner == "NaN"] <- NA_character_
  winner[!is.na(winner) & !nzchar(winner)] <- NA_character_
  known <- is.na(winner) | winner %in% c(arena_winners, "invalid")
  if (!all(known)) {
    bad <- which(!known)[[1]]
    abort_pb(
      c("Unknown winner {.val {winner[[bad]]}}.",
        i = "Winners are {.val {c(arena_winners, 'invalid')}} or empty."),
      "winner", file = file, row = bad, field = "winner", call = call
    )
  }
  winner
}

# One row per battle with the score of model_a (1, 0 or 0.5); failed judgements
# (`invalid`, empty) count as ties (as the original pipeline did) or are dropped.
battle_scores <- function(battles, invalid = c("tie", "drop"), call = rlang::caller_env()) {
  invalid <- rlang::arg_match(invalid, call = call)
  if (!is.data.frame(battles)) {
    abort_pb("{.arg battles} must be a data frame with {.field model_a}, {.field model_b} and
              {.field winner}.", "argument", call = call)
  }
  missing <- setdiff(c("model_a", "model_b", "winner"), names(battles))
  if (length(missing)) {
    abort_pb("{.arg battles} lacks column{?s} {.field {missing}}.", "schema",
             field = missing[[1]], call = call)
  }
  winner <- normalize_winner(battles$winner, call = call)
  model_a <- as.character(battles$model_a)
  model_b <- as.character(battles$model_b)
  bad <- which(is.na(model_a) | is.na(model_b) | !nzchar(model_a) | !nzchar(model_b))
  if (length(bad)) {
    abort_pb("A battle without a model name.", "schema", row = bad[[1]], call = call)
  }
  failed <- is.na(winner) | winner == "invalid"
  keep <- if (invalid == "drop") !failed else rep(TRUE, length(winner))
  score <- ifelse(winner == "model_a", 1, ifelse(winner == "model_b", 0, 0.5))
  score[failed] <- 0.5
  out <- tibble::tibble(model_a = model_a, model_b = model_b, winner = winner, score_a = score)
  if ("question" %in% names(battles)) out$question <- as.character(battles$question)
  out[keep, ]
}

battle_models <- function(scores) unique(c(scores$model_a, scores$model_b))

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
#' @export
#' @examples
#' battles <- data.frame(
#'   model_a = c("a", "a", "b", "c"),
#'   model_b = c("b", "c", "c", "a"),
#'   winner = c("model_a", "model_a", "tie", "model_b")
#' )
#' elo_online(battles)
#' elo_median(battles, n = 20)
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
#' @export
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

# Battles aggregated to one row per (unordered pair, outcome) cell: the only thing a
# Bradley-Terry fit needs, so a million battles become a few thousand numbers.
pair_counts <- function(scores, models = battle_models(scores)) {
  k <- length(models)
  cell <- battle_cells(scores, models)
  n <- tabulate(cell, nbins = k * k * 3L)
  used <- which(n > 0)
  idx <- used - 1L
  tibble::tibble(
    i = idx %/% 3L %/% k + 1L,
    j = idx %/% 3L %% k + 1L,
    outcome = idx %% 3L + 1L,
    n = n[used],
    cell = used
  )
}

# Bradley-Terry maximum likelihood on pair counts by Newton's method. `wins_i` counts i's
# points against j (a tie is half a win for each), `total` the battles of the pair. The tiny
# ridge (1 / C with C = 1e6, as FastChat's LogisticRegression) keeps ratings finite when a
# model never loses and makes the mean rating exactly `initial`.
bt_fit <- function(i, j, wins_i, total, k, scale = 400, base = 10, initial = 1000,
                   ridge = 1e-6, max_iter = 100, tol = 1e-9, start = NULL) {
  w <- if (is.null(start)) numeric(k) else (start - initial) / scale
  lb <- log(base)
  ui <- sort(unique(i))
  uj <- sort(unique(j))
  sum_by <- function(index, used, weight) {
    out <- numeric(k)
    out[used] <- rowsum(weight, index, reorder = TRUE)[, 1]
    out
  }
  loss <- function(w) {
    eta <- lb * (w[i] - w[j])
    -sum(wins_i * stats::plogis(eta, log.p = TRUE) +
           (total - wins_i) * stats::plogis(-eta, log.p = TRUE)) + ridge / 2 * sum(w^2)
  }
  current <- loss(w)
  for (iter in seq_len(max_iter)) {
    eta <- lb * (w[i] - w[j])
    p <- stats::plogis(eta)
    g_pair <- lb * (total * p - wins_i)
    grad <- ridge * w + sum_by(i, ui, g_pair) - sum_by(j, uj, g_pair)
    h_pair <- lb^2 * total * p * (1 - p)
    hess <- diag(ridge + sum_by(i, ui, h_pair) + sum_by(j, uj, h_pair), nrow = k)
    hess[cbind(i, j)] <- hess[cbind(i, j)] - h_pair
    hess[cbind(j, i)] <- hess[cbind(j, i)] - h_pair
    step <- tryCatch(solve(hess, grad), error = function(e) grad)
    t <- 1
    repeat {
      candidate <- w - t * step
      value <- loss(candidate)
      if (value <= current + 1e-12 * abs(current) || t < 1e-8) break
      t <- t / 2
    }
    w <- candidate
    improvement <- current - value
    current <- value
    if (max(abs(t * step)) < tol || improvement < tol * max(1, abs(current)) * 1e-3) break
  }
  scale * w + initial
}

# Fit BT to the cell counts `n` of `cells` (from pair_counts()).
bt_from_cells <- function(cells, n, k, scale, base, initial, start = NULL) {
  wins_i <- n * ifelse(cells$outcome == 1L, 1, ifelse(cells$outcome == 2L, 0, 0.5))
  pair <- (cells$i - 1L) * k + cells$j
  total <- rowsum(n, pair, reorder = TRUE)
  wins <- rowsum(wins_i, pair, reorder = TRUE)
  keys <- as.integer(rownames(total))
  bt_fit((keys - 1L) %/% k + 1L, (keys - 1L) %% k + 1L, wins[, 1], total[, 1], k,
         scale = scale, base = base, initial = initial, start = start)
}

#' Ratings with intervals and ranks from battle outcomes
#'
#' @description
#' `arena_ratings()` turns battles into a leaderboard. By default it fits a Bradley-Terry
#' model by maximum likelihood (the rating scale of Elo: 400 points of difference mean 10:1
#' odds; ties are half wins; the mean rating is `initial` unless `anchor` names a model that
#' is fixed at `anchor_rating`), after aggregating the battles to counts per pair, so a
#' million battles cost milliseconds and 1,000 bootstrap rounds seconds. Intervals are
#' percentile-bootstrap intervals from resampling battles (`by = "battles"`, drawn as a
#' multinomial over the pair counts) or whole questions (`by = "questions"`, which keeps
#' battles on one question together). A model none of whose battles is drawn in a replicate
#' (likely with `by = "questions"` when it played on few questions) has no rating in that
#' replicate, not `initial`: its interval comes from the replicates in which it played
#' (quantiles with `na.rm = TRUE`), and with `anchor` from those in which the anchor played
#' too. `rank` is 1 + the number of models whose lower bound is
#' above this model's upper bound, so models whose intervals overlap share a rank.
#'
#' `method = "elo"` gives EloBench's online Elo in file order (see [elo_online()]);
#' `"elo_median"` the median over random orders; both bootstrap by rerunning Elo on
#' resampled battles (slow for large files).
#'
#' @section Differences from the original:
#' * EloBench publishes online Elo (`method = "elo"`) rounded to whole points and without
#'   intervals; here ratings keep their decimals and come with bootstrap intervals. Its
#'   `get_bootstrap_medium_elo()` (median of 1,000 bootstrap Elo runs, rounded) is close to
#'   `method = "elo"` with `bootstrap = 1000`, taking `rating` as the median, but the random
#'   draws differ (R's generator, not numpy's).
#' * Bradley-Terry follows FastChat's `compute_elo_mle_with_tie()` (scale 400, base 10, ties
#'   as half wins, counts per unique outcome, bootstrap as a multinomial over those counts),
#'   fitted by Newton's method with an L2 penalty of 1e-6 (as the `C = 1e6` of its older
#'   `compute_mle_elo()`), which keeps the rating of a model that never lost finite. FastChat
#'   anchors `mixtral-8x7b-instruct-v0.1` at 1114 when present; here nothing is anchored
#'   unless `anchor` is given.
#'
#' @param battles A data frame with `model_a`, `model_b`, `winner` (and `question` for
#'   `by = "questions"`), such as [arena_read_battles()] returns.
#' @param method `"bt"` (Bradley-Terry, the default), `"elo"` or `"elo_median"`.
#' @param bootstrap Bootstrap rounds; 0 skips intervals (then `rank` follows the rating).
#' @param by Resample `"battles"` or `"questions"`.
#' @param level Interval level (0.95 gives the 2.5% and 97.5% quantiles).
#' @param anchor,anchor_rating A model whose rating is fixed (after fitting) at
#'   `anchor_rating`; `NULL` centres the ratings on `initial`.
#' @param n_orders Orders for `method = "elo_median"`.
#' @inheritParams elo_online
#' @returns A tibble of class `arena_ratings`, best model first: `model`, `rating`,
#'   `lower`, `upper`, `rank`, `battles`, `wins`, `losses`, `ties` (failed judgements count as
#'   ties unless dropped). The battles used are kept in the attribute `"battles"` for
#'   [autoplot.arena_ratings()].
#' @export
#' @examples
#' set.seed(1)
#' strength <- c(a = 1.0, b = 0.5, c = 0)
#' pairs <- t(replicate(300, sample(names(strength), 2)))
#' p <- plogis(strength[pairs[, 1]] - strength[pairs[, 2]])
#' battles <- data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
#'                       winner = ifelse(runif(300) < p, "model_a", "model_b"))
#' arena_ratings(battles, bootstrap = 200)
#' arena_ratings(battles, method = "elo", bootstrap = 0)
arena_ratings <- function(battles, method = c("bt", "elo", "elo_median"), bootstrap = 1000,
                          by = c("battles", "questions"), level = 0.95,
                          invalid = c("tie", "drop"), anchor = NULL, anchor_rating = 1000,
                          k = 4, initial = 1000, scale = 400, base = 10, n_orders = 100,
                          seed = 1) {
  method <- rlang::arg_match(method)
  by <- rlang::arg_match(by)
  invalid <- rlang::arg_match(invalid)
  check_count(bootstrap, min = 0)
  check_number(level)
  check_string(anchor, allow_null = TRUE)
  scores <- battle_scores(battles, invalid)
  if (!nrow(scores)) {
    abort_pb("There are no battles to rate.", "argument")
  }
  if (by == "questions" && !"question" %in% names(scores)) {
    abort_pb("{.code by = \"questions\"} needs a {.field question} column.", "argument",
             field = "question")
  }
  models <- battle_models(scores)
  if (!is.null(anchor) && !anchor %in% models) {
    abort_pb("Anchor model {.val {anchor}} has no battles.", "argument")
  }
  k_models <- length(models)
  fit <- rating_fitter(method, scores, models, k, initial, scale, base, n_orders, seed)
  rating <- fit$full()
  draws <- NULL
  if (bootstrap > 0) {
    draws <- with_seed(seed, fit$bootstrap(bootstrap, by))
  }
  shift <- function(x) {
    if (is.null(anchor)) return(x)
    x - x[[match(anchor, models)]] + anchor_rating
  }
  rating <- shift(rating)
  alpha <- (1 - level) / 2
  if (is.null(draws)) {
    lower <- upper <- rep(NA_real_, k_models)
    rank <- vapply(rating, function(r) 1L + sum(rating > r), 1L)
  } else {
    draws <- t(apply(draws, 1, shift))
    # A model absent from a replicate (its battles not drawn) has NA there: its interval
    # comes from the replicates in which it played.
    lower <- apply(draws, 2, stats::quantile, probs = alpha, names = FALSE, na.rm = TRUE)
    upper <- apply(draws, 2, stats::quantile, probs = 1 - alpha, names = FALSE, na.rm = TRUE)
    rank <- vapply(seq_len(k_models), function(m) 1L + sum(lower > upper[[m]], na.rm = TRUE),
                   1L)
  }
  tallies <- battle_tallies(scores, models)
  out <- tibble::tibble(model = models, rating = unname(rating), lower = lower,
                        upper = upper, rank = rank, tallies)
  out <- out[order(-out$rating, out$model), ]
  attr(out, "battles") <- scores
  attr(out, "method") <- method
  class(out) <- c("arena_ratings", class(out))
  out
}

battle_tallies <- function(scores, models) {
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  k <- length(models)
  tibble::tibble(
    battles = tabulate(a, k) + tabulate(b, k),
    wins = tabulate(a[scores$score_a == 1], k) + tabulate(b[scores$score_a == 0], k),
    losses = tabulate(a[scores$score_a == 0], k) + tabulate(b[scores$score_a == 1], k),
    ties = tabulate(a[scores$score_a == 0.5], k) + tabulate(b[scores$score_a == 0.5], k)
  )
}

# Each method as a pair of closures: the fit on all battles, and `times` bootstrap fits
# (a times x models matrix).
rating_fitter <- function(method, scores, models, k, initial, scale, base, n_orders, seed) {
  k_models <- length(models)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  resample_rows <- function(times, by) {
    if (by == "battles") {
      return(lapply(seq_len(times), function(t) sample.int(nrow(scores), replace = TRUE)))
    }
    groups <- split(seq_len(nrow(scores)), scores$question)
    lapply(seq_len(times), function(t) {
      unlist(groups[sample.int(length(groups), replace = TRUE)], use.names = FALSE)
    })
  }
  # Models that play no battle in a replicate get NA there, not a rating.
  absent_na <- function(rating, rows) {
    rating[tabulate(c(a[rows], b[rows]), k_models) == 0] <- NA_real_
    rating
  }
  if (method == "elo") {
    one <- function(rows) absent_na(elo_pass(a[rows], b[rows], scores$score_a[rows], models,
                                             k, initial, scale, base), rows)
    return(list(
      full = function() one(seq_len(nrow(scores))),
      bootstrap = function(times, by) {
        t(vapply(resample_rows(times, by), one, numeric(k_models)))
      }
    ))
  }
  if (method == "elo_median") {
    one <- function(rows) {
      sub <- scores[rows, ]
      elo_median(sub, n = n_orders, k = k, initial = initial, scale = scale, base = base,
                 seed = seed)[models]
    }
    return(list(
      full = function() one(seq_len(nrow(scores))),
      bootstrap = function(times, by) {
        # elo_median() on a replicate rates only the models in it; the others are NA.
        t(vapply(resample_rows(times, by), one, numeric(k_models)))
      }
    ))
  }
  cells <- pair_counts(scores, models)
  # Bootstrap fits start from the full fit, which saves most Newton steps.
  start <- NULL
  # A model with no battle among the drawn counts is NA (its fitted value would be the
  # penalty's 0, i.e. `initial`, which is no rating).
  fit_counts <- function(n) {
    keep <- n > 0
    out <- bt_from_cells(cells[keep, ], n[keep], k_models, scale, base, initial,
                         start = start)
    played <- tabulate(c(cells$i[keep], cells$j[keep]), k_models) > 0
    out[!played] <- NA_real_
    out
  }
  list(
    full = function() {
      start <<- fit_counts(cells$n)
      stats::setNames(start, models)
    },
    bootstrap = function(times, by) {
      total <- sum(cells$n)
      if (by == "battles") {
        draws <- stats::rmultinom(times, total, cells$n / total)
        return(t(apply(draws, 2, fit_counts)))
      }
      # Questions: counts per (question, cell), reweighted by how often each question is drawn.
      q <- match(scores$question, unique(scores$question))
      cell_of <- battle_cells(scores, models)
      combo <- rowsum(rep(1, length(q)), paste(q, cell_of), reorder = FALSE)
      parts <- strsplit(rownames(combo), " ", fixed = TRUE)
      combo_q <- as.integer(vapply(parts, `[[`, "", 1))
      combo_cell <- match(as.integer(vapply(parts, `[[`, "", 2)), cells$cell)
      n_q <- max(q)
      t(vapply(seq_len(times), function(t) {
        weight <- tabulate(sample.int(n_q, replace = TRUE), n_q)
        n <- numeric(nrow(cells))
        sums <- rowsum(weight[combo_q] * combo[, 1], combo_cell, reorder = TRUE)
        n[as.integer(rownames(sums))] <- sums[, 1]
        fit_counts(n)
      }, numeric(k_models)))
    }
  )
}

# Each battle's cell: its unordered pair (i < j) and the outcome seen from i (1 win, 2 loss,
# 3 tie), numbered so that tabulate() counts a million battles in one pass.
battle_cells <- function(scores, models) {
  k <- length(models)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  swap <- a > b
  i <- ifelse(swap, b, a)
  j <- ifelse(swap, a, b)
  s <- ifelse(swap, 1 - scores$score_a, scores$score_a)
  outcome <- ifelse(s == 1, 1L, ifelse(s == 0, 2L, 3L))
  ((i - 1L) * k + (j - 1L)) * 3L + outcome
}

#' @export
print.arena_ratings <- function(x, ...) {
  cli::cat_line(cli::format_inline(
    "{.strong Arena ratings} ({attr(x, 'method')}, {nrow(attr(x, 'battles'))} battles)"
  ))
  y <- x
  attr(y, "battles") <- NULL
  class(y) <- setdiff(class(y), "arena_ratings")
  print(y, ...)
  invisible(x)
}

#' Plot arena ratings
#'
#' `autoplot()` draws the ratings with their intervals (`type = "ratings"`) or a heatmap of
#' the observed win rate of each row model against each column model, ties counting half
#' (`type = "winrate"`). `plot()` prints the same. Both need ggplot2.
#'
#' @param object,x An [arena_ratings()] result.
#' @param type `"ratings"` or `"winrate"`.
#' @param ... Unused.
#' @returns A ggplot object (`plot()` returns it invisibly after printing).
#' @exportS3Method ggplot2::autoplot
#' @importFrom rlang .data
#' @examplesIf rlang::is_installed("ggplot2")
#' battles <- data.frame(model_a = c("a", "b", "a", "c"), model_b = c("b", "c", "c", "b"),
#'                       winner = c("model_a", "model_a", "tie", "model_b"))
#' r <- arena_ratings(battles, bootstrap = 50)
#' ggplot2::autoplot(r)
#' ggplot2::autoplot(r, type = "winrate")
autoplot.arena_ratings <- function(object, type = c("ratings", "winrate"), ...) {
  rlang::check_installed("ggplot2", "to plot arena ratings.")
  type <- rlang::arg_match(type)
  if (type == "ratings") {
    data <- as.data.frame(unclass(object)[c("model", "rating", "lower", "upper", "rank")])
    data$model <- factor(data$model, levels = rev(object$model))
    plot <- ggplot2::ggplot(data, ggplot2::aes(x = .data$rating, y = .data$model)) +
      ggplot2::geom_point() +
      ggplot2::labs(x = "Rating", y = NULL,
                    title = paste("Arena ratings:", attr(object, "method")))
    if (!all(is.na(data$lower))) {
      plot <- plot + ggplot2::geom_errorbar(
        ggplot2::aes(xmin = .data$lower, xmax = .data$upper), width = 0.2
      )
    }
    return(plot)
  }
  data <- win_rate_matrix(attr(object, "battles"), object$model)
  ggplot2::ggplot(data, ggplot2::aes(x = .data$opponent, y = .data$model,
                                     fill = .data$win_rate)) +
    ggplot2::geom_tile() +
    ggplot2::geom_text(ggplot2::aes(label = ifelse(is.na(.data$win_rate), "",
                                                   sprintf("%.2f", .data$win_rate))),
                       size = 3) +
    ggplot2::scale_fill_gradient2(low = "#b2182b", mid = "white", high = "#2166ac",
                                  midpoint = 0.5, limits = c(0, 1), na.value = "grey90") +
    ggplot2::labs(x = "Opponent", y = "Model", fill = "Win rate",
                  title = "Observed win rate (row against column, ties count half)") +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 45, hjust = 1))
}

#' @rdname autoplot.arena_ratings
#' @export
plot.arena_ratings <- function(x, type = c("ratings", "winrate"), ...) {
  plot <- autoplot.arena_ratings(x, type = type, ...)
  print(plot)
  invisible(plot)
}

win_rate_matrix <- function(scores, models) {
  both <- data.frame(
    model = c(scores$model_a, scores$model_b),
    opponent = c(scores$model_b, scores$model_a),
    points = c(scores$score_a, 1 - scores$score_a)
  )
  grid <- expand.grid(model = models, opponent = models, stringsAsFactors = FALSE)
  key <- paste(both$model, both$opponent, sep = "\r")
  sums <- tapply(both$points, key, sum)
  counts <- tapply(both$points, key, length)
  grid_key <- paste(grid$model, grid$opponent, sep = "\r")
  grid$win_rate <- unname(sums[grid_key] / counts[grid_key])
  grid$battles <- unname(counts[grid_key])
  grid$model <- factor(grid$model, levels = rev(models))
  grid$opponent <- factor(grid$opponent, levels = models)
  grid
}
