# Chat turns the package builds itself: a user turn from a prompt, and empty assistant turns.

# vitals' log writer needs an assistant turn in every chat, so a failed request (or an item a
# judge never saw) gets an empty one.
empty_turn <- function(finish_reason = "error") {
  if (!rlang::is_string(finish_reason)) {
    return(ellmer::AssistantTurn(contents = list(ellmer::ContentText("")), tokens = c(0, 0, 0),
                                 cost = 0, finish_reason = finish_reason))
  }
  assistant_turn(list(text_content("")), tokens = c(0, 0, 0), cost = 0, duration = NA_real_,
                 finish_reason = finish_reason)
}

user_turn_of <- function(prompt) {
  if (is.character(prompt) && !anyNA(prompt)) {
    return(S7::set_props(turn_prototype("user"), contents = lapply(prompt, text_content),
                         .check = FALSE))
  }
  contents <- if (is.character(prompt)) {
    lapply(prompt, function(p) ellmer::ContentText(p))
  } else {
    lapply(prompt, function(p) if (is.character(p)) ellmer::ContentText(p) else p)
  }
  ellmer::UserTurn(contents = contents)
}

# ellmer's S7 constructors validate every property (~0.3 ms a turn), so turns built from values
# known valid are copies of one prototype with properties set unchecked (identical() to ellmer's).
turn_prototypes <- new.env(parent = emptyenv())

turn_prototype <- function(kind) {
  turn_prototypes[[kind]] %||% {
    turn_prototypes[[kind]] <- switch(kind,
      user = ellmer::UserTurn(contents = list()),
      assistant = ellmer::AssistantTurn(contents = list()),
      text = ellmer::ContentText("")
    )
  }
}

# ellmer::ContentText(text) for a string (length 1, not NA); anything else gets ellmer's checks.
text_content <- function(text) {
  if (is.character(text) && length(text) == 1 && !is.na(text)) {
    S7::set_props(turn_prototype("text"), text = text, .check = FALSE)
  } else {
    ellmer::ContentText(text)
  }
}

# ellmer::AssistantTurn() with `json = list()`, for values the caller knows valid.
assistant_turn <- function(contents, tokens, cost, duration, finish_reason) {
  S7::set_props(turn_prototype("assistant"), contents = contents, tokens = tokens, cost = cost,
                duration = duration, finish_reason = finish_reason, .check = FALSE)
}

# The same answer with no tokens, cost or time: what a cached answer costs on a re-run.
without_usage <- function(turn) {
  assistant_turn(turn@contents, tokens = c(0, 0, 0), cost = 0, duration = 0,
                 finish_reason = turn@finish_reason)
}

# ellmer::contents_replay() of a recorded turn; a turn of texts only is built from prototypes
# (~0.05 ms against ~0.5 ms), any other is replayed by ellmer.
replay_turn <- function(record, zero_usage = FALSE) {
  props <- record$props
  if (!is_text_turn_record(record)) {
    turn <- ellmer::contents_replay(record)
    return(if (zero_usage) without_usage(turn) else turn)
  }
  contents <- lapply(props$contents, function(content) text_content(content$props$text))
  if (zero_usage) {
    return(assistant_turn(contents, tokens = c(0, 0, 0), cost = 0, duration = 0,
                          finish_reason = props$finish_reason))
  }
  S7::set_props(turn_prototype("assistant"), contents = contents, json = props$json,
                tokens = props$tokens, cost = props$cost, duration = props$duration,
                finish_reason = props$finish_reason, .check = FALSE)
}

# ellmer::contents_record() of a turn, the same list, built directly for a text-only turn
# (~0.01 ms against ~0.2 ms); any other turn is recorded by ellmer.
turn_record <- function(turn) {
  attrs <- attributes(turn)
  plain <- identical(class(turn), class(turn_prototype("assistant"))) &&
    identical(names(attrs), names(attributes(turn_prototype("assistant")))) &&
    !length(attrs$json) && is.list(attrs$contents) &&
    all(vapply(attrs$contents, is_plain_text_content, TRUE))
  if (!plain) return(ellmer::contents_record(turn))
  contents <- lapply(attrs$contents, function(content) {
    list(version = 1, class = "ellmer::ContentText", props = list(text = content@text))
  })
  list(version = 1, class = "ellmer::AssistantTurn",
       props = list(contents = contents, json = attrs$json, tokens = attrs$tokens,
                    cost = attrs$cost, duration = attrs$duration,
                    finish_reason = attrs$finish_reason))
}

