# The arena's judging as an internal vitals Task, each sample a battle judged by EloBench's judge.
# arena_run() judges its rounds as tables (R/arena-verdicts.R); arena_task() uses judge_battles().

arena_sample_battles <- function() {
  sample <- sample_store()
  answers <- arena_read_answers(sample$answers)
  arrangement <- arena_read_arrangement(sample$arrangement,
                                        models = setdiff(names(answers), "question"))
  arena_battles(arrangement, answers)
}

#' The arena's judging as a vitals Task (internal: arena_run()'s rounds)
#'
#' @description
#' Each sample is a battle: a question and the answers of `model_a` and `model_b`. The
#' solver sends EloBench's judge prompt (`arena_judge_prompt()`) to the judge chat
#' (`$eval(solver_chat = judge)`) at temperature 0 with at most 800 tokens, through
#' `generate_responses()`, and parses the verdict (`arena_parse_verdict()`). The scorer gives
#' `model_a`'s points (1, 0 or 0.5). [arena_ratings()] turns the judged battles into ratings.
#' For the whole workflow (answers, arrangement, rounds, files), use [arena_run()].
#'
#' * `arena_judge_solver()` sends every battle's judge request through one request pool
#'   and the response cache, the one store of verdicts: a verdict is reused only for the
#'   same request (the judge's request identity and prompt version, the question and the two
#'   answers in the judge's order), and a run killed while judging resumes from it, paying
#'   again only for the requests in flight. EloBench's own `battle_records.csv` is imported
#'   into that store by [arena_run()] (`elobench`).
#' * With `position_swap = TRUE` each battle is judged in both orders, and a verdict counts
#'   only when both agree (a disagreement is a tie): the usual cure for a judge's preference
#'   for the first answer. Both orders are in the response cache.
#' * `arena_judge_task()` gives the solver its battles (the task's dataset): inputs are mapped to
#'   battles by position, not by prompt text, so two battles with the same prompt (the same
#'   question and answers from different models) each keep their own models and
#'   record, also with `$eval(epochs = )` > 1 (every epoch of a battle reuses its one
#'   cached verdict). Judging settings (`version`, `position_swap`, ...) are
#'   the solver's, `invalid` the scorer's, as in every `*_task()` of the package.
#'
#' @section Summary:
#' `arena_ratings()` returns ratings (an [arena_ratings()] tibble: `model`, `rating`, `lower`,
#' `upper`, `rank`, battle counts), on the Elo scale, not the `group`, `metric`, `estimate`,
#' `lower`, `upper`, `n` rows on a 0-1 scale of the other benchmarks' summaries: a rating is
#' not a mean of sample scores. `arena_win_rates()` gives each model's win rate in that
#' shape (0-1, with intervals): these are the metrics an arena log shows and what
#' [leaderboard()] reports. The per-pair win rates are drawn by [autoplot.arena_ratings()].
#' The battles keep their answers (`answer_a`, `answer_b`), in the task and in its log, so
#' `arena_ratings(tsk, rating_options(style_control = TRUE))` adds style-controlled ratings from either.
#'
#' `arena_judge_task()` returns a `ResultsTask`: its log names the scorer `"arena_score"`, shows
#' each battle's models, question and answers and the verdicts as key-value metadata, explains each
#' score by the verdicts (both orders with `position_swap`) and counts the tokens of both
#' judge requests of a battle (none for a verdict read from the response cache).
#'
#' @section Differences from the original:
#' * The original cached verdicts by question and models only, so a second judge (or a new
#'   prompt, or new answers of a model) silently reused the first verdicts; here the judge
#'   request, the prompt version and both answers (hashed) are part of the key.
#' * A failed request is recorded with an empty winner (the original retried forever) and
#'   judged again on the next run. A response with no readable verdict is `invalid`; with the
#'   older score format the original left the winner empty instead.
#' * The original asked for `response_format = json_object`; ellmer has no portable switch for
#'   it, so a JSON verdict inside a code fence or surrounded by text is also accepted.
#' * `gpt_4_response` is written as JSON (`{"is_valid", "response", "usage"}`) rather than
#'   a Python dict; both are read.
#' * `position_swap` is new.
#'
#' @param dataset Battles from `arena_battles()`; by default the bundled sample (four
#'   fictional models on eight questions).
#' @param solver,scorer A solver and scorer, by default `arena_judge_solver()` and
#'   `arena_verdict_scorer()`.
#' @param benchmark,fields The registered benchmark whose summary the log shows, and battle
#'   columns logged besides the battle's own. (`arena_run()` judges its rounds without this
#'   task, as tables: `judge_verdicts()`, its log written by R/arena-log.R.)
#' @inheritParams task-args
#' @inheritParams task-table-args
#' @param version Judge prompt version: `"231225"` (JSON verdict) or `"231113"` (scores).
#' @param position_swap Judge both orders and keep consistent verdicts.
#' @param temperature,params,system_prompt The judge's temperature (EloBench's 0), other
#'   request parameters and system prompt (`NULL`: EloBench's for `version`).
#' @inheritParams settings-args
#' @param invalid For the scorer and summary: failed judgements count as a `"tie"` (the
#'   original) or are dropped (`"drop"`, score `NA`).
#' @param x An evaluated arena task, its samples, its log file, or a data frame of battles.
#' @param ... Passed to [arena_ratings()].
#' @inheritParams generate_responses
#' @returns `arena_judge_task()` a [vitals::Task]; `arena_judge_solver()` and
#'   `arena_verdict_scorer()` functions for it.
#' @noRd
arena_judge_task <- function(dataset = arena_sample_battles(), solver = arena_judge_solver(),
                             scorer = arena_verdict_scorer(), epochs = NULL,
                             dir = vitals::vitals_log_dir(), name = "arena_battles",
                             benchmark = "arena_battles", fields = character()) {
  needed <- c("input", battle_fields)
  if (!is.data.frame(dataset) || !all(needed %in% names(dataset))) {
    abort_pb("{.arg dataset} must be battles from {.fn arena_battles}.", "argument")
  }
  if (!"target" %in% names(dataset)) dataset$target <- rep("", nrow(dataset))
  tsk <- benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir,
                        benchmark = benchmark,
                        options = task_options(name, metadata_fields = c(battle_fields, fields)))
  tsk$log_eval <- list(metadata = list(predictivebench_kind = "battles"))
  tsk
}

