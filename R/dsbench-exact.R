# DSBench without a judge (not in the original): letters, numbers (relative `tolerance`), text.
dsbench_scorer_exact <- function(tolerance = 1e-6) {
  check_number(tolerance)
  function(samples, ...) {
    checked <- lapply(seq_len(nrow(samples)), function(i) {
      dsbench_exact_one(samples$result[[i]], samples$target[[i]], samples$target_type[[i]],
                        tolerance)
    })
    correct <- vapply(checked, `[[`, TRUE, "correct")
    list(
      score = score_values(correct),
      scorer_metadata = lapply(checked, function(x) x[c("rule", "extracted")]),
      explanation = vapply(seq_along(checked), function(i) {
        x <- checked[[i]]
        sprintf("%s: extracted %s vs answer %s: %s.", x$rule,
                dsbench_excerpt(x$extracted %||% NA_character_),
                dsbench_excerpt(samples$target[[i]]), if (x$correct) "correct" else "incorrect")
      }, "")
    )
  }
}

dsbench_number_pattern <- "[-+\u2212]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)?(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"

dsbench_numbers <- function(text) {
  m <- regmatches(text, gregexpr(dsbench_number_pattern, text, perl = TRUE))[[1]]
  m <- m[grepl("[0-9]", m)]
  as.numeric(gsub(",", "", sub("^\u2212", "-", m)))
}

# The part of a response that states the answer: the last \boxed{}, else the text after the
# last "answer", else the whole response.
dsbench_final_part <- function(text) {
  boxed <- extract_boxed(text, which = "last")
  if (!is.na(boxed)) return(boxed)
  pos <- gregexpr("answer", text, ignore.case = TRUE)[[1]]
  if (pos[[1]] > 0) return(substring(text, pos[[length(pos)]] + 6, nchar(text)))
  text
}

dsbench_exact_one <- function(response, target, type, tolerance) {
  if (is.na(response)) return(list(correct = FALSE, rule = "no response", extracted = NULL))
  if (type %in% c("dict", "list", "null", "logical")) {
    return(list(correct = FALSE, rule = "unsupported answer type", extracted = NULL))
  }
  part <- dsbench_final_part(response)
  if (type == "letter") {
    letter <- dsbench_option_letter(part) %||% dsbench_option_letter(response)
    return(list(correct = identical(letter, toupper(trimws(target))), rule = "letter",
                extracted = letter))
  }
  truth <- dsbench_numbers(target)
  if (type %in% c("integer", "double") ||
      (length(truth) == 1 && grepl("^[^A-Za-z]*[0-9][^A-Za-z]*$", target))) {
    values <- dsbench_numbers(part)
    if (!length(values)) values <- dsbench_numbers(response)
    if (!length(values) || length(truth) != 1) {
      return(list(correct = FALSE, rule = "number", extracted = NULL))
    }
    pred <- values[[length(values)]]
    if (grepl("%", target, fixed = TRUE) && !grepl("%", part, fixed = TRUE) &&
        abs(pred) < 1 && abs(truth) >= 1) pred <- pred * 100
    ok <- abs(pred - truth) <= tolerance * max(1, abs(truth))
    return(list(correct = ok, rule = "number", extracted = format(pred, digits = 15)))
  }
  norm <- function(x) gsub("[^a-z0-9]", "", tolower(x))
  ok <- nzchar(norm(target)) && grepl(norm(target), norm(part), fixed = TRUE)
  list(correct = ok, rule = "text contains", extracted = trimws(substr(part, 1, 200)))
}

dsbench_option_letter <- function(text) {
  patterns <- c(
    "(?i:answer|option|choice)\\s*(?i:is)?\\s*[:\\-]?\\s*\\(?\\**([A-Z])\\b",
    "^\\s*\\(?\\**([A-Z])\\**\\)?\\s*(?:[.):]|$)",
    "\\*\\*\\(?([A-Z])\\)?[.):]?\\*\\*"
  )
  for (p in patterns) {
    m <- regmatches(text, regexec(p, text, perl = TRUE))[[1]]
    if (length(m) == 2) return(m[[2]])
  }
  NULL
}
