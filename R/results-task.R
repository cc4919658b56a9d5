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
#' * **Named steps.** The solver and scorer are logged as `solver_name` and `scorer_name`
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
#' @param solver_name,scorer_name Names of the solver and scorer in the log.
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
                          solver_name = paste0(benchmark, "_solver"),
                          scorer_name = paste0(benchmark, "_score"), metadata_fields = NULL) {
      check_string(benchmark)
      check_string(solver_name)
      check_string(scorer_name)
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
      vitals_fast_steps(self)  # R/results-compat-vitals.R
      private$pb_dataset <- dataset
      private$pb_steps <- list(solver = list(fn = solver, name = solver_name),
                               scorer = list(fn = scorer, name = scorer_name))
      private$pb_epochs <- epochs
      private$run <- run_state(private$pb_fields, metrics)
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
    #'   logged `fields`, the `metrics`, `run_id`, `solver_args`, and `compact`, whether
    #'   its samples' chats are only in its log).
    run_state = function() private$run,

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
      # a step of a larger run (arena_run()'s rounds) keeps vitals' own, all in memory
      if (!isTRUE(self$write_log)) return(super$eval(..., epochs = epochs, view = view))
      private$run <- run_state(private$pb_fields, private$pb_metrics)
      chunked_eval(self, private$run, list(...), epochs)
      if (view) self$view()
      invisible(self)
    },

    #' @description Solve the task (as [vitals::Task]), with a run id of its own.
    #' @param ...,epochs As for [vitals::Task].
    solve = function(..., epochs = NULL) {
      step <- parent.frame()
      args <- list(...)
      private$run <- run_state(private$pb_fields, private$pb_metrics)
      private$run$solver_args <- describe_arguments(args)
      failed <- catch_step_failure(call_with_names(super$solve, args, epochs = epochs,
                                                   .name = "solve"))
      if (failed) vitals_fail_step(step)
      # vitals draws its run id from R's random stream: after set.seed() two runs share it.
      private$run$run_id <- unique_id()
      invisible(self)
    },

    #' @description Score the task (as [vitals::Task]); scores become numbers in `[0, 1]`.
    #' @param ... As for [vitals::Task].
    score = function(...) {
      step <- parent.frame()
      failed <- catch_step_failure(call_with_names(super$score, list(...), .name = "score"))
      if (failed) vitals_fail_step(step)
      samples <- self$get_samples()
      if ("score" %in% names(samples)) vitals_set_scores(self, as_score(samples$score))
      invisible(self)
    },

    #' @description Apply the metrics (as [vitals::Task]). For a benchmark registered with
    #' `headline = NULL`, every row of its summary on this run, named by `summary_keys()`,
    #' in the summary's order: its first row is the headline (the log list shows the first
    #' metric), also when it has no number.
    measure = function() {
      samples <- self$get_samples()
      if (private$pb_all_groups && "score" %in% names(samples)) {
        summary <- require_registration(self$benchmark)$summary
        rows <- check_summary_rows(quiet_summary(summary, self))
        keys <- summary_keys(rows)
        private$run$metrics <- summary_metrics(summary, keys)
        vitals_set_metric_fns(self, private$run$metrics)
      }
      bind_summary_metrics(private$run$metrics, self)
      super$measure()
    },

    #' @description Write the log: one file in Inspect AI's log format (which vitals' viewer
    #' shows), with the additions above.
    #' @param dir The directory to write the log to.
    log = function(dir = self$dir) {
      if (!isTRUE(self$write_log)) return(invisible(NULL))
      if (isTRUE(private$run$compact)) return(log_again(self, dir))
      if (!"score" %in% names(self$get_samples())) return(super$log(dir))
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
    },
    # vitals' own, but the metrics' record of their argument is deparsed once per session
    # (R/results-compat-vitals.R)
    apply_metrics = function() {
      if (vitals_logged_known()) vitals_apply_metrics(self) else super$apply_metrics()
    }
  )
)

# A new run's state (see `$run_state()`): each `$eval()` and `$solve()` starts one, so a
# task's copy never writes into the task's.
run_state <- function(fields, metrics) {
  state <- new.env(parent = emptyenv())
  state$fields <- fields
  state$metrics <- metrics
  state$run_id <- NULL
  state$solver_args <- NULL
  state$compact <- FALSE
  state
}

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

