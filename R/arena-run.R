# arena_run(): EloBench's pipeline in rounds (arrange, answer, judge, rate), never failing silently.

#' Run an Elo arena: answers, judging in rounds, ratings
#'
#' @description
#' `arena_run()` is EloBench's pipeline in one call, in four steps a round: arrange, answer,
#' judge, then rate. Its result holds the ratings, the battles and the answers, and it writes
#' one log in `dir` (Inspect AI's format, for `vitals::vitals_view()` and [leaderboard()]).
#'
#' Every answer and every verdict is a request through the response cache ([cache_dir()]),
#' the package's one store, shared with [arena_task()] and every benchmark: an answer or a
#' verdict is reused only for the same request (for a verdict: the judge's provider, base
#' URL, model, parameters, headers and prompt version, the question and the two answers in
#' the judge's order), so a judge of the same model name at another server judges again, and
#' new answers under a model's name are judged again. A killed run resumes from it, paying
#' again only for the requests in flight. With `cache = FALSE` in `settings` nothing is
#' reused: a second run sends every request again. Baseline chats answer offline, for free,
#' and are never cached.
#'
#' The log shows the run as a user reads it: its headline is every model's rating on the
#' Elo scale, the numbers of `run$ratings` (the run's `method`, `times` and `seed`, which
#' the log's header carries in `rating_options`; benchmark `"arena_ratings"`, so
#' [leaderboard()] reports each competitor as a model), the competitors are the models
#' evaluated and the judge is the scorer's model, and each row is one battle judged in this
#' run: the question and both answers (its input), then the outcome and the judge's reply.
#' A row's result and score are `model_a`'s: "careful wins against echo" scores 1,
#' "careful loses to echo" 0, a tie 0.5. Each text is stored once a row: the judge's prompt
#' is EloBench's template (its version in the header) around the input's texts, and each
#' verdict names its request in the response cache (`request_sha256`). The log is written
#' as the battles are judged, a chunk at a time, and closed with the ratings; a run that
#' stops before (killed, or on an error) leaves no `.json` log, only, when killed, a hidden
#' unfinished part file that nothing reads as a log. A rerun that sends no request (every
#' answer and verdict from the cache, or offline) and would write the same log as one
#' already whole in `dir` (the same battles, verdicts and rating options) writes none: its
#' `paths` are that log's, so [leaderboard()] shows the run once.
#'
#' A run of many battles writes its log in parts of at most about 48 MB each
#' (`run$paths$log_parts`; EloBench's full `rwq`, 124,632 battles, takes a few), so that
#' `vitals::vitals_view()` opens each with its battles (its server sends a log over 100 MB
#' without them): each part is a whole log of some of the battles, headed by the run's
#' ratings, and names the others. [leaderboard()] shows the run once, and the summaries
#' ([arena_summary()], [arena_ratings()]) of any part read the whole run. A run is all its
#' parts or none: every reader ([leaderboard()], [report_failures()], [judge_audit()],
#' [rescore()], the summaries) refuses a run with a part missing, naming it (class
#' `predictivebench_error_missing_file`; the board skips it with a warning), a folder's
#' before anything is sent; a run killed while closing its parts leaves later parts
#' without the first, which its rerun removes.
#'
#' Each round arranges battles (for every pair still short of `n`
#' decisive (non-tie) battles, that many new questions), asks the chats for the answers
#' still missing, and judges the new battles. Rounds repeat until every pair has `n` decisive battles, no pair can get
#' a new question, or `max_rounds` is reached. A round's answers, then its battles, go into
#' request pools of at most 8,000 requests each (one after another, so memory holds one such
#' chunk of requests, answers and log rows whatever the arena's size; the rounds' answers and
#' verdicts are kept as tables); with `batch = TRUE`, a round's answers, then its battles,
#' are one provider batch per chat.
#'
#' @section EloBench's folder:
#' With `elobench`, a folder in EloBench's layout, the run imports from it and exports to it;
#' it is never where an answer or a verdict is looked up:
#'
#' * read: `data/<version>/questions.csv` when `dataset` is `NULL` (a pinned version, or
#'   `"sample"`, is copied there first); and `tempcache/<version>/battle_records.csv`, whose
#'   verdicts are filed in the response cache under the judge's requests. EloBench's own
#'   records count when their `judger` is the judge's model and their format is the prompt
#'   version's (as the original reused them); records this package wrote count only for the
#'   request whose key they hold (in `gpt_4_response`).
#' * written: `tempcache/<version>/q_and_as.csv` and `battle_records.csv` (every answer of
#'   the chats by model name, and every verdict, merged in under a lock, so the original
#'   tools read them and a later run can take the answers as `answers`), and
#'   `results/<experiment>/`: `questions.csv`, `models.csv`, `battle_arrangement.csv`,
#'   `battle_records.csv`, `battle_outcomes.csv` (`model_a, model_b, winner` without failed
#'   judgements) and `elo_rating.csv` (`model, elo_rating, rank`). Every file is written
#'   atomically.
#'
#' Nothing stops silently: a model of `answers` without an answer to any of the questions is
#' an error (class `predictivebench_error_answers`, naming it) before anything is arranged;
#' a pair that gets no battle in a round is a warning (`predictivebench_warning_no_battles`);
#' and with `strategy = "pairs"`, pairs still short of `n` decisive battles at the end
#' (because of `max_rounds` or because no question is left) are named in a warning
#' (`predictivebench_warning_short_pairs`).
#'
#' @section Differences from the original:
#' * Answers are the model's reply to the question sent as one user message (the original
#'   used its own prompt template per local model).
#' * The original cached answers by model name and verdicts by question and model names; here
#'   both are cached by their request, so another server, other parameters or new answers
#'   are asked again.
#' * Rounds, the pair-wise stopping rule and `position_swap` are new; one round with
#'   `strategy = "pairs"` is the original's `Random_N_BattleCount_Each_CombPair`.
#' * `elo_rating.csv` has the columns `model, elo_rating, rank` with decimals (the
#'   original's ratings were rounded, with columns `Model, Elo Rating`).
#' * Reasoning is kept, never judged (EloBench's models showed none), as in [arena_task()].
#' To evaluate one model against reference answers as a vitals Task, use [arena_task()].
#'
#' @param models The models whose answers are generated: ellmer chats or `"provider/model"`
#'   strings (as in [eval_set()]), in a list (named: the names are the models' names; else
#'   the string, or the chat's model) or a character vector. Names are unique; `question`
#'   and names with a control character (line break, tab) are refused. `list()` when every
#'   competitor is in `answers`.
#' @param judge The judge: an ellmer chat or a `"provider/model"` string, or a list of them
#'   (a panel of judges: every judge judges every battle, all in one pool and each cached as
#'   that judge's alone, and a battle's verdict is the one more than half the judges give;
#'   when every judge gave one and none has a majority it is a `"tie"`, as the original
#'   counts two orders that disagree; while a judge's failed verdict could still make a
#'   majority the battle has none, and is judged again next run. Each judge's verdicts are
#'   kept in the log's `judges` and in the battle records' `gpt_4_response`, whose
#'   `judger` is `"panel(a, b, c)"`).
#' @param dataset The questions: a table with a `question` column, or the `input` column of
#'   [arena_dataset()]; `NULL` for those of `version`.
#' @param version The data version when `dataset` is `NULL`: `"sample"` (the bundled
#'   questions), a pinned EloBench version (`"rwq"`, `"rwq_200"`, `"quora_100"`, see
#'   [benchmark_versions()], downloaded once, verified, cached), or, with `elobench`, any
#'   name with a `data/<version>/questions.csv` there. With `elobench` it also names the
#'   `tempcache/<version>` folder (default `"custom"` when `dataset` is given).
#' @param answers Models known only by their answers, each a competitor: an answer table
#'   (`question` and one column per model, the layout of an EloBench `q_and_as.csv`), the path of one, or `NULL` for none. Subset its columns to choose.
#' @param dir The folder of the run's log, as every task's: by default
#'   `vitals::vitals_log_dir()`, and when `VITALS_LOG_DIR` is unset, the package's log folder
#'   (see [benchmark_task()]).
#' @param elobench `NULL`, or a folder in EloBench's layout to import from and export to (see
#'   the section); nothing is written outside it and `dir`.
#' @param options An [arena_options()] object: how battles are arranged, judged and rated
#'   (the experiment's name, `n`, `strategy`, `prompt_version`, `position_swap`,
#'   `max_rounds`, `seed`, and the ratings' [rating_options()]).
#' @param ... Deprecated: the options by their names before 0.2.0 (`experiment`, `n`,
#'   `strategy`, `arrangement`, `prompt_version`, `position_swap`, `max_rounds`, `invalid`,
#'   `method`, `times`, `seed`), taken with a warning.
#' @param settings How requests are sent (answers and verdicts): a [request_settings()]
#'   object, or `NULL` for the defaults. With `batch = TRUE` each round's missing answers,
#'   then its battles, are sent as provider batches, waiting for each (`wait` is ignored):
#'   the next round is arranged from the verdicts of this one. The object given is never
#'   changed.
#' @returns An object of class `arena_run`: a list with `ratings` ([arena_ratings()]),
#'   `records` (this experiment's battle records), `arrangement`, `answers`, `rounds` and
#'   `paths` (`log`; `log_parts`, every part of a log in parts, `log` first; and with
#'   `elobench` the results files).
#' @family arena
#' @export
#' @examples
#' models <- list(
#'   verbose = baseline_chat(function(q) paste("Here is a long and careful answer to:", q),
#'                           "verbose"),
#'   terse = baseline_chat(function(q) "Ok.", "terse"),
#'   silent = baseline_chat(function(q) "", "silent")
#' )
#' # offline: a judge that always prefers the first answer; use a real chat for real ratings
#' judge <- baseline_chat('{"winner": 1, "explanation": "The first is better."}')
#' questions <- data.frame(question = c("Name a fruit.", "Name a colour.", "Say hello."))
#' opts <- arena_options(n = 2, ratings = rating_options(method = "elo", bootstrap = 100))
#' run <- arena_run(models, judge, dataset = questions, dir = tempfile("logs-"),
#'                  options = opts)
#' run$ratings
#'
#' # EloBench's files, for the original tools
#' folder <- tempfile("elobench-")
#' run <- arena_run(models, judge, version = "sample", elobench = folder, options = opts,
#'                  dir = file.path(folder, "logs"))
#' list.files(file.path(folder, "results", "run"))
arena_run <- function(models, judge, dataset = NULL, version = NULL, answers = NULL,
                      dir = vitals::vitals_log_dir(), elobench = NULL,
                      options = arena_options(), settings = NULL, ...) {
  # old argument names, through `...`: taken for one release, with a warning
  options <- arena_options_with(options, deprecated_dots(list(...), "arena_run",
                                                         old_arena_arguments,
                                                         "options = arena_options()"))
  dir <- resolve_log_dir(dir)
  check_arena_dir(dir)
  if (!is.null(elobench)) check_arena_dir(elobench, arg = "elobench")
  settings <- arena_settings(settings)
  if (!is.null(version)) check_path_name(version)
  check_arena_questions(elobench, version, dataset)
  judge <- check_judge(judge)
  chats <- as_arena_models(models %||% list(), min = 0)
  given <- competitor_answers(answers, names(chats))
  ratings <- options$ratings
  experiment <- options$experiment
  run <- list(
    strategy = options$strategy, n = options$n, arrangement = options$arrangement,
    seed = options$seed, prompt_version = options$prompt_version,
    position_swap = options$position_swap, invalid = ratings$invalid,
    experiment = experiment, judge = judge, settings = settings,
    dir = dir, answers_file = if (rlang::is_string(answers)) answers,
    models = c(chats, stats::setNames(vector("list", ncol(given) - 1L),
                                      setdiff(names(given), "question")))
  )
  if (length(run$models) < 2) {
    abort_pb(c("An arena needs at least two models.",
               i = "Give chats as {.arg models} and/or their answers as {.arg answers}."),
             "argument")
  }
  rating <- logged_rating_options(ratings)
  run$model_names <- names(run$models)
  run$paths <- elobench_layout(elobench, version %||% "custom", experiment)
  run$questions <- arena_questions(run$paths, version, dataset)
  state <- arena_start(run, given, rating)
  # after arena_start()'s checks: a refused run leaves an experiment's results as they were
  open_elobench_results(run$paths, run$questions, run$model_names)
  # a run that stops on an error leaves no log, not even an unfinished one
  on.exit(arena_log_abandon(state$log), add = TRUE)

  for (round in seq_len(options$max_rounds)) {
    new <- arena_arrange_round(run, state, round)
    if (!is.null(new$stopped)) {
      state$stopped <- new$stopped
      break
    }
    state <- arena_answer_round(run, state, new$arrangement)
    state <- arena_judge_round(run, state, new, round)
    if (run$strategy != "pairs") break
  }
  arena_rate(run, state, rating, options$max_rounds)
}

