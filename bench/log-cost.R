# Cost of writing a log (issue 19): `$log()` of a predictivebench task against vitals' own
# generate() task of the same size, at several sizes, all in one run.
#
# Per size n, two tasks over the same FutureX-shaped dataset, solved once offline (a baseline
# chat, no server):
#   vitals     vitals::Task with vitals::generate() and vitals::detect_includes()
#   results    futurex_task() (a ResultsTask): flat metadata, exact scores and metrics,
#              usage per sample, the header built as data, one jsonlite call
# Each `$log()` is timed `reps` times in interleaved rounds (garbage collected before each
# call), and the median per sample is printed with the ratio to vitals (target <= 1.05) and,
# for the ResultsTask, the ratio of its per-sample cost at the largest size to the smallest
# (target <= 1.2: linear).
#
# Run from the package root:  Rscript bench/log-cost.R  [sizes=200,800,3200] [reps=5]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args) >= 1) as.integer(strsplit(args[[1]], ",")[[1]]) else c(200L, 800L, 3200L)
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 5L

cat(machine_line(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")
chat <- baseline_constant("\\boxed{A}")
dir <- tempfile("log-cost-")

make_tasks <- function(n) {
  data <- futurex_shaped(n)
  tasks <- list(
    vitals = vitals::Task$new(dataset = data, solver = vitals::generate(chat),
                              scorer = vitals::detect_includes(), dir = dir, name = "vitals"),
    results = futurex_task(data, solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = dir)
  )
  for (name in names(tasks)) {
    suppressMessages(suppressWarnings(tasks[[name]]$eval(solver_chat = chat, view = FALSE)))
  }
  tasks
}

rows <- list()
for (n in sizes) {
  tasks <- make_tasks(n)
  times <- matrix(NA_real_, reps, length(tasks), dimnames = list(NULL, names(tasks)))
  for (r in seq_len(reps)) {
    for (name in names(tasks)) {
      invisible(gc(verbose = FALSE))
      times[r, name] <- wall(tasks[[name]]$log(dir))
    }
  }
  per_sample_ms <- 1000 * apply(times, 2, stats::median) / n
  kib <- vapply(tasks, function(tsk) file.size(tsk$log(dir)) / n / 1024, 1)
  rows[[length(rows) + 1]] <- data.frame(
    n = n, vitals_ms_per_sample = round(per_sample_ms[["vitals"]], 3),
    results_ms_per_sample = round(per_sample_ms[["results"]], 3),
    ratio_to_vitals = round(per_sample_ms[["results"]] / per_sample_ms[["vitals"]], 3),
    vitals_kib_per_sample = round(kib[["vitals"]], 2),
    results_kib_per_sample = round(kib[["results"]], 2)
  )
  # each size as it finishes, so a long run shows its first sizes
  print(rows[[length(rows)]], row.names = FALSE)
  cat("load average:", readLines("/proc/loadavg"), "\n")
  unlink(list.files(dir, full.names = TRUE))
  rm(tasks)
  invisible(gc(verbose = FALSE))
}
report <- do.call(rbind, rows)
cat(sprintf("median of %d $log() calls per task and size\n", reps))
print(report, row.names = FALSE)
first <- report[1, ]
last <- report[nrow(report), ]
cat(sprintf("linearity: per-sample cost at %d / at %d samples = %.3f (results), %.3f (vitals)\n",
            last$n, first$n, last$results_ms_per_sample / first$results_ms_per_sample,
            last$vitals_ms_per_sample / first$vitals_ms_per_sample))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
