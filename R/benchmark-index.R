# The index: a benchmark's name -> the benchmark (R/benchmark-object.R). The shared layers
# (datasets-*, results-*, stats-*, engine-*) read it and never name a benchmark.

the_benchmarks <- new.env(parent = emptyenv())
# the names registered with new_benchmark()'s deprecated `internal = TRUE`: not listed
unlisted_benchmarks <- new.env(parent = emptyenv())

# Where each flat field of a registration is in the object: the one mapping of the names
# new_benchmark() took before parts (and that registration() still gives) to their parts.
legacy_fields <- c(
  name = "name", summary = "summary/fn", task = "task", dataset = "data/dataset",
  headline = "summary/headline", by = "summary/by", interval = "summary/interval",
  lower_is_better = "summary/lower_is_better", elo_scale = "summary/elo_scale",
  schema = "data/schema", sample = "data/sample/table", sample_items = "data/sample/items",
  sample_files = "data/sample/files", versions = "data/versions", prepare = "data/prepare",
  prepare_pinned = "data/prepare_pinned", flattener = "data/flattener",
  unpacked = "data/unpacked", statistic = "comparison/statistic",
  statistic_metric = "comparison/metric", statistic_columns = "comparison/columns",
  cluster = "comparison/cluster", check_by_name = "judging/check_by_name",
  needs_judge = "judging/needs_judge", judge_scorer = "judging/scorer",
  rescore_run = "judging/rescore_run"
)

# The field of `x` at a path of legacy_fields (NULL where absent).
field_at <- function(x, path) {
  for (step in strsplit(path, "/", fixed = TRUE)[[1]]) x <- .subset2(x, step)
  x
}

# A benchmark as the flat registration the shared layers read (until they read its parts).
benchmark_fields <- function(benchmark, internal = FALSE) {
  fields <- lapply(legacy_fields, field_at, x = benchmark)
  # a class's own benchmark_rescore() method is its scorer with another judge
  own <- utils::getS3method("benchmark_rescore", class(benchmark)[[1]], optional = TRUE)
  if (is.null(fields$judge_scorer) && !is.null(own)) {
    fields$judge_scorer <- function(judge) benchmark_rescore(benchmark, judge)
  }
  c(fields, internal = internal)
}

is_benchmark <- function(x) inherits(x, "predictivebench_benchmark")

# The package's own benchmarks: each R/<name>-benchmark.R defines `<name>_benchmark()`, a
# function of no arguments returning its object, found by that name so that adding a
# benchmark edits no file outside its own.
package_benchmarks <- function() {
  ns <- topenv(environment(package_benchmarks))
  names <- grep("^[a-z0-9_]+_benchmark$", ls(ns), value = TRUE)
  makers <- Filter(function(f) is.function(f) && !length(formals(f)), mget(names, envir = ns))
  unname(lapply(makers, function(make) make()))
}

# Indexed once at load.
index_package_benchmarks <- function() {
  for (benchmark in package_benchmarks()) index_benchmark(benchmark)
}

rlang::on_load(index_package_benchmarks())

#' Register a benchmark: run it by name, list it, read its logs
#'
#' `register_benchmark()` indexes a benchmark made by [new_benchmark()] under its name, the
#' index's one side effect: [eval_set()] then runs it by name (`"toy@sample"`, also on mirai
#' daemons, where the registration travels with its cells), [registered_benchmarks()] and
#' [benchmark_versions()] list it, and [leaderboard()] and [compare_models()] read its
#' headline and statistic. Registering is the caller's explicit step: [new_benchmark()]
#' given its parts returns the object only.
#'
#' @param benchmark A benchmark, made by [new_benchmark()] from its parts.
#' @param replace `FALSE` (the default): registering a name that is registered already (the
#'   package's own, or one of yours) is an error of class `predictivebench_error_registered`,
#'   unless it is the same benchmark. `TRUE` replaces it.
#' @returns The benchmark registered under that name before (`register_benchmark(old,
#'   replace = TRUE)` puts it back), or `NULL`, invisibly.
#' @family adding a benchmark
#' @export
#' @examples
#' toy <- new_benchmark("toy", summary = list(fn = function(x) grouped_summary(1)),
#'                      data = list(sample = data.frame(id = "a", input = "1 + 1?",
#'                                                      target = "2")))
#' register_benchmark(toy)
#' "toy" %in% registered_benchmarks()$name
#' unregister_benchmark("toy")
register_benchmark <- function(benchmark, replace = FALSE) {
  old <- if (is_benchmark(benchmark)) the_benchmarks[[benchmark$name]]
  index_benchmark(benchmark, replace = replace, call = rlang::current_env())
  invisible(old)
}