# The ratings' options as a run's log header keeps them: EloBench's four always, any other
# only when it is not the default, so logs of default runs read as they always did.
logged_rating_options <- function(ratings) {
  flat <- unclass(ratings)
  defaults <- unclass(rating_options())
  changed <- names(flat)[!vapply(names(flat), function(n) identical(flat[[n]], defaults[[n]]),
                                 TRUE)]
  flat <- flat[union(c("method", "bootstrap", "seed", "invalid"), changed)]
  if (is.null(ratings$anchor)) flat$anchor_rating <- NULL
  flat[!vapply(flat, is.null, TRUE)]
}

# How an arena run sends: the user's settings or the defaults (the one response cache), always
# waiting for a batch (the next round is arranged from its verdicts). Never changes `settings`.
arena_settings <- function(settings, call = rlang::caller_env()) {
  given <- as_request_settings(settings %||% request_settings(), call = call)
  settings_with_dots(given, wait = TRUE)
}

# The questions: the table given as `dataset` (a `question` column, or the `input` column of
# arena_dataset()); else, with an EloBench folder, its data/<version>/questions.csv (a pinned
# version or the sample copied there first); else the questions of arena_dataset(version).
arena_questions <- function(paths, version, dataset, call = rlang::caller_env()) {
  if (!is.null(dataset)) return(dataset_questions(dataset, call = call))
  if (!is.null(paths)) {
    arena_install_questions(paths$source_questions, version, call = call)
    return(arena_read_questions(paths$source_questions))
  }
  dataset_questions(arena_dataset(version = version), call = call)
}

