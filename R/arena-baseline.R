# An offline judge that reads the two answers out of EloBench's prompt, for demos and tests.

#' An offline judge for trying the arena
#'
#' `arena_baseline_judge()` is a [baseline_chat()] that reads the two answers out of
#' EloBench's judge prompt (either version) and gives a verdict in the format that prompt asks
#' for, without a network: `"longer"` prefers the longer answer (a tie when equal, a
#' `tie(all bad)` when both are empty), `"first"` always prefers the first answer (a judge with
#' the strongest position bias, to see what `position_swap` does), `"random"` picks at random
#' from the prompt's hash. Use it for demos and tests; use a real chat for real ratings.
#'
#' @param rule `"longer"`, `"first"` or `"random"`.
#' @param seed Seed for `"random"`.
#' @returns An ellmer chat (class `BaselineChat`).
#' @noRd
arena_baseline_judge <- function(rule = c("longer", "first", "random"), seed = 1) {
  rule <- rlang::arg_match(rule)
  check_number(seed)
  baseline_chat(function(prompt) {
    answers <- judge_prompt_answers(prompt)
    json <- grepl("Response of LLM-1:", prompt, fixed = TRUE)
    code <- switch(rule,
      first = 1L,
      random = {
        hash <- strtoi(substr(digest::digest(list(seed, prompt), algo = "sha256"), 1, 7), 16L)
        c(1L, 2L, 0L)[[hash %% 3L + 1L]]
      },
      longer = {
        n <- nchar(answers)
        if (all(n == 0)) -1L else if (n[[1]] > n[[2]]) 1L else if (n[[1]] < n[[2]]) 2L else 0L
      }
    )
    if (json) {
      return(sprintf('{"winner": %d, "explanation": "Baseline judge (%s)."}', code, rule))
    }
    scores <- switch(as.character(code), "1" = c("1", "0"), "2" = c("0", "1"),
                     "0" = c("0.5", "0.5"), "-1" = c("0", "0"))
    sprintf(paste0("- Score of Model 1: %s\n- Score of Model 2: %s\n",
                   "- Brief Explanation: Baseline judge (%s).\n"), scores[[1]], scores[[2]], rule)
  }, name = paste0("arena-baseline-judge-", rule))
}

judge_prompt_answers <- function(prompt) {
  one <- function(pattern) {
    m <- regmatches(prompt, regexec(pattern, prompt, perl = TRUE))[[1]]
    if (length(m) == 2) m[[2]] else ""
  }
  if (grepl("Response of LLM-1:", prompt, fixed = TRUE)) {
    c(one("Response of LLM-1: \n\n``` \n\n([\\s\\S]*?) \n\n``` \n\n \n\nResponse of LLM-2:"),
      one("Response of LLM-2: \n\n``` \n\n([\\s\\S]*) \n\n```$"))
  } else {
    c(one("Model 1's Answer:\n([\\s\\S]*?)\n\nModel 2's Answer:"),
      one("Model 2's Answer:\n([\\s\\S]*?)\n\nFormat of the Response:"))
  }
}
