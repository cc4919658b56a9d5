# What it costs to know a cell is done (issue 30): eval_set() takes a cell as done only when
# its log is whole. Each call checks every done cell's log (complete_log(): the size its
# record holds, JSON to its end, the header's status and number of samples); the samples are
# counted once, reading the log whole, when the record is written (log_sample_count()).
# Timed on logs of Inspect's shape at several sizes (FutureX-like samples: a prompt, an
# answer, flat metadata, usage), against reading the header alone (what the check did before,
# which took a log cut inside its samples as whole) and against reading the log whole with
# jsonlite (what leaderboard()'s readers do).
#
# Run from the package root:
#   Rscript bench/eval-set-done.R  [samples=2000,20000] [reps=5]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
args <- commandArgs(trailingOnly = TRUE)
sizes <- if (length(args) >= 1) as.integer(strsplit(args[[1]], ",")[[1]]) else c(2000L, 20000L)
reps <- if (length(args) >= 2) as.integer(args[[2]]) else 5L

fake_log <- function(n, path) {
  sample <- function(i) {
    list(id = paste0("s", i), epoch = 1L, input = strrep("question text ", 100), target = "A",
         messages = list(list(role = "user", content = strrep("prompt words ", 150)),
                         list(role = "assistant", content = strrep("answer words ", 80))),
         scores = list(futurex = list(value = 1)), metadata = list(cached = FALSE, cost = 0.001),
         model_usage = list(`openai/gpt-4.1` = list(input_tokens = 300L, output_tokens = 80L)))
  }
  log <- list(version = 2L, status = "success", eval = list(task = "futurex", created = "now"),
              results = list(total_samples = n, completed_samples = n),
              samples = lapply(seq_len(n), sample))
  writeLines(yyjsonr::write_json_str(log, opts = log_json_options()), path)
  path
}

cpu <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  times <- vapply(seq_len(reps), function(i) {
    gc()
    t <- system.time(eval(expr, env))
    t[["user.self"]] + t[["sys.self"]]
  }, 1)
  stats::median(times)
}

cat("load average at start:", readLines("/proc/loadavg"), "\n")
for (n in sizes) {
  path <- fake_log(n, tempfile(fileext = ".json"))
  bytes <- file.size(path)
  counted <- log_sample_count(path)
  stopifnot(counted == n, complete_log(path, bytes = bytes, samples = n))
  rows <- c(
    "header only (before)" = cpu(read_log_header(path)),
    "complete_log() (each call)" = cpu(complete_log(path, bytes = bytes, samples = n)),
    "log_sample_count() (once)" = cpu(log_sample_count(path)),
    "jsonlite, whole log" = if (n <= 2000) cpu(jsonlite::fromJSON(path, simplifyVector = FALSE))
  )
  cat(sprintf("\n%d samples, %.1f MB: median CPU seconds over %d runs\n", n, bytes / 1e6, reps))
  for (name in names(rows)) cat(sprintf("  %-28s %7.3f\n", name, rows[[name]]))
  # a log cut inside its samples: the header alone still says "success"
  cut <- tempfile(fileext = ".json")
  raw <- readBin(path, "raw", bytes)
  writeBin(raw[seq_len(bytes %/% 2)], cut)
  cat(sprintf("  cut in half: header status %s, complete_log() %s\n",
              read_log_header(cut)$status, complete_log(cut, samples = n)))
  unlink(c(path, cut))
}
