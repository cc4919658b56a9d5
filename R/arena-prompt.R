# EloBench's judge prompts: the two templates in ChatML, filling them, reading the judge's
# verdict, and combining the two orders of a position-swapped battle.

# EloBench's judge templates, in ChatML as the original stores them; they are filled and split
# into messages the same way (placeholders replaced in order, then split on the markers and
# stripped), so the judge sees exactly what the original sent.
arena_templates <- list(
  "231225" = paste0(
    "<|im_start|>system \n\n",
    "You are a helpful assistant who can evaluate Large Language Model (LLM) responses. \n\n",
    "<|im_end|> \n\n<|im_start|>user \n\n",
    paste(c(
      "Task:",
      "Evaluate Large Language Model (LLM) Responses",
      "",
      "Task description:",
      paste("As a judge, your task is to assess the responses of two Large Language Models",
            "(LLM-1 and LLM-2) to a user's question. Base your evaluation on the criteria",
            "below to determine which response is more effective."),
      "",
      "Evaluation Criteria:",
      paste("1. Accuracy: Ensure responses are factually correct. For factual questions,",
            "responses should align with scientific consensus."),
      paste("2. Relevance: Check if responses address the user's question directly,",
            "understanding its context and intent."),
      paste("3. Comprehensiveness: Responses should cover all aspects of the question,",
            "providing a clear overview and key points for complex issues."),
      paste("4. Clarity: Ensure responses are easy to understand, especially when explaining",
            "complex topics."),
      "5. Compliance: Adherence to ethical and legal standards is mandatory.",
      "6. Timeliness: Incorporate the latest information for current topics.",
      paste("7. Harmlessness: Avoid misleading or harmful content, respecting cultural",
            "sensitivities and privacy."),
      paste("8. Bias: Responses should not show unjustified preference, especially in",
            "subjective matters."),
      "",
      "Output Format:",
      "1. Present your judgment in JSON format.",
      paste("2. Include the `winner`: Use an integer (1 if LLM-1 has the better response, 2 if",
            "LLM-2 has the better response, 0 for a tie if both responses are satisfactory,",
            "and -1 for a tie if both responses are unsatisfactory), and an `explanation` as",
            "a string (providing a rationale for your choice)."),
      "",
      "Guidelines:",
      "1. Evaluate each response based on the criteria, noting strengths and weaknesses.",
      paste("2. Choose the most effective response or indicate a tie. Explain your reasoning",
            "in the specified JSON format."),
      "3. Remain objective, not letting the order of responses bias your evaluation.",
      "",
      "User-submitted Question:",
      "```",
      "{user_submitted_question}",
      "```",
      "",
      "Response of LLM-1:",
      "```",
      "{llm_response_1}",
      "```",
      "",
      "Response of LLM-2:",
      "```",
      "{llm_response_2}",
      "```",
      "<|im_end|>"
    ), collapse = " \n\n")
  ),
  "231113" = paste0(
    "<|im_start|>system\nYou are a helpful assistant.\n<|im_end|>\n<|im_start|>user\n",
    paste("Given two responses from different models to a specific question, evaluate the",
          "quality, accuracy, and relevance of each answer. Assign a score of 1 to the answer",
          "that is superior, a score of 0 to the answer that is inferior, and a score of 0.5",
          "in case of a tie where both answers are equally good. If one of the model is scored",
          "0, another should be 1. Otherwise all 0.5. Provide a brief justification for your",
          "scoring."),
    "\n\nQuestion:\n{question}\n\nModel 1's Answer:\n{model1_answer}\n\n",
    "Model 2's Answer:\n{model2_answer}\n\nFormat of the Response:\n",
    "- Score of Model 1: Only numerical score. e.g. 1, 0.5, 0.\n",
    "- Score of Model 2: Only numerical score. e.g. 1, 0.5, 0.\n",
    "- Brief Explanation: End with newline.\n\nGPT-4's Evaluation and Scoring:\n<|im_end|>\n"
  )
)

