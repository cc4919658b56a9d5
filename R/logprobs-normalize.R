# Query scores: softmax over a context's queries, length normalization and temperature.

#' Turn query scores into a distribution
#'
#' `logprob_softmax()` is the softmax over one context's query scores, `exp(x) / sum(exp(x))`
#' as in the original probsem. The original overflows for very negative sums (every
#' `exp(x)` is 0, giving `NaN`); here such input is computed stably as
#' `exp(x - max(x)) / sum(exp(x - max(x)))`. Wherever the original's formula is finite, the
#' same formula is used, computed with R's `exp()` and `sum()`: the probabilities equal
#' numpy's within a few units in the last place (numpy's `exp` and summation round
#' differently), i.e. to about 15 significant digits, not bit for bit.
#'
#' `logprob_normalize()` applies the original's post-processing to summed log-probabilities:
#' optional length normalization (`norm = "tokens"`, the original's `--norm`: divide by the
#' query's token count; `"sqrt"`: divide by its square root, a variant used in the
#' literature) and then division by `temperature` (the original's `--temp`). A score of
#' `-Inf` (a query the chat backend did not find among the alternatives) stays `-Inf`
#' whatever the token count, so it gets probability 0 and the other queries a proper
#' distribution.
#'
#' @param x Scores of one context's queries (log-probabilities, already divided by the
#'   temperature).
#' @param logp Summed log-probabilities.
#' @param n_tokens Token counts of the queries.
#' @param norm `"none"` (the default), `"tokens"` or `"sqrt"`. `TRUE`/`FALSE` mean
#'   `"tokens"`/`"none"`, like the original's flag.
#' @param temperature A positive number; scores are divided by it (default 1). Below 1 the
#'   distribution is sharper, above 1 flatter.
#' @returns A numeric vector as long as `x` (or `logp`). `logprob_softmax()` gives `NA`
#'   everywhere when any score is `NA` or no score is finite.
#' @noRd
logprob_softmax <- function(x) {
  if (!is.numeric(x)) abort_pb("{.arg x} must be numeric.", "argument")
  x <- as.double(x)
  if (!length(x)) return(x)
  if (anyNA(x)) return(rep(NA_real_, length(x)))
  e <- exp(x)
  out <- e / sum(e)
  if (all(is.finite(out))) return(out)
  m <- max(x)
  if (!is.finite(m)) {
    if (m == Inf) return(ifelse(x == Inf, 1 / sum(x == Inf), 0))
    return(rep(NA_real_, length(x)))
  }
  e <- exp(x - m)
  e / sum(e)
}

#' @noRd
logprob_normalize <- function(logp, n_tokens, norm = "none", temperature = 1) {
  norm <- logprob_norm_arg(norm)
  check_number(temperature)
  if (temperature <= 0) {
    abort_pb("{.arg temperature} must be positive.", "argument")
  }
  divisor <- switch(norm, none = 1, tokens = n_tokens, sqrt = sqrt(n_tokens))
  out <- logp / divisor / temperature
  # An impossible query stays impossible, even without a token count.
  out[!is.na(logp) & logp == -Inf] <- -Inf
  out
}

logprob_norm_arg <- function(norm, call = rlang::caller_env()) {
  if (isTRUE(norm)) return("tokens")
  if (isFALSE(norm)) return("none")
  if (!rlang::is_string(norm) || !norm %in% c("none", "tokens", "sqrt")) {
    abort_pb("{.arg norm} must be {.val none}, {.val tokens}, {.val sqrt}, TRUE or FALSE.",
             "argument", call = call)
  }
  norm
}
