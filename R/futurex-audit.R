# FutureX's part of judge_audit() (R/judges-audit.R): the numeric judge's verdicts (the score,
# to two decimals, of each numeric item whose values the judge gave), and their agreement
# with the plain parse of the answer (what the reference scores without a judge) on those
# items. Other items are scored by rule, without the judge, and are left out.

#' @export
benchmark_verdicts.futurex_benchmark <- function(benchmark, run) {
  samples <- run$samples
  normalization <- futurex_metadata(samples, "normalization")
  score <- suppressWarnings(as.double(samples$score))
  verdict <- ifelse(normalization %in% "llm" & !is.na(score), futurex_score_label(score),
                    NA_character_)
  verdicts_table(samples$id, samples[["epoch"]] %||% rep(1L, nrow(samples)), verdict)
}

#' @export
benchmark_panel_verdicts.futurex_benchmark <- function(benchmark, run) {
  scores <- panel_matrix(run$samples, "score")
  if (is.null(scores)) return(NULL)
  labels <- futurex_score_label(suppressWarnings(as.double(scores)))
  matrix(labels, nrow = nrow(scores), dimnames = dimnames(scores))
}

#' @export
benchmark_audit.futurex_benchmark <- function(benchmark, run, opts) {
  samples <- run$samples
  plain <- futurex_plain_scores(samples$result, samples$target, samples$std,
                                futurex_metadata(samples, "kind"))
  if (all(is.na(plain))) return(empty_audit())
  agreement_rows(run, benchmark_verdicts(benchmark, run), plain, "plain parse (numbers)", opts)
}

# One field of each sample's scorer metadata, as text (NA where absent).
futurex_metadata <- function(samples, field) {
  vapply(samples$scorer_metadata, function(m) {
    value <- m[[field]]
    if (length(value) == 1 && !is.na(value)) as.character(value) else NA_character_
  }, "")
}

# The score of each numeric item by the reference's plain parse of the answer and target
# (the rule without a judge), as text; NA for other items and items without an answer.
futurex_plain_scores <- function(result, target, std, kind, number_rule = "reference") {
  rule <- futurex_number_rule(number_rule)
  vapply(seq_along(result), function(i) {
    if (!kind[[i]] %in% "numeric" || is.na(result[[i]])) return(NA_character_)
    futurex_score_label(futurex_numeric(parse_number_text(result[[i]], rule),
                                        parse_number_text(target[[i]], rule), std[[i]]))
  }, "")
}

# A score as a label to compare: to two decimals, so that scores a rounding apart (0.9996 and
# 1) agree.
futurex_score_label <- function(score) as.character(round(score, 2))
