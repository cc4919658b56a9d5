# Throughput of the request engine at real latency (issue 15): a local server with lognormal
# latency (median 200 ms, sigma 1; each item's latency fixed by its number, so every client
# meets the same ones), n FutureX-shaped prompts, ratios printed in one run:
#
# 1. CPU per request at no latency: the request path alone (curl multi + ellmer's request
#    and response code, R/engine-transport.R), generate_responses() on top of it (the package's own
#    cost = the difference), and ellmer::parallel_chat() for reference.
# 2. concurrency 10: generate_responses() vs plain curl multi on the same prompts;
#    concurrency 50: vs max(plain curl, n x the path's CPU per request);
# 3. $eval() (concurrency 50) vs generate_responses() + vitals' own scoring and log time
#    (the same $eval() with an offline chat that answers at once);
# 4. SIGKILL mid-run, then the same run again: answers paid for twice vs in flight at the kill.
#
# Run from the package root:  Rscript bench/throughput.R
# Environment: PB_BENCH_N (prompts, default 1000), PB_BENCH_N_CPU (prompts for the CPU
# measures, default 500), PB_BENCH_N_KILL (prompts of the kill run, default 300),
# PB_BENCH_OLD (a checkout of an earlier version: its generate_responses() is timed on the
# same server and prompts, in a child process, for the old-vs-new columns).
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
n <- as.integer(Sys.getenv("PB_BENCH_N", "1000"))
n_cpu <- as.integer(Sys.getenv("PB_BENCH_N_CPU", "500"))
n_kill <- as.integer(Sys.getenv("PB_BENCH_N_KILL", "300"))
median_latency <- 0.2
sigma <- 1

cat(machine_line(), "\n")
cpu <- function(expr) {
  t <- system.time(expr)
  t[["user.self"]] + t[["sys.self"]]
}

# The request path alone: what generate_responses() runs per request on the fast path
# (ellmer's request template, curl multi, ellmer's parser), with no cache, pool or tibble.
request_path <- function(chat, prompts, concurrency) {
  template <- request_template(chat)
  pool <- curl::new_pool(total_con = concurrency, host_con = concurrency, multiplex = FALSE)
  for (p in prompts) {
    h <- curl::new_handle(url = template$url)
    curl::handle_setopt(h, copypostfields = template$body(p))
    curl::handle_setheaders(h, .list = template$headers)
    curl::multi_add(h, pool = pool, done = function(res) {
      ellmer_turn(chat, jsonlite::parse_json(rawToChar(res$content)))
    })
  }
  curl::multi_run(pool = pool)
}

# generate_responses() of another checkout, timed in a child process (its own load time
# left out).
old_engine_seconds <- function(checkout, url, prompts, concurrency) {
  checkout_seconds(checkout, prompts, setup = c(
    sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
             credentials = function() 'sk-bench')", deparse(url)),
    "invisible(generate_responses(chat, c('warm', 'up'), cache = FALSE))"
  ), timed = sprintf("generate_responses(chat, data, cache = tempfile(), max_active = %d,
                      rpm = 1e6)", concurrency))
}

# 1. CPU per request at no latency --------------------------------------------------------
zero <- fast_fake_server(latency = 0)
chat0 <- fast_fake_chat(zero)
invisible(generate_responses(chat0, c("warm", "up"), cache = FALSE))
invisible(request_path(chat0, c("warm", "up"), 2))
p0 <- paste("zero latency item", seq_len(n_cpu))
path_ms <- 1000 * cpu(request_path(chat0, p0, 50)) / n_cpu
pkg_ms <- 1000 * cpu(generate_responses(chat0, p0, cache = tempfile("cache-"), max_active = 50,
                                        rpm = 1e6)) / n_cpu
ellmer_ms <- 1000 * cpu(ellmer::parallel_chat(chat0, as.list(p0), max_active = 50,
                                              rpm = 1e6)) / n_cpu
# ellmer's own path ($chat_async(), for providers and chats the fast path does not cover):
# a chat with a tool (never called) takes it.
chat_tool <- fast_fake_chat(zero)
chat_tool$register_tool(ellmer::tool(function() "unused", name = "idle",
                                     description = "Never called."))
general_ms <- 1000 * cpu(generate_responses(chat_tool, paste("general", p0), cache = FALSE,
                                            max_active = 50, rpm = 1e6)) / n_cpu
invisible(zero$stop())
cat(sprintf(paste0("\nCPU per request at no latency (%d prompts, 50 in flight): request path ",
                   "%.2f ms | generate_responses() %.2f ms (package's own: %.2f ms) | ",
                   "ellmer::parallel_chat() %.2f ms | generate_responses() through ellmer's ",
                   "$chat_async() (other providers, tools) %.2f ms\n"),
            n_cpu, path_ms, pkg_ms, pkg_ms - path_ms, ellmer_ms, general_ms))

