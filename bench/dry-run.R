# The cost preview's CPU per request beside the paid path's (issue 30): estimate_cost() of a
# ProcessBench task (8 votes a sample) on a fresh cache, `$eval()` of the same task against
# the fast fake server (bench/helper-fake-server.R, no latency), and estimate_cost() again
# once every answer is cached, at the bundled sample (8 samples, 64 requests) and at the real
# ProcessBench's size (3,400 samples, 27,200 requests). CPU is this R process's (user +
# system), the server's is not counted. Run from the package root:
#   Rscript bench/dry-run.R [n=3400]
# PB_BENCH_OLD=<checkout> adds the dry run of an earlier version at the sample (in a child
# process, on the same task table); at the real size it would take about an hour.
suppressMessages(pkgload::load_all(quiet = TRUE))
source("bench/helper-fake-server.R")

args <- commandArgs(TRUE)
n_real <- if (length(args)) as.integer(args[[1]]) else 3400L
n_votes <- 8L

cpu <- function(expr) {
  t <- system.time(expr)
  t[["user.self"]] + t[["sys.self"]]
}

# A ProcessBench task table of `n` samples with realistic text: the published gsm8k split's
# problems and steps (read from ../shared/reference, never copied) where it is there, else
# the bundled sample's, recycled. The real benchmark's other splits (MATH, OlympiadBench,
# Omni-MATH: 3,000 of its 3,400 samples) have longer solutions: every sample past the 400th
# joins two rows' problems and steps (about twice gsm8k's length). Each problem is made
# unique, so every vote is its own request and cache entry.
processbench_shaped <- function(n) {
  base <- processbench_dataset(version = "sample")
  path <- file.path("..", "shared", "reference", "processbench", "gsm8k.json")
  texts <- if (file.exists(path)) {
    rows <- jsonlite::fromJSON(path, simplifyVector = FALSE)
    list(problem = vapply(rows, `[[`, "", "problem"),
         steps = lapply(rows, function(r) as.character(unlist(r$steps))))
  } else {
    list(problem = base$problem, steps = lapply(base$steps, as.character))
  }
  k <- length(texts$problem)
  out <- base[rep_len(seq_len(nrow(base)), n), ]
  first <- rep_len(seq_len(k), n)
  second <- (first %% k) + 1L
  long <- seq_len(n) > 400
  out$id <- sprintf("bench-%06d", seq_len(n))
  out$problem <- ifelse(long, paste(texts$problem[first], texts$problem[second]),
                        texts$problem[first])
  out$problem <- paste0(out$problem, " (item ", seq_len(n), ")")
  out$steps <- lapply(seq_len(n), function(i) {
    steps <- texts$steps[[first[[i]]]]
    if (long[[i]]) c(steps, texts$steps[[second[[i]]]]) else steps
  })
  # ProcessBench's columns: the first wrong step (or -1); the DeltaBench ones stay empty
  out$label <- ifelse(seq_len(n) %% 2 == 0, -1L, pmin(1L, lengths(out$steps) - 1L))
  out$error_sections <- out$unuseful_sections <- rep(list(integer()), n)
  out$sections_content <- NA_character_
  out
}

measure <- function(data, server) {
  cache <- tempfile("bench-cache-")
  settings <- request_settings(cache = cache, max_active = 50, rpm = Inf,
                               retry = list(max_tries = 1))
  task <- processbench_task(data, dir = tempfile("bench-logs-"),
                            solver = processbench_solver(n_votes = n_votes, settings = settings))
  chat <- fast_fake_chat(server, model = "gpt-4.1")
  requests <- nrow(data) * n_votes
  estimate <- NULL
  dry <- cpu(estimate <- estimate_cost(task, chat, cache = cache))
  server$reset()
  paid <- cpu(suppressMessages(task$eval(solver_chat = chat, view = FALSE, cache = cache,
                                         max_active = 50, rpm = Inf)))
  sent <- server$count()
  warm <- NULL
  again <- cpu(warm <- estimate_cost(task, chat, cache = cache))
  unlink(cache, recursive = TRUE)
  stopifnot(estimate$requests == requests, estimate$to_send == sent, warm$to_send == 0,
            warm$cached == requests)
  data.frame(samples = nrow(data), requests = requests,
             dry_s = dry, paid_s = paid, warm_dry_s = again,
             dry_ms_per_request = 1000 * dry / requests,
             paid_ms_per_request = 1000 * paid / requests,
             warm_dry_ms_per_request = 1000 * again / requests,
             dry_to_paid = dry / paid, input_tokens = estimate$input_tokens)
}

cat(machine_line(), "\n")
server <- fast_fake_server(latency = 0, reply = "\\boxed{-1}")
on.exit(server$stop(), add = TRUE)
sample <- processbench_dataset(version = "sample")
real <- processbench_shaped(n_real)
cat(sprintf("real-size table: %d samples, prompt text %.0f characters on average\n",
            nrow(real), mean(nchar(real$problem) + vapply(real$steps, function(s) {
              sum(nchar(s))
            }, 1))))
# a warm-up, so that neither column pays for loading code
invisible(measure(sample[1:2, ], server))
out <- rbind(measure(sample, server), measure(real, server))
print(format(out, digits = 3), row.names = FALSE)

# The dry run of another checkout at the sample, in a child process: CPU of the call only.
old_cpu <- function(checkout, data) {
  checkout_seconds(checkout, data, cpu = TRUE, setup = c(
    "chat <- ellmer::chat_openai_compatible(base_url = 'http://127.0.0.1:9/v1',",
    "  model = 'gpt-4.1', credentials = function() 'unused')",
    "task <- processbench_task(data, dir = tempfile(),",
    "  solver = processbench_solver(n_votes = 8))",
    "invisible(estimate_cost(task, chat, cache = tempfile()))  # warm-up"
  ), timed = "estimate_cost(task, chat, cache = tempfile())")
}

old <- Sys.getenv("PB_BENCH_OLD")
if (nzchar(old)) {
  seconds <- old_cpu(old, sample)
  cat(sprintf(paste("old dry run (%s) at the sample: %.2f s of CPU, %.1f ms per request;",
                    "this checkout: %.3f s, %.2f ms (%.0fx less)\n"),
              old, seconds, 1000 * seconds / out$requests[[1]], out$dry_s[[1]],
              out$dry_ms_per_request[[1]], seconds / out$dry_s[[1]]))
}
