# One score convention for every benchmark: a number in [0, 1].

#' Scores as numbers in `[0, 1]`
#'
#' @description
#' Every predictivebench task stores its scores as doubles in `[0, 1]` (`NA` for a sample
#' that could not be scored), so [vitals::vitals_bind()] combines tasks of different
#' benchmarks (it fails on a double `score` next to an ordered factor) and a mean of scores
#' is an accuracy. Numbers rather than vitals' `I < P < C` factor because several
#' benchmarks score on a continuous scale (FutureX's squared-error and F1 scores, probsem's
#' probabilities) that a three-level factor would round away, while a factor is a number
#' without loss: `as_score()` maps `I` to 0, `P` to 0.5 and `C` to 1.
#'
#' Every scorer of the package makes its scores with one internal helper (`score_values()`),
#' so they are doubles from the start; `ResultsTask` still applies `as_score()` to whatever a
#' scorer returns, for scorers of your own (vitals' `model_graded_qa()` gives a factor) and
#' for logs written before scores were numbers.
#'
#' @param x Scores: numbers in `[0, 1]`, logicals, or a factor or character vector with
#'   values among `I`, `P`, `C`.
#' @returns A double vector as long as `x`.
#' @noRd
as_score <- function(x) {
  if (is.factor(x)) x <- as.character(x)
  if (is.logical(x)) return(as.double(x))
  if (is.character(x)) {
    known <- is.na(x) | x %in% c("I", "P", "C")
    if (!all(known)) {
      abort_pb("Score {.val {x[!known][1]}} is not a number, I, P or C.", "argument",
               row = which(!known)[1])
    }
    return(unname(c(I = 0, P = 0.5, C = 1)[x]))
  }
  if (!is.numeric(x)) {
    abort_pb("Scores must be numbers, logicals or I/P/C, not {.obj_type_friendly {x}}.",
             "argument")
  }
  score_values(x)
}

# The one way a scorer of the package makes its scores: correct/incorrect (TRUE/FALSE) or a
# grade in [0, 1] becomes a double in [0, 1]; NA (or `unscored`) is a sample that could not
# be scored. A value outside [0, 1] is a bug in the scorer, so it stops here.
score_values <- function(x, unscored = NULL, call = rlang::caller_env()) {
  if (!is.logical(x) && !is.numeric(x)) {
    abort_pb("Scores must be numbers or logicals, not {.obj_type_friendly {x}}.", "argument",
             call = call)
  }
  x <- as.double(x)
  if (!is.null(unscored)) x[unscored] <- NA_real_
  outside <- !is.na(x) & (x < 0 | x > 1)
  if (any(outside)) {
    abort_pb("Score {x[outside][1]} is outside [0, 1].", "argument", row = which(outside)[1],
             call = call)
  }
  x
}
