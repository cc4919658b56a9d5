# EloBench's folder as an import and export of the one store, the response cache; EloBench's
# files are never looked up for an answer. Only this file names them (test-arena-elobench.R
# checks) and it reads and writes them as pandas does, so the original tools share them:
#   read: data/<version>/questions.csv, tempcache/<version>/battle_records.csv (verdicts);
#   written: battle_records.csv and q_and_as.csv (merged), results/<experiment>/ (questions,
#   models, battle_arrangement, battle_records, battle_outcomes, elo_rating .csv).

elobench_answers_file <- "q_and_as.csv"
elobench_records_file <- "battle_records.csv"

# The bundled sample, in EloBench's layout.
sample_store <- function() {
  dir <- arena_sample_dir()
  list(questions = file.path(dir, "data", "sample", "questions.csv"),
       answers = file.path(dir, "tempcache", "sample", elobench_answers_file),
       arrangement = file.path(dir, "results", "sample", "battle_arrangement.csv"))
}

# Every EloBench path of one run in the folder `folder`, or NULL without one.
elobench_layout <- function(folder, version, experiment) {
  if (is.null(folder)) return(NULL)
  cache <- file.path(folder, "tempcache", version)
  results <- file.path(folder, "results", experiment)
  list(
    source_questions = questions_path(folder, version),
    answers = file.path(cache, elobench_answers_file),
    verdicts = file.path(cache, elobench_records_file),
    questions = file.path(results, "questions.csv"),
    models = file.path(results, "models.csv"),
    arrangement = file.path(results, "battle_arrangement.csv"),
    records = file.path(results, elobench_records_file),
    outcomes = file.path(results, "battle_outcomes.csv"),
    ratings = file.path(results, "elo_rating.csv")
  )
}

questions_path <- function(folder, version) file.path(folder, "data", version, "questions.csv")

# Whether `version`'s questions can be had without a folder (the sample or a pinned version).
installable_version <- function(version) {
  pins <- versions_table()
  is_sample(version) || version %in% pins$version[pins$benchmark == "arena"]
}

# Whether the response cache is used (the settings' `cache`; FALSE: nothing is imported).
store_caching <- function(settings) !isFALSE(settings$cache)

# A pinned version not yet in the folder is fetched (verified, cached) to `dest`, where the
# original reads it; `"sample"` copies the bundled sample's questions.
arena_install_questions <- function(dest, version, call = rlang::caller_env()) {
  if (file.exists(dest) || !installable_version(version)) return(invisible(dest))
  source <- if (is_sample(version)) sample_store()$questions else
    fetch_version(version_files("arena", version, call = call), call = call)
  dir.create(dirname(dest), recursive = TRUE, showWarnings = FALSE)
  write_atomic(dest, function(tmp) file.copy(source[[1]], tmp, overwrite = TRUE))
  invisible(dest)
}

# ---- import ------------------------------------------------------------------------------

