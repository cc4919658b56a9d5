# Scoring a finished run again with another judge or scorer: the answers come from the run's
# log, never from a solver, and each new log is written beside the old one, naming what it
# was rescored from and with what.

#' Score a run again with another judge
#'
#' @description
#' `rescore()` scores the samples a run already holds again, with another judge (or another
#' scorer), and writes a new log beside each old one. The answers are read from the log
#' itself: no solver request is ever sent, so a log you were sent, a folder from last month
#' or a set whose answers are no longer in your cache can be judged again. Only the judge's
#' requests are sent, through the package's engine like every other request (the response
#' cache, the request pool and its settings, [estimate_cost()]'s preview and `max_cost`).
#'
#' Which benchmarks: those whose score ends in an LLM's verdict, registered with a
#' `judge_scorer` ([new_benchmark()]): DSBench's judge, FutureX's numeric judge and the
#' arena task's pairwise judge (against its reference answers) in the package; and runs
#' judged as a whole, registered with a `rescore_run`: an [arena_run()]'s log (every part of
#' it), whose battles are judged again by the new judge as the run judged them (its prompt
#' version and position swap) and rated again with the run's own rating options, so the new
#' log's ratings are those the run would have given with that judge. A benchmark
#' without a judge is scored again with `scorer =` only; `judge =` for it is an error of
#' class `predictivebench_error_no_judge`.
#'
#' Each new log is a log of the package like any other (Inspect's format, shown by
#' `vitals::vitals_view()`, read by [leaderboard()], [compare_models()] and the summaries):
#' its model is the run's, its task is named after the benchmark and the judge, and its
#' `eval.metadata` names what it was rescored from (`rescored_from`: the old log's file
#' name; `rescored_from_task`, `rescored_from_run`: its task and run ids) and with what
#' (`judge`, `judge_provider`, `rescored_with`: the scorer). The judge is also the log's
#' `grader` model role (a panel's members `grader_1`, `grader_2`, ...), which the viewer
#' shows in the run's header. [leaderboard()] shows
#' the judge of every run in its column `judge`, so a rescored run and its original sit on
#' one board, told apart; [compare_models()] of a folder compares them as two runs (each
#' model named with its judge where a model has runs of several judges). The old logs are
#' never touched.
#'
#' @param x What to score again: an evaluated task of the package (its log is read), an
#'   [arena_run()] result (its log, every part of it), a log file, a folder of logs, or an
#'   evaluation set's folder ([eval_set()]'s `log_dir`: each cell's completed run). In a
#'   folder, logs that are rescores themselves are left out, and so, given `judge`, are the
#'   logs of benchmarks without a judge (a message says how many). A run's log in parts is
#'   read whole from any of its files, and rescored once.
#' @param judge The new judge: what the benchmark's scorer takes as its judge, an ellmer
#'   chat or a `"provider/model"` string, or a list of them, a panel of judges (the new logs
#'   name it `"panel(a, b, c)"`, each member a model role). Give `judge` or `scorer`.
#' @param scorer A scorer to use instead of the benchmark's own (a function of the samples,
#'   as [vitals::Task] takes one): it gets the samples the log holds (`id`, `input`,
#'   `target`, `result` and the dataset columns the task logged).
#' @param dir The folder to write the new logs to. `NULL` (the default): beside each old
#'   log.
#' @param ... Request settings for the judge's requests, as `$eval()` takes them (such as
#'   `cache`, `max_active`; see [request_settings()]).
#' @param max_cost `NULL`, or the most (in dollars) the judge's requests may cost: every
#'   rescore is priced first ([estimate_cost()], offline), and a total above `max_cost`, or
#'   a cost that can't be bounded (a model without a known price, a judge without
#'   `max_tokens`), stops with an error of class `predictivebench_error_cost` before any
#'   request is sent.
#' @returns A tibble with one row per new log: `benchmark`, `model` (the run's), `judge`
#'   (the judge's model, `NA` for a scorer without one), `rescored_with` (the scorer),
#'   `source` (the old log) and `log` (the new one). Give `leaderboard(out$source,
#'   out$log)` to see both side by side.
#' @family results
#' @export
#' @examples
#' old <- options(predictivebench.cache_dir = tempfile())
#' dir <- tempfile()
#' data <- dsbench_dataset(version = "sample")
#' # a run judged by a judge that says "True" to everything
#' tsk <- dsbench_task(data, judge = baseline_chat("True", name = "lenient-judge"), dir = dir)
#' tsk$eval(solver_chat = baseline_chat("42", name = "always-42"), view = FALSE)
#' # the same answers judged again by a judge that rejects them (no solver request is sent)
#' strict <- baseline_chat("False", name = "strict-judge")
#' again <- rescore(tsk, judge = strict)
#' again
#' board <- leaderboard(dir)
#' board[board$metric == "questions", c("model", "judge", "estimate")]
#' options(old)
rescore <- function(x, judge = NULL, scorer = NULL, dir = NULL, ..., max_cost = NULL) {
  judge <- check_rescore_with(judge, scorer)
  check_string(dir, allow_null = TRUE)
  check_number(max_cost, allow_null = TRUE)
  dots <- list(...)
  check_eval_dots(dots)
  if (any(c("solver_chat", "scorer_chat", "epochs", "view") %in% names(dots))) {
    abort_pb("{.arg ...} takes request settings only: the answers, epochs and judge come from
              the log and {.arg judge}.", "argument")
  }
  with <- rescore_label(judge, scorer)
  logs <- rescore_sources(x)
  plans <- lapply(logs$path, function(path) {
    rescore_plan(path, judge, scorer, with, dir, in_folder = logs$folder[[match(path, logs$path)]])
  })
  # a run's later parts are read with its first (rescore_run_plan())
  plans <- Filter(function(plan) !isTRUE(attr(plan, "part")), plans)
  skipped <- vapply(plans, is.null, TRUE)
  if (any(skipped)) {
    cli::cli_inform(c(i = "Left out {sum(skipped)} log{?s}: rescores themselves, or runs of a
                           benchmark without a judge."),
                    class = "predictivebench_message_rescore_skipped")
  }
  plans <- plans[!skipped]
  if (!length(plans)) {
    abort_pb(c("No log to score again with a judge: none of their benchmarks has one.",
               i = "Give {.arg scorer} to score them with another scorer."), "no_judge")
  }
  if (!is.null(max_cost)) check_rescore_cost(plans, judge, dots, max_cost)
  rows <- lapply(plans, function(plan) {
    log <- rescore_one(plan, judge, dots)
    tibble::tibble(benchmark = plan$benchmark, model = plan$model,
                   judge = with$judge %||% NA_character_, rescored_with = with$scorer,
                   source = plan$path, log = log)
  })
  do.call(rbind, rows)
}

# Exactly one of a judge (a chat, a "provider/model" string, or a list of them: a panel,
# checked by check_judge()) and a scorer function. The judge, checked.
check_rescore_with <- function(judge, scorer, call = rlang::caller_env()) {
  if (is.null(judge) == is.null(scorer)) {
    abort_pb("Give {.arg judge} or {.arg scorer}, one of them.", "argument", call = call)
  }
  if (!is.null(scorer) && !is.function(scorer)) {
    abort_pb("{.arg scorer} must be a function of the samples.", "argument", field = "scorer",
             call = call)
  }
  check_judge(judge, allow_null = TRUE, call = call)
}

# What the new logs say they were scored with: the judge as logs name it (judge_label(): its
# model, or "panel(a, b, c)"), its provider, each member's "<provider>/<model>" (its model
# roles), and the scorer's name.
rescore_label <- function(judge, scorer) {
  if (is.null(judge)) {
    name <- attr(scorer, "name") %||% "scorer"
    return(list(judge = NULL, provider = NULL, scorer = as.character(name)))
  }
  members <- judge_members(judge)
  providers <- unique(vapply(members, function(chat) {
    provider_label(chat$get_provider()@name)
  }, ""))
  list(judge = judge_label(judge), provider = paste(providers, collapse = ", "),
       roles = vapply(members, chat_model_label, ""), scorer = "judge")
}

# The logs `x` names, and whether each came from a folder: a task's log, log files, or the
# logs in folders (an evaluation set's completed runs only).
rescore_sources <- function(x, call = rlang::caller_env()) {
  if (inherits(x, "ResultsTask")) {
    if (is.null(x$log_path) || !file.exists(x$log_path)) {
      abort_pb("The task has no log: evaluate it first.", "argument", call = call)
    }
    return(tibble::tibble(path = x$log_path, folder = FALSE))
  }
  # a run object (arena_run()'s result): its log, the run's whole log in parts read from it
  if (is.list(x) && is.object(x) && is.list(x$paths) && !is.null(x$paths$log)) {
    path <- x$paths$log
    if (!rlang::is_string(path) || !file.exists(path)) {
      abort_pb("The run has no log: its {.field paths$log} is not a file.", "argument",
               call = call)
    }
    return(tibble::tibble(path = path, folder = FALSE))
  }
  if (!is.character(x) || !length(x) || anyNA(x)) {
    abort_pb("{.arg x} must be an evaluated task, an {.fn arena_run} result, log files or
              folders of logs.", "argument", call = call)
  }
  rows <- lapply(x, function(p) {
    files <- suppressMessages(log_files(p, attempts = FALSE))
    tibble::tibble(path = files, folder = rep(dir.exists(p), length(files)))
  })
  out <- do.call(rbind, rows)
  if (!nrow(out)) abort_pb("No log found.", "missing_file", file = x[[1]], call = call)
  out[!duplicated(out$path), ]
}

# One log's rescore, ready to run. NULL for a log of a folder that is a rescore itself, or
# whose benchmark has no judge when `judge` is given.
rescore_plan <- function(path, judge, scorer, with, dir, in_folder,
                         call = rlang::caller_env()) {
  header <- read_log_header(path)
  meta <- header$eval$metadata %||% list()
  if (in_folder && !is.null(meta$rescored_from)) return(NULL)
  benchmark <- meta$benchmark
  if (!rlang::is_string(benchmark)) {
    abort_pb("The log names no benchmark (not written by predictivebench).", "argument",
             file = path, call = call)
  }
  b <- require_benchmark(benchmark, call = call)
  if (!is.null(judge) && identical(log_kind(header), "ratings")) {
    return(rescore_run_plan(path, header, b, judge, with, dir))
  }
  if (!is.null(judge)) {
    if (!is.function(b$judging$scorer)) {
      if (in_folder) return(NULL)
      abort_pb(c("The benchmark {.val {benchmark}} registers no way to score with another
                  judge.",
                 i = "Give {.arg scorer} to score its run with another scorer, or register its
                      {.arg judge_scorer} (see {.fn new_benchmark})."), "no_judge",
               file = path, call = call)
    }
    scorer <- benchmark_rescore(b, judge)
  }
  samples <- log_samples(path)
  if (!nrow(samples)) abort_pb("The log has no samples.", "empty", file = path, call = call)
  fields <- as.character(unlist(meta$dataset_fields))
  model <- as.character(header$eval$model %||% "unknown")
  chat <- replay_chat(model)
  name <- paste0(benchmark, if (!is.null(with$judge)) paste0(" judged by ", with$judge) else
    paste0(" rescored by ", with$scorer))
  task <- ResultsTask$new(
    dataset = replay_dataset(samples, fields), solver = replay_solver(samples),
    scorer = scorer, benchmark = benchmark, name = name, dir = dir %||% dirname(path),
    metadata_fields = fields
  )
  task$model_label <- model
  task$log_eval <- rescore_log_eval(path, header, with)
  list(path = path, benchmark = benchmark, model = model, task = task, chat = chat,
       epochs = max(samples$epoch))
}

# A run judged as a whole (the arena's battles and ratings), read once from its first part:
# NULL for a later part.
rescore_run_plan <- function(path, header, b, judge, with, dir) {
  meta <- header$eval$metadata
  # (every file: a run with one missing is refused while planning, before any request)
  paths <- log_part_paths(path, header)
  if (!is.null(meta$log_part) && !identical(as.integer(meta$log_part), 1L)) {
    return(structure(list(), part = TRUE))
  }
  list(path = path, paths = paths, benchmark = b$name,
       model = as.character(header$eval$model %||% "unknown"), run = b$judging$rescore_run,
       dir = dir %||% dirname(path), log_eval = rescore_log_eval(path, header, with))
}

# What the new log's header says of where it comes from and what scored it.
rescore_log_eval <- function(path, header, with) {
  metadata <- list(rescored_from = basename(path),
                   rescored_from_task = header$eval$task_id %||% header$eval$task,
                   rescored_from_run = header$eval$run_id, rescored_with = with$scorer,
                   judge = with$judge, judge_provider = with$provider)
  out <- list(metadata = metadata[!vapply(metadata, is.null, TRUE)])
  if (!is.null(with$roles)) {
    # Inspect's model roles (its ModelConfig): the viewer lists them in the run's header
    roles <- lapply(with$roles, function(model) {
      list(model = model, config = empty_object(), args = empty_object())
    })
    names(roles) <- if (length(roles) == 1) "grader" else paste0("grader_", seq_along(roles))
    out$model_roles <- roles
  }
  out
}

# The task's dataset: one row per sample (its first epoch's), with the columns the log holds.
replay_dataset <- function(samples, fields) {
  first <- samples[samples$epoch == min(samples$epoch) & !duplicated(samples$id), ]
  first <- first[order(match(first$id, unique(samples$id))), ]
  tibble::as_tibble(first[c("id", "input", "target", intersect(fields, names(first)))])
}

# A solver that sends nothing: each sample's logged answer by id and epoch, without its
# usage (it costs nothing now), bound to the rows so two samples with one prompt keep theirs.
replay_solver <- function(samples) {
  key <- paste(samples$id, samples$epoch, sep = "\r")
  answers <- samples$result
  metas <- lapply(samples$solver_metadata, function(meta) {
    meta[c("input_tokens", "output_tokens", "cost", "cached", "seconds")] <- NULL
    c(meta, list(replayed = TRUE))
  })
  ids <- unique(samples$id)
  solve <- function(inputs, rows, ..., solver_chat = NULL) {
    at <- match(paste(ids[rows$.row], rows$.epoch, sep = "\r"), key)
    result <- answers[at]
    chats <- lapply(seq_along(inputs), function(i) {
      answer <- if (is.na(result[[i]])) "" else result[[i]]
      solver_chat$clone()$set_turns(list(
        user_turn_of(as.character(inputs[[i]])),
        assistant_turn(list(text_content(answer)), tokens = c(0, 0, 0), cost = 0,
                       duration = 0, finish_reason = "stop")
      ))
    })
    list(result = result, solver_chat = chats, solver_metadata = metas[at])
  }
  dataset <- tibble::tibble(id = ids)
  solver <- function(inputs, ..., solver_chat = NULL) {
    # outside a run in chunks (a dry run): the inputs are the dataset's, each with its epochs
    epochs <- length(inputs) %/% nrow(dataset)
    rows <- tibble::tibble(.row = rep(seq_len(nrow(dataset)), each = epochs),
                           .epoch = rep(seq_len(epochs), times = nrow(dataset)))
    solve(inputs, rows, ..., solver_chat = solver_chat)
  }
  # (`$eval()` shows its step as what it does: no solver request is sent)
  structure(solver, class = c("predictivebench_solver", "function"), solve = solve,
            predictivebench_step = "Reading the answers from the log")
}

# The chat standing for the run's solver, labelled as the log labels its model, at an
# address that resolves nowhere: it is never asked anything.
replay_chat <- function(model) {
  provider <- if (grepl("/", model, fixed = TRUE)) sub("/.*$", "", model) else "unknown"
  ellmer::chat_openai_compatible(
    base_url = "http://rescore.invalid/v1", name = provider,
    model = sub("^[^/]*/", "", model), credentials = function() ""
  )
}

# The judge's requests of every rescore priced before any is sent: above `max_cost`, or
# without a bound, nothing is sent.
check_rescore_cost <- function(plans, judge, dots, max_cost, call = rlang::caller_env()) {
  settings <- dots[names(dots) %in% request_setting_names()]
  costs <- vapply(plans, function(plan) {
    if (!is.null(plan$run)) return(rescore_run_cost(plan, judge, settings))
    preview <- do.call(estimate_cost, c(list(plan$task, plan$chat, epochs = plan$epochs),
                                        settings))
    if (preview$to_send > 0) preview$cost_max else 0
  }, 1)
  if (anyNA(costs)) {
    abort_pb(c("Can't keep the rescore under {.arg max_cost}: the judge's cost is unknown.",
               i = "A price needs a model in ellmer's price table and a bound on each verdict
                    ({.code max_tokens})."), "cost", call = call)
  }
  total <- sum(costs)
  if (total > max_cost) {
    abort_pb(c("The rescore may cost up to {.val {signif(total, 3)}} dollars, above
                {.arg max_cost} = {.val {max_cost}}: nothing was sent.",
               i = "See {.fn estimate_cost}."), "cost", call = call)
  }
  invisible(total)
}

# A whole run's judge requests priced in a dry run, its log in a folder deleted after; NA
# when a price is unknown.
rescore_run_cost <- function(plan, judge, settings) {
  dir <- tempfile("predictivebench-rescore-preview-")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  given <- rlang::exec(settings_with_dots, request_settings(), !!!settings)
  priced <- with_pricing(judge_members(judge),
                         plan$run(plan$paths, judge, dir, given, plan$log_eval),
                         batch = isTRUE(given$batch))
  if (priced$to_send > 0) priced$cost_max else 0
}

rescore_one <- function(plan, judge, dots) {
  cli::cli_inform(c(i = "Scoring {.file {basename(plan$path)}} again."),
                  class = "predictivebench_message_rescore")
  if (!is.null(plan$run)) {
    settings <- dots[names(dots) %in% request_setting_names()]
    given <- rlang::exec(settings_with_dots, request_settings(), !!!settings)
    return(plan$run(plan$paths, judge, plan$dir, given, plan$log_eval))
  }
  do.call(plan$task$eval, c(list(solver_chat = plan$chat, epochs = plan$epochs, view = FALSE),
                            dots))
  invisible(plan$task$log_path)
}
