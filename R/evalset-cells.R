# The cells of an evaluation set (one benchmark x one model) and their identity.
#
# A cell's identity is what changes its results (benchmark, version, the task's steps, the
# judge, the model, the epochs); transport settings are not part of it, so changing them
# reruns nothing.

# A name ("futurex@sample") is built when the cell runs, in a worker from the judge's spec.
# A benchmark object runs as its name: indexed until the set's call (`call`) returns.
set_benchmarks <- function(benchmarks, judge, limit, call = rlang::caller_env()) {
  if (is_benchmark(benchmarks)) benchmarks <- list(benchmarks)
  benchmarks <- as_set_list(benchmarks, "Task", c(
    "{.arg benchmarks} must be benchmark names, benchmark objects or {.fn <bench>_task} objects.",
    i = "For example {.code c(\"futurex\", \"processbench\")}."
  ), call)
  index_set_objects(Filter(is_benchmark, benchmarks), call)
  benches <- lapply(seq_along(benchmarks), function(i) {
    b <- benchmarks[[i]]
    label <- rlang::names2(benchmarks)[[i]]
    if (is_benchmark(b)) b <- object_benchmark_name(b, label)
    if (rlang::is_string(b)) return(named_benchmark(b, judge, limit, call))
    if (inherits(b, "Task")) return(task_set_benchmark(b, label, call))
    abort_pb("{.arg benchmarks} element {i} is {.obj_type_friendly {b}}, not a name, a
              benchmark or a Task.", "argument", field = "benchmarks", call = call)
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

# A set's benchmarks or models as a non-empty list: one object of class `class`, or a
# character vector, becomes one.
as_set_list <- function(x, class, message, call) {
  if (inherits(x, class)) x <- list(x)
  if (is.character(x)) x <- as.list(x)
  if (!is.list(x) || !length(x)) abort_pb(message, "argument", call = call)
  x
}

# The name a benchmark object runs by: its own, with the version its element's name gives
# after `@` (`list("toy@sample" = toy)`). Without a task, named_benchmark() refuses it.
object_benchmark_name <- function(benchmark, label) {
  paste0(benchmark$name, if (grepl("@", label)) sub("^[^@]*@", "@", label))
}

# Two different benchmarks under one name would run as one: refused.
index_set_objects <- function(objects, call) {
  names <- vapply(unique(objects), `[[`, "", "name")
  if (anyDuplicated(names)) {
    abort_pb("{.arg benchmarks} holds two benchmarks named {.val {names[anyDuplicated(names)]}}.",
             "argument", field = "benchmarks", call = call)
  }
  local_benchmarks(objects, env = call)
}

# The benchmarks a set takes by name: those that say how their task is built.
set_benchmark_names <- function() {
  names(Filter(function(b) is.function(b$task), indexed_benchmarks()))
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
  check <- benchmark_named(name)$judging$check_by_name
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

# Without a judge, a benchmark that needs one would pay for every answer, then fail at
# scoring: refused before any request.
check_set_judge <- function(x, name, judge, call) {
  if (!isTRUE(benchmark_named(name)$judging$needs_judge) || !is.null(judge)) return(invisible())
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

# What changes a step's results beyond its code (arena_scorer()'s reference answers).
step_identity <- function(step) {
  if (!is.function(step)) return(NULL)
  attr(step, "predictivebench_identity", exact = TRUE)
}

# A re-pinned version or a changed sample is another cell.
version_identity <- function(name, version) {
  if (is_sample(version)) return(sample_identity(benchmark_named(name)$data$sample))
  rows <- version_files(name, version)
  list(version = unique(rows$version), commit = rows$commit, path = rows$path,
       sha256 = rows$sha256)
}

sample_identity <- function(sample) {
  table <- if (is.data.frame(sample$table)) {
    digest::digest(as.list(sample$table), algo = "md5")
  } else {
    package_files_md5(sample$table)
  }
  list(version = "sample", table = table, files = package_files_md5(sample$files))
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

# A named cell's `task`, or its `dataset` (by default the skeleton's).
benchmark_function <- function(name, what) {
  b <- benchmark_named(name)
  if (what == "task") return(b$task)
  b$data$dataset %||% function(version = NULL, limit = NULL) {
    benchmark_dataset(name, version = version, limit = limit)
  }
}

# The task's dataset: its samples without what an evaluation added, one row per sample.
task_dataset <- function(task) {
  samples <- tibble::as_tibble(task$get_samples())
  if ("epoch" %in% names(samples)) samples <- samples[samples$epoch %in% c(1, NA), ]
  samples[setdiff(names(samples), c(vitals_columns, "scorer_explanation"))]
}

# Every benchmark x model cell. A task's own epochs count when the set gives none; `chats`
# are used in this process, workers rebuild them from `specs`.
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

# `epochs = 1` is the cell of `epochs = NULL`: one epoch is what a task runs given none.
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

# Cells whose benchmark sends a setting of the chat otherwise (ProcessBench sends its own
# temperature 0.7, whatever the chat's) are labelled with what was sent: that cell of a chat
# made with `temperature = 0.5` is "<model> [temperature=0.5 sent as 0.7]", not
# "<model> [temperature=0.5]", which would claim a setting the benchmark replaced (its
# requests are those of the plain chat). The user is told, in one message. Found before
# anything is sent (cell_overridden()), so the set's table, the cell's log and a rerun name
# the cell alike; the cell's identity is its model's, as before.
label_overridden_cells <- function(cells) {
  told <- character()
  # what a benchmark replaces depends on the settings, not on the model: one probe each
  probed <- list()
  for (i in seq_along(cells)) {
    spec <- cells[[i]]$model
    key <- digest::digest(list(cells[[i]]$benchmark$label, spec$params, spec$args$api_args,
                               spec$system_prompt, is.null(cells[[i]]$benchmark$task)),
                          algo = "sha256")
    probed[[key]] <- probed[[key]] %||% list(cell_overridden(cells[[i]]))
    overridden <- probed[[key]][[1]]
    if (!length(overridden)) next
    label <- cell_label(cells[[i]]$model, overridden)
    sent <- vapply(names(overridden), function(n) {
      if (n == "system_prompt") "its own system prompt" else
        paste0(n, " = ", label_text(overridden[[n]]$sent))
    }, "")
    told[[length(told) + 1]] <- cli::format_inline(
      "{cells[[i]]$benchmark$label} sends {paste(sent, collapse = ', ')} whatever the chat's:
       its cell of {.val {cells[[i]]$label}} is {.val {label}}."
    )
    cells[[i]]$label <- label
  }
  if (length(told)) {
    cli::cli_inform(c("!" = "A benchmark replaces settings the chat was made with:",
                      stats::setNames(told, rep("*", length(told)))),
                    class = "predictivebench_message_setting_overridden")
  }
  cells
}

# The model's label with the settings in `overridden` shown as sent.
cell_label <- function(spec, overridden) {
  fun <- ellmer_chat_constructor(spec$provider)
  paste0(spec$name %||% paste0(spec$provider, "/", spec$model),
         spec_label_suffix(spec, fun, overridden))
}

# The settings of the cell's chat (its parameters, `api_args`, system prompt) that its
# benchmark sends otherwise, as configure_chat() signals them (R/engine-chat.R): the
# benchmark's task is solved and scored offline on one sample of its bundled sample
# (estimate_cost(): nothing is sent, no key is read, nothing written). Only for a chat made
# with such settings and a benchmark given by name (a task object's dataset is not cut
# down, and its solver is the user's own); an empty list when it can't be told.
cell_overridden <- function(cell) {
  spec <- cell$model
  own <- length(spec$params) || length(spec$args$api_args) || !is.null(spec$system_prompt)
  if (!own || identical(spec$provider, "baseline") || !is.null(cell$benchmark$task)) {
    return(list())
  }
  probe <- cell
  probe$benchmark$version <- "sample"
  probe$benchmark$limit <- 1L
  dir <- tempfile("predictivebench-probe-")
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  found <- list()
  keep <- function(c) {
    if (!identical(c$model, spec$model)) return()  # (a judge's)
    new <- setdiff(names(c$overridden), names(found))
    found[new] <<- c$overridden[new]
  }
  # (what the probe says of itself is not the run's: the run says it again)
  tryCatch(withCallingHandlers(
    suppressMessages(suppressWarnings(
      estimate_cost(cell_task(probe, dir), cell$chat %||% chat_from_spec(spec), epochs = 1L)
    )),
    predictivebench_setting_overridden = keep
  ), error = function(e) NULL)
  found
}
