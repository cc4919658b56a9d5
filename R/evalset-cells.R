# The cells of an evaluation set (one benchmark x one model) and their identity: what changes
# results (benchmark, version, task options, judge, model spec, epochs); transport settings are
# not part of it, so changing them reruns nothing.

# One per benchmark: list(name, label, version, task or NULL, identity). A name is built into a
# task when the cell runs (in a worker too); a task object is copied for each model.
set_benchmarks <- function(benchmarks, judge, limit, call = rlang::caller_env()) {
  benchmarks <- as_set_list(benchmarks, "Task", c(
    "{.arg benchmarks} must be benchmark names or {.fn <bench>_task} objects.",
    i = "For example {.code c(\"futurex\", \"processbench\")}."
  ), call)
  benches <- lapply(seq_along(benchmarks), function(i) {
    b <- benchmarks[[i]]
    if (rlang::is_string(b)) return(named_benchmark(b, judge, limit, call))
    if (inherits(b, "Task")) return(task_set_benchmark(b, rlang::names2(benchmarks)[[i]], call))
    abort_pb("{.arg benchmarks} element {i} is {.obj_type_friendly {b}}, not a name or a Task.",
             "argument", field = "benchmarks", call = call)
  })
  labels <- vapply(benches, `[[`, "", "label")
  if (anyDuplicated(labels)) {
    abort_pb(c("Benchmark {.val {labels[duplicated(labels)][1]}} appears twice in
                {.arg benchmarks}.",
               i = "Name the tasks to run one benchmark twice: {.code list(a = tsk1, b = tsk2)}."),
             "argument", call = call)
  }
  benches
}

# A set's benchmarks or models as a non-empty list (one object or a character vector becomes one).
as_set_list <- function(x, class, message, call) {
  if (inherits(x, class)) x <- list(x)
  if (is.character(x)) x <- as.list(x)
  if (!is.list(x) || !length(x)) abort_pb(message, "argument", call = call)
  x
}

# The benchmarks a set takes by name: registrations with a `task`, the package's and the session's.
set_benchmark_names <- function() {
  names(Filter(function(e) is.function(e$task), registrations()))
}

