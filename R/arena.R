# The Elo arena (EloBench): answers, pairwise LLM judging, rounds, and the original CSV files.

# ---- Judge prompts ---------------------------------------------------------------------------

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
#' @export
#' @examples
#' p <- arena_judge_prompt("What is 2 + 2?", "4", "5")
#' cat(p$system)
#' cat(p$user)
#' arena_parse_verdict(c('{"winner": 1, "explanation": "A is right"}',
#'                       "- Score of Model 1: 0\n- Score of Model 2: 1", "no idea", NA))
arena_judge_prompt <- function(question, answer_a, answer_b, version = c("231225", "231113")) {
  version <- rlang::arg_match(version)
  n <- max(length(question), length(answer_a), length(answer_b))
  values <- list(rep_len(as.character(question), n), rep_len(as.character(answer_a), n),
                 rep_len(as.character(answer_b), n))
  template <- arena_templates[[version]]
  keys <- arena_template_keys[[version]]
  system <- NULL
  user <- vapply(seq_len(n), function(i) {
    text <- template
    for (k in seq_along(keys)) {
      text <- gsub(paste0("{", keys[[k]], "}"), values[[k]][[i]], text, fixed = TRUE)
    }
    messages <- chatml_messages(text)
    roles <- vapply(messages, `[[`, "", "role")
    contents <- vapply(messages, `[[`, "", "content")
    if (is.null(system)) system <<- contents[roles == "system"][1]
    paste(contents[roles != "system"], collapse = "\n\n")
  }, "")
  if (is.null(system)) system <- chatml_messages(template)[[1]]$content
  list(system = system, user = user)
}

#' @rdname arena_judge_prompt
#' @export
arena_parse_verdict <- function(text) {
  text <- as.character(text)
  out <- lapply(text, parse_one_verdict)
  tibble::tibble(
    winner = vapply(out, `[[`, "", "winner"),
    gpt_4_score = vapply(out, `[[`, "", "score"),
    format = vapply(out, `[[`, "", "format")
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

# The JSON object in a response: the whole text, else a fenced block, else the outermost
# braces. NULL when there is none with a `winner` field.
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

# ---- CSV files in the original layout ------------------------------------------------------

battle_record_columns <- c("model_a", "model_b", "winner", "judger", "tstamp", "question",
                           "answer_a", "answer_b", "gpt_4_response", "gpt_4_score", "is_valid")

read_arena_csv <- function(path, required, what = "file", call = rlang::caller_env()) {
  if (!file.exists(path)) {
    abort_pb("The arena {what} does not exist.", "missing_file", file = path, call = call)
  }
  check_csv_utf8(path, what, call)
  data <- tryCatch(
    utils::read.csv(path, colClasses = "character", na.strings = character(),
                    check.names = FALSE, encoding = "UTF-8", fileEncoding = "UTF-8"),
    error = function(e) {
      abort_pb(c("Can't read the arena {what} as CSV.", x = conditionMessage(e)), "csv",
               file = path, call = call)
    }
  )
  first <- names(data)[1]
  if (length(first) && (first %in% c("", "X", "Unnamed: 0"))) data <- data[-1]
  missing <- setdiff(required, names(data))
  if (length(missing)) {
    abort_pb("The arena {what} lacks column{?s} {.field {missing}}.", "schema", file = path,
             field = missing[[1]], call = call)
  }
  tibble::as_tibble(data)
}

# read.csv(fileEncoding = "UTF-8") stops at an invalid byte with only a warning and drops the
# rows after it, so the bytes are checked first and the bad record is named.
check_csv_utf8 <- function(path, what, call) {
  bytes <- readBin(path, "raw", file.size(path))
  text <- rawToChar(bytes[bytes != as.raw(0)])
  if (validUTF8(text)) return(invisible())
  lines <- strsplit(text, "\n", useBytes = TRUE)[[1]]
  bad_line <- which(!validUTF8(lines))[[1]]
  abort_pb(
    c("The arena {what} is not valid UTF-8 (line {bad_line}).",
      i = "Re-save it as UTF-8, e.g. with {.code iconv -f latin1 -t utf-8}."),
    "encoding", file = path, row = csv_record_of_line(lines, bad_line), call = call
  )
}

# The data row (1-based, after the header) that a line starts or continues; quoted fields
# may span lines, so records are counted by their balanced quotes.
csv_record_of_line <- function(lines, line) {
  quotes <- vapply(gregexpr('"', lines[seq_len(line - 1)], useBytes = TRUE),
                   function(m) sum(m > 0), 1)
  open <- FALSE
  records <- 0L
  for (q in quotes) {
    if (!open) records <- records + 1L
    if (q %% 2 == 1) open <- !open
  }
  if (!open) records <- records + 1L
  records - 1L
}

# Written like pandas' to_csv(): a leading unnamed 0-based index, every text quoted, so the
# original tools read our files and we read theirs.
write_arena_csv <- function(data, path) {
  data <- as.data.frame(data, stringsAsFactors = FALSE)
  for (name in names(data)) {
    if (is.logical(data[[name]])) {
      data[[name]] <- ifelse(is.na(data[[name]]), NA_character_,
                             ifelse(data[[name]], "True", "False"))
    }
  }
  rownames(data) <- if (nrow(data)) as.character(seq_len(nrow(data)) - 1L) else NULL
  write_atomic(path, function(tmp) {
    utils::write.csv(data, tmp, row.names = nrow(data) > 0, na = "", fileEncoding = "UTF-8")
  })
}

#' Read and write the arena's CSV files
#'
#' @description
#' EloBench keeps its state in CSV files, and predictivebench reads and writes them in the
#' same layout, so existing results load and new ones open in the original tools:
#'
#' * `arena_read_battles()` reads `battle_records.csv` (the judged battles, with the judge's
#'   response), `battled_pairs.csv` or `battle_outcomes.csv` (`model_a, model_b, winner`).
#'   Winners must be `model_a`, `model_b`, `tie`, `tie(all bad)` (FastChat's
#'   `tie (bothbad)` is accepted), `invalid` or empty; anything else is an error naming the
#'   row.
#' * Every reader here expects UTF-8: a file that is not valid UTF-8 is an error
#'   (`predictivebench_error_encoding`) naming the file and the first data row with a bad
#'   byte, rather than a partial read.
#' * `arena_read_answers()` reads an answer cache `q_and_as.csv`: `question` plus one column
#'   per model, where the text `NaN` means "not generated" (returned as `NA`) and an empty
#'   string is a real empty answer. The text `NULL` also means "not generated", because an
#'   older version of the original wrote it so (an answer that is literally `NULL` is
#'   therefore read as missing, and generated again by [arena_answers()]).
#' * `arena_read_arrangement()` reads `battle_arrangement.csv` (`question, model_a,
#'   model_b`); with `models`, a model in it that is not registered is an error.
#' * `arena_read_questions()` reads a dataset's `questions.csv` (column `question`, repeats
#'   allowed) and returns the unique questions in order of first appearance.
#' * `arena_read_ratings()` reads an `elo_rating.csv`, as written here (`model, elo_rating,
#'   rank`) or by the original (`Model, Elo Rating`; the rank is then 1 + the number of
#'   higher ratings).
#'
#' @param path The CSV file.
#' @param models Registered model names, or `NULL` to accept any.
#' @returns A tibble; for `arena_read_battles()` with every column of the file, `winner`
#'   normalized, and `is_valid` logical when present; for `arena_read_ratings()` with
#'   `model`, `elo_rating`, `rank`; `arena_read_questions()` a character vector.
#' @export
#' @examples
#' dir <- system.file("extdata", "arena", package = "predictivebench")
#' arena_read_questions(file.path(dir, "data", "sample", "questions.csv"))
#' answers <- arena_read_answers(file.path(dir, "tempcache", "sample", "q_and_as.csv"))
#' names(answers)
#' arena_read_battles(file.path(dir, "tempcache", "sample", "battle_records.csv"))
arena_read_battles <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, c("model_a", "model_b", "winner"), "battle file")
  data$winner <- normalize_winner(data$winner, file = path)
  if ("is_valid" %in% names(data)) {
    data$is_valid <- toupper(data$is_valid) %in% c("TRUE", "1")
  }
  data
}

