# Answers cut off at the token limit, counted per run: a low score from a too-small
# `max_tokens` (or a reasoning model that thinks past it) must not read as a weak model.
# The engine marks each answer (`truncated` in a solver's metadata: R/engine-reasoning.R);
# every benchmark's summary counts them here, says so, and keeps the count on its rows.

# How many of each sample's answers were cut off, and how many answers it had. A sample's
# solver metadata `truncated` is TRUE/FALSE, or a count of its answers cut off when it has
# several (ProcessBench's votes: `n_votes` answers). Samples without it (logs written before
# it was kept, solvers that do not record it) count as answers not cut off.
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

# `rows` (a summary) with the count of answers cut off as its attribute `truncated`:
# c(truncated = , answers = ), what a board or report reads; a summary note says it when
# any was cut off.
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
