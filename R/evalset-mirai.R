# Cells on mirai daemons. The package never starts daemons: when the user has started them
# (mirai::daemons(4), over SSH, or on a cluster through mirai::cluster_config()), the cells
# are mapped over them; otherwise they run in this process (R/evalset-overlap.R).
#
# What a worker gets: the cell (a benchmark name or a task object, the model's spec without
# secret, the epochs), the log folder and the request settings, and beside the spec the
# credentials the chat would send in this process (in this payload only). It rebuilds the
# chat from the spec with them, runs the cell and writes the log and the cell's record
# itself. The response cache is files written atomically (R/engine-cache.R), so workers on
# one file system share answers. When every daemon is gone, the cells still waiting fail
# after a grace period (await_map()) instead of waiting for a daemon that will not come.

daemons_running <- function() {
  if (!rlang::is_installed("mirai")) return(FALSE)
  ns <- asNamespace("mirai")
  set <- get0("daemons_set", envir = ns, mode = "function")
  if (!is.null(set)) return(isTRUE(tryCatch(set(), error = function(e) FALSE)))
  status <- tryCatch(mirai::status(), error = function(e) NULL)
  # (older mirai: the number of connected daemons, or their URLs)
  connections <- status$connections
  !is.null(connections) && length(connections) == 1 && connections > 0
}

# Runs the cells on the daemons: one group of cells per daemon, each group overlapping
# inside its worker (as in this process), so a daemon's cells share its pool. A cell
# that failed (an error in it, or its daemon died under it) or is partial (samples whose
# requests failed for good) is tried again, in a new group,
# while it has retries left; a cell the dead daemon had finished is done (its record says so).
# With every daemon gone, no cell is tried again.
run_on_daemons <- function(cells, log_dir, settings, retries) {
  outcomes <- vector("list", length(cells))
  tries <- integer(length(cells))
  todo <- seq_along(cells)
  portable <- lapply(cells, portable_cell)
  while (length(todo)) {
    tries[todo] <- tries[todo] + 1L
    groups <- split(todo, rep_len(seq_len(min(length(todo), daemon_count(length(todo)))),
                                  length(todo)))
    # run_cell_group() travels as a reference to the package's namespace, which the worker
    # loads
    results <- await_map(mirai::mirai_map(unname(lapply(groups, function(g) portable[g])),
                                          run_cell_group,
                                          .args = list(log_dir = log_dir, settings = settings,
                                                       run = current_request_session()$run,
                                                       log_format = log_format())))
    for (j in seq_along(groups)) {
      for (k in seq_along(groups[[j]])) {
        i <- groups[[j]][[k]]
        outcomes[[i]] <- group_outcome(results[[j]], k, log_dir, cells[[i]])
      }
    }
    failed <- todo[vapply(outcomes[todo], function(o) {
      o$status %in% c("failed", "partial") && !isTRUE(o$final)  # (final: run_cell())
    }, TRUE)]
    # with every daemon gone, a retry would only wait again
    todo <- if (!any(vapply(results, is_daemons_gone, TRUE))) failed[tries[failed] <= retries]
  }
  for (i in seq_along(cells)) {
    outcomes[[i]]$attempts <- tries[[i]]
    outcomes[[i]]$reused <- FALSE
  }
  outcomes
}

# What a daemon runs: its cells, overlapping, each attempted once (retries are the caller's),
# with the benchmark objects they brought indexed, paid by the set's run.
run_cell_group <- function(cells, log_dir, settings, run = NULL, log_format = "json") {
  local_request_session(run = run)
  withr::local_options(predictivebench.log_format = log_format)  # this process's, not the worker's
  local_benchmarks(lapply(cells, function(cell) cell$benchmark$object))
  run_overlapping(cells, 0L, function(cell, collector) {
    run_cell(cell, log_dir, settings, collector)
  })
}

# The daemons connected now; with none yet (a cluster's jobs still starting), one group per
# cell.
daemon_count <- function(n_cells) {
  connections <- tryCatch(mirai::status()$connections, error = function(e) NULL)
  if (!is.numeric(connections) || length(connections) != 1 || connections < 1) return(n_cells)
  as.integer(connections)
}

