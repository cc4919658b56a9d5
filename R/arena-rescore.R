# rescore() of an arena_run()'s log: its battles are read back from the log, judged again by the
# new judge as arena_run() judges a round, rated with the run's own rating options, and written
# as a new run log (header adding `log_eval`). No answer request is sent.

# The new log's path (the run's log first when in parts).
arena_rescore_run <- function(log_paths, judge, dir, settings, log_eval) {
  header <- read_log_header(log_paths[[1]])
  meta <- header$eval$metadata
  battles <- arena_logged_battles(log_paths[[1]])
  version <- meta$judge_prompt_version %||% "231225"
  rating <- arena_logged_rating(meta$rating_options)
  run <- list(experiment = sub("^arena-", "", header$eval$dataset$name %||% "arena-run"),
              model_names = strsplit(as.character(header$eval$model), " vs ", fixed = TRUE)[[1]],
              judge = judge, prompt_version = version,
              position_swap = isTRUE(meta$position_swap), dir = dir)
  log <- arena_log_open(run)
  log$log_eval <- log_eval
  on.exit(arena_log_abandon(log), add = TRUE)
  records <- arena_judge_chunks(battles, run, log, rating, settings)$records
  warn_failed_judgements(records)
  warn_unreadable_verdicts(log$unreadable, nrow(records), "battle", arena_unreadable_consequence)
  # no battle to rate (every verdict failed and failures dropped): the battles without ratings
  rated <- if (rating$invalid == "drop") !failed_judgement(records$winner) else
    rep(TRUE, nrow(records))
  ratings <- if (any(rated)) {
    arena_ratings(records, rating_options_of(rating))
  } else {
    tibble::tibble(model = character(), rating = double(), lower = double(),
                   upper = double(), battles = integer())
  }
  paths <- arena_log_finish(log, ratings, version, rating)
  paths[[1]]
}

# The battles of a run's log (every part), in the order judged, as arena_battles() gives them.
arena_logged_battles <- function(path, call = rlang::caller_env()) {
  samples <- battle_parts(log_run_samples(path))
  needed <- c("question", "model_a", "model_b", "answer_a", "answer_b")
  if (!nrow(samples) || !all(needed %in% names(samples))) {
    abort_pb("The arena log holds no battles whose question and answers can be read back.",
             "argument", file = path, call = call)
  }
  tibble::tibble(id = samples$id, input = NA_character_, target = "",
                 !!!lapply(samples[needed], as.character))
}

# The run's rating options as its header carries them (arena_run()'s defaults for one missing).
arena_logged_rating <- function(options) {
  given <- if (is.null(options)) list() else jsonlite::fromJSON(as.character(options))
  utils::modifyList(list(method = "elo", bootstrap = 1000, seed = 1, invalid = "tie"), given)
}
