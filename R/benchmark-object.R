# A benchmark as an object: new_benchmark(), the checks of what it carries.

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
#' @param name The benchmark's name, such as `"toy"`: letters, digits, `_`, `.` and `-`
#'   (no `@`, which separates a version in [eval_set()]).
#' @param summary Required. The summary function, or its name (looked up when used, in the
#'   predictivebench namespace first).
#' @param task The function [eval_set()] calls to run the benchmark by name:
#'   `function(dataset, dir, ...)` returning its vitals Task (made with
#'   [benchmark_task()]); a `judge` argument, if it has one, gets the set's judge. `NULL`
#'   (the default): the benchmark can't be run by name (give [eval_set()] its task object).
#' @param dataset The function that gives the task table of a version:
#'   `function(version = NULL, limit = NULL)`. `NULL` (the default):
#'   `benchmark_dataset(name, version = version, limit = limit)`.
#' @param headline The headline keys of the summary rows shown in log headers and
#'   leaderboards, the first being the viewer's primary metric (FutureX: `"overall"` and
#'   each level; ProcessBench: `"overall f1"`, `"overall error_acc"`, ...). These keys are
#'   the metric names in the log. `NULL` shows every row the summary returns, for summaries
#'   whose groups depend on the data (one row per arena opponent, per probsem suite).
#' @param by What a summary's groups are, the one statement of it: the column a summary
#'   groups by by default (`"level"`, `"task_l1"`, `"suite"`), or what its groups are
#'   (`"competition"`, `"opponent"`), for axis labels. `"model"` says each group is a model
#'   (the competitors of an arena run): [leaderboard()] then shows each as a model of its
#'   own.
#' @param interval What `lower` and `upper` are, for plot and board labels: one string, or
#'   one per interval method, named by method (such as `c(normal = "...", bootstrap =
#'   "...")`), the first being the default's.
#' @param lower_is_better The summary `metric`s (the column, such as `"js_distance"`) for
#'   which a smaller estimate is better; boards and plots read it from here and never from
#'   a metric's name.
#' @param elo_scale The summary `metric`s whose estimates are ratings on the Elo scale (1000
#'   the mean, 400 points of difference for 10:1 odds) rather than on 0-1, such as the
#'   arena's `"rating"`; boards and plots put them on an axis of their own.
#' @param schema The task table's schema: a data frame with columns `name`, `type`
#'   (`"string"`, `"integer"`, `"double"`, `"logical"`, or a list of one of them) and,
#'   optionally, `nullable` and `optional`; or the name of a schema the package's Python
#'   flatteners share (`inst/python/predictivebench/schemas/<schema>.json`).
#' @param sample The bundled sample (`version = "sample"`): a data frame in the schema, or a
#'   file inside the installed package (such as `"extdata/futurex-sample.parquet"`).
#'   `NULL`: none.
#' @param sample_items The rows the sample's dataset has, for [benchmark_versions()]
#'   (`NULL`: the rows of a data frame `sample`).
#' @param sample_files Other files inside the installed package that the sample's cells
#'   read (files or folders, such as DSBench's workbooks), so that a changed file is a new
#'   cell of [eval_set()]. `NULL`: only `sample`.
#' @param versions The pinned real versions: a data frame in the layout of
#'   [benchmark_versions()]'s source (one row per file, with `benchmark`, `version`,
#'   `default`, `host`, `repo`, `commit`, `path`, `size`, `sha256`, `licence`, `citation`,
#'   `items` and `role`). `NULL`: none, only `path` and the sample.
#' @param prepare The function [prepare_task_table()] calls: `function(source, out = NULL,
#'   ...)`. `NULL`: the benchmark has no raw files of its own.
#' @param prepare_pinned How a pinned version's downloaded files become its task table:
#'   `function(rows, files)`, `rows` the version's pinned rows and `files` their local
#'   paths. `NULL` (the default): `prepare(files[[1]])`.
#' @param flattener The Python module whose source is part of a prepared table's cache key
#'   (`NULL`: the table is read by R and keyed by the package version alone).
#' @param unpacked A function of a version's `rows` giving the folder its files were
#'   unpacked into, deleted with them when the preparer refuses a file pinned without a
#'   sha256. `NULL`: nothing is unpacked.
#' @param statistic The headline as a function of an items table (one row per compared item:
#'   `id`, `score`, `cluster` and the `statistic_columns`), for [compare_models()]. `NULL`
#'   (the default): the mean score.
#' @param statistic_metric The name [compare_models()] gives `statistic`'s number: the
#'   headline key of the summary row it reproduces. `NULL` (the default): the first
#'   `headline` key.
#' @param statistic_columns The sample columns `statistic` reads; [compare_models()] keeps
#'   them in the items and, given plain samples with these columns, suggests the benchmark.
#' @param cluster The default cluster of the summary's intervals and of [compare_models()],
#'   the one statement of it: a column of the samples, or a function of the samples
#'   returning one.
#' @param check_by_name `NULL`, or a function of `(x, version, call)` that [eval_set()] calls
#'   for the benchmark given by name (`x`, such as `"arena@rwq"`; `version` `NULL` for the
#'   default) before any cell runs, to refuse with a classed error a version its task cannot
#'   run (the arena's real versions have no reference answers).
#' @param judge_scorer `NULL` (the default: the benchmark's score ends in no judge's verdict,
#'   so [rescore()] takes a `scorer` only), or how the benchmark scores with a given judge:
#'   `function(judge)` returning its scorer (a function of the samples, as [vitals::Task]
#'   takes one) with `judge` (what the benchmark's scorer takes as its judge: an ellmer
#'   chat, or a list of them where it takes a panel). [rescore()] calls it to score a log's
#'   samples again: the samples a log holds (`id`, `input`, `target`, `result` and the
#'   dataset columns the task logged), so the scorer must need nothing else, or recover it
#'   from these (DSBench's question, from its prompt).
#' @param rescore_run `NULL` (the default), or how [rescore()] judges a whole run's log again
#'   when the run is not a task's samples (the arena's battles and ratings, whose every
#'   rating a pairwise judge makes): `function(log_paths, judge, dir, settings, log_eval)`,
#'   given the run's files (every part, the run's log first), the new judge (a chat or a
#'   panel), the folder of the new log, the request settings of the judge's requests
#'   (inside [estimate_cost()]'s dry run when [rescore()] prices them) and what the new log's
#'   `eval` header adds (`metadata` naming what it was rescored from and with what, the
#'   judge's model roles). It returns the new log's path, the run's log first when in parts.
#'   Only the judge's requests may be sent.
#' @param needs_judge `TRUE` when the benchmark's `task` can't score without a judge (it
#'   takes `judge`, and its scorer refuses to run without one, as DSBench's and the arena's
#'   do): [eval_set()] then refuses it by name, when the set has no `judge`, before any
#'   request, rather than pay for its answers and fail at scoring. `FALSE` (the default): a
#'   judge is optional or unused.
#' @param internal `FALSE` (the default): the benchmark is listed by
#'   [registered_benchmarks()]. `TRUE` registers what the shared layers read of logs a
#'   benchmark writes besides its task's (the arena's battles and ratings, read by
#'   [leaderboard()]), which a user neither runs nor asks for by name: it is left out of
#'   that list.
#' @param replace `FALSE` (the default): registering a name that is registered already
#'   (the package's own, or one of yours) is an error of class
#'   `predictivebench_error_registered`, unless the registration is the same. `TRUE`
#'   replaces it.
#' @returns `new_benchmark()`: the previous registration of `name` (a list of these
#'   arguments with `replace = TRUE`, so `do.call(new_benchmark, old)` restores it) or
#'   `NULL`, invisibly. `unregister_benchmark()`: the same, removing it.
#'   `registered_benchmarks()`: a tibble with one row per registration (but those made
#'   with `internal = TRUE`): `name`,
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
#'   benchmark_task(dataset, vitals::generate(), scorer, dir = dir, name = "toy",
#'                  benchmark = "toy")
#' }
#' toy_summary <- function(x) {
#'   grouped_summary(benchmark_samples(x, "score", "a toy task.")$score, metric = "accuracy")
#' }
#' new_benchmark("toy", toy_summary, task = toy_task,
#'               schema = data.frame(name = c("id", "input", "target"), type = "string"),
#'               sample = toy)
#' benchmark_versions("toy")
#' tsk <- toy_task()
#' tsk$eval(solver_chat = baseline_chat(function(p) toy$target[toy$input == p]), view = FALSE)
#' toy_summary(tsk)
#' # registering "toy" again is an error unless it replaces the first
#' try(new_benchmark("toy", toy_summary, sample = toy[1, ],
#'                   schema = data.frame(name = c("id", "input", "target"), type = "string")))
#' unregister_benchmark("toy")
new_benchmark <- function(name, summary, task = NULL, dataset = NULL, headline = "overall",
                          by = "group", interval = "95% confidence interval",
                          lower_is_better = character(), elo_scale = character(),
                          schema = name, sample = NULL, sample_items = NULL,
                          sample_files = NULL, versions = NULL, prepare = NULL,
                          prepare_pinned = NULL, flattener = NULL, unpacked = NULL,
                          statistic = NULL, statistic_metric = NULL,
                          statistic_columns = character(), cluster = "id",
                          check_by_name = NULL, needs_judge = FALSE, judge_scorer = NULL,
                          rescore_run = NULL, internal = FALSE,
                          replace = FALSE) {
  if (missing(name)) abort_missing_field("name", "a name")
  if (missing(summary)) abort_missing_field("summary", "a summary function")
  check_benchmark_name(name)
  if (!is.function(summary) && !rlang::is_string(summary)) {
    abort_pb("{.arg summary} must be a function or the name of one.", "argument",
             field = "summary")
  }
  check_headline(headline, allow_null = TRUE)
  check_string(by)
  check_interval(interval)
  check_metric_names(lower_is_better, "lower_is_better")
  check_metric_names(elo_scale, "elo_scale")
  check_metric_names(statistic_columns, "statistic_columns")
  check_string(statistic_metric, allow_null = TRUE)
  if (!rlang::is_string(schema)) schema <- check_schema_table(schema)
  check_sample(sample, sample_items, sample_files)
  check_versions(versions, name)
  for (arg in c("task", "dataset", "prepare", "prepare_pinned", "unpacked", "statistic",
                "check_by_name", "judge_scorer", "rescore_run")) {
    check_function_or_null(get(arg), arg)
  }
  check_string(flattener, allow_null = TRUE)
  if (!rlang::is_string(cluster) && !is.function(cluster)) {
    abort_pb("{.arg cluster} must be a column name or a function of the samples.", "argument",
             field = "cluster")
  }
  if (!rlang::is_bool(needs_judge)) {
    abort_pb("{.arg needs_judge} must be {.code TRUE} or {.code FALSE}.", "argument",
             field = "needs_judge")
  }
  if (!rlang::is_bool(internal)) {
    abort_pb("{.arg internal} must be {.code TRUE} or {.code FALSE}.", "argument",
             field = "internal")
  }
  if (!rlang::is_bool(replace)) {
    abort_pb("{.arg replace} must be {.code TRUE} or {.code FALSE}.", "argument",
             field = "replace")
  }
  reg <- list(name = name, summary = summary, task = task, dataset = dataset,
                headline = headline, by = by, interval = interval,
                lower_is_better = lower_is_better, elo_scale = elo_scale, schema = schema,
                sample = sample, sample_items = sample_items, sample_files = sample_files,
                versions = versions, prepare = prepare, prepare_pinned = prepare_pinned,
                flattener = flattener, unpacked = unpacked, statistic = statistic,
                statistic_metric = statistic_metric, statistic_columns = statistic_columns,
                cluster = cluster, check_by_name = check_by_name, needs_judge = needs_judge,
                judge_scorer = judge_scorer, rescore_run = rescore_run, internal = internal)
  old <- the_benchmarks[[name]]
  # the same registration again (a package's hooks run twice) replaces nothing
  if (!is.null(old) && !replace && !identical(old, reg)) {
    abort_pb(c("A benchmark {.val {name}} is registered already.",
               i = "Give {.code replace = TRUE} to replace it, or choose another name."),
             "registered", field = "name")
  }
  the_benchmarks[[name]] <- reg
  invisible(restorable(old))
}