# What a battle is, logged with every sample.
battle_fields <- c("model_a", "model_b", "question", "answer_a", "answer_b")

# The judging solver: its solver_chat is the judge.
arena_judge_solver <- function(version = c("231225", "231113"),
                               position_swap = FALSE, temperature = 0, params = NULL,
                               system_prompt = NULL, settings = NULL) {
  version <- rlang::arg_match(version)
  check_flag(position_swap)
  check_number(temperature)
  check_string(system_prompt, allow_null = TRUE)
  settings <- settings %||% request_settings()
  check_settings_object(settings)  # validated at the door: arena_run()
  # Each input's battle (models, question, answers) is its dataset row, which arena_task()
  # binds: two battles with the same prompt keep their own models and record.
  dataset_solver(function(inputs, rows, ..., solver_chat = NULL) {
    solver_chat <- check_judge(solver_chat)
    if (!is_bound(rows)) unbound_solver_error("arena_judge")
    judged <- judge_battles(rows, solver_chat, version = version,
                            position_swap = position_swap, temperature = temperature,
                            params = params, system_prompt = system_prompt,
                            settings = settings_with_dots(settings, ...))
    report_verdict_failures(judged, "battle")
    # The battle's models and question are dataset columns, logged with every sample.
    list(
      result = judged$gpt_4_response_text,
      solver_chat = judged$chat,
      solver_metadata = lapply(seq_len(nrow(judged)), function(i) {
        c(list(winner = judged$winner[[i]], winner_ab = judged$winner_ab[[i]],
               winner_ba = judged$winner_ba[[i]], position_swap = position_swap,
               judger = judged$judger[[i]],
               error = judged$error[[i]], gpt_4_score = judged$gpt_4_score[[i]],
               gpt_4_response = judged$gpt_4_response[[i]], tstamp = judged$tstamp[[i]],
               # report_failures()' note: the judges that gave no readable verdict
               verdict_note = unreadable_note(judged$unreadable[[i]])),
          # a panel's: each judge's own verdicts (R/judges-panel.R)
          if ("judges" %in% names(judged)) list(judges = judged$judges[[i]]),
          judged$usage[[i]])
      })
    )
  })
}

# model_a's points in each judged battle.
arena_verdict_scorer <- function(invalid = c("tie", "drop")) {
  invalid <- rlang::arg_match(invalid)
  function(samples, ...) {
    winner <- metadata_field(samples$solver_metadata, "winner")
    score <- winner_points(winner, failed = if (invalid == "tie") 0.5 else NA_real_)
    list(score = score,
         scorer_metadata = lapply(winner, function(w) list(winner = w)),
         explanation = arena_explanation(samples, score))
  }
}

