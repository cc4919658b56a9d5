# DSBench: the original LLM judge (decision rule, the scorer that sends judgements; its prompt is in dsbench-prompt.R).

#' @rdname dsbench_task
#' @order 4
#' @export
dsbench_scorer <- function(scorer_chat = NULL, settings = NULL) {
  scorer_chat <- as_chat(scorer_chat, allow_null = TRUE)
  settings <- as_request_settings(settings)
  default_chat <- scorer_chat
  function(samples, ..., scorer_chat = default_chat) {
    if (is.null(scorer_chat)) {
      abort_no_judge("The DSBench judge needs a chat (the original used gpt-4o).", "dsbench",
                     list(...))
    }
    scorer_chat <- as_chat(scorer_chat)
    judged <- dsbench_judge(samples$question, samples$target, samples$result, scorer_chat,
                            settings_with_dots(settings, ...))
    list(
      score = score_values(judged$correct),
      scorer_chat = judged$chat,
      scorer_metadata = lapply(seq_len(nrow(judged)), function(i) {
        c(list(judge_reply = judged$reply[[i]], judge_error = judged$error[[i]],
               judged = judged$judged[[i]], judge_truncated = judged$truncated[[i]]),
          usage_metadata(judged, i))
      }),
      explanation = dsbench_judge_explanation(samples$result, samples$target, judged)
    )
  }
}

# Why a question scored what it did: the judge's verdict, then the prediction and the answer.
dsbench_judge_explanation <- function(prediction, answer, judged) {
  verdict <- ifelse(
    !is.na(judged$reply),
    sprintf("The judge replied %s: %s.", encodeString(judged$reply, quote = "\""),
            ifelse(judged$correct, "correct", "incorrect")),
    ifelse(is.na(judged$error), "Not judged (the solver gave no response): incorrect.",
           paste0("The judgement failed (", judged$error, "): incorrect."))
  )
  paste0(verdict, " Prediction: ", dsbench_excerpt(prediction), ". Answer: ",
         dsbench_excerpt(answer), ".")
}

# A response or answer quoted for an explanation, its end kept when it is long (the
# original's answers come last).
dsbench_excerpt <- function(text, max_chars = 300) {
  out <- ifelse(is.na(text), "none", text)
  long <- nchar(out) > max_chars
  out[long] <- paste0("...", substring(out[long], nchar(out[long]) - max_chars + 1))
  ifelse(is.na(text), "none", encodeString(out, quote = "\""))
}

#' @noRd
dsbench_judge_correct <- function(reply) {
  !is.na(reply) & grepl("true", tolower(reply), fixed = TRUE)
}

dsbench_judge <- function(question, answer, prediction, scorer_chat, settings = NULL) {
  n <- length(prediction)
  chat <- configure_chat(scorer_chat, params = list(temperature = 0, max_tokens = 256))
  chat$set_system_prompt(NULL)
  send <- which(!is.na(prediction))
  prompts <- dsbench_judge_prompt(question, answer, ifelse(is.na(prediction), "", prediction))
  out <- tibble::tibble(
    reply = rep(NA_character_, n),
    error = rep(NA_character_, n),
    judged = rep(FALSE, n), truncated = rep(FALSE, n), cached = rep(FALSE, n),
    input_tokens = rep(0, n),
    output_tokens = rep(0, n), cost = rep(0, n),
    chat = lapply(prompts, function(p) {
      chat$clone()$set_turns(list(user_turn_of(p), empty_turn()))
    })
  )
  if (length(send)) {
    res <- generate_responses(chat, prompts[send], settings, key_extra = "dsbench-judge-v1")
    out$reply[send] <- res$result
    out$error[send] <- res$error
    out$judged[send] <- is.na(res$error)
    # a reasoning judge can think past the original's 256 tokens: its verdict is then empty
    out$truncated[send] <- res$truncated %in% TRUE
    out$cached[send] <- res$cached
    out$input_tokens[send] <- res$input_tokens
    out$output_tokens[send] <- res$output_tokens
    out$cost[send] <- res$cost
    out$chat[send] <- res$chat
    failed <- sum(!is.na(res$error))
    # Every judgement failed: the scoring step is not a success ("x Scoring").
    if (failed == length(send)) fail_eval_step()
    if (failed) {
      cli::cli_warn(
        c("{failed} judgement{?s} failed; {?it counts/they count} as incorrect.",
          i = "First error: {res$error[!is.na(res$error)][[1]]}"),
        class = "predictivebench_warning_failed_judgements"
      )
    }
  }
  out$correct <- dsbench_judge_correct(out$reply)
  out
}