#' @rdname arena_read_battles
#' @export
arena_read_answers <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, "question", "answer cache")
  for (name in setdiff(names(data), "question")) {
    data[[name]][data[[name]] %in% c("NaN", "NULL")] <- NA_character_
  }
  data
}

#' @rdname arena_read_battles
#' @export
arena_read_arrangement <- function(path, models = NULL) {
  check_string(path)
  data <- read_arena_csv(path, c("question", "model_a", "model_b"), "arrangement")
  if (!is.null(models)) check_registered(data, models, path)
  data[c("question", "model_a", "model_b")]
}

check_registered <- function(arrangement, models, file = NULL, call = rlang::caller_env()) {
  used <- c(arrangement$model_a, arrangement$model_b)
  unknown <- setdiff(unique(used), models)
  if (length(unknown)) {
    row <- which(arrangement$model_a %in% unknown | arrangement$model_b %in% unknown)[[1]]
    abort_pb(
      c("The arrangement names model{?s} that {?was/were} never registered: {.val {unknown}}.",
        i = "Registered: {.val {models}}."),
      "model", file = file, row = row, call = call
    )
  }
  invisible(arrangement)
}

#' @rdname arena_read_battles
#' @export
arena_read_ratings <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, character(), "rating file")
  if (all(c("Model", "Elo Rating") %in% names(data))) {
    # The original's layout: a 1-based index, `Model` and a rounded `Elo Rating`.
    rating <- suppressWarnings(as.numeric(data[["Elo Rating"]]))
    return(tibble::tibble(model = data$Model, elo_rating = rating,
                          rank = as.integer(rank(-rating, ties.method = "min"))))
  }
  missing <- setdiff(c("model", "elo_rating"), names(data))
  if (length(missing)) {
    abort_pb("The rating file lacks column{?s} {.field {missing}}.", "schema", file = path,
             field = missing[[1]])
  }
  rating <- suppressWarnings(as.numeric(data$elo_rating))
  rank <- if ("rank" %in% names(data)) as.integer(data$rank) else
    as.integer(rank(-rating, ties.method = "min"))
  tibble::tibble(model = data$model, elo_rating = rating, rank = rank)
}

#' @rdname arena_read_battles
#' @export
arena_read_questions <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, "question", "question file")
  questions <- data$question[!is.na(data$question)]
  unique(questions)
}

# ---- Registration and arrangement ----------------------------------------------------------

# Models: a named list whose elements are ellmer chats or "provider/model" strings (answers
# are generated) or NULL, or a character vector of names whose answers are already cached.
register_models <- function(models, min = 2, call = rlang::caller_env()) {
  if (is.character(models)) models <- stats::setNames(vector("list", length(models)), models)
  if (inherits(models, "Chat")) models <- list(models)
  if (!is.list(models) || !length(models)) {
    abort_pb("{.arg models} must be a named list of chats or a character vector of names.",
             "argument", call = call)
  }
  nms <- names(models) %||% rep("", length(models))
  for (i in seq_along(models)) {
    m <- models[[i]]
    if (is.character(m) && length(m) == 1 && !nzchar(nms[[i]])) {
      nms[[i]] <- m
      models[i] <- list(NULL)
    } else if (is.character(m) && length(m) == 1) {
      models[[i]] <- as_chat(m, arg = paste0("models$", nms[[i]]), call = call)
    } else if (inherits(m, "Chat") && !nzchar(nms[[i]])) {
      nms[[i]] <- m$get_model()
    } else if (!is.null(m) && !inherits(m, "Chat")) {
      abort_pb("Model {i} must be an ellmer chat or a name.", "argument", call = call)
    }
  }
  if (any(!nzchar(nms)) || anyDuplicated(nms)) {
    abort_pb("Model names must be unique and non-empty.", "argument", call = call)
  }
  names(models) <- nms
  if (length(models) < min) {
    abort_pb("An arena needs at least two models.", "argument", call = call)
  }
  models
}