# Why a battle scored what it did: the verdict in AB order and, with a swap, in BA (told in AB's
# terms), the winner together, and whose points the score is.
arena_explanation <- function(samples, score) {
  meta <- samples$solver_metadata
  said <- function(name) {
    w <- metadata_field(meta, name)
    ifelse(is.na(w), "no verdict", w)
  }
  swapped <- vapply(meta, function(m) isTRUE(m$position_swap), TRUE)
  winner <- metadata_field(meta, "winner")
  orders <- ifelse(
    swapped,
    paste0("Verdict AB: ", said("winner_ab"), "; BA (in AB's terms): ", said("winner_ba"),
           "; combined: ", said("winner"), "."),
    paste0("Verdict: ", said("winner"), ".")
  )
  named <- ifelse(winner %in% "model_a", paste0(" ", samples$model_a, " wins."),
                  ifelse(winner %in% "model_b", paste0(" ", samples$model_b, " wins."), ""))
  points <- ifelse(is.na(score), " Left out (failed judgements are dropped).",
                   paste0(" The score is ", samples$model_a, "'s (model_a) points: ",
                          as.character(score), "."))
  paste0(orders, named, points)
}

#' Arena win rates: each model's share of points, with intervals
#'
#' @description
#' `arena_win_rates()` summarises judged battles per model in the shape of every
#' predictivebench summary: one row per model (`group`), `metric` `"win_rate"`, `estimate`
#' the model's mean points over its battles (1 for a win, 0 for a loss, 0.5 for a tie;
#' failed judgements count as ties or are dropped, see `invalid`), `lower` and `upper` a
#' 95% percentile bootstrap interval (its battles resampled, `times` rounds, seeded so
#' intervals are reproducible), and `n` its battles; then `wins`, `losses`, `ties`. Models
#' are ordered by win rate, best first.
#'
#' [arena_summary()] gives these rows for battles; a judging task's log shows them as its
#' metrics. Win rates depend on the opponents each model met; [arena_ratings()] gives
#' ratings, which account for that. `ggplot2::autoplot()` draws the win rates (see
#' [autoplot.benchmark_summary()]).
#'
#' @param x An evaluated judging task, its samples, its log file, or a data frame of
#'   battles (`model_a`, `model_b`, `winner`).
#' @param invalid Failed judgements count as a `"tie"` (the original) or are dropped.
#' @param times Bootstrap rounds.
#' @param seed Seed for the bootstrap; the global random stream is left untouched.
#' @returns A `benchmark_summary()` tibble.
#' @noRd
arena_win_rates <- function(x, invalid = c("tie", "drop"), times = 1000, seed = 1) {
  invalid <- rlang::arg_match(invalid)
  check_count(times)
  scores <- battle_scores(arena_outcomes(x), invalid = invalid)
  points <- c(scores$score_a, 1 - scores$score_a)
  model <- c(scores$model_a, scores$model_b)
  rows <- lapply(battle_models(scores), function(m) {
    mine <- points[model == m]
    ci <- mean_ci(mine, method = "bootstrap", times = times, seed = seed, limits = c(0, 1))
    summary_rows(m, "win_rate", ci, wins = sum(mine == 1), losses = sum(mine == 0),
                 ties = sum(mine == 0.5))
  })
  out <- do.call(rbind, c(list(summary_rows(character(), "win_rate", mean_ci(double()),
                                            wins = integer(), losses = integer(),
                                            ties = integer())), rows))
  out <- out[order(-out$estimate, out$group), ]
  benchmark_summary(out, "arena_battles", title = "Arena: win rate by model")
}

arena_win_rate_interval <- "95% bootstrap interval (battles resampled)"

# The battles behind `x`, one row each: from battles, a judging task's samples, or arena_task()'s
# samples (its model against each reference).
arena_outcomes <- function(x, call = rlang::caller_env()) {
  what <- "an evaluated arena task, its samples, its log file, or battles."
  x <- benchmark_samples(x, character(), what, call = call)
  if (!all(c("model_a", "model_b") %in% names(x)) && "scorer_metadata" %in% names(x)) {
    return(arena_reference_outcomes(x))
  }
  x <- benchmark_samples(x, c("model_a", "model_b"), what, call = call)
  x <- battle_parts(x)
  if ("solver_metadata" %in% names(x)) {
    winner <- metadata_field(x$solver_metadata, "winner")
    out <- tibble::tibble(model_a = x$model_a, model_b = x$model_b, winner = winner,
                          question = x$question)
    # the answers, for arena_ratings(style_control = TRUE)
    for (column in intersect(c("answer_a", "answer_b"), names(x))) out[[column]] <- x[[column]]
    return(out)
  }
  x
}

