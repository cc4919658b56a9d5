# The skeleton every benchmark is built on, one helper per step of its data flow
# (benchmark_dataset(), dataset_solver(), benchmark_task(), benchmark_samples()), so a
# benchmark's files hold only what is its own: prompts, solver, scorer and summary.

#' Task-table arguments shared by every benchmark
#'
#' @param path A task table: a parquet file made by the benchmark's `prepare_*()`, a data
#'   frame in the benchmark's schema, or `NULL` (the default) for the real benchmark at
#'   `version`.
#' @param version With `path = NULL`: a version of the real benchmark from
#'   [benchmark_versions()], `NULL` (the default) for its default version, or `"sample"` for
#'   the small bundled sample that examples and tests use. The first use of a version
#'   downloads, verifies and prepares it; later uses read the cached table (see
#'   [fetch_benchmark()]).
#' @param limit Run only part of the table: `NULL` (the default) keeps every row, a whole
#'   number `n` the first `n` rows (as `--limit` in inspect_evals). Only `*_dataset()`
#'   takes `limit`: a `*_task()` runs every row of the dataset it is given.
#' @param shuffle `FALSE` (the default) keeps the table's order. A number shuffles the rows
#'   with that seed before `limit` is applied, so `limit = 20, shuffle = 1` is a
#'   reproducible random sample of 20 (as `--sample-shuffle` in inspect_evals). The global
#'   random stream is left untouched.
#' @keywords internal
#' @name task-table-args
NULL

#' A benchmark's task table, checked against its schema
#'
#' @description
#' `benchmark_dataset()` reads the task table of a benchmark registered with
#' [new_benchmark()]: its bundled sample (`version = "sample"`), a pinned real version
#' (downloaded, verified and prepared once, see [fetch_benchmark()]), a parquet file or a
#' data frame, checked against the registered schema and optionally cut to `limit` rows.
#' Every `<benchmark>_dataset()` of the package is this call plus what the benchmark adds.
#'
#' @param benchmark The registered benchmark's name, whose schema the table must have.
#' @inheritParams task-table-args
#' @param check `NULL`, or the benchmark's own row checks: a function of `(table, file)`
#'   that signals a classed error for a bad row and returns the table.
#' @param versions The registered name whose pinned versions `version` names (by default
#'   `benchmark`; DeltaBench's tables use ProcessBench's schema under its own versions).
#' @param sample The bundled sample `version = "sample"` reads: by default the one
#'   registered under `versions`.
#' @param call The caller named in errors.
#' @returns A tibble in the benchmark's schema.
#' @family adding a benchmark
#' @export
#' @examples
#' toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))
#' new_benchmark("toy", function(x) grouped_summary(x$score), sample = toy,
#'               schema = data.frame(name = c("id", "input", "target"), type = "string"))
#' benchmark_dataset("toy", version = "sample", limit = 1)
#' # a table that breaks the schema is refused
#' try(benchmark_dataset("toy", data.frame(id = 1, input = "x", target = "y")))
#' unregister_benchmark("toy")
benchmark_dataset <- function(benchmark, path = NULL, limit = NULL, shuffle = FALSE,
                              check = NULL, version = NULL, versions = benchmark,
                              sample = benchmark_named(versions)$data$sample$table,
                              call = rlang::caller_env()) {
  check_limit(limit, call = call)
  check_shuffle(shuffle, call = call)
  check_string(version, allow_null = TRUE, call = call)
  if (!is.null(path) && !is.null(version)) {
    abort_pb("Give {.arg path} or {.arg version}, not both.", "argument", call = call)
  }
  if (is.null(path) && is_sample(version)) {
    if (is.null(sample)) {
      abort_pb("{.arg path} must be a task table: there is no bundled sample.", "argument",
               call = call)
    }
    path <- if (is.data.frame(sample)) sample else
      system.file(sample, package = "predictivebench", mustWork = TRUE)
  } else if (is.null(path)) {
    path <- real_task_table(versions, version, call = call)
  }
  if (is.data.frame(path)) {
    file <- "<data frame>"
    table <- validate_task_table(path, benchmark)
  } else {
    if (!rlang::is_string(path)) {
      abort_pb(
        "{.arg path} must be a parquet file or a data frame, not {.obj_type_friendly {path}}.",
        "argument", call = call
      )
    }
    file <- path
    table <- read_task_table(path, benchmark)
  }
  check_not_empty(table, file, call = call)
  if (!is.null(check)) table <- check(table, file = file)
  take_rows(table, limit, shuffle)
}

