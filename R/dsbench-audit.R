# DSBench's part of judge_audit() (R/judges-audit.R): the judge's verdicts (correct or not),
# and their agreement with the exact match (R/dsbench-exact.R) on the questions whose answer
# is a number, where the exact match can be trusted to decide.

#' @export
benchmark_verdicts.dsbench_benchmark <- function(benchmark, run) {
  samples <- run$samples
  judged <- vapply(samples$scorer_metadata, function(m) isTRUE(as.logical(m$judged)), TRUE)
  score <- suppressWarnings(as.double(samples$score))
  verdict <- ifelse(judged & !is.na(score), normalise_label(score == 1), NA_character_)
  verdicts_table(samples$id, samples[["epoch"]] %||% rep(1L, nrow(samples)), verdict)
}

#' @export
benchmark_panel_verdicts.dsbench_benchmark <- function(benchmark, run) {
  panel_matrix(run$samples, "correct")
}

#' @export
benchmark_audit.dsbench_benchmark <- function(benchmark, run, opts) {
  samples <- run$samples
  exact <- dsbench_exact_labels(samples$result, samples$target, samples$target_type)
  if (all(is.na(exact))) return(empty_audit())
  agreement_rows(run, benchmark_verdicts(benchmark, run), exact, "exact match (numbers)", opts)
}

# The exact match's verdict ("correct", "incorrect") where the answer is a number; NA for
# other answers (letters, text, tables), where it decides less well than a judge.
dsbench_exact_labels <- function(result, target, type) {
  vapply(seq_along(target), function(i) {
    if (is.na(result[[i]])) return(NA_character_)
    checked <- dsbench_exact_one(result[[i]], target[[i]], type[[i]], 1e-6)
    if (!identical(checked$rule, "number")) return(NA_character_)
    normalise_label(checked$correct)
  }, "")
}
