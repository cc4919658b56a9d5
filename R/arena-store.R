# The arena's store: every file arena_run() keeps in its folder, in EloBench's layout, and
# the one place that reads and writes them. Answers (q_and_as.csv, with the request identity
# of each in q_and_as_sources.csv) and verdicts (battle_records.csv, the identity in each
# record's gpt_4_response) are keyed by their request, as the response cache is, so a
# cached answer or verdict is one the same request would get. With `cache = FALSE` in the
# settings the store keeps no cache: no answer of a chat and no verdict is read from these
# files or written to them, and every request is sent again; the results folder is still
# written, and answers of models given by name only (the user's data, not a cache of a
# request) are still read.
#
#   data/<version>/questions.csv              the questions (a pinned version is fetched)
#   tempcache/<version>/q_and_as.csv          the original's answer cache, seeds a setting
#   tempcache/<version>/<judge setting>/      q_and_as.csv, q_and_as_sources.csv,
#                                             battle_records.csv
#   results/<experiment>/                     questions.csv, models.csv,
#                                             battle_arrangement.csv, battle_records.csv,
#                                             battle_outcomes.csv, elo_rating.csv, logs/

# EloBench's file names are written here only (test-arena-store.R fails when another R file
# names them in code): every other file asks this module for a path.
elobench_answers_file <- "q_and_as.csv"
elobench_records_file <- "battle_records.csv"

# The answer cache in folder `dir`.
answers_path <- function(dir) file.path(dir, elobench_answers_file)

# The bundled sample, in EloBench's layout.
sample_store <- function() {
  dir <- arena_sample_dir()
  list(questions = file.path(dir, "data", "sample", "questions.csv"),
       answers = file.path(dir, "tempcache", "sample", elobench_answers_file),
       arrangement = file.path(dir, "results", "sample", "battle_arrangement.csv"))
}

# Every path of one run. The judge setting is a portable folder name made from the judge's
# model and the prompt version, whatever the model id.
arena_layout <- function(dir, version, experiment, judge, prompt_version) {
  setting <- portable_file_name(c(judge$get_model(), prompt_version))
  cache <- file.path(dir, "tempcache", version, setting)
  results <- file.path(dir, "results", experiment)
  list(
    source_questions = questions_path(dir, version),
    shared_answers = answers_path(file.path(dir, "tempcache", version)),
    cache = cache,
    answers = answers_path(cache),
    records_cache = file.path(cache, elobench_records_file),
    questions = file.path(results, "questions.csv"),
    models = file.path(results, "models.csv"),
    arrangement = file.path(results, "battle_arrangement.csv"),
    records = file.path(results, elobench_records_file),
    outcomes = file.path(results, "battle_outcomes.csv"),
    ratings = file.path(results, "elo_rating.csv"),
    logs = file.path(results, "logs")
  )
}

# A data version's questions in the arena folder `dir`.
questions_path <- function(dir, version) file.path(dir, "data", version, "questions.csv")

# Whether the questions of `version` can be installed into the folder: the bundled sample,
# or a pinned EloBench version.
installable_version <- function(version) {
  pins <- versions_table()
  is_sample(version) || version %in% pins$version[pins$benchmark == "arena"]
}

# Whether the store keeps caches: the settings' `cache` (FALSE: none anywhere).
store_caching <- function(settings) !isFALSE(settings$cache)

# The battle cache the judge reads and extends, or NULL for none.
verdict_cache <- function(paths, settings) {
  if (store_caching(settings)) paths$records_cache
}

# A pinned EloBench version not yet in the folder is fetched (verified, cached) and copied to
# `dest` (data/<version>/questions.csv), the layout the original reads; `"sample"` copies
# the bundled sample's questions, as arena_dataset(version = "sample") reads them.
arena_install_questions <- function(dest, version, call = rlang::caller_env()) {
  if (file.exists(dest) || !installable_version(version)) return(invisible(dest))
  source <- if (is_sample(version)) sample_store()$questions else
    fetch_version(version_files("arena", version, call = call), call = call)
  dir.create(dirname(dest), recursive = TRUE, showWarnings = FALSE)
  write_atomic(dest, function(tmp) file.copy(source[[1]], tmp, overwrite = TRUE))
  invisible(dest)
}