# A task with no samples has nothing to evaluate (vitals would fail deep inside `$eval()`).
check_not_empty <- function(table, file = NULL, call = rlang::caller_env()) {
  if (nrow(table)) return(invisible(table))
  abort_pb(
    c("The task table has no rows: there is nothing to evaluate.",
      i = "Check the file it was made from, or the filter that emptied it."),
    "empty", file = file, call = call
  )
}

is_sample <- function(version) identical(version, "sample")

# A summary's grouping column: "default" is the benchmark's `by`, the one statement of it.
summary_by <- function(by, benchmark) {
  if (identical(by, "default")) benchmark_by(benchmark_named(benchmark)) else by
}

# The first `limit` rows, after an optional seeded shuffle.
take_rows <- function(table, limit = NULL, shuffle = FALSE) {
  rows <- seq_len(nrow(table))
  if (!isFALSE(shuffle)) rows <- with_seed(shuffle, sample(rows))
  if (!is.null(limit)) rows <- utils::head(rows, limit)
  table[rows, , drop = FALSE]
}

check_limit <- function(limit, call = rlang::caller_env()) {
  if (!is.null(limit)) check_count(limit, call = call)
  invisible(limit)
}

check_shuffle <- function(shuffle, call = rlang::caller_env()) {
  if (!isFALSE(shuffle) && !(is.numeric(shuffle) && length(shuffle) == 1 && !is.na(shuffle))) {
    abort_pb("{.arg shuffle} must be {.code FALSE} or a seed (a number).", "argument",
             call = call)
  }
  invisible(shuffle)
}

# ---- Solvers that need dataset rows --------------------------------------------------------
#
# vitals hands a solver the `input` column only. A solver that needs other columns or the
# epoch is `dataset_solver(function(inputs, rows, ..., solver_chat) ...)`: `rows` are the
# dataset rows behind the inputs plus `.row` and `.epoch`, bound by benchmark_task(); unbound,
# `.row` is NA.

dataset_solver <- function(solve) {
  if (!is.function(solve)) abort_pb("{.arg solve} must be a function.", "argument")
  make_dataset_solver(solve, NULL)
}

make_dataset_solver <- function(solve, dataset) {
  solver <- function(inputs, ..., solver_chat = NULL) {
    rows <- solver_rows(inputs, dataset)
    solve(inputs, rows, ..., solver_chat = solver_chat)
  }
  structure(solver, class = c("predictivebench_solver", "function"), solve = solve)
}

# The solver given the task's dataset; any other solver (vitals::generate(), a user's own)
# is returned as it is.
bind_dataset <- function(solver, dataset) {
  if (!inherits(solver, "predictivebench_solver")) return(solver)
  make_dataset_solver(attr(solver, "solve"), dataset)
}

is_bound <- function(rows) !anyNA(rows$.row)

# For a solver that can't work unbound: names the benchmark's solver and task.
unbound_solver_error <- function(benchmark) {
  task_fn <- paste0(benchmark, "_task")
  abort_pb(
    c("This solver needs the task's dataset.",
      i = "Build the task with {.fn {task_fn}}, which gives the solver its dataset."),
    "argument", call = rlang::call2(paste0(benchmark, "_solver"))
  )
}

# The dataset rows behind `inputs`, by position (vitals repeats each sample `epochs` times in
# a row), so two samples with one input keep their own rows; by text only as a last resort,
# refusing an input several rows share.
solver_rows <- function(inputs, dataset, call = rlang::caller_env()) {
  inputs <- unname(as.character(inputs))
  if (is.null(dataset)) {
    return(tibble::tibble(.row = rep(NA_integer_, length(inputs)),
                          .epoch = occurrence_index(as.list(inputs))))
  }
  n <- nrow(dataset)
  if (n && length(inputs) && length(inputs) %% n == 0) {
    epochs <- length(inputs) %/% n
    layouts <- list(
      list(row = rep(seq_len(n), each = epochs), epoch = rep(seq_len(epochs), times = n)),
      list(row = rep(seq_len(n), times = epochs), epoch = rep(seq_len(epochs), each = n))
    )
    for (layout in layouts) {
      if (identical(inputs, unname(as.character(dataset$input[layout$row])))) {
        return(bound_rows(dataset, layout$row, layout$epoch))
      }
    }
  }
  row <- match(inputs, dataset$input)
  shared <- dataset$input[duplicated(dataset$input)]
  if (anyNA(row) || any(inputs %in% shared)) {
    abort_pb(
      c("The solver got inputs it can't find in its dataset.",
        i = "Evaluate a task on the dataset it was built with."),
      "argument", call = call
    )
  }
  bound_rows(dataset, row, occurrence_index(as.list(inputs)))
}

