# A set's cell in chunks (issue 37): a set of 1 model x 1 FutureX-shaped cell of `n` samples
# (default 5,000) in this process, against the fast fake server (no latency), its cell run
#   * "one":    in one chunk, as a set's cells ran before (the task's chunk_size set to
#               .Machine$integer.max, which is what the removed rule did);
#   * "chunks": in the default chunks (1,000 samples at max_active 40).
# Prints this R process's own CPU (user + system, the server's excluded) and peak RSS
# (VmHWM). Run each under /usr/bin/time -v, one at a time, from the package root:
#   /usr/bin/time -v Rscript bench/eval-set-chunks.R one 5000
#   /usr/bin/time -v Rscript bench/eval-set-chunks.R chunks 5000
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args)) args[[1]] else "chunks"
n <- if (length(args) > 1) as.integer(args[[2]]) else 5000L
hwm <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}
server <- fast_fake_server(latency = 0)
on.exit(server$stop(), add = TRUE)
logs <- tempfile("logs-")
task <- futurex_task(futurex_shaped(n), dir = logs)
if (identical(mode, "one")) task$chunk_size <- .Machine$integer.max
loaded <- hwm()
cpu <- proc.time()
seconds <- wall(set <- suppressMessages(suppressWarnings(eval_set(
  list(futurex = task), list(fast_fake_chat(server)), log_dir = logs,
  settings = request_settings(cache = tempfile("cache-"), max_active = 40, rpm = Inf)
))))
used <- proc.time() - cpu
cat(sprintf(
  "%s, %d samples: status %s, %d requests, CPU %.1f s (this process), wall %.1f s, peak RSS %.0f MB (loaded %.0f), log %.1f MB\n",
  mode, n, set$status, server$count(), used[["user.self"]] + used[["sys.self"]], seconds,
  hwm(), loaded, file.size(set$log_path) / 1e6
))
server$stop()
