# rescore() at size (issue 38): a 10,000-sample judged FutureX-shaped log scored again with a
# new judge, with an empty cache. The original run is made offline (baseline solver and
# judge: its log is what matters, not how it was paid for); the new judge is a fast fake
# server (bench/helper-fake-server.R) that counts its requests, and a second one stands for
# the solver (the rescore's solver chat is the log's model, unreachable): the rescore must
# send n requests to the judge and none anywhere else.
# Floor, in the same run: the same n judge prompts sent straight through the engine
# (generate_responses(), no cache), which is what the rescore cannot do without; the rescore
# adds reading the log, the replayed samples and writing the new log.
#
# Run from the package root:
#   Rscript bench/rescore.R [n=10000]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 10000L

cat(machine_line(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")

values <- function(pred) paste0("GROUND_TRUTH_VALUE: 5\nPREDICTION_VALUE: ", pred)
judge_b <- fast_fake_server(latency = 0, reply = values(6))
floor_server <- fast_fake_server(latency = 0, reply = values(6))
on.exit(for (s in list(judge_b, floor_server)) s$stop(), add = TRUE)

# every item numeric: each is one judge request
base <- futurex_dataset(version = "sample")
base <- base[futurex_kind(base$level, base$std) == "numeric", ]
data <- base[rep_len(seq_len(nrow(base)), n), ]
data$id <- sprintf("bench-%06d", seq_len(n))
data$input <- paste0(data$input, "\n(benchmark item ", seq_len(n), ")")

dir <- tempfile("rescore-bench-")
options(predictivebench.cache_dir = tempfile("cache-a-"))
# each answer its own (the item's number), so each judge prompt is its own request: the
# numeric judge's prompt holds the answer and the target, not the question
answer_of <- function(prompt) sprintf("\\boxed{%s}", sub("(?s).*benchmark item (\\d+)\\)$", "\\1",
                                                           prompt, perl = TRUE))
tsk <- futurex_task(data, judge = baseline_chat(values(5), name = "judge-a"), dir = dir)
original <- wall(suppressMessages(
  tsk$eval(solver_chat = baseline_chat(answer_of, name = "solver"), view = FALSE)
))
cat(sprintf("original run (offline): %d samples, %.1f s\n", n, original))

options(predictivebench.cache_dir = tempfile("cache-empty-"))
cpu <- proc.time()
seconds <- wall(out <- suppressMessages(
  rescore(tsk$log_path, judge = fast_fake_chat(judge_b, "judge-b"), max_active = 50)
))
cpu <- sum((proc.time() - cpu)[c("user.self", "sys.self")])
cat(sprintf("rescore: %.1f s wall, %.1f s CPU; judge requests %d of %d samples\n",
            seconds, cpu, judge_b$count(), n))
stopifnot(judge_b$count() == n)
rescored <- log_samples(out$log)
stopifnot(nrow(rescored) == n, all(rescored$result == log_samples(tsk$log_path)$result),
          !anyDuplicated(rescored$result))

# the floor: the judge's n prompts, through the engine alone
chat <- configure_chat(fast_fake_chat(floor_server, "judge-b"),
                       "You are a precise number normalization assistant.",
                       list(temperature = 0.2))
prompts <- futurex_normalize_prompt(data$target, vapply(data$input, answer_of, "",
                                                        USE.NAMES = FALSE))
floor <- wall(generate_responses(chat, prompts, request_settings(cache = FALSE, max_active = 50)))
cat(sprintf("floor (the same %d judge requests, generate_responses()): %.1f s\n", n, floor))
cat(sprintf("rescore / floor: %.2f\n", seconds / floor))
cat("load average at end:", readLines("/proc/loadavg"), "\n")
