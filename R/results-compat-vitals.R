# Every place predictivebench reaches past vitals' exported API, in one file. Written against
# vitals 0.4.0. Each reach says why it is needed and which public hook would replace it;
# tests/testthat/test-results-compat-vitals.R has a canary per reach that fails with a clear message
# when vitals changes shape. Nothing else in the package touches vitals' private fields,
# private methods or unexported functions. (R/engine-compat-ellmer.R holds ellmer's workarounds.)

# The R6 private environment of a vitals Task.
# Why: `Task` keeps its samples, scores, timestamps, metric functions and run id in private
# fields and has no getters for them; `ResultsTask` builds its log from them.
# Public hook that would replace it: `Task$get_log_parts()` (or `$log(writer =)`, a function
# given vitals' log as a list before it is written).
vitals_private <- function(task) {
  private <- task$.__enclos_env__$private
  if (!is.environment(private)) vitals_changed("a Task's R6 private environment")
  private
}

# What a log needs from a scored Task's private state, checked for shape.
# Why and hook: as for vitals_private().
vitals_log_state <- function(task) {
  private <- vitals_private(task)
  needed <- c("samples", "scores", "timestamps", "metric_results", "run_id", "solutions",
              "dataset_name")
  missing <- setdiff(needed, ls(private, all.names = TRUE))
  if (length(missing)) vitals_changed(paste0("Task private field `", missing[[1]], "`"))
  list(scores = private$scores, timestamps = private$timestamps,
       metric_results = private$metric_results, run_id = private$run_id,
       solver_name = private$solutions$name,
       solver_args = with_described(private$solutions$arguments, described_arguments(task)),
       dataset_name = private$dataset_name)
}

# The solver's arguments as a ResultsTask's run described them (describe_arguments()).
described_arguments <- function(task) {
  if (inherits(task, "ResultsTask")) task$run_state()$solver_args
}

# vitals' record of the solver's arguments (their expressions as text), those the task
# described itself (a ResultsTask: describe_arguments()) replaced by name.
with_described <- function(arguments, described) {
  keys <- intersect(rlang::names2(arguments), setdiff(names(described), ""))
  arguments[keys] <- described[keys]
  arguments
}

# Sets the metric functions a Task's `$measure()` applies.
# Why: `ResultsTask` learns its headline rows only once the summary has run on the scored
# samples (a probsem suite without ground truth), after `$new()`. `$set_metrics()` is public
# but also resets the metrics already measured, and is fine to use otherwise.
# Public hook that would replace it: `Task$set_metrics(reset = FALSE)`.
vitals_set_metric_fns <- function(task, metrics) {
  private <- vitals_private(task)
  if (!exists("metric_fns", envir = private, inherits = FALSE)) {
    vitals_changed("Task private field `metric_fns`")
  }
  private$metric_fns <- metrics
  invisible(task)
}

# Where `$eval()` shows its steps. vitals' `$eval()` opens "Solving" and "Scoring" with
# cli::cli_progress_step() in its own frame and then calls `do.call(self$solve, ...)` and
# `do.call(self$score, ...)` from that frame, so the caller of `ResultsTask$solve()`/`$score()`
# is the frame holding the step. Closing it there with `result = "failed"` prints
# "x Solving" when every request of the step failed.
# Why: vitals has no way for a solver or scorer to say its step failed.
# Public hook that would replace it: a solver/scorer output field such as `failed = TRUE`
# that `$eval()` turns into a failed step.
vitals_fail_step <- function(frame) {
  if (!is.environment(frame)) return(invisible(FALSE))
  cli::cli_progress_done(.envir = frame, result = "failed")
  invisible(TRUE)
}

vitals_changed <- function(what, call = rlang::caller_env()) {
  abort_pb(
    c("vitals {utils::packageVersion('vitals')} has no {what}, which predictivebench relies on.",
      i = "predictivebench is written against vitals 0.4.0; see {.file R/results-compat-vitals.R}."),
    "dependency", call = call
  )
}