#' Arrange battles between models
#'
#' @description
#' `arena_arrange()` decides which models meet on which questions, as EloBench's
#' `PairwiseBattleArrangement` does, and returns the arrangement (`question, model_a,
#' model_b`), which [arena_run()] saves as `battle_arrangement.csv`.
#'
#' * `"pairs"`: for each unordered pair of models, `n` distinct questions that both models
#'   answered (see `available`) and that the pair has not met on before (`existing`), drawn
#'   with weights `1 / (1 + uses)` so questions used less often are preferred.
#' * `"all"`: every pair on every question.
#' * `"reload"`: the arrangement in `path`; every model in it must be registered and every
#'   question known.
#'
#' With `shuffle`, model A and B are swapped at random in each battle, so neither model
#' always comes first. Everything random depends only on `seed`.
#'
#' @section Differences from the original:
#' The original draws the `n` questions of a pair with replacement from all questions (so a
#' pair can meet twice on one question, or on a question one model never answered); here they
#' are distinct and answerable, with the same preference for rarely used questions. A pair
#' with fewer than `n` such questions gets all it can (the original stopped with an error).
#'
#' @param questions Unique questions (character).
#' @param models Model names (character), or a list as given to [arena_run()].
#' @param n Questions per pair for `"pairs"`: a count, or a named integer vector keyed
#'   `"model_a\rmodel_b"` (models in registration order) giving each pair's count.
#' @param strategy `"pairs"`, `"all"` or `"reload"`.
#' @param available `NULL` (every model can answer every question) or a logical matrix with
#'   one row per question and one column per model.
#' @param existing An earlier arrangement whose pair-question combinations are not repeated.
#' @param path For `"reload"`, the `battle_arrangement.csv` to read.
#' @param shuffle Swap A and B at random per battle.
#' @param seed Random seed; the global random stream is left untouched.
#' @returns A tibble with `question`, `model_a`, `model_b`.
#' @export
#' @examples
#' arena_arrange(c("q1", "q2", "q3"), c("m1", "m2", "m3"), n = 2)
#' arena_arrange(c("q1", "q2"), c("m1", "m2"), strategy = "all")
arena_arrange <- function(questions, models, n = 1, strategy = c("pairs", "all", "reload"),
                          available = NULL, existing = NULL, path = NULL, shuffle = TRUE,
                          seed = 1) {
  strategy <- rlang::arg_match(strategy)
  if (is.list(models)) models <- names(register_models(models))
  if (!is.character(models) || length(models) < 2) {
    abort_pb("{.arg models} must name at least two models.", "argument")
  }
  questions <- unique(as.character(questions))
  check_flag(shuffle)
  if (strategy == "reload") {
    check_string(path)
    out <- arena_read_arrangement(path, models)
    unknown <- setdiff(out$question, questions)
    if (length(unknown)) {
      abort_pb("The arrangement has {length(unknown)} question{?s} that {?is/are} not registered.",
               "question", file = path, row = match(unknown[[1]], out$question),
               field = "question")
    }
    return(out)
  }
  pairs <- utils::combn(models, 2)
  empty <- tibble::tibble(question = character(), model_a = character(), model_b = character())
  with_seed(seed, {
    if (strategy == "all") {
      out <- tibble::tibble(
        question = rep(questions, each = ncol(pairs)),
        model_a = rep(pairs[1, ], length(questions)),
        model_b = rep(pairs[2, ], length(questions))
      )
    } else {
      if (is.null(names(n))) check_count(n, min = 0)
      can <- available %||% matrix(TRUE, length(questions), length(models),
                                   dimnames = list(NULL, models))
      uses <- stats::setNames(numeric(length(questions)), questions)
      met <- character()
      if (!is.null(existing) && nrow(existing)) {
        counted <- table(existing$question)
        hit <- intersect(names(counted), questions)
        uses[hit] <- as.numeric(counted[hit])
        met <- pair_question_key(existing$model_a, existing$model_b, existing$question)
      }
      rows <- list()
      for (p in seq_len(ncol(pairs))) {
        a <- pairs[1, p]
        b <- pairs[2, p]
        want <- if (is.null(names(n))) n else (n[paste(a, b, sep = "\r")] %|NA|% 0)
        if (want <= 0) next
        ok <- can[, a] & can[, b] & !pair_question_key(a, b, questions) %in% met
        pool <- which(ok)
        if (!length(pool)) next
        take <- min(want, length(pool))
        pick <- if (length(pool) == 1) pool else
          sample(pool, take, prob = 1 / (1 + uses[pool]))
        uses[pick] <- uses[pick] + 1
        rows[[length(rows) + 1]] <- tibble::tibble(question = questions[pick], model_a = a,
                                                   model_b = b)
      }
      out <- if (length(rows)) do.call(rbind, rows) else empty
    }
    if (shuffle && nrow(out)) {
      flip <- stats::runif(nrow(out)) > 0.5
      tmp <- out$model_a[flip]
      out$model_a[flip] <- out$model_b[flip]
      out$model_b[flip] <- tmp
    }
    out
  })
}

pair_question_key <- function(a, b, question) {
  paste(pmin(a, b), pmax(a, b), question, sep = "\r")
}

# ---- Answers -------------------------------------------------------------------------------

#' Generate the answers the arena needs, and only those
#'
#' @description
#' `arena_answers()` fills the answer cache `q_and_as.csv` in `cache_dir`: for each model
#' given as a chat, it sends the questions that have no answer yet through
#' [generate_responses()] (response cache, retries, failure isolation) and rewrites the file
#' atomically after every chunk, so an interrupted run keeps what it got. A failed request
#' leaves `NaN` (not generated) and is tried again next time; a real empty answer (`""`) is
#' kept and never asked for again. Models given by name only must already have their answers
#' in the file. One model is enough here (battles need two, answers do not).
#'
#' @param questions Questions to answer.
#' @param models A named list of chats (or `NULL` elements, or a character vector) as for
#'   [arena_run()].
#' @param cache_dir The folder holding `q_and_as.csv`.
#' @param chunk_size Questions per request batch between two writes of the file.
#' @inheritParams generate_responses
#' @returns The answers: a tibble with `question` and one column per model (`NA` = none).
#' @export
#' @examples
#' dir <- tempfile()
#' models <- list(echo = baseline_chat(function(q) paste("You asked:", q), "echo"),
#'                short = baseline_constant("Yes."))
#' arena_answers(c("Why is the sky blue?", "Is water wet?"), models, dir, cache = FALSE)
#' list.files(dir)
arena_answers <- function(questions, models, cache_dir, cache = TRUE, chunk_size = 20,
                          max_active = 10, rpm = 500, max_tries = 3) {
  models <- register_models(models, min = 1)
  check_string(cache_dir)
  check_count(chunk_size)
  path <- file.path(cache_dir, "q_and_as.csv")
  answers <- if (file.exists(path)) arena_read_answers(path) else
    tibble::tibble(question = character())
  answers <- answers_for(answers, unique(as.character(questions)), names(models))
  for (name in names(models)) {
    chat <- models[[name]]
    if (is.null(chat)) next
    rows <- which(answers$question %in% questions & is.na(answers[[name]]))
    for (chunk in split(rows, ceiling(seq_along(rows) / chunk_size))) {
      res <- generate_responses(chat, answers$question[chunk], cache = cache,
                                max_active = max_active, rpm = rpm, max_tries = max_tries,
                                epoch = 1L, key_extra = "arena-answer-v1")
      answers[[name]][chunk] <- res$result
      write_answers(answers, path)
    }
  }
  if (!file.exists(path)) write_answers(answers, path)
  answers
}

answers_for <- function(answers, questions, models) {
  new <- setdiff(questions, answers$question)
  if (length(new)) {
    extra <- tibble::tibble(question = new)
    for (name in setdiff(names(answers), "question")) extra[[name]] <- NA_character_
    answers <- rbind(answers, extra)
  }
  for (name in setdiff(models, names(answers))) answers[[name]] <- NA_character_
  answers
}

write_answers <- function(answers, path) {
  out <- answers
  for (name in setdiff(names(out), "question")) out[[name]][is.na(out[[name]])] <- "NaN"
  write_arena_csv(out, path)
}

#' Battles ready to judge
#'
#' `arena_battles()` joins an arrangement with the answers and builds each battle's judge
#' prompt: the dataset of the judging [arena_task()]. Battles where either answer is missing
#' are left out with a message; a model in the arrangement without an answer column is an
#' error.
#'
#' @param arrangement A tibble `question, model_a, model_b` ([arena_arrange()]).
#' @param answers A tibble `question` + one column per model ([arena_answers()]).
#' @param version Judge prompt version, see [arena_judge_prompt()].
#' @returns A tibble with `id`, `input` (the judge's user message), `target` (empty),
#'   `question`, `model_a`, `model_b`, `answer_a`, `answer_b`.
#' @export
#' @examples
#' answers <- tibble::tibble(question = c("q1", "q2"), m1 = c("a", "b"), m2 = c("c", NA))
#' arrangement <- tibble::tibble(question = c("q1", "q2"), model_a = "m1", model_b = "m2")
#' arena_battles(arrangement, answers)
arena_battles <- function(arrangement, answers, version = c("231225", "231113")) {
  version <- rlang::arg_match(version)
  check_registered(arrangement, setdiff(names(answers), "question"))
  row <- match(arrangement$question, answers$question)
  pick <- function(models) {
    vapply(seq_along(row), function(i) {
      if (is.na(row[[i]])) NA_character_ else answers[[models[[i]]]][[row[[i]]]]
    }, "")
  }
  answer_a <- pick(arrangement$model_a)
  answer_b <- pick(arrangement$model_b)
  ok <- !is.na(answer_a) & !is.na(answer_b)
  if (any(!ok)) {
    cli::cli_inform("{sum(!ok)} battle{?s} without both answers {?is/are} left out.",
                    class = "predictivebench_message_skipped")
  }
  out <- tibble::tibble(question = arrangement$question[ok], model_a = arrangement$model_a[ok],
                        model_b = arrangement$model_b[ok], answer_a = answer_a[ok],
                        answer_b = answer_b[ok])
  prompts <- arena_judge_prompt(out$question, out$answer_a, out$answer_b, version)$user
  if (!nrow(out)) prompts <- character()
  tibble::tibble(id = sprintf("battle-%d", seq_len(nrow(out))), input = prompts, target = "",
                 out)
}

