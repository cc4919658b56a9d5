# The arena at EloBench's real size on one machine (issue 37): arena_run() of 4 offline
# baseline models and the offline baseline judge, strategy "all" (every pair on every
# question), on `n` synthesized questions (default 20,772, the size of EloBench's `rwq`:
# 124,632 battles). Offline, so every second is the package's own cost: no network, no
# model. Beside it, in the same process, its floor: the bare loop, the same answers and
# verdicts computed by the same responders over the same judge prompts in a plain R loop,
# with no engine, no table, no file.
#
# Prints CPU seconds of both, the ratio, peak RSS (/proc/self/status VmHWM: the run holds the
# peak, the floor loop allocates little), the log's size on disk (its files, total and per
# battle, and the samples' lines alone per battle; the largest file, which vitals_view()
# opens whole under 100 MB), and the time leaderboard() takes to read the run's folder.
#
# Questions: EloBench's `rwq` cannot be downloaded here; the first 200 of it
# (../shared/reference/elobench/rwq_200_questions.csv) give the lengths the synthesized
# questions are drawn from (their text is made up); without that file, lengths are drawn
# from a log-normal of a similar mean (~190 characters).
#
# Run from the package root:  Rscript bench/arena-full.R [n=20772]
# (PB_ARENA_TIMES: the ratings' bootstrap replicates, default 1000 as arena_run()'s;
# PB_ARENA_KEEP: a folder to copy the log's files to, for vitals_view())
# Peak RSS as the system sees it:  /usr/bin/time -v Rscript bench/arena-full.R
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 20772L
# bootstrap replicates of the ratings: arena_run()'s default
times <- as.integer(Sys.getenv("PB_ARENA_TIMES", "1000"))
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
cat(machine_line(), "\n")

hwm_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}
cpu <- function() sum(proc.time()[c("user.self", "sys.self")])

question_lengths <- function(n) {
  ref <- file.path("..", "..", "shared", "reference", "elobench", "rwq_200_questions.csv")
  if (!file.exists(ref)) ref <- "/work/shared/reference/elobench/rwq_200_questions.csv"
  withr::with_seed(37, {
    if (file.exists(ref)) {
      lengths <- nchar(utils::read.csv(ref)$question)
      sample(lengths, n, replace = TRUE)
    } else {
      pmax(10L, as.integer(stats::rlnorm(n, log(110), 0.9)))
    }
  })
}

synth_questions <- function(n) {
  words <- c("what", "how", "why", "the", "a", "model", "game", "recipe", "history", "can",
             "you", "explain", "best", "way", "to", "learn", "of", "city", "music", "data")
  len <- question_lengths(n)
  withr::with_seed(38, vapply(seq_len(n), function(i) {
    text <- paste(sample(words, ceiling(len[[i]] / 4) + 2, replace = TRUE), collapse = " ")
    paste0("Q", i, " ", substr(text, 1, max(1L, len[[i]] - nchar(i) - 2L)), "?")
  }, ""))
}

# Four offline models whose answers differ in length (so the "longer" judge has verdicts
# of every kind), and the offline judge.
responders <- list(
  echo = function(q) paste("You asked:", q),
  short = function(q) "Ok.",
  long = function(q) paste(q, "Here is a longer answer that restates it:", q),
  mid = function(q) substr(q, 1, 40)
)
models <- lapply(names(responders), function(m) baseline_chat(responders[[m]], m))
names(models) <- names(responders)
judge <- arena_baseline_judge("longer")

questions <- synth_questions(n)
cat(sprintf("questions: %d (mean %.0f characters); battles: %d; bootstrap: %d\n", n,
            mean(nchar(questions)), 6L * n, times))

# The floor: the same work, bare. Every model answers every question; every battle's judge
# prompt is built and judged by the same responder, the verdict parsed.
floor_start <- cpu()
answers <- lapply(responders, function(f) vapply(questions, f, "", USE.NAMES = FALSE))
pairs <- utils::combn(names(responders), 2)
winners <- character(0)
for (p in seq_len(ncol(pairs))) {
  a <- answers[[pairs[1, p]]]
  b <- answers[[pairs[2, p]]]
  prompts <- arena_judge_prompt(questions, a, b, "231225")$user
  verdicts <- vapply(prompts, judge$responder, "", USE.NAMES = FALSE)
  winners <- c(winners, arena_parse_verdict(unique(verdicts))$winner)
}
floor_cpu <- cpu() - floor_start
rm(answers, prompts, verdicts)
floor_hwm <- hwm_mb()

dir <- tempfile("arena-logs-")
start <- cpu()
wall <- system.time(run <- suppressMessages(
  arena_run(models, judge, dataset = data.frame(question = questions), dir = dir,
            options = arena_options(strategy = "all",
                                    ratings = rating_options(method = "elo", bootstrap = times)))
))[["elapsed"]]
run_cpu <- cpu() - start
peak <- hwm_mb()
battles <- nrow(run$records)
# the run's log, in parts of at most ~48 MB each (R/arena-log.R) at this size
logs <- run$paths$log_parts %||% run$paths$log
sizes <- file.size(logs)
log_bytes <- sum(sizes)
samples_bytes <- sum(vapply(logs, function(p) {
  lines <- readLines(p, warn = FALSE)
  sum(nchar(lines[startsWith(lines, "{\"id\":")], type = "bytes") + 1)
}, 1))
board_seconds <- system.time(board <- leaderboard(dir))[["elapsed"]]

cat(sprintf("floor (bare loop):   %7.1f s CPU\n", floor_cpu))
cat(sprintf("arena_run():         %7.1f s CPU, %.1f s elapsed, %d battles, %d failed\n",
            run_cpu, wall, battles, sum(is.na(run$records$winner))))
cat(sprintf("ratio to the floor:  %7.1fx; %.2f ms CPU a battle (%.2f ms over the floor)\n",
            run_cpu / floor_cpu, 1000 * run_cpu / battles,
            1000 * (run_cpu - floor_cpu) / battles))
cat(sprintf("peak RSS (VmHWM):    %7.0f MB (after the floor loop: %.0f MB)\n", peak, floor_hwm))
cat(sprintf("log on disk:         %7.1f MB in %d file%s, %.2f KB a battle (samples %.2f KB)\n",
            log_bytes / 1024^2, length(logs), if (length(logs) > 1) "s" else "",
            log_bytes / 1024 / battles, samples_bytes / 1024 / battles))
cat(sprintf("  largest file:      %7.1f MB (vitals_view() opens a log of at most 100 MB whole)\n",
            max(sizes) / 1024^2))
cat(sprintf("leaderboard(dir):    %7.2f s, %d rows\n", board_seconds, nrow(board)))
print(run$ratings)
if (nzchar(Sys.getenv("PB_ARENA_KEEP"))) {
  kept <- Sys.getenv("PB_ARENA_KEEP")
  dir.create(kept, showWarnings = FALSE, recursive = TRUE)
  file.copy(logs, kept)
  cat("log kept in", kept, "\n")
}
