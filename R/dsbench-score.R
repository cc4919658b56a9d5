# DSBench: the original LLM judge (decision rule and scorer; its prompt is in dsbench-prompt.R).

#' @rdname dsbench_task
#' @order 4
#' @export
dsbench_scorer <- function(scorer_chat = NULL, settings = NULL) {
  scorer_chat <- check_judge(scorer_chat, allow_null = TRUE)
  settings <- as_request_settings(settings)
  default_chat <- scorer_chat
  no_judge <- "The DSBench judge needs a chat (the original used gpt-4o)."
  scorer <- function(samples, ..., scorer_chat = default_chat) {
    if (is.null(scorer_chat)) abort_no_judge(no_judge, "dsbench", list(...))
    scorer_chat <- check_judge(scorer_chat)
    judged <- dsbench_judge(samples$question, samples$target, samples$result, scorer_chat,
                            settings_with_dots(settings, ...))
    list(
      score = score_values(judged$correct),
      scorer_chat = judged$chat,
      scorer_metadata = lapply(seq_len(nrow(judged)), function(i) {
        meta <- list(judge_reply = judged$reply[[i]], judge_error = judged$error[[i]],
                     judged = judged$judged[[i]], judge_truncated = judged$truncated[[i]])
        # a panel's: each judge's own verdict (R/judges-panel.R)
        if ("judges" %in% names(judged)) meta$judges <- judged$judges[[i]]
        meta <- c(meta, usage_metadata(judged, i))
        if ("panel_usage" %in% names(judged)) meta <- c(meta, judged$panel_usage[[i]])
        meta
      }),
      explanation = dsbench_judge_explanation(samples$result, samples$target, judged)
    )
  }
  with_judge(scorer, default_chat, no_judge, "dsbench")  # (refused before the run: no judge)
}

dsbench_judge_explanation <- function(prediction, answer, judged) {
  verdict <- if ("panel_said" %in% names(judged)) judged$panel_said else ifelse(
    !is.na(judged$reply),
    sprintf("The judge replied %s: %s.", encodeString(judged$reply, quote = "\""),
            ifelse(judged$correct, "correct", "incorrect")),
    ifelse(is.na(judged$error), "Not judged (the solver gave no response): incorrect.",
           paste0("The judgement failed (", judged$error, "): incorrect."))
  )
  paste0(verdict, " Prediction: ", dsbench_excerpt(prediction), ". Answer: ",
         dsbench_excerpt(answer), ".")
}

# A text quoted for an explanation, its end kept when long (the original's answers come last).
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

# The judge's verdicts, one row per question. A panel's members judge in one pool, each request
# keyed as that member's alone; correct when more than half say so (a failed judgement is an
# "incorrect", an even split is incorrect).
dsbench_judge <- function(question, answer, prediction, scorer_chat, settings = NULL) {
  if (!is_judge_panel(scorer_chat)) {
    return(dsbench_judge_members(question, answer, prediction, list(scorer_chat),
                                 settings)[[1]])
  }
  members <- dsbench_judge_members(question, answer, prediction, judge_members(scorer_chat),
                                   settings)
  dsbench_panel_verdict(members, judge_models(scorer_chat), scorer_chat)
}

dsbench_judge_members <- function(question, answer, prediction, judges, settings = NULL) {
  n <- length(prediction)
  k <- length(judges)
  chats <- lapply(judges, function(judge) {
    chat <- configure_chat(judge, params = list(temperature = 0, max_tokens = 256))
    chat$set_system_prompt(NULL)
    chat
  })
  send <- which(!is.na(prediction))
  prompts <- dsbench_judge_prompt(question, answer, ifelse(is.na(prediction), "", prediction))
  outs <- lapply(chats, function(chat) {
    tibble::tibble(
      reply = rep(NA_character_, n),
      error = rep(NA_character_, n),
      judged = rep(FALSE, n), truncated = rep(FALSE, n), cached = rep(FALSE, n),
      input_tokens = rep(0, n),
      output_tokens = rep(0, n), cost = rep(0, n),
      chat = lapply(prompts, function(p) {
        chat$clone()$set_turns(list(user_turn_of(p), empty_turn()))
      })
    )
  })
  if (length(send)) {
    res <- run_requests(chats, rep(seq_len(k), each = length(send)),
                        as_prompt_list(rep(prompts[send], k)), settings,
                        key_extra = "dsbench-judge-v1")
    for (j in seq_len(k)) {
      mine <- res[(j - 1L) * length(send) + seq_along(send), ]
      out <- outs[[j]]
      out$reply[send] <- mine$result
      out$error[send] <- mine$error
      out$judged[send] <- is.na(mine$error)
      # a reasoning judge can think past the original's 256 tokens: its verdict is then empty
      out$truncated[send] <- mine$truncated %in% TRUE
      out$cached[send] <- mine$cached
      out$input_tokens[send] <- mine$input_tokens
      out$output_tokens[send] <- mine$output_tokens
      out$cost[send] <- mine$cost
      out$chat[send] <- mine$chat
      outs[[j]] <- out
    }
    failed <- sum(!is.na(res$error))
    # Every judgement failed: the scoring step is not a success ("x Scoring").
    if (failed == nrow(res)) fail_eval_step()
    if (failed) {
      cli::cli_warn(
        c("{failed} judgement{?s} failed; {?it counts/they count} as incorrect.",
          i = "First error: {res$error[!is.na(res$error)][[1]]}"),
        class = "predictivebench_warning_failed_judgements"
      )
    }
  }
  lapply(outs, function(out) {
    out$correct <- dsbench_judge_correct(out$reply)
    out
  })
}

# A panel's rows: the majority's verdict, each judge's own in `judges`, usage summed, and the
# first member's conversation (vitals wants one chat per question).
dsbench_panel_verdict <- function(members, models, judge) {
  column <- function(name) do.call(cbind, lapply(members, `[[`, name))
  correct <- column("correct")
  votes <- ifelse(correct, "true", "false")
  out <- members[[1]]
  out$correct <- panel_majority(votes, none = "false") == "true"
  out$reply <- NA_character_
  error <- column("error")
  out$error <- apply(error, 1, function(e) {
    if (all(is.na(e))) NA_character_ else
      paste0(models[!is.na(e)], ": ", e[!is.na(e)], collapse = "; ")
  })
  out$judged <- rowSums(column("judged")) == length(members)
  out$truncated <- rowSums(column("truncated")) > 0
  out$cached <- rowSums(!column("cached")) == 0
  for (name in c("input_tokens", "output_tokens", "cost")) out[[name]] <- rowSums(column(name))
  # each judge's tokens under its own model (R/judges-panel.R)
  out$panel_usage <- panel_usage_fields(judge, column("input_tokens"), column("output_tokens"),
                                        column("cost"))
  reply <- column("reply")
  out$judges <- panel_json(models, list(reply = reply, correct = correct, error = error))
  sent <- rowSums(!is.na(reply) | !is.na(error)) > 0
  said <- vapply(seq_len(nrow(out)), function(i) {
    each <- paste0(models, ifelse(is.na(reply[i, ]),
                                  ifelse(is.na(error[i, ]), " -", " failed"),
                                  paste0(" ", encodeString(reply[i, ], quote = "\""))),
                   collapse = ", ")
    paste0("The panel said ", if (out$correct[[i]]) "correct" else "incorrect", " (",
           sum(correct[i, ]), " of ", length(models), " judges: ", each, ").")
  }, "")
  out$panel_said <- ifelse(sent, said, "Not judged (the solver gave no response): incorrect.")
  out
}