# ---- Judging as a vitals Task --------------------------------------------------------------

#' The arena's judging as a vitals Task
#'
#' @description
#' Each sample is a battle: a question and the answers of `model_a` and `model_b`. The
#' solver sends EloBench's judge prompt ([arena_judge_prompt()]) to the judge chat
#' (`$eval(solver_chat = judge)`) at temperature 0 with at most 800 tokens, through
#' [generate_responses()], and parses the verdict ([arena_parse_verdict()]). The scorer gives
#' `model_a`'s points (1, 0 or 0.5). [arena_summary()] turns the judged battles into ratings.
#' For the whole workflow (answers, arrangement, rounds, files), use [arena_run()].
#'
#' * `arena_solver()` judges only battles missing from the battle cache `records` (a
#'   `battle_records.csv`), and appends each chunk's verdicts to it atomically, so a run
#'   killed while judging loses at most one chunk and re-judges nothing already recorded.
#'   A cached verdict is used only when its `judger` is this judge's model and its prompt
#'   version matches (written into `gpt_4_response`; for the original's records, told by the
#'   verdict's format: scores for `"231113"`, a JSON winner for `"231225"`).
#' * With `position_swap = TRUE` each battle is judged in both orders, and a verdict counts
#'   only when both agree (a disagreement is a tie): the usual cure for a judge's preference
#'   for the first answer. Both orders are recorded in the cache.
#' * Inputs are mapped to battles by position, not by prompt text, so two battles with the
#'   same prompt (the same question and answers from different models) each keep their own
#'   models and cache record, also with `$eval(epochs = )` > 1 (every epoch of a battle reuses
#'   its one recorded verdict).
#'
#' @section Differences from the original:
#' * The original cached verdicts by question and models only, so a second judge (or a new
#'   prompt) silently reused the first judge's verdicts; here the judge model (the `judger`
#'   column) and the prompt version are part of the key.
#' * A failed request is recorded with an empty winner (the original retried forever) and
#'   judged again on the next run. A response with no readable verdict is `invalid`; with the
#'   older score format the original left the winner empty instead.
#' * The original asked for `response_format = json_object`; ellmer has no portable switch for
#'   it, so a JSON verdict inside a code fence or surrounded by text is also accepted.
#' * `gpt_4_response` is written as JSON (`{"is_valid", "response", "usage"}`) rather than
#'   a Python dict; both are read.
#' * `position_swap` is new.
#'
#' @param battles Battles from [arena_battles()]; by default the bundled sample (four
#'   fictional models on eight questions).
#' @param records A `battle_records.csv` used as the battle cache, or `NULL` for none.
#' @param version Judge prompt version: `"231225"` (JSON verdict) or `"231113"` (scores).
#' @param position_swap Judge both orders and keep consistent verdicts.
#' @param chunk_size Battles judged between two writes of `records`. The whole file is
#'   rewritten (atomically) each time, so with tens of thousands of records a larger chunk
#'   saves time; a killed run loses at most one chunk. One process at a time should write a
#'   given `records` file.
#' @param invalid For the scorer and summary: failed judgements count as a `"tie"` (the
#'   original) or are dropped (`"drop"`, score `NA`).
#' @param dir,name Where vitals writes logs, and the task's name.
#' @param x An evaluated arena task, its samples, or a data frame of battles.
#' @param ... Passed to [arena_ratings()].
#' @inheritParams generate_responses
#' @returns `arena_task()` a [vitals::Task]; `arena_solver()`/`arena_scorer()` functions for
#'   it; `arena_summary()` an [arena_ratings()] tibble.
#' @export
#' @examples
#' judge <- arena_baseline_judge("longer") # offline; use a real chat for real ratings
#' tsk <- arena_task(cache = FALSE, dir = tempfile())
#' tsk$eval(solver_chat = judge, view = FALSE)
#' arena_summary(tsk, bootstrap = 100)
arena_task <- function(battles = arena_sample_battles(), records = NULL,
                       version = c("231225", "231113"), position_swap = FALSE,
                       invalid = c("tie", "drop"), cache = TRUE, chunk_size = 20,
                       max_active = 10, rpm = 500, max_tries = 3,
                       dir = vitals::vitals_log_dir(), name = "arena") {
  version <- rlang::arg_match(version)
  invalid <- rlang::arg_match(invalid)
  needed <- c("input", "question", "model_a", "model_b", "answer_a", "answer_b")
  if (!is.data.frame(battles) || !all(needed %in% names(battles))) {
    abort_pb("{.arg battles} must come from {.fn arena_battles}.", "argument")
  }
  if (!"target" %in% names(battles)) battles$target <- ""
  solver <- arena_solver(battles, records = records, version = version,
                         position_swap = position_swap, cache = cache, chunk_size = chunk_size,
                         max_active = max_active, rpm = rpm, max_tries = max_tries)
  vitals::Task$new(dataset = battles, solver = solver, scorer = arena_scorer(invalid),
                   name = name, dir = dir)
}

#' @rdname arena_task
#' @export
arena_solver <- function(battles, records = NULL, version = c("231225", "231113"),
                         position_swap = FALSE, cache = TRUE, chunk_size = 20,
                         max_active = 10, rpm = 500, max_tries = 3) {
  version <- rlang::arg_match(version)
  check_string(records, allow_null = TRUE)
  check_flag(position_swap)
  check_count(chunk_size)
  cache_dir(cache)
  force(battles)
  function(inputs, ..., solver_chat) {
    solver_chat <- as_chat(solver_chat)
    rows <- battle_rows(inputs, battles)
    judged <- judge_battles(battles[rows, ], solver_chat, records = records, version = version,
                            position_swap = position_swap, cache = cache,
                            chunk_size = chunk_size, max_active = max_active, rpm = rpm,
                            max_tries = max_tries)
    warn_failures(ifelse(is.na(judged$winner),
                         ifelse(is.na(judged$error), "no verdict", judged$error), NA))
    list(
      result = judged$gpt_4_response_text,
      solver_chat = judged$chat,
      solver_metadata = lapply(seq_len(nrow(judged)), function(i) {
        list(winner = judged$winner[[i]], winner_ab = judged$winner_ab[[i]],
             winner_ba = judged$winner_ba[[i]], judger = judged$judger[[i]],
             cached = judged$cached[[i]], error = judged$error[[i]],
             model_a = judged$model_a[[i]], model_b = judged$model_b[[i]],
             question = judged$question[[i]], gpt_4_score = judged$gpt_4_score[[i]],
             gpt_4_response = judged$gpt_4_response[[i]], tstamp = judged$tstamp[[i]])
      })
    )
  }
}

