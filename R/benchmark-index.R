# What makes a benchmark one: its registration. Each benchmark registers itself from its own
# files (`rlang::on_load(new_benchmark(...))`); the shared layers (datasets-*, results-*,
# stats-*, engine-*) read the registration and never name a benchmark.

the_benchmarks <- new.env(parent = emptyenv())

# A previous registration as new_benchmark()'s arguments, which restore it in its place.
restorable <- function(reg) if (!is.null(reg)) c(reg, replace = TRUE)

#' @rdname new_benchmark
#' @order 2
#' @export
unregister_benchmark <- function(name) {
  check_string(name)
  old <- the_benchmarks[[name]]
  if (!is.null(old)) rm(list = name, envir = the_benchmarks)
  invisible(restorable(old))
}

#' @rdname new_benchmark
#' @order 3
#' @export
registered_benchmarks <- function() {
  entries <- Filter(function(e) !isTRUE(e$internal), registrations())
  tibble::tibble(
    name = names(entries) %||% character(),
    headline = unname(lapply(entries, function(e) e$headline %||% character())),
    by = vapply(entries, function(e) e$by, "", USE.NAMES = FALSE),
    interval = vapply(entries, function(e) e$interval[[1]], "", USE.NAMES = FALSE),
    lower_is_better = unname(lapply(entries, function(e) e$lower_is_better %||% character())),
    elo_scale = unname(lapply(entries, function(e) e$elo_scale %||% character())),
    schema = vapply(entries, function(e) schema_label(e$schema), "", USE.NAMES = FALSE),
    has_data = vapply(entries, function(e) !is.null(e$prepare) || !is.null(e$sample), TRUE,
                      USE.NAMES = FALSE),
    by_name = vapply(entries, function(e) is.function(e$task), TRUE, USE.NAMES = FALSE),
    judged = vapply(entries, function(e) is.function(e$judge_scorer), TRUE, USE.NAMES = FALSE)
  )
}

require_registration <- function(name, call = rlang::caller_env()) {
  reg <- registration(name)
  if (is.null(reg)) {
    abort_pb(c("No benchmark {.val {name}} is registered.",
               i = "Registered: {.val {registered_benchmarks()$name}}; see {.fn new_benchmark}."),
             "argument", call = call)
  }
  reg$summary <- summary_function(reg$summary)
  reg
}

# The registration of `name`, or NULL (an unregistered name, or NULL).
registration <- function(name) {
  if (rlang::is_string(name)) the_benchmarks[[name]]
}

# The default cluster column of a benchmark's samples (see resolve_cluster()): its
# registered `cluster`, a column or a function of the samples.
benchmark_cluster <- function(benchmark, samples) {
  cluster <- registration(benchmark)$cluster %||% "id"
  if (is.function(cluster)) cluster(samples) else cluster
}

# Every registration, in name order.
registrations <- function() mget(sort(ls(the_benchmarks)), envir = the_benchmarks)

# The registrations with data of their own (a sample, pinned versions or a preparer), as
# opposed to summaries registered for logs only (the arena's battles and ratings).
data_benchmarks <- function() {
  Filter(function(e) !is.null(e$prepare) || !is.null(e$sample) || !is.null(e$versions),
         registrations())
}

schema_label <- function(schema) if (rlang::is_string(schema)) schema else "<own>"

# Every column a registered headline statistic reads.
statistic_columns <- function() {
  unique(unlist(lapply(registrations(), function(e) e$statistic_columns), use.names = FALSE))
}