# Indexes a benchmark under its name, listed or (`internal`) not. Returns the previous
# registration as new_benchmark()'s flat arguments (or NULL), which put it back.
index_benchmark <- function(benchmark, replace = FALSE, internal = FALSE,
                            call = rlang::caller_env()) {
  if (!is_benchmark(benchmark)) {
    abort_pb("{.arg benchmark} must be a benchmark made by {.fn new_benchmark}.", "argument",
             field = "benchmark", call = call)
  }
  for (flag in c("internal", "replace")) {
    if (!rlang::is_bool(get(flag))) {
      abort_pb("{.arg {flag}} must be {.code TRUE} or {.code FALSE}.", "argument",
               field = flag, call = call)
    }
  }
  name <- benchmark$name
  old <- the_benchmarks[[name]]
  # the same registration again (a package's hooks run twice) replaces nothing
  same <- identical(old, benchmark) && identical(isTRUE(unlisted_benchmarks[[name]]), internal)
  if (!is.null(old) && !replace && !same) {
    abort_pb(c("A benchmark {.val {name}} is registered already.",
               i = "Give {.code replace = TRUE} to replace it, or choose another name."),
             "registered", field = "name", call = call)
  }
  previous <- restorable(registration(name))
  the_benchmarks[[name]] <- benchmark
  if (internal) unlisted_benchmarks[[name]] <- TRUE else forget_unlisted(name)
  invisible(previous)
}

forget_unlisted <- function(name) {
  if (exists(name, envir = unlisted_benchmarks, inherits = FALSE)) {
    rm(list = name, envir = unlisted_benchmarks)
  }
}

# Indexes `benchmarks` (one per name) for the caller's frame, then puts back what the index
# had: a daemon indexes the benchmarks its cells brought, and serves later sets too.
local_benchmarks <- function(benchmarks, env = parent.frame()) {
  force(env)
  benchmarks <- Filter(is_benchmark, benchmarks)
  benchmarks <- benchmarks[!duplicated(vapply(benchmarks, `[[`, "", "name"))]
  for (benchmark in benchmarks) {
    defer_restore(benchmark$name, env)
    index_benchmark(benchmark, replace = TRUE)
  }
  invisible(benchmarks)
}

# (a function of its own, so that each deferred call holds its own name and entry)
defer_restore <- function(name, env) {
  old <- the_benchmarks[[name]]
  unlisted <- isTRUE(unlisted_benchmarks[[name]])
  withr::defer({
    if (is.null(old)) unregister_benchmark(name) else
      index_benchmark(old, replace = TRUE, internal = unlisted)
  }, envir = env)
}

# A previous registration as new_benchmark()'s arguments, which restore it in its place.
restorable <- function(reg) if (!is.null(reg)) c(reg, replace = TRUE)

