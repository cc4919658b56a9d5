# Interval bounds clipped to `limits`, and set exactly to a limit when floating-point error
# alone separates them from it (the Wilson lower bound at p = 0 computes as 2.78e-17).
clip_to_limits <- function(bounds, limits) {
  if (is.null(limits)) return(bounds)
  bounds <- pmin(pmax(bounds, limits[[1]]), limits[[2]])
  tolerance <- sqrt(.Machine$double.eps) * (limits[[2]] - limits[[1]])
  bounds[!is.na(bounds) & abs(bounds - limits[[1]]) < tolerance] <- limits[[1]]
  bounds[!is.na(bounds) & abs(bounds - limits[[2]]) < tolerance] <- limits[[2]]
  bounds
}

# Scores with no spread, inside known `limits`: all equal, at a limit or (n >= 2) inside.
# Neither the normal interval nor a bootstrap can vary there.
is_constant <- function(x, limits, n = length(x)) {
  !is.null(limits) && length(x) > 0 && all(x == x[[1]]) && (n > 1 || x[[1]] %in% limits)
}

# The interval of a mean whose `n` scores all equal `m`: another value may hold for up to the
# share z^2 / (n + z^2) of items (Wilson's upper bound of a proportion seen 0 times in n), so
# the mean lies between m pulled that share towards each limit (ten 0s on c(0, 1): 0 to 0.278).
constant_bounds <- function(m, limits, n, z) {
  p <- (m - limits[[1]]) / (limits[[2]] - limits[[1]])
  w <- z^2 / (n + z^2)
  limits[[1]] + c(p * (1 - w), p + w * (1 - p)) * (limits[[2]] - limits[[1]])
}