# 2. Lognormal latency: concurrency 10 and 50 ----------------------------------------------
server <- fast_fake_server(latency = median_latency, sigma = sigma)
chat <- fast_fake_chat(server)
data <- futurex_shaped(n)
invisible(generate_responses(chat, c("warm", "up"), cache = FALSE))
rows <- list()
for (concurrency in c(10L, 50L)) {
  curl_s <- server_ceiling(server, prompts = data$input, concurrency = concurrency)$seconds
  server$reset()
  gen_s <- wall(res <- generate_responses(chat, data$input, cache = tempfile("cache-"),
                                          max_active = concurrency, rpm = 1e6))
  requests <- server$count()
  floor_s <- if (concurrency == 10L) curl_s else max(curl_s, n * path_ms / 1000)
  old_s <- if (nzchar(Sys.getenv("PB_BENCH_OLD"))) {
    old_engine_seconds(Sys.getenv("PB_BENCH_OLD"), server$url, data$input, concurrency)
  } else NA_real_
  rows[[length(rows) + 1]] <- data.frame(
    concurrency = concurrency, curl_s = curl_s, path_cpu_floor_s = n * path_ms / 1000,
    floor_s = floor_s, generate_s = gen_s, ratio = gen_s / floor_s, old_s = old_s,
    requests = requests, failed = sum(!is.na(res$error))
  )
}
lognormal <- do.call(rbind, rows)

# 3. $eval() vs generate_responses() + vitals' own scoring and log time ----------------------
# Warm up vitals' log writer and the scorer (lazy loading, the JIT) on a few samples first.
invisible(suppressMessages(futurex_task(dataset = data[1:5, ],
                                        solver = futurex_solver(settings = request_settings(cache = FALSE)),
                                        dir = tempfile("warm-log-"))$eval(
  solver_chat = baseline_constant("\\boxed{A}"), view = FALSE
)))
floor_task <- futurex_task(dataset = data, solver = futurex_solver(settings = request_settings(cache = FALSE)),
                           dir = tempfile("floor-log-"), name = "futurex-bench")
vitals_s <- wall(suppressMessages(
  floor_task$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE)
))
tsk <- futurex_task(dataset = data,
                    solver = futurex_solver(settings = request_settings(cache = tempfile("cache-"), max_active = 50, rpm = 1e6)),
                    dir = tempfile("pb-log-"), name = "futurex-bench")
eval_s <- wall(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))
gen50_s <- lognormal$generate_s[lognormal$concurrency == 50]

# 4. SIGKILL mid-run, then the same run again ---------------------------------------------------
kill_dir <- tempfile("kill-cache-")
prompts_kill <- data$input[seq_len(min(n_kill, n))]
script <- tempfile(fileext = ".R")
writeLines(c(
  "suppressMessages(pkgload::load_all('.', quiet = TRUE))",
  sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
           credentials = function() 'sk-bench')", deparse(server$url)),
  sprintf("prompts <- readRDS(%s)", deparse(prompts_rds <- tempfile(fileext = ".rds"))),
  sprintf("generate_responses(chat, prompts, cache = %s, max_active = 10, rpm = 1e6)",
          deparse(kill_dir))
), script)
saveRDS(prompts_kill, prompts_rds)
entries <- function() length(list.files(kill_dir, pattern = "\\.rds$", recursive = TRUE))
server$reset()
child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script, stdout = NULL,
                               stderr = NULL)
while (entries() < length(prompts_kill) / 2 && child$is_alive()) Sys.sleep(0.02)
invisible(child$signal(tools::SIGKILL))
child$wait(5000)
sent_before <- server$count()
answered_at_kill <- entries()
resumed <- generate_responses(chat, prompts_kill, cache = kill_dir, max_active = 10, rpm = 1e6)
sent_total <- server$count()
whole <- generate_responses(chat, prompts_kill, cache = FALSE, max_active = 10, rpm = 1e6)
kill <- list(n = length(prompts_kill), answered_at_kill = answered_at_kill,
             in_flight = sent_before - answered_at_kill,
             paid_twice = sent_total - length(prompts_kill),
             identical = identical(resumed$result, whole$result))
invisible(server$stop())

# Report --------------------------------------------------------------------------------------
cat(sprintf("\nlognormal latency (median %.0f ms, sigma %g), n = %d prompts\n",
            1000 * median_latency, sigma, n))
for (i in seq_len(nrow(lognormal))) {
  r <- lognormal[i, ]
  cat(sprintf(paste0("concurrency %2d: plain curl %.2f s | path CPU floor %.2f s | ",
                     "generate_responses() %.2f s = %.2fx %s | requests %d, failed %d%s\n"),
              r$concurrency, r$curl_s, r$path_cpu_floor_s, r$generate_s, r$ratio,
              if (r$concurrency == 10) "curl" else "max(curl, path CPU floor)",
              r$requests, r$failed,
              if (is.na(r$old_s)) "" else sprintf(" | old engine %.2f s = %.2fx curl",
                                                  r$old_s, r$old_s / r$curl_s)))
}
cat(sprintf(paste0("$eval() at concurrency 50: %.2f s | generate_responses() %.2f s + vitals' ",
                   "scoring and log (offline $eval()) %.2f s = %.2f s | ratio %.2fx\n"),
            eval_s, gen50_s, vitals_s, gen50_s + vitals_s, eval_s / (gen50_s + vitals_s)))
cat(sprintf(paste0("SIGKILL after %d of %d answers: in flight %d, paid for twice %d ",
                   "(<= in flight: %s); results identical to an uninterrupted run: %s\n"),
            kill$answered_at_kill, kill$n, kill$in_flight, kill$paid_twice,
            kill$paid_twice <= kill$in_flight, kill$identical))
invisible(list(lognormal = lognormal, eval_s = eval_s, vitals_s = vitals_s, kill = kill))
