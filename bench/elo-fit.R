# Bradley-Terry fit plus 1,000 bootstrap rounds on 1,000,000 battles among 50 models, against
# a per-battle baseline in the same run (a logistic regression on one row per battle, as
# FastChat's compute_mle_elo() does, and one online-Elo pass).
#
# Run from the package root:  Rscript bench/elo-fit.R  [battles] [models] [rounds]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 1000000L
k <- if (length(args) >= 2) as.integer(args[[2]]) else 50L
rounds <- if (length(args) >= 3) as.integer(args[[3]]) else 1000L

cat(sprintf("R %s, %s, %d cores\n", getRversion(), R.version$platform, parallel::detectCores()))
set.seed(1)
models <- sprintf("model-%02d", seq_len(k))
strength <- stats::setNames(seq(1400, 600, length.out = k), models)
a <- sample.int(k, n, replace = TRUE)
b <- (a + sample.int(k - 1, n, replace = TRUE) - 1) %% k + 1
p <- 1 / (1 + 10^((strength[b] - strength[a]) / 400))
u <- stats::runif(n)
winner <- ifelse(u < 0.1, "tie", ifelse(stats::runif(n) < p, "model_a", "model_b"))
battles <- data.frame(model_a = models[a], model_b = models[b], winner = winner)

timed <- function(expr) {
  gc()
  t <- system.time(value <- force(expr))[["elapsed"]]
  list(value = value, seconds = t)
}

fit0 <- timed(arena_ratings(battles, rating_options(bootstrap = 0)))
fit <- timed(arena_ratings(battles, rating_options(bootstrap = rounds, seed = 1)))
cat(sprintf("aggregated BT, %d battles, %d models: fit %.2f s; fit + %d bootstrap rounds %.2f s\n",
            n, k, fit0$seconds, rounds, fit$seconds))

# Per-battle baseline: one row per battle (FastChat's layout), one logistic fit. A bootstrap
# on it would need one such fit per round; it is timed once and multiplied.
scores <- predictivebench:::battle_scores(battles)
x <- matrix(0, nrow(scores), k)
x[cbind(seq_len(nrow(scores)), match(scores$model_a, models))] <- log(10)
x[cbind(seq_len(nrow(scores)), match(scores$model_b, models))] <- -log(10)
y <- scores$score_a
glm_one <- timed(suppressWarnings(stats::glm.fit(x[, -1], cbind(y, 1 - y),
                                                 family = stats::binomial())))
coefs <- c(0, glm_one$value$coefficients)
glm_ratings <- 400 * (coefs - mean(coefs)) + 1000
agree <- max(abs(glm_ratings - fit0$value$rating[match(models, fit0$value$model)]))
elo_one <- timed(elo_online(battles))
per_battle_total <- glm_one$seconds * (rounds + 1)
cat(sprintf("per-battle logistic fit: %.2f s once; fit + %d rounds would take %.0f s (extrapolated)\n",
            glm_one$seconds, rounds, per_battle_total))
cat(sprintf("per-battle online Elo: %.2f s per pass; %d passes would take %.0f s (extrapolated)\n",
            elo_one$seconds, rounds + 1, elo_one$seconds * (rounds + 1)))
cat(sprintf("aggregated BT vs per-battle logistic: same ratings within %.2g points\n", agree))
cat(sprintf("speed-up for fit + %d bootstrap rounds: %.0fx against the per-battle logistic fit, %.0fx against online Elo\n",
            rounds, per_battle_total / fit$seconds, elo_one$seconds * (rounds + 1) / fit$seconds))
