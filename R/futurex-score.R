# Scoring FutureX answers as the reference evaluator does: the rule of each level, the
# optional LLM unit normalization, and futurex_score() for a predictions file.

futurex_score_items <- function(answers, table, number_rule, scorer_chat = NULL,
                                settings = NULL) {
  kind <- futurex_kind(table$level, table$std)
  numeric <- which(kind == "numeric" & !is.na(answers))
  judges <- judge_members(scorer_chat)
  normalized <- futurex_normalize(answers[numeric], table$target[numeric], judges, settings)
  if (!is_judge_panel(scorer_chat)) {
    return(futurex_member_scores(answers, table, number_rule, kind, numeric, normalized[[1]],
                                 scorer_chat))
  }
  members <- Map(function(norm, judge) {
    futurex_member_scores(answers, table, number_rule, kind, numeric, norm, judge)
  }, normalized, judges)
  futurex_panel_scores(members, judge_models(scorer_chat), scorer_chat)
}

# The items' scores by one judge (or none: `scorer_chat` NULL), from its normalized values.
futurex_member_scores <- function(answers, table, number_rule, kind, numeric, normalized,
                                  scorer_chat) {
  n <- length(answers)
  pred_value <- truth_value <- rep(NA_real_, n)
  normalization <- rep(NA_character_, n)
  score <- rep(NA_real_, n)
  for (i in seq_len(n)) {
    if (is.na(answers[[i]])) next
    score[[i]] <- switch(kind[[i]],
      single = futurex_single_choice(answers[[i]], table$target[[i]]),
      multiple = futurex_multi_choice(answers[[i]], table$target[[i]]),
      ranking = futurex_ranking(answers[[i]], table$target[[i]]),
      numeric = {
        j <- match(i, numeric)
        values <- if (!is.null(normalized) && !is.na(normalized$pred[[j]])) {
          normalization[[i]] <- "llm"
          c(normalized$pred[[j]], normalized$truth[[j]])
        } else {
          normalization[[i]] <- if (is.null(normalized)) "none" else "fallback"
          c(parse_number_text(answers[[i]], futurex_number_rule(number_rule)),
            parse_number_text(table$target[[i]], futurex_number_rule(number_rule)))
        }
        pred_value[[i]] <- values[[1]]
        truth_value[[i]] <- values[[2]]
        futurex_numeric(values[[1]], values[[2]], table$std[[i]])
      }
    )
  }
  judge_error <- judge_note <- rep(NA_character_, n)
  chats <- NULL
  judge_usage <- rep(list(list(cached = TRUE, input_tokens = 0, output_tokens = 0, cost = 0)), n)
  if (!is.null(normalized)) {
    judge_error[numeric] <- normalized$error
    judge_note[numeric] <- normalized$note
    judge_usage[numeric] <- normalized$usage
  }
  if (!is.null(scorer_chat)) {
    # vitals wants a Chat per item when there is a judge: unjudged items get one saying so.
    chats <- lapply(kind, function(k) unjudged_chat(scorer_chat, k))
    sent <- if (is.null(normalized)) list() else normalized$chat
    got <- !vapply(sent, is.null, TRUE)
    chats[numeric[got]] <- sent[got]
    for (i in numeric[!got]) chats[[i]] <- unjudged_chat(scorer_chat, "failed")
  }
  tibble::tibble(
    score = score, kind = kind,
    extracted = extract_boxed(ifelse(is.na(answers), NA_character_, answers), which = "first",
                              rule = "first_brace", fallback = "text"),
    pred_value = pred_value, truth_value = truth_value, normalization = normalization,
    judge_error = judge_error, judge_note = judge_note, judge_usage = judge_usage,
    chat = chats %||% rep(list(NULL), n)
  )
}

# Why each item scored what it did: its kind, extracted answer vs target (values, if numeric).
futurex_explanation <- function(scores, target) {
  values <- ifelse(
    scores$kind == "numeric" & !is.na(scores$normalization),
    paste0(" (values ", format_value(scores$pred_value), " vs ",
           format_value(scores$truth_value),
           ifelse(scores$normalization == "llm", ", normalized by the judge", ""), ")"),
    ""
  )
  if ("judges" %in% names(scores)) {
    values <- ifelse(is.na(scores$judges), values, futurex_panel_explanation(scores$judges))
  }
  ifelse(is.na(scores$score), "no answer (the request failed): not scored",
         paste0(scores$kind, ": extracted ", scores$extracted, " vs ", target, values))
}

