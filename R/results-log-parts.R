# A run whose log is in several files (an arena run of many battles, R/arena-log.R): each
# file a whole Inspect log of some of the run's samples, headed by the run's numbers, with
# the run's id, and naming every file of the run in order (`eval.metadata.log_files`, the
# first the run's log). The readers read them as one run: a summary of any file reads every
# file's samples (log_run_samples(), through benchmark_samples()), and the board shows the
# run once, as its first file's (leaderboard()). A run is all its files or none, to every
# reader: each finds the run's files through log_part_paths(), which refuses a run with one
# missing, so the board, failure reports, audits, rescores and summaries refuse it alike, and
# a folder's readers before they read (or send) anything.

# The files of the run `path` belongs to, in order, the run's log first (beside `path`):
# `path` alone for a log in one file. A file of the run that is missing is an error naming
# it: a part of the run is not the run.
log_part_paths <- function(path, header = read_log_header(path)) {
  files <- logged_part_files(header)
  if (length(files) < 2) return(path)
  paths <- file.path(dirname(path), files)
  missing <- paths[!file.exists(paths)]
  if (length(missing)) {
    # a first file still unfinished: the run was killed while its log was closed
    crashed <- !file.exists(paths[[1]]) &&
      file.exists(file.path(dirname(path), part_file_name(files[[1]])))
    abort_pb(c("The run's log is in {length(paths)} files; {length(missing)} {?is/are} missing
                ({.file {basename(missing)}}).",
               i = if (crashed) "The run was killed while its log was closed: run it again
                                 (its answers and verdicts are in the response cache), which
                                 removes these files." else
                 "Keep a run's files together: each names the others."),
             "missing_file", file = missing[[1]])
  }
  paths
}

# The names of a run's files, as a file's header lists them (none for a log in one file).
logged_part_files <- function(header) as.character(unlist(header$eval$metadata$log_files))

# Every sample of the run `path` belongs to, as log_samples() reads each of its files, in the
# run's order, with the first file's header as attribute `log`.
log_run_samples <- function(path) {
  check_string(path)
  if (!file.exists(path)) abort_pb("Can't find the log.", "missing_file", file = path)
  paths <- log_part_paths(path)
  if (length(paths) == 1) return(log_samples(path))
  parts <- lapply(paths, log_samples)
  header <- attr(parts[[1]], "log")
  out <- do.call(rbind, parts)
  attr(out, "log") <- header
  out
}

# The later files of `task_id`'s crashed runs in `dir`: a run's later files are finished
# before its first (R/arena-log.R), so a run killed while its log was closed leaves finished
# later files whose first is still an unfinished part file no process holds (a crashed run's,
# stale_log_parts()). They are no run, and whoever reruns the task removes them, before the
# crashed run's part files go (log_writer(stale = "remove")). A later file whose first was
# deleted by hand is left alone: its readers refuse it, saying so.
remove_crashed_log_parts <- function(dir, task_id) {
  stale <- basename(stale_log_parts(dir, task_id))
  if (!length(stale)) return(invisible(character()))
  files <- list.files(dir, pattern = "[.](json|eval)$")
  files <- files[same_task_log(sub("^[^_]*_", "", files), task_id)]
  crashed <- vapply(files, function(file) {
    header <- tryCatch(read_log_header(file.path(dir, file)),
                       predictivebench_error = function(e) NULL)
    first <- logged_part_files(header)[1]
    !is.na(first) && first != file && !file.exists(file.path(dir, first)) &&
      part_file_name(first) %in% stale
  }, TRUE)
  unlink(file.path(dir, files[crashed]))
  invisible(files[crashed])
}