bound_rows <- function(dataset, row, epoch) {
  out <- tibble::as_tibble(dataset[row, , drop = FALSE])
  out$.row <- as.integer(row)
  out$.epoch <- as.integer(epoch)
  out
}

# ---- Tasks ---------------------------------------------------------------------------------

#' Arguments shared by every benchmark's task
#'
#' @param dataset The task table, from the benchmark's `*_dataset()`.
#' @param solver,scorer A solver and scorer for [vitals::Task]; by default the benchmark's
#'   own. A solver that needs more of the dataset than `input` is given the task's dataset
#'   when the task is built.
#' @param epochs Passed to [vitals::Task]: how many times each sample is solved.
#' @param dir The folder the task's logs go to. The default, `vitals::vitals_log_dir()`, is
#'   the environment variable `VITALS_LOG_DIR`. When it is unset, logs go to `logs` in
#'   `tools::R_user_dir("predictivebench", "data")` (never the working directory), and the
#'   package sets `VITALS_LOG_DIR` to that folder for the session and says so once, so
#'   `vitals::vitals_view()` with no arguments shows them. In a later session, browse them
#'   with `vitals::vitals_view(file.path(tools::R_user_dir("predictivebench", "data"),
#'   "logs"))`.
#' @param name The task's name in logs.
#' @keywords internal
#' @name task-args
NULL

#' A benchmark's vitals Task, whose log shows the benchmark's own headline
#'
#' @description
#' `benchmark_task()` is the one way a benchmark's task is built: it checks the dataset,
#' solver and scorer and returns a [vitals::Task] named after the registered `benchmark`, so
#' its log shows the benchmark's headline metrics (the registered summary's `headline`
#' rows, see [new_benchmark()]) instead of vitals' accuracy, its solver and scorer as
#' `<benchmark>_solver` and `<benchmark>_score`, the dataset's columns as key-value
#' metadata, scores as numbers in `[0, 1]`, and the tokens and cost of every request.
#' [leaderboard()], [compare_models()] and [eval_set()] read such logs; each log's header
#' holds its headline rows and what the board shows beside them, so [leaderboard()] reads
#' it in a session where the benchmark is not registered.
#'
#' A solver made by `vitals::generate()` (with a chat or without) is sent through the
#' package's request engine, as the package's own benchmarks' are: each answer comes from
#' the response cache when it is there (a set run again, into another folder or in another
#' session, pays nothing), requests go through one pool with [request_settings()] (named
#' settings in `$eval()`, such as `max_active = 5`, or an [eval_set()]'s `settings`; a
#' set's cells overlap), a failed request fails its sample only, and each sample's
#' metadata has its tokens and cost (`NA` for a model without a known price). The chat
#' given to `vitals::generate()` stays the default (a function making a chat is called),
#' and `$eval(solver_chat = )` overrides it. Another solver (one of your own) is used as it
#' is and sends its own requests. A scorer of your own gets its arguments as vitals gives
#' them, but never the request settings, which are the engine's.
#'
#' @inheritParams task-args
#' @param solver,scorer A solver and scorer for [vitals::Task], such as
#'   `vitals::generate()` (sent through the engine, see above); the scorer returns
#'   `list(score = )` with numbers in `[0, 1]` (or `I`/`P`/`C` factors).
#' @param benchmark The benchmark's registered name, or a benchmark object ([new_benchmark()]),
#'   registered or not: its name, headline and cluster (logged with each sample) are read from
#'   it. Unregistered, it needs a `headline` (a summary of every row is found by name).
#' @param options How the task is logged: a [task_options()] object (its name in logs, its
#'   metrics, the dataset columns logged with each sample).
#' @param ... `name`, `metrics`, `metadata_fields` and `call` by their names: deprecated in
#'   0.2.0 (a warning of class `predictivebench_warning_deprecated`) for [task_options()].
#' @returns A [vitals::Task]; `$eval(solver_chat = )` runs it, `$log_path` is its last log.
#' @family adding a benchmark
#' @export
#' @examples
#' toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))
#' new_benchmark("toy", function(x) grouped_summary(benchmark_samples(x, "score", "a task.")$score),
#'               schema = data.frame(name = c("id", "input", "target"), type = "string"),
#'               sample = toy)
#' scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
#' tsk <- benchmark_task(benchmark_dataset("toy", version = "sample"), vitals::generate(),
#'                       scorer, dir = tempfile(), benchmark = "toy")
#' tsk$eval(solver_chat = baseline_chat("2"), view = FALSE)
#' tsk$get_samples()[c("input", "result", "score")]
#' unregister_benchmark("toy")
benchmark_task <- function(dataset, solver, scorer, epochs = NULL,
                           dir = vitals::vitals_log_dir(), benchmark, options = task_options(),
                           ...) {
  old <- deprecated_dots(list(...), "benchmark_task", c(old_task_names, "call"),
                         "options = task_options()")
  call <- old$call %||% rlang::caller_env()
  old$call <- NULL
  check_options(options, "task_options", call = call)
  options <- rlang::exec(task_options, !!!replace(unclass(options), names(old), old))
  if (is_benchmark(benchmark)) {
    options <- object_task_options(benchmark, options, dataset, call)
    benchmark <- benchmark$name
  }
  if (!is.data.frame(dataset) || !all(c("input", "target") %in% names(dataset))) {
    abort_pb("{.arg dataset} must be a task table with {.field input} and {.field target}.",
             "argument", call = call)
  }
  if (!is.function(solver)) abort_pb("{.arg solver} must be a function.", "argument", call = call)
  if (!is.function(scorer)) abort_pb("{.arg scorer} must be a function.", "argument", call = call)
  if (!is.null(epochs)) check_count(epochs, call = call)
  check_string(benchmark, call = call)
  check_not_empty(dataset, call = call)
  check_vitals_columns(dataset, call = call)
  solver <- bind_dataset(engine_generate(solver), dataset)
  scorer <- settings_blind(scorer)
  ResultsTask$new(dataset = dataset, solver = solver, scorer = scorer, benchmark = benchmark,
                  metrics = options$metrics, epochs = epochs,
                  name = options$name %||% benchmark, dir = dir,
                  metadata_fields = options$metadata_fields)
}

