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

# `chat$last_turn()` (its default, the assistant's turn: the last turn of a chat with more
# than one, counting the system prompt's). ellmer's method validates its `role` with
# rlang::arg_match(), which looks up its caller's formals by walking the call stack: ~7 ms a
# call at the depth of a log written inside an evaluation set, per sample.
last_turn_of <- function(chat) {
  turns <- chat$get_turns(include_system_prompt = TRUE)
  n <- length(turns)
  if (n > 1) turns[[n]]
}

# Counts requests sent outside ellmer (the engine's curl fast path, completions for
# log-probabilities) in ellmer's session usage (ellmer::token_usage(), which vitals'
# $get_cost() reads): one assistant turn carrying their summed tokens and cost, added to a
# copy of `chat` through the public Chat$add_turn(), which logs it as ellmer logs its own.
log_session_usage <- function(chat, input_tokens, output_tokens, cost) {
  if (!(input_tokens + output_tokens > 0)) return(invisible())
  record <- chat$clone()
  record$set_turns(list())
  record$add_turn(
    ellmer::UserTurn(contents = list(ellmer::ContentText("requests sent by predictivebench"))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("")),
                          tokens = c(input_tokens, output_tokens, 0), cost = cost)
  )
  invisible()
}
