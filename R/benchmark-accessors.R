# What the shared layers read of a benchmark: the object by name, and its parts' fields.

# The benchmark indexed under `name` ("futurex@sample" too), or the index's refusal.
require_benchmark <- function(name, call = rlang::caller_env()) {
  benchmark_named(name) %||% require_registration(name, call = call)
}

# Every indexed benchmark, named, in name order.
indexed_benchmarks <- function() {
  names <- sort(ls(the_benchmarks))
  Filter(Negate(is.null), stats::setNames(lapply(names, benchmark_named), names))
}

# A benchmark with data of its own (a sample, pinned versions or a preparer), unlike one
# registered for its summary only.
benchmark_has_data <- function(benchmark) {
  data <- benchmark$data
  !is.null(data$prepare) || !is.null(data$sample$table) || !is.null(data$versions)
}

# The summary function, a name given for it looked up.
benchmark_summary_fn <- function(benchmark) summary_function(.subset2(benchmark, "summary")$fn)

# The summary rows' keys logs and boards show (NULL: every row).
benchmark_headline <- function(benchmark) .subset2(benchmark, "summary")$headline

# What the summary's groups are: its default grouping column, or "model" and the like.
benchmark_by <- function(benchmark) .subset2(benchmark, "summary")$by

# The label of the summary's intervals under `method` (the default method's when NULL or
# not one the benchmark names).
benchmark_interval <- function(benchmark, method = NULL) {
  interval <- .subset2(benchmark, "summary")$interval %||% "95% confidence interval"
  if (!is.null(method) && method %in% names(interval)) interval[[method]] else interval[[1]]
}

benchmark_lower_is_better <- function(benchmark) {
  .subset2(benchmark, "summary")$lower_is_better
}

benchmark_elo_scale <- function(benchmark) .subset2(benchmark, "summary")$elo_scale

# What compare_models() compares: the headline `statistic` of the items (NULL: their mean
# score), its `metric`, the item `columns` it reads, and the default `cluster`.
benchmark_comparison <- function(benchmark) .subset2(benchmark, "comparison")

# A benchmark from its flat registration (what a daemon is shipped, R/benchmark-portable.R).
as_benchmark <- function(x) {
  if (is.null(x) || is_benchmark(x)) return(x)
  flat <- x[intersect(names(x), setdiff(names(legacy_fields), c("name", "task")))]
  parts <- list(data = list(), summary = list(), comparison = list(), judging = list())
  for (part in names(parts)) parts[[part]] <- with_flat_fields(parts, flat, part)
  new_benchmark(x$name, summary = parts$summary, task = x$task, data = parts$data,
                comparison = parts$comparison, judging = parts$judging)
}
