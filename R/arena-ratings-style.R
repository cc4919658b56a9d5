# Style-controlled Bradley-Terry ratings: strengths fitted with the effect of answer length and
# markdown, so a model is not rewarded for longer or more formatted answers.

#' Style features of answers
#'
#' @description
#' `arena_style_features()` counts, for each answer, what the Chatbot Arena's style control
#' (FastChat, "Does style matter?", 2024) controls for: its `length` (characters), markdown
#' `headers` (lines starting with one to six `#` and a space), `lists` (lines starting with
#' `-`, `*`, `+` or a number and `.`, then a space) and `bold` spans (`**text**` or
#' `__text__`). Markdown inside fenced code blocks is not counted.
#'
#' @param answers A character vector.
#' @returns A tibble with one row per answer: `length`, `headers`, `lists`, `bold`.
#' @noRd
arena_style_features <- function(answers) {
  answers <- as.character(answers)
  answers[is.na(answers)] <- ""
  prose <- gsub("(?s)```.*?```", "", answers, perl = TRUE)
  count <- function(pattern) {
    vapply(gregexpr(pattern, prose, perl = TRUE), function(m) sum(m > 0), 1)
  }
  tibble::tibble(
    length = as.double(nchar(answers)),
    headers = count("(?m)^#{1,6} "),
    lists = count("(?m)^\\s*(?:[-*+]|\\d+\\.) "),
    bold = count("\\*\\*[^*\\n]+\\*\\*|__[^_\\n]+__")
  )
}

# The style covariates of each battle, as FastChat builds them: for each feature the
# difference between the two answers relative to their sum, (a - b) / (a + b + 1), then
# standardized over the battles. A feature that never differs is dropped.
style_covariates <- function(answer_a, answer_b) {
  a <- arena_style_features(answer_a)
  b <- arena_style_features(answer_b)
  ratio <- as.matrix(a - b) / (as.matrix(a + b) + 1)
  spread <- apply(ratio, 2, stats::sd)
  keep <- !is.na(spread) & spread > 0
  centred <- sweep(ratio[, keep, drop = FALSE], 2, colMeans(ratio[, keep, drop = FALSE]))
  sweep(centred, 2, spread[keep], "/")
}

# Logistic regression of model_a's score on model indicators (+1/-1, the first model the
# reference) and the style covariates, by Newton's method with FastChat's L2 penalty of 1e-6.
style_bt_fit <- function(a, b, score, covariates, k, weight = rep(1, length(score))) {
  n <- length(score)
  x <- matrix(0, n, k)
  x[cbind(seq_len(n), a)] <- 1
  x[cbind(seq_len(n), b)] <- x[cbind(seq_len(n), b)] - 1
  x <- cbind(x[, -1, drop = FALSE], covariates)
  beta <- rep(0, ncol(x))
  for (step in 1:50) {
    p <- stats::plogis(drop(x %*% beta))
    grad <- drop(crossprod(x, weight * (score - p))) - 1e-6 * beta
    hess <- crossprod(x, x * (weight * p * (1 - p))) + diag(1e-6, ncol(x))
    move <- tryCatch(solve(hess, grad), error = function(e) grad)
    beta <- beta + move
    if (max(abs(move)) < 1e-8) break
  }
  list(strength = unname(c(0, beta[seq_len(k - 1)])),
       style = stats::setNames(beta[-seq_len(k - 1)], colnames(covariates)))
}

# Style-controlled ratings on the plain scale, bootstrapped as the plain ratings are.
style_ratings <- function(scores, models, options) {
  bootstrap <- options$bootstrap
  k <- length(models)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  covariates <- style_covariates(scores$answer_a, scores$answer_b)
  to_rating <- function(strength) {
    rating <- strength * options$scale / log(options$base)
    rating - mean(rating) + options$initial
  }
  fit_rows <- function(weight) {
    fit <- style_bt_fit(a, b, scores$score_a, covariates, k, weight)
    played <- tabulate(c(a[weight > 0], b[weight > 0]), k) > 0
    rating <- to_rating(fit$strength)
    rating[!played] <- NA_real_
    list(rating = rating, style = fit$style)
  }
  full <- fit_rows(rep(1, nrow(scores)))
  lower <- upper <- rep(NA_real_, k)
  draws <- NULL
  if (bootstrap > 0) {
    groups <- if (options$by == "questions") match(scores$question, unique(scores$question)) else
      seq_len(nrow(scores))
    n_groups <- max(groups)
    draws <- with_seed(options$seed, t(vapply(seq_len(bootstrap), function(r) {
      drawn <- tabulate(sample.int(n_groups, replace = TRUE), n_groups)
      fit_rows(drawn[groups])$rating
    }, numeric(k))))
    alpha <- (1 - options$level) / 2
    lower <- apply(draws, 2, stats::quantile, probs = alpha, names = FALSE, na.rm = TRUE)
    upper <- apply(draws, 2, stats::quantile, probs = 1 - alpha, names = FALSE, na.rm = TRUE)
  }
  list(rating = full$rating, lower = lower, upper = upper, style = full$style, draws = draws)
}

add_style_columns <- function(out, fit, models) {
  at <- match(out$model, models)
  out$style_rating <- fit$rating[at]
  out$style_lower <- fit$lower[at]
  out$style_upper <- fit$upper[at]
  attr(out, "style_coefficients") <- fit$style
  out
}
