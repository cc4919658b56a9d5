# A model's reasoning is kept, never scored: inline `<think>...</think>` (DeepSeek-R1, Qwen3) or
# a field of its own (vLLM's `reasoning_content`, `reasoning`, ellmer's ContentThinking). A
# benchmark scores the text after it; an answer only inside unfinished thinking is no answer.
# The originals (e.g. FutureX's eval.py, first `\boxed{}`) never saw visible reasoning.

# The answer part of `text` and the reasoning apart. `unfinished` is TRUE when a `<think>` block
# never closes (the answer is then what came before it, usually nothing).
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

# Reasoning in a field of its own: ellmer's ContentThinking, or where ellmer's parser left it out,
# the message's `reasoning_content` (vLLM, DeepSeek, SGLang) or `reasoning` (vLLM >= 0.10, Ollama).
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

# A request's answer without reasoning, the reasoning, and whether it was truncated (or unfinished).
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

# The turn a chat keeps: reasoning as ContentThinking before the answer, so logs show it apart.
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
