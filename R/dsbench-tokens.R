# DSBench: the token budget (count tokens, cut a prompt from the front as the original does).

#' Token estimate and front truncation for DSBench prompts
#'
#' @description
#' The original DSBench keeps the last `context_limit - 6000` tokens of each prompt, counted
#' with tiktoken. predictivebench has no exact tokenizer, so `dsbench_count_tokens()`
#' estimates: it splits text the way GPT tokenizers pre-split it and counts
#' * a run of ASCII letters as one token per 4 letters (rounded up),
#' * each group of up to 3 digits as one token (numbers are split that way by `cl100k`),
#' * a run of spaces or tabs as one token per 4 characters, each line break as one token,
#' * every other ASCII character (punctuation) as one token, and
#' * every non-ASCII character as its length in UTF-8 bytes (2 for an accented Latin letter,
#'   3 for most CJK characters, 4 for most emoji).
#'
#' The non-ASCII part is a true upper bound: GPT tokenizers are byte-level BPE, where every
#' token covers at least one byte, so no character needs more tokens than it has bytes. The
#' ASCII part is only an estimate. Real tokenizers merge more than it assumes for ordinary
#' text (common words, punctuation pairs and long space runs are one token), so the
#' estimate is usually above the true count and the cut prompt fits; but a run of letters
#' the tokenizer has rarely seen (hexadecimal ids, random codes) can take one token per 2 or
#' 3 letters, and then the estimate is below the true count. The solver has no separate
#' safety margin for this: its `reserve_tokens` (the original's 6,000) is room for the
#' answer and absorbs small under-counts; lower `context_limit` for prompts full of such
#' text, or pass an exact tokenizer as `count_tokens`.
#'
#' The estimate never exceeds the text's size in UTF-8 bytes, so a prompt of at most
#' `max_tokens` bytes is never cut.
#'
#' `dsbench_truncate()` removes text from the front until `count_tokens()` of the rest is at
#' most `max_tokens`, as the original does, cutting between pieces (the default counter) or
#' by binary search on characters (a custom counter).
#'
#' @param text A single string.
#' @param max_tokens The token budget.
#' @param count_tokens A function of one string returning its token count.
#' @returns `dsbench_count_tokens()` a number; `dsbench_truncate()` a list with `text`,
#'   `tokens` (the kept text's count) and `truncated` (whether anything was removed).
#' @export
#' @examples
#' dsbench_count_tokens("Revenue 1234567.89 in 2023")
#' dsbench_count_tokens("\u6570\u636e")  # two CJK characters, 3 UTF-8 bytes each
#' dsbench_truncate("one two three four five six", max_tokens = 3)$text
dsbench_count_tokens <- function(text) {
  check_string(text)
  sum(dsbench_piece_costs(text)$cost)
}

dsbench_piece_pattern <- "[A-Za-z]+|[0-9]{1,3}|[ \t]+|\n|."

dsbench_piece_costs <- function(text) {
  text <- enc2utf8(text)
  m <- gregexpr(dsbench_piece_pattern, text, perl = TRUE)[[1]]
  if (m[[1]] == -1) return(list(start = integer(), cost = numeric()))
  len <- attr(m, "match.length")
  first <- substring(text, m, m)
  cost <- rep(1, length(m))
  letters <- grepl("[A-Za-z]", first)
  cost[letters] <- ceiling(len[letters] / 4)
  spaces <- first == " " | first == "\t"
  cost[spaces] <- ceiling(len[spaces] / 4)
  other <- !letters & !spaces & !grepl("[0-9\n]", first)
  # A non-ASCII character (one piece each): its UTF-8 bytes, an upper bound for byte-level BPE.
  wide <- other & !grepl("^[\001-\177]$", first, perl = TRUE)
  cost[wide] <- nchar(first[wide], type = "bytes")
  list(start = as.integer(m), cost = cost)
}

#' @rdname dsbench_count_tokens
#' @export
dsbench_truncate <- function(text, max_tokens, count_tokens = dsbench_count_tokens) {
  check_string(text)
  check_count(max_tokens)
  if (nchar(text, type = "bytes") <= max_tokens && identical(count_tokens, dsbench_count_tokens)) {
    return(list(text = text, tokens = dsbench_count_tokens(text), truncated = FALSE))
  }
  if (identical(count_tokens, dsbench_count_tokens)) {
    pieces <- dsbench_piece_costs(text)
    total <- sum(pieces$cost)
    if (total <= max_tokens) return(list(text = text, tokens = total, truncated = FALSE))
    from_end <- rev(cumsum(rev(pieces$cost)))
    first <- which(from_end <= max_tokens)[1]
    if (is.na(first)) return(list(text = "", tokens = 0, truncated = TRUE))
    # substring()'s default `last` is 1e6: give the end explicitly for long prompts.
    return(list(text = substring(text, pieces$start[[first]], nchar(text)),
                tokens = from_end[[first]], truncated = TRUE))
  }
  total <- count_tokens(text)
  if (!is.numeric(total) || length(total) != 1 || is.na(total)) {
    abort_pb("{.arg count_tokens} must return one number.", "argument")
  }
  if (total <= max_tokens) return(list(text = text, tokens = total, truncated = FALSE))
  # The smallest start whose suffix fits (counts shrink as the start moves right).
  lo <- 1L
  hi <- nchar(text) + 1L
  while (lo < hi) {
    mid <- (lo + hi) %/% 2L
    fits <- count_tokens(substring(text, mid, nchar(text))) <= max_tokens
    if (fits) hi <- mid else lo <- mid + 1L
  }
  kept <- substring(text, lo, nchar(text))
  list(text = kept, tokens = count_tokens(kept), truncated = TRUE)
}
