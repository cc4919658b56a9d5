# Throughput of $eval() on a FutureX-shaped task: 1,000 samples, 100 ms per request, at
# concurrency 10 and 50, against the ideal n x latency / concurrency, against plain curl
# (the fake server's own ceiling at that concurrency), and against vitals' own generate()
# in the same run.
#
# Run from the package root:  Rscript bench/throughput.R  [n] [latency]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 1000L
latency <- if (length(args) >= 2) as.double(args[[2]]) else 0.1

cat(machine_line(), "\n")
data <- futurex_shaped(n)

zero <- fast_fake_server(latency = 0)
ceiling0 <- server_ceiling(zero, n = 3000, concurrency = 50)
invisible(zero$stop())
cat(sprintf("fake server ceiling (no latency, plain curl, 50 connections): %.0f requests/s\n",
            ceiling0$per_second))

server <- fast_fake_server(latency = latency)
chat <- fast_fake_chat(server)
# Warm up: load everything lazily loaded (httr2, S7 classes, vitals' log writer).
invisible(generate_responses(chat, c("warm", "up"), cache = FALSE))

# The floor no HTTP client can beat: the same $eval() with an offline chat that answers at
# once (no request, no latency), i.e. vitals' own per-sample cost plus scoring and logging.
floor_task <- futurex_task(dataset = data, solver = futurex_solver(cache = FALSE),
                           dir = tempfile("floor-log-"), name = "futurex-bench")
t_floor <- wall(suppressMessages(
  floor_task$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE)
))
cat(sprintf(paste0("offline floor: $eval() with an answering-at-once chat, no HTTP: %.2f s ",
                   "(%.1f ms/sample); the 1.2x-ideal budget is %.2f s at concurrency 10 and ",
                   "%.2f s at 50\n"),
            t_floor, 1000 * t_floor / n, 1.2 * n * latency / 10, 1.2 * n * latency / 50))

rows <- list()
for (concurrency in c(10L, 50L)) {
  ideal <- n * latency / concurrency
  raw <- server_ceiling(server, n = n, concurrency = concurrency)

  server$reset()
  log_vitals <- tempfile("vitals-log-")
  tsk_vitals <- vitals::Task$new(dataset = data, solver = vitals::generate(),
                                 scorer = futurex_scorer(), dir = log_vitals,
                                 name = "futurex-bench")
  t_vitals <- wall(suppressMessages(
    tsk_vitals$eval(solver_chat = chat, max_active = concurrency, rpm = 1e6, view = FALSE)
  ))
  sent_vitals <- server$count()

  server$reset()
  cache <- tempfile("cache-")
  log_pb <- tempfile("pb-log-")
  tsk <- futurex_task(dataset = data,
                      solver = futurex_solver(cache = cache, max_active = concurrency,
                                              rpm = 1e6),
                      dir = log_pb, name = "futurex-bench")
  t_eval <- wall(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))
  sent_pb <- server$count()
  failed <- sum(!is.na(vapply(tsk$get_samples()$solver_metadata, function(m) m$error %||% NA_character_, "")))

  # The solver alone (no scoring, no log), on a fresh cache.
  server$reset()
  t_solver <- wall(generate_responses(chat, data$input, cache = tempfile("cache-"),
                                      max_active = concurrency, rpm = 1e6))

  rows[[length(rows) + 1]] <- data.frame(
    concurrency = concurrency, n = n, ideal_s = ideal, raw_curl_s = raw$seconds,
    pb_solver_s = t_solver, pb_eval_s = t_eval, vitals_eval_s = t_vitals,
    offline_floor_s = t_floor,
    pb_vs_ideal = t_eval / ideal, pb_vs_raw = t_eval / raw$seconds,
    pb_vs_vitals = t_eval / t_vitals,
    overhead_ms_per_sample_vs_raw = 1000 * (t_eval - raw$seconds) / n,
    overhead_ms_per_sample_vs_vitals = 1000 * (t_eval - t_vitals) / n,
    requests_pb = sent_pb, requests_vitals = sent_vitals, failed_pb = failed
  )
  unlink(c(cache, log_pb, log_vitals), recursive = TRUE)
}
invisible(server$stop())
result <- do.call(rbind, rows)
cat(sprintf("\nn = %d samples, latency = %.0f ms\n", n, latency * 1000))
for (i in seq_len(nrow(result))) {
  r <- result[i, ]
  cat(sprintf(paste0(
    "concurrency %2d: ideal %.2f s | plain curl %.2f s | predictivebench solver only %.2f s | ",
    "predictivebench $eval() %.2f s (%.2fx ideal, %.2fx curl) | vitals generate() $eval() ",
    "%.2f s | predictivebench / vitals %.2fx | package overhead %.2f ms/sample over curl, ",
    "%.2f ms/sample over vitals | requests %d (vitals %d), failed %d\n"),
    r$concurrency, r$ideal_s, r$raw_curl_s, r$pb_solver_s, r$pb_eval_s, r$pb_vs_ideal,
    r$pb_vs_raw, r$vitals_eval_s, r$pb_vs_vitals, r$overhead_ms_per_sample_vs_raw,
    r$overhead_ms_per_sample_vs_vitals, r$requests_pb, r$requests_vitals, r$failed_pb))
}
invisible(result)
