# Cached re-run: the same FutureX-shaped $eval() twice on one cache. The second run must send
# no request; its wall time is reported as a fraction of the first.
#
# Run from the package root:  Rscript bench/cached-rerun.R  [n] [latency] [concurrency]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 1000L
latency <- if (length(args) >= 2) as.double(args[[2]]) else 0.1
concurrency <- if (length(args) >= 3) as.integer(args[[3]]) else 50L

cat(machine_line(), "\n")
data <- futurex_shaped(n)
server <- fast_fake_server(latency = latency)
chat <- fast_fake_chat(server)
invisible(generate_responses(chat, c("warm", "up"), cache = FALSE))
cache <- tempfile("cache-")
run <- function() {
  tsk <- futurex_task(dataset = data,
                      solver = futurex_solver(settings = request_settings(cache = cache, max_active = concurrency, rpm = 1e6)),
                      dir = tempfile("log-"), name = "futurex-bench")
  server$reset()
  seconds <- wall(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))
  cached <- vapply(tsk$get_samples()$solver_metadata, function(m) isTRUE(m$cached), TRUE)
  list(seconds = seconds, requests = server$count(), cached = sum(cached),
       summary = futurex_summary(tsk)$estimate)
}
first <- run()
second <- run()
invisible(server$stop())
cat(sprintf(paste0(
  "n = %d, latency %.0f ms, concurrency %d\n",
  "first run:  %.2f s, %d requests sent, %d samples from the cache\n",
  "second run: %.2f s, %d requests sent, %d samples from the cache\n",
  "second / first wall time: %.3f; same scores: %s\n"),
  n, latency * 1000, concurrency, first$seconds, first$requests, first$cached,
  second$seconds, second$requests, second$cached, second$seconds / first$seconds,
  identical(first$summary, second$summary)))
if (second$requests != 0) stop("the cached re-run sent requests")