# A task's own additions to its log's `eval` header (its `log_eval` field): metadata fields
# added to the header's, other fields set.
add_log_eval <- function(eval, extra) {
  if (!length(extra)) return(eval)
  meta <- extra$metadata
  eval$metadata[names(meta)] <- meta
  rest <- extra[setdiff(names(extra), "metadata")]
  eval[names(rest)] <- rest
  eval
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

# One id per call, unlike anything from R's random stream (which set.seed() repeats).
unique_id <- local({
  count <- 0L
  function() {
    count <<- count + 1L
    stamp <- list(format(Sys.time(), "%Y-%m-%d %H:%M:%OS6"), Sys.getpid(), count,
                  tempfile())
    substr(digest::digest(stamp, algo = "sha256"), 1, 22)
  }
})

# Flat metadata per sample: the dataset's columns in `fields`, then the solver's (or
# scorer's) metadata; a metadata name that is also a field name gets the prefix "solver_".
# A field that is JSON text in one sample is JSON text in all (a single vote is "[2]", as
# eight are "[2,2,...]"), as is a list column of the dataset, so each field has one type in
# the viewer and one reading back; the JSON fields' names are in the `json` attribute. `json`
# names fields that are JSON text already (in a chunk written before).
sample_metadata <- function(samples, fields, meta, json = character()) {
  columns <- lapply(fields, function(f) samples[[f]])
  names(columns) <- fields
  flats <- lapply(seq_len(nrow(samples)), function(i) {
    own <- meta[[i]]
    if (!is.null(own) && !is.list(own)) own <- list(value = own)
    clash <- intersect(names(own), fields)
    if (length(clash)) names(own)[match(clash, names(own))] <- paste0("solver_", clash)
    flat_metadata(c(lapply(columns, function(col) col[[i]]), own))
  })
  list_columns <- fields[vapply(columns, is.list, TRUE)]
  json <- unique(c(json, list_columns, unlist(lapply(flats, attr, "json"))))
  for (i in seq_along(flats)) {
    for (name in setdiff(intersect(json, names(flats[[i]])), attr(flats[[i]], "json"))) {
      flats[[i]][[name]] <- metadata_json(flats[[i]][[name]])
    }
  }
  structure(flats, json = json)
}

# Runs a solve or score step and says whether a solver or scorer reported that the step
# failed as a whole (report_failures() signals `predictivebench_step_failed` when every
# request failed); the warnings themselves go on to the user.
catch_step_failure <- function(expr) {
  failed <- FALSE
  withCallingHandlers(expr, predictivebench_step_failed = function(c) failed <<- TRUE)
  failed
}

# The log of a scored ResultsTask, as one list in Inspect's EvalLog shape (see
# R/results-log.R for what it adds to vitals' own): the samples as vitals translates them
# (direct_samples() writes the same straight from chats of a prompt and a text answer),
# then the header built here. `$eval()` builds the same two parts a chunk at a time
# (results_log_chunk()) and once at the end (results_log_header()).
results_log <- function(task, fields, run_id) {
  samples <- task$get_samples()
  chunk <- results_log_chunk(task, samples, fields)
  header <- results_log_header(task, samples, fields, run_id, usage = chunk$usage,
                               json = chunk$json)
  c(header, list(samples = chunk$samples))
}

# A scored chunk of samples in Inspect's EvalSample form, with predictivebench's additions,
# and what the header needs of them: their model usage (Inspect's ModelUsage per model) and
# the names of the metadata fields written as JSON text. `json` holds the fields earlier
# chunks wrote as JSON, so that a field keeps one type across the log.
results_log_chunk <- function(task, samples, fields,
                              json = list(solver = character(), scorer = character()),
                              direct = TRUE) {
  n <- nrow(samples)
  solver_meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
    vector("list", n)
  scorer_meta <- if ("scorer_metadata" %in% names(samples)) samples$scorer_metadata
  solver_flat <- sample_metadata(samples, fields, solver_meta, json$solver)
  scorer_flat <- if (!is.null(scorer_meta)) {
    sample_metadata(samples, character(), scorer_meta, json$scorer)
  }
  usage <- run_usage(samples, solver_meta, scorer_meta)

  # vitals would write the metadata columns as str() text: they are set below instead
  bare <- samples
  bare$solver_chat <- usage$solver_chats
  bare$solver_metadata <- NULL
  bare$scorer_metadata <- NULL
  state <- vitals_log_state(task)
  # straight from the chats when they are a prompt and an answer; `direct = FALSE` (tests)
  # translates every chat with vitals' translators
  translated <- if (direct) direct_samples(bare, state$scores$name, state$timestamps)
  translated <- translated %||% vitals_translate_samples(task, bare)
  explanations <- if (all(c("scorer_chat", "scorer_explanation") %in% names(samples))) {
    as.character(samples$scorer_explanation)
  }
  scores <- as.double(samples$score)
  # each sample's score under the scorer's name as the header gives it (a panel's whole
  # name, where vitals' translation names the sample's chat's model: its first judge's)
  judge <- scorer_judge_name(samples)
  scorer_name <- if (!is.null(judge)) paste0(state$scores$name, " (", judge, ")")
  for (i in seq_len(n)) {
    translated[[i]] <- log_sample(translated[[i]], samples$id[[i]], scores[[i]],
                                  solver_flat[[i]], scorer_flat[[i]], usage$samples[[i]],
                                  explanations[i], scorer_name)
  }
  list(samples = translated, usage = usage$header,
       json = list(solver = union(json$solver, attr(solver_flat, "json")),
                   scorer = union(json$scorer, attr(scorer_flat, "json"))))
}

# The header's model usage of a log written in chunks: each chunk's (usage_entries()) added
# per model, in the order models first appear, the cost as known_cost() sums it (a chunk with
# tokens and no cost is unknown, and so is the total): the entries usage_entries() gives for
# all the samples at once.
add_usage <- function(total, usage) {
  cost_of <- function(entry) as.double(entry$total_cost %||% NA)
  for (model in names(usage)) {
    entry <- usage[[model]]
    before <- total[[model]]
    if (!is.null(before)) {
      cost <- known_cost(c(cost_of(before), cost_of(entry)),
                         c(before$total_tokens, entry$total_tokens))
      for (k in c("input_tokens", "output_tokens", "total_tokens")) entry[[k]] <- entry[[k]] + before[[k]]
      entry$total_cost <- na_null(cost)
    }
    total[[model]] <- entry
  }
  total
}

# The log's header: everything but the samples, from the scored samples (a ResultsTask's
# own, or the compact rows `$eval()` keeps), their model usage and JSON fields
# (results_log_chunk()), the task's run id and the log's creation time.
results_log_header <- function(task, samples, fields, run_id, usage, json,
                               created = log_timestamp(), task_id = NULL) {
  state <- vitals_log_state(task)
  n <- nrow(samples)
  scores <- as.double(samples$score)
  model <- task$model_label %||% chat_model_label(samples$solver_chat[[1]])
  scorer_name <- state$scores$name
  judge <- scorer_judge_name(samples)
  if (!is.null(judge)) scorer_name <- paste0(scorer_name, " (", judge, ")")
  values <- vapply(state$metric_results, function(m) as.double(m$value)[1], 1)
  computed <- names(values)[!is.na(values)]
  # The headline (the first metric) is always written, as "NaN" when undefined, so the log
  # list never shows another metric in its column; any other undefined metric is left out
  # (named in not_computed): vitals' log page fails on a metric that is not a number.
  logged <- names(values)[seq_along(values) == 1L | !is.na(values)]
  metrics <- lapply(logged, function(name) {
    list(name = name, value = metric_json(values[[name]]), params = empty_object())
  })
  names(metrics) <- logged
  ids <- unique(samples$id)
  task_id <- task_id %||% log_task_id(state, samples$solver_chat[[1]]$get_model(), run_id)
  epochs <- if ("epoch" %in% names(samples)) max(as.integer(samples$epoch)) else 1L
  list(
    version = 2L,
    status = "success",
    eval = list(
      run_id = run_id %||% unique_id(), created = created, task = task_id, task_id = task_id,
      task_version = 0L, task_file = "", task_attribs = empty_object(),
      task_args = empty_object(),
      dataset = list(name = state$dataset_name, samples = length(ids),
                     sample_ids = as.list(ids), shuffled = FALSE),
      model = model, model_args = empty_object(),
      config = list(epochs = epochs),
      revision = list(type = "git", origin = "https://github.com/UKGovernmentBEIS/inspect_ai.git",
                      commit = "9140d8a2"),
      packages = list(inspect_ai = "0.3.63",
                      vitals = as.character(utils::packageVersion("vitals")),
                      predictivebench = as.character(utils::packageVersion("predictivebench"))),
      metadata = list(
        benchmark = task$benchmark,
        predictivebench = as.character(utils::packageVersion("predictivebench")),
        dataset_fields = as.list(fields),
        solver_json = as.list(json$solver),
        scorer_json = as.list(json$scorer),
        not_computed = as.list(setdiff(names(values), computed))
      ),
      scorers = list(list(
        name = scorer_name, options = empty_object(),
        metrics = lapply(logged, function(name) list(name = name, options = empty_object())),
        metadata = empty_object()
      ))
    ),
    plan = list(name = "plan", steps = plan_steps(samples, state, model),
                config = empty_object()),
    results = list(
      total_samples = n, completed_samples = n,
      scores = list(list(name = scorer_name, scorer = scorer_name, params = empty_object(),
                         metrics = if (length(metrics)) metrics else empty_object(),
                         scored_samples = sum(!is.na(scores)),
                         unscored_samples = sum(is.na(scores))))
    ),
    stats = list(
      started_at = log_timestamp(state$timestamps$solve$started_at),
      completed_at = log_timestamp(state$timestamps$score$completed_at),
      model_usage = usage
    )
  )
}

# The log's task id, as vitals makes it: "<dataset>/<model>/<hash of the steps>", the run id
# in the hash (one id per run, see ResultsTask).
log_task_id <- function(state, model, run_id) {
  paste(state$dataset_name, model,
        substr(digest::digest(list(state$solver_name, state$solver_args,
                                   state$scores$name, run_id), algo = "sha256"),
               1, 22), sep = "/")
}

# One translated sample with predictivebench's additions: its own id, flat metadata, exact
# score (or none, when it is NA: see unscored_field), the scorer's explanation and the usage
# of every request it made.
log_sample <- function(sample, id, score, solver_flat, scorer_flat, usage, explanation,
                       scorer_name = NULL) {
  sample$id <- id
  if (!is.null(scorer_name) && length(sample$scores)) names(sample$scores)[[1]] <- scorer_name
  sample$metadata <- exact_fields(solver_flat)
  sample$model_usage <- usage
  entry <- sample$scores[[1]]
  grading <- entry$metadata["grading"]
  entry$metadata <- c(if (!is.null(grading[[1]])) grading, exact_fields(scorer_flat))
  if (!length(entry$metadata)) entry$metadata <- empty_object()
  if (length(explanation) && !is.na(explanation)) entry$explanation <- explanation
  if (is.na(score)) {
    entry$value <- NULL
    entry$scorer <- names(sample$scores)[[1]]
    sample$metadata[[unscored_field]] <- as.character(jsonlite::toJSON(
      entry, auto_unbox = TRUE, digits = NA, na = "null", json_verbatim = TRUE
    ))
    sample$scores <- NULL
  } else {
    entry$value <- exact_json(score)
    sample$scores[[1]] <- entry
  }
  sample
}

# `fn(name = name, ...)`: each argument passed as a variable of its own name (an unnamed one
# as `.arg<position>`), never as its value. vitals' `$eval()` hands the solver and scorer
# their arguments through do.call(), values inlined, and deparses the expressions it is
# given (for the log's plan): a chat deparsed that way costs ~15 ms of CPU a step. The
# log's plan shows describe_arguments() instead.
# The call's head is a name (`.name`, the Task method the user knows: `solve()`) bound to
# `fn` in the call's own environment, dotted until no argument has it, so a traceback shows
# the method, not the function's code.
call_with_names <- function(fn, args, ..., .name = "fn") {
  keys <- rlang::names2(args)
  vars <- keys
  vars[!nzchar(vars)] <- paste0(".arg", which(!nzchar(vars)))
  vars <- make.unique(vars)
  while (.name %in% vars) .name <- paste0(".", .name)
  env <- list2env(stats::setNames(args, vars), parent = emptyenv())
  assign(.name, fn, envir = env)
  call <- as.call(c(list(as.name(.name)), stats::setNames(lapply(vars, as.name), keys),
                    list(...)))
  eval(call, env)
}

# What the log's plan shows of each argument the solver got: a short value as R code, an
# object by its class (`"<Chat>"`), never its contents (a chat holds credentials).
describe_arguments <- function(args) {
  lapply(args, function(x) {
    if (is.null(x)) return("NULL")
    if (is.atomic(x) && length(x) <= 5 && is.null(attributes(x))) {
      return(paste(deparse(x), collapse = " "))
    }
    paste0("<", class(x)[[1]], ">")
  })
}

# The plan's steps: the system prompt (when there is one) and the solver, named as the task
# names it, with its arguments as an object (unnamed arguments get their position).
plan_steps <- function(samples, state, model) {
  args <- state$solver_args %||% list()
  if (length(args)) {
    keys <- names(args) %||% rep("", length(args))
    keys[!nzchar(keys)] <- paste0("arg", which(!nzchar(keys)))
    names(args) <- keys
  } else {
    args <- empty_object()
  }
  steps <- list(list(solver = paste0(state$solver_name, " (", model, ")"), params = args))
  prompt <- samples$solver_chat[[1]]$get_system_prompt()
  if (!is.null(prompt)) {
    steps <- c(list(list(solver = "system_message", params = list(template = prompt))), steps)
  }
  steps
}
