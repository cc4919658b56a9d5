# One writer per cell: two processes running one set on one folder each run only the cells whose
# lock (`<log_dir>/.eval-set/<cell id>.lock`, filelock) they hold, so nothing is paid twice. The
# OS releases a dead process's locks (fcntl). The caller takes them, also for daemons: a worker
# is another process, and would find the caller's locks held.

cell_lock_path <- function(log_dir, id) {
  file.path(records_dir(log_dir), portable_file_name(id, ext = ".lock"))
}

# The cell's lock, or NULL when another process holds it (after `wait_ms`).
lock_cell <- function(log_dir, id, wait_ms = 0) {
  filelock::lock(cell_lock_path(log_dir, id), timeout = wait_ms)
}

# Runs the cells whose locks no other process holds, then waits (at most `wait_s`, option
# `predictivebench.cell_wait_s`) for the others: finished ones are read from their records,
# unfinished ones run here, ones still held are failed attempts.
run_locked_cells <- function(cells, log_dir, run, poll_ms = 1000,
                             wait_s = getOption("predictivebench.cell_wait_s", Inf)) {
  outcomes <- vector("list", length(cells))
  todo <- seq_along(cells)
  waiting_since <- NULL
  while (length(todo)) {
    locks <- lapply(cells[todo], function(cell) lock_cell(log_dir, cell$id))
    held <- !vapply(locks, is.null, TRUE)
    mine <- todo[held]
    tryCatch({
      # (another process may have finished one since this call first looked)
      finished <- lapply(cells[mine], function(cell) read_cell_record(log_dir, cell$id, TRUE))
      done <- !vapply(finished, is.null, TRUE)
      outcomes[mine[done]] <- finished[done]
      if (any(!done)) outcomes[mine[!done]] <- run(cells[mine[!done]])
    }, finally = for (lock in locks[held]) filelock::unlock(lock))
    todo <- todo[!held]
    if (!length(todo) || length(mine)) next
    if (is.null(waiting_since)) {
      say_waiting(cells[todo])
      waiting_since <- now_seconds()
    }
    if (now_seconds() - waiting_since > wait_s) {
      outcomes[todo] <- list(new_outcome("failed", error = paste(
        "Another process on this folder is still running this cell; call eval_set() again",
        "once it has finished."
      )))
      break
    }
    # wait until the first of them is released (finished, or its holder died)
    first <- lock_cell(log_dir, cells[[todo[[1]]]]$id, wait_ms = poll_ms)
    if (!is.null(first)) filelock::unlock(first)
  }
  outcomes
}

say_waiting <- function(cells) {
  cli::cli_inform(c(
    "i" = "Waiting for {length(cells)} cell{?s} another process is running on this folder:
           {.val {vapply(cells, cell_name, '')}}.",
    " " = "Each is taken from its log when that process finishes it, or run here if it
           stops first."
  ), class = "predictivebench_message_eval_set_waits")
}

cell_name <- function(cell) paste(cell$benchmark$label, "x", cell$label)