# The outcome of the k-th cell of a group: the worker's, or, when the daemon failed, the
# cell's record if it finished before, else a failed attempt.
group_outcome <- function(result, k, log_dir, cell) {
  if (is.list(result) && !inherits(result, c("miraiError", "errorValue")) &&
      length(result) >= k && is.list(result[[k]]) && !is.null(result[[k]]$status)) {
    return(result[[k]])
  }
  read_cell_record(log_dir, cell$id) %||% remote_outcome(result)
}

# What a worker gets of a cell: no chat object (but a baseline's, offline and keyless); the
# model's and the judge's specs with the credentials their chats would send here, read here
# (R/evalset-chat-secrets.R), in this payload only.
portable_cell <- function(cell) {
  cell$model$secrets <- spec_secrets(cell$model, cell$chat)
  if (!is.null(cell$benchmark$judge)) {
    cell$benchmark$judge <- judge_spec_map(cell$benchmark$judge, cell$benchmark$judge_chat,
                                           function(spec, chat) {
      spec$secrets <- spec_secrets(spec, chat)
      portable_spec(spec)
    })
  }
  cell$chat <- NULL
  cell$benchmark$judge_chat <- NULL
  # its benchmark travels with it: the worker has only the package's own
  cell$benchmark$object <- portable_benchmark(benchmark_named(cell$benchmark$name))
  cell$model <- portable_spec(cell$model)
  cell
}

# A benchmark made in the session, ready for a worker, which loads the package but not the
# session's globals: R serializes the global environment as a reference to the worker's own,
# where the vignette's `toy_questions` is not found. Its functions travel with the globals
# they read (portable_functions()).
portable_benchmark <- function(benchmark) {
  if (is.null(benchmark)) return(NULL)
  b <- unclass(benchmark)
  # a summary given by name is looked up here, where the user's globals are
  fn <- b$summary$fn
  if (rlang::is_string(fn)) b$summary$fn <- tryCatch(summary_function(fn), error = function(e) fn)
  paths <- list()
  for (part in names(b)) {
    fields <- if (is.function(b[[part]])) "" else names(Filter(is.function, b[[part]]))
    paths <- c(paths, lapply(fields, function(f) c(part, if (nzchar(f)) f)))
  }
  moved <- portable_functions(lapply(paths, function(at) b[[at]]))
  for (i in seq_along(paths)) b[[paths[[i]]]] <- moved[[i]]
  structure(b, class = class(benchmark))
}

# A baseline travels as its chat: its responder, with the globals it reads (the vignette's
# `toy_questions`), as a benchmark's functions do.
portable_spec <- function(spec) {
  if (!identical(spec$provider, "baseline")) return(spec)
  chat <- spec$chat$clone()
  chat$responder <- portable_functions(list(chat$responder))[[1]]
  spec$chat <- chat
  spec
}

# The functions with, in place of the global environment, one environment holding every
# global they use (found by name, transitively through the global functions they call; base
# R is the worker's own). The functions of a package namespace travel as they are: R
# serializes a namespace by name and the worker loads it.
portable_functions <- function(fns) {
  shared <- new.env(parent = globalenv())
  queue <- Filter(is_global_closure, fns)
  seen <- character()
  while (length(queue)) {
    f <- queue[[1]]
    queue <- queue[-1]
    for (name in setdiff(free_names(f), seen)) {
      seen <- c(seen, name)
      where <- global_binding(name)
      if (is.null(where)) next
      value <- get(name, envir = where, inherits = FALSE)
      if (is_global_closure(value)) queue <- c(queue, value)
      assign(name, value, envir = shared)
    }
  }
  rehome <- function(f) {
    if (is_global_closure(f)) environment(f) <- shared
    f
  }
  for (name in ls(shared, all.names = TRUE)) {
    assign(name, rehome(get(name, envir = shared)), envir = shared)
  }
  lapply(fns, rehome)
}

is_global_closure <- function(x) {
  is.function(x) && !is.primitive(x) && identical(environment(x), globalenv())
}

