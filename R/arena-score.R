# The arena task's scorer: the model's answer against each reference's; win 1, tie 0.5, loss 0.

#' @rdname arena_task
#' @export
arena_scorer <- function(answers = NULL, scorer_chat = NULL, version = c("231225", "231113"),
                         position_swap = FALSE, invalid = c("tie", "drop"), settings = NULL) {
  version <- rlang::arg_match(version)
  invalid <- rlang::arg_match(invalid)
  check_flag(position_swap)
  reference <- arena_reference_answers(answers)
  # The scorer is its answers' content, not their path (an evaluation set's cell identity).
  rm(answers)
  default_chat <- check_judge(scorer_chat, allow_null = TRUE)
  settings <- as_request_settings(settings)
  no_judge <- "The arena's scorer needs a judge (the original used gpt-4)."
  scorer <- function(samples, ..., scorer_chat = default_chat) {
    if (is.null(scorer_chat)) abort_no_judge(no_judge, "arena", list(...))
    scorer_chat <- check_judge(scorer_chat)
    s <- settings_with_dots(settings, ...)
    model <- arena_model_name(samples, setdiff(names(reference), "question"))
    battles <- arena_reference_battles(samples, reference, model, version)
    warn_unreferenced(samples, battles)
    judged <- if (!nrow(battles)) {
      tibble::tibble(winner = character(), error = character(), usage = list(), chat = list())
    } else {
      judge_battles(battles, scorer_chat, version = version, position_swap = position_swap,
                    settings = s)
    }
    report_verdict_failures(judged, "judgement")
    arena_reference_scores(samples, battles, judged, model, invalid, scorer_chat)
  }
  attr(scorer, "predictivebench_identity") <- list(answers = answers_table_sha256(reference))
  with_judge(scorer, default_chat, no_judge, "arena")  # (refused before the run: no judge)
}

answers_table_sha256 <- function(answers) {
  columns <- lapply(unclass(answers), as.character)
  text_sha256(paste(c(text_sha256(names(columns)),
                      vapply(columns, function(x) text_sha256(paste(text_sha256(x), collapse = "")),
                             "")),
                    collapse = ""))
}

