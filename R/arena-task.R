# The arena as a vitals Task: the questions (the dataset), the evaluated model answering
# them (the solver), and EloBench's judge comparing each answer with reference models'
# answers (the scorer); arena_summary() gives win rates as summary rows.

rlang::on_load(register_benchmark(
  "arena", "arena_summary", headline = NULL, by = "opponent", interval = arena_interval
))

arena_interval <- "95% confidence interval (a question's epochs clustered)"

#' The arena's question table
#'
#' `arena_dataset()` reads the unique questions of an arena dataset: a task table (parquet,
#' schema `arena`, made by [prepare_task_table()]) or a `questions.csv` read directly. By default,
#' EloBench's real questions (version `"rwq"`, 20,772 questions; `"rwq_200"` and
#' `"quora_100"` are its subsets), downloaded once; `version = "sample"` is the bundled
#' sample. `prepare_task_table("arena", source, out)` writes the table of a `questions.csv`
#' as parquet.
#' Both are plain R (no Python): `questions.csv` is part of EloBench's folder, which
#' [arena_run()] reads at evaluation time, so its one reader is the R one. Every row must
#' have as many fields as the header; blank lines are skipped; an empty string is a
#' question. `limit` and `shuffle` take part of the table, as every `*_dataset()` does.
#'
#' @param path A parquet task table, a `questions.csv`, a data frame in the `arena` schema,
#'   or `NULL` for the real questions at `version`.
#' @inheritParams task-table-args
#' @param source A `questions.csv` (column `question`).
#' @param out The parquet file to write, or `NULL` to return the table.
#' @param on_error `"error"` (the default) stops at a row whose field count differs from
#'   the header's, naming the row; `"skip"` leaves such rows out with a warning naming them
#'   (`first_row` still counts the file's rows).
#' @returns A tibble with `id`, `input` (the question), `target` (missing), `occurrences`
#'   and `first_row` (1-based row of its first occurrence).
#' @family arena
#' @export
#' @examples
#' arena_dataset(version = "sample")
arena_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  if (is.null(path) && is_sample(version)) {
    path <- file.path(arena_sample_dir(), "data", "sample", "questions.csv")
    version <- NULL
  }
  # A questions.csv is read here (its one reader is R's); tables go through the skeleton.
  if (rlang::is_string(path) && !grepl("\\.parquet$", path)) {
    path <- read_questions_table(path)
  }
  benchmark_dataset("arena", path, limit = limit, shuffle = shuffle, version = version)
}

#' @rdname arena_dataset
#' @keywords internal
prepare_arena <- function(source, out = NULL, on_error = c("error", "skip")) {
  check_string(source)
  check_string(out, allow_null = TRUE)
  on_error <- rlang::arg_match(on_error)
  table <- validate_task_table(read_questions_table(source, on_error), "arena", file = source)
  if (is.null(out)) return(table)
  write_task_table(table, out, "arena")
}

arena_sample_dir <- function() system.file("extdata", "arena", package = "predictivebench")

