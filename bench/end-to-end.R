# End to end at real size, offline (issue 19): `$eval()` of a whole benchmark with a baseline
# chat, from the task table to the written log, with wall time per step and peak memory.
#
#   processbench  the real ProcessBench size: 3,400 problems x 8 votes (27,200 requests).
#                 Only gsm8k's 400 problems are in ../shared/reference, so the table is
#                 gsm8k's rows repeated to 3,400, each copy's problem made unique (its own
#                 requests and cache keys) and its steps kept as published.
#   futurex       20,000 FutureX-shaped samples (the shipped sample recycled, each prompt
#                 unique), scored without a judge.
#
# The baseline chat answers each request in R (no server, no network): what is measured is
# the package's own cost (requests, scoring, metrics, log). The response cache is off, as on
# a first run. On a shared machine the wall time depends on the other jobs; the CPU time of
# the process is printed beside it. Peak memory is the R process's peak resident set (VmHWM in /proc), so run one
# benchmark per process:
#
#   Rscript bench/end-to-end.R processbench [n=3400] [votes=8]
#   Rscript bench/end-to-end.R futurex [n=20000]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
which <- if (length(args) >= 1) args[[1]] else "processbench"

peak_mib <- function() {
  line <- grep("^VmHWM:", readLines("/proc/self/status"), value = TRUE)
  as.double(gsub("[^0-9]", "", line)) / 1024
}

# gsm8k's published problems repeated to n, each copy's problem text made unique.
processbench_real_shape <- function(n) {
  path <- file.path("..", "shared", "reference", "processbench", "gsm8k.json")
  if (!file.exists(path)) stop("needs ", path, " (see ../shared/reference/README.md)")
  gsm8k <- prepare_processbench(path)
  rows <- rep_len(seq_len(nrow(gsm8k)), n)
  out <- gsm8k[rows, ]
  copy <- (seq_len(n) - 1L) %/% nrow(gsm8k)
  out$id <- paste0(out$id, "-copy", copy)
  out$problem <- ifelse(copy > 0, paste0(out$problem, " (copy ", copy, ")"), out$problem)
  out
}

cat(machine_line(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")
dir <- tempfile("end-to-end-")
started <- Sys.time()
if (which == "processbench") {
  n <- if (length(args) >= 2) as.integer(args[[2]]) else 3400L
  votes <- if (length(args) >= 3) as.integer(args[[3]]) else 8L
  data <- processbench_real_shape(n)
  chat <- baseline_constant("\\boxed{-1}")
  tsk <- processbench_task(data, template = "processbench", dir = dir,
                           solver = processbench_solver(n_votes = votes,
                                                        settings = request_settings(cache = FALSE)))
  label <- sprintf("ProcessBench, %d problems x %d votes (%d requests)", n, votes, n * votes)
} else {
  n <- if (length(args) >= 2) as.integer(args[[2]]) else 20000L
  data <- futurex_shaped(n)
  chat <- baseline_constant("\\boxed{A}")
  tsk <- futurex_task(data, solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = dir)
  label <- sprintf("FutureX-shaped, %d samples", n)
}
prepared <- Sys.time()
cpu_before <- proc.time()
steps <- character()
timed <- withCallingHandlers(
  suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE)),
  message = function(m) {
    steps <<- c(steps, sprintf("%s  %s", format(Sys.time(), "%H:%M:%OS1"),
                               trimws(conditionMessage(m))))
    invokeRestart("muffleMessage")
  }
)
finished <- Sys.time()
cpu <- proc.time() - cpu_before
log_seconds <- wall(tsk$log(tempfile("log-only-")))

cat(label, "\n")
cat(sprintf("  task table:            %6.1f s\n", as.double(prepared - started, units = "secs")))
cat(sprintf("  $eval() end to end:    %6.1f s wall, %.1f s CPU of this process (solve, score, metrics and log)\n",
            as.double(finished - prepared, units = "secs"),
            cpu[["user.self"]] + cpu[["sys.self"]]))
cat(sprintf("  of which $log() alone: %6.1f s (timed again after the run), log %.1f MiB\n",
            log_seconds, file.size(tsk$log_path) / 2^20))
cat(sprintf("  peak memory (VmHWM):   %6.0f MiB\n", peak_mib()))
cat("  steps:\n", paste0("    ", grep("Solving|Scoring", steps, value = TRUE), "\n"), sep = "")
print(suppressMessages(get(paste0(which, "_summary"))(tsk))[1:3, c("group", "metric", "estimate", "n")])
cat("load average at end:", readLines("/proc/loadavg"), "\n")
