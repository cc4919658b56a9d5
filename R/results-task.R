# A vitals Task whose log shows the benchmark's own results: one id per run, named solver and
# scorer, headline metrics, exact scores, key-value metadata and true usage.

#' A vitals Task that logs a benchmark's own results
#'
#' @description
#' `ResultsTask` is a [vitals::Task] (every method and argument of `Task$new()` works the
#' same) that writes what a user of `vitals_view()` needs to trust:
#'
#' * **Headline metrics.** Without `metrics`, the task uses `benchmark_metrics()`: the
#'   registered benchmark's headline rows of its summary (see [new_benchmark()]), so
#'   the number in the viewer's header is the one the summary prints. vitals' default
#'   `accuracy` is the mean score times 100; these are the benchmark's numbers unchanged.
#'   Scores and metrics are logged exactly (vitals rounds them to 4 digits).
#' * **One score convention.** Scores are stored as numbers in `[0, 1]` (`as_score()`
#'   converts `I`/`P`/`C` factors and logicals), and `id` as character, so
#'   [vitals::vitals_bind()] combines any predictivebench tasks.
#' * **Explanations.** A scorer's `explanation` is logged as the score's explanation, also
#'   when the scorer used a chat (a judge), where vitals would show the judge's last reply
#'   instead; the judge's conversation stays in the score's `grading` metadata.
#' * **Named steps.** The solver and scorer are logged by the names in `step_names`
#'   (by default `<benchmark>_solver` and `<benchmark>_score`) instead of the argument names
#'   vitals would see ("solver", "scorer").
#' * **Key-value metadata.** Each sample's metadata shows the dataset columns in
#'   `metadata_fields` and the solver's metadata, and its score the scorer's metadata, as
#'   flat fields (see `flat_metadata()`), not as `str()` text. `log_samples()` reads them
#'   back.
#' * **True usage.** When the solver's (or scorer's) metadata has `input_tokens`,
#'   `output_tokens` and `cost` summed over every request of the sample, the log's model
#'   usage counts all of them: each vote, judge call and log-probability request, per model
#'   (the scorer's under the scorer chat's model), and nothing for cached answers. It then
#'   equals `$get_cost()` (compare `log_usage()` with `task_usage()`).
#' * **One id per run.** vitals gives a re-run of the same task the same task id, and the
#'   viewer then hides the earlier log behind "Show Retried Logs"; each `$eval()` here gets
#'   its own run and task id, so every run stays visible.
#' * **Valid for Inspect AI.** The log is built as data and written once, in Inspect AI's
#'   log format: `eval.dataset.sample_ids` are the samples' own ids, each sample's
#'   `model_usage` counts its own requests (so the header is their sum), a headline metric
#'   that is undefined (`NA`) is named in `eval.metadata.not_computed`; the first, the
#'   headline (ProcessBench's F1 with no valid vote), keeps its place with the value `"NaN"`
#'   (Inspect's reader reads it as NaN; the viewer's log list shows no number rather than
#'   another metric), the others are left out; and a sample whose
#'   score is `NA` has no score (Inspect's "unscored"; its answer and explanation stay in its
#'   metadata field `unscored_score`). `log_samples()`, the summaries and [leaderboard()]
#'   read it back.
#' * **Failed steps.** When every request of the solve (or of a judge) failed, `$eval()`
#'   shows "x Solving" (or "x Scoring"), not a success (see [report_failures()]).
#'
#' * **Chunks.** `$eval()` solves, scores and logs `$chunk_size` samples at a time (by
#'   default 20 per request slot, `max_active`, and at least 1,000), each sample with all its
#'   epochs, and appends each chunk to the log as it finishes (a hidden part file until the
#'   run ends: see `log_writer()`), so memory is bounded by a chunk, not by the run. A
#'   scorer that reads samples together (probsem's fit to people reads a suite) declares the
#'   columns whose rows stay in one chunk in its attribute `predictivebench_chunk_by` (`TRUE`:
#'   one chunk); scores, metrics and the log are those of a run in one chunk.
#'   `$get_samples()` then holds a compact row per sample (dataset columns, result, metadata,
#'   score, explanation). In a run of several chunks, its `solver_chat` (and `scorer_chat`)
#'   is the chat the requests went through, without turns, one object for every sample: the
#'   conversations are in the log (its `messages`), and `$log()` gives that log (a copy of
#'   it in another folder). A run in one chunk keeps each sample's chats, as vitals does.
#'   The log's folder, the scorer's judge (a scorer that needs one: its attribute
#'   `predictivebench_judge`) and the chats' credentials are checked before anything is sent. A cell of [eval_set()] runs in
#'   chunks too, each chunk's requests waiting in the set's shared pool.
#'
#' The path of the last log written is in `$log_path`.
#'
#' @param dataset,solver,scorer,epochs As for [vitals::Task]. `id` becomes character
#'   (and is added as `1, 2, ...` when missing).
#' @param dir The folder the log is written to. By default `vitals::vitals_log_dir()`, the
#'   environment variable `VITALS_LOG_DIR`; when that is unset, `logs` in
#'   `tools::R_user_dir("predictivebench", "data")`, which then becomes `VITALS_LOG_DIR` for
#'   the session (said once), so `vitals::vitals_view()` finds the logs.
#' @param benchmark The benchmark's name, as registered with [new_benchmark()].
#' @param metrics A named list of metric functions; `NULL` uses `benchmark_metrics()`.
#' @param name The task's name in logs; by default `benchmark`.
#' @param step_names The names of the solver and scorer in the log: a character vector
#'   with elements `solver` and `scorer`.
#' @param metadata_fields Dataset columns to log with every sample (and restore with
#'   `log_samples()`); by default every column holding one value per row (not lists)
#'   besides `input`, `target` and `id`. The column the benchmark's summary clusters its
#'   intervals by by default (such as ProcessBench's `problem`) is always logged too.
#' @noRd
ResultsTask <- R6::R6Class(
  "ResultsTask",
  inherit = vitals::Task,
  lock_objects = FALSE,
  public = list(
    #' @field benchmark The benchmark's name.
    benchmark = NULL,
    #' @field log_path The log file last written by `$log()`.
    log_path = NULL,
    #' @field write_log `FALSE` makes `$log()` write nothing (a step of a larger run whose
    #'   log is written once at the end, as [arena_run()]'s rounds).
    write_log = TRUE,
    #' @field model_label The model's name in the log (`eval.model`, what [leaderboard()]
    #'   and the viewer show); `NULL` names it `"<provider>/<model>"` from the solver's chat.
    #'   An evaluation set gives each cell its model's label, which tells two chats of one
    #'   model apart (`openai/gpt-4.1 [temperature=0.7]`).
    model_label = NULL,
    #' @field log_eval `NULL`, or fields added to the log's `eval` header: `metadata` (a list
    #'   of flat fields added to `eval.metadata`) and any other of Inspect's `EvalSpec`
    #'   fields, such as `model_roles` (what [rescore()] says of a run it scored again).
    log_eval = NULL,
    #' @field chunk_size Samples (with their epochs) `$eval()` solves, scores and logs at a
    #'   time; `NULL` (the default) is 20 per request slot (`max_active`), at least 1,000.
    chunk_size = NULL,

    #' @description Create the task.
    initialize = function(dataset, solver, scorer, benchmark, metrics = NULL, epochs = NULL,
                          name = benchmark, dir = vitals::vitals_log_dir(),
                          step_names = c(solver = paste0(benchmark, "_solver"),
                                         scorer = paste0(benchmark, "_score")),
                          metadata_fields = NULL) {
      check_string(benchmark)
      check_step_names(step_names)
      solver_name <- step_names[["solver"]]
      scorer_name <- step_names[["scorer"]]
      dir <- resolve_log_dir(dir)
      if (!is.data.frame(dataset)) abort_pb("{.arg dataset} must be a data frame.", "argument")
      dataset <- tibble::as_tibble(dataset)
      ids <- if ("id" %in% names(dataset)) dataset$id else seq_len(nrow(dataset))
      dataset$id <- as.character(ids)
      self$benchmark <- benchmark
      metrics <- metrics %||% benchmark_metrics(benchmark)
      private$pb_all_groups <- is.null(metrics)
      private$pb_metrics <- metrics
      private$pb_fields <- union(metadata_fields %||% default_metadata_fields(dataset),
                                 summary_fields(benchmark, dataset))
      missing <- setdiff(private$pb_fields, names(dataset))
      if (length(missing)) {
        abort_pb("{.arg metadata_fields} names columns {.arg dataset} lacks.", "argument",
                 field = missing[[1]])
      }
      # vitals names the solver and scorer after the expressions given to Task$new()
      # (deparse(substitute(solver))), so they are passed as variables with these names.
      env <- new.env(parent = baseenv())
      env$init <- super$initialize
      env[[solver_name]] <- solver
      env[[scorer_name]] <- scorer
      env$args <- list(dataset = dataset, metrics = metrics,
                       epochs = epochs, name = name, dir = dir)
      eval(rlang::call2("init", dataset = quote(args$dataset), solver = as.name(solver_name),
                        scorer = as.name(scorer_name), metrics = quote(args$metrics),
                        epochs = quote(args$epochs), name = quote(args$name),
                        dir = quote(args$dir)), env)
      private$pb_dataset <- dataset
      # the log's dataset name, as vitals makes it of `name`
      private$pb_dataset_name <- gsub("[^[:alnum:]\\-]", "", gsub("_| ", "-", name))
      private$pb_steps <- list(solver = list(fn = solver, name = solver_name),
                               scorer = list(fn = scorer, name = scorer_name))
      private$pb_epochs <- epochs
      private$run <- self$new_run_state()
      invisible(self)
    },

    #' @description The dataset given to `$new()` (`id` as character), without what an
    #'   evaluation adds.
    dataset = function() private$pb_dataset,

    #' @description The solver and scorer, each a list of its function (`fn`) and its name
    #'   in the log (`name`).
    steps = function() private$pb_steps,

    #' @description The epochs given to `$new()` (`NULL`: none), which `$eval()` runs when
    #'   it is given none.
    default_epochs = function() private$pb_epochs,

    #' @description The state of the last run (an environment of the task's own: the
    #'   logged `fields`, the `metrics`, `run_id`, `solver_args`, `compact` (whether its
    #'   samples' chats are only in its log), the `samples`, the steps' records `solutions`
    #'   and `scores` (each its `name` and `arguments`), `timestamps`, `metric_results` and
    #'   each step's token usage `tokens`).
    run_state = function() private$run,

    #' @description A new run's state (see `$run_state()`), empty: each `$eval()` and
    #'   `$solve()` starts one, so a task's copy never writes into the task's.
    new_run_state = function() {
      run_state(private$pb_fields, private$pb_metrics, private$pb_dataset_name)
    },

    #' @description The samples of the last run (as [vitals::Task]: the dataset with each
    #'   step's columns), or the dataset before any.
    get_samples = function() private$run$samples %||% private$pb_dataset,

    #' @description The tokens the last run's solver and scorer used (as [vitals::Task]:
    #'   one row per step, provider and model, the price as text).
    get_cost = function() {
      tokens <- private$run$tokens
      rbind(tibble::add_column(token_table(tokens$solver), source = "solver", .before = 1),
            if (!is.null(tokens$scorer)) {
              tibble::add_column(token_table(tokens$scorer), source = "scorer", .before = 1)
            })
    },

    #' @description Set the solver (as [vitals::Task]).
    #' @param solver As for [vitals::Task].
    set_solver = function(solver) {
      private$pb_steps$solver <- set_step(solver, substitute(solver), super$set_solver)
      invisible(self)
    },

    #' @description Set the scorer (as [vitals::Task]).
    #' @param scorer As for [vitals::Task].
    set_scorer = function(scorer) {
      private$pb_steps$scorer <- set_step(scorer, substitute(scorer), super$set_scorer)
      invisible(self)
    },

    #' @description Evaluate the task (as [vitals::Task]: every argument is taken the same
    #'   way, by name to the solver and the scorer), a chunk of samples at a time: each
    #'   chunk is solved, scored and appended to the log, then leaves memory but for a
    #'   compact row per sample (see "Chunks" in the description). The folder is checked
    #'   before anything is sent.
    #' @param ...,epochs,view As for [vitals::Task].
    eval = function(..., epochs = NULL, view = interactive()) {
      # a baseline answers a solver's own ellmer::parallel_chat() (R/engine-compat-ellmer.R)
      local_baseline_answers(list(...))
      private$run <- self$new_run_state()
      chunked_eval(self, private$run, list(...), epochs)
      if (view) self$view()
      invisible(self)
    },

    #' @description Solve the task (as [vitals::Task]), with a run id of its own.
    #' @param ...,epochs As for [vitals::Task].
    solve = function(..., epochs = NULL) {
      if (!is.null(epochs)) check_count(epochs)
      private$run <- self$new_run_state()
      solve_run(self, private$run, list(...), as.integer(epochs %||% private$pb_epochs %||% 1L))
      invisible(self)
    },

    #' @description Score the task (as [vitals::Task]); scores become numbers in `[0, 1]`.
    #' @param ... As for [vitals::Task].
    score = function(...) {
      if (is.null(private$run$solutions)) {
        cli::cli_alert_warning("Task has not been solved yet. Run task$solve() first.")
        return(invisible(self))
      }
      score_run(self, private$run, list(...))
      invisible(self)
    },

    #' @description Apply the metrics (as [vitals::Task]). For a benchmark registered with
    #' `headline = NULL`, every row of its summary on this run, named by `summary_keys()`,
    #' in the summary's order: its first row is the headline (the log list shows the first
    #' metric), also when it has no number.
    measure = function() {
      samples <- self$get_samples()
      if (!"score" %in% names(samples)) {
        abort_pb("Task has not been scored yet. Run {.code $score()} first.", "argument")
      }
      if (private$pb_all_groups) {
        summary <- benchmark_summary_fn(require_benchmark(self$benchmark))
        rows <- check_summary_rows(quiet_summary(summary, self))
        private$run$metrics <- summary_metrics(summary, summary_keys(rows))
      }
      bind_summary_metrics(private$run$metrics, self)
      private$run$metric_results <- measure_metrics(private$run$metrics, samples$score)
      self$metrics <- vapply(private$run$metric_results,
                             function(m) as.double(m$value)[1], 1)
      invisible(self)
    },

    #' @description Write the log: one file in Inspect AI's log format (which vitals' viewer
    #' shows), with the additions above.
    #' @param dir The directory to write the log to.
    log = function(dir = self$dir) {
      if (!isTRUE(self$write_log)) return(invisible(NULL))
      if (isTRUE(private$run$compact)) return(log_again(self, dir))
      if (!"score" %in% names(self$get_samples())) {
        abort_pb("Task has not been scored yet. Run {.code $score()} first.", "argument")
      }
      log <- results_log(self, private$pb_fields, private$run$run_id)
      log$eval$metadata$headline <- headline_metadata(private$run$metrics)
      flags <- run_flags(private$run$metrics)  # answers cut off, ties (the board's columns)
      log$eval$metadata[names(flags)] <- flags
      log$eval <- add_log_eval(log$eval, self$log_eval)
      path <- write_log(log, dir)
      self$dir <- dir
      self$log_path <- path
      invisible(path)
    }
  ),
  private = list(
    pb_dataset = NULL,
    pb_dataset_name = NULL,
    pb_steps = NULL,
    pb_epochs = NULL,
    pb_fields = character(),
    pb_all_groups = FALSE,
    pb_metrics = NULL,
    run = NULL,
    # a copy evaluates on its own state (R6 would share the environment)
    deep_clone = function(name, value) {
      if (identical(name, "run")) return(rlang::env_clone(value))
      if (R6::is.R6(value)) return(value$clone(deep = TRUE))
      value
    }
  )
)

