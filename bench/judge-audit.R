# judge_audit() of a large arena run (issue 38): 4 offline baseline models and the offline
# "longer" judge, strategy "all" (every pair on every question), on `n` synthesized questions
# (default 2,000: 12,000 battles). Offline, so every second is the package's own.
#
# Two runs of the same arena: judged in both orders (`position_swap = TRUE`), whose audit
# reads the log and sends nothing, and judged in one order, whose audit judges each battle's
# swapped order through the engine. Beside each audit, in the same process, its floor: for
# the first, reading the log's samples (log_samples(), what any reader of the log pays); for
# the second, arena_run()'s own judging of one order (the same number of judge requests
# through the same engine).
#
# Run from the package root:  Rscript bench/judge-audit.R [n=2000]
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 2000L
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
cat(machine_line(), "\n")
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])
timed <- function(expr) {
  start <- cpu()
  value <- force(expr)
  list(value = value, cpu = cpu() - start)
}

questions <- data.frame(question = sprintf("Question %d: %s", seq_len(n),
                                           strrep("word ", seq_len(n) %% 40)))
models <- lapply(c(a = 1, b = 2, c = 3, d = 4), function(k) {
  force(k)
  baseline_chat(function(q) paste(strrep("answer ", (nchar(q) * k) %% 17), q),
                paste0("model-", k))
})
judge <- arena_baseline_judge("longer")
settings <- request_settings(cache = FALSE, rpm = Inf)
arena <- function(swap) {
  suppressWarnings(arena_run(models, judge, dataset = questions, dir = tempfile("audit-bench-"),
                             settings = settings,
                             options = arena_options(strategy = "all", position_swap = swap,
                                                     ratings = rating_options(method = "elo",
                                                                              bootstrap = 10))))
}

both <- timed(arena(TRUE))
once <- timed(arena(FALSE))
battles <- nrow(once$value$records)
cat(sprintf("battles: %d; arena_run() both orders %.1f s CPU, one order %.1f s CPU\n",
            battles, both$cpu, once$cpu))

floor_read <- timed(log_samples(both$value$paths$log))
audit_read <- timed(judge_audit(both$value))
cat(sprintf(paste("audit of the run judged in both orders: %.1f s CPU; its floor",
                  "(log_samples() of the log) %.1f s; ratio %.2f\n"),
            audit_read$cpu, floor_read$cpu, audit_read$cpu / floor_read$cpu))

audit_swap <- timed(judge_audit(once$value, judge = judge, settings = settings))
cat(sprintf(paste("audit of the run judged in one order (%d swapped verdicts judged):",
                  "%.1f s CPU; its floor (arena_run() of one order) %.1f s; ratio %.2f\n"),
            battles, audit_swap$cpu, once$cpu, audit_swap$cpu / once$cpu))
print(audit_read$value[c("metric", "estimate", "lower", "upper", "n")])