#' One model in the arena: its answers judged against reference answers
#'
#' @description
#' `arena_task()` evaluates one model the way EloBench rates it, as a vitals Task over the
#' arena's questions ([arena_dataset()]):
#'
#' * the **solver** (`arena_solver()`) is the evaluated model (`$eval(solver_chat = )`)
#'   answering each question, sent as one user message as [arena_run()] does;
#' * the **scorer** (`arena_scorer()`) puts that answer in a battle against each reference
#'   model's answer to the same question (`answers`, an EloBench answer cache
#'   `q_and_as.csv`), judged by EloBench's judge prompt ([arena_judge_prompt()]) at
#'   temperature 0 with at most 800 tokens; the judge is the task's `judge`, the scorer's
#'   `scorer_chat` or `$eval(scorer_chat = )`. Each battle gives the evaluated model 1 for a
#'   win, 0 for a loss and 0.5 for a tie; `tie(all bad)` (both answers bad) is also 0.5, as
#'   the original's Elo counts it; a failed judgement is a tie (the original) or, with
#'   `invalid = "drop"`, left out. A question's score is the mean over its battles, a double
#'   in `[0, 1]`; a question no reference model answered, or that the model failed to
#'   answer, is `NA` (unscored).
#' * `arena_summary()` gives the standard summary rows: the `overall` win rate and the win
#'   rate against each reference model (`group` `"vs <model>"`), on the 0-1 scale with 95%
#'   intervals. The Elo table of the evaluated model and the reference models, fitted to
#'   these battles, is [arena_ratings()] (an Elo rating is not on the 0-1 scale of summary
#'   rows).
#'
#' To rate several models against each other in EloBench's own way (every pair of models on
#' arranged questions, rounds, EloBench's files), use [arena_run()].
#'
#' @section Differences from the original:
#' * EloBench rates models from battles between every pair on arranged questions; a task
#'   evaluates one model at a time, in a battle on every question against every reference
#'   model that answered it. The evaluated model is always the first answer (`model_a`)
#'   the judge reads; `position_swap = TRUE` judges both orders and keeps a verdict only
#'   when both agree (a disagreement is a tie), against the judge's preference for the
#'   first answer.
#' * Answers are the model's reply to the question sent as one user message (the original
#'   used its own prompt template per local model).
#' * A failed judge request is recorded with no verdict (the original retried forever); a
#'   response with no readable verdict is `invalid`; both count as `invalid` says. The
#'   original asked for `response_format = json_object`; ellmer has no portable switch for
#'   it, so a JSON verdict inside a code fence or surrounded by text is also accepted.
#'
#' @param dataset Questions from [arena_dataset()].
#' @param solver,scorer A solver and scorer, by default `arena_solver()` and
#'   `arena_scorer(answers = answers, scorer_chat = judge)`.
#' @inheritParams task-args
#' @param judge For `arena_task()`: the judge chat given to the default scorer; `NULL`
#'   leaves it to `$eval(scorer_chat = )`. Ignored when you give your own `scorer`.
#' @param answers The reference models' answers: an EloBench answer cache (`q_and_as.csv`,
#'   `question` and one column per model, `NaN` for no answer, see [arena_read_answers()]),
#'   a data frame in that layout, or `NULL` (the default) for the bundled sample's answers
#'   (four fictional models on the sample's questions). For EloBench's real questions, give
#'   answers to them, such as EloBench's `tempcache/<dataset>/q_and_as.csv` or the cache an
#'   [arena_run()] wrote.
#' @param temperature,params,system_prompt For `arena_solver()`: the evaluated model's
#'   sampling temperature (`NULL`, the default, keeps the chat's own, as the original
#'   generated with each model's defaults), other request parameters ([ellmer::params()])
#'   and a system prompt replacing the chat's (`NULL` keeps it).
#' @param settings How requests are sent: a [request_settings()] object, or `NULL` for the
#'   defaults; a setting given to `$eval()` (such as `max_active = 50`) overrides it.
#' @param scorer_chat For `arena_scorer()`: the judge chat (the original used gpt-4), or
#'   `NULL` to take it from `$eval(scorer_chat = )`.
#' @param version Judge prompt version: `"231225"` (JSON verdict) or `"231113"` (scores).
#' @param position_swap Judge both orders and keep consistent verdicts.
#' @param invalid Failed judgements count as a `"tie"` (the original) or are dropped
#'   (`"drop"`).
#' @returns `arena_task()` a [ResultsTask] (a [vitals::Task]); `arena_solver()` and
#'   `arena_scorer()` functions for it. The scorer's `scorer_metadata` holds `model` (the
#'   evaluated model's name in the battles), `wins`, `ties`, `losses`, `failed` and
#'   `battles` (JSON: each reference model and the verdict) and the judge's usage.
#' @family arena
#' @export
#' @examples
#' # Offline: a baseline model and a judge that always prefers the first answer (the
#' # evaluated model's); use a real chat as the judge for real win rates.
#' judge <- baseline_chat('{"winner": 1, "explanation": "The first is better."}')
#' tsk <- arena_task(arena_dataset(version = "sample"), judge = judge, dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat(function(q) "Purring, eight legs, 100 degrees: it depends."),
#'          view = FALSE)
#' arena_summary(tsk)
#' arena_ratings(tsk, bootstrap = 0)
arena_task <- function(dataset = arena_dataset(), solver = arena_solver(),
                       scorer = arena_scorer(answers = answers, scorer_chat = judge),
                       epochs = NULL, dir = vitals::vitals_log_dir(), name = "arena",
                       judge = NULL, answers = NULL) {
  dataset <- validate_task_table(dataset, "arena")
  dataset$target <- rep("", nrow(dataset))
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, name = name,
                 benchmark = "arena")
}

