# EloBench's CSV layout: reading and writing its files (questions, answers, arrangements,
# battle records, ratings) as pandas writes them, so the original tools and we share them.

battle_record_columns <- c("model_a", "model_b", "winner", "judger", "tstamp", "question",
                           "answer_a", "answer_b", "gpt_4_response", "gpt_4_score", "is_valid")

# An EloBench file (`what`: "answer file", ...), read as utils-csv.R reads every CSV.
read_arena_csv <- function(path, required, what = "file", call = rlang::caller_env()) {
  read_csv_checked(path, required, paste("arena", what), call = call)
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
#'   byte, rather than a partial read. A NUL byte (a damaged file, or UTF-16 text), which
#'   `read.csv()` would drop with the rows after it, is an error naming its row and column;
#'   so are two columns of one name, a battle without a model, and a rating or rank that is
#'   not a finite number.
#' * `arena_read_answers()` reads an answer cache `q_and_as.csv`: `question` plus one column
#'   per model, where the text `NaN` means "not generated" (returned as `NA`) and an empty
#'   string is a real empty answer. The text `NULL` also means "not generated", because an
#'   older version of the original wrote it so (an answer that is literally `NULL` is
#'   therefore read as missing, and generated again by `arena_answers()`).
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
#' @noRd
arena_read_battles <- function(path) {
  check_string(path)
  read_battle_file(path, c("model_a", "model_b", "winner"), "battle file")
}

# Battles as the original writes them: winners normalized, `is_valid` (when present) logical
# from pandas' `True`/`False`.
read_battle_file <- function(path, required, what, call = rlang::caller_env()) {
  data <- read_arena_csv(path, required, what, call = call)
  for (field in c("model_a", "model_b")) {
    empty <- which(is.na(data[[field]]) | !nzchar(trimws(data[[field]])))
    if (length(empty)) {
      abort_pb("The arena {what} has a battle without a model.", "model", file = path,
               row = empty[[1]], field = field, call = call)
    }
  }
  data$winner <- normalize_winner(data$winner, file = path, call = call)
  if ("is_valid" %in% names(data)) {
    data$is_valid <- toupper(data$is_valid) %in% c("TRUE", "1")
  }
  data
}

#' @noRd
arena_read_answers <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, "question", "answer file")
  for (name in setdiff(names(data), "question")) {
    data[[name]][data[[name]] %in% c("NaN", "NULL")] <- NA_character_
  }
  data
}

#' @noRd
arena_read_arrangement <- function(path, models = NULL) {
  check_string(path)
  data <- read_arena_csv(path, c("question", "model_a", "model_b"), "arrangement")
  if (!is.null(models)) check_registered(data, models, path)
  data[c("question", "model_a", "model_b")]
}

#' @noRd
arena_read_ratings <- function(path) {
  check_string(path)
  data <- read_arena_csv(path, character(), "rating file")
  if (all(c("Model", "Elo Rating") %in% names(data))) {
    # The original's layout: a 1-based index, `Model` and a rounded `Elo Rating`.
    rating <- rating_numbers(data[["Elo Rating"]], path, "Elo Rating")
    return(tibble::tibble(model = data$Model, elo_rating = rating,
                          rank = as.integer(rank(-rating, ties.method = "min"))))
  }
  missing <- setdiff(c("model", "elo_rating"), names(data))
  if (length(missing)) {
    abort_pb("The rating file lacks column{?s} {.field {missing}}.", "schema", file = path,
             field = missing[[1]])
  }
  rating <- rating_numbers(data$elo_rating, path, "elo_rating")
  rank <- if ("rank" %in% names(data)) {
    as.integer(rating_numbers(data$rank, path, "rank", whole = TRUE))
  } else {
    as.integer(rank(-rating, ties.method = "min"))
  }
  tibble::tibble(model = data$model, elo_rating = rating, rank = rank)
}

# A rating file's numbers: anything that is not a finite number (text, an empty cell, `inf`)
# is an error naming its row, rather than a rating silently missing.
rating_numbers <- function(x, path, field, whole = FALSE, call = rlang::caller_env()) {
  values <- suppressWarnings(as.numeric(x))
  bad <- which(!is.finite(values) | (whole & values != round(values)))
  if (length(bad)) {
    kind <- if (whole) "whole number" else "number"
    abort_pb("The rating file has {.val {x[[bad[[1]]]]}} where a {kind} belongs.", "field",
             file = path, row = bad[[1]], field = field, call = call)
  }
  values
}

#' @noRd
arena_read_questions <- function(path) {
  check_string(path)
  read_questions_table(path)$input
}

# The one reader of a `questions.csv`. R owns this file, not the Python flattener: it is part
# of EloBench's working folder that arena_run() reads and writes at evaluation time, where
# Python is optional (DESIGN.md), so the rule lives here once and prepare_arena() writes its
# parquet from it. Unique questions in order of first appearance (an empty string is a
# question), with how often each occurs and the 1-based data row of its first occurrence
# (blank lines are no rows).
#
# With `on_error = "skip"`, rows with more or fewer fields than the header (the file's only
# row-level fault) are left out with a warning naming them; `first_row` still counts the
# file's own rows.
read_questions_table <- function(path, on_error = "error", call = rlang::caller_env()) {
  rows <- NULL
  if (on_error == "skip" && file.exists(path)) {
    check_csv_nul(path, "arena question file", call)
    check_csv_utf8(path, "arena question file", call)
    kept <- csv_without_ragged_rows(path)
    path <- kept$path
    rows <- kept$rows
  }
  data <- read_arena_csv(path, "question", "question file", call = call)
  if (!nrow(data)) {
    abort_pb("The arena question file has no questions.", "empty", file = path,
             field = "question", call = call)
  }
  q <- data$question
  keep <- !is.na(q)
  first <- which(keep & !duplicated(q))
  tibble::tibble(
    id = sprintf("q%d", seq_along(first)),
    input = q[first],
    target = NA_character_,
    occurrences = as.integer(table(factor(q[keep], levels = q[first]))),
    first_row = as.integer(if (is.null(rows)) first else rows[first])
  )
}