# Every name a function's body and defaults mention but its arguments: a superset of its
# free variables (a local variable that is also a global is copied needlessly, never
# missed).
free_names <- function(f) {
  defaults <- Filter(Negate(is.symbol), as.list(formals(f)))
  used <- unique(c(all.names(body(f)), unlist(lapply(defaults, all.names))))
  setdiff(used, names(formals(f)))
}

# The environment on the global search path where `name` is bound, or NULL when it is not,
# or only in base R (which every worker has).
global_binding <- function(name) {
  env <- globalenv()
  while (!identical(env, emptyenv())) {
    if (identical(env, baseenv())) return(NULL)
    if (exists(name, envir = env, inherits = FALSE)) return(env)
    env <- parent.env(env)
  }
  NULL
}

# The failure of a daemon (mirai's error value: the connection was reset, the daemon was
# killed), of every daemon, or of the code it ran, as a failed attempt.
remote_outcome <- function(result) {
  message <- if (is_daemons_gone(result)) {
    daemons_gone_text(result)
  } else if (inherits(result, "errorValue") || is.numeric(result)) {
    paste0("The daemon running the cell failed: ", mirai_error_text(result))
  } else {
    paste0("The cell failed on its daemon: ", failure_text(result))
  }
  new_outcome("failed", error = message)
}

mirai_error_text <- function(x) {
  paste(trimws(utils::capture.output(print(x))), collapse = " ")
}

failure_text <- function(x) {
  tryCatch(conditionMessage(x), error = function(e) paste(format(x), collapse = " "))
}

# The results of a map, waited for while a daemon is there to run them. mirai queues a task
# until a daemon takes it, without limit: when every daemon that had connected is gone
# (killed, its job ended) and none comes back within `grace` seconds, what is still queued
# or running is stopped and comes back as a `daemons_gone` result, so that the set ends
# with those cells failed and the cells done before kept. A cluster whose daemons have not
# connected yet is waited for: none is gone.
await_map <- function(map, grace = daemons_grace()) {
  gone_since <- NULL
  while (mirai::unresolved(map)) {
    if (daemons_gone()) {
      gone_since <- gone_since %||% Sys.time()
      waited <- as.double(difftime(Sys.time(), gone_since, units = "secs"))
      if (waited >= grace) return(stop_map(map, waited))
    } else {
      gone_since <- NULL
    }
    Sys.sleep(0.2)
  }
  map[]
}

# Seconds without any daemon before the waiting cells fail: a daemon that reconnects within
# them (a restarted SSH tunnel, a requeued job) takes the work on.
daemons_grace <- function() {
  grace <- getOption("predictivebench.daemons_grace_s", 20)
  check_number(grace, arg = "predictivebench.daemons_grace_s")
  grace
}

# Whether daemons were connected and none is now (or the user reset them).
daemons_gone <- function() {
  info <- tryCatch(mirai::info(), error = function(e) NULL)
  if (is.null(info)) return(TRUE)
  # (daemons without dispatcher count no cumulative connections: then any daemon counts as
  # having connected)
  had <- info[["cumulative"]] > 0 || is.na(info[["cumulative"]])
  isTRUE(info[["connections"]] == 0 && had)
}

# Stops the map's unresolved tasks; their results say the daemons are gone.
stop_map <- function(map, waited) {
  tasks <- unclass(map)  # (`[` of a mirai_map collects it)
  pending <- vapply(tasks, mirai::unresolved, TRUE)
  for (task in tasks[pending]) mirai::stop_mirai(task)
  results <- lapply(tasks, function(task) task$data)
  gone <- structure(list(waited = waited), class = "predictivebench_daemons_gone")
  results[pending] <- list(gone)
  results
}

is_daemons_gone <- function(x) inherits(x, "predictivebench_daemons_gone")

daemons_gone_text <- function(x) {
  paste0("Every mirai daemon is gone (none connected for ", round(x$waited), " s), so the ",
         "cell was not finished. Start daemons again (mirai::daemons()), or reset them with ",
         "mirai::daemons(0) to run in this process, then call eval_set() again: the cells ",
         "done are kept.")
}