is_plain_text_content <- function(content) {
  identical(class(content), class(turn_prototype("text"))) &&
    identical(names(attributes(content)), names(attributes(turn_prototype("text"))))
}

# What ellmer's AssistantTurn() validators accept: three token numbers; cost, duration finite or NA.
is_turn_usage <- function(tokens, cost, duration) {
  is.numeric(tokens) && length(tokens) == 3 &&
    is.double(cost) && length(cost) == 1 && !is.infinite(cost) &&
    is.double(duration) && length(duration) == 1 && !is.infinite(duration)
}

recorded_turn_props <- c("contents", "json", "tokens", "cost", "duration", "finish_reason")

is_text_turn_record <- function(record) {
  props <- record$props
  identical(record$class, "ellmer::AssistantTurn") && identical(names(props), recorded_turn_props) &&
    is.list(props$contents) && is.list(props$json) &&
    is_turn_usage(props$tokens, props$cost, props$duration) &&
    is.character(props$finish_reason) && length(props$finish_reason) == 1 &&
    all(vapply(props$contents, is_text_record, TRUE))
}

is_text_record <- function(content) {
  is.list(content) && identical(content$class, "ellmer::ContentText") &&
    identical(names(content$props), "text") && is.character(content$props$text) &&
    length(content$props$text) == 1 && !is.na(content$props$text)
}

# `chat$last_turn()`: ellmer's method checks `role` with rlang::arg_match(), which walks the
# call stack (~7 ms a call per sample inside an evaluation set).
last_turn_of <- function(chat) {
  turns <- chat$get_turns(include_system_prompt = TRUE)
  n <- length(turns)
  if (n > 1) turns[[n]]
}

# Counts requests sent outside ellmer (curl fast path, completions) in ellmer's session usage,
# which vitals' $get_cost() reads: one turn of their summed tokens via public Chat$add_turn().
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

# Tokens and cost of every assistant turn this request added (with tools, one per round),
# not only the last; the chat's earlier turns (`n_before`, counting the system prompt) are
# not this request's.
request_usage <- function(x, n_before) {
  turns <- x$get_turns(include_system_prompt = TRUE)
  new <- turns[setdiff(seq_along(turns), seq_len(n_before))]
  new <- Filter(function(t) identical(t@role, "assistant"), new)
  if (!length(new)) new <- list(last_turn_of(x))
  tokens <- Reduce(`+`, lapply(new, function(t) t@tokens))
  # Added as they are (not sum()), so the cost keeps ellmer's class.
  list(tokens = tokens, cost = Reduce(`+`, lapply(new, function(t) t@cost)))
}

# `tokens`/`cost` override the turn's own (the sum over a request's tool-call rounds).
entry_from_turn <- function(turn, seconds, keep_json, tokens = turn@tokens, cost = turn@cost) {
  list(
    # what a benchmark reads apart from the text (R/engine-reasoning.R): records cached before
    # these fields were kept have neither, and read as a finished answer without reasoning
    finish_reason = turn@finish_reason %||% NA_character_,
    reasoning = turn_reasoning(turn),
    turn = turn_record(recorded_turn(turn, seconds, tokens, cost)),  # R/engine-turns.R
    text = turn@text,
    json = if (keep_json) turn@json else NULL,
    input_tokens = tokens[[1]],
    output_tokens = tokens[[2]],
    cost = cost,
    seconds = seconds,
    # checked to be an answer (answer_problem()), even when empty: see holds_answer()
    answered = TRUE
  )
}

# The turn a record keeps: the answer's contents with the request's usage and time (ellmer's
# AssistantTurn() of them). A turn that already says so (an offline answer: no tokens, cost or
# time) is kept as it is; valid usage goes on a prototype unchecked (R/engine-turns.R).
recorded_turn <- function(turn, seconds, tokens, cost) {
  if (identical(class(turn), class(turn_prototype("assistant"))) &&
      is_turn_usage(tokens, cost, seconds)) {
    same <- !length(turn@json) && identical(turn@tokens, tokens) &&
      identical(turn@cost, cost) && identical(turn@duration, seconds)
    if (same) return(turn)
    return(assistant_turn(turn@contents, tokens = tokens, cost = cost, duration = seconds,
                          finish_reason = turn@finish_reason))
  }
  ellmer::AssistantTurn(contents = turn@contents, tokens = tokens, cost = cost,
                        duration = seconds, finish_reason = turn@finish_reason)
}
