# Ratings from battle outcomes: arena_ratings() with bootstrap intervals and ranks.

#' Ratings with intervals and ranks from battle outcomes
#'
#' @description
#' `arena_ratings()` turns battles into a leaderboard. By default it fits a Bradley-Terry
#' model by maximum likelihood (the rating scale of Elo: 400 points of difference mean 10:1
#' odds; ties are half wins; the mean rating is `initial` unless `anchor` names a model whose
#' rating is fixed, see [rating_options()]), after aggregating the battles to counts per
#' pair, so a million battles cost milliseconds and 1,000 bootstrap rounds seconds. Intervals are
#' percentile-bootstrap intervals from resampling battles (`by = "battles"`, drawn as a
#' multinomial over the pair counts) or whole questions (`by = "questions"`, which keeps
#' battles on one question together). A model none of whose battles is drawn in a replicate
#' (likely with `by = "questions"` when it played on few questions) has no rating in that
#' replicate, not `initial`: its interval comes from the replicates in which it played
#' (quantiles with `na.rm = TRUE`), and with `anchor` from those in which the anchor played
#' too. `rank` is 1 + the number of models whose lower bound is
#' above this model's upper bound, so models whose intervals overlap share a rank.
#'
#' `method = "elo"` gives EloBench's online Elo in file order (each battle moves both
#' models' ratings by `k` times the surprise of its outcome);
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
#'   `compute_mle_elo()`). FastChat anchors `mixtral-8x7b-instruct-v0.1` at 1114 when
#'   present; here nothing is anchored unless `anchor` is given.
#' * When the battles are perfectly separated (some group of models never scored a win or
#'   a tie against another group it met, as when one model won every battle), the maximum
#'   likelihood is at infinity and FastChat's tiny penalty gives ratings near +-5000 with
#'   tight intervals. Here such a fit (the full fit, and each bootstrap replicate that is
#'   separated) uses a Gaussian prior toward equal strength instead, with a standard
#'   deviation of `scale` (400) points around `initial`, and the full fit warns (class
#'   `predictivebench_warning_separated`, naming the groups). Battles that are not separated
#'   are fitted as FastChat fits them.
#'
#' @param battles A data frame with `model_a`, `model_b`, `winner` (and `question` for
#'   `by = "questions"`), such as EloBench's `battle_records.csv` holds, or an evaluated
#'   [arena_task()], its samples or its log file (its model against each reference model:
#'   the arena's Elo table, which [arena_summary()] leaves out because a rating is not on
#'   the 0-1 scale of summary rows).
#' @param options A [rating_options()] object: the method, bootstrap, style control and
#'   scale.
#' @param ... Deprecated: the options by their names before 0.2.0 (`method`, `bootstrap`,
#'   `by`, `level`, `invalid`, `anchor`, `anchor_rating`, `k`, `initial`, `scale`, `base`,
#'   `n_orders`, `seed`, `style_control`), taken with a warning.
#' @returns A tibble of class `arena_ratings`, best model first: `model`, `rating`,
#'   `lower`, `upper`, `rank`, `battles`, `wins`, `losses`, `ties` (failed judgements count as
#'   ties unless dropped). A model none of whose battles has a verdict (each failed or
#'   unreadable) has `NA` as its rating, interval and rank (and is named in the attribute
#'   `"unrated"` and the print): ties made of failed judgements alone say nothing of it. The battles used are kept in the attribute `"battles"` for
#'   [autoplot.arena_ratings()]. With `style_control`, also `style_rating`, `style_lower`,
#'   `style_upper`, and the fitted style coefficients (log-odds per standard deviation of
#'   each feature) in the attribute `"style_coefficients"`.
#' @family arena
#' @export
#' @examples
#' set.seed(1)
#' strength <- c(a = 1.0, b = 0.5, c = 0)
#' pairs <- t(replicate(300, sample(names(strength), 2)))
#' p <- plogis(strength[pairs[, 1]] - strength[pairs[, 2]])
#' battles <- data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
#'                       winner = ifelse(runif(300) < p, "model_a", "model_b"))
#' arena_ratings(battles, rating_options(bootstrap = 200))
#' arena_ratings(battles, rating_options(method = "elo", bootstrap = 0))
arena_ratings <- function(battles, options = rating_options(), ...) {
  o <- rating_options_with_dots(options, list(...), "arena_ratings")
  scores <- battle_scores(arena_outcomes(battles), o$invalid)
  if (!nrow(scores)) {
    abort_pb("There are no battles to rate.", "argument")
  }
  if (o$style_control && !all(c("answer_a", "answer_b") %in% names(scores))) {
    abort_pb("Style control needs the answers: columns {.field answer_a} and {.field answer_b}.",
             "argument", field = "answer_a")
  }
  check_by_questions(scores, o$by)
  models <- battle_models(scores)
  anchor <- o$anchor
  if (!is.null(anchor) && !anchor %in% models) {
    abort_pb("Anchor model {.val {anchor}} has no battles.", "argument")
  }
  k_models <- length(models)
  fit <- rating_fitter(scores, models, o)
  rating <- fit$full()
  warn_separated(attr(rating, "separated"), models)
  attr(rating, "separated") <- NULL
  draws <- NULL
  if (o$bootstrap > 0) {
    draws <- with_seed(o$seed, fit$bootstrap(o$bootstrap, o$by))
  }
  shift <- function(x) {
    if (is.null(anchor)) return(x)
    x - x[[match(anchor, models)]] + o$anchor_rating
  }
  rating <- shift(rating)
  alpha <- (1 - o$level) / 2
  if (is.null(draws)) {
    lower <- upper <- rep(NA_real_, k_models)
    rank <- vapply(rating, function(r) 1L + sum(rating > r), 1L)
  } else {
    draws <- t(apply(draws, 1, shift))
    lower <- apply(draws, 2, stats::quantile, probs = alpha, names = FALSE, na.rm = TRUE)
    upper <- apply(draws, 2, stats::quantile, probs = 1 - alpha, names = FALSE, na.rm = TRUE)
    rank <- vapply(seq_len(k_models), function(m) 1L + sum(lower > upper[[m]], na.rm = TRUE),
                   1L)
  }
  tallies <- battle_tallies(scores, models)
  # ties made of failed judgements alone would rate a model at `initial` on nothing
  unrated <- models[tabulate(match(c(scores$model_a, scores$model_b)[
    !rep(failed_judgement(scores$winner), 2)], models), k_models) == 0]
  none <- models %in% unrated
  rating[none] <- lower[none] <- upper[none] <- NA_real_
  rank[none] <- NA_integer_
  out <- tibble::tibble(model = models, rating = unname(rating), lower = unname(lower),
                        upper = unname(upper), rank = rank, tallies)
  out <- out[order(-out$rating, out$model), ]
  attr(out, "unrated") <- unrated
  if (o$style_control) {
    out <- add_style_columns(out, style_ratings(scores, models, o), models)
  }
  attr(out, "battles") <- scores
  attr(out, "method") <- o$method
  class(out) <- c("arena_ratings", class(out))
  out
}

