# Answers cut off at the token limit, counted per run: a low score from a too-small
# `max_tokens` (or a reasoning model thinking past it) must not read as a weak model.

# How many of each sample's answers were cut off (`truncated`: TRUE/FALSE, or a count when it
# has several, as ProcessBench's votes), of how many; samples without it count as not cut off.
answer_cuts <- function(samples) {
  n <- if (is.data.frame(samples)) nrow(samples) else 0L
  metadata <- if (n && "solver_metadata" %in% names(samples)) samples$solver_metadata else
    vector("list", n)
  field <- function(m, name, default) {
    value <- if (is.list(m)) m[[name]]
    if (length(value) != 1 || is.na(value)) default else as.double(value)
  }
  list(cut = vapply(metadata, field, 1, name = "truncated", default = 0),
       answers = vapply(metadata, field, 1, name = "n_votes", default = 1))
}

# `rows` with attribute `truncated` = c(truncated = , answers = ); a note says it when any was.
with_truncation <- function(rows, cut, answers) {
  truncated <- sum(cut)
  total <- sum(answers)
  if (truncated > 0) {
    summary_note(
      c("{truncated} of {total} answer{?s} {?was/were} cut off at the token limit (or
         inside unfinished reasoning): what such an answer lacks is scored as missing.",
        i = "Raise {.arg max_tokens} (e.g. {.code params = list(max_tokens = 8192)}) if the
             model needs more room."),
      class = "predictivebench_message_truncated"
    )
  }
  attr(rows, "truncated") <- c(truncated = truncated, answers = total)
  rows
}

# What a run's summary flags for the header and the board: the answers cut off, and
# `all_tied` (probsem: every query tied, a server's broken log-probabilities).
run_flags <- function(metrics) {
  state <- if (length(metrics)) attr(metrics[[1]], "predictivebench_state")
  rows <- if (is.environment(state)) state$rows
  if (is.null(rows)) return(list())
  cut <- attr(rows, "truncated")
  flags <- list()
  if (length(cut) == 2) {
    flags$truncated <- as.integer(cut[["truncated"]])
    flags$answers <- as.integer(cut[["answers"]])
  }
  if ("all_tied" %in% names(rows)) flags$all_tied <- isTRUE(any(rows$all_tied))
  flags
}