arena_reference_answers <- function(answers, call = rlang::caller_env()) {
  if (is.null(answers)) {
    answers <- sample_store()$answers
  }
  if (rlang::is_string(answers)) answers <- arena_read_answers(answers)
  if (!is.data.frame(answers) || !"question" %in% names(answers) || ncol(answers) < 2) {
    abort_pb(c("{.arg answers} must be an answer table: {.field question} and one column per
                model.", i = "Or the path of an EloBench answer cache."),
             "argument", call = call)
  }
  twice <- unique(names(answers)[duplicated(names(answers))])
  if (length(twice)) {
    abort_pb("{.arg answers} has two columns named {.field {twice[[1]]}}.", "argument",
             field = twice[[1]], call = call)
  }
  tibble::as_tibble(answers)
}

# Unscored questions: say when the references are the cause (the sample's don't cover EloBench's).
warn_unreferenced <- function(samples, battles) {
  none <- !seq_len(nrow(samples)) %in% battles$.sample & !is.na(samples$result)
  if (!any(none)) return(invisible())
  cli::cli_inform(
    c("{sum(none)} of {nrow(samples)} questions {cli::qty(sum(none))}{?has/have} no reference
       answer: unscored.",
      i = "Give the reference models' answers to these questions with {.arg answers}."),
    class = "predictivebench_message_skipped"
  )
}

arena_model_name <- function(samples, references) {
  chat <- if ("solver_chat" %in% names(samples) && nrow(samples)) samples$solver_chat[[1]]
  name <- if (inherits(chat, "Chat")) tryCatch(chat$get_model(), error = function(e) NULL)
  if (!rlang::is_string(name) || !nzchar(name)) name <- "model"
  while (name %in% references) name <- paste0(name, " (evaluated)")
  name
}

# One battle per sample and reference model that answered: the sample's answer as model_a.
arena_reference_battles <- function(samples, reference, model, version) {
  row <- match(samples$input, reference$question)
  models <- setdiff(names(reference), "question")
  pairs <- expand.grid(.sample = seq_len(nrow(samples)), model_b = models,
                       stringsAsFactors = FALSE)
  pairs <- pairs[order(pairs$.sample), ]
  answer_b <- answers_at(reference, row[pairs$.sample], pairs$model_b)
  answer_a <- as.character(samples$result[pairs$.sample])
  keep <- !is.na(answer_a) & !is.na(answer_b)
  out <- tibble::tibble(.sample = pairs$.sample[keep],
                        question = as.character(samples$input[pairs$.sample[keep]]),
                        model_a = rep(model, sum(keep)), model_b = pairs$model_b[keep],
                        answer_a = answer_a[keep], answer_b = answer_b[keep])
  out$input <- battle_prompts(out, version)
  out
}

arena_reference_scores <- function(samples, battles, judged, model, invalid, judge) {
  points <- winner_points(judged$winner, failed = if (invalid == "tie") 0.5 else NA_real_)
  by_sample <- split(seq_len(nrow(battles)), factor(battles$.sample, seq_len(nrow(samples))))
  usage <- tibble::tibble(
    cached = vapply(judged$usage, function(u) isTRUE(u$cached), TRUE),
    input_tokens = vapply(judged$usage, function(u) as.double(u$input_tokens %||% 0), 0),
    output_tokens = vapply(judged$usage, function(u) as.double(u$output_tokens %||% 0), 0),
    cost = vapply(judged$usage, function(u) as.double(u$cost %||% 0), 0)
  )
  # a panel's: each sample's judges' tokens under their own models (R/judges-panel.R)
  panel <- if ("judges_usage" %in% names(judged)) {
    sum_judges_usage(judged$judges_usage, battles$.sample, nrow(samples))
  }
  list(
    score = score_values(sample_points(points, battles$.sample, nrow(samples))),
    scorer_chat = lapply(by_sample, function(i) {
      if (length(i)) judged$chat[[i[[1]]]] else no_battle_chat(judge)
    }),
    scorer_metadata = lapply(seq_along(by_sample), function(k) {
      i <- by_sample[[k]]
      winner <- judged$winner[i]
      c(list(model = model, wins = sum(winner %in% "model_a"),
             ties = sum(winner %in% c("tie", "tie(all bad)")),
             losses = sum(winner %in% "model_b"), failed = sum(failed_judgement(winner)),
             battles = jsonlite::toJSON(list(opponent = battles$model_b[i],
                                             winner = winner))),
        # a panel's: each battle's judges' own verdicts, in the order of `battles`
        if ("judges" %in% names(judged)) {
          list(judges = paste0("[", paste(judged$judges[i], collapse = ","), "]"))
        },
        usage_metadata(usage, i),
        if (!is.null(panel)) list(judge = judge_label(judge), judges_usage = panel[[k]]),
        # report_failures()' note: the judges that gave no readable verdict in its battles
        list(verdict_note = unreadable_sample_note(judged[["unreadable"]][i])))
    }),
    explanation = unname(vapply(by_sample, function(i) {
      if (!length(i)) return(no_battle_text)
      said <- c(model_a = "win", model_b = "loss", tie = "tie", `tie(all bad)` = "tie(all bad)",
                invalid = "invalid verdict")[judged$winner[i]]
      verdict <- ifelse(is.na(said), "no verdict", said)
      paste0(paste0("vs ", battles$model_b[i], ": ", verdict, " (",
                    ifelse(is.na(points[i]), "dropped", format(points[i])), ")",
                    collapse = "; "), ".")
    }, ""))
  )
}

no_battle_text <- "No battle: no reference model answered this question, or the model did not."

# A battle-less question's scorer chat says the judge was not asked (vitals reads its last turn).
no_battle_chat <- function(judge) {
  judge_members(judge)[[1]]$clone()$set_turns(list(
    ellmer::UserTurn(contents = list(ellmer::ContentText(no_battle_text))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("Not judged.")))
  ))
}

arena_reference_outcomes <- function(samples) {
  rows <- lapply(seq_len(nrow(samples)), function(i) {
    meta <- samples$scorer_metadata[[i]]
    if (is.null(meta$battles)) return(NULL)
    battles <- jsonlite::fromJSON(as.character(meta$battles))
    n <- length(battles$opponent)
    if (!n) return(NULL)
    tibble::tibble(model_a = rep(as.character(meta$model), n),
                   model_b = as.character(battles$opponent),
                   winner = as.character(battles$winner),
                   question = rep(as.character(samples$input[[i]]), n),
                   answer_a = rep(as.character(samples$result[[i]] %||% NA), n),
                   .row = rep(i, n))
  })
  out <- do.call(rbind, rows)
  out %||% tibble::tibble(model_a = character(), model_b = character(),
                          winner = character(), question = character(),
                          answer_a = character(), .row = integer())
}

sample_points <- function(points, sample_of, n) {
  vapply(seq_len(n), function(i) {
    p <- points[sample_of == i]
    if (!length(p) || all(is.na(p))) NA_real_ else mean(p, na.rm = TRUE)
  }, 0)
}
