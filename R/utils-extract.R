# Answer extraction shared by the benchmarks.

#' Extract a `\boxed{}` answer
#'
#' Finds `\boxed{...}` in model output. `rule = "balanced"` (the default) matches nested
#' braces, so `\boxed{\frac{1}{2}}` gives `\frac{1}{2}`. `rule = "first_brace"` mimics the
#' cruder regular expression `\\boxed\{([^}]+)\}` that FutureX's reference evaluator uses: the
#' content stops at the first `}` and an empty box does not match.
#'
#' @param text A character vector of responses.
#' @param which `"last"` (ProcessBench, DeltaBench) or `"first"` (FutureX).
#' @param rule `"balanced"` or `"first_brace"`.
#' @param fallback What to return where no box is found: `"na"` or `"text"` (the whole text,
#'   as FutureX's evaluator does).
#' @returns A character vector as long as `text`.
#' @noRd
extract_boxed <- function(text, which = c("last", "first"), rule = c("balanced", "first_brace"),
                          fallback = c("na", "text")) {
  which <- rlang::arg_match(which)
  rule <- rlang::arg_match(rule)
  fallback <- rlang::arg_match(fallback)
  if (!is.character(text)) {
    abort_pb("{.arg text} must be a character vector.", "argument")
  }
  out <- vapply(text, function(x) {
    if (is.na(x)) return(NA_character_)
    boxes <- if (rule == "balanced") boxed_balanced(x) else boxed_first_brace(x)
    if (!length(boxes)) return(if (fallback == "text") x else NA_character_)
    if (which == "first") boxes[[1]] else boxes[[length(boxes)]]
  }, character(1), USE.NAMES = FALSE)
  out
}

boxed_first_brace <- function(x) {
  m <- regmatches(x, gregexpr("\\\\boxed\\{([^}]+)\\}", x, perl = TRUE))[[1]]
  substr(m, 8, nchar(m) - 1)
}

boxed_balanced <- function(x) {
  starts <- gregexpr("\\boxed{", x, fixed = TRUE)[[1]]
  if (starts[[1]] == -1) return(character())
  chars <- strsplit(x, "", fixed = TRUE)[[1]]
  out <- character()
  for (start in starts) {
    open <- start + 6L
    depth <- 0L
    for (i in seq.int(open, length(chars))) {
      if (chars[[i]] == "{") depth <- depth + 1L
      if (chars[[i]] == "}") {
        depth <- depth - 1L
        if (depth == 0L) {
          out <- c(out, paste(chars[seq_len(i - open - 1) + open], collapse = ""))
          break
        }
      }
    }
  }
  out
}

#' Parse numbers out of text
#'
#' `rule = "strict"` reads the first number written the way people write numbers: an optional
#' sign, thousands separators (`46,396.47`), decimals and exponents; units and words around it
#' are ignored, and `%` is kept as a plain number. `rule = "first_digits"` mimics FutureX's
#' reference: the first run of digits and dots (`[\d.]+`), read as Python's `float()` would,
#' so signs are lost, `46,396.47` gives 46, and `904.27.` gives `NA` (the reference raised an
#' error there and scored 0).
#'
#' @param text A character vector.
#' @param rule `"strict"` or `"first_digits"`.
#' @returns A double vector, `NA` where no number is found.
#' @noRd
parse_number_text <- function(text, rule = c("strict", "first_digits")) {
  rule <- rlang::arg_match(rule)
  if (!is.character(text)) {
    abort_pb("{.arg text} must be a character vector.", "argument")
  }
  pattern <- switch(rule,
    strict = "[-+\u2212]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)?(?:\\.\\d+)?(?:[eE][-+]?\\d+)?",
    first_digits = "[0-9.]+"
  )
  vapply(text, function(x) {
    if (is.na(x)) return(NA_real_)
    if (rule == "first_digits") {
      m <- regmatches(x, regexpr(pattern, x, perl = TRUE))
      if (!length(m) || !grepl("^([0-9]+\\.?[0-9]*|\\.[0-9]+)$", m)) return(NA_real_)
      return(as.numeric(m))
    }
    m <- regmatches(x, gregexpr(pattern, x, perl = TRUE))[[1]]
    m <- m[grepl("[0-9]", m)]
    if (!length(m)) return(NA_real_)
    value <- gsub(",", "", sub("^\u2212", "-", m[[1]]))
    as.numeric(value)
  }, numeric(1), USE.NAMES = FALSE)
}

#' Parse an integer answer
#'
#' Reads a whole number such as `"2"`, `"02"`, `"+2"`, `"-1"` or `" 3 "`, as the step index
#' answers of ProcessBench and DeltaBench are read; anything else is `NA`.
#'
#' @param text A character vector.
#' @returns An integer vector.
#' @noRd
parse_integer_answer <- function(text) {
  if (!is.character(text)) {
    abort_pb("{.arg text} must be a character vector.", "argument")
  }
  x <- trimws(text)
  ok <- !is.na(x) & grepl("^[-+]?[0-9]+$", x)
  out <- rep(NA_integer_, length(x))
  out[ok] <- suppressWarnings(as.integer(x[ok]))
  out
}