# `step_names`: one name for the solver and one for the scorer.
check_step_names <- function(step_names, call = rlang::caller_env()) {
  if (!is.character(step_names) || !setequal(names(step_names) %||% "", c("solver", "scorer")) ||
      length(step_names) != 2 || anyNA(step_names) || !all(nzchar(step_names))) {
    abort_pb("{.arg step_names} must be two names, {.field solver} and {.field scorer}.",
             "argument", field = "step_names", call = call)
  }
  invisible(step_names)
}

# A new run's state (see `$run_state()` and `$new_run_state()`).
run_state <- function(fields, metrics, dataset_name) {
  state <- new.env(parent = emptyenv())
  state$fields <- fields
  state$metrics <- metrics
  state$dataset_name <- dataset_name
  state$run_id <- NULL
  state$solver_args <- NULL
  state$compact <- FALSE
  state$samples <- NULL
  state$solutions <- NULL
  state$scores <- NULL
  state$timestamps <- list()
  state$metric_results <- NULL
  state$tokens <- list(solver = NULL, scorer = NULL)
  state
}

# Each metric applied to the scores, recorded as vitals records a metric (its name, value
# and its argument as text, vitals' own).
measure_metrics <- function(metrics, scores, call = rlang::caller_env()) {
  results <- Map(function(metric, name) {
    list(name = name, value = metric(scores), arguments = metric_arguments)
  }, metrics, names(metrics))
  for (result in results) {
    if (!is.numeric(result$value)) {
      abort_pb(c("Each metric function must return a single numeric value.",
                 i = "{.fun {result$name}} returned {.obj_type_friendly {result$value}}."),
               "argument", call = call)
    }
  }
  results
}

