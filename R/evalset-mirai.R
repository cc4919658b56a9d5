# Cells on mirai daemons. The package never starts daemons: when the user has, the cells are
# mapped over them; otherwise they run in this process (R/evalset-overlap.R). A worker gets the
# cell, the model's spec and, in this payload only, the credentials the chat would send here;
# it rebuilds the chat and writes the log and record itself. The cache is written atomically,
# so workers on one file system share answers.

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

# Runs the cells one group per daemon, overlapping inside each worker. A failed or partial cell
# is tried again in a new group while it has retries left; with every daemon gone, none is.
run_on_daemons <- function(cells, log_dir, settings, retries) {
  outcomes <- vector("list", length(cells))
  tries <- integer(length(cells))
  todo <- seq_along(cells)
  portable <- lapply(cells, portable_cell)
  while (length(todo)) {
    tries[todo] <- tries[todo] + 1L
    groups <- split(todo, rep_len(seq_len(min(length(todo), daemon_count(length(todo)))),
                                  length(todo)))
    # run_cell_group() travels as a reference to the namespace, which the worker loads
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

# The daemons connected now; with none yet (a cluster still starting), one group per cell.
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

# What a worker gets of a cell: no chat object (but an offline baseline's); the specs with the
# credentials their chats would send, in this payload only (R/evalset-chat-secrets.R).
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

# A benchmark made in the session, ready for a worker: R serializes the global environment as a
# reference to the worker's own, where e.g. the vignette's `toy_questions` is not found.
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

# The functions with one environment of every global they use (transitively) in place of the
# global environment; a namespace's functions travel as they are (R serializes it by name).
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

# Every name a function mentions but its arguments: a superset of its free variables (a copy
# too many, never one missed).
free_names <- function(f) {
  defaults <- Filter(Negate(is.symbol), as.list(formals(f)))
  used <- unique(c(all.names(body(f)), unlist(lapply(defaults, all.names))))
  setdiff(used, names(formals(f)))
}

# Where `name` is bound on the search path; NULL when not, or only in base R (workers have it).
global_binding <- function(name) {
  env <- globalenv()
  while (!identical(env, emptyenv())) {
    if (identical(env, baseenv())) return(NULL)
    if (exists(name, envir = env, inherits = FALSE)) return(env)
    env <- parent.env(env)
  }
  NULL
}

# A daemon's failure (connection reset, killed), or its code's, as a failed attempt.
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

# The results of a map, waited for while a daemon is there: mirai queues a task without limit,
# so when every daemon is gone for `grace` seconds what is left comes back `daemons_gone` (those
# cells fail, those done are kept). A cluster not connected yet is waited for.
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
  # (daemons without dispatcher count no cumulative connections: any daemon then counts)
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