arena_prompt_versions <- c("231225", "231113")

# Before the first round: the answers known so far, EloBench's verdicts imported into the cache.
arena_start <- function(run, given, rating) {
  answers <- answers_for(given[given$question %in% run$questions, ], run$questions,
                         run$model_names)[c("question", run$model_names)]
  check_cached_answers(run$models, answers, run$questions, run$answers_file)
  judge <- configured_judge(run$judge, run$prompt_version)
  # a panel's judges each take EloBench's verdicts that are their own
  for (member in judge_members(judge)) {
    import_elobench_verdicts(run$paths$verdicts, member, run$prompt_version, run$settings)
  }
  list(answers = answers, arranged = empty_arrangement(), records = empty_records()[0, ],
       log = arena_log_open(run), rating = rating, rounds = 0L, stopped = "max_rounds",
       sent = 0L)
}

# Arrange: the round's new battles, or why the rounds stop ("done": every pair has its
# decisive battles; "no_question": no battle can be arranged).
arena_arrange_round <- function(run, state, round) {
  questions <- run$questions
  if (run$strategy == "reload") {
    new <- reload_arrangement(run)
  } else if (run$strategy == "all") {
    new <- arena_arrange(questions, run$model_names, strategy = "all", seed = run$seed + round)
  } else {
    need <- pair_needs(state$records, run$model_names, run$n)
    if (!length(need)) return(list(stopped = "done"))
    new <- arena_arrange(questions, run$model_names, n = need,
                         available = answer_availability(run, state$answers),
                         existing = state$arranged, seed = run$seed + round)
  }
  if (!nrow(new)) return(list(stopped = "no_question"))
  list(arrangement = new, wanted = round_pairs(run, new, if (run$strategy == "pairs") need))
}