metric_arguments <- stats::setNames(list("self$get_samples()$score"), "")

# `$set_solver()`/`$set_scorer()`: vitals' own, given the step as a variable named by the
# caller's expression (vitals names the step after it); returns the task's own copy of the
# step (its `fn` and `name`).
set_step <- function(fn, expr, set) {
  name <- paste(deparse(expr), collapse = " ")
  env <- new.env(parent = emptyenv())
  env[[name]] <- fn
  eval(rlang::call2(set, as.name(name)), env)
  list(fn = fn, name = name)
}

# The solver and scorer of any vitals Task (each its `fn` and `name`), and the epochs given
# to its `$new()`: a ResultsTask's own, a plain Task's from vitals.
task_steps <- function(task) {
  if (inherits(task, "ResultsTask")) return(task$steps())
  list(solver = vitals_step(task, "solver"), scorer = vitals_step(task, "scorer"))
}

task_epochs <- function(task) {
  if (inherits(task, "ResultsTask")) task$default_epochs() else vitals_epochs(task)
}

# `$log()` after an `$eval()` of several chunks: the samples' chats are in the log it wrote
# (each finished sample left memory), so that log is the run's log, copied to another folder.
log_again <- function(task, dir) {
  if (is.null(task$log_path) || !file.exists(task$log_path)) {
    abort_pb(c("This run's samples were written to its log as they finished, and it is gone.",
               i = "Run {.code $eval()} again to write another."), "missing_file",
             file = task$log_path %||% dir)
  }
  if (normalizePath(dir, mustWork = FALSE) == normalizePath(dirname(task$log_path))) {
    return(invisible(task$log_path))
  }
  check_log_dir(dir)
  path <- file.path(dir, basename(task$log_path))
  write_atomic(path, function(tmp) file.copy(task$log_path, tmp, overwrite = TRUE))
  task$dir <- dir
  task$log_path <- path
  invisible(path)
}

