# Reading an Inspect `.eval` log (issue 46): leaderboard() of a 20,000-sample FutureX-shaped
# .eval reads its header alone (the zip's central directory, then header.json), so it should
# take well under 2 s of CPU; log_samples() reads every sample, one entry at a time. Printed, not
# asserted. The .eval is made as the tests make theirs (tests/testthat/helper-eval-zip.R),
# in zstd (current Inspect) and deflate (older Inspect).
#
#   Rscript bench/eval-read.R            # 20,000 samples
#   Rscript bench/eval-read.R 200000
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("tests/testthat/helper-eval-zip.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.integer(args[[1]]) else 20000L
prompt <- paste(rep("You are an agent that can predict future events.", 12), collapse = " ")
entries <- inspect_eval_entries("futurex_shaped", ifelse(seq_len(n) %% 3 == 0, "C", "I"),
                                accuracy = sum(seq_len(n) %% 3 == 0) / n)
samples <- grep("^samples/", names(entries))
entries[samples] <- lapply(entries[samples], sub, pattern = "\"Question ",
                           replacement = paste0("\"", prompt, " Question "))
# CPU seconds (user + system), not wall: the machine is shared
seconds <- function(f, times = 3) {
  median(vapply(seq_len(times), function(i) sum(system.time(f())[c(1, 2)]), 1))
}
for (method in c("zstd", "deflate")) {
  path <- tempfile(fileext = ".eval")
  made <- seconds(function() write_eval_zip(path, entries, method), times = 1)
  board <- seconds(function() leaderboard(path))
  wall <- system.time(rows <- leaderboard(path))[["elapsed"]]
  stopifnot(identical(rows$estimate[[1]], sum(seq_len(n) %% 3 == 0) / n))
  read <- seconds(function() log_samples(path), times = 1)
  cat(sprintf("%s: %d samples, %.1f MB (made in %.0f s); leaderboard() %.2f s CPU (%.2f s wall); log_samples() %.1f s CPU (%.2f ms a sample)\n",
              method, n, file.size(path) / 1e6, made, board, wall, read, 1000 * read / n))
  unlink(path)
}
