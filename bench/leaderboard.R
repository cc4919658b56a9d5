# leaderboard() over many logs (issue 26: under 2 s for 50 logs; 17.7 s on 6 logs before).
#
#   Rscript bench/leaderboard.R [log_dir] [package_dir]
#
# Writes (once, into `log_dir`, default a temporary folder) 50 logs with this checkout:
# the six benchmarks' bundled samples, each evaluated offline by several baseline models,
# and arena_run() logs (Bradley-Terry ratings, 1000 bootstrap rounds). Then it times
# leaderboard(log_dir) with the package at `package_dir` (default: this checkout), so the
# same logs can be read by an older version for comparison.
args <- commandArgs(trailingOnly = TRUE)
dir <- if (length(args) >= 1) args[[1]] else file.path(tempdir(), "leaderboard-logs")
pkg <- if (length(args) >= 2) args[[2]] else "."
n_logs <- 50L

write_logs <- function(dir) {
  pkgload::load_all(".", quiet = TRUE)
  withr::local_options(predictivebench.cache_dir = file.path(dir, "cache"))
  answer <- function(text, name) baseline_chat(function(prompt) text, name = name)
  tasks <- list(
    futurex = function() futurex_task(futurex_dataset(version = "sample"), dir = dir),
    processbench = function() processbench_task(processbench_dataset(version = "sample"),
                                                dir = dir),
    deltabench = function() deltabench_task(deltabench_dataset(version = "sample"), dir = dir),
    probsem = function() probsem_task(probsem_dataset(version = "sample"), dir = dir),
    dsbench = function() dsbench_task(dsbench_dataset(version = "sample"), dir = dir,
                                      judge = answer("True", "judge")),
    arena = function() arena_task(arena_dataset(version = "sample"), dir = dir,
                                  judge = arena_baseline_judge("longer"))
  )
  replies <- c("\\boxed{A}", "\\boxed{-1}", "Conclusion: yes\nError Section Number: 2",
               "A", "The answer is C.", "It depends on many things, carefully.")
  written <- 0L
  for (m in 1:8) for (b in names(tasks)) {
    if (written >= n_logs - 2L) break
    tsk <- tasks[[b]]()
    suppressWarnings(suppressMessages(tsk$eval(
      solver_chat = answer(replies[[(m + match(b, names(tasks))) %% 6 + 1]], paste0("model-", m)),
      view = FALSE
    )))
    written <- written + 1L
  }
  questions <- data.frame(question = paste("Question", 1:8))
  models <- lapply(1:4, function(i) answer(strrep("word ", i), paste0("model-", i)))
  names(models) <- paste0("model-", 1:4)
  for (e in 1:2) {
    suppressWarnings(arena_run(models, arena_baseline_judge("longer"), dataset = questions,
                               dir = dir,
                               options = arena_options(experiment = paste0("exp", e), n = 2, seed = e,
                                                       ratings = rating_options(method = "bt",
                                                                                bootstrap = 1000, seed = e))))
  }
}

logs <- function(dir) {
  found <- list.files(dir, "\\.json$", recursive = TRUE, full.names = TRUE)
  found[basename(found) != "listing.json"]
}
if (length(logs(dir)) < n_logs) write_logs(dir)
cat(sprintf("%d logs, %.1f MB\n", length(logs(dir)), sum(file.size(logs(dir))) / 1e6))

pkgload::load_all(pkg, quiet = TRUE)
elapsed <- system.time(board <- suppressWarnings(suppressMessages(leaderboard(dir))))[["elapsed"]]
six <- head(logs(dir), 6)
elapsed_six <- system.time(suppressWarnings(suppressMessages(leaderboard(six))))[["elapsed"]]
cat(sprintf("package %s: leaderboard() of %d logs %.2f s (%d rows); of 6 logs %.2f s\n",
            normalizePath(pkg), length(logs(dir)), elapsed, nrow(board), elapsed_six))
