# DeltaBench's critic prompt and its parsing: the template filled question first, and the
# erroneous and unuseful sections read back from a critique.

# DeltaBench's critic prompt (OpenStellarTeam/DeltaBench, evaluation.py), word for word; the
# curly apostrophe and the ellipsis are written as escapes to keep the source ASCII.
deltabench_critic_template <- function() {
  text <- r"---(I will provide you with a question and a robot{RSQUO}s answer, divided into several sections. Your task is to evaluate each section of the robot{RSQUO}s answer for any errors.

**Evaluation Criteria:**
- Evaluate each section independently. Assess each section based solely on the accuracy and logic within that section.
- Do not consider subjective elements such as redundancy or stylistic preferences as errors.
- Do not consider corrections or reflections made in later sections. Even if a later section acknowledges and fixes an earlier mistake, the original section must still be marked as erroneous.
- If a subsequent section contains an error caused by an earlier section's mistake, do not count it as a new error.

**Output Format:**
- If you think all sections of the robot's answer are correct, output in the following format:{SP2}
    Conclusion: no error
- If you think any section contains an error, output in the following format:{SP2}
    Conclusion: yes
    Error Section Number: [section number]
    Explanation: [explanation for the error in this section]
    Error Section Number: [section number]
    Explanation: [explanation for the error in this section]
    {ELLIPSIS} (repeat for each erroneous section){SP2}


**example:**
- Question: Two numbers, $x$ and $y$ are selected at random from the interval $(0,3)$.  What is the probability that a triangle with sides of length 1, $x$, and $y$ exists?
- Robot's Answer:{SP1}
section1:
So I've got this probability problem here. It says that two numbers, x and y, are selected at random from the interval (0,3), and I need to find the probability that a triangle with sides of length 1, x, and y exists. Okay, let's break this down.

section2:
First, I need to recall the triangle inequality theorem. It states that for any triangle with sides a, b, and c, the following must be true:
1. a + b > c
2. a + c > b
3. b + c > a

section3:
So, in this case, the sides are 1, x, and y. That means I need to satisfy all three inequalities:
1. 1 + x > y
2. 1 + y > x
3. x + y > 1
Alright, now, to find the probability, I need to find the ratio of the area where these inequalities hold to the total area from which x and y are selected.

section4:
Now, I need to find the area where all three inequalities are satisfied.
Let me consider each inequality one by one.
First inequality: 1 + x > y
This can be rewritten as y < 1 + x.
Second inequality: 1 + y > x
This can be rewritten as y > x - 1.
Third inequality: x + y > 1
This can be rewritten as y > 1 - x.
Now, since x and y are both positive (from (0,3)), 1 - x could be negative if x > 1. But since y is positive, y > 1 - x will always hold true when x < 1, and when x >=1, y > 1 - x is always true because y > 0 and 1 - x <=0. So, this inequality is always satisfied in the given range. Therefore, I don't need to worry about this inequality separately.

section5:
So, effectively, I only need to consider the first two inequalities:
1. y < 1 + x
2. y > x - 1
And, of course, x and y are between 0 and 3.

- judge result:{SP1}
Conclusion: yes
Error Section Number: 4
Explanation: The analysis of the inequality \( x + y > 1 \) is incorrect. The argument that "this inequality is always satisfied in the given range" is flawed. Specifically, for small values of \( x \) and \( y \), such as when both are close to zero, the inequality \( x + y > 1 \) does not always hold. The constraint \( x + y > 1 \) must still be explicitly considered in the probability calculation.

**Input:**
- Question: {{question}}
- Robot's Answer: {{model_output}}
- judge result:{SP1})---"
  text <- gsub("\r", "", text, fixed = TRUE)
  text <- gsub("{RSQUO}", "\u2019", text, fixed = TRUE)
  text <- gsub("{ELLIPSIS}", "\u2026", text, fixed = TRUE)
  text <- gsub("{SP2}", "  ", text, fixed = TRUE)
  gsub("{SP1}", " ", text, fixed = TRUE)
}

#' Build DeltaBench critic prompts
#'
#' DeltaBench's critic prompt, word for word: the evaluation criteria, the output format
#' (`Conclusion:`, then `Error Section Number:` and `Explanation:` for each erroneous
#' section), a worked example, then the question and the sectioned answer
#' (`sections_content`, `section1: ...` blocks). As in the original, `{{question}}` is
#' replaced first and `{{model_output}}` second.
#'
#' @param question A character vector of questions.
#' @param sections_content A character vector of sectioned answers, as long as `question`.
#' @returns A character vector of prompts.
#' @noRd
deltabench_prompt <- function(question, sections_content) {
  if (!is.character(question) || !is.character(sections_content) ||
      length(question) != length(sections_content)) {
    abort_pb("{.arg question} and {.arg sections_content} must be character vectors of the same length.",
             "argument")
  }
  template <- deltabench_critic_template()
  vapply(seq_along(question), function(i) {
    out <- gsub("{{question}}", question[[i]], template, fixed = TRUE)
    gsub("{{model_output}}", sections_content[[i]], out, fixed = TRUE)
  }, "")
}

#' Parse a DeltaBench critique
#'
#' Reads a critique as DeltaBench's evaluation script does. The conclusion is the text after
#' the last `Conclusion:` and before the first `Error Section Number:`; it says "errors" when
#' it contains `yes` or `Yes`. Then every `Error Section Number:` entry (up to its
#' `Explanation:`) gives the first whole number in it, or `-1` when it has none.
#'
#' @param critique A character vector of critiques (`NA` for a failed request).
#' @returns A tibble with one row per critique: `conclusion` (text), `judge` (1 when the
#'   critique reports errors, 0 when not, `NA` for a missing or empty critique) and
#'   `sections` (a list of integer vectors, in the order written, duplicates kept).
#' @noRd
deltabench_parse <- function(critique) {
  if (!is.character(critique) && !all(is.na(critique))) {
    abort_pb("{.arg critique} must be a character vector.", "argument")
  }
  critique <- as.character(critique)
  parsed <- lapply(critique, function(text) {
    if (is.na(text) || !nzchar(text)) return(list(NA_character_, NA_integer_, integer()))
    chunks <- strsplit_all(text, "Error Section Number:")
    before <- strsplit_all(chunks[[1]], "Conclusion:")
    conclusion <- trimws(before[[length(before)]], whitespace = "[\\h\\v]")
    if (!grepl("yes|Yes", conclusion)) return(list(conclusion, 0L, integer()))
    sections <- vapply(chunks[-1], function(chunk) {
      number <- strsplit_all(chunk, "Explanation:")[[1]]
      digits <- regmatches(number, regexpr("[0-9]+", number))
      if (length(digits)) as.integer(digits) else -1L
    }, 1L)
    list(conclusion, 1L, unname(sections))
  })
  tibble::tibble(
    conclusion = vapply(parsed, `[[`, "", 1),
    judge = vapply(parsed, `[[`, 1L, 2),
    sections = lapply(parsed, `[[`, 3)
  )
}

# Python's str.split(sep): keeps empty pieces, including a trailing one.
strsplit_all <- function(x, sep) {
  pieces <- strsplit(x, sep, fixed = TRUE)[[1]]
  if (!length(pieces)) pieces <- ""
  if (endsWith(x, sep)) pieces <- c(pieces, "")
  pieces
}
