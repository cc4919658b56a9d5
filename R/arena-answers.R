# Answers and battles: the chats' answers through the response cache, and joining an
# arrangement with the answers into battles ready to judge.

#' Generate the answers the arena needs
#'
#' @description
#' `arena_answers()` asks every chat in `models` for its answer to each of `questions` it has
#' none to yet (in `known`), all in one request pool (`generate_responses()`: retries,
#' failure isolation) through the response cache, the one store of answers: an answer is
#' reused only for the same request (the chat's provider, base URL, model, parameters,
#' headers and system prompt, and the question), and a run that is killed resumes from it,
#' paying again only for the requests in flight. A failed request is `NA` (asked again next
#' time); a real empty answer (`""`) is kept. One model is enough here (battles need two,
#' answers do not).
#'
#' @param questions Questions to answer.
#' @param models A named list of ellmer chats.
#' @inheritParams settings-args
#' @param known `NULL`, or the answers known so far (`question` and a column per model, as
#'   returned here): those are kept and not asked for again, also without a cache.
#' @returns The answers: a tibble with `question` and one column per model (`NA` = none),
#'   with attribute `sent`: the requests sent (none from the cache or a baseline).
#' @noRd
arena_answers <- function(questions, models, settings = NULL, known = NULL) {
  models <- as_arena_models(models, min = 1)
  settings <- settings %||% request_settings()
  check_settings_object(settings)  # validated at the door: arena_run()
  questions <- unique(as.character(questions))
  answers <- answers_for(tibble::tibble(question = questions), questions, names(models))
  at <- match(questions, known$question)
  for (m in intersect(names(models), names(known))) answers[[m]] <- known[[m]][at]
  # Every model's missing answers in one pool (with `batch`, one provider batch per model).
  pending <- lapply(names(models), function(m) questions[is.na(answers[[m]])])
  asked <- unlist(pending, use.names = FALSE)
  if (!length(asked)) return(answers)
  chat_index <- rep(seq_along(models), lengths(pending))
  # one chat built per model (`chat_per`), none per answer: only the texts are kept
  res <- run_requests(unname(models), chat_index, as.list(asked), settings, epoch = 1L,
                      key_extra = answer_key_extra, chat_per = chat_index)
  note_cut_answers(res$truncated, names(models)[chat_index])
  for (k in seq_along(models)) {
    mine <- chat_index == k
    answers[[names(models)[[k]]]][match(asked[mine], questions)] <- res$result[mine]
  }
  # the requests actually sent: a run that sent none writes no second log (arena_run())
  offline <- vapply(models, inherits, TRUE, what = "BaselineChat")[chat_index]
  attr(answers, "sent") <- sum(!res$cached & !offline)
  answers
}

# A reasoning model thinking past its token limit leaves an empty answer the judge rates as it
# is: say how many, by model, so a low rating is not read as a weak model.
note_cut_answers <- function(truncated, model) {
  cut <- tapply(truncated %in% TRUE, model, sum)
  cut <- cut[cut > 0]
  if (!length(cut)) return(invisible())
  by_model <- paste0(names(cut), ": ", cut)
  cli::cli_inform(
    c("!" = "{sum(cut)} of {length(model)} answer{?s} {?was/were} cut off at the token limit
             (or inside unfinished reasoning).",
      rlang::set_names(by_model, rep("*", length(by_model))),
      i = "Raise {.arg max_tokens} in the model's chat if it needs more room."),
    class = "predictivebench_message_truncated"
  )
}

answer_key_extra <- "arena-answer-v1"

#' Battles ready to judge
#'
#' `arena_battles()` joins an arrangement with the answers and builds each battle's judge
#' prompt: the dataset of [arena_run()]'s judging. Battles where either answer is missing
#' are left out with a message; a model in the arrangement without an answer column is an
#' error.
#'
#' @param arrangement A tibble `question, model_a, model_b` (`arena_arrange()`).
#' @param answers A tibble `question` + one column per model (`arena_answers()`).
#' @param version Judge prompt version, see `arena_judge_prompt()`.
#' @param prompts `FALSE` leaves `input` `NA` (the caller builds the judge's prompts).
#' @returns A tibble with `id`, `input` (the judge's user message), `target` (empty),
#'   `question`, `model_a`, `model_b`, `answer_a`, `answer_b`.
#' @noRd
arena_battles <- function(arrangement, answers, version = c("231225", "231113"),
                          prompts = TRUE) {
  version <- rlang::arg_match(version)
  check_registered(arrangement, setdiff(names(answers), "question"))
  row <- match(arrangement$question, answers$question)
  answer_a <- answers_at(answers, row, arrangement$model_a)
  answer_b <- answers_at(answers, row, arrangement$model_b)
  ok <- !is.na(answer_a) & !is.na(answer_b)
  if (any(!ok)) {
    cli::cli_inform("{sum(!ok)} battle{?s} without both answers {?is/are} left out.",
                    class = "predictivebench_message_skipped")
  }
  out <- tibble::tibble(question = arrangement$question[ok], model_a = arrangement$model_a[ok],
                        model_b = arrangement$model_b[ok], answer_a = answer_a[ok],
                        answer_b = answer_b[ok])
  # without `prompts`: arena_run() builds them a chunk at a time (most of a round's memory)
  tibble::tibble(id = sprintf("battle-%d", seq_len(nrow(out))),
                 input = if (prompts) battle_prompts(out, version) else NA_character_,
                 target = "", out)
}

answers_at <- function(answers, rows, models) {
  out <- rep(NA_character_, length(rows))
  for (m in intersect(unique(models), names(answers))) {
    mine <- which(models == m & !is.na(rows))
    out[mine] <- as.character(answers[[m]][rows[mine]])
  }
  out
}