#' @rdname arena_task
#' @export
arena_solver <- function(temperature = NULL, params = NULL, system_prompt = NULL,
                         settings = NULL) {
  check_number(temperature, allow_null = TRUE)
  check_string(system_prompt, allow_null = TRUE)
  params <- c(params, if (!is.null(temperature)) list(temperature = temperature))
  settings <- as_request_settings(settings)
  function(inputs, ..., solver_chat) {
    s <- as_request_settings(settings, ...)
    # key_extra as arena_answers(): the first epoch of a question reuses an answer that
    # arena_run() cached for the same chat, and the other way round.
    solve <- generate_solver(system_prompt = system_prompt, params = params, settings = s,
                             key_extra = "arena-answer-v1")
    solve(inputs, solver_chat = solver_chat)
  }
}

#' @rdname arena_task
#' @export
arena_scorer <- function(answers = NULL, scorer_chat = NULL, version = c("231225", "231113"),
                         position_swap = FALSE, invalid = c("tie", "drop"), settings = NULL) {
  version <- rlang::arg_match(version)
  invalid <- rlang::arg_match(invalid)
  check_flag(position_swap)
  reference <- arena_reference_answers(answers)
  default_chat <- as_chat(scorer_chat, allow_null = TRUE)
  settings <- as_request_settings(settings)
  function(samples, ..., scorer_chat = default_chat) {
    if (is.null(scorer_chat)) {
      abort_pb(c("The arena's scorer needs a judge (the original used gpt-4).",
                 i = "Give {.code arena_task(judge = )}, {.code arena_scorer(scorer_chat = )}
                      or {.code $eval(scorer_chat = )}."),
               "argument")
    }
    scorer_chat <- as_chat(scorer_chat)
    s <- as_request_settings(settings, ...)
    model <- arena_model_name(samples, setdiff(names(reference), "question"))
    battles <- arena_reference_battles(samples, reference, model, version)
    warn_unreferenced(samples, battles)
    judged <- if (!nrow(battles)) {
      tibble::tibble(winner = character(), error = character(), usage = list(), chat = list())
    } else {
      judge_battles(battles, scorer_chat, version = version, position_swap = position_swap,
                    settings = s)
    }
    report_failures(ifelse(is.na(judged$winner),
                           ifelse(is.na(judged$error), "no verdict", judged$error), NA),
                    what = "judgement")
    arena_reference_scores(samples, battles, judged, model, invalid, scorer_chat)
  }
}

# The reference answers as a tibble `question` + one column per model.
arena_reference_answers <- function(answers, call = rlang::caller_env()) {
  if (is.null(answers)) {
    answers <- file.path(arena_sample_dir(), "tempcache", "sample", "q_and_as.csv")
  }
  if (rlang::is_string(answers)) answers <- arena_read_answers(answers)
  if (!is.data.frame(answers) || !"question" %in% names(answers) || ncol(answers) < 2) {
    abort_pb(c("{.arg answers} must be an answer cache: {.field question} and one column per
                model.", i = "See {.fn arena_read_answers}."), "argument", call = call)
  }
  tibble::as_tibble(answers)
}

# Questions without a battle are unscored; say so when the reference answers are the cause
# (the bundled sample's answers do not cover EloBench's real questions).
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

# The evaluated model's name in its battles: the solver chat's model, told apart from the
# reference models' names.
arena_model_name <- function(samples, references) {
  chat <- if ("solver_chat" %in% names(samples) && nrow(samples)) samples$solver_chat[[1]]
  name <- if (inherits(chat, "Chat")) tryCatch(chat$get_model(), error = function(e) NULL)
  if (!rlang::is_string(name) || !nzchar(name)) name <- "model"
  while (name %in% references) name <- paste0(name, " (evaluated)")
  name
}

# One battle per sample and reference model that answered its question: the sample's answer
# as model_a, the reference's as model_b; `.sample` is the sample's row.
arena_reference_battles <- function(samples, reference, model, version) {
  row <- match(samples$input, reference$question)
  models <- setdiff(names(reference), "question")
  pairs <- expand.grid(.sample = seq_len(nrow(samples)), model_b = models,
                       stringsAsFactors = FALSE)
  pairs <- pairs[order(pairs$.sample), ]
  answer_b <- vapply(seq_len(nrow(pairs)), function(i) {
    r <- row[[pairs$.sample[[i]]]]
    if (is.na(r)) NA_character_ else as.character(reference[[pairs$model_b[[i]]]][[r]])
  }, "")
  answer_a <- as.character(samples$result[pairs$.sample])
  keep <- !is.na(answer_a) & !is.na(answer_b)
  out <- tibble::tibble(.sample = pairs$.sample[keep],
                        question = as.character(samples$input[pairs$.sample[keep]]),
                        model_a = rep(model, sum(keep)), model_b = pairs$model_b[keep],
                        answer_a = answer_a[keep], answer_b = answer_b[keep])
  out$input <- if (nrow(out)) {
    arena_judge_prompt(out$question, out$answer_a, out$answer_b, version)$user
  } else {
    character()
  }
  out
}

# Each sample's score (mean points over its battles), metadata and explanation.
arena_reference_scores <- function(samples, battles, judged, model, invalid, judge) {
  points <- winner_points(judged$winner, failed = if (invalid == "tie") 0.5 else NA_real_)
  by_sample <- split(seq_len(nrow(battles)), factor(battles$.sample, seq_len(nrow(samples))))
  usage <- tibble::tibble(
    cached = vapply(judged$usage, function(u) isTRUE(u$cached), TRUE),
    input_tokens = vapply(judged$usage, function(u) as.double(u$input_tokens %||% 0), 0),
    output_tokens = vapply(judged$usage, function(u) as.double(u$output_tokens %||% 0), 0),
    cost = vapply(judged$usage, function(u) as.double(u$cost %||% 0), 0)
  )
  score <- vapply(by_sample, function(i) {
    if (!length(i) || all(is.na(points[i]))) NA_real_ else mean(points[i], na.rm = TRUE)
  }, 0)
  list(
    score = score_values(unname(score)),
    scorer_chat = lapply(by_sample, function(i) {
      if (length(i)) judged$chat[[i[[1]]]] else judge$clone()$set_turns(list())
    }),
    scorer_metadata = lapply(unname(by_sample), function(i) {
      winner <- judged$winner[i]
      c(list(model = model, wins = sum(winner %in% "model_a"),
             ties = sum(winner %in% c("tie", "tie(all bad)")),
             losses = sum(winner %in% "model_b"), failed = sum(failed_judgement(winner)),
             battles = jsonlite::toJSON(list(opponent = battles$model_b[i],
                                             winner = winner))),
        usage_metadata(usage, i))
    }),
    explanation = unname(vapply(by_sample, function(i) {
      if (!length(i)) return("No battle: no reference model answered this question, or the model did not.")
      said <- c(model_a = "win", model_b = "loss", tie = "tie", `tie(all bad)` = "tie(all bad)",
                invalid = "invalid verdict")[judged$winner[i]]
      verdict <- ifelse(is.na(said), "no verdict", said)
      paste0(paste0("vs ", battles$model_b[i], ": ", verdict, " (",
                    ifelse(is.na(points[i]), "dropped", format(points[i])), ")",
                    collapse = "; "), ".")
    }, ""))
  )
}

# The battles of an arena_task()'s samples, from the scorer's metadata.
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

#' Arena summary: the evaluated model's win rates
#'
#' `arena_summary()` gives an evaluated [arena_task()]'s summary rows, as every
#' `<bench>_summary()` does: `overall` (the mean score of the questions: its win rate, ties
#' half) and one row per reference model (`"vs <model>"`: its points in the battles against
#' that model), `metric` `"win_rate"`, `estimate` on the 0-1 scale, a 95% interval
#' (normal, clipped to `[0, 1]`; a question's epochs form one cluster) and `n` (questions,
#' or battles against that model), then `n_missing` (unscored). Given battles (`model_a`,
#' `model_b`, `winner`, as [arena_run()] records them) it gives each model's win rate
#' instead, one row per model, with bootstrap intervals. The Elo ratings are
#' [arena_ratings()].
#'
#' @param x An evaluated [arena_task()], its samples, its log file, or battles.
#' @param invalid Failed judgements count as a `"tie"` (the original) or are dropped.
#' @param method,times,seed Interval method (`"normal"` or `"bootstrap"`), bootstrap rounds
#'   and seed.
#' @param cluster Clusters of samples (see [resolve_cluster()]): by default a question's
#'   epochs (`"id"`); `NULL` treats every sample as independent.
#' @returns A [benchmark_summary()] tibble: `group`, `metric`, `estimate`, `lower`, `upper`,
#'   `n`, then `n_missing`.
#' @family arena
#' @export
#' @examples
#' judge <- baseline_chat('{"winner": 1, "explanation": "The first is better."}')
#' tsk <- arena_task(arena_dataset(version = "sample"), judge = judge, dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat(function(q) "It depends."), view = FALSE)
#' arena_summary(tsk)
arena_summary <- function(x, invalid = c("tie", "drop"), method = c("normal", "bootstrap"),
                          times = 1000, seed = 1, cluster = "default") {
  invalid <- rlang::arg_match(invalid)
  method <- rlang::arg_match(method)
  x <- benchmark_samples(x, character(), "an evaluated arena task, its samples, its log file,
                         or battles.")
  if (all(c("model_a", "model_b") %in% names(x))) {
    return(arena_win_rates(x, invalid = invalid, times = times, seed = seed))
  }
  if (!all(c("input", "scorer_metadata") %in% names(x))) {
    abort_pb("{.arg x} must be an evaluated arena task, its samples, its log file, or battles.",
             "argument")
  }
  battles <- arena_reference_outcomes(x)
  points <- winner_points(battles$winner, failed = if (invalid == "tie") 0.5 else NA_real_)
  cl <- resolve_cluster(x, cluster, default = "id")
  sample_of <- battles$.row
  score <- vapply(seq_len(nrow(x)), function(i) {
    p <- points[sample_of == i]
    if (!length(p) || all(is.na(p))) NA_real_ else mean(p, na.rm = TRUE)
  }, 0)
  ci_args <- list(method = method, times = times, seed = seed, limits = c(0, 1))
  overall <- rlang::exec(mean_ci, score, !!!ci_args, cluster = cl)
  rows <- list(summary_rows("overall", "win_rate", overall, n_missing = overall$n_missing))
  for (opponent in sort(unique(battles$model_b))) {
    mine <- battles$model_b == opponent
    ci <- rlang::exec(mean_ci, points[mine], !!!ci_args,
                      cluster = if (!is.null(cl)) cl[sample_of[mine]])
    rows <- c(rows, list(summary_rows(paste("vs", opponent), "win_rate", ci,
                                      n_missing = ci$n_missing)))
  }
  out <- do.call(rbind, lapply(rows, function(r) r[c(summary_columns, "n_missing")]))
  benchmark_summary(out, "arena", by = "opponent", interval = arena_interval)
}