# Strategy "reload"'s arrangement: `arrangement` (a table or file), else the results folder's.
reload_arrangement <- function(run, call = rlang::caller_env()) {
  given <- run$arrangement %||% run$paths$arrangement
  if (is.null(given)) {
    abort_pb("{.code strategy = \"reload\"} needs {.arg arrangement} (or {.arg elobench}).",
             "argument", field = "arrangement", call = call)
  }
  if (is.data.frame(given)) {
    check_registered(given, run$model_names)
    return(tibble::as_tibble(given[c("question", "model_a", "model_b")]))
  }
  arena_reload_arrangement(given, run$questions, run$model_names)
}

# Which model can answer which question: a chat any, a name only those it has answers to.
answer_availability <- function(run, answers) {
  rows <- match(run$questions, answers$question)
  available <- vapply(run$model_names, function(m) {
    if (!is.null(run$models[[m]])) rep(TRUE, length(run$questions)) else
      !is.na(answers[[m]][rows])
  }, logical(length(run$questions)))
  matrix(available, nrow = length(run$questions), dimnames = list(NULL, run$model_names))
}

# The pairs a round means to battle, to warn about those that get none.
round_pairs <- function(run, new, need) {
  switch(run$strategy,
         pairs = names(need),
         all = pair_keys(NULL, NULL, run$model_names),
         reload = unique(pair_keys(new$model_a, new$model_b, run$model_names)))
}