arena_template_keys <- list(
  "231225" = c("user_submitted_question", "llm_response_1", "llm_response_2"),
  "231113" = c("question", "model1_answer", "model2_answer")
)

chatml_messages <- function(text) {
  parts <- strsplit(py_strip(text), "<|im_start|>", fixed = TRUE)[[1]][-1]
  lapply(parts, function(p) {
    newline <- regexpr("\n", p, fixed = TRUE)
    role <- py_strip(substr(p, 1, newline - 1))
    rest <- substr(p, newline + 1, nchar(p))
    end <- regexpr("<|im_end|>", rest, fixed = TRUE)
    if (end > 0) rest <- substr(rest, 1, end - 1)
    list(role = role, content = py_strip(rest))
  })
}

#' EloBench's judge prompt
#'
#' @description
#' `arena_judge_prompt()` fills EloBench's judge template with a question and two answers
#' and returns the messages the judge receives: a system prompt and a user message. Version
#' `"231225"` (the default) asks for a JSON verdict `{"winner": 1|2|0|-1, "explanation":
#' ...}`; version `"231113"` is the older template that asks for "Score of Model 1: x" and
#' "Score of Model 2: y". `arena_parse_verdict()` reads either format.
#'
#' Verdicts map to the original's winners: 1 `model_a`, 2 `model_b`, 0 `tie`, -1
#' `tie(all bad)`; in the older format scores 1/0, 0/1, 0.5/0.5 and 0/0. Anything else is
#' `invalid`, including a winner written as a string (`{"winner": "2"}`): the original
#' looks the JSON value up among the numbers 1, 2, 0 and -1, so only a JSON number counts. A
#' missing response (a failed request) gives a missing winner.
#'
#' @param question,answer_a,answer_b Character vectors (recycled).
#' @param version `"231225"` or `"231113"`.
#' @param text Judge responses.
#' @returns `arena_judge_prompt()`: a list with `system` (one string) and `user` (one string
#'   per question). `arena_parse_verdict()`: a tibble with `winner`, `gpt_4_score` (the
#'   parsed verdict as the original records it) and `format` (`"json"`, `"score"` or `NA`).
#' @noRd
arena_judge_prompt <- function(question, answer_a, answer_b, version = c("231225", "231113")) {
  version <- rlang::arg_match(version)
  n <- max(length(question), length(answer_a), length(answer_b))
  values <- list(rep_len(as.character(question), n), rep_len(as.character(answer_a), n),
                 rep_len(as.character(answer_b), n))
  user <- character(n)
  # Values that can't change the filling (no brace, ChatML marker or sentinel) are pasted between
  # the template's pieces: the same text without filling the template per battle.
  plain <- Reduce(`&`, lapply(values, function(v) !grepl("[{\001]|<\\|im_", v, perl = TRUE)))
  if (any(plain)) {
    pieces <- template_pieces(version)
    user[plain] <- paste0(pieces[[1]], values[[1]][plain], pieces[[2]], values[[2]][plain],
                          pieces[[3]], values[[3]][plain], pieces[[4]])
  }
  for (i in which(!plain)) {
    user[[i]] <- fill_judge_template(version, vapply(values, `[[`, "", i))$user
  }
  list(system = fill_judge_template(version, c("", "", ""))$system, user = user)
}

# EloBench's template of `version` filled with three values as the original does: the system
# prompt and the user message.
fill_judge_template <- function(version, values) {
  text <- arena_templates[[version]]
  keys <- arena_template_keys[[version]]
  for (k in seq_along(keys)) {
    text <- gsub(paste0("{", keys[[k]], "}"), values[[k]], text, fixed = TRUE)
  }
  messages <- chatml_messages(text)
  roles <- vapply(messages, `[[`, "", "role")
  contents <- vapply(messages, `[[`, "", "content")
  list(system = contents[roles == "system"][1],
       user = paste(contents[roles != "system"], collapse = "\n\n"))
}

# The judge's user message of `version` cut at its three values: filled with sentinels (a
# control character the template never holds), then split at them.
template_pieces <- function(version) {
  filled <- fill_judge_template(version, paste0("\001", 1:3, "\001"))$user
  pieces <- strsplit(filled, "\001[1-3]\001")[[1]]
  c(pieces, rep("", 4L - length(pieces)))
}