futurex_panel_explanation <- function(judges) {
  each <- panel_judges(judges)
  said <- paste0(each$judge, ": values ", format_value(each$pred_value), " vs ",
                 format_value(each$truth_value), ifelse(each$normalization == "llm", "", paste0(
                   " (", each$normalization, ")")), ", score ", format_value(each$score))
  rows <- split(said, factor(each$sample, levels = seq_along(judges)))
  vapply(rows, function(r) paste0(" (a panel's mean score: ", paste(r, collapse = "; "), ")"),
         "", USE.NAMES = FALSE)
}

# Each value on its own: format() of a vector gives every value the longest one's decimals
# ("7.0" beside 12.5), so an explanation depended on the samples scored with it.
format_value <- function(x) {
  vapply(x, function(v) if (is.na(v)) "none" else format(v, digits = 15, trim = TRUE), "",
         USE.NAMES = FALSE)
}

unjudged_chat <- function(scorer_chat, kind) {
  why <- switch(kind, numeric = "it has no answer", failed = "its request failed",
                paste("it is a", kind, "item"))
  scorer_chat$clone()$set_turns(list(
    user_turn_of(paste0("(not sent to the judge: ", why, ")")),
    empty_turn(finish_reason = "not_judged")
  ))
}

futurex_number_rule <- function(rule) if (rule == "reference") "first_digits" else "strict"

futurex_kind <- function(level, std) {
  ifelse(level == 1, "single", ifelse(level == 2, "multiple",
    ifelse(is.na(std), "ranking", "numeric")))
}

# Python's re is Unicode-aware by default; (*UCP) makes PCRE's \b, \s and \w agree with it.
futurex_content <- function(text) {
  extract_boxed(text, which = "first", rule = "first_brace", fallback = "text")
}

futurex_options <- function(text) {
  if (is.na(text) || !nzchar(text)) return(character())
  content <- futurex_content(text)
  letters <- regmatches(toupper(content),
                        gregexpr("(*UCP)\\b([A-Z])\\b", toupper(content), perl = TRUE))[[1]]
  if (length(letters)) return(unique(letters))
  token <- py_strip(content)
  if (grepl("^[A-Za-z]+$", token)) return(toupper(token))
  character()
}

futurex_single_choice <- function(pred, truth) {
  # The reference takes next(iter(set)), which changes with Python's hash seed; this is the
  # element it takes under PYTHONHASHSEED=0.
  options <- python_set_order(futurex_options(pred))
  option <- if (length(options)) options[[1]] else ""
  as.double(toupper(option) == toupper(py_strip(truth)))
}

futurex_multi_choice <- function(pred, truth) {
  set_f1(futurex_options(pred), futurex_options(truth))
}

futurex_list <- function(text) {
  content <- futurex_content(text)
  content <- gsub("(*UCP)\\d+(?:st|nd|rd|th)?[:\uff1a.\\s]+", "", content, perl = TRUE)
  items <- strsplit(content, "[,\uff0c\u3001;\uff1b\n]", perl = TRUE)[[1]]
  items <- py_strip(items)
  items[nzchar(items)]
}

futurex_ranking <- function(pred, truth) {
  pred_list <- futurex_list(pred)
  truth_list <- futurex_list(truth)
  if (identical(pred_list, truth_list)) return(1)
  if (!length(truth_list)) return(0)
  0.8 * length(intersect(pred_list, truth_list)) / length(truth_list)
}

futurex_numeric <- function(pred, truth, std) {
  if (is.na(pred) || is.na(truth)) return(0)
  if (std == 0) return(as.double(abs(pred - truth) < 1e-6))
  max(0, 1 - ((truth - pred) / std)^2)
}

# The judges' normalized values of numeric items, one list per judge; every judge's requests
# in one pool, each keyed as that judge's alone.
futurex_normalize <- function(answers, truths, judges, settings = NULL) {
  if (!length(judges) || !length(answers)) return(list(NULL))
  k <- length(judges)
  chats <- lapply(judges, function(judge) {
    configure_chat(judge, "You are a precise number normalization assistant.",
                   list(temperature = 0.2))
  })
  prompts <- futurex_normalize_prompt(truths, answers)
  all <- run_requests(chats, rep(seq_len(k), each = length(prompts)),
                      as_prompt_list(rep(prompts, k)), settings,
                      key_extra = "futurex-normalize-v1")
  out <- lapply(seq_len(k), function(j) {
    futurex_normalized(all[(j - 1L) * length(prompts) + seq_along(prompts), ])
  })
  unread <- vapply(out, function(o) sum(!is.na(o$note)), 1L)
  warn_unreadable_verdicts(stats::setNames(unread, judge_member_labels(judges)),
                           length(prompts), "numeric item",
                           "The plain parse of the answer scores such an item, as the reference does.")
  out
}