# Replaces the scores of a scored Task's samples.
# Why: `ResultsTask` stores every scorer's scores as numbers in [0, 1] (as_score()) so that
# summaries, `vitals_bind()` and the log see one convention; `$get_samples()` returns a copy.
# Public hook that would replace it: a `Task$set_samples()`, or `metrics`/scorers that
# declare their score type.
vitals_set_scores <- function(task, scores) {
  private <- vitals_private(task)
  if (!is.data.frame(private$samples) || !"score" %in% names(private$samples) ||
      length(scores) != nrow(private$samples)) {
    vitals_changed("Task private field `samples` with a `score` column")
  }
  private$samples$score <- scores
  invisible(task)
}

# vitals records each step's call in the log's plan and metrics: its `logged()` wrapper
# deparses the step's argument expressions with rlang::expr_deparse() on every call, about
# 6 ms for `self$get_samples()$score`, once per metric, solver and scorer of every
# evaluation (~40 ms a task; an evaluation set of many small cells pays it per cell). The
# wrappers below make the same record with the same text, each expression deparsed once per
# session.
# Why: the reach is into `logged()` (its closure's `fn` and `fn_name`) and the private
# `solver`, `scorer` and `apply_metrics()`. When vitals changes any of them
# (vitals_logged_known()), the task keeps vitals' own wrappers: slower, never different.
# Public hook that would replace it: none needed if vitals memoised the deparse itself.
vitals_fast_steps <- function(task) {
  if (!vitals_logged_known()) return(invisible(FALSE))
  private <- vitals_private(task)
  for (step in c("solver", "scorer")) {
    logged <- private[[step]]
    env <- environment(logged)
    private[[step]] <- fast_logged(env$fn, env$fn_name)
  }
  invisible(TRUE)
}

# vitals' private `apply_metrics()`: each metric's record as logged() makes it, the text of
# its argument vitals' own (the scores are read once, not once per metric).
vitals_apply_metrics <- function(task) {
  private <- vitals_private(task)
  scores <- task$get_samples()$score
  private$metric_results <- Map(
    function(metric, metric_name) {
      list(name = metric_name, value = metric(scores), arguments = vitals_metric_arguments)
    },
    private$metric_fns, names(private$metric_fns)
  )
  invisible(task)
}

vitals_metric_arguments <- stats::setNames(list("self$get_samples()$score"), "")

# vitals' logged(fn, fn_name): the call's result with the step's name and its arguments'
# expressions as text.
fast_logged <- function(fn, fn_name) {
  force(fn)
  force(fn_name)
  function(...) {
    arguments <- lapply(rlang::enexprs(...), deparse_step_argument)
    list(name = paste0(fn_name, collapse = ""), value = fn(...), arguments = arguments)
  }
}

# Whether vitals' logged() and apply_metrics() are those fast_logged() and
# vitals_apply_metrics() stand in for (vitals 0.4.0's).
vitals_logged_known <- function() {
  logged <- get0("logged", envir = asNamespace("vitals"), mode = "function", inherits = FALSE)
  apply_metrics <- vitals::Task$private_methods$apply_metrics
  if (is.null(logged) || !is.function(apply_metrics)) return(FALSE)
  code_text(body(logged)) == vitals_logged_code &&
    code_text(body(apply_metrics)) == vitals_apply_metrics_code
}

# Code as one line of text, spacing aside: the package's own quote() keeps source references
# when loaded from source, and deparse() breaks lines by width.
code_text <- function(x) gsub("\\s+", " ", paste(deparse(x), collapse = " "))

# vitals 0.4.0's bodies of logged() and Task's private apply_metrics(), as code_text()
# gives them (text, not code: the package does not call purrr).
vitals_logged_code <- paste(
  "{ function(...) { arg_exprs <- enexprs(...) arg_exprs <- map(arg_exprs, expr_deparse)",
  "res <- list(name = paste0(fn_name, collapse = \"\"), value = fn(...), arguments = arg_exprs)",
  "res } }"
)
vitals_apply_metrics_code <- paste(
  "{ private$metric_results <- purrr::map2(private$metric_fns, names(private$metric_fns),",
  "function(metric, metric_name) { logged(metric, metric_name)(self$get_samples()$score) })",
  "}"
)

# rlang::expr_deparse(expr), remembered for expressions made only of names, calls and
# scalar constants (whose base R deparse identifies them); other values are deparsed
# each time.
the_deparsed_arguments <- new.env(parent = emptyenv())

