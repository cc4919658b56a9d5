# Nelder-Mead as scipy.optimize.fmin() runs it (scipy's defaults: a first simplex of x0 and
# x0 with each coordinate 5% larger, 0.00025 for a zero coordinate; reflection 1, expansion 2,
# contraction 0.5, shrink 0.5; stop when both the simplex and its values span no more than
# `xtol` and `ftol`, or after 200 * length(x0) iterations or function calls). Papers that
# fitted a parameter with fmin() are reproduced only by the same steps: stats::optim()'s
# Nelder-Mead starts from another simplex and stops by another rule.
nelder_mead <- function(f, x0, xtol = 1e-4, ftol = 1e-4, maxiter = NULL, maxfun = NULL) {
  n <- length(x0)
  maxiter <- maxiter %||% (200 * n)
  maxfun <- maxfun %||% (200 * n)
  sim <- matrix(x0, n + 1, n, byrow = TRUE)
  for (k in seq_len(n)) {
    sim[k + 1, k] <- if (x0[[k]] != 0) 1.05 * x0[[k]] else 0.00025
  }
  calls <- 0L
  fn <- function(x) {
    calls <<- calls + 1L
    f(x)
  }
  fsim <- apply(sim, 1, fn)
  ord <- order(fsim)
  sim <- sim[ord, , drop = FALSE]
  fsim <- fsim[ord]
  iterations <- 1L
  while (calls < maxfun && iterations < maxiter) {
    spread_x <- max(abs(sweep(sim[-1, , drop = FALSE], 2, sim[1, ])))
    if (spread_x <= xtol && max(abs(fsim[[1]] - fsim[-1])) <= ftol) break
    step <- nelder_mead_step(sim, fsim, fn)
    sim <- step$sim
    fsim <- step$fsim
    iterations <- iterations + 1L
    ord <- order(fsim)
    sim <- sim[ord, , drop = FALSE]
    fsim <- fsim[ord]
  }
  list(par = sim[1, ], value = fsim[[1]], iterations = iterations, calls = calls)
}

# One move of the simplex (sorted best first): reflect the worst point through the centroid
# of the others, then expand, accept, contract outside or inside, or shrink toward the best.
nelder_mead_step <- function(sim, fsim, fn) {
  last <- nrow(sim)
  worst <- sim[last, ]
  xbar <- colMeans(sim[-last, , drop = FALSE])
  xr <- 2 * xbar - worst
  fxr <- fn(xr)
  replace <- function(x, fx) {
    sim[last, ] <- x
    fsim[[last]] <- fx
    list(sim = sim, fsim = fsim)
  }
  if (fxr < fsim[[1]]) {
    xe <- 3 * xbar - 2 * worst
    fxe <- fn(xe)
    return(if (fxe < fxr) replace(xe, fxe) else replace(xr, fxr))
  }
  if (fxr < fsim[[last - 1]]) return(replace(xr, fxr))
  if (fxr < fsim[[last]]) {
    xc <- 1.5 * xbar - 0.5 * worst
    fxc <- fn(xc)
    if (fxc <= fxr) return(replace(xc, fxc))
  } else {
    xcc <- 0.5 * xbar + 0.5 * worst
    fxcc <- fn(xcc)
    if (fxcc < fsim[[last]]) return(replace(xcc, fxcc))
  }
  for (j in seq_len(last)[-1]) {
    sim[j, ] <- sim[1, ] + 0.5 * (sim[j, ] - sim[1, ])
    fsim[[j]] <- fn(sim[j, ])
  }
  list(sim = sim, fsim = fsim)
}