# The folder's battle_records.csv verdicts that answer this judge's requests, filed in the
# response cache: EloBench's own when `judger` and format match (as the original reused them),
# the package's when their request key is this judge's. Failed verdicts are not.
import_elobench_verdicts <- function(path, judge, version, settings) {
  if (is.null(path) || !file.exists(path) || !store_caching(settings)) return(invisible(0L))
  records <- read_battle_cache(path)
  fields <- record_fields(records$gpt_4_response)
  text <- vapply(records$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  theirs <- !fields$package & records$judger %in% judge$get_model() &
    original_version(records$gpt_4_response) %in% version
  ours <- fields$package & fields$prompt_version %in% version
  use <- (theirs | ours) & !is.na(records$winner) & !is.na(text)
  if (!any(use)) return(invisible(0L))
  records <- records[use, ]
  prompts <- battle_prompts(records, version)
  keys <- verdict_keys(judge, prompts, version)
  stale <- fields$package[use] & fields$request_sha256[use] != keys
  import_responses(judge, prompts, ifelse(stale, NA_character_, text[use]), settings,
                   key_extra = judge_key_extra(version), source = path)
}

# ---- export ------------------------------------------------------------------------------

# The run's own files before the first round: its questions and models.
open_elobench_results <- function(paths, questions, model_names) {
  if (is.null(paths)) return(invisible())
  write_arena_csv(tibble::tibble(question = questions), paths$questions)
  write_arena_csv(tibble::tibble(model = model_names), paths$models)
  invisible(paths)
}

# The results of one round, written atomically as they stand.
write_round_results <- function(paths, arranged, records) {
  if (is.null(paths)) return(invisible())
  write_arena_csv(arranged, paths$arrangement)
  if (!is.null(records)) {
    write_arena_csv(records, paths$records)
    write_arena_csv(outcomes_of(records), paths$outcomes)
  }
  invisible(paths)
}

outcomes_of <- function(records) {
  records[!failed_judgement(records$winner), c("model_a", "model_b", "winner")]
}

write_ratings_file <- function(paths, ratings) {
  if (is.null(paths) || is.null(ratings)) return(invisible())
  write_arena_csv(tibble::tibble(model = ratings$model, elo_rating = ratings$rating,
                                 rank = ratings$rank), paths$ratings)
}

# Under the file's lock (another run may write it too): the answers merged into q_and_as.csv
# by model name; a missing answer (NA) never replaces one.
export_answers <- function(paths, answers) {
  if (is.null(paths)) return(invisible())
  path <- paths$answers
  with_file_lock(path, {
    stored <- if (file.exists(path)) arena_read_answers(path) else
      tibble::tibble(question = character())
    models <- setdiff(names(answers), "question")
    stored <- answers_for(stored, answers$question, models)
    at <- match(answers$question, stored$question)
    for (m in models) {
      ok <- !is.na(answers[[m]])
      stored[[m]][at[ok]] <- answers[[m]][ok]
    }
    write_answers(stored, path)
  })
  invisible(path)
}

# `answers` with a row for every question and a column for every model.
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

# Under the file's lock: the run's verdicts merged into battle_records.csv by request key: a
# failed one is replaced, a verdict there kept, keyless (EloBench's own) records kept as they are.
export_verdicts <- function(paths, new) {
  if (is.null(paths) || !nrow(new)) return(invisible())
  path <- paths$verdicts
  with_file_lock(path, {
    store <- if (file.exists(path)) read_battle_cache(path) else empty_records()
    write_battle_cache(merge_battle_records(store, new), path)
  })
  invisible(path)
}

merge_battle_records <- function(store, new) {
  new <- new[order(is.na(new$winner)), ]  # of two records of one request, the verdict is kept
  store_key <- record_fields(store$gpt_4_response)$request_sha256
  new_key <- record_fields(new$gpt_4_response)$request_sha256
  rbind(store[!(in_keys(store_key, new_key) & is.na(store$winner)), ],
        new[!in_keys(new_key, store_key[!is.na(store$winner)]) &
              !duplicated(new_key, incomparables = NA), ])
}

# A missing key (a record that names no request) matches nothing, not even another one.
in_keys <- function(x, table) !is.na(match(x, table, incomparables = NA))

read_battle_cache <- function(path) {
  read_battle_file(path, battle_record_columns, "battle records")[battle_record_columns]
}

write_battle_cache <- function(records, path) {
  write_arena_csv(records[battle_record_columns], path)
}

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

# Battles as the original writes them: winners normalized, `is_valid` from pandas' True/False.
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

# The one reader of a `questions.csv`. R owns it, not the Python flattener: arena_run() reads
# it at evaluation time, where Python is optional (DESIGN.md). Unique questions in order, with
# their counts and 1-based `first_row`. `on_error = "skip"` drops rows of the wrong field count
# with a warning naming them.
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

arena_sample_dir <- function() system.file("extdata", "arena", package = "predictivebench")
