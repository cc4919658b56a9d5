# Transport under faults (issue 18): how long a stalled request takes to end, against its
# deadline, and how many requests a wrong API key costs before the run stops, on both
# request paths (the curl fast path, and ellmer's own $chat_async() for a chat with tools).
#
# 1. A server that accepts every request and never answers (webfakes, the test helper's
#    fake server with an hour's delay). With `ellmer_timeout_s = D`, each of `runs` calls of
#    generate_responses(max_tries = 1) must end within D + 1 s; with max_tries = 3 the call
#    ends within 3 x (D + 1) s plus the backoff.
# 2. A server answering 401 to everything, `n` prompts, max_active = 10: the requests sent
#    before the run stopped (at most max_active), and the seconds it took.
#
# Run from the package root:  Rscript bench/transport-faults.R
# Environment: PB_BENCH_DEADLINE (D, default 2), PB_BENCH_RUNS (default 5), PB_BENCH_N
# (prompts for the wrong key, default 500).
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
source("tests/testthat/helper-fake-openai.R")
deadline <- as.double(Sys.getenv("PB_BENCH_DEADLINE", "2"))
runs <- as.integer(Sys.getenv("PB_BENCH_RUNS", "5"))
n <- as.integer(Sys.getenv("PB_BENCH_N", "500"))
max_active <- 10L
cat(machine_line(), "\n")

elapsed <- function(expr) {
  t <- proc.time()[["elapsed"]]
  force(expr)
  proc.time()[["elapsed"]] - t
}
paths <- function(server) {
  list(`fast path` = fake_chat(server), `ellmer $chat_async()` = with_idle_tool(fake_chat(server)))
}

# Warm up both paths (ellmer's first async request loads and compiles code for a second or
# more), so the figures are the pool's, not the session's first-use cost.
ok <- fake_openai(function(body, n) "ok")
for (chat in paths(ok)) invisible(generate_responses(chat, "warm up", cache = FALSE))
ok$stop()

cat(sprintf("\n1. A server that never answers; deadline (ellmer_timeout_s) = %g s\n", deadline))
stalled <- fake_openai(function(body, n) list(delay = 3600, text = "never"))
options(ellmer_timeout_s = deadline)
for (path in names(paths(stalled))) {
  chat <- paths(stalled)[[path]]
  one <- vapply(seq_len(runs), function(k) elapsed({
    res <- generate_responses(chat, paste("stall", k), cache = FALSE, max_tries = 1)
    stopifnot(grepl("no answer within the deadline", res$error))
  }), 1)
  three <- elapsed(res <- generate_responses(chat, "stall thrice", cache = FALSE,
                                             max_tries = 3, backoff = 0))
  cat(sprintf(paste0("   %-22s one try: ended after %.2f-%.2f s (deadline + %.2f s at most, ",
                     "limit + 1 s: %s); three tries: %.2f s (limit %g s)\n"),
              path, min(one), max(one), max(one) - deadline,
              if (max(one) <= deadline + 1) "met" else "MISSED", three, 3 * (deadline + 1)))
}
stalled$stop()

cat(sprintf("\n2. A wrong API key (every request answered 401); %d prompts, max_active = %d\n",
            n, max_active))
refusing <- fake_openai(function(body, n) list(status = 401))
for (path in names(paths(refusing))) {
  chat <- paths(refusing)[[path]]
  before <- refusing$count()
  err <- NULL
  seconds <- elapsed(err <- tryCatch(
    generate_responses(chat, paste("question", seq_len(n), path), cache = FALSE,
                       max_active = max_active),
    predictivebench_error_auth = identity
  ))
  stopifnot(inherits(err, "predictivebench_error_auth"))
  sent <- refusing$count() - before
  cat(sprintf("   %-22s %d of %d requests sent (limit max_active = %d: %s), stopped after %.2f s\n",
              path, sent, n, max_active, if (sent <= max_active) "met" else "MISSED", seconds))
}
refusing$stop()
