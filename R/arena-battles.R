# A battle's vocabulary, below every other arena file: winners, scores, models, and its text.

arena_winners <- c("model_a", "model_b", "tie", "tie(all bad)")

# Winners as the original writes them, FastChat's spelling, and failed values; else an error.
normalize_winner <- function(winner, file = NULL, call = rlang::caller_env()) {
  winner <- as.character(winner)
  winner[!is.na(winner) & winner %in% c("tie (bothbad)", "tie(bothbad)")] <- "tie(all bad)"
  winner[!is.na(winner) & winner == "NaN"] <- NA_character_
  winner[!is.na(winner) & !nzchar(winner)] <- NA_character_
  known <- is.na(winner) | winner %in% c(arena_winners, "invalid")
  if (!all(known)) {
    bad <- which(!known)[[1]]
    abort_pb(
      c("Unknown winner {.val {winner[[bad]]}}.",
        i = "Winners are {.val {c(arena_winners, 'invalid')}} or empty."),
      "winner", file = file, row = bad, field = "winner", call = call
    )
  }
  winner
}

failed_judgement <- function(winner) is.na(winner) | winner == "invalid"

# model_a's points per winner; failed judgements count as `failed` (0.5, or NA to leave out).
winner_points <- function(winner, failed = 0.5) {
  score <- ifelse(winner %in% "model_a", 1, ifelse(winner %in% "model_b", 0, 0.5))
  score[failed_judgement(winner)] <- failed
  score
}

# model_a's score per battle; failed judgements are ties (as the original pipeline did) or dropped.
battle_scores <- function(battles, invalid = c("tie", "drop"), call = rlang::caller_env()) {
  invalid <- rlang::arg_match(invalid, call = call)
  if (!is.data.frame(battles)) {
    abort_pb("{.arg battles} must be a data frame with {.field model_a}, {.field model_b} and
              {.field winner}.", "argument", call = call)
  }
  missing <- setdiff(c("model_a", "model_b", "winner"), names(battles))
  if (length(missing)) {
    abort_pb("{.arg battles} lacks column{?s} {.field {missing}}.", "schema",
             field = missing[[1]], call = call)
  }
  winner <- normalize_winner(battles$winner, call = call)
  model_a <- as.character(battles$model_a)
  model_b <- as.character(battles$model_b)
  bad <- which(is.na(model_a) | is.na(model_b) | !nzchar(model_a) | !nzchar(model_b))
  if (length(bad)) {
    abort_pb("A battle without a model name.", "schema", row = bad[[1]], call = call)
  }
  keep <- if (invalid == "drop") !failed_judgement(winner) else rep(TRUE, length(winner))
  score <- winner_points(winner)
  out <- tibble::tibble(model_a = model_a, model_b = model_b, winner = winner, score_a = score)
  for (column in intersect(c("question", "answer_a", "answer_b"), names(battles))) {
    out[[column]] <- as.character(battles[[column]])
  }
  out[keep, ]
}

battle_models <- function(scores) unique(c(scores$model_a, scores$model_b))

check_registered <- function(arrangement, models, file = NULL, call = rlang::caller_env()) {
  used <- c(arrangement$model_a, arrangement$model_b)
  unknown <- setdiff(unique(used), models)
  if (length(unknown)) {
    row <- which(arrangement$model_a %in% unknown | arrangement$model_b %in% unknown)[[1]]
    abort_pb(
      c("The arrangement names model{?s} that {?was/were} never registered: {.val {unknown}}.",
        i = "Registered: {.val {models}}."),
      "model", file = file, row = row, call = call
    )
  }
  invisible(arrangement)
}

metadata_field <- function(meta, field) {
  vapply(meta, function(m) as.character(m[[field]] %||% NA_character_), "")
}

# The question and answers of an arena_run() log's battles, stored once in the input
# (R/arena-log.R): cut back out by their lengths (`question_chars`, `answer_a_chars`).
battle_parts <- function(x) {
  if ("question" %in% names(x) || !all(c("input", "solver_metadata") %in% names(x))) {
    return(x)
  }
  chars <- function(field) {
    suppressWarnings(as.integer(metadata_field(x$solver_metadata, field)))
  }
  question_chars <- chars("question_chars")
  answer_a_chars <- chars("answer_a_chars")
  if (anyNA(question_chars) || anyNA(answer_a_chars)) return(x)
  input <- x$input
  start_q <- nchar("Question:\n") + 1L
  end_q <- start_q + question_chars - 1L
  start_a <- end_q + nchar(paste0("\n\nAnswer of ", x$model_a, " (model_a):\n")) + 1L
  end_a <- start_a + answer_a_chars - 1L
  start_b <- end_a + nchar(paste0("\n\nAnswer of ", x$model_b, " (model_b):\n")) + 1L
  x$question <- substr(input, start_q, end_q)
  x$answer_a <- substr(input, start_a, end_a)
  x$answer_b <- substring(input, start_b)
  x
}

na_as_empty <- function(x) ifelse(is.na(x), "", x)

arena_battle_text <- function(question, model_a, answer_a, model_b, answer_b) {
  paste0("Question:\n", question, "\n\n", "Answer of ", model_a, " (model_a):\n",
         na_as_empty(answer_a), "\n\n", "Answer of ", model_b, " (model_b):\n",
         na_as_empty(answer_b))
}

# A battle's outcome from model_a's side, as its score is: "careful wins against echo" (1), etc.
battle_outcome_text <- function(model_a, model_b, winner) {
  outcome <- ifelse(winner %in% "model_a", "wins against",
                    ifelse(winner %in% "model_b", "loses to",
                           ifelse(winner %in% "tie(all bad)", "ties (both bad) with",
                                  "ties with")))
  ifelse(failed_judgement(winner),
         paste0("no verdict (", ifelse(is.na(winner), "failed", winner), ") for ", model_a,
                " against ", model_b),
         paste(model_a, outcome, model_b))
}
