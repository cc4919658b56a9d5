# Every place predictivebench reaches past vitals' exported API, in one file. Written against
# vitals 0.4.0. Each reach says why it is needed and which public hook would replace it;
# tests/testthat/test-results-compat-vitals.R has a canary per reach that fails with a clear message
# when vitals changes shape. Nothing else in the package touches vitals' private fields,
# private methods or unexported functions. (R/engine-compat-ellmer.R holds ellmer's workarounds.)

# The R6 private environment of a vitals Task (a plain Task in an evaluation set or a dry
# run: its steps and epochs, which `Task` keeps in private fields).
# Public hook that would replace it: getters `Task$get_solver()`, `$get_scorer()`,
# `$get_epochs()`.
vitals_private <- function(task) {
  private <- task$.__enclos_env__$private
  if (!is.environment(private)) vitals_changed("a Task's R6 private environment")
  private
}

vitals_changed <- function(what, call = rlang::caller_env()) {
  abort_pb(
    c("vitals {utils::packageVersion('vitals')} has no {what}, which predictivebench relies on.",
      i = "predictivebench is written against vitals 0.4.0; see {.file R/results-compat-vitals.R}."),
    "dependency", call = call
  )
}

# The epochs given to a plain Task's `Task$new()` (private `epochs`).
# Public hook that would replace it: `Task$get_epochs()`.
vitals_epochs <- function(task) vitals_private(task)$epochs

# A plain Task's solver or scorer and its name (private `solver`/`scorer`, made by vitals'
# `logged()`: its closure's `fn` and `fn_name`).
# Public hook that would replace it: `Task$get_solver()`/`$get_scorer()`.
vitals_step <- function(task, which) {
  env <- environment(vitals_private(task)[[which]])
  if (!is.function(env$fn) || !is.character(env$fn_name)) {
    vitals_changed(paste0("Task private field `", which, "` made by `logged()`"))
  }
  list(fn = env$fn, name = env$fn_name)
}

# vitals' `.last_task` (what `vitals_view()` and friends find), as its `$eval()` stashes it
# (private `stash_last_task()`).
# Public hook that would replace it: an exported `vitals::set_last_task()`.
vitals_stash_task <- function(task) {
  private <- vitals_private(task)
  if (is.function(private$stash_last_task)) private$stash_last_task()
  invisible(task)
}
