# Whether a context's expected query has the highest probability, and why, in words: the
# expected query, the distribution over the queries, and the likeliest one.
probsem_judge <- function(meta, expected) {
  out <- list(correct = NA, expected_query = NA_character_, expected_prob = NA_real_,
              max_prob = NA_real_, tied = FALSE, why = "")
  prob <- meta$prob
  scored <- length(prob) && !anyNA(prob)
  distribution <- if (scored) {
    paste0(" Distribution: ", paste(encodeString(meta$queries, quote = "\""),
                                    sprintf("%.4g", prob), collapse = ", "), ".")
  } else ""
  if (is.na(expected) || expected == -1) {
    out$why <- paste0("No ground truth (expected = -1).", distribution)
    return(out)
  }
  out$expected_query <- meta$queries[[expected + 1]] %||% NA_character_
  if (!scored) {
    out$why <- "Scoring failed for at least one query."
    return(out)
  }
  out$expected_prob <- prob[[expected + 1]]
  out$max_prob <- max(prob)
  out$correct <- prob[[expected + 1]] == max(prob)
  likeliest <- meta$queries[prob == max(prob)]
  out$tied <- length(likeliest) > 1
  out$why <- sprintf(
    "%s: expected %s has p = %.4g; the likeliest %s %s (p = %.4g).%s",
    if (!out$correct) "Incorrect" else if (out$tied) "Correct through a tie" else "Correct",
    encodeString(out$expected_query, quote = "\""), out$expected_prob,
    if (length(likeliest) > 1) "are" else "is",
    paste(encodeString(likeliest, quote = "\""), collapse = " and "), out$max_prob,
    distribution
  )
  out
}
