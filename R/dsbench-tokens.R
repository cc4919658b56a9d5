# DSBench: the token budget (count tokens, cut a prompt from the front as the original does).

#' Token counts and front truncation for DSBench prompts
#'
#' @description
#' The original DSBench cuts each prompt from the front: it encodes the prompt with
#' tiktoken's encoding for the model (`tiktoken.encoding_for_model()`), keeps the last
#' `context_limit - 6000` tokens and decodes them. `dsbench_truncate()` does the same with
#' the same tokenizer, through the R package \pkg{rtiktoken} (the tiktoken encodings,
#' compiled from Rust), so the kept text and its token count are tiktoken's.
#' `dsbench_count_tokens()` is the count it cuts by.
#'
#' * `encoding` is a tiktoken encoding (`"cl100k_base"` for GPT-4 Turbo and GPT-3.5, as in
#'   the original's `gpt-4-turbo-2024-04-09` runs; `"o200k_base"` for GPT-4o and later) or an
#'   OpenAI model name, mapped as tiktoken maps it. [dsbench_solver()] takes it from the
#'   solver chat's model.
#' * A cut that falls inside a character (CJK text and emoji take several tokens per
#'   character) leaves the first bytes of that character out; tiktoken decodes each
#'   leftover byte as the replacement character `"\ufffd"`, and so does `dsbench_truncate()`.
#'
#' **Without rtiktoken** (a suggested package) both functions fall back, with a message once
#' per session, to an estimate that splits text the way GPT tokenizers pre-split it and counts
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
#' text, so the estimate is usually above the true count and the cut prompt fits; but a run
#' of letters the tokenizer has rarely seen (hexadecimal ids, random codes) can take one
#' token per 2 or 3 letters, and then the estimate is below the true count (the solver's
#' `reserve_tokens` absorbs small under-counts). The estimate never exceeds the text's size
#' in UTF-8 bytes, so a prompt of at most `max_tokens` bytes is never cut. With the estimate,
#' `dsbench_truncate()` cuts between the pieces it counts.
#'
#' A function given as `count_tokens` is used instead of tiktoken: the prompt is cut by
#' binary search on characters to the longest tail whose count is at most `max_tokens`.
#'
#' @param text A single string.
#' @param encoding A tiktoken encoding name or an OpenAI model name.
#' @param max_tokens The token budget.
#' @param count_tokens `NULL` (tiktoken's tokens through rtiktoken, else the estimate) or a
#'   function of one string returning its token count.
#' @returns `dsbench_count_tokens()` a number; `dsbench_truncate()` a list with `text`,
#'   `tokens` (the kept text's count: the number of tokens kept), `truncated` (whether
#'   anything was removed) and `tokenizer` (the encoding, `"estimate"` or `"count_tokens"`).
#' @noRd
dsbench_count_tokens <- function(text, encoding = "o200k_base") {
  check_string(text)
  check_string(encoding)
  if (!dsbench_has_tiktoken()) return(dsbench_estimate_tokens(text))
  rtiktoken::get_token_count(enc2utf8(text), dsbench_model_encoding(encoding))
}

#' @noRd
dsbench_truncate <- function(text, max_tokens, count_tokens = NULL, encoding = "o200k_base") {
  check_string(text)
  check_count(max_tokens)
  if (!is.null(count_tokens) && !identical(count_tokens, dsbench_count_tokens)) {
    if (!is.function(count_tokens)) {
      abort_pb("{.arg count_tokens} must be a function or {.code NULL}.", "argument")
    }
    return(dsbench_truncate_counted(text, max_tokens, count_tokens))
  }
  check_string(encoding)
  if (!dsbench_has_tiktoken()) return(dsbench_truncate_estimate(text, max_tokens))
  dsbench_truncate_tiktoken(text, max_tokens, dsbench_model_encoding(encoding))
}

# rtiktoken is in Suggests: without it, say once per session that prompts are cut by estimate.
dsbench_has_tiktoken <- function() {
  if (tiktoken_installed()) return(TRUE)
  cli::cli_inform(
    c("DSBench prompts are cut by a token estimate: {.pkg rtiktoken} is not installed.",
      i = "Install it ({.code install.packages(\"rtiktoken\")}) to cut where the original does."),
    .frequency = "once", .frequency_id = "predictivebench_dsbench_estimate"
  )
  FALSE
}