#' @rdname new_benchmark
#' @order 2
#' @export
unregister_benchmark <- function(name) {
  check_string(name)
  old <- registration(name)
  if (!is.null(old)) rm(list = name, envir = the_benchmarks)
  forget_unlisted(name)
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

# The registration of `name` as its flat fields, or NULL (an unregistered name, or NULL).
# Read only here, where new_benchmark()'s deprecated flat fields are still spoken (restorable(),
# registered_benchmarks()); the other layers read the parts (benchmark-accessors.R).
registration <- function(name) {
  if (!rlang::is_string(name)) return(NULL)
  entry <- the_benchmarks[[name]]
  if (is.null(entry)) return(NULL)
  benchmark_fields(entry, internal = isTRUE(unlisted_benchmarks[[name]]))
}

# The benchmark a name gives, "futurex" or "futurex@sample" (its version aside), or NULL.
benchmark_named <- function(x) {
  if (!rlang::is_string(x)) return(NULL)
  entry <- the_benchmarks[[sub("@.*$", "", x)]] %||% log_kind_named(x)
  if (is_benchmark(entry)) entry
}

# A kind of log a benchmark writes itself (the arena's "arena_ratings") is read by one of the
# `kinds` its benchmark carries, never an entry of the index.
log_kind_named <- function(name) {
  for (benchmark in mget(ls(the_benchmarks), envir = the_benchmarks)) {
    for (kind in .subset2(benchmark, "kinds")) if (identical(kind$name, name)) return(kind)
  }
}

# The default cluster column of a benchmark's samples (see resolve_cluster()): its
# registered `cluster`, a column or a function of the samples.
benchmark_cluster <- function(benchmark, samples) {
  cluster <- .subset2(benchmark_named(benchmark), "comparison")$cluster %||% "id"
  if (is.function(cluster)) cluster(samples) else cluster
}

# Every registration, in name order.
registrations <- function() {
  names <- sort(ls(the_benchmarks))
  stats::setNames(lapply(names, registration), names)
}

# The registrations with data of their own (a sample, pinned versions or a preparer), as
# opposed to summaries registered for logs only.
data_benchmarks <- function() {
  Filter(function(e) !is.null(e$prepare) || !is.null(e$sample) || !is.null(e$versions),
         registrations())
}

summary_function <- function(summary) {
  if (is.function(summary)) return(summary)
  ns <- topenv(environment(require_registration))
  get0(summary, envir = ns, mode = "function") %||% get(summary, mode = "function")
}

schema_label <- function(schema) if (rlang::is_string(schema)) schema else "<own>"

# Every column a registered headline statistic reads.
statistic_columns <- function() {
  benchmarks <- mget(sort(ls(the_benchmarks)), envir = the_benchmarks)
  columns <- lapply(benchmarks, function(b) .subset2(b, "comparison")$columns)
  unique(unlist(columns, use.names = FALSE))
}

# ---- checks of a registration --------------------------------------------------------------

check_field_string <- function(x, field, allow_null = FALSE, call = rlang::caller_env()) {
  if (allow_null && is.null(x)) return(invisible(x))
  if (!rlang::is_string(x)) {
    abort_pb("{.arg {field}} must be a single string.", "argument", field = field, call = call)
  }
  invisible(x)
}

check_metric_names <- function(x, arg, call = rlang::caller_env()) {
  if (!is.character(x) || anyNA(x)) {
    abort_pb("{.arg {arg}} must be a character vector of names.", "argument", field = arg,
             call = call)
  }
  invisible(x)
}

check_function_or_null <- function(x, arg, call = rlang::caller_env()) {
  if (!is.null(x) && !is.function(x)) {
    abort_pb("{.arg {arg}} must be a function or {.code NULL}.", "argument", field = arg,
             call = call)
  }
  invisible(x)
}

# A schema given as a data frame: `name` and a known `type` per column; `nullable` and
# `optional` default to FALSE.
check_schema_table <- function(schema, call = rlang::caller_env()) {
  if (!is.data.frame(schema) || !all(c("name", "type") %in% names(schema)) ||
      !is.character(schema$name) || anyNA(schema$name) || anyDuplicated(schema$name)) {
    abort_pb("{.arg schema} must be a schema name or a data frame of unique column
              {.field name}s and their {.field type}s.", "argument", field = "schema",
             call = call)
  }
  bad <- setdiff(schema$type, schema_types)
  if (length(bad)) {
    abort_pb(c("{.arg schema} has an unknown type {.val {bad[[1]]}}.",
               i = "Types: {.val {schema_types}}."), "argument", field = "type", call = call)
  }
  n <- nrow(schema)
  tibble::tibble(name = schema$name, type = as.character(schema$type),
                 nullable = as.logical(schema$nullable %||% rep(FALSE, n)),
                 optional = as.logical(schema$optional %||% rep(FALSE, n)))
}

check_sample <- function(sample, items, files, call = rlang::caller_env()) {
  if (!is.null(sample) && !rlang::is_string(sample) && !is.data.frame(sample)) {
    abort_pb("{.arg sample} must be a file in the package, a data frame or {.code NULL}.",
             "argument", field = "sample", call = call)
  }
  if (!is.null(items) && (!rlang::is_scalar_integerish(items) || is.na(items) || items < 1)) {
    abort_pb("The sample's {.arg items} must be a whole number >= 1, or {.code NULL}.",
             "argument", field = "sample_items", call = call)
  }
  if (!is.null(files) && (!is.character(files) || anyNA(files))) {
    abort_pb("{.arg sample_files} must be paths inside the package, or {.code NULL}.",
             "argument", field = "sample_files", call = call)
  }
  invisible(sample)
}

# One label, or one per interval method named by the method.
check_interval <- function(interval, call = rlang::caller_env()) {
  named <- length(interval) == 1 ||
    (!is.null(names(interval)) && all(nzchar(names(interval))) && !anyDuplicated(names(interval)))
  if (!is.character(interval) || !length(interval) || anyNA(interval) || !named) {
    abort_pb("{.arg interval} must be a label, or labels named by interval method.",
             "argument", field = "interval", call = call)
  }
  invisible(interval)
}

check_versions <- function(versions, name = NULL, call = rlang::caller_env()) {
  if (is.null(versions)) return(invisible())
  needed <- names(no_pinned_files())
  if (!is.data.frame(versions) || !all(needed %in% names(versions)) ||
      (!is.null(name) && !all(versions$benchmark == name))) {
    abort_pb(c("{.arg versions} must be a table of the benchmark's pinned files, one row per
                file.", i = "Columns: {.field {needed}}; each row's {.field benchmark} its name
                ({.val {name %||% '<name>'}})."), "argument", field = "versions", call = call)
  }
  invisible(versions)
}

# `items` is the number of rows `<bench>_dataset(version = )` returns (contexts for probsem,
# unique questions for the arena: EloBench's quora_100 asks one of its 100 questions twice),
# counted on the pinned bytes (tests/testthat/test-datasets-versions.R checks those in
# ../shared/reference).
# `pin`: where the files are, `c(host = , repo = , commit = )`; `files`: `list(path = , size
# = , sha256 = )`, one element per file; `about`: `list(licence = , citation = , items = )`.
pinned_file <- function(benchmark, version, default, pin, files, about, role = "data") {
  tibble::tibble(
    benchmark = benchmark, version = version, default = default, host = pin[["host"]],
    repo = pin[["repo"]], commit = pin[["commit"]], path = files[["path"]],
    size = as.numeric(files[["size"]]), sha256 = as.character(files[["sha256"]]),
    licence = about[["licence"]], citation = about[["citation"]],
    items = as.integer(about[["items"]]), role = role
  )
}

# The table of no pinned file, in pinned_file()'s columns.
no_pinned_files <- function() {
  pinned_file(character(), character(), logical(),
              list(host = character(), repo = character(), commit = character()),
              list(path = character(), size = numeric(), sha256 = character()),
              list(licence = character(), citation = character(), items = integer()))
}

check_headline <- function(headline, allow_null = FALSE, call = rlang::caller_env()) {
  if (allow_null && is.null(headline)) return(invisible(headline))
  if (!is.character(headline) || !length(headline) || anyNA(headline)) {
    what <- if (allow_null) "at least one summary row, or be {.code NULL}" else
      "at least one summary row"
    abort_pb(paste0("{.arg headline} must name ", what, " (a summary row's key: its {.field group}, or {.val <group> <metric>} where a group has several metrics)."),
             "argument", field = "headline", call = call)
  }
  invisible(headline)
}
