# A benchmark as an object: new_benchmark(), its parts, the validator and its generics.

#' Add a benchmark: everything the package needs to know about it
#'
#' @description
#' `new_benchmark()` is the one place a benchmark says what makes it one: how its task is
#' built, its task-table schema, its bundled sample, its pinned real versions and how they
#' are prepared, its summary, its headline statistic for [compare_models()], its default
#' cluster, and what logs and [leaderboard()] show. Once registered, a benchmark is one
#' everywhere: [eval_set()] runs it by name (`"toy@sample"`), also on mirai daemons (the
#' registration travels with its cells), [benchmark_versions()] lists its sample and
#' versions, and [leaderboard()] and [compare_models()] read its headline and statistic.
#' The six benchmarks of the package register themselves the same way, from their own
#' files (see "Adding a benchmark" in `vignette("results")`).
#'
#' Build the benchmark's pieces with the skeleton every benchmark of the package uses:
#' [benchmark_dataset()] (its task table), [benchmark_task()] (its vitals Task),
#' [benchmark_samples()] and [grouped_summary()] (its summary rows).
#'
#' A summary function takes an evaluated task, its samples (`$get_samples()`), or the
#' log file it wrote, and returns the rows every predictivebench summary has (as
#' [grouped_summary()] gives): `group`, `metric`, `estimate` (on the scores' 0-1 scale),
#' `lower`, `upper` and `n`. Each row is named by its headline key: its `group` when every
#' group has one row, else `"<group> <metric>"`.
#'
#' @param name The benchmark's name, such as `"toy"`: letters, digits, `_`, `.` and `-` (no
#'   `@`, which separates a version in [eval_set()]).
#' @param summary Required. Its summary part (see "Parts"): a list of `fn` and, optionally,
#'   `headline`, `by`, `interval`, `lower_is_better` and `elo_scale`. A function, or its
#'   name, alone is the part's `fn` (its other fields then given by their names in `...`).
#' @param task The function [eval_set()] calls to run the benchmark by name:
#'   `function(dataset, dir, ...)` returning its vitals Task (made with [benchmark_task()]);
#'   a `judge` argument, if it has one, gets the set's judge. `NULL` (the default): the
#'   benchmark can't be run by name (give [eval_set()] its task object).
#' @param data Its data part (see "Parts"): a list of `schema`, `dataset`, `sample`,
#'   `versions`, `prepare`, `prepare_pinned`, `flattener` and `unpacked`, each optional.
#'   `NULL`: every field's default.
#' @param comparison Its comparison part, what [compare_models()] reads (see "Parts"): a
#'   list of `statistic`, `metric`, `columns` and `cluster`, each optional.
#' @param judging Its judging part (see "Parts"): a list of `needs_judge`, `scorer`,
#'   `rescore_run` and `check_by_name`, each optional.
#' @param ... The parts' fields by their flat names, as `new_benchmark()` took them before
#'   it had parts (`headline = `, `schema = `, `sample_items = `, `judge_scorer = `: "Flat
#'   fields" says where each goes), and the index's `internal` and `replace`. A field given
#'   both flat and in its part is an error.
#' @section Parts:
#' Each part is a list of named fields, checked once when the benchmark is made (a name that
#' is not a field of its part is an error naming it); a field left out takes its default.
#'
#' `summary`, what logs, boards and plots show:
#' * `fn`: Required. The summary function, or its name (looked up when used, in the
#'   predictivebench namespace first).
#' * `headline`: The headline keys of the summary rows shown in log headers and
#'   leaderboards, the first being the viewer's primary metric (FutureX: `"overall"` and
#'   each level; ProcessBench: `"overall f1"`, `"overall error_acc"`, ...). These keys are
#'   the metric names in the log. `NULL` shows every row the summary returns, for summaries
#'   whose groups depend on the data (one row per arena opponent, per probsem suite).
#' * `by`: What a summary's groups are, the one statement of it: the column a summary groups
#'   by by default (`"level"`, `"task_l1"`, `"suite"`), or what its groups are
#'   (`"competition"`, `"opponent"`), for axis labels. `"model"` says each group is a model
#'   (the competitors of an arena run): [leaderboard()] then shows each as a model of its
#'   own.
#' * `interval`: What `lower` and `upper` are, for plot and board labels: one string, or one
#'   per interval method, named by method (such as `c(normal = "...", bootstrap = "...")`),
#'   the first being the default's.
#' * `lower_is_better`: The summary `metric`s (the column, such as `"js_distance"`) for
#'   which a smaller estimate is better; boards and plots read it from here and never from a
#'   metric's name.
#' * `elo_scale`: The summary `metric`s whose estimates are ratings on the Elo scale (1000
#'   the mean, 400 points of difference for 10:1 odds) rather than on 0-1, such as the
#'   arena's `"rating"`; boards and plots put them on an axis of their own.
#'
#' `data`, where its task tables come from:
#' * `schema`: The task table's schema: a data frame with columns `name`, `type`
#'   (`"string"`, `"integer"`, `"double"`, `"logical"`, or a list of one of them) and,
#'   optionally, `nullable` and `optional`; or the name of a schema the package's Python
#'   flatteners share (`inst/python/predictivebench/schemas/<schema>.json`). `NULL` (the
#'   default): the schema named as the benchmark.
#' * `dataset`: The function that gives the task table of a version: `function(version =
#'   NULL, limit = NULL)`. `NULL` (the default): `benchmark_dataset(name, version = version,
#'   limit = limit)`.
#' * `sample`: The bundled sample (`version = "sample"`): a data frame in the schema, or a
#'   file inside the installed package (such as `"extdata/futurex-sample.parquet"`). `NULL`:
#'   none. Or a list of `table` (that), `items` and `files`: `items` the rows the sample's
#'   dataset has, for [benchmark_versions()] (`NULL`: the rows of a data frame `sample`).
#'   `files`: other files inside the installed package that the sample's cells read (files
#'   or folders, such as DSBench's workbooks), so that a changed file is a new cell of
#'   [eval_set()]. `NULL`: only `sample`.
#' * `versions`: The pinned real versions: a data frame in the layout of
#'   [benchmark_versions()]'s source (one row per file, with `benchmark`, `version`,
#'   `default`, `host`, `repo`, `commit`, `path`, `size`, `sha256`, `licence`, `citation`,
#'   `items` and `role`). `NULL`: none, only `path` and the sample.
#' * `prepare`: The function [prepare_task_table()] calls: `function(source, out = NULL,
#'   ...)`. `NULL`: the benchmark has no raw files of its own.
#' * `prepare_pinned`: How a pinned version's downloaded files become its task table:
#'   `function(rows, files)`, `rows` the version's pinned rows and `files` their local
#'   paths. `NULL` (the default): `prepare(files[[1]])`.
#' * `flattener`: The Python module whose source is part of a prepared table's cache key
#'   (`NULL`: the table is read by R and keyed by the package version alone).
#' * `unpacked`: A function of a version's `rows` giving the folder its files were unpacked
#'   into, deleted with them when the preparer refuses a file pinned without a sha256.
#'   `NULL`: nothing is unpacked.
#'
#' `comparison`, what [compare_models()] compares and clusters on:
#' * `statistic`: The headline as a function of an items table (one row per compared item:
#'   `id`, `score`, `cluster` and the `columns`), for [compare_models()]. `NULL` (the
#'   default): the mean score.
#' * `metric`: The name [compare_models()] gives `statistic`'s number: the headline key of
#'   the summary row it reproduces. `NULL` (the default): the first `headline` key.
#' * `columns`: The sample columns `statistic` reads; [compare_models()] keeps them in the
#'   items and, given plain samples with these columns, suggests the benchmark.
#' * `cluster`: The default cluster of the summary's intervals and of [compare_models()],
#'   the one statement of it: a column of the samples, or a function of the samples
#'   returning one.
#'
#' `judging`, what needs or replaces its judge:
#' * `needs_judge`: `TRUE` when the benchmark's `task` can't score without a judge (it takes
#'   `judge`, and its scorer refuses to run without one, as DSBench's and the arena's do):
#'   [eval_set()] then refuses it by name, when the set has no `judge`, before any request,
#'   rather than pay for its answers and fail at scoring. `FALSE` (the default): a judge is
#'   optional or unused.
#' * `scorer`: `NULL` (the default: the benchmark's score ends in no judge's verdict, so
#'   [rescore()] takes a `scorer` only), or how the benchmark scores with a given judge:
#'   `function(judge)` returning its scorer (a function of the samples, as [vitals::Task]
#'   takes one) with `judge` (what the benchmark's scorer takes as its judge: an ellmer
#'   chat, or a list of them where it takes a panel). [rescore()] calls it to score a log's
#'   samples again: the samples a log holds (`id`, `input`, `target`, `result` and the
#'   dataset columns the task logged), so the scorer must need nothing else, or recover it
#'   from these (DSBench's question, from its prompt).
#' * `rescore_run`: `NULL` (the default), or how [rescore()] judges a whole run's log again
#'   when the run is not a task's samples (the arena's battles and ratings, whose every
#'   rating a pairwise judge makes): `function(log_paths, judge, dir, settings, log_eval)`,
#'   given the run's files (every part, the run's log first), the new judge (a chat or a
#'   panel), the folder of the new log, the request settings of the judge's requests (inside
#'   [estimate_cost()]'s dry run when [rescore()] prices them) and what the new log's `eval`
#'   header adds (`metadata` naming what it was rescored from and with what, the judge's
#'   model roles). It returns the new log's path, the run's log first when in parts. Only
#'   the judge's requests may be sent.
#' * `check_by_name`: `NULL`, or a function of `(x, version, call)` that [eval_set()] calls
#'   for the benchmark given by name (`x`, such as `"arena@rwq"`; `version` `NULL` for the
#'   default) before any cell runs, to refuse with a classed error a version its task cannot
#'   run (the arena's real versions have no reference answers).
#'
#' @section Flat fields:
#' Each flat name in `...` is a field of a part: `dataset`, `schema`, `prepare`,
#' `prepare_pinned`, `flattener`, `unpacked` and `versions` of `data`, and `sample`,
#' `sample_items` and `sample_files` its `sample`'s `table`, `items` and `files`;
#' `headline`, `by`, `interval`, `lower_is_better` and `elo_scale` of `summary`;
#' `statistic`, `statistic_metric` (`metric`), `statistic_columns` (`columns`) and `cluster`
#' of `comparison`; `needs_judge`, `judge_scorer` (`scorer`), `rescore_run` and
#' `check_by_name` of `judging`.
#'
#' `internal`: `FALSE` (the default): the benchmark is listed by [registered_benchmarks()].
#' `TRUE` registers what the shared layers read of logs a benchmark writes besides its
#' task's (read by [leaderboard()]), which a user neither runs nor asks for by name: it is
#' left out of that list.
#'
#' `replace`: `FALSE` (the default): registering a name that is registered already (the
#' package's own, or one of yours) is an error of class `predictivebench_error_registered`,
#' unless the registration is the same. `TRUE` replaces it.
#'
#' A benchmark's fields are read the flat way too, until the shared layers read its parts:
#' `b$headline` is `b[["summary"]]$headline`, and `b$summary` the summary function (the
#' part is `b[["summary"]]`).
#' @returns `new_benchmark()` given its parts as lists: the benchmark, an object of class
#'   `c("<name>_benchmark", "predictivebench_benchmark")` (a list of `name`, `task`,
#'   `data`, `summary`, `comparison` and `judging`), registering nothing:
#'   [register_benchmark()] registers it. Given `summary` as a function or a name, or any
#'   flat field in `...` (deprecated in 0.2.0, with a warning of class
#'   `predictivebench_warning_deprecated`), it also registers the benchmark and returns
#'   the previous registration of `name` (its flat fields with `replace = TRUE`, so
#'   `do.call(new_benchmark, old)` restores it) or `NULL`, invisibly.
#'   `unregister_benchmark()`: the same, removing it. `registered_benchmarks()`: a tibble
#'   with one row per registration (but the package's internal ones): `name`,
#'   `headline`, `by`, `interval` (the default method's), `lower_is_better`, `elo_scale`,
#'   `schema` (its name, or `"<own>"` for a data frame), `has_data` (a sample or preparer)
#'   `by_name` (it has a `task`: [eval_set()] takes it by name) and `judged` (it has a
#'   `judge_scorer`: [rescore()] scores its runs again with another judge).
#' @family adding a benchmark
#' @order 1
#' @export
#' @examples
#' toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))
#' toy_task <- function(dataset = benchmark_dataset("toy", version = "sample"),
#'                      dir = tempfile()) {
#'   scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
#'   benchmark_task(dataset, vitals::generate(), scorer, dir = dir, benchmark = "toy")
#' }
#' toy_summary <- function(x) {
#'   grouped_summary(benchmark_samples(x, "score", "a toy task.")$score, metric = "accuracy")
#' }
#' toy_schema <- data.frame(name = c("id", "input", "target"), type = "string")
#' # a benchmark made of its parts
#' toy_benchmark <- new_benchmark("toy", summary = list(fn = toy_summary), task = toy_task,
#'                                data = list(schema = toy_schema, sample = toy))
#' toy_benchmark
#' toy_benchmark[["summary"]]$headline
#' # registering is a step of its own: then eval_set() and benchmark_versions() know "toy"
#' register_benchmark(toy_benchmark)
#' benchmark_versions("toy")
#' tsk <- toy_task()
#' tsk$eval(solver_chat = baseline_chat(function(p) toy$target[toy$input == p]), view = FALSE)
#' toy_summary(tsk)
#' # registering another "toy" is an error unless it replaces the first
#' other <- new_benchmark("toy", summary = list(fn = toy_summary),
#'                        data = list(schema = toy_schema, sample = toy[1, ]))
#' try(register_benchmark(other))
#' unregister_benchmark("toy")
new_benchmark <- function(name, summary, task = NULL, data = NULL, comparison = NULL,
                          judging = NULL, ...) {
  if (missing(name)) abort_missing_field("name", "a name")
  if (missing(summary)) abort_missing_field("summary", "a summary function")
  check_benchmark_name(name)
  flat <- check_flat_fields(list(...))
  index <- flat[intersect(names(flat), c("internal", "replace"))]
  flat <- flat[setdiff(names(flat), names(index))]
  registers <- !is_field_list(summary) || length(flat) > 0 || length(index) > 0
  if (!is_field_list(summary)) summary <- list(fn = summary)
  parts <- list(data = data %||% list(), summary = summary, comparison = comparison %||% list(),
                judging = judging %||% list())
  data <- build_part(benchmark_data_part, with_flat_fields(parts, flat, "data"), "data")
  if (is.null(data$schema)) data$schema <- name
  benchmark <- validate_benchmark(structure(
    list(name = name, task = task, data = data,
         summary = build_part(benchmark_summary_part, with_flat_fields(parts, flat, "summary"),
                              "summary"),
         comparison = build_part(benchmark_comparison_part,
                                 with_flat_fields(parts, flat, "comparison"), "comparison"),
         judging = build_part(benchmark_judging_part, with_flat_fields(parts, flat, "judging"),
                              "judging")),
    class = c(paste0(name, "_benchmark"), "predictivebench_benchmark")
  ))
  if (!registers) return(benchmark)
  cli::cli_warn(
    c("{.fn new_benchmark} given flat fields, or {.arg summary} as a function, is deprecated as
       of predictivebench 0.2.0: it registers the benchmark as a side effect.",
      i = "Give its parts ({.code summary = list(fn = ...)}, {.code data = list(...)}) and
           call {.code register_benchmark(b)}."),
    class = c("predictivebench_warning_deprecated", "lifecycle_warning_deprecated")
  )
  index_benchmark(benchmark, replace = index$replace %||% FALSE,
                     internal = index$internal %||% FALSE)
}

abort_missing_field <- function(field, what, call = rlang::caller_env()) {
  abort_pb(c("{.arg {field}} is missing: a benchmark needs {what}.",
             i = "See {.fn new_benchmark}."), "argument", field = field, call = call)
}

check_benchmark_name <- function(name, call = rlang::caller_env()) {
  if (!rlang::is_string(name) || !grepl("^[A-Za-z0-9][A-Za-z0-9_.-]*$", name)) {
    abort_pb(c("{.arg name} must be one name of letters, digits, {.code _}, {.code .} and
                {.code -}.",
               i = "An {.code @} would read as a version in {.fn eval_set}."),
             "argument", field = "name", call = call)
  }
  invisible(name)
}

is_field_list <- function(x) is.list(x) && !is.data.frame(x)

# The fields new_benchmark() takes in `...`: each named once, each a flat field or the index's.
check_flat_fields <- function(flat, call = rlang::caller_env()) {
  known <- c(setdiff(names(legacy_fields), c("name", "summary", "task")), "internal", "replace")
  given <- names(flat) %||% rep("", length(flat))
  bad <- given[!nzchar(given) | !given %in% known | duplicated(given)]
  if (length(bad)) {
    abort_pb(c("{.arg ...} takes a benchmark's flat fields, each named once: {.val {bad[[1]]}} is
                not one.", i = "See \"Flat fields\" in {.fn new_benchmark}."), "argument",
             field = bad[[1]], call = call)
  }
  flat
}

# A part's fields as given, with the flat fields that belong to it; a field given both ways
# is refused.
with_flat_fields <- function(parts, flat, part, call = rlang::caller_env()) {
  fields <- parts[[part]]
  if (!is_field_list(fields)) {
    abort_pb("{.arg {part}} must be a list of fields.", "argument", field = part, call = call)
  }
  fields <- unclass(fields)
  for (old in names(flat)) {
    path <- strsplit(legacy_fields[[old]], "/", fixed = TRUE)[[1]]
    if (path[[1]] != part) next
    if (length(path) == 3) {
      fields[path[[2]]] <- list(with_field(as_sample_fields(fields[[path[[2]]]]), path[[3]],
                                           flat[old], part, call))
    } else {
      fields <- with_field(fields, path[[2]], flat[old], part, call)
    }
  }
  fields
}

with_field <- function(fields, field, value, part, call) {
  if (field %in% names(fields)) {
    abort_pb("{.field {names(value)}} is given twice: in {.arg {part}} and in {.arg ...}.",
             "argument", field = names(value), call = call)
  }
  fields[field] <- unname(value)
  fields
}

part_call <- quote(new_benchmark())

build_part <- function(constructor, fields, part, call = rlang::caller_env()) {
  known <- names(formals(constructor))
  given <- names(fields) %||% rep("", length(fields))
  bad <- given[!given %in% known | duplicated(given)]
  if (length(bad)) {
    abort_pb(c("A benchmark's {.arg {part}} has no field {.val {bad[[1]]}}, or has it twice.",
               i = "Its fields: {.field {known}}, each named once."), "argument",
             field = if (nzchar(bad[[1]])) bad[[1]] else part, call = call)
  }
  do.call(constructor, fields)
}

benchmark_data_part <- function(schema = NULL, dataset = NULL, sample = NULL, versions = NULL,
                                prepare = NULL, prepare_pinned = NULL, flattener = NULL,
                                unpacked = NULL) {
  if (!is.null(schema) && !rlang::is_string(schema)) {
    schema <- check_schema_table(schema, call = part_call)
  }
  sample <- as_sample_fields(sample)
  bad <- setdiff(names(sample), c("table", "items", "files"))
  if (length(bad)) {
    abort_pb("{.arg sample} takes {.field table}, {.field items} and {.field files}, not
              {.field {bad[[1]]}}.", "argument", field = "sample", call = part_call)
  }
  sample <- list(table = sample$table, items = sample$items, files = sample$files)
  check_sample(sample$table, sample$items, sample$files, call = part_call)
  check_versions(versions, call = part_call)
  for (field in c("dataset", "prepare", "prepare_pinned", "unpacked")) {
    check_function_or_null(get(field), field, call = part_call)
  }
  check_field_string(flattener, "flattener", allow_null = TRUE, call = part_call)
  structure(list(schema = schema, dataset = dataset, sample = sample, versions = versions,
                 prepare = prepare, prepare_pinned = prepare_pinned, flattener = flattener,
                 unpacked = unpacked), class = "predictivebench_data_part")
}

# A sample given as its table alone (a data frame or a file) as the fields it stands for.
as_sample_fields <- function(sample) {
  if (is.null(sample)) return(list())
  if (is_field_list(sample)) unclass(sample) else list(table = sample)
}

benchmark_summary_part <- function(fn, headline = "overall", by = "group",
                                   interval = "95% confidence interval",
                                   lower_is_better = character(), elo_scale = character()) {
  if (missing(fn)) abort_missing_field("fn", "a summary function", call = part_call)
  if (!is.function(fn) && !rlang::is_string(fn)) {
    abort_pb("The summary {.arg fn} must be a function or the name of one.", "argument",
             field = "fn", call = part_call)
  }
  check_headline(headline, allow_null = TRUE, call = part_call)
  check_field_string(by, "by", call = part_call)
  check_interval(interval, call = part_call)
  check_metric_names(lower_is_better, "lower_is_better", call = part_call)
  check_metric_names(elo_scale, "elo_scale", call = part_call)
  structure(list(fn = fn, headline = headline, by = by, interval = interval,
                 lower_is_better = lower_is_better, elo_scale = elo_scale),
            class = "predictivebench_summary_part")
}

benchmark_comparison_part <- function(statistic = NULL, metric = NULL, columns = character(),
                                      cluster = "id") {
  check_function_or_null(statistic, "statistic", call = part_call)
  check_field_string(metric, "metric", allow_null = TRUE, call = part_call)
  check_metric_names(columns, "columns", call = part_call)
  if (!rlang::is_string(cluster) && !is.function(cluster)) {
    abort_pb("{.arg cluster} must be a column name or a function of the samples.", "argument",
             field = "cluster", call = part_call)
  }
  structure(list(statistic = statistic, metric = metric, columns = columns, cluster = cluster),
            class = "predictivebench_comparison_part")
}

benchmark_judging_part <- function(needs_judge = FALSE, scorer = NULL, rescore_run = NULL,
                                   check_by_name = NULL) {
  if (!rlang::is_bool(needs_judge)) {
    abort_pb("{.arg needs_judge} must be {.code TRUE} or {.code FALSE}.", "argument",
             field = "needs_judge", call = part_call)
  }
  for (field in c("scorer", "rescore_run", "check_by_name")) {
    check_function_or_null(get(field), field, call = part_call)
  }
  structure(list(needs_judge = needs_judge, scorer = scorer, rescore_run = rescore_run,
                 check_by_name = check_by_name), class = "predictivebench_judging_part")
}

validate_benchmark <- function(benchmark, call = rlang::caller_env()) {
  parts <- c(data = "predictivebench_data_part", summary = "predictivebench_summary_part",
             comparison = "predictivebench_comparison_part",
             judging = "predictivebench_judging_part")
  shaped <- is_benchmark(benchmark) &&
    identical(names(benchmark), c("name", "task", names(parts))) &&
    all(mapply(inherits, unclass(benchmark)[names(parts)], parts))
  if (!shaped) {
    abort_pb("A benchmark is made by {.fn new_benchmark}: {.field name}, {.field task} and its
              parts {.field {names(parts)}}.", "argument", field = "benchmark", call = call)
  }
  name <- .subset2(benchmark, "name")
  check_benchmark_name(name, call = call)
  check_function_or_null(.subset2(benchmark, "task"), "task", call = call)
  check_versions(.subset2(benchmark, "data")$versions, name, call = call)
  benchmark
}

benchmark_summarise <- function(benchmark, x, ...) UseMethod("benchmark_summarise")

#' @export
benchmark_summarise.default <- function(benchmark, x, ...) {
  summary_function(benchmark[["summary"]]$fn)(x, ...)
}

benchmark_rescore <- function(benchmark, judge, ...) UseMethod("benchmark_rescore")

#' @export
benchmark_rescore.default <- function(benchmark, judge, ...) {
  scorer <- benchmark$judging$scorer
  if (!is.function(scorer)) {
    abort_pb(c("The benchmark {.val {benchmark$name}} has no way to score with another judge.",
               i = "Its {.arg judging} part's {.field scorer} is {.code function(judge)},
                    returning its scorer with that judge."), "no_judge", field = "scorer")
  }
  scorer(judge)
}

benchmark_audit <- function(benchmark, run, opts) UseMethod("benchmark_audit")

#' @export
benchmark_audit.default <- function(benchmark, run, opts) NULL

benchmark_verdicts <- function(benchmark, run) UseMethod("benchmark_verdicts")

#' @export
benchmark_verdicts.default <- function(benchmark, run) NULL

benchmark_panel_verdicts <- function(benchmark, run) UseMethod("benchmark_panel_verdicts")

#' @export
benchmark_panel_verdicts.default <- function(benchmark, run) NULL

# A pinned version's task table from its `rows` and their downloaded `files`.
benchmark_prepare <- function(benchmark, rows, files) UseMethod("benchmark_prepare")

#' @export
benchmark_prepare.default <- function(benchmark, rows, files) {
  data <- benchmark$data
  if (!is.null(data$prepare_pinned)) return(data$prepare_pinned(rows, files))
  if (is.null(data$prepare)) {
    abort_pb("No recipe prepares {.val {benchmark$name}}.", "argument", field = "prepare")
  }
  data$prepare(files[[1]])
}

# The flat fields read as `b$headline` (legacy_fields), `b$summary` the function, for the
# readers of the index (test-contract.R, cell_headline()) until B3's read the parts.
#' @export
`$.predictivebench_benchmark` <- function(x, name) {
  if (!name %in% names(legacy_fields)) return(.subset2(x, name))
  field_at(x, legacy_fields[[name]])
}

#' @export
print.predictivebench_benchmark <- function(x, ...) {
  data <- x$data
  summary <- x[["summary"]]
  versions <- unique(data$versions$version)
  cat(sprintf("<benchmark %s>\n", x$name),
      sprintf("  task:       %s\n", if (is.null(x$task)) "none (not run by name)" else
        "a function (run by name in eval_set())"),
      sprintf("  data:       schema %s; sample %s; versions %s\n",
              field_shown(data$schema), field_shown(data$sample$table),
              if (length(versions)) field_shown(versions) else "none"),
      sprintf("  summary:    %s; headline %s; by %s\n", field_shown(summary$fn),
              field_shown(summary$headline %||% "every row"), field_shown(summary$by)),
      sprintf("  comparison: statistic %s; cluster %s\n",
              field_shown(x$comparison$statistic %||% "the mean score"),
              field_shown(x$comparison$cluster)),
      sprintf("  judging:    %s; rescored with another judge: %s\n",
              if (x$judging$needs_judge) "needs a judge" else "no judge needed",
              if (is.function(x$judging$scorer) || is.function(x$judging$rescore_run)) "yes" else
                "no"),
      sep = "")
  invisible(x)
}

field_shown <- function(x) {
  if (is.null(x)) return("none")
  if (is.function(x)) return("a function")
  if (is.data.frame(x)) return(sprintf("a table of %d rows", nrow(x)))
  paste0("\"", x, "\"", collapse = ", ")
}
