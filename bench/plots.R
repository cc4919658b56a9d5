# Renders every autoplot() method as a PNG, to look at (issue 21: plots people read).
#
#   Rscript bench/plots.R [out_dir]
#
# The leaderboard is six models x five benchmarks (six headline panels: probsem has two
# suites), with long model names, from synthetic summary rows; the summaries come from the
# benchmarks' own summary functions on offline baseline runs or made-up samples. PNGs go
# to `out_dir` (default: a temporary directory) and are never committed.
#
# Every plot is rendered at the size users see by default: 7 x 5 inches, a figure's size in
# an R Markdown document (knitr's fig.width and fig.height). A larger canvas hid a title and
# a subtitle cut at that size; look at these, not at a roomier rendering.
pkgload::load_all(".", quiet = TRUE)
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[[1]] else file.path(tempdir(), "predictivebench-plots")
dir.create(out, showWarnings = FALSE, recursive = TRUE)
save <- function(plot, name, width = 7, height = 5) {
  path <- file.path(out, paste0(name, ".png"))
  ggplot2::ggsave(path, plot, width = width, height = height, dpi = 100)
  cat(path, "\n")
}
set.seed(21)

# ---- leaderboard: 6 models x 5 benchmarks ---------------------------------------------------
models <- c("gpt-4.1-mini-2025-04-14", "claude-sonnet-4-20250514", "Qwen/Qwen2.5-72B-Instruct",
            "meta-llama/Llama-3.3-70B-Instruct", "gemini-2.5-flash", "deepseek-chat")
headlines <- tibble::tribble(
  ~benchmark,      ~metric,              ~n,   ~interval,
  "dsbench",       "overall",            466L, "95% normal (or Wilson) interval",
  "futurex",       "overall",            53L,  "95% normal interval",
  "processbench",  "overall f1",         400L, "95% bootstrap interval",
  "deltabench",    "overall f1_macro",   9L,   "95% bootstrap interval",
  "probsem",       "truth",              3L,   "95% normal interval",
  "probsem",       "choice",             2L,   "95% normal interval"
)
rows <- do.call(rbind, lapply(seq_len(nrow(headlines)), function(h) {
  est <- stats::runif(length(models), 0.1, 0.95)
  half <- 1.96 * sqrt(est * (1 - est) / headlines$n[[h]])
  tibble::tibble(benchmark = headlines$benchmark[[h]], model = models,
                 metric = headlines$metric[[h]], estimate = est,
                 lower = pmax(0, est - half), upper = pmin(1, est + half),
                 n = headlines$n[[h]], interval = headlines$interval[[h]],
                 source = NA_character_)
}))
rows$estimate[rows$benchmark == "probsem" & rows$metric == "truth"][1:2] <- 1
board <- structure(rows, class = c("benchmark_leaderboard", "tbl_df", "tbl", "data.frame"))
save(ggplot2::autoplot(board), "leaderboard-6x5")
save(ggplot2::autoplot(board, metrics = "all"), "leaderboard-6x5-all")

# ---- benchmark summaries --------------------------------------------------------------------
fx <- futurex_dataset(version = "sample")
fx_samples <- tibble::tibble(id = fx$id, level = fx$level,
                             score = as.double(stats::runif(nrow(fx)) < 0.4))
save(ggplot2::autoplot(futurex_summary(fx_samples)), "futurex-summary")

pb <- processbench_task(processbench_dataset(version = "sample"), dir = tempfile(),
                        solver = processbench_solver(n_votes = 3,
                                                     settings = request_settings(cache = FALSE)))
pb$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
save(ggplot2::autoplot(processbench_summary(pb)), "processbench-summary")

db <- deltabench_task(deltabench_dataset(version = "sample"), dir = tempfile(), solver = deltabench_solver(settings = request_settings(cache = FALSE)))
db$eval(solver_chat = baseline_constant("Conclusion: yes\nError Section Number: 2"),
        view = FALSE)
save(ggplot2::autoplot(deltabench_summary(db)), "deltabench-summary")

ds <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver(settings = request_settings(cache = FALSE)), scorer = dsbench_scorer_exact(),
                   dir = tempfile())
ds$eval(solver_chat = baseline_echo(dsbench_dataset(version = "sample"), "target"), view = FALSE)
save(ggplot2::autoplot(dsbench_summary(ds, by_competition = TRUE)), "dsbench-summary")

save(ggplot2::autoplot(suppressMessages(probsem_summary(probsem_example_samples()))),
     "probsem-summary")

# ---- arena ratings --------------------------------------------------------------------------
strength <- stats::setNames(seq(1.5, -1, length.out = length(models)), models)
pairs <- t(utils::combn(models, 2))
battles <- do.call(rbind, lapply(seq_len(30), function(i) {
  p <- stats::plogis(strength[pairs[, 1]] - strength[pairs[, 2]])
  u <- stats::runif(nrow(pairs))
  data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
             winner = ifelse(u < p - 0.05, "model_a", ifelse(u > p + 0.05, "model_b", "tie")))
}))
ratings <- arena_ratings(battles, rating_options(bootstrap = 100))
save(ggplot2::autoplot(ratings), "arena-ratings")
save(ggplot2::autoplot(ratings, type = "winrate"), "arena-winrate")
# the battles' win rates, as arena_summary() gives them
save(ggplot2::autoplot(arena_summary(battles, times = 100)), "arena-battles-summary")

# ---- arena task: one model against the reference answers --------------------------------------
judge <- arena_baseline_judge("longer")  # offline: the longer answer wins
at <- arena_task(arena_dataset(version = "sample"), judge = judge, dir = tempfile(),
                 solver = arena_solver(settings = request_settings(cache = FALSE)))
at$eval(solver_chat = baseline_chat(function(q) paste("A medium-length answer to:", q)),
        view = FALSE)
save(ggplot2::autoplot(arena_summary(at)), "arena-task-summary")

# ---- judge audit (once judge_audit() is in the package) ----------------------------------------
if (is.function(get0("judge_audit", mode = "function"))) {
  options(predictivebench.cache_dir = tempfile("plots-cache-"))  # the run's verdicts, thrown away
  first <- baseline_chat('{"winner": 1, "explanation": "Offline."}', name = "first-position")
  contestants <- list(baseline_chat("A short answer.", name = "short"),
                      baseline_chat("A much longer answer, with more words in it.", name = "long"),
                      baseline_chat("A medium answer, some words.", name = "medium"))
  run <- arena_run(contestants, first, dataset = data.frame(question = paste("Question", 1:8)),
                   dir = tempfile("logs-"),
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo",
                                                                    bootstrap = 50)))
  save(ggplot2::autoplot(judge_audit(run, judge = first)), "judge-audit")
}