# Answer: each chat asked only for its missing answers, a chunk of questions at a time.
arena_answer_round <- function(run, state, new) {
  state$rounds <- state$rounds + 1L
  state$arranged <- rbind(state$arranged, new)
  write_round_results(run$paths, state$arranged, NULL)
  chats <- Filter(Negate(is.null), run$models)
  if (!length(chats)) return(state)
  rows <- match(unique(new$question), state$answers$question)
  for (part in arena_chunks(length(rows), arena_chunk(run$settings) %/% length(chats))) {
    at <- rows[part]
    asked <- arena_answers(state$answers$question[at], chats, run$settings,
                           known = state$answers[at, ])
    state$sent <- state$sent + (attr(asked, "sent") %||% 0L)
    for (m in names(chats)) state$answers[[m]][at] <- asked[[m]]
  }
  export_answers(run$paths, state$answers[c("question", names(chats))])
  state
}

# Judge: the round's battles judged a chunk at a time, records kept, samples streamed to the log.
arena_judge_round <- function(run, state, new, round) {
  battles <- arena_battles(new$arrangement, state$answers, run$prompt_version, prompts = FALSE)
  judged_pairs <- pair_keys(battles$model_a, battles$model_b, run$model_names)
  warn_pairs_without_battles(setdiff(new$wanted, judged_pairs), round)
  if (!nrow(battles)) return(state)
  judged <- arena_judge_chunks(battles, run, state$log, state$rating, run$settings)
  # (an offline judge sends nothing; its verdicts are never cached)
  if (!state$log$offline) state$sent <- state$sent + judged$sent
  records <- judged$records
  state$records <- rbind(state$records, records)
  write_round_results(run$paths, state$arranged, state$records)
  export_verdicts(run$paths, own_order_records(records, judged$own))
  state
}

# The battles judged a chunk at a time (a round's, or a rescore's), each chunk streamed to
# the log: their records, each battle's own-order verdict and the requests sent.
arena_judge_chunks <- function(battles, run, log, rating, settings) {
  judge <- configured_judge(run$judge, run$prompt_version)
  step <- arena_chunk(settings) %/% if (run$position_swap) 2L else 1L
  records <- own <- list()
  sent <- 0
  for (part in arena_chunks(nrow(battles), step)) {
    chunk <- battles[part, ]
    chunk$input <- battle_prompts(chunk, run$prompt_version)
    judged <- judge_verdicts(chunk, judge, run$prompt_version, run$position_swap, settings)
    sent <- sent + sum(!judged$cached)
    arena_log_add(log, run, judged, rating)
    records[[length(records) + 1L]] <- judged_records(judged)
    own[[length(own) + 1L]] <- judged$winner_ab
  }
  list(records = do.call(rbind, records), own = unlist(own), sent = sent)
}

