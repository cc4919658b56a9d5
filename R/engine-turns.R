# Chat turns the package builds itself: a user turn from a prompt, and the empty assistant
# turn that stands in for a failed request or an item a judge never saw.

# vitals' log writer needs an assistant turn in every chat, so a failed request (or an item
# a judge never saw) gets an empty one; the sample's result is NA and its error is in the
# metadata.
empty_turn <- function(finish_reason = "error") {
  ellmer::AssistantTurn(contents = list(ellmer::ContentText("")), tokens = c(0, 0, 0),
                        cost = 0, finish_reason = finish_reason)
}

user_turn_of <- function(prompt) {
  contents <- if (is.character(prompt)) {
    lapply(prompt, function(p) ellmer::ContentText(p))
  } else {
    lapply(prompt, function(p) if (is.character(p)) ellmer::ContentText(p) else p)
  }
  ellmer::UserTurn(contents = contents)
}

# The same answer with no tokens, cost or time: what a cached answer costs on a re-run.
without_usage <- function(turn) {
  ellmer::AssistantTurn(contents = turn@contents, tokens = c(0, 0, 0), cost = 0, duration = 0,
                        finish_reason = turn@finish_reason)
}
