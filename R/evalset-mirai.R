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

# Runs every cell on the daemons, each attempt once more for a cell that failed (an error in
# the cell, or its daemon died under it) while it has retries left.
run_on_daemons <- function(cells, log_dir, settings, retries) {
  outcomes <- vector("list", length(cells))
  tries <- integer(length(cells))
  todo <- seq_along(cells)
  # What a worker gets carries no chat object but a baseline's (offline, keyless).
  portable <- lapply(cells, portable_cell)
  while (length(todo)) {
    tries[todo] <- tries[todo] + 1L
    # run_cell() travels as a reference to the package's namespace, which the worker loads
    results <- mirai::mirai_map(portable[todo], run_cell,
                                .args = list(log_dir = log_dir, settings = settings))[]
    for (j in seq_along(todo)) outcomes[[todo[[j]]]] <- remote_outcome(results[[j]])
    failed <- todo[vapply(outcomes[todo], function(o) o$status == "failed", TRUE)]
    todo <- failed[tries[failed] <= retries]
  }
  for (i in seq_along(cells)) outcomes[[i]]$attempts <- tries[[i]]
  outcomes
}

portable_cell <- function(cell) {
  cell$chat <- NULL
  cell$benchmark$judge_chat <- NULL
  cell
}

# A worker's answer, or the failure of its daemon (mirai's error value: the connection was
# reset, the daemon was killed) as a failed attempt.
remote_outcome <- function(result) {
  if (is.list(result) && !is.null(result$status) && !inherits(result, "miraiError")) {
    return(result)
  }
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
