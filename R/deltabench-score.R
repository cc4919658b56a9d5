# DeltaBench's per-sample score: precision, recall and F1 of the named sections against
# the erroneous ones.

#' Score critiques against DeltaBench's gold sections
#'
#' The per-sample part of DeltaBench's evaluation. The gold set is the union of the erroneous
#' and the unuseful sections. For a sample with errors, predicted sections beyond the last
#' gold section are dropped (`clip_predictions = TRUE`, as the original does), then
#' true/false positives and false negatives over the section sets give precision, recall and
#' F1 (0 when undefined, as in the original). `correct` is 1 when the conclusion matches the
#' gold (errors or none) and, for a sample with errors, at least one predicted section is
#' gold.
#'
#' @param critique A character vector of critiques (`NA` for failed requests).
#' @param error_sections,unuseful_sections Lists of 1-based section numbers, one element per
#'   critique.
#' @param clip_predictions `TRUE` (the default, the original's rule) drops predicted sections
#'   beyond the last gold section before counting. That rule never penalises a guess past the
#'   last error, so a constant guess that names every section scores far above chance
#'   (see `vignette("processbench")`); `FALSE` counts every predicted section.
#' @returns A tibble with one row per critique: `judge`, `has_error` (gold not empty),
#'   `predicted` (the sections counted), `tp`, `fp`, `fn`, `precision`, `recall`, `f1`
#'   (`NA` for samples without gold errors and for failed critiques), `correct`, and `failed`.
#' @noRd
deltabench_score_critiques <- function(critique, error_sections, unuseful_sections,
                                       clip_predictions = TRUE) {
  check_flag(clip_predictions)
  n <- length(critique)
  if (!is.list(error_sections) || !is.list(unuseful_sections) ||
      length(error_sections) != n || length(unuseful_sections) != n) {
    abort_pb("{.arg error_sections} and {.arg unuseful_sections} must be lists as long as {.arg critique}.",
             "argument")
  }
  parsed <- deltabench_parse(critique)
  rows <- lapply(seq_len(n), function(i) {
    gold <- unique(as.integer(c(error_sections[[i]], unuseful_sections[[i]])))
    has_error <- length(gold) > 0
    judge <- parsed$judge[[i]]
    failed <- is.na(judge)
    predicted <- parsed$sections[[i]]
    if (clip_predictions && has_error) predicted <- predicted[predicted <= max(gold)]
    out <- list(judge = judge, has_error = has_error, predicted = list(predicted),
                tp = NA_integer_, fp = NA_integer_, fn = NA_integer_, precision = NA_real_,
                recall = NA_real_, f1 = NA_real_, correct = NA_integer_, failed = failed)
    if (failed) return(out)
    out$correct <- as.integer(judge == has_error &&
                                (!has_error || any(predicted %in% gold)))
    if (has_error) {
      p <- unique(predicted)
      out$tp <- length(intersect(p, gold))
      out$fp <- length(setdiff(p, gold))
      out$fn <- length(setdiff(gold, p))
      out$precision <- ratio0(out$tp, out$tp + out$fp)
      out$recall <- ratio0(out$tp, out$tp + out$fn)
      out$f1 <- ratio0(2 * out$precision * out$recall, out$precision + out$recall)
    }
    out
  })
  col <- function(name, type) vapply(rows, function(r) r[[name]], type)
  tibble::tibble(
    judge = col("judge", 1L), has_error = col("has_error", TRUE),
    predicted = lapply(rows, function(r) r$predicted[[1]]),
    tp = col("tp", 1L), fp = col("fp", 1L), fn = col("fn", 1L),
    precision = col("precision", 1), recall = col("recall", 1), f1 = col("f1", 1),
    correct = col("correct", 1L), failed = col("failed", TRUE)
  )
}