named_benchmark <- function(x, judge, limit, call) {
  name <- sub("@.*$", "", x)
  version <- if (grepl("@", x)) sub("^[^@]*@", "", x)
  names <- set_benchmark_names()
  if (!name %in% names) {
    abort_pb(c("{.val {x}} is not a benchmark.",
               i = "Names: {.val {names}}, optionally with a version as in
                    {.val futurex@sample} (see {.fn benchmark_versions})."),
             "argument", field = "benchmarks", call = call)
  }
  check <- registration(name)$check_by_name
  if (is.function(check)) check(x, version, call)
  takes_judge <- "judge" %in% names(formals(benchmark_function(name, "task")))
  check_set_judge(x, name, judge, call)
  judge <- if (takes_judge) judge
  spec <- judge_spec(judge, call)
  list(name = name, label = x, version = version %||% "default", task = NULL,
       judge = spec, judge_chat = judge,
       limit = limit,
       identity = list(benchmark = name, pins = version_identity(name, version),
                       limit = limit,
                       judge = if (!is.null(spec)) judge_spec_identity(spec)))
}

# A benchmark whose scorer needs a judge (its registration's `needs_judge`) in a set without
# one would pay for every answer, then fail at scoring: refused here, before any request.
check_set_judge <- function(x, name, judge, call) {
  if (!isTRUE(registration(name)$needs_judge) || !is.null(judge)) return(invisible())
  what <- cli::format_inline("{.val {x}} is scored by a judge, and the set has none.")
  abort_no_judge(what, name, list(), call = call, before_set = TRUE)
}

task_set_benchmark <- function(task, label, call) {
  benchmark <- task$benchmark %||% task$name %||% "task"
  label <- if (nzchar(label)) label else benchmark
  steps <- task_steps(task)
  identity <- list(benchmark = benchmark, dataset = task_dataset(task),
                   solver = closure_fingerprint(steps$solver$fn),
                   scorer = closure_fingerprint(steps$scorer$fn))
  declared <- step_identity(steps$scorer$fn)
  if (!is.null(declared)) identity$scorer_data <- declared
  # the task's own epochs run when the set gives none: part of the cells' identity then
  list(name = benchmark, label = label, version = "task", task = task, judge = NULL,
       limit = NULL, identity = identity, epochs = task_epochs(task))
}

# What a step declares changes its results beyond its code (e.g. arena_scorer()'s reference
# answers, attribute "predictivebench_identity").
step_identity <- function(step) {
  if (!is.function(step)) return(NULL)
  attr(step, "predictivebench_identity", exact = TRUE)
}

# The pinned files of a named version (commit, path, checksum), or the registered sample's
# content: a re-pinned version or a changed sample is another cell.
version_identity <- function(name, version) {
  if (is_sample(version)) return(sample_identity(registration(name)))
  rows <- version_files(name, version)
  list(version = unique(rows$version), commit = rows$commit, path = rows$path,
       sha256 = rows$sha256)
}

# The registered sample and its `sample_files`, by content.
sample_identity <- function(reg) {
  sample <- reg$sample
  table <- if (is.data.frame(sample)) digest::digest(as.list(sample), algo = "md5") else
    package_files_md5(sample)
  list(version = "sample", table = table, files = package_files_md5(reg$sample_files))
}

# The md5 of each file in the installed package under `paths` (files or folders), by path.
package_files_md5 <- function(paths) {
  if (!length(paths)) return(NULL)
  md5 <- lapply(paths, function(p) {
    full <- system.file(p, package = "predictivebench", mustWork = TRUE)
    if (!dir.exists(full)) return(stats::setNames(unname(tools::md5sum(full)), p))
    files <- sort(list.files(full, recursive = TRUE))
    stats::setNames(unname(tools::md5sum(file.path(full, files))), file.path(p, files))
  })
  unlist(md5)
}

# The function a registration gives for a step of a named cell: its `task`, or its
# `dataset` (by default the skeleton's, on its registered sample and versions).
benchmark_function <- function(name, what) {
  reg <- registration(name)
  if (what == "task") return(reg$task)
  reg$dataset %||% function(version = NULL, limit = NULL) {
    benchmark_dataset(name, version = version, limit = limit)
  }
}

# The task's dataset: its samples without what an evaluation added, one row per sample.
task_dataset <- function(task) {
  samples <- tibble::as_tibble(task$get_samples())
  if ("epoch" %in% names(samples)) samples <- samples[samples$epoch %in% c(1, NA), ]
  samples[setdiff(names(samples), c(vitals_columns, "scorer_explanation"))]
}

# Every benchmark x model cell: its identity hash (`id`), the model spec and the epochs (a task
# object's own when the set gives none). Workers rebuild `chats` from `specs`.
set_cells <- function(benchmarks, specs, chats, epochs) {
  grid <- expand.grid(b = seq_along(benchmarks), m = seq_along(specs))
  lapply(seq_len(nrow(grid)), function(r) {
    b <- benchmarks[[grid$b[[r]]]]
    spec <- specs[[grid$m[[r]]]]
    identity <- list(version = 1L, benchmark = b$identity, model = spec_identity(spec),
                     epochs = identity_epochs(epochs %||% b$epochs))
    list(id = substr(digest::digest(identity, algo = "sha256"), 1, 16), benchmark = b,
         model = spec, chat = chats[[grid$m[[r]]]], label = spec_label(spec), epochs = epochs)
  })
}

# Epochs as a cell's identity holds them: one epoch is what a task runs when given none, so
# `epochs = 1` is the cell of `epochs = NULL` (NULL, the identity such cells always had).
identity_epochs <- function(epochs) {
  if (is.null(epochs) || isTRUE(all.equal(as.double(epochs), 1))) NULL else epochs
}

# The cell's task, made in the process that runs it, writing its log to `log_dir`.
cell_task <- function(cell, log_dir) {
  b <- cell$benchmark
  if (!is.null(b$task)) {
    task <- b$task$clone(deep = TRUE)
    task$dir <- log_dir
    return(task)
  }
  version <- if (!identical(b$version, "default")) b$version
  dataset <- benchmark_function(b$name, "dataset")(version = version, limit = b$limit)
  args <- list(dataset = dataset, dir = log_dir)
  if (!is.null(b$judge)) args$judge <- b$judge_chat %||% judge_from_spec(b$judge)
  do.call(benchmark_function(b$name, "task"), args)
}
