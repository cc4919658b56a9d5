# The ProcessBench scorer: the voted index of the earliest wrong step against the label.

#' @rdname processbench_task
#' @order 4
#' @export
processbench_scorer <- function() {
  function(samples, ...) {
    prediction <- processbench_prediction(samples$result)
    correct <- !is.na(prediction) & prediction == samples$label
    meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
      vector("list", nrow(samples))
    list(
      score = score_values(correct),
      explanation = vapply(seq_along(prediction), function(i) {
        processbench_explanation(meta[[i]]$votes, prediction[[i]], samples$label[[i]],
                                 correct[[i]])
      }, ""),
      scorer_metadata = lapply(seq_along(prediction), function(i) {
        list(prediction = prediction[[i]], label = samples$label[[i]])
      })
    )
  }
}

# Why a sample scored what it did: the votes, the majority, and the label.
processbench_explanation <- function(votes, prediction, label, correct) {
  votes_text <- if (length(votes)) {
    paste0("votes ", paste(ifelse(is.na(votes), "none", votes), collapse = ", "),
           " (", sum(!is.na(votes)), " valid of ", length(votes), "); majority ")
  } else {
    "prediction "
  }
  paste0(votes_text, if (is.na(prediction)) "none" else prediction, " vs label ", label, ": ",
         if (correct) "correct" else "wrong")
}

# A result is the voted index; a raw critique (from another solver) is read by its last box.
processbench_prediction <- function(result) {
  result <- as.character(result)
  out <- parse_integer_answer(result)
  raw <- is.na(out) & !is.na(result)
  out[raw] <- processbench_parse_index(result[raw])
  out
}
