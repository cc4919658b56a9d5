# Cost of writing a log (issues 19 and 27): `$log()` of a predictivebench task at several
# sizes, all in one run, against vitals' own generate() task of the same size (optional).
#
# Per size n, over the same FutureX-shaped dataset, solved once offline (a baseline chat, no
# server):
#   results    futurex_task() (a ResultsTask): flat metadata, exact scores and metrics,
#              usage per sample, the header built as data, one yyjsonr call
#   vitals     vitals::Task with vitals::generate() and vitals::detect_includes()
# Each `$log()` is timed `reps` times in interleaved rounds over all sizes (garbage
# collected before each call). Per sample it prints the median wall time, the median CPU time of this process
# (user + system) and the median time R's garbage collector took during the call, then the
# ratio of the per-sample cost at the largest size to the smallest (target <= 1.2: linear).
# The machine is shared: CPU time is what the log costs this process, wall time also counts
# the time other processes had the core, so the load average is printed beside each size.
# At 800 samples (or the size nearest it) it also times serialising the same log list with
# yyjsonr (the writer) and with jsonlite::toJSON() (issue 27: one JSON library, measured).
#
# Run from the package root:
#   Rscript bench/log-cost.R  [sizes=200,800,3200] [reps=5] [tasks=results,vitals]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args) >= 1) as.integer(strsplit(args[[1]], ",")[[1]]) else c(200L, 800L, 3200L)
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 5L
kinds <- if (length(args) >= 3) strsplit(args[[3]], ",")[[1]] else c("results", "vitals")

cat(machine_line(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")
chat <- baseline_constant("\\boxed{A}")
dir <- tempfile("log-cost-")
invisible(gc.time(TRUE))

make_tasks <- function(n) {
  data <- futurex_shaped(n)
  tasks <- list(
    results = futurex_task(data, solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = dir),
    vitals = vitals::Task$new(dataset = data, solver = vitals::generate(chat),
                              scorer = vitals::detect_includes(), dir = dir, name = "vitals")
  )[kinds]
  for (name in names(tasks)) {
    suppressMessages(suppressWarnings(tasks[[name]]$eval(solver_chat = chat, view = FALSE)))
  }
  tasks
}

# Wall, CPU and garbage-collection seconds of one call.
costs <- function(expr) {
  gc_before <- gc.time()[[1]]
  cpu_before <- proc.time()
  started <- Sys.time()
  force(expr)
  cpu <- proc.time() - cpu_before
  c(wall = as.double(Sys.time() - started, units = "secs"),
    cpu = cpu[["user.self"]] + cpu[["sys.self"]], gc = gc.time()[[1]] - gc_before)
}

# CPU seconds of serialising the results task's log list with each library, `reps` times.
json_writers <- function(task, n) {
  private <- vitals_private(task)
  log <- results_log(task, private$pb_fields, private$pb_run_id)
  times <- t(vapply(seq_len(reps), function(r) {
    c(yyjsonr = costs(yyjsonr::write_json_str(nulls_as_objects(log),
                                              opts = log_json_options()))[["cpu"]],
      jsonlite = costs(jsonlite::toJSON(log, auto_unbox = TRUE, pretty = TRUE, digits = NA,
                                        na = "null", json_verbatim = TRUE))[["cpu"]])
  }, c(yyjsonr = 1, jsonlite = 1)))
  med <- apply(times, 2, stats::median)
  cat(sprintf(paste0("serialising the %d-sample log (median CPU of %d): yyjsonr %.3f s ",
                     "(%.2f ms/sample), jsonlite %.3f s (%.2f ms/sample), jsonlite/yyjsonr %.1fx\n"),
              n, reps, med[["yyjsonr"]], 1000 * med[["yyjsonr"]] / n, med[["jsonlite"]],
              1000 * med[["jsonlite"]] / n, med[["jsonlite"]] / med[["yyjsonr"]]))
}
json_size <- if ("results" %in% kinds) sizes[which.min(abs(sizes - 800L))]

# Every size is solved first and then timed in interleaved rounds (each round logs every
# size once, smallest first), so that a change of the machine's load during the run falls on
# all sizes alike instead of on whichever size ran last. All sizes' tasks are alive while
# they are timed; the garbage-collection column shows what the larger heap costs.
tasks <- lapply(sizes, make_tasks)
names(tasks) <- sizes
times <- array(NA_real_, c(reps, length(sizes), length(kinds), 3),
               dimnames = list(NULL, sizes, kinds, c("wall", "cpu", "gc")))
loads <- character(reps)
for (r in seq_len(reps)) {
  for (i in seq_along(sizes)) {
    for (name in kinds) {
      invisible(gc(verbose = FALSE))
      times[r, i, name, ] <- costs(tasks[[i]][[name]]$log(dir))
    }
  }
  loads[[r]] <- strsplit(readLines("/proc/loadavg"), " ")[[1]][[1]]
  cat(sprintf("round %d done, load average %s\n", r, loads[[r]]))
}
rows <- lapply(seq_along(sizes), function(i) {
  n <- sizes[[i]]
  row <- data.frame(n = n)
  for (name in kinds) {
    ms <- 1000 * apply(times[, i, name, , drop = FALSE], 4, stats::median) / n
    row[[paste0(name, "_wall_ms")]] <- round(ms[["wall"]], 3)
    row[[paste0(name, "_cpu_ms")]] <- round(ms[["cpu"]], 3)
    row[[paste0(name, "_gc_ms")]] <- round(ms[["gc"]], 3)
    log_path <- tasks[[i]][[name]]$log_path %||% tasks[[i]][[name]]$log(dir)
    row[[paste0(name, "_kib")]] <- round(file.size(log_path) / n / 1024, 2)
  }
  row
})
if (!is.null(json_size)) json_writers(tasks[[match(json_size, sizes)]]$results, json_size)
report <- do.call(rbind, rows)
cat(sprintf("median of %d $log() calls per task and size, ms per sample; load average after each round: %s\n",
            reps, paste(loads, collapse = ", ")))
print(report, row.names = FALSE)
first <- report[1, ]
last <- report[nrow(report), ]
for (name in kinds) {
  cat(sprintf("linearity (%s): per-sample cost at %d / at %d samples = %.3f wall, %.3f CPU\n",
              name, last$n, first$n,
              last[[paste0(name, "_wall_ms")]] / first[[paste0(name, "_wall_ms")]],
              last[[paste0(name, "_cpu_ms")]] / first[[paste0(name, "_cpu_ms")]]))
}
cat("load average at end:", readLines("/proc/loadavg"), "\n")
