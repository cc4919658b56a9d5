# An epoch reducer as summaries, leaderboard() and eval_set() take it; below statistics
# because the board reads logs under a reducer (the reducing is R/stats-epochs.R).

reducers <- c("mean", "mode", "max", "pass_at_k", "pass_hat_k", "at_least_k")
reducers_with_k <- c("pass_at_k", "pass_hat_k", "at_least_k")

# A reducer as a summary is given it: NULL (no reducer: today's numbers) or a checked spec
# with its label, the suffix of the summary's metric ("pass_at_2").
epoch_reducer <- function(reducer, k = NULL, threshold = 1, call = rlang::caller_env()) {
  if (is.null(reducer)) {
    if (!is.null(k)) {
      abort_pb("{.arg k} needs a {.arg reducer}, such as {.val pass_at_k}.", "argument",
               field = "k", call = call)
    }
    return(NULL)
  }
  if (inherits(reducer, "predictivebench_reducer")) return(reducer)
  if (!rlang::is_string(reducer) || !reducer %in% reducers) {
    abort_pb(c("{.arg reducer} must be one of {.val {reducers}}.",
               i = "Or {.code NULL} for every epoch's score, as without reducers."),
             "argument", field = "reducer", call = call)
  }
  check_number(threshold, call = call)
  if (reducer %in% reducers_with_k) {
    if (is.null(k)) {
      abort_pb("{.val {reducer}} needs {.arg k}, such as {.code k = 2}.", "argument",
               field = "k", call = call)
    }
    check_count(k, call = call)
    k <- as.integer(k)
  } else if (!is.null(k)) {
    abort_pb("{.arg k} is for {.val {reducers_with_k}}, not {.val {reducer}}.", "argument",
             field = "k", call = call)
  }
  label <- if (is.null(k)) reducer else sub("_k$", paste0("_", k), reducer)
  structure(list(reducer = reducer, k = k, threshold = threshold, label = label),
            class = "predictivebench_reducer")
}

abort_no_reducer <- function(benchmark, why, call = rlang::caller_env()) {
  abort_pb(c("Epoch reducers don't apply to {.val {benchmark}}.", i = why), "reducer",
           field = "reducer", call = call)
}

# A summary reduces epochs when it takes `reducer =`; one that doesn't is refused before
# anything is summarised.
reduced_summary <- function(benchmark, spec = NULL, call = rlang::caller_env()) {
  summary <- benchmark_summary_fn(require_benchmark(benchmark, call = call))
  if (is.null(spec)) return(summary)
  check_reducible(benchmark, call = call)
  function(x) summary(x, reducer = spec$reducer, k = spec$k)
}

check_reducible <- function(benchmark, call = rlang::caller_env()) {
  summary <- benchmark_summary_fn(require_benchmark(benchmark, call = call))
  if (is.function(summary) && "reducer" %in% names(formals(summary))) return(invisible())
  abort_no_reducer(
    benchmark,
    "Its summary takes no {.arg reducer}: its numbers are not a mean of one score per
     sample (see {.fn reduce_epochs} for which benchmarks reduce epochs, and why the others
     don't).", call = call
  )
}
