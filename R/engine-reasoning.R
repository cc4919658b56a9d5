# A model's reasoning is kept, never scored. Reasoning models write their thinking before
# the answer: inline, between `<think>` and `</think>` (DeepSeek-R1, Qwen3, QwQ through a
# server that does not parse it), or in a field of its own (vLLM's `reasoning_content`,
# newer servers' `reasoning`, ellmer's ContentThinking). A benchmark scores only the answer:
# the text after the thinking. An answer that exists only in unfinished thinking (cut off
# at the token limit before `</think>`) is no answer.
#
# The originals (FutureX's eval.py takes the first `\boxed{}` of the text) never saw visible
# reasoning: their models' APIs kept it apart, as these rules do here.

# The answer part of `text` and the reasoning apart from it. `reasoning`: what the provider
# gave in a field of its own (NA for none). Returns list(answer, reasoning, unfinished):
# `unfinished` is TRUE when a `<think>` block never closes (its text is reasoning, and the
# answer is what came before it: usually nothing).
answer_parts <- function(text, reasoning = NA_character_) {
  if (is.na(text) || !grepl("</?think(ing)?>", text, ignore.case = TRUE)) {
    return(list(answer = text, reasoning = reasoning, unfinished = FALSE))
  }
  thoughts <- if (!is.na(reasoning) && nzchar(reasoning)) reasoning else character()
  rest <- text
  # A server that puts `<think>` in the prompt (DeepSeek-R1's chat template) returns only its
  # end: everything before a first `</think>` with no opening before it is reasoning.
  close <- regexpr("</think(ing)?>", rest, ignore.case = TRUE)
  open <- regexpr("<think(ing)?>", rest, ignore.case = TRUE)
  if (close > 0 && (open < 0 || open > close)) {
    thoughts <- c(thoughts, substr(rest, 1L, close - 1L))
    rest <- substr(rest, close + attr(close, "match.length"), nchar(rest))
  }
  unfinished <- FALSE
  answer <- character()
  repeat {
    open <- regexpr("<think(ing)?>", rest, ignore.case = TRUE)
    if (open < 0) {
      answer <- c(answer, rest)
      break
    }
    answer <- c(answer, substr(rest, 1L, open - 1L))
    rest <- substr(rest, open + attr(open, "match.length"), nchar(rest))
    close <- regexpr("</think(ing)?>", rest, ignore.case = TRUE)
    if (close < 0) {
      thoughts <- c(thoughts, rest)
      unfinished <- TRUE
      break
    }
    thoughts <- c(thoughts, substr(rest, 1L, close - 1L))
    rest <- substr(rest, close + attr(close, "match.length"), nchar(rest))
  }
  list(answer = trimws(paste(answer, collapse = ""), "left"),
       reasoning = trimws(paste(thoughts, collapse = "\n\n")), unfinished = unfinished)
}

# The reasoning a provider returned in a field of its own: ellmer's ContentThinking, or, where
# ellmer's parser of an OpenAI-compatible server left it out, the message's
# `reasoning_content` (vLLM, DeepSeek, SGLang) or `reasoning` (vLLM >= 0.10, Ollama, OpenRouter).
turn_reasoning <- function(turn) {
  thinking <- Filter(function(x) S7::S7_inherits(x, ellmer::ContentThinking), turn@contents)
  if (length(thinking)) {
    return(paste(vapply(thinking, function(x) x@thinking, ""), collapse = "\n\n"))
  }
  message <- tryCatch(turn@json$choices[[1]]$message, error = function(e) NULL)
  for (field in c("reasoning_content", "reasoning")) {
    value <- if (is.list(message)) message[[field]]
    if (rlang::is_string(value) && nzchar(value)) return(value)
  }
  NA_character_
}

# A request's answer as a benchmark reads it: its text without reasoning, the reasoning, and
# whether it was truncated (stopped at the token limit, or inside unfinished thinking).
# `finish_reason`: the provider's, as ellmer normalises it ("max_tokens" at the token limit,
# for OpenAI-compatible servers' "length" too), or as a body gives it ("length").
entry_answer <- function(record) {
  if (is.null(record)) {
    return(list(answer = NA_character_, reasoning = NA_character_, truncated = NA))
  }
  parts <- answer_parts(record$text, record$reasoning %||% NA_character_)
  truncated <- parts$unfinished ||
    isTRUE(record$finish_reason %in% token_limit_reasons)
  list(answer = parts$answer, reasoning = parts$reasoning, truncated = truncated)
}

token_limit_reasons <- c("max_tokens", "length", "MAX_TOKENS")

# The assistant turn a benchmark's chat keeps: the reasoning as ellmer's ContentThinking
# before the answer text, so logs show it apart from the answer (vitals writes it as
# Inspect's reasoning content). A turn without reasoning is returned as it is.
turn_with_reasoning <- function(turn, answer, reasoning) {
  if (is.na(reasoning) || !nzchar(reasoning)) return(turn)
  others <- Filter(function(x) {
    !S7::S7_inherits(x, ellmer::ContentText) && !S7::S7_inherits(x, ellmer::ContentThinking)
  }, turn@contents)
  ellmer::AssistantTurn(
    contents = c(list(ellmer::ContentThinking(reasoning)), others,
                 list(ellmer::ContentText(answer))),
    tokens = turn@tokens, cost = turn@cost, duration = turn@duration,
    finish_reason = turn@finish_reason
  )
}