# The battle behind each input. vitals 0.4.0 passes the dataset's inputs in order with each
# sample repeated `epochs` times in a row (`join_epochs()`: `rep(id, each = epochs)`), so
# rows are taken by position and two battles with the same prompt (same question and
# answers, different models) each keep their own models and verdict. The other layout
# (the dataset repeated per epoch) is accepted when the texts say so. Matching by text is
# the last resort, for inputs that are not the whole dataset, and refuses a prompt shared by
# several battles, which it could not tell apart.
battle_rows <- function(inputs, battles, call = rlang::caller_env()) {
  inputs <- unname(as.character(inputs))
  n <- nrow(battles)
  if (n && length(inputs) && length(inputs) %% n == 0) {
    epochs <- length(inputs) %/% n
    for (rows in list(rep(seq_len(n), each = epochs), rep(seq_len(n), times = epochs))) {
      if (identical(inputs, battles$input[rows])) return(rows)
    }
  }
  rows <- match(inputs, battles$input)
  shared <- unique(battles$input[duplicated(battles$input)])
  if (anyNA(rows) || any(inputs %in% shared)) {
    abort_pb(
      c("The judging solver got inputs it can't map to its battles.",
        i = "Evaluate the task made by {.fn arena_task} on its own dataset."),
      "argument", call = call
    )
  }
  rows
}

#' @rdname arena_task
#' @export
arena_scorer <- function(invalid = c("tie", "drop")) {
  invalid <- rlang::arg_match(invalid)
  function(samples, ...) {
    meta <- samples$solver_metadata
    winner <- vapply(meta, function(m) m$winner %||% NA_character_, "")
    failed <- is.na(winner) | winner == "invalid"
    score <- ifelse(winner %in% "model_a", 1, ifelse(winner %in% "model_b", 0, 0.5))
    score[failed] <- if (invalid == "tie") 0.5 else NA_real_
    list(score = score,
         scorer_metadata = lapply(winner, function(w) list(winner = w)),
         explanation = ifelse(is.na(winner), "judgement failed", winner))
  }
}

#' @rdname arena_task
#' @export
arena_summary <- function(x, invalid = c("tie", "drop"), ...) {
  invalid <- rlang::arg_match(invalid)
  arena_ratings(arena_outcomes(x), invalid = invalid, ...)
}

arena_outcomes <- function(x) {
  if (inherits(x, "Task")) x <- x$get_samples()
  if (!is.data.frame(x)) {
    abort_pb("{.arg x} must be an evaluated arena task, its samples, or battles.", "argument")
  }
  if ("solver_metadata" %in% names(x)) {
    winner <- vapply(x$solver_metadata, function(m) m$winner %||% NA_character_, "")
    return(tibble::tibble(model_a = x$model_a, model_b = x$model_b, winner = winner,
                          question = x$question))
  }
  x
}