#' @noRd
arena_parse_verdict <- function(text) {
  text <- as.character(text)
  # each distinct text read once (a judge repeats its short verdicts across many battles)
  distinct <- unique(text)
  out <- lapply(distinct, parse_one_verdict)
  at <- match(text, distinct)
  tibble::tibble(
    winner = vapply(out, `[[`, "", "winner")[at],
    gpt_4_score = vapply(out, `[[`, "", "score")[at],
    format = vapply(out, `[[`, "", "format")[at]
  )
}

parse_one_verdict <- function(text) {
  if (is.na(text)) return(list(winner = NA_character_, score = NA_character_,
                               format = NA_character_))
  json <- verdict_json(text)
  if (!is.null(json)) {
    # Only a JSON number is a verdict, as in the original (`winner in {1, 2, 0, -1}` in
    # Python): the string "2" is invalid.
    code <- json$winner
    code <- if (is.numeric(code) && length(code) == 1) code else NA
    winner <- if (is.na(code)) "invalid" else
      switch(as.character(code), "1" = "model_a", "2" = "model_b", "0" = "tie",
             "-1" = "tie(all bad)", "invalid")
    score <- jsonlite::toJSON(list(winner = json$winner %||% NA), auto_unbox = TRUE,
                              null = "null", na = "null")
    return(list(winner = winner, score = as.character(score), format = "json"))
  }
  score_of <- function(model) {
    pattern <- paste0("-? ?Score (?:of|for) Model ", model, ":\\s*([0-9.]+)")
    regmatches(text, regexec(pattern, text, perl = TRUE))[[1]]
  }
  s1 <- score_of(1)
  s2 <- score_of(2)
  if (length(s1) == 2 && length(s2) == 2) {
    a <- s1[[2]]
    b <- s2[[2]]
    winner <- if (a == "0" && b == "0") "tie(all bad)" else
      if (a == "1" && b == "0") "model_a" else
      if (a == "0.5" && b == "0.5") "tie" else
      if (a == "0" && b == "1") "model_b" else "invalid"
    return(list(winner = winner, score = sprintf("{'model_a': '%s', 'model_b': '%s'}", a, b),
                format = "score"))
  }
  list(winner = "invalid", score = NA_character_, format = NA_character_)
}

# The JSON object in a response (whole text, fenced block, outermost braces) with `winner`, or NULL.
verdict_json <- function(text) {
  candidates <- c(text,
                  regmatches(text, regexec("```(?:json)?\\s*([\\s\\S]*?)```", text,
                                           perl = TRUE))[[1]][2],
                  regmatches(text, regexpr("\\{[\\s\\S]*\\}", text, perl = TRUE)))
  for (candidate in candidates[!is.na(candidates)]) {
    parsed <- tryCatch(jsonlite::parse_json(candidate), error = function(e) NULL)
    if (is.list(parsed) && !is.null(names(parsed)) && "winner" %in% names(parsed)) {
      return(parsed)
    }
  }
  NULL
}

swap_winner <- function(winner) {
  out <- winner
  out[!is.na(winner) & winner == "model_a"] <- "model_b"
  out[!is.na(winner) & winner == "model_b"] <- "model_a"
  out
}

# Position swap: a verdict kept only when both orders agree; disagreement is a tie; a failed
# order leaves the battle failed (it is judged again next time).
combine_swapped <- function(ab, ba_in_ab_terms) {
  ifelse(is.na(ab) | is.na(ba_in_ab_terms), NA_character_,
         ifelse(ab == "invalid" | ba_in_ab_terms == "invalid", "invalid",
                ifelse(ab == ba_in_ab_terms, ab, "tie")))
}

# The judge's user message for each battle (`question`, `answer_a`, `answer_b`).
battle_prompts <- function(battles, version) {
  if (!nrow(battles)) return(character())
  arena_judge_prompt(battles$question, battles$answer_a, battles$answer_b, version)$user
}