# A required argument of new_benchmark() not given: a classed error naming it.
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

summary_function <- function(summary) {
  if (is.function(summary)) return(summary)
  ns <- topenv(environment(require_registration))
  get0(summary, envir = ns, mode = "function") %||% get(summary, mode = "function")
}

# ---- checks of a registration --------------------------------------------------------------

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
  if (!is.null(items)) check_count(items, call = call)
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

check_versions <- function(versions, name, call = rlang::caller_env()) {
  if (is.null(versions)) return(invisible())
  needed <- names(pinned_file("x", "x", TRUE, "github", "x", "x", "x", 0, NA, "x", "x", 0))
  if (!is.data.frame(versions) || !all(needed %in% names(versions)) ||
      !all(versions$benchmark == name)) {
    abort_pb(c("{.arg versions} must be a table of pinned files of {.val {name}}, one row per file.",
               i = "Columns: {.field {needed}}."), "argument", field = "versions", call = call)
  }
  invisible(versions)
}

# `items` is the number of rows `<bench>_dataset(version = )` returns (contexts for probsem,
# unique questions for the arena: EloBench's quora_100 asks one of its 100 questions twice),
# counted on the pinned bytes (tests/testthat/test-datasets-versions.R checks those in
# ../shared/reference).
pinned_file <- function(benchmark, version, default, host, repo, commit, path, size, sha256,
                        licence, citation, items, role = "data") {
  tibble::tibble(
    benchmark = benchmark, version = version, default = default, host = host, repo = repo,
    commit = commit, path = path, size = as.numeric(size), sha256 = as.character(sha256),
    licence = licence, citation = citation, items = as.integer(items), role = role
  )
}

check_headline <- function(headline, allow_null = FALSE, call = rlang::caller_env()) {
  if (allow_null && is.null(headline)) return(invisible(headline))
  if (!is.character(headline) || !length(headline) || anyNA(headline)) {
    what <- if (allow_null) "at least one summary row, or be {.code NULL}" else
      "at least one summary row"
    abort_pb(paste0("{.arg headline} must name ", what, " (a summary row's key: its {.field group}, or {.val <group> <metric>} where a group has several metrics)."),
             "argument", call = call)
  }
  invisible(headline)
}

