# Answers and battles: generating only the missing answers into q_and_as.csv, and joining an
# arrangement with the answers into battles ready to judge.

#' Generate the answers the arena needs, and only those
#'
#' @description
#' `arena_answers()` fills the answer cache `q_and_as.csv` in `cache_dir`: the questions
#' that have no answer yet, for every model given as a chat, go into one request pool
#' ([generate_responses()]: response cache, retries, failure isolation), and the file is
#' rewritten atomically when the pool is done. The response cache keeps each answer the
#' moment it arrives, so a run that is interrupted or killed loses only the requests in
#' flight: the next call reads the others from it without sending them (unless the settings
#' turn the cache off). Each write holds a
#' lock (`.q_and_as.csv.lock`) and merges the answers another process added meanwhile, so
#' two runs on one folder lose no answer. A failed request
#' leaves `NaN` (not generated) and is tried again next time; a real empty answer (`""`) is
#' kept and never asked for again. Models given by name only must already have their answers
#' in the file. One model is enough here (battles need two, answers do not).
#'
#' An answer is reused only for the same request: beside `q_and_as.csv` (whose layout stays
#' EloBench's), `q_and_as_sources.csv` records for each answer the package generated the
#' identity of its request (`question_sha256, model, identity`: the response cache's key of
#' the chat, see [generate_responses()], so provider, base URL, model, parameters, headers
#' and system prompt). A chat whose identity differs (the same model name at another
#' server, or with other parameters) gets its answers generated anew. Answers with no
#' source row (EloBench's own file, or answers you put there) are reused as they are.
#'
#' With `cache = FALSE` the file is no cache: no answer of a chat is read from `q_and_as.csv`
#' or written to it, and every one is asked for again (answers of models given by name only,
#' which can't be asked for, are still read). [arena_run()] sets it from its settings' `cache`
#' (see `store_caching()`), so that `cache = FALSE` there means no cache anywhere; the
#' response cache follows `settings` alone.
#'
#' @param questions Questions to answer.
#' @param models A named list of chats (or `NULL` elements, or a character vector) as for
#'   [arena_run()].
#' @param cache_dir The folder holding `q_and_as.csv`.
#' @param store Whether `q_and_as.csv` is used as a cache (read for the chats' answers and
#'   written).
#' @inheritParams settings-args
#' @returns The answers: a tibble with `question` and one column per model (`NA` = none).
#' @keywords internal
arena_answers <- function(questions, models, cache_dir, settings = NULL, store = TRUE) {
  models <- register_models(models, min = 1)
  check_string(cache_dir)
  check_flag(store)
  settings <- settings %||% request_settings()
  check_settings_object(settings)  # validated at the door: arena_run()
  path <- answers_path(cache_dir)
  caching <- store
  answers <- load_answers(path, unique(as.character(questions)), names(models))
  chats <- Filter(Negate(is.null), models)
  identity <- vapply(chats, answer_identity, "")
  answers <- if (caching) {
    without_other_sources(answers, identity, read_answer_sources(path))
  } else {
    without_chat_answers(answers, names(chats))
  }
  # Every model's missing answers in one pool: prompt i goes to chats[[chat_index[i]]] (with
  # `batch`, one provider batch per model).
  pending <- lapply(names(chats), function(name) {
    answers$question[answers$question %in% questions & is.na(answers[[name]])]
  })
  model <- rep(names(chats), lengths(pending))
  asked <- unlist(pending, use.names = FALSE) %||% character()
  if (length(asked)) {
    res <- run_requests(unname(chats), match(model, names(chats)), as.list(asked), settings,
                        epoch = 1L, key_extra = answer_key_extra)
    note_cut_answers(res$truncated, model)
    answers <- if (caching) {
      update_answers(path, answers, asked, model, res$result, identity)
    } else {
      merge_answer_results(answers, asked, model, res$result)
    }
  }
  if (caching && !file.exists(path)) {
    answers <- update_answers(path, answers, character(), NULL, NULL)
  }
  answers
}

# A reasoning model that thinks past its token limit leaves an empty answer (the answer is
# what follows the thinking: R/engine-reasoning.R), which the judge then rates as it is:
# say how many, by model, so a low rating is not read as a weak model.
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

# Without a cache, no answer of a chat is reused: each is asked for again. Answers of models
# given by name only are the user's data, kept.
without_chat_answers <- function(answers, chat_names) {
  for (m in chat_names) answers[[m]] <- NA_character_
  answers
}

answer_key_extra <- "arena-answer-v1"

# The identity of a chat's answer requests (arena_identity()).
answer_identity <- function(chat) arena_identity(chat, answer_key_extra)

# `answers` with the answers of each chat's model that another request (another identity,
# in `sources`) generated taken out (NA), so that they are asked for again.
without_other_sources <- function(answers, identity, sources) {
  if (!nrow(sources) || !length(identity)) return(answers)
  hashes <- text_sha256(answers$question)
  for (m in names(identity)) {
    mine <- sources[sources$model == m, ]
    other <- mine$question_sha256[mine$identity != identity[[m]]]
    answers[[m]][hashes %in% other] <- NA_character_
  }
  answers
}

#' Battles ready to judge
#'
#' `arena_battles()` joins an arrangement with the answers and builds each battle's judge
#' prompt: the dataset of [arena_run()]'s judging. Battles where either answer is missing
#' are left out with a message; a model in the arrangement without an answer column is an
#' error.
#'
#' @param arrangement A tibble `question, model_a, model_b` ([arena_arrange()]).
#' @param answers A tibble `question` + one column per model ([arena_answers()]).
#' @param version Judge prompt version, see [arena_judge_prompt()].
#' @returns A tibble with `id`, `input` (the judge's user message), `target` (empty),
#'   `question`, `model_a`, `model_b`, `answer_a`, `answer_b`.
#' @keywords internal
arena_battles <- function(arrangement, answers, version = c("231225", "231113")) {
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
  tibble::tibble(id = sprintf("battle-%d", seq_len(nrow(out))),
                 input = battle_prompts(out, version), target = "", out)
}

# The answer of `models[i]` to the question in row `rows[i]` of `answers` (NA for none).
answers_at <- function(answers, rows, models) {
  vapply(seq_along(rows), function(i) {
    if (is.na(rows[[i]])) NA_character_ else as.character(answers[[models[[i]]]][[rows[[i]]]])
  }, "")
}

# The judge's user message for each battle (`question`, `answer_a`, `answer_b`).
battle_prompts <- function(battles, version) {
  if (!nrow(battles)) return(character())
  arena_judge_prompt(battles$question, battles$answer_a, battles$answer_b, version)$user
}
