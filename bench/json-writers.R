# Which JSON library writes a log (issue 27, "one JSON library, measured"): the package uses
# yyjsonr in the log writer only (write_log(), R/log-write.R) and jsonlite everywhere else.
# This times both on the same log: the list write_log() is given for an evaluated ProcessBench
# task of `n` problems x `votes` votes (offline, a baseline chat), captured as the task writes
# it, then serialized `reps` times by each writer in interleaved rounds (garbage collected
# before each call):
#
#   yyjsonr   what write_log() does: nulls_as_objects() + yyjsonr::write_json_str()
#   jsonlite  jsonlite::toJSON(auto_unbox = TRUE, pretty = TRUE, digits = NA,
#             json_verbatim = TRUE): what the writer was before yyjsonr (jsonlite writes NULL
#             as {} itself). digits = NA keeps 15 significant digits, not every double
#             exactly, so jsonlite does a little less work than an exact writer would.
#
# Rows come from gsm8k.json of shared/reference/processbench beside the checkout (../shared, or
# ../../shared from a worktree) when it is there (the published problems), else the bundled
# sample, recycled to `n` with each problem made unique.
#
# Run from the package root:  Rscript bench/json-writers.R [n=800] [votes=8] [reps=5]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 800L
votes <- if (length(args) >= 2) as.integer(args[[2]]) else 8L
reps <- if (length(args) >= 3) as.integer(args[[3]]) else 5L

cat(machine_line(), "\n")
cat("jsonlite", format(utils::packageVersion("jsonlite")), "/ yyjsonr",
    format(utils::packageVersion("yyjsonr")), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")

processbench_rows <- function(n) {
  reference <- file.path(c("..", file.path("..", "..")), "shared", "reference", "processbench",
                         "gsm8k.json")
  reference <- reference[file.exists(reference)][1]
  base <- if (!is.na(reference)) prepare_processbench(reference) else
    processbench_dataset(version = "sample")
  cat("rows from", if (!is.na(reference)) reference else "the bundled sample", "\n")
  rows <- rep_len(seq_len(nrow(base)), n)
  out <- base[rows, ]
  copy <- (seq_len(n) - 1L) %/% nrow(base)
  out$id <- paste0(out$id, "-copy", copy)
  out$problem <- paste0(out$problem, " (copy ", copy, ")")
  out
}

# The list write_log() receives, captured on its way in.
captured <- new.env()
invisible(suppressMessages(trace("write_log", where = asNamespace("predictivebench"),
                                print = FALSE,
                                tracer = quote(assign("log", log, envir = captured)))))
tsk <- processbench_task(processbench_rows(n), template = "processbench", dir = tempfile(),
                         solver = processbench_solver(n_votes = votes,
                                                      settings = request_settings(cache = FALSE)))
suppressMessages(suppressWarnings(tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"),
                                           view = FALSE)))
invisible(suppressMessages(untrace("write_log", where = asNamespace("predictivebench"))))
log <- captured$log
stopifnot(is.list(log), length(log$samples) == n)

writers <- list(
  yyjsonr = function() yyjsonr::write_json_str(nulls_as_objects(log), opts = log_json_options()),
  jsonlite = function() jsonlite::toJSON(log, auto_unbox = TRUE, pretty = TRUE, digits = NA,
                                         json_verbatim = TRUE)
)
times <- matrix(NA_real_, reps, length(writers), dimnames = list(NULL, names(writers)))
sizes <- c(yyjsonr = NA_real_, jsonlite = NA_real_)
for (r in seq_len(reps)) {
  for (name in names(writers)) {
    invisible(gc(verbose = FALSE))
    started <- proc.time()[["elapsed"]]
    json <- writers[[name]]()
    times[r, name] <- proc.time()[["elapsed"]] - started
    sizes[[name]] <- nchar(json, type = "bytes")
  }
}
median_s <- apply(times, 2, stats::median)
cat(sprintf("\nProcessBench log, %d problems x %d votes: %.1f MiB (yyjsonr) / %.1f MiB (jsonlite)\n",
            n, votes, sizes[["yyjsonr"]] / 2^20, sizes[["jsonlite"]] / 2^20))
cat(sprintf("  %-8s median %6.3f s  (min %6.3f, max %6.3f; %d calls)\n", names(median_s), median_s,
            apply(times, 2, min), apply(times, 2, max), reps), sep = "")
cat(sprintf("  jsonlite / yyjsonr: %.1fx\n", median_s[["jsonlite"]] / median_s[["yyjsonr"]]))
cat(sprintf("  whole $log() (timed once, yyjsonr): %.3f s\n", wall(tsk$log(tempfile()))))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
