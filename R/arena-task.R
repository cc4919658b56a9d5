# The arena as a vitals Task: EloBench's judge compares the model's answers with reference models'.

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
#' @returns A tibble with `id`, `input` (the question), `target` (missing), `occurrences`
#'   and `first_row` (1-based row of its first occurrence).
#' @family arena
#' @export
#' @examples
#' arena_dataset(version = "sample")
arena_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  if (is.null(path) && is_sample(version)) {
    path <- sample_store()$questions
    version <- NULL
  }
  # A questions.csv is read here (its one reader is R's); tables go through the skeleton.
  if (rlang::is_string(path) && !grepl("\\.parquet$", path)) {
    path <- read_questions_table(path)
  }
  benchmark_dataset("arena", path, limit = limit, shuffle = shuffle, version = version)
}

# What prepare_task_table("arena", source, out) calls: `source` a `questions.csv`; `on_error =
# "skip"` leaves rows of the wrong field count out with a warning naming them.
prepare_arena <- function(source, out = NULL, on_error = c("error", "skip")) {
  check_string(source)
  check_string(out, allow_null = TRUE)
  on_error <- rlang::arg_match(on_error)
  table <- validate_task_table(read_questions_table(source, on_error), "arena", file = source)
  if (is.null(out)) return(table)
  write_task_table(table, out, "arena")
}

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
#'   `q_and_as.csv`), judged by EloBench's judge prompt (of the scorer's `version`) at
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
#' * Reasoning is kept, never judged: a reasoning model's answer is the text after its
#'   thinking (`<think>...</think>`, or a server's `reasoning_content`), so the judge reads
#'   answers without thinking, and a reasoning judge's verdict is read from its answer, not
#'   its thinking. EloBench's models and judge showed no reasoning. An answer that exists
#'   only in unfinished thinking (cut off at the token limit) is an empty answer.
#'
#' @param dataset Questions from [arena_dataset()].
#' @param solver,scorer A solver and scorer, by default `arena_solver()` and
#'   `arena_scorer(answers = answers, scorer_chat = judge)`.
#' @inheritParams task-args
#' @param judge For `arena_task()`: the judge chat given to the default scorer, or a list
#'   of chats (a panel of judges, as in [arena_run()]: the verdict more than half the judges
#'   give, a tie when every judge gave one and none has a majority; each battle's judges' own
#'   verdicts in the sample's `scorer_metadata$judges`); `NULL` leaves it to
#'   `$eval(scorer_chat = )` (given neither, `$eval()` refuses before anything is sent).
#'   Ignored when you give your own `scorer`.
#' @param answers The reference models' answers: an EloBench answer cache (`q_and_as.csv`,
#'   `question` and one column per model, `NaN` for no answer),
#'   a data frame in that layout, or `NULL` (the default) for the bundled sample's answers
#'   (four fictional models on the sample's questions). For EloBench's real questions, give
#'   answers to them, such as EloBench's `tempcache/<dataset>/q_and_as.csv` or the one an
#'   [arena_run()] exports to its `elobench` folder. With the default scorer, `arena_task()` stops before anything is
#'   solved (an error of class `predictivebench_error_answers` that says what to pass) when
#'   none of the dataset's questions has a reference answer, as for the default real
#'   questions with the bundled answers; questions some reference answered are judged, the
#'   others unscored (with a message).
#' @param temperature,params,system_prompt For `arena_solver()`: the evaluated model's
#'   sampling temperature (`NULL`, the default, keeps the chat's own, as the original
#'   generated with each model's defaults), other request parameters ([ellmer::params()])
#'   and a system prompt replacing the chat's (`NULL` keeps it).
#' @param settings How requests are sent: a [request_settings()] object, or `NULL` for the
#'   defaults; a setting given to `$eval()` (such as `max_active = 50`) overrides it.
#' @param scorer_chat For `arena_scorer()`: the judge chat (the original used gpt-4), a list
#'   of chats (a panel, see `judge`), or `NULL` to take it from `$eval(scorer_chat = )`.
#' @param version Judge prompt version: `"231225"` (JSON verdict) or `"231113"` (scores).
#' @param position_swap Judge both orders and keep consistent verdicts.
#' @param invalid Failed judgements count as a `"tie"` (the original) or are dropped
#'   (`"drop"`).
#' @returns `arena_task()` a `ResultsTask` (a [vitals::Task]); `arena_solver()` and
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
#' arena_ratings(tsk, rating_options(bootstrap = 0))
arena_task <- function(dataset = arena_dataset(), solver = arena_solver(),
                       scorer = arena_scorer(answers = answers, scorer_chat = judge),
                       epochs = NULL, dir = vitals::vitals_log_dir(), name = "arena",
                       judge = NULL, answers = NULL) {
  dataset <- validate_task_table(dataset, "arena")
  if (missing(scorer)) {
    # read once, here, so the check and the scorer see the same answers
    reference <- arena_reference_answers(answers)
    check_reference_coverage(dataset$input, reference, is.null(answers))
    scorer <- arena_scorer(answers = reference, scorer_chat = judge)
  }
  dataset$target <- rep("", nrow(dataset))
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, benchmark = "arena",
                 options = task_options(name))
}

# With the default scorer, a dataset without any referenced question would give only unscored
# samples: stop before solving (nothing paid) and say what to pass.
check_reference_coverage <- function(questions, reference, bundled,
                                     call = rlang::caller_env()) {
  answered <- rowSums(!is.na(as.matrix(reference[setdiff(names(reference), "question")]))) > 0
  if (!length(questions) || any(questions %in% reference$question[answered])) {
    return(invisible())
  }
  whose <- if (bundled) "the bundled sample's reference answers" else "{.arg answers}"
  abort_pb(
    c(paste0("None of the {length(questions)} question{?s} has a reference answer in ", whose,
             ", so no battle could be judged."),
      i = "Give the reference models' answers to these questions: {.code arena_task(answers =
           )} with an EloBench answer cache ({.file {elobench_answers_file}}: {.field question}
           and one column per model), such as the one {.fn arena_run} writes in its
           {.arg elobench} folder ({.file tempcache/<version>/{elobench_answers_file}}).",
      i = "The bundled answers are for {.code arena_dataset(version = \"sample\")}."),
    "answers", field = "answers", call = call
  )
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
    s <- settings_with_dots(settings, ...)
    # key_extra as arena_answers(), so arena_run()'s cached answers for this chat are reused.
    solve <- generate_solver(system_prompt = system_prompt, params = params, settings = s,
                             key_extra = "arena-answer-v1")
    solve(inputs, solver_chat = solver_chat)
  }
}