# Separated battles have no finite maximum-likelihood rating: say which groups, and the fallback.
warn_separated <- function(groups, models) {
  if (is.null(groups)) return(invisible())
  labels <- vapply(groups, function(g) paste0("{", paste(models[g], collapse = ", "), "}"), "")
  cli::cli_warn(
    c("The battles are perfectly separated: Bradley-Terry's maximum-likelihood ratings are
       infinite.",
      i = "No model of a group right of a {.code >} won or tied a battle against a model
           of the group left of it: {separated_order(labels, attr(groups, 'above'))}.",
      i = "The ratings use a Gaussian prior toward equal strength (standard deviation
           {.arg scale} points); battles won across these groups would let the data decide."),
    class = "predictivebench_warning_separated",
    groups = unname(lapply(groups, function(g) models[g]))
  )
}

# The groups in one chain when each reaches the next, else each directly ordered pair: groups
# that never met are not ordered.
separated_order <- function(labels, above) {
  n <- length(labels)
  if (n < 2 || is.null(above) || all(above[cbind(seq_len(n - 1), seq_len(n)[-1])])) {
    return(paste(labels, collapse = " > "))
  }
  links <- which(above, arr.ind = TRUE)
  direct <- vapply(seq_len(nrow(links)), function(r) {
    !any(above[links[r, 1], ] & above[, links[r, 2]])
  }, TRUE)
  links <- links[direct, , drop = FALSE]
  links <- links[order(links[, 1], links[, 2]), , drop = FALSE]
  paste(labels[links[, 1]], labels[links[, 2]], sep = " > ", collapse = "; ")
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

# Each method as two closures: the fit on all battles, and `times` bootstrap fits (times x models).
rating_fitter <- function(scores, models, o) {
  k_models <- length(models)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  # One replicate's rows, drawn when it is fitted (all at once would hold 500 MB at 124,632
  # battles x 1,000), in the same order: fitting takes nothing from the random stream.
  resampler <- function(by) {
    if (by == "battles") return(function() sample.int(nrow(scores), replace = TRUE))
    groups <- split(seq_len(nrow(scores)), scores$question)
    function() unlist(groups[sample.int(length(groups), replace = TRUE)], use.names = FALSE)
  }
  # Models that play no battle in a replicate get NA there, not a rating.
  absent_na <- function(rating, rows) {
    rating[tabulate(c(a[rows], b[rows]), k_models) == 0] <- NA_real_
    rating
  }
  if (o$method %in% c("elo", "elo_median")) {
    one <- if (o$method == "elo") {
      function(rows) absent_na(elo_pass(a[rows], b[rows], scores$score_a[rows], models,
                                        o$k, o$initial, o$scale, o$base), rows)
    } else {
      # elo_median() on a replicate rates only the models in it; the others are NA.
      function(rows) {
        elo_median(scores[rows, ], n = o$n_orders, k = o$k, initial = o$initial,
                   scale = o$scale, base = o$base, seed = o$seed)[models]
      }
    }
    return(list(
      full = function() one(seq_len(nrow(scores))),
      bootstrap = function(times, by) {
        draw <- resampler(by)
        t(vapply(seq_len(times), function(t) one(draw()), numeric(k_models)))
      }
    ))
  }
  cells <- pair_counts(scores, models)
  # Bootstrap fits start from the full fit, which saves most Newton steps.
  start <- NULL
  # A model without battles among the drawn counts is NA (its fit would be `initial`, no rating).
  fit_counts <- function(n) {
    keep <- n > 0
    out <- bt_from_cells(cells[keep, ], n[keep], k_models, o, start = start)
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

#' @export
print.arena_ratings <- function(x, ...) {
  cli::cat_line(cli::format_inline(
    "{.strong Arena ratings} ({attr(x, 'method')}, {nrow(attr(x, 'battles'))} battles)"
  ))
  y <- x
  attr(y, "battles") <- NULL
  unrated <- sort(attr(y, "unrated"))
  attr(y, "unrated") <- NULL
  class(y) <- setdiff(class(y), "arena_ratings")
  print(y, ...)
  if (length(unrated)) {
    cli::cat_line(cli::format_inline(
      "No rating for {unrated}: every battle of theirs has no readable verdict (failed or ",
      "unreadable, counted as ties), so there is nothing to rate them by."
    ))
  }
  invisible(x)
}

# Resampling by question needs the battles' questions.
check_by_questions <- function(scores, by, call = rlang::caller_env()) {
  if (by == "questions" && !"question" %in% names(scores)) {
    abort_pb("{.code by = \"questions\"} needs a {.field question} column.", "argument",
             field = "question", call = call)
  }
  invisible(scores)
}