# tiktoken's encoding for a model, as the original's tiktoken.encoding_for_model(); for a model
# tiktoken does not know, o200k_base (OpenAI cookbook's fallback).
dsbench_model_encoding <- function(model) {
  if (model %in% tiktoken_encodings) return(model)
  if (!tiktoken_installed()) return("o200k_base")
  encoding <- tiktoken_encoding(model)
  if (is.null(encoding)) {
    inform_once(
      c("tiktoken has no encoding for model {.val {model}}: DSBench prompts are cut with
         {.val o200k_base}.",
        i = "Give {.arg encoding} to {.fn dsbench_solver} to choose another.",
        i = "Shown once per model in a session."),
      id = paste0("dsbench_encoding_", model)
    )
    encoding <- "o200k_base"
  }
  encoding
}

# The original: encoding.decode(encoding.encode(prompt)[-(limit - 6000):]).
dsbench_truncate_tiktoken <- function(text, max_tokens, encoding) {
  text <- enc2utf8(text)
  tokens <- rtiktoken::get_tokens(text, encoding)
  n <- length(tokens)
  if (n <= max_tokens) {
    return(list(text = text, tokens = n, truncated = FALSE, tokenizer = encoding))
  }
  kept <- tokens[seq.int(n - max_tokens + 1, n)]
  list(text = dsbench_decode_tail(kept, encoding), tokens = length(kept), truncated = TRUE,
       tokenizer = encoding)
}

# Decode as tiktoken's decode() (errors = "replace"): only the start can be broken, 1-3
# continuation bytes Python writes as one U+FFFD each. rtiktoken refuses invalid UTF-8, so the
# one lead byte of 0xC2, 0xE1, 0xF1 that makes them valid is put in front and its character
# dropped again (single-byte ids agree in cl100k_base and o200k_base).
dsbench_decode_tail <- function(tokens, encoding) {
  decode <- function(x) tryCatch(rtiktoken::decode_tokens(x, encoding), error = function(e) NULL)
  text <- decode(tokens)
  if (!is.null(text)) return(text)
  lead_tokens <- c(126L, 157L, 173L)  # the bytes 0xC2, 0xE1, 0xF1
  for (stray in 1:3) {
    text <- decode(c(lead_tokens[[stray]], tokens))
    if (!is.null(text)) return(paste0(strrep("\ufffd", stray), substring(text, 2)))
  }
  abort_pb("Can't decode the kept tokens with {.val {encoding}}.", "argument")
}

# The estimate (without rtiktoken): see the help page.
dsbench_estimate_tokens <- function(text) {
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

# Cut between the estimate's pieces: the longest tail of whole pieces within the budget.
dsbench_truncate_estimate <- function(text, max_tokens) {
  if (nchar(text, type = "bytes") <= max_tokens) {
    return(list(text = text, tokens = dsbench_estimate_tokens(text), truncated = FALSE,
                tokenizer = "estimate"))
  }
  pieces <- dsbench_piece_costs(text)
  total <- sum(pieces$cost)
  if (total <= max_tokens) {
    return(list(text = text, tokens = total, truncated = FALSE, tokenizer = "estimate"))
  }
  from_end <- rev(cumsum(rev(pieces$cost)))
  first <- which(from_end <= max_tokens)[1]
  if (is.na(first)) return(list(text = "", tokens = 0, truncated = TRUE, tokenizer = "estimate"))
  # substring()'s default `last` is 1e6: give the end explicitly for long prompts.
  list(text = substring(text, pieces$start[[first]], nchar(text)),
       tokens = from_end[[first]], truncated = TRUE, tokenizer = "estimate")
}

# Cut with a caller's counter: the smallest start whose tail fits (counts shrink as the
# start moves right), by binary search on characters.
dsbench_truncate_counted <- function(text, max_tokens, count_tokens) {
  total <- count_tokens(text)
  if (!is.numeric(total) || length(total) != 1 || is.na(total)) {
    abort_pb("{.arg count_tokens} must return one number.", "argument")
  }
  if (total <= max_tokens) {
    return(list(text = text, tokens = total, truncated = FALSE, tokenizer = "count_tokens"))
  }
  lo <- 1L
  hi <- nchar(text) + 1L
  while (lo < hi) {
    mid <- (lo + hi) %/% 2L
    fits <- count_tokens(substring(text, mid, nchar(text))) <= max_tokens
    if (fits) hi <- mid else lo <- mid + 1L
  }
  kept <- substring(text, lo, nchar(text))
  list(text = kept, tokens = count_tokens(kept), truncated = TRUE, tokenizer = "count_tokens")
}