futurex_normalized <- function(res) {
  parse_value <- function(label) {
    m <- regmatches(res$result, regexec(paste0(label, ":\\s*([0-9.]+)"), res$result))
    vapply(m, function(x) if (length(x) == 2) suppressWarnings(as.numeric(x[[2]])) else NA, 1)
  }
  truth <- parse_value("GROUND_TRUTH_VALUE")
  pred <- parse_value("PREDICTION_VALUE")
  ok <- !is.na(truth) & !is.na(pred)
  # A reply without the two numbers is a note, as the reference reads it, not a failed
  # request (sending it again brings the same reply), so it never makes a cell partial.
  note <- ifelse(!ok & is.na(res$error), futurex_judge_note, NA_character_)
  list(pred = ifelse(ok, pred, NA_real_), truth = ifelse(ok, truth, NA_real_),
       chat = res$chat, error = res$error, note = note,
       usage = lapply(seq_len(nrow(res)), function(i) usage_metadata(res, i)))
}

futurex_judge_note <- paste(
  "The judge's reply has no GROUND_TRUTH_VALUE and PREDICTION_VALUE numbers:",
  "the plain parse scored the item."
)

# A panel's items: the mean of the members' scores (each judge's values are in its own unit,
# so a median of mixed values could compare two units), the median value for display.
futurex_panel_scores <- function(members, models, judge) {
  column <- function(name) do.call(cbind, lapply(members, `[[`, name))
  named <- function(values) {
    apply(values, 1, function(v) {
      if (all(is.na(v))) NA_character_ else
        paste0(models[!is.na(v)], ": ", v[!is.na(v)], collapse = "; ")
    })
  }
  middle <- function(values) {
    apply(values, 1, function(v) if (all(is.na(v))) NA_real_ else stats::median(v, na.rm = TRUE))
  }
  out <- members[[1]]
  score <- column("score")
  normalization <- column("normalization")
  out$score <- panel_mean(score)
  out$pred_value <- middle(column("pred_value"))
  out$truth_value <- middle(column("truth_value"))
  out$normalization <- apply(normalization, 1, function(v) {
    if (all(is.na(v))) NA_character_ else if (length(unique(v)) == 1L) v[[1]] else "mixed"
  })
  out$judge_error <- named(column("judge_error"))
  out$judge_note <- named(column("judge_note"))
  usage <- function(name) {
    do.call(cbind, lapply(members, function(m) vapply(m$judge_usage, function(u) as.double(u[[name]]), 1)))
  }
  tokens <- list(input = usage("input_tokens"), output = usage("output_tokens"),
                 cost = usage("cost"))
  # each judge's tokens under its own model (R/judges-panel.R)
  own <- panel_usage_fields(judge, tokens$input, tokens$output, tokens$cost)
  out$judge_usage <- lapply(seq_len(nrow(out)), function(i) {
    c(list(cached = all(vapply(members, function(m) isTRUE(m$judge_usage[[i]]$cached), TRUE)),
           input_tokens = sum(tokens$input[i, ]), output_tokens = sum(tokens$output[i, ]),
           cost = sum(tokens$cost[i, ])), own[[i]])
  })
  judged <- out$kind == "numeric" & !is.na(out$score)
  out$judges <- ifelse(judged, panel_json(models, list(
    pred_value = column("pred_value"), truth_value = column("truth_value"), score = score,
    normalization = normalization, error = column("judge_error")
  )), NA_character_)
  out
}