#' How a benchmark's task is logged
#'
#' `task_options()` gathers what [benchmark_task()]'s log shows, each checked once here.
#'
#' @param name The task's name in logs; `NULL` (the default): the benchmark's name.
#' @param metrics `NULL` (the default) for the registered headline; or a named list of
#'   vitals metric functions.
#' @param metadata_fields The dataset columns logged with each sample (and read back by the
#'   summaries from the log); `NULL` (the default): every column with one value per row.
#' @returns An object of class `task_options`.
#' @family adding a benchmark
#' @export
#' @examples
#' task_options(name = "toy, first try", metadata_fields = "topic")
task_options <- function(name = NULL, metrics = NULL, metadata_fields = NULL) {
  check_string(name, allow_null = TRUE)
  if (!is.null(metrics) && !(rlang::is_named(metrics) && all(vapply(metrics, is.function, TRUE)))) {
    abort_pb("{.arg metrics} must be a named list of metric functions.", "argument")
  }
  if (!is.null(metadata_fields) && (!is.character(metadata_fields) || anyNA(metadata_fields))) {
    abort_pb("{.arg metadata_fields} must be column names.", "argument")
  }
  structure(list(name = name, metrics = metrics, metadata_fields = metadata_fields),
            class = "task_options")
}

old_task_names <- names(formals(task_options))

# What a task reads of its benchmark by name (headline, cluster), from an object not indexed.
object_task_options <- function(benchmark, options, dataset, call) {
  if (identical(benchmark_named(benchmark$name), benchmark)) return(options)
  headline <- benchmark_headline(benchmark)
  if (is.null(options$metrics) && is.null(headline)) {
    abort_pb(c("Unregistered, {.val {benchmark$name}}'s summary of every row can't be logged.",
               i = "Register it ({.code register_benchmark(b)}), or give it a headline."),
             "argument", field = "benchmark", call = call)
  }
  options$metrics <- options$metrics %||% summary_metrics(benchmark_summary_fn(benchmark), headline)
  cluster <- benchmark$comparison$cluster %||% "id"
  if (!is.data.frame(dataset)) return(options)  # (refused by the caller)
  if (is.function(cluster)) cluster <- cluster(dataset)
  options$metadata_fields <- union(options$metadata_fields %||% default_metadata_fields(dataset),
                                   setdiff(intersect(cluster, names(dataset)), "id"))
  options
}

# ---- Steps a user brings ------------------------------------------------------------------
#
# `vitals::generate()` sends through ellmer::parallel_chat(), without the cache, pool or cost
# accounting; benchmark_task() hands its work to the engine (generate_solver()) keeping what
# generate() promised. It is recognised by its body and arguments, not by a name a user may
# rebind; any other solver sends its own requests.
engine_generate <- function(solver) {
  if (!is_vitals_generate(solver)) return(solver)
  default_chat <- vitals_generate_chat(solver)
  solve <- generate_solver()
  function(inputs, ..., solver_chat = default_chat) {
    if (is.function(solver_chat)) solver_chat <- solver_chat()
    solve(inputs, ..., solver_chat = solver_chat)
  }
}