# The folder a task logs to. `vitals::vitals_log_dir()` is `NA` when `VITALS_LOG_DIR` is
# unset, and vitals would then write to a folder named "NA" that `vitals_view()` can't find:
# such a task logs to log_dir_default() instead.
resolve_log_dir <- function(dir, call = rlang::caller_env()) {
  unset <- is.null(dir) || (length(dir) == 1 && (is.na(dir) || !nzchar(dir)))
  if (unset) return(log_dir_default())
  check_string(dir, call = call)
  dir
}

# The default log folder: `VITALS_LOG_DIR` when set, else `logs` in the package's user data
# folder (tools::R_user_dir(), never the working directory), which then becomes
# `VITALS_LOG_DIR` for the rest of the session, so that `vitals::vitals_view()` with no
# arguments finds the logs. Said once per session.
log_dir_default <- function(class = NULL) {
  dir <- Sys.getenv("VITALS_LOG_DIR")
  if (nzchar(dir)) return(dir)
  dir <- file.path(tools::R_user_dir("predictivebench", "data"), "logs")
  Sys.setenv(VITALS_LOG_DIR = dir)
  cli::cli_inform(
    c(i = "Writing vitals logs to {.path {dir}}.",
      " " = "{.code vitals::vitals_view()} shows them in this session (it reads
             {.envvar VITALS_LOG_DIR}, now set to that folder); set {.envvar VITALS_LOG_DIR}
             or give {.arg dir} to log elsewhere."),
    class = c("predictivebench_message_log_dir", class),
    .frequency = "once", .frequency_id = "predictivebench_log_dir"
  )
  dir
}

# library(predictivebench) in a new session: vitals::vitals_view() reads VITALS_LOG_DIR, and
# unset it fails ("Log directory 'NA' not found") though earlier sessions' logs are in the
# default folder; the folder is set and said at attach, as a startup message (which
# suppressPackageStartupMessages() silences). Here, not in zzz.R: the results layer owns it.
.onAttach <- function(libname, pkgname) {
  log_dir_default(class = "packageStartupMessage")
}

# Dataset columns a benchmark's summary reads besides the logged ones: the column its
# default intervals cluster by (ProcessBench's `problem`, DSBench's `competition_id`; see
# resolve_cluster()). The log always keeps them, so that a summary of the log has the same
# intervals as the summary of the task.
summary_fields <- function(benchmark, dataset) {
  cluster <- benchmark_cluster(benchmark, dataset)
  setdiff(intersect(cluster, names(dataset)), c("input", "target", "id", "epoch"))
}

default_metadata_fields <- function(dataset) {
  atomic <- vapply(dataset, function(col) is.atomic(col) && is.null(dim(col)), TRUE)
  setdiff(names(dataset)[atomic], c("input", "target", "id", "epoch"))
}
