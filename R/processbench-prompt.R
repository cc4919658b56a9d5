# ProcessBench critique prompts and the majority vote over the index each critique boxes.

processbench_templates <- list(
  generic = paste0(
    "The following is a problem and a solution (split into paragraphs, enclosed with tags ",
    "and indexed from 0):\n\n[Problem]\n\n{problem}\n\n[Solution]\n\n{tagged_response}\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you ",
    "identify an error in a paragraph, return the index of the paragraph where the earliest ",
    "error occurs. Otherwise, return the index of -1.\n\n",
    "Please put your final answer (i.e., the index) in \\boxed{}."
  ),
  processbench = paste0(
    "The following is a math problem and a solution (split into paragraphs, enclosed with ",
    "tags and indexed from 0):\n\n[Math Problem]\n\n{problem}\n\n[Solution]\n\n",
    "{tagged_response}\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you ",
    "identify an error in a paragraph, return the index of the paragraph where the earliest ",
    "error occurs. Otherwise, return the index of -1 (which typically denotes \"not found\").",
    "\n\nPlease put your final answer (i.e., the index) in \\boxed{}."
  )
)

#' Build ProcessBench critique prompts
#'
#' The prompt asks for the 0-based index of the earliest wrong paragraph (or `-1`) in
#' `\boxed{}`. Each step is tagged `<paragraph_i>\n{step}\n</paragraph_i>\n\n`, the tagged
#' steps are concatenated and stripped of surrounding whitespace, and the problem and tagged
#' solution are put into the template.
#'
#' @param problem A character vector of problems.
#' @param steps A list of character vectors (the steps of each solution), as long as
#'   `problem`.
#' @param template `"generic"` (the default: "a problem", `[Problem]`, as DeltaBench's
#'   ProcessBench-style runs word it) or `"processbench"` (ProcessBench's own template: "a
#'   math problem", `[Math Problem]`, and `(which typically denotes "not found")`).
#' @returns A character vector of prompts.
#' @noRd
processbench_prompt <- function(problem, steps, template = c("generic", "processbench")) {
  template <- rlang::arg_match(template)
  if (!is.character(problem)) abort_pb("{.arg problem} must be a character vector.", "argument")
  if (!is.list(steps) || length(steps) != length(problem)) {
    abort_pb("{.arg steps} must be a list as long as {.arg problem}.", "argument")
  }
  text <- processbench_templates[[template]]
  vapply(seq_along(problem), function(i) {
    s <- as.character(steps[[i]])
    idx <- seq_along(s) - 1L
    tagged <- paste0("<paragraph_", idx, ">\n", s, "\n</paragraph_", idx, ">\n\n",
                     collapse = "")
    tagged <- trimws(tagged, whitespace = "[\\h\\v]")  # Python's str.strip()
    # Fill the slots in one pass so a problem that contains "{tagged_response}" is kept as is.
    parts <- strsplit(text, "{problem}", fixed = TRUE)[[1]]
    tail <- strsplit(parts[[2]], "{tagged_response}", fixed = TRUE)[[1]]
    paste0(parts[[1]], problem[[i]], tail[[1]], tagged, tail[[2]])
  }, "")
}

#' Majority vote over critiques
#'
#' Each critique's vote is its **last** `\boxed{}` (nested braces matched, see
#' `extract_boxed()`) read as a whole number by `parse_integer_answer()` (`"02"` and `"+2"`
#' are 2; `$`, spaces and extra enclosing braces are ignored). Votes that are not whole
#' numbers are dropped. The prediction is the most frequent vote, ties going to the value
#' seen first; with no valid vote there is no prediction (`NA`), which scores as wrong.
#'
#' A box that is never closed (a critique cut off by `max_tokens` after its last `\boxed`
#' and opening brace) is not a box: the vote is the last *complete* box before it, as
#' ProcessBench's regular expression reads such a text, and no vote when there is none.
#'
#' @param texts A character vector: the critiques of one sample (`NA` for failed requests).
#' @returns A list with `votes` (an integer vector as long as `texts`, `NA` where no valid
#'   vote), `prediction` (an integer, `NA` when there is none) and `n_valid`.
#' @noRd
processbench_vote <- function(texts) {
  if (!is.character(texts) && !all(is.na(texts))) {
    abort_pb("{.arg texts} must be a character vector.", "argument")
  }
  votes <- processbench_parse_index(as.character(texts))
  valid <- votes[!is.na(votes)]
  prediction <- NA_integer_
  if (length(valid)) {
    values <- unique(valid)
    prediction <- values[[which.max(tabulate(match(valid, values)))]]
  }
  list(votes = votes, prediction = prediction, n_valid = length(valid))
}

processbench_parse_index <- function(texts) {
  boxed <- extract_boxed(texts, which = "last", rule = "balanced")
  boxed <- gsub("[$[:space:]]", "", boxed)
  # \boxed{{2}} and \boxed{\text{2}} still mean 2.
  repeat {
    stripped <- sub("^(\\\\(text|mathbf|mathrm|textbf))?\\{(.*)\\}$", "\\3", boxed)
    if (identical(stripped, boxed)) break
    boxed <- stripped
  }
  parse_integer_answer(boxed)
}
