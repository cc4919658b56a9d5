# Cells on mirai daemons. The package never starts daemons: when the user has started them
# (mirai::daemons(4), over SSH, or on a cluster through mirai::cluster_config()), the cells
# are mapped over them; otherwise they run in this process (R/evalset-overlap.R).
#
# What a worker gets: the cell (a benchmark name or a task object, the model's spec without
# secret, the epochs), the log folder and the request settings. It rebuilds the chat from the
# spec with the key of its own environment, runs the cell and writes the log and the cell's
# record itself. The response cache and the arena caches are files shared under their own
# locks (R/engine-cache.R, R/arena-cache.R), so workers on one file system share answers.

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

# Runs the cells on the daemons: one group of cells per daemon, each group in overlapping
# rounds inside its worker (as in this process), so a daemon's cells share its pool. A cell
# that failed (an error in it, or its daemon died under it) is tried again, in a new group,
# while it has retries left; a cell the dead daemon had finished is done (its record says so).
run_on_daemons <- function(cells, log_dir, settings, retries) {
  outcomes <- vector("list", length(cells))
  tries <- integer(length(cells))
  todo <- seq_along(cells)
  # What a worker gets carries no chat object but a baseline's (offline, keyless).
  portable <- lapply(cells, portable_cell)
  while (length(todo)) {
    tries[todo] <- tries[todo] + 1L
    groups <- split(todo, rep_len(seq_len(min(length(todo), daemon_count(length(todo)))),
                                  length(todo)))
    # run_cell_group() travels as a reference to the package's namespace, which the worker
    # loads
    results <- mirai::mirai_map(unname(lapply(groups, function(g) portable[g])),
                                run_cell_group,
                                .args = list(log_dir = log_dir, settings = settings))[]
    for (j in seq_along(groups)) {
      for (k in seq_along(groups[[j]])) {
        i <- groups[[j]][[k]]
        outcomes[[i]] <- group_outcome(results[[j]], k, log_dir, cells[[i]])
      }
    }
    failed <- todo[vapply(outcomes[todo], function(o) o$status == "failed", TRUE)]
    todo <- failed[tries[failed] <= retries]
  }
  for (i in seq_along(cells)) {
    outcomes[[i]]$attempts <- tries[[i]]
    outcomes[[i]]$reused <- FALSE
  }
  outcomes
}

# What a daemon runs: its cells, in rounds, each attempted once (retries are the caller's),
# with the registrations they brought (R/benchmark-portable.R).
run_cell_group <- function(cells, log_dir, settings) {
  local_registrations(lapply(cells, function(cell) cell$benchmark$registration))
  run_in_rounds(cells, 0L, function(cell) run_cell(cell, log_dir, settings))
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
  read_manifest(log_dir, cell$id) %||% remote_outcome(result)
}

portable_cell <- function(cell) {
  cell$chat <- NULL
  cell$benchmark$judge_chat <- NULL
  # its benchmark's registration travels with it: the worker has only the package's own
  cell$benchmark$registration <- portable_registration(cell$benchmark$benchmark)
  cell$model <- portable_spec(cell$model)
  if (!is.null(cell$benchmark$judge)) cell$benchmark$judge <- portable_spec(cell$benchmark$judge)
  cell
}

# A baseline travels as its chat: its responder, with the globals it reads (the vignette's
# `toy_questions`), as a registration's functions do.
portable_spec <- function(spec) {
  if (!identical(spec$provider, "baseline")) return(spec)
  chat <- spec$chat$clone()
  chat$responder <- portable_functions(list(chat$responder))[[1]]
  spec$chat <- chat
  spec
}

# The failure of a daemon (mirai's error value: the connection was reset, the daemon was
# killed) or of the code it ran, as a failed attempt.
remote_outcome <- function(result) {
  message <- if (inherits(result, "errorValue") || is.numeric(result)) {
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