is_vitals_generate <- function(solver) {
  if (!is.function(solver) || is.primitive(solver)) return(FALSE)
  env <- environment(solver)
  if (!isNamespaceLoaded("vitals") || !identical(topenv(env), asNamespace("vitals"))) {
    return(FALSE)
  }
  reference <- vitals::generate()
  identical(names(formals(solver)), names(formals(reference))) &&
    identical(body(solver), body(reference))
}

# The chat `vitals::generate(chat)` was given: the default of its `solver_chat`, read as the
# closure itself would read it.
vitals_generate_chat <- function(solver) {
  default <- formals(solver)$solver_chat
  if (is.null(default)) return(NULL)
  eval(default, environment(solver))
}

# vitals hands every unnamed `$eval()` argument to each step's `...`: a user's step would get
# the request settings and pass them on to something that refuses them, so it is wrapped to
# get `...` without them. A step of the package, or one without `...`, is left as it is.
settings_blind <- function(step) {
  if (!is.function(step) || is.primitive(step) || !"..." %in% names(formals(step)) ||
      identical(topenv(environment(step)), topenv(environment(settings_blind)))) {
    return(step)
  }
  arguments <- formals(step)
  named <- setdiff(names(arguments), "...")
  engine_names <- request_setting_names()
  # only what the caller gave is passed on (`step` fills in its own defaults)
  forward <- function(frame, dots) {
    given <- named[!vapply(named, function(name) {
      eval(call("missing", as.name(name)), frame)
    }, TRUE)]
    dots <- dots[!rlang::names2(dots) %in% engine_names]
    call_with_names(step, c(mget(given, envir = frame), dots), .name = "scorer")
  }
  rlang::new_function(arguments, quote(forward(environment(), list(...))))
}

# Columns vitals writes into each sample, which would silently overwrite a task table's own.
vitals_columns <- c("epoch", "result", "solver_chat", "solver_metadata", "score",
                    "scorer_chat", "scorer_metadata")

check_vitals_columns <- function(dataset, call = rlang::caller_env()) {
  taken <- intersect(names(dataset), vitals_columns)
  if (!length(taken)) return(invisible(dataset))
  abort_pb(
    c("The task table has a column {.field {taken[[1]]}}, a name vitals keeps for its own
       results.",
      i = "Rename or drop it; vitals' own columns are {.field {vitals_columns}}."),
    "schema", field = taken[[1]], call = call
  )
}

# ---- Results -------------------------------------------------------------------------------

#' The samples a benchmark's summary reads
#'
#' @description
#' `benchmark_samples()` gives a summary function its samples, whatever it was given: an
#' evaluated task, its `$get_samples()` tibble, or the log file it wrote (read with the
#' dataset columns and metadata the task logged, so a summary of the log equals the
#' summary of the task). It refuses, with a classed error, samples without the columns the
#' summary needs.
#'
#' @param x An evaluated task, its samples, or its log file.
#' @param needed The columns the summary reads, such as `"score"`.
#' @param what The end of the error's sentence "`x` must be ...", such as
#'   `"an evaluated toy task."`.
#' @param by `NULL`, or the column the summary groups by, which must be there.
#' @param call The caller named in errors.
#' @returns A tibble of samples.
#' @family adding a benchmark
#' @export
#' @examples
#' samples <- data.frame(id = c("a", "b"), score = c(1, 0), topic = c("x", "y"))
#' benchmark_samples(samples, c("score", "topic"), "a toy task or its samples.")
#' try(benchmark_samples(samples, "level", "a task with levels."))
benchmark_samples <- function(x, needed = character(), what, by = NULL,
                              call = rlang::caller_env()) {
  if (inherits(x, "Task")) x <- x$get_samples()
  # a log in several files (R/results-log-parts.R) is read as its whole run
  if (rlang::is_string(x)) x <- log_run_samples(x)
  from_log_read <- is.data.frame(x) && is_log_read(x)
  if (from_log_read) x <- log_samples(x)
  if (!is.data.frame(x) || !all(needed %in% names(x))) {
    hint <- if (from_log_read) {
      c(i = paste("{.fn vitals::vitals_log_read} drops the dataset's columns: pass the log",
                  "file itself ({.code tsk$log_path}) instead."))
    }
    abort_pb(c(paste("{.arg x} must be", what), hint), "argument", call = call)
  }
  if (!is.null(by) && !(rlang::is_string(by) && by %in% names(x))) {
    abort_pb("There is no column {.field {by}} to group by.", "argument", field = by,
             call = call)
  }
  x
}
