# Log-probability requests through the one pool (issue 21) against the httr2 chunks they
# were sent in before: a local server with lognormal latency (median 200 ms, sigma 1; each
# item's latency fixed by its number, so both clients meet the same ones), n distinct
# contexts scored with query_logprobs() (n + 1 completions requests: each context + query,
# and the query alone), concurrency 10, no cache; and the same requests sent with plain curl
# multi, the floor.
#
# Run from the package root:  PB_BENCH_OLD=<checkout of 6849d9a> Rscript bench/logprobs-pool.R
# (make the checkout with `git worktree add /tmp/old 6849d9a` or `git archive 6849d9a | tar -x`).
# Environment: PB_BENCH_N (contexts, default 400).
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
n <- as.integer(Sys.getenv("PB_BENCH_N", "400"))
old <- Sys.getenv("PB_BENCH_OLD")
concurrency <- 10L
cat(machine_line(), "\n")

server <- fast_fake_server(latency = 0.2, sigma = 1)
on.exit(server$stop(), add = TRUE)
prefixes <- sprintf("Context item %d\nAnswer:\n", seq_len(n))

old_seconds <- function(checkout) {
  checkout_seconds(checkout, prefixes, timed = sprintf(
    "query_logprobs(NULL, data, ' yes', base_url = %s, model = 'm', cache = FALSE,
                    max_active = %d)", deparse(server$url), concurrency
  ))
}

settings <- request_settings(cache = FALSE, max_active = concurrency, rpm = Inf)
new_run <- function() {
  chat <- ellmer::chat_openai_compatible(base_url = server$url, model = "m",
                                         credentials = function() "k")
  t <- system.time(out <- query_logprobs(chat, prefixes, " yes", settings = settings))
  stopifnot(nrow(out) == n, all(out$logp == -1))
  t[["elapsed"]]
}
# The floor: the same requests with plain curl multi (no pool, no parsing, no cache).
plain_curl <- function() {
  texts <- c(paste0(prefixes, " yes"), " yes")
  pool <- curl::new_pool(total_con = concurrency, host_con = concurrency, multiplex = FALSE)
  for (text in texts) {
    body <- jsonlite::toJSON(list(model = "m", prompt = text, echo = TRUE, logprobs = 0L,
                                  max_tokens = 0L), auto_unbox = TRUE)
    h <- curl::new_handle(url = paste0(server$url, "/completions"), postfields = body)
    curl::handle_setheaders(h, `Content-Type` = "application/json")
    curl::multi_add(h, pool = pool)
  }
  system.time(curl::multi_run(pool = pool))[["elapsed"]]
}
floor <- plain_curl()
server$reset()
new <- new_run()
sent <- server$count()
cat(sprintf("plain curl multi: %.2f s\n", floor))
cat(sprintf("pool (this checkout): %d requests in %.2f s (%.1f requests/s), %.2fx plain curl\n",
            sent, new, sent / new, new / floor))
if (nzchar(old)) {
  before <- old_seconds(old)
  cat(sprintf("httr2 chunks of %d (%s): %.2f s\n", 4L * concurrency, old, before))
  cat(sprintf("ratio pool / chunks: %.2f\n", new / before))
} else {
  cat("Set PB_BENCH_OLD to a checkout of 6849d9a to time the httr2 chunks too.\n")
}