deparse_step_argument <- function(expr) {
  if (!is_plain_language(expr)) return(rlang::expr_deparse(expr))
  key <- paste(deparse(expr, control = c("keepInteger", "keepNA", "niceNames",
                                         "showAttributes")), collapse = "\n")
  the_deparsed_arguments[[key]] %||%
    (the_deparsed_arguments[[key]] <- rlang::expr_deparse(expr))
}

is_plain_language <- function(x) {
  if (is.symbol(x)) return(TRUE)
  if (is.atomic(x)) return(length(x) <= 1 && is.null(attributes(x)))
  if (!is.call(x)) return(FALSE)
  for (i in seq_along(x)) {
    if (identical(x[[i]], quote(expr = ))) next
    if (!is_plain_language(x[[i]])) return(FALSE)
  }
  TRUE
}

# ---- `$eval()` a chunk at a time (R/results-eval.R) -----------------------------------------
# Why: vitals' `Task$eval()` solves every sample, then scores every one, and keeps each
# sample's chats to the end; a ResultsTask evaluates a chunk at a time (memory bounded by a
# chunk) with vitals' own argument split and step records, and leaves the task in the state
# vitals' `$eval()` would (samples, step records, timestamps, usage, solved and scored), so
# that `$get_samples()`, `$get_cost()`, `$measure()`, `$view()` and `vitals_bind()` work as
# after vitals' run.
# Public hook that would replace it: `Task$eval()` taking a chunk size (or a
# `Task$eval_chunk()`), or a `Task$set_state()`.

# The epochs given to `Task$new()`.
vitals_epochs <- function(task) vitals_private(task)$epochs

# The solver's or scorer's function and name, as `Task$new()` keeps them (in vitals'
# `logged()` wrapper, or fast_logged()'s).
vitals_step <- function(task, which) {
  env <- environment(vitals_private(task)[[which]])
  if (!is.function(env$fn) || !is.character(env$fn_name)) {
    vitals_changed(paste0("Task private field `", which, "` made by `logged()`"))
  }
  list(fn = env$fn, name = env$fn_name)
}

# A new evaluation starts from the dataset, as vitals' reset_for_new_eval() leaves it.
vitals_start_eval <- function(task, dataset) {
  private <- vitals_private(task)
  private$samples <- dataset
  private$solved <- FALSE
  private$scored <- FALSE
  private$solutions <- NULL
  private$scores <- NULL
  private$metric_results <- NULL
  private$timestamps <- list()
  task$metrics <- NULL
  invisible(task)
}

# A chunk's step records (as vitals' `$solve()` and `$score()` keep them, the values
# dropped: they are the chunk's) and timestamps, which vitals' translators read.
vitals_set_steps <- function(task, solutions, scores, timestamps, run_id) {
  private <- vitals_private(task)
  private$solutions <- list(name = solutions$name, arguments = solutions$arguments)
  private$scores <- list(name = scores$name, arguments = scores$arguments)
  private$timestamps <- timestamps
  private$run_id <- run_id
  invisible(task)
}

# The state vitals' `$solve()` and `$score()` leave: the samples, solved and scored, the run's
# timestamps and each step's token usage (for `$get_cost()`, see token_table()).
vitals_finish_eval <- function(task, samples, timestamps, tokens) {
  private <- vitals_private(task)
  private$samples <- samples
  private$timestamps <- timestamps
  private$solver_token_usage <- token_table(tokens$solver)
  private$scorer_token_usage <- token_table(tokens$scorer)
  private$solved <- TRUE
  private$scored <- TRUE
  invisible(task)
}

# A tally as vitals' diff_token_usage() gives a step's usage: a tibble with the price as
# text (`"$0.12"`), rows with tokens only.
token_table <- function(tally) {
  if (is.null(tally) || !nrow(tally)) {
    return(tibble::tibble(provider = character(), model = character(), input = double(),
                          output = double(), price = character()))
  }
  tibble::tibble(provider = tally$provider, model = tally$model, input = tally$input,
                 output = tally$output,
                 price = ifelse(is.na(tally$price), NA_character_,
                                sprintf("$%.2f", tally$price)))
}

# vitals' `.last_task` (what `vitals_view()` and friends find), as its `$eval()` stashes it.
vitals_stash_task <- function(task) {
  private <- vitals_private(task)
  if (is.function(private$stash_last_task)) private$stash_last_task()
  invisible(task)
}
