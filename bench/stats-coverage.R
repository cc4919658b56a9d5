# Coverage of naive, clustered and paired intervals on simulated evals (issue 14).
#
#   Rscript bench/stats-coverage.R [reps=2000]
#
# 1. Clustered items: 20 clusters of 10 items; each cluster has its own success rate
#    (Beta(2, 2) around the true mean 0.5, an intra-cluster correlation of 0.2). The 95%
#    interval of the mean should cover 0.5 in 95% of runs.
# 2. Two correlated models on 200 items: each item has a difficulty both models feel. The
#    paired interval of the difference (compare_models()) against the unpaired one.
# 3. ProcessBench's F1 (processbench_summary()): true error and correct accuracies from 0.02
#    to 0.98, 5 to 30 samples a side; the F1 interval should cover the true F1 in at least
#    95% of runs, at the corners too (issue 44).
pkgload::load_all(".", quiet = TRUE)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(sub("reps=", "", args[[1]])) else 2000L

clustered_run <- function(groups = 20, size = 10) {
  rate <- stats::rbeta(groups, 2, 2)
  cluster <- rep(seq_len(groups), each = size)
  x <- as.double(stats::runif(groups * size) < rate[cluster])
  naive <- mean_ci(x)
  clustered <- mean_ci(x, cluster = cluster)
  c(naive = naive$lower <= 0.5 && naive$upper >= 0.5,
    clustered = clustered$lower <= 0.5 && clustered$upper >= 0.5,
    width_naive = naive$upper - naive$lower,
    width_clustered = clustered$upper - clustered$lower)
}

paired_run <- function(n = 200, gap = 0.05) {
  difficulty <- stats::rnorm(n, 0, 2)
  p_x <- stats::plogis(difficulty + 0.1)
  p_y <- stats::plogis(difficulty + 0.1 - gap * 4)
  truth <- mean(p_x - p_y)
  x <- data.frame(id = seq_len(n), score = as.double(stats::runif(n) < p_x))
  y <- data.frame(id = seq_len(n), score = as.double(stats::runif(n) < p_y))
  out <- compare_models(x, y)
  z <- stats::qnorm(0.975)
  c(paired = abs(out$difference - truth) <= z * out$se,
    unpaired = abs(out$difference - truth) <= z * out$se_unpaired,
    width_paired = 2 * z * out$se, width_unpaired = 2 * z * out$se_unpaired)
}

f1_grid <- expand.grid(error = c(0.02, 0.1, 0.5, 0.9, 0.98), correct = c(0.02, 0.5, 0.98),
                      n = c(5, 10, 30))
f1_coverage <- function(error, correct, n, reps) {
  truth <- f1_score(error, correct)
  mean(replicate(reps, {
    err <- stats::runif(n) < error
    cor <- stats::runif(n) < correct
    if (!any(err) && !any(cor)) return(NA)  # F1 is NA: no interval to judge
    b <- processbench_f1_interval(err, cor, times = 1000, seed = stats::runif(1) * 1e6)
    b[[1]] <= truth && truth <= b[[2]]
  }), na.rm = TRUE)
}

set.seed(2024)
a <- rowMeans(replicate(reps, clustered_run()))
b <- rowMeans(replicate(reps, paired_run()))
f1_grid$coverage <- mapply(f1_coverage, f1_grid$error, f1_grid$correct, f1_grid$n,
                           MoreArgs = list(reps = max(200L, reps %/% 5L)))
cat(sprintf("Clustered items (%d runs): coverage naive %.3f, clustered %.3f; mean width %.3f vs %.3f\n",
            reps, a[["naive"]], a[["clustered"]], a[["width_naive"]], a[["width_clustered"]]))
cat(sprintf("Correlated models (%d runs): coverage paired %.3f, unpaired %.3f; mean width %.3f vs %.3f\n",
            reps, b[["paired"]], b[["unpaired"]], b[["width_paired"]], b[["width_unpaired"]]))
cat(sprintf("ProcessBench F1 (%d cells, 5 to 30 samples a side): coverage min %.3f, mean %.3f\n",
            nrow(f1_grid), min(f1_grid$coverage), mean(f1_grid$coverage)))
