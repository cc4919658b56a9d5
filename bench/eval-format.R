# A FutureX-shaped run written as a JSON log and as an `.eval` log (issue 46): CPU time, peak
# RSS and file size of each, each run in a child R process of its own (offline baseline chat,
# the package by pkgload::load_all()), and the ratios (targets: time <= 1.1x, size <= 1/3),
# and leaderboard() of each log (target for the .eval: under 2 s).
#
#   Rscript bench/eval-format.R 20000
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args)) as.integer(args[[1]]) else 20000L
cat(machine_line(), "\n")

run_format <- function(format) {
  out <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    child_preamble(),
    sprintf("data <- futurex_shaped(%d)", n),
    "loaded <- hwm()",
    "tsk <- futurex_task(dataset = data, dir = tempfile('log-'))",
    sprintf("t <- system.time(suppressMessages(tsk$eval(solver_chat = baseline_chat('\\\\boxed{A}'), view = FALSE, log_format = %s)))", deparse(format)),
    "peak <- hwm()",
    "board <- system.time(suppressMessages(leaderboard(tsk$log_path)))[['elapsed']]",
    sprintf("saveRDS(list(cpu = cpu(t), wall = t[['elapsed']], peak = peak, loaded = loaded, mb = file.size(tsk$log_path) / 1024^2, board = board), %s)", deparse(out))
  ), script)
  status <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = FALSE, stderr = FALSE)
  if (!file.exists(out)) stop("the child failed (status ", status, ")")
  readRDS(out)
}

r <- list(json = run_format("json"), eval = run_format("eval"))
for (f in names(r)) {
  cat(sprintf("%-5s n = %6d: CPU %6.1f s, wall %6.1f s, peak RSS %5.0f MB (%4.0f loaded), log %6.1f MB, leaderboard() %.2f s\n",
              f, n, r[[f]]$cpu, r[[f]]$wall, r[[f]]$peak, r[[f]]$loaded, r[[f]]$mb, r[[f]]$board))
}
cat(sprintf(".eval / JSON: CPU %.2fx (target <= 1.1x), size %.2f (target <= 0.33), peak RSS %+.0f MB\n",
            r$eval$cpu / r$json$cpu, r$eval$mb / r$json$mb, r$eval$peak - r$json$peak))
