# A run whose log is in several files (an arena run of many battles, R/arena-log.R): each
# file a whole Inspect log of some of the run's samples, headed by the run's numbers, with
# the run's id, and naming every file of the run in order (`eval.metadata.log_files`, the
# first the run's log). The readers read them as one run: a summary of any file reads every
# file's samples (log_run_samples(), through benchmark_samples()), and the board shows the
# run once, as its first file's (leaderboard()).

# The files of the run `path` belongs to, in order, the run's log first (beside `path`):
# `path` alone for a log in one file.
log_part_paths <- function(path, header = read_log_header(path)) {
  files <- as.character(unlist(header$eval$metadata$log_files))
  if (length(files) < 2) return(path)
  file.path(dirname(path), files)
}

# Every sample of the run `path` belongs to, as log_samples() reads each of its files, in the
# run's order, with the first file's header as attribute `log`. A file of the run that is
# missing is an error naming it: a part of the run is not the run.
log_run_samples <- function(path) {
  check_string(path)
  if (!file.exists(path)) abort_pb("Can't find the log.", "missing_file", file = path)
  paths <- log_part_paths(path)
  if (length(paths) == 1) return(log_samples(path))
  missing <- paths[!file.exists(paths)]
  if (length(missing)) {
    abort_pb(c("The run's log is in {length(paths)} files; one is missing.",
               i = "Keep a run's files together: each names the others."),
             "missing_file", file = missing[[1]])
  }
  parts <- lapply(paths, log_samples)
  header <- attr(parts[[1]], "log")
  out <- do.call(rbind, parts)
  attr(out, "log") <- header
  out
}