# Rate: warnings for what is missing, the ratings (elo_rating.csv) and the run's log closed.
arena_rate <- function(run, state, rating, max_rounds) {
  records <- state$records
  if (run$strategy == "pairs") {
    warn_short_pairs(records, run$model_names, run$n, state$stopped, max_rounds)
  }
  warn_failed_judgements(records)
  unreadable <- state$log$unreadable
  warn_unreadable_verdicts(unreadable, nrow(records), "battle", arena_unreadable_consequence)
  ratings <- NULL
  if (nrow(records)) {
    ratings <- arena_ratings(records, rating_options_of(rating))
    write_ratings_file(run$paths, ratings)
  }
  paths <- run$paths[setdiff(names(run$paths), c("source_questions", "answers", "verdicts"))]
  if (!is.null(state$log$writer)) {
    # a rerun that sent nothing, of a run whose log is whole: that log is this run's
    logs <- if (!state$sent) arena_same_log(run$dir, state$log, run$prompt_version, rating)
    if (!is.null(logs)) {
      arena_log_abandon(state$log)
      cli::cli_inform(c(i = "Nothing was sent: the run's log is {.file {logs[[1]]}} (no new
                             log written)."), class = "predictivebench_message_same_run")
    }
    logs <- logs %||% arena_log_finish(state$log, ratings, run$prompt_version, rating)
    paths$log <- logs[[1]]
    # a run of many battles: its log in several files (R/arena-log.R), read as one run
    if (length(logs) > 1) paths$log_parts <- logs
  }
  structure(list(ratings = ratings, records = records, arrangement = state$arranged,
                 answers = state$answers, rounds = state$rounds, paths = paths,
                 unreadable = unreadable[unreadable > 0]),
            class = "arena_run")
}

warn_failed_judgements <- function(records) {
  failed <- sum(is.na(records$winner))
  if (!failed) return(invisible())
  cli::cli_warn(c("{failed} judgement{?s} failed; run {.fn arena_run} again to retry.",
                  i = "Verdicts already recorded are not requested again."),
                class = "predictivebench_warning_failed_requests")
}

# The run log's headline: every model's rating as summary rows (`estimate` on the Elo scale, not
# 0-1), by the run's own rating options when the battles carry them.
arena_rating_rows <- function(x) {
  samples <- benchmark_samples(x, character(), "an arena run's log or its battles.")
  # the run's options: in its log's header (each battle carried them in older logs)
  options <- attr(samples, "log")$eval$metadata$rating_options
  if (is.null(options) && "rating_options" %in% names(samples) && nrow(samples)) {
    options <- samples$rating_options[[1]]
  }
  if (!is.null(options)) options <- jsonlite::fromJSON(as.character(options))
  ratings <- arena_ratings(samples, rating_options_of(as.list(options)))
  benchmark_summary(arena_rating_summary(ratings), "arena_ratings",
                    title = "Arena: rating by model")
}

arena_rating_interval <- "95% bootstrap interval of the rating (battles resampled)"

#' @export
print.arena_run <- function(x, ...) {
  unreadable <- x$unreadable %||% integer()
  # each judge's battles without a readable verdict: no verdict, though no request failed
  said <- if (length(unreadable)) {
    paste0("; ", paste0(names(unreadable), " gave no readable verdict in ", unreadable,
                        collapse = ", "))
  } else ""
  cli::cat_line(cli::format_inline(
    "{.strong Arena run}: {x$rounds} round{?s}, {nrow(x$records)} battle{?s}, ",
    "{sum(is.na(x$records$winner))} failed{said}."
  ))
  if (!is.null(x$ratings)) print(x$ratings, ...)
  invisible(x)
}

