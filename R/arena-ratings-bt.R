# Bradley-Terry maximum likelihood on pair counts: battles aggregated to cells, fitted by Newton.

# Battles as one row per (unordered pair, outcome) cell: all a BT fit needs, at any size.
pair_counts <- function(scores, models = battle_models(scores)) {
  k <- length(models)
  cell <- battle_cells(scores, models)
  n <- tabulate(cell, nbins = k * k * 3L)
  used <- which(n > 0)
  idx <- used - 1L
  tibble::tibble(
    i = idx %/% 3L %/% k + 1L,
    j = idx %/% 3L %% k + 1L,
    outcome = idx %% 3L + 1L,
    n = n[used],
    cell = used
  )
}

# Bradley-Terry maximum likelihood on pair counts by Newton's method. `wins_i` counts i's
# points against j (a tie is half a win for each), `total` the battles of the pair. The tiny
# ridge (1 / C with C = 1e6, as FastChat's LogisticRegression) keeps ratings finite when a
# model never loses and makes the mean rating exactly `initial`.
bt_fit <- function(i, j, wins_i, total, k, options = rating_options(), ridge = 1e-6,
                   start = NULL) {
  max_iter <- 100
  tol <- 1e-9
  w <- if (is.null(start)) numeric(k) else (start - options$initial) / options$scale
  lb <- log(options$base)
  ui <- sort(unique(i))
  uj <- sort(unique(j))
  sum_by <- function(index, used, weight) {
    out <- numeric(k)
    out[used] <- rowsum(weight, index, reorder = TRUE)[, 1]
    out
  }
  loss <- function(w) {
    eta <- lb * (w[i] - w[j])
    -sum(wins_i * stats::plogis(eta, log.p = TRUE) +
           (total - wins_i) * stats::plogis(-eta, log.p = TRUE)) + ridge / 2 * sum(w^2)
  }
  current <- loss(w)
  for (iter in seq_len(max_iter)) {
    eta <- lb * (w[i] - w[j])
    p <- stats::plogis(eta)
    g_pair <- lb * (total * p - wins_i)
    grad <- ridge * w + sum_by(i, ui, g_pair) - sum_by(j, uj, g_pair)
    h_pair <- lb^2 * total * p * (1 - p)
    hess <- diag(ridge + sum_by(i, ui, h_pair) + sum_by(j, uj, h_pair), nrow = k)
    hess[cbind(i, j)] <- hess[cbind(i, j)] - h_pair
    hess[cbind(j, i)] <- hess[cbind(j, i)] - h_pair
    step <- tryCatch(solve(hess, grad), error = function(e) grad)
    t <- 1
    repeat {
      candidate <- w - t * step
      value <- loss(candidate)
      if (value <= current + 1e-12 * abs(current) || t < 1e-8) break
      t <- t / 2
    }
    w <- candidate
    improvement <- current - value
    current <- value
    if (max(abs(t * step)) < tol || improvement < tol * max(1, abs(current)) * 1e-3) break
  }
  options$scale * w + options$initial
}

# Fit BT to `cells`' counts `n`. Perfectly separated battles have their maximum likelihood at
# infinity (FastChat's ridge gives ratings near +-5000), so a Gaussian prior toward equal
# strength is used instead, said in attribute "separated" (the groups, best first).
bt_from_cells <- function(cells, n, k, options, start = NULL) {
  wins_i <- n * ifelse(cells$outcome == 1L, 1, ifelse(cells$outcome == 2L, 0, 0.5))
  pair <- (cells$i - 1L) * k + cells$j
  total <- rowsum(n, pair, reorder = TRUE)
  wins <- rowsum(wins_i, pair, reorder = TRUE)
  keys <- as.integer(rownames(total))
  i <- (keys - 1L) %/% k + 1L
  j <- (keys - 1L) %% k + 1L
  groups <- separated_groups(i, j, wins[, 1], total[, 1], k)
  ridge <- if (is.null(groups)) 1e-6 else separation_ridge
  out <- bt_fit(i, j, wins[, 1], total[, 1], k, options, ridge = ridge,
                start = if (is.null(groups)) start)
  attr(out, "separated") <- groups
  out
}

# The prior used when the battles are perfectly separated: each strength ~ N(0, 1) in units
# of `scale`, so a rating's prior standard deviation is `scale` (400) points around `initial`.
separation_ridge <- 1

# BT's maximum likelihood exists when each model of a pair that met reaches the other through
# "scored against" links: then NULL, else the separated, strongly linked groups, ordered
# so a group never scored against those before it, with attribute "above" (which group reaches
# which: groups that never met have no order).
separated_groups <- function(i, j, wins_i, total, k) {
  scored <- diag(k) > 0
  scored[cbind(i, j)[wins_i > 0, , drop = FALSE]] <- TRUE
  scored[cbind(j, i)[total - wins_i > 0, , drop = FALSE]] <- TRUE
  reach <- scored
  repeat {
    wider <- (reach %*% reach) > 0
    if (identical(wider, reach)) break
    reach <- wider
  }
  if (all(reach[cbind(i, j)] & reach[cbind(j, i)])) return(NULL)
  played <- sort(unique(c(i, j)))
  group <- vapply(played, function(m) min(played[reach[m, played] & reach[played, m]]), 1L)
  members <- split(played, group)
  # a group above reaches more models than any group it beat
  members <- members[order(-vapply(members, function(g) sum(reach[g[[1]], ]), 1),
                            names(members))]
  first <- vapply(members, `[[`, 1L, 1L)
  above <- unname(reach[first, first, drop = FALSE])
  diag(above) <- FALSE
  attr(members, "above") <- above
  members
}

# Each battle's cell: its pair (i < j) and outcome from i (1 win, 2 loss, 3 tie), for tabulate().
battle_cells <- function(scores, models) {
  k <- length(models)
  a <- match(scores$model_a, models)
  b <- match(scores$model_b, models)
  swap <- a > b
  i <- ifelse(swap, b, a)
  j <- ifelse(swap, a, b)
  s <- ifelse(swap, 1 - scores$score_a, scores$score_a)
  outcome <- ifelse(s == 1, 1L, ifelse(s == 0, 2L, 3L))
  ((i - 1L) * k + (j - 1L)) * 3L + outcome
}