#' Score FutureX predictions without a model
#'
#' Like the reference's `eval.py -f FILE`: reads a predictions file (the question objects
#' plus an `answer` string) and scores every answer with the rules of [futurex_task()].
#' Items without an answer are skipped and counted.
#'
#' @param predictions A predictions JSON file (as with `eval.py`, a name without `.json`
#'   also finds `name.json`), a `futurex` task table (parquet), or a data frame with the
#'   task-table columns and `answer`.
#' @param scorer_chat Optional chat for the LLM unit normalization of numeric items, or a
#'   list of chats (a panel of judges: each item's score is the mean of the scores each
#'   judge's values give, see [futurex_task()]).
#' @param duplicate_ids For repeated ids when reading JSON: `"error"` (the default) stops;
#'   `"suffix"` keeps every item and renames repeats `id#2`, `id#3`, ... in file order.
#' @inheritParams futurex_task
#' @returns An object of class `futurex_scores`: a list with `summary` (as
#'   [futurex_summary()]) and `items` (one row per item: `id`, `level`, `kind`, `answer`,
#'   `target`, `extracted`, `pred_value`, `truth_value`, `score`, `normalization` (for
#'   numeric items: `"llm"` when the judge's values were used, `"fallback"` when the judge
#'   failed or its reply had no values and the plain parse was used, `"none"` without a
#'   judge), `judge_error` (the judge's request failed: its error, else `NA`) and
#'   `judge_note` (the judge answered without the two values: a note saying so, else
#'   `NA`).
#' @family futurex
#' @export
#' @examples
#' # a data frame of predictions: the task table with `answer` (and `has_answer`)
#' preds <- futurex_dataset(version = "sample")
#' preds$answer <- "\\boxed{Yes}"
#' preds$has_answer <- TRUE
#' scored <- futurex_score(preds)
#' scored
#' scored$items
#' # a predictions JSON file, as eval.py reads it, needs Python with pandas
#' path <- system.file("extdata", "futurex-predictions.json", package = "predictivebench")
#' tryCatch(futurex_score(path),
#'          predictivebench_error_dependency = function(e) conditionMessage(e))
futurex_score <- function(predictions, number_rule = c("reference", "strict"),
                          scorer_chat = NULL, duplicate_ids = c("error", "suffix"),
                          settings = NULL) {
  number_rule <- rlang::arg_match(number_rule)
  duplicate_ids <- rlang::arg_match(duplicate_ids)
  scorer_chat <- check_judge(scorer_chat, allow_null = TRUE)
  table <- futurex_predictions_table(predictions, duplicate_ids)
  # `has_answer` NA (or absent): an item has an answer where `answer` holds one
  has <- table$has_answer %in% TRUE | (is.na(table$has_answer) & !is.na(table$answer))
  answers <- ifelse(has, table$answer, NA_character_)
  # a reasoning model's prediction is scored from its answer, after its thinking, as a
  # task's is (R/engine-reasoning.R); text without thinking is left as it is
  answers <- vapply(answers, function(a) answer_parts(a)$answer, "", USE.NAMES = FALSE)
  scores <- futurex_score_items(answers, table, number_rule, scorer_chat,
                                as_request_settings(settings))
  items <- tibble::tibble(
    id = table$id, level = table$level, kind = scores$kind, answer = answers,
    target = table$target, extracted = scores$extracted, pred_value = scores$pred_value,
    truth_value = scores$truth_value, score = scores$score,
    normalization = scores$normalization, judge_error = scores$judge_error,
    judge_note = scores$judge_note
  )
  if ("judges" %in% names(scores)) items$judges <- scores$judges
  out <- structure(list(summary = NULL, items = items), class = "futurex_scores",
                   benchmark = "futurex")
  out$summary <- suppressMessages(futurex_summary(out))
  out
}

futurex_predictions_table <- function(predictions, duplicate_ids) {
  if (is.data.frame(predictions)) {
    # `answer` and `has_answer` are optional in a questions table: without `answer` nothing scores
    if (!"answer" %in% names(predictions)) {
      abort_pb(c("Missing column {.field answer}: the predictions to score.",
                 i = "Add the model's answer to each row (as the original's predictions file
                      has it); {.field has_answer} is optional (a missing answer is {.code NA})."),
               "schema", file = "<data frame>", field = "answer")
    }
    return(check_not_empty(validate_task_table(predictions, "futurex"), "<data frame>"))
  }
  check_string(predictions)
  path <- predictions
  if (!file.exists(path) && !grepl("\\.json$", path) && file.exists(paste0(path, ".json"))) {
    path <- paste0(path, ".json")
  }
  table <- if (grepl("\\.parquet$", path)) read_task_table(path, "futurex") else
    prepare_futurex(path, duplicate_ids = duplicate_ids)
  check_not_empty(table, path)
}

#' @export
print.futurex_scores <- function(x, ...) {
  skipped <- sum(is.na(x$items$score))
  cli::cli_text("FutureX scores for {nrow(x$items)} item{?s} ({skipped} without an answer).")
  failed <- sum(!is.na(x$items$judge_error))
  if (failed) {
    cli::cli_text("{failed} numeric item{?s} used the plain parse: the judge's request ",
                  "failed (see {.field judge_error} in {.field $items}).")
  }
  noted <- sum(!is.na(x$items$judge_note %||% NA_character_))
  if (noted) {
    cli::cli_text("{noted} numeric item{?s} used the plain parse: the judge's reply had no ",
                  "values (see {.field judge_note} in {.field $items}).")
  }
  print(x$summary, ...)
  invisible(x)
}