# Judge battles (a tibble from arena_battles()), using and extending the battle cache.
judge_battles <- function(battles, chat, records = NULL, version = "231225",
                          position_swap = FALSE, cache = TRUE, chunk_size = 20,
                          max_active = 10, rpm = 500, max_tries = 3) {
  judger <- chat$get_model()
  prompt <- arena_judge_prompt("", "", "", version)
  judge <- configure_chat(chat, prompt$system, list(temperature = 0, max_tokens = 800))
  n <- nrow(battles)
  # Requests: each battle in its own order, and swapped.
  req <- tibble::tibble(battle = seq_len(n), swapped = FALSE, question = battles$question,
                        model_a = battles$model_a, model_b = battles$model_b,
                        answer_a = battles$answer_a, answer_b = battles$answer_b,
                        input = battles$input)
  if (position_swap && n) {
    rev <- tibble::tibble(battle = seq_len(n), swapped = TRUE, question = battles$question,
                          model_a = battles$model_b, model_b = battles$model_a,
                          answer_a = battles$answer_b, answer_b = battles$answer_a,
                          input = arena_judge_prompt(battles$question, battles$answer_b,
                                                     battles$answer_a, version)$user)
    req <- rbind(req, rev)
  }
  key <- record_key(req$question, req$model_a, req$model_b, judger, version)
  store <- if (!is.null(records) && file.exists(records)) read_battle_cache(records) else
    empty_records()
  store_key <- store_keys(store)
  usable <- !is.na(store$winner)
  hit <- match(key, store_key[usable])
  cached <- !is.na(hit)
  rec <- store[usable, ][hit, ]
  rec$cached <- cached
  rec$error <- rep(NA_character_, nrow(rec))
  todo <- which(!cached)
  # Identical requests (same battle twice) are judged once.
  todo <- todo[!duplicated(key[todo])]
  for (chunk in split(todo, ceiling(seq_along(todo) / chunk_size))) {
    res <- generate_responses(judge, req$input[chunk], cache = cache, max_active = max_active,
                              rpm = rpm, max_tries = max_tries, epoch = 1L,
                              key_extra = paste0("arena-judge-", version))
    verdict <- arena_parse_verdict(res$result)
    now <- format(Sys.time(), "%Y-%m-%d %H:%M:%OS6")
    new <- tibble::tibble(
      model_a = req$model_a[chunk], model_b = req$model_b[chunk], winner = verdict$winner,
      judger = judger, tstamp = now, question = req$question[chunk],
      answer_a = req$answer_a[chunk], answer_b = req$answer_b[chunk],
      gpt_4_response = response_json(res, version), gpt_4_score = verdict$gpt_4_score,
      is_valid = !is.na(res$result)
    )
    for (j in seq_along(chunk)) {
      same <- which(key == key[[chunk[[j]]]])
      rec[same, battle_record_columns] <- new[j, battle_record_columns]
      rec$error[same] <- res$error[[j]]
    }
    if (!is.null(records)) {
      store_key <- store_keys(store)
      new_key <- store_keys(new)
      # A failed verdict is replaced when the battle is judged again.
      store <- rbind(store[!(store_key %in% new_key & is.na(store$winner)), ],
                     new[!(new_key %in% store_key[!is.na(store$winner)]), ])
      write_battle_cache(store, records)
    }
  }
  if (!is.null(records) && !file.exists(records)) write_battle_cache(store, records)
  text <- vapply(rec$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  ab <- seq_len(n)
  winner_ab <- rec$winner[ab]
  winner_ba <- rep(NA_character_, n)
  winner <- winner_ab
  if (position_swap && n) {
    winner_ba <- swap_winner(rec$winner[n + ab])
    winner <- combine_swapped(winner_ab, winner_ba)
  }
  chats <- lapply(ab, function(i) {
    assistant <- if (is.na(text[[i]])) empty_turn() else
      ellmer::AssistantTurn(contents = list(ellmer::ContentText(text[[i]])))
    judge$clone()$set_turns(list(user_turn_of(req$input[[i]]), assistant))
  })
  tibble::tibble(
    question = battles$question, model_a = battles$model_a, model_b = battles$model_b,
    winner = winner, winner_ab = winner_ab, winner_ba = winner_ba, judger = judger,
    tstamp = rec$tstamp[ab], answer_a = battles$answer_a, answer_b = battles$answer_b,
    gpt_4_response = rec$gpt_4_response[ab], gpt_4_response_text = text[ab],
    gpt_4_score = rec$gpt_4_score[ab], is_valid = !is.na(winner),
    cached = if (position_swap && n) rec$cached[ab] & rec$cached[n + ab] else rec$cached[ab],
    error = rec$error[ab], chat = chats
  )
}

record_key <- function(question, model_a, model_b, judger, version) {
  paste(question, model_a, model_b, judger, version, sep = "\r")
}

store_keys <- function(records) {
  record_key(records$question, records$model_a, records$model_b, records$judger,
             record_version(records$gpt_4_response))
}

# The judge prompt version of recorded verdicts: written into gpt_4_response here; for the
# original's records, told by the verdict's format (scores: 231113, JSON winner: 231225).
record_version <- function(response) {
  response <- as.character(response)
  out <- rep(NA_character_, length(response))
  tagged <- regmatches(response, regexec('"prompt_version":\\s*"([^"]+)"', response))
  out <- vapply(tagged, function(m) if (length(m) == 2) m[[2]] else NA_character_, "")
  untagged <- is.na(out) & !is.na(response)
  score <- grepl("Score (of|for) Model [12]:", response, perl = TRUE)
  json <- grepl("winner", response, fixed = TRUE)
  out[untagged & score] <- "231113"
  out[untagged & !score & json] <- "231225"
  out
}

empty_records <- function() {
  out <- tibble::as_tibble(stats::setNames(
    rep(list(character()), length(battle_record_columns)), battle_record_columns
  ))
  out$is_valid <- logical()
  out
}

read_battle_cache <- function(path) {
  data <- read_arena_csv(path, battle_record_columns, "battle cache")
  data$winner <- normalize_winner(data$winner, file = path)
  data$is_valid <- toupper(data$is_valid) %in% c("TRUE", "1")
  data[battle_record_columns]
}

write_battle_cache <- function(records, path) {
  write_arena_csv(records[battle_record_columns], path)
}

response_json <- function(res, version) {
  vapply(seq_len(nrow(res)), function(i) {
    as.character(jsonlite::toJSON(list(
      is_valid = !is.na(res$result[[i]]),
      response = res$result[[i]] %|NA|% "",
      prompt_version = version,
      usage = list(completion_tokens = res$output_tokens[[i]],
                   prompt_tokens = res$input_tokens[[i]]),
      error = res$error[[i]]
    ), auto_unbox = TRUE, null = "null", na = "null"))
  }, "")
}

#' @rdname arena_judge_prompt
#' @param record A `gpt_4_response` value from `battle_records.csv`: JSON (as written here)
#'   or a Python dict (as written by the original).
#' @export
arena_response_text <- function(record) {
  if (length(record) != 1 || is.na(record) || !nzchar(record)) return(NA_character_)
  parsed <- tryCatch(jsonlite::parse_json(record), error = function(e) NULL)
  if (is.list(parsed) && !is.null(parsed$response)) {
    if (isFALSE(parsed$is_valid) && !nzchar(parsed$response)) return(NA_character_)
    return(parsed$response)
  }
  start <- regexpr("['\"]response['\"]:\\s*", record, perl = TRUE)
  if (start < 0) return(record)
  python_string_literal(substr(record, start + attr(start, "match.length"), nchar(record))) %||%
    record
}

arena_sample_dir <- function() system.file("extdata", "arena", package = "predictivebench")

arena_sample_battles <- function() {
  dir <- arena_sample_dir()
  answers <- arena_read_answers(file.path(dir, "tempcache", "sample", "q_and_as.csv"))
  arrangement <- arena_read_arrangement(
    file.path(dir, "results", "sample", "battle_arrangement.csv"),
    models = setdiff(names(answers), "question")
  )
  arena_battles(arrangement, answers)
}

#' The arena's question table
#'
#' `arena_dataset()` reads the unique questions of an arena dataset: a task table (parquet,
#' schema `arena`, made by [prepare_arena()]) or a `questions.csv` read directly. By default,
#' the bundled sample. `prepare_arena()` runs the Python flattener on a `questions.csv`.
#'
#' @param path A parquet task table, a `questions.csv`, or `NULL` for the sample.
#' @param source A `questions.csv` (column `question`).
#' @param out The parquet file to write, or `NULL` to return the table.
#' @returns A tibble with `id`, `input` (the question), `target` (missing), `occurrences`
#'   and `first_row` (1-based row of its first occurrence). `prepare_arena()` returns `out`
#'   invisibly, or the table.
#' @export
#' @examples
#' arena_dataset()
arena_dataset <- function(path = NULL) {
  if (is.null(path)) path <- file.path(arena_sample_dir(), "data", "sample", "questions.csv")
  if (is.data.frame(path)) return(validate_task_table(path, "arena"))
  check_string(path)
  if (grepl("\\.parquet$", path)) return(read_task_table(path, "arena"))
  data <- read_arena_csv(path, "question", "question file")
  q <- data$question
  keep <- !is.na(q)
  first <- which(keep & !duplicated(q))
  tibble::tibble(
    id = sprintf("q%d", seq_along(first)),
    input = q[first],
    target = NA_character_,
    occurrences = as.integer(table(factor(q[keep], levels = q[first]))),
    first_row = as.integer(first)
  )
}

#' @rdname arena_dataset
#' @export
#' @examplesIf python_available()
#' src <- system.file("extdata", "arena", "data", "sample", "questions.csv",
#'                    package = "predictivebench")
#' prepare_arena(src)
prepare_arena <- function(source, out = NULL) {
  prepare_task_table("arena", source, out = out)
}

# ---- The whole workflow --------------------------------------------------------------------

#' Run an Elo arena: answers, judging in rounds, ratings, and EloBench's files
#'
#' @description
#' `arena_run()` is EloBench's pipeline in one call. Inside `dir` it reads
#' `data/<dataset>/questions.csv`, and writes:
#'
#' * `tempcache/<dataset>/<judge setting>/`: the caches reusable across experiments,
#'   `q_and_as.csv` (answers) and `battle_records.csv` (verdicts). The judge setting is the
#'   judge's model and the prompt version, so another judge never reuses these verdicts. A new
#'   setting starts from the answers in `tempcache/<dataset>/q_and_as.csv` when that file
#'   exists (the original's layout), so answers made by the original are reused; to reuse an
#'   original `battle_records.csv`, copy it into the setting's folder (its `judger` column
#'   must name the judge's model).
#' * `results/<experiment>/`: `questions.csv`, `models.csv`, `battle_arrangement.csv`,
#'   `battle_records.csv`, `battle_outcomes.csv` (`model_a, model_b, winner` without failed
#'   judgements), `elo_rating.csv` (`model, elo_rating, rank`) and the vitals logs (`logs/`).
#'
#' Each round arranges battles ([arena_arrange()]: for every pair still short of `n`
#' decisive (non-tie) battles, that many new questions), generates only the missing answers
#' ([arena_answers()]), and judges only the battles not yet in the battle cache (an
#' [arena_task()]). Rounds repeat until every pair has `n` decisive battles, no pair can get a
#' new question, or `max_rounds` is reached. Every file is written atomically after each
#' chunk, so a killed run resumes where it stopped.
#'
#' Nothing stops silently: a model given by name only that has no cached answer to any of
#' the questions is an error (class `predictivebench_error_answers`, naming the models)
#' before anything is arranged; a pair that gets no battle in a round is a warning
#' (`predictivebench_warning_no_battles`); and with `strategy = "pairs"`, pairs still short
#' of `n` decisive battles at the end (because of `max_rounds` or because no question is
#' left) are named in a warning (`predictivebench_warning_short_pairs`).
#'
#' @section Differences from the original:
#' * Answers are the model's reply to the question sent as one user message (the original
#'   used its own prompt template per local model).
#' * Rounds, the pair-wise stopping rule and `position_swap` are new; one round with
#'   `strategy = "pairs"` is the original's `Random_N_BattleCount_Each_CombPair`.
#' * `elo_rating.csv` has the columns `model, elo_rating, rank` with decimals (the
#'   original's ratings were rounded, with columns `Model, Elo Rating`).
#' See also [arena_task()] and [arena_arrange()].
#'
#' @param dir The arena folder; nothing is written outside it.
#' @param dataset Name of the folder `data/<dataset>` holding `questions.csv`.
#' @param experiment Name of the results folder.
#' @param models A named list of ellmer chats (their answers are generated) and/or names
#'   whose answers are already in `q_and_as.csv` (a character vector, or `NULL` elements).
#' @param judge The judge, an ellmer chat.
#' @param n Decisive battles wanted per pair (`"pairs"`); questions per pair per round.
#' @param strategy `"pairs"`, `"all"` (every pair on every question, one round) or `"reload"`
#'   (the `battle_arrangement.csv` already in the results folder, or `arrangement`).
#' @param arrangement For `"reload"`, another arrangement file to use.
#' @param max_rounds Most rounds.
#' @param rating_method,bootstrap How `elo_rating.csv` is computed; see [arena_ratings()].
#'   The default is EloBench's online Elo in file order.
#' @param seed Seed for arrangements and bootstrap.
#' @param cache The response cache; by default `tempcache/responses` inside `dir`.
#' @param answer_chunk_size,judge_chunk_size Requests between two writes of the caches.
#' @inheritParams arena_task
#' @returns An object of class `arena_run`: a list with `ratings` ([arena_ratings()]),
#'   `records` (this experiment's battle records), `arrangement`, `answers`, `rounds` and
#'   `paths`.
#' @export
#' @examples
#' dir <- tempfile("arena-")
#' dir.create(file.path(dir, "data", "demo"), recursive = TRUE)
#' write.csv(data.frame(question = c("Name a fruit.", "Name a colour.", "Name a fruit.",
#'                                   "Say hello.")),
#'           file.path(dir, "data", "demo", "questions.csv"), row.names = FALSE)
#' models <- list(
#'   verbose = baseline_chat(function(q) paste("Here is a long and careful answer to:", q),
#'                           "verbose"),
#'   terse = baseline_chat(function(q) "Ok.", "terse"),
#'   silent = baseline_chat(function(q) "", "silent")
#' )
#' judge <- arena_baseline_judge("longer")
#' run <- arena_run(dir, "demo", "exp1", models, judge, n = 2, bootstrap = 100)
#' run$ratings
#' list.files(file.path(dir, "results", "exp1"))
arena_run <- function(dir, dataset, experiment, models, judge, n = 1,
                      strategy = c("pairs", "all", "reload"), arrangement = NULL,
                      version = c("231225", "231113"), position_swap = FALSE,
                      max_rounds = 10, invalid = c("tie", "drop"),
                      rating_method = c("elo", "bt", "elo_median"), bootstrap = 1000,
                      seed = 1, cache = file.path(dir, "tempcache", "responses"),
                      answer_chunk_size = 20, judge_chunk_size = 20, max_active = 10,
                      rpm = 500, max_tries = 3) {
  check_string(dir)
  check_path_name(dataset)
  check_path_name(experiment)
  judge <- as_chat(judge)
  check_count(n)
  check_count(max_rounds)
  strategy <- rlang::arg_match(strategy)
  version <- rlang::arg_match(version)
  invalid <- rlang::arg_match(invalid)
  rating_method <- rlang::arg_match(rating_method)
  models <- register_models(models)
  model_names <- names(models)

  questions <- arena_read_questions(file.path(dir, "data", dataset, "questions.csv"))
  setting <- paste0(slug(judge$get_model()), "_", version)
  cache_folder <- file.path(dir, "tempcache", dataset, setting)
  results <- file.path(dir, "results", experiment)
  paths <- list(
    answers = file.path(cache_folder, "q_and_as.csv"),
    records_cache = file.path(cache_folder, "battle_records.csv"),
    questions = file.path(results, "questions.csv"),
    models = file.path(results, "models.csv"),
    arrangement = file.path(results, "battle_arrangement.csv"),
    records = file.path(results, "battle_records.csv"),
    outcomes = file.path(results, "battle_outcomes.csv"),
    ratings = file.path(results, "elo_rating.csv"),
    logs = file.path(results, "logs")
  )
  write_arena_csv(tibble::tibble(question = questions), paths$questions)
  write_arena_csv(tibble::tibble(model = model_names), paths$models)
  dir.create(paths$logs, recursive = TRUE, showWarnings = FALSE)

  # The original kept one answer cache per dataset (`tempcache/<dataset>/q_and_as.csv`);
  # a new judge setting starts from it when it exists.
  shared_answers <- file.path(dir, "tempcache", dataset, "q_and_as.csv")
  if (!file.exists(paths$answers) && file.exists(shared_answers)) {
    dir.create(cache_folder, recursive = TRUE, showWarnings = FALSE)
    file.copy(shared_answers, paths$answers)
  }
  answers <- if (file.exists(paths$answers)) arena_read_answers(paths$answers) else
    tibble::tibble(question = character())
  answers <- answers_for(answers, questions, model_names)
  check_cached_answers(models, answers, questions, paths$answers)

  arranged <- tibble::tibble(question = character(), model_a = character(),
                             model_b = character())
  records <- empty_records()[0, ]
  rounds <- 0L
  stopped <- "max_rounds"
  for (round in seq_len(max_rounds)) {
    available <- vapply(model_names, function(m) {
      if (!is.null(models[[m]])) rep(TRUE, length(questions)) else
        !is.na(answers[[m]][match(questions, answers$question)])
    }, logical(length(questions)))
    available <- matrix(available, nrow = length(questions),
                        dimnames = list(NULL, model_names))
    new <- if (strategy == "reload") {
      arena_arrange(questions, model_names, strategy = "reload",
                    path = arrangement %||% paths$arrangement)
    } else if (strategy == "all") {
      arena_arrange(questions, model_names, strategy = "all", seed = seed + round)
    } else {
      need <- pair_needs(records, model_names, n)
      if (!length(need)) {
        stopped <- "done"
        break
      }
      arena_arrange(questions, model_names, n = need, available = available,
                    existing = arranged, seed = seed + round)
    }
    if (!nrow(new)) {
      stopped <- "no_question"
      break
    }
    rounds <- rounds + 1L
    arranged <- rbind(arranged, new)
    write_arena_csv(arranged, paths$arrangement)

    answers <- arena_answers(unique(new$question), models, cache_folder, cache = cache,
                             chunk_size = answer_chunk_size, max_active = max_active,
                             rpm = rpm, max_tries = max_tries)
    battles <- arena_battles(new, answers, version)
    wanted <- if (strategy == "pairs") names(need) else
      if (strategy == "all") pair_keys(NULL, NULL, model_names) else
        unique(pair_keys(new$model_a, new$model_b, model_names))
    warn_pairs_without_battles(setdiff(wanted, pair_keys(battles$model_a, battles$model_b,
                                                         model_names)), round)
    if (nrow(battles)) {
      task <- arena_task(battles, records = paths$records_cache, version = version,
                         position_swap = position_swap, invalid = invalid, cache = cache,
                         chunk_size = judge_chunk_size, max_active = max_active, rpm = rpm,
                         max_tries = max_tries, dir = paths$logs,
                         name = paste0("arena-", experiment))
      suppressWarnings(task$eval(solver_chat = judge, view = FALSE),
                       classes = "predictivebench_warning_failed_requests")
      samples <- task$get_samples()
      judged <- experiment_records(samples, battles)
      records <- rbind(records, judged)
      write_arena_csv(records, paths$records)
      write_arena_csv(outcomes_of(records), paths$outcomes)
    }
    if (strategy != "pairs") break
  }
  if (strategy == "pairs") warn_short_pairs(records, model_names, n, stopped, max_rounds)
  failed <- sum(is.na(records$winner))
  if (failed) {
    cli::cli_warn(c("{failed} judgement{?s} failed; run {.fn arena_run} again to retry.",
                    i = "Verdicts already recorded are not requested again."),
                  class = "predictivebench_warning_failed_requests")
  }
  ratings <- NULL
  if (nrow(records)) {
    ratings <- arena_ratings(records, method = rating_method, bootstrap = bootstrap,
                             invalid = invalid, seed = seed)
    write_arena_csv(tibble::tibble(model = ratings$model, elo_rating = ratings$rating,
                                   rank = ratings$rank), paths$ratings)
  }
  structure(list(ratings = ratings, records = records, arrangement = arranged,
                 answers = answers, rounds = rounds, paths = paths),
            class = "arena_run")
}

#' @export
print.arena_run <- function(x, ...) {
  cli::cat_line(cli::format_inline(
    "{.strong Arena run}: {x$rounds} round{?s}, {nrow(x$records)} battle{?s}, ",
    "{sum(is.na(x$records$winner))} failed."
  ))
  if (!is.null(x$ratings)) print(x$ratings, ...)
  invisible(x)
}

experiment_records <- function(samples, battles) {
  meta <- samples$solver_metadata
  get <- function(field) vapply(meta, function(m) m[[field]] %||% NA_character_, "")
  tibble::tibble(
    model_a = samples$model_a, model_b = samples$model_b, winner = get("winner"),
    judger = get("judger"), tstamp = get("tstamp"), question = samples$question,
    answer_a = samples$answer_a, answer_b = samples$answer_b,
    gpt_4_response = get("gpt_4_response"),
    gpt_4_score = get("gpt_4_score"),
    is_valid = !is.na(get("winner")) & get("winner") != "invalid"
  )
}

outcomes_of <- function(records) {
  ok <- !is.na(records$winner) & records$winner != "invalid"
  records[ok, c("model_a", "model_b", "winner")]
}

# Per pair (in registration order), how many more decisive battles are wanted.
pair_needs <- function(records, models, n) {
  keys <- pair_keys(NULL, NULL, models)
  decisive <- !is.na(records$winner) & records$winner %in% c("model_a", "model_b")
  have <- table(factor(pair_keys(records$model_a, records$model_b, models)[decisive],
                       levels = keys))
  need <- n - as.integer(have)
  stats::setNames(need, keys)[need > 0]
}

# A pair's key, `"first\rsecond"` in registration order; with `a = NULL`, every pair's.
pair_keys <- function(a, b, models) {
  if (is.null(a)) {
    pairs <- utils::combn(models, 2)
    return(paste(pairs[1, ], pairs[2, ], sep = "\r"))
  }
  if (!length(a)) return(character())
  swap <- match(a, models) > match(b, models)
  paste(ifelse(swap, b, a), ifelse(swap, a, b), sep = "\r")
}

pair_labels <- function(keys) sub("\r", " vs ", keys, fixed = TRUE)

# Models given by name only battle on their cached answers; one without an answer to any
# registered question could never battle, and the run would end with nothing to show.
check_cached_answers <- function(models, answers, questions, file,
                                 call = rlang::caller_env()) {
  name_only <- names(models)[vapply(models, is.null, TRUE)]
  rows <- match(questions, answers$question)
  none <- name_only[vapply(name_only, function(m) all(is.na(answers[[m]][rows])), TRUE)]
  if (length(none)) {
    abort_pb(
      c("{cli::qty(length(none))}Model{?s} {.val {none}} {?has/have} no cached answer to the
         registered questions, so {?it/they} can't battle.",
        i = "{cli::qty(length(none))}Give {?it/them} as an ellmer chat to generate answers,
             or put {?its/their} answers in the answer cache."),
      "answers", file = file, field = none[[1]], call = call
    )
  }
  invisible()
}

warn_pairs_without_battles <- function(keys, round) {
  if (!length(keys)) return(invisible())
  labels <- pair_labels(keys)
  cli::cli_warn(
    c("Round {round}: {length(keys)} pair{?s} got no battle: {.val {labels}}.",
      i = "A battle needs a question both models answered that the pair has not met on;
           failed answers are asked for again on the next run."),
    class = "predictivebench_warning_no_battles"
  )
}

# After the rounds: the pairs still short of `n` decisive battles, and why.
warn_short_pairs <- function(records, models, n, stopped, max_rounds) {
  need <- pair_needs(records, models, n)
  if (!length(need)) return(invisible())
  labels <- sprintf("%s (%d of %d)", pair_labels(names(need)), n - need, n)
  why <- if (stopped == "max_rounds") {
    c(i = "{.fn arena_run} stopped at {.arg max_rounds} = {max_rounds}; raise it (the caches
           keep every battle so far) to continue.")
  } else {
    c(i = "No question is left that both models answered and the pair has not met on.")
  }
  cli::cli_warn(
    c("{length(need)} pair{?s} {?has/have} fewer than {n} decisive (non-tie) battle{?s}:
       {.val {labels}}.", why),
    class = "predictivebench_warning_short_pairs"
  )
}

slug <- function(x) {
  out <- gsub("[^A-Za-z0-9._-]+", "-", x)
  out <- gsub("^[.-]+", "", out)
  if (!nzchar(out)) "judge" else out
}

check_path_name <- function(x, arg = rlang::caller_arg(x), call = rlang::caller_env()) {
  check_string(x, arg = arg, call = call)
  if (!nzchar(x) || grepl("[/\\\\]", x) || x %in% c(".", "..") || grepl("^~", x)) {
    abort_pb("{.arg {arg}} must be a plain folder name inside {.arg dir}, not {.val {x}}.",
             "path", call = call)
  }
  invisible(x)
}

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
#' @export
#' @examples
#' judge <- arena_baseline_judge()
#' judge$chat(arena_judge_prompt("Hi?", "Hello there!", "Hi")$user)
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
