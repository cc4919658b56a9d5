# probsem's scorer: a context is correct when its expected query is the likeliest (ties
# count, as in the original's suite accuracy).

#' @rdname probsem_task
#' @export
probsem_scorer <- function() {
  scorer <- function(samples, ...) {
    judged <- lapply(seq_len(nrow(samples)), function(i) {
      probsem_judge(samples$solver_metadata[[i]], samples$expected[[i]])
    })
    correct <- vapply(judged, `[[`, NA, "correct")
    score <- score_values(correct)
    metadata <- lapply(judged, function(j) j[c("expected_query", "expected_prob", "max_prob")])
    explanation <- vapply(judged, `[[`, "", "why")
    # A context with the paper's human judgements is scored by its distance to them.
    fits <- probsem_human_fits(samples)
    at <- if (!is.null(fits)) match(as.character(samples$id), fits$id) else integer()
    for (i in which(!is.na(at))) {
      fit <- fits[at[[i]], ]
      score[[i]] <- fit$js_distance
      explanation[[i]] <- probsem_human_why(fit)
      metadata[[i]] <- c(metadata[[i]], js_distance = fit$js_distance,
                         temperature = fit$temperature, n_people = fit$n_people)
    }
    list(score = score_values(score), scorer_metadata = metadata, explanation = explanation)
  }
  # a sentence's human fit reads its suite's other sentences: `$eval()` keeps a suite in one
  # chunk (R/results-eval.R)
  attr(scorer, "predictivebench_chunk_by") <- c("prompt", "suite")
  scorer
}
