# Cost of writing a log: `$log()` of a predictivebench task against vitals' own generate()
# task of the same size (issue 12 asks for at most 1.05x).
#
# Three tasks over the same FutureX-shaped dataset, solved once against the fast fake server:
#   vitals     vitals::Task with vitals::generate() and vitals::detect_includes()
#   before     vitals::Task with futurex_solver()/futurex_scorer(): nested metadata, which
#              vitals writes as str() text
#   results    ResultsTask (benchmark "futurex"): flat metadata, exact scores and metrics,
#              usage from metadata, the header rewritten
# Each `$log()` is timed `reps` times, in interleaved rounds; the median per sample and the
# ratio to vitals print.
#
# Run from the package root:  Rscript bench/log-cost.R  [n=300] [reps=7]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 300L
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 7L

cat(machine_line(), "\n")
data <- futurex_shaped(n)
server <- fast_fake_server(latency = 0)
chat <- fast_fake_chat(server)
# FutureX registers its summary (headline: overall and each level) when the package loads
dir <- tempfile("log-cost-")

tasks <- list(
  vitals = vitals::Task$new(dataset = data, solver = vitals::generate(chat),
                            scorer = vitals::detect_includes(), dir = dir, name = "vitals"),
  before = vitals::Task$new(dataset = data, solver = futurex_solver(cache = FALSE),
                            scorer = futurex_scorer(), dir = dir, name = "before"),
  results = ResultsTask$new(dataset = data, solver = futurex_solver(cache = FALSE),
                            scorer = futurex_scorer(), benchmark = "futurex", dir = dir)
)
for (name in names(tasks)) {
  suppressMessages(suppressWarnings(tasks[[name]]$eval(solver_chat = chat, view = FALSE)))
}
invisible(server$stop())

# Rounds interleave the tasks (and collect garbage before each call), so load from other
# jobs on the machine and the session's growing heap fall on all three alike.
times <- matrix(NA_real_, reps, length(tasks), dimnames = list(NULL, names(tasks)))
for (r in seq_len(reps)) {
  for (name in names(tasks)) {
    invisible(gc(verbose = FALSE))
    times[r, name] <- wall(tasks[[name]]$log(dir))
  }
}
per_sample_ms <- 1000 * apply(times, 2, stats::median) / n
sizes <- vapply(tasks, function(tsk) {
  path <- tsk$log(dir)
  file.size(path) / n / 1024
}, 1)
report <- data.frame(task = names(tasks), ms_per_sample = round(per_sample_ms, 2),
                     kib_per_sample = round(sizes, 1),
                     ratio_to_vitals = round(per_sample_ms / per_sample_ms[["vitals"]], 3))
cat(sprintf("%d samples, median of %d $log() calls each\n", n, reps))
print(report, row.names = FALSE)