# The run's own files before the first round: its questions and models, and, for a new
# judge setting, the answers of the original's per-dataset cache (its layout).
open_arena_store <- function(paths, questions, model_names, settings) {
  write_arena_csv(tibble::tibble(question = questions), paths$questions)
  write_arena_csv(tibble::tibble(model = model_names), paths$models)
  dir.create(paths$logs, recursive = TRUE, showWarnings = FALSE)
  if (store_caching(settings) && !file.exists(paths$answers) &&
      file.exists(paths$shared_answers)) {
    dir.create(paths$cache, recursive = TRUE, showWarnings = FALSE)
    write_atomic(paths$answers, function(tmp) {
      file.copy(paths$shared_answers, tmp, overwrite = TRUE)
    })
  }
  invisible(paths)
}

# The results of one round, written atomically as they stand.
write_round_results <- function(paths, arranged, records) {
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

# ---- answers: q_and_as.csv and q_and_as_sources.csv ---------------------------------------

answer_sources_path <- function(path) file.path(dirname(path), "q_and_as_sources.csv")

read_answer_sources <- function(path) {
  sources <- answer_sources_path(path)
  empty <- tibble::tibble(question_sha256 = character(), model = character(),
                          identity = character())
  if (!file.exists(sources)) return(empty)
  data <- read_arena_csv(sources, names(empty), "answer sources")
  tibble::as_tibble(data[names(empty)])
}

# Under the file's lock: the answer cache as it is now (another process may have added
# answers since it was read), with `results` (of `model`, one per question) for `questions`
# merged in, written back and returned; each new answer's request identity (`identity`, by
# model) goes into the sources file. A failure (NA) never replaces an answer.
update_answers <- function(path, answers, questions, model, results, identity = NULL) {
  with_file_lock(path, {
    merged <- load_answers(path, answers$question, setdiff(names(answers), "question"))
    merged <- merge_answer_results(merged, questions, model, results)
    ok <- !is.na(results)
    if (any(ok)) {
      record_answer_sources(path, questions[ok], model[ok], identity[model[ok]])
    }
    write_answers(merged, path)
    without_other_sources(merged, identity, read_answer_sources(path))
  })
}

record_answer_sources <- function(path, questions, model, identity) {
  sources <- read_answer_sources(path)
  new <- tibble::tibble(question_sha256 = text_sha256(questions), model = model,
                        identity = unname(identity))
  key <- paste(sources$question_sha256, sources$model)
  sources <- rbind(sources[!key %in% paste(new$question_sha256, new$model), ], new)
  write_arena_csv(sources, answer_sources_path(path))
}

# The answer cache at `path` (empty when the file does not exist yet), with a row for every
# question and a column for every model.
load_answers <- function(path, questions, models) {
  answers <- if (file.exists(path)) arena_read_answers(path) else
    tibble::tibble(question = character())
  answers_for(answers, questions, models)
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

# `results` (of `model`, one per question) set into `answers` for `questions`; a failure
# (NA) never replaces an answer.
merge_answer_results <- function(answers, questions, model, results) {
  at <- match(questions, answers$question)
  ok <- !is.na(results)
  for (m in unique(model)) answers[[m]][at[ok & model == m]] <- results[ok & model == m]
  answers
}

# ---- verdicts: battle_records.csv ---------------------------------------------------------

# Under the file's lock: the battle cache as it is now (another run on the same folder may
# have added verdicts since it was read) with `new` merged in, written back and returned.
update_battle_cache <- function(path, new, judge) {
  with_file_lock(path, {
    store <- if (file.exists(path)) read_battle_cache(path) else empty_records()
    if (!is.null(new)) store <- merge_battle_records(store, new, judge)
    write_battle_cache(store, path)
    store
  })
}

# A failed verdict is replaced when the battle is judged again; a verdict already recorded
# (by this run or another) is kept, and the same battle is never recorded twice.
merge_battle_records <- function(store, new, judge) {
  store_key <- store_keys(store, judge)
  new_key <- store_keys(new, judge)
  rbind(store[!(in_keys(store_key, new_key) & is.na(store$winner)), ],
        new[!in_keys(new_key, store_key[!is.na(store$winner)]) &
              !duplicated(new_key, incomparables = NA), ])
}

# A missing key (a record that names no request) matches nothing, not even another one.
in_keys <- function(x, table) !is.na(match(x, table, incomparables = NA))

read_battle_cache <- function(path) {
  read_battle_file(path, battle_record_columns, "battle cache")[battle_record_columns]
}

write_battle_cache <- function(records, path) {
  write_arena_csv(records[battle_record_columns], path)
}
