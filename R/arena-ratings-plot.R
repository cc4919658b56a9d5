# Plots of arena ratings: intervals, and the observed win-rate heatmap.

#' Plot arena ratings
#'
#' `autoplot()` draws the ratings with their intervals (`type = "ratings"`) or a heatmap of
#' the observed win rate of each row model against each column model, ties counting half
#' (`type = "winrate"`). `plot()` prints the same. Both need ggplot2.
#'
#' @param object,x An [arena_ratings()] result.
#' @param type `"ratings"` or `"winrate"`.
#' @param ... Unused.
#' @returns A ggplot object (`plot()` returns it invisibly after printing).
#' @family arena
#' @exportS3Method ggplot2::autoplot
#' @importFrom rlang .data
#' @examplesIf rlang::is_installed("ggplot2")
#' battles <- data.frame(model_a = c("a", "b", "a", "c"), model_b = c("b", "c", "c", "b"),
#'                       winner = c("model_a", "model_a", "tie", "model_b"))
#' r <- arena_ratings(battles, rating_options(bootstrap = 50))
#' ggplot2::autoplot(r)
#' ggplot2::autoplot(r, type = "winrate")
autoplot.arena_ratings <- function(object, type = c("ratings", "winrate"), ...) {
  rlang::check_installed("ggplot2", "to plot arena ratings.")
  type <- rlang::arg_match(type)
  if (type == "ratings") return(ratings_plot(object))
  data <- win_rate_matrix(attr(object, "battles"), object$model)
  ggplot2::ggplot(data, ggplot2::aes(x = .data$opponent, y = .data$model,
                                     fill = .data$win_rate)) +
    ggplot2::geom_tile() +
    ggplot2::geom_text(ggplot2::aes(label = ifelse(is.na(.data$win_rate), "",
                                                   sprintf("%.2f", .data$win_rate))),
                       size = 3) +
    ggplot2::scale_fill_gradient2(low = "#b2182b", mid = "white", high = "#2166ac",
                                  midpoint = 0.5, limits = c(0, 1), na.value = "grey90") +
    ggplot2::labs(x = "Opponent", y = "Model", fill = "Win rate",
                  title = "Observed win rate (row against column, ties count half)",
                  subtitle = "Number: share of points won. Grey: no battle.") +
    ggplot2::theme_bw() +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 45, hjust = 1),
                   panel.grid = ggplot2::element_blank())
}

# Best model on top; battle counts in the labels, so no text sits among the whiskers.
ratings_plot <- function(object) {
  data <- as.data.frame(unclass(object)[c("model", "rating", "lower", "upper", "battles")])
  labels <- paste0(object$model, "\n(", object$battles, " battles)")
  data$model <- factor(data$model, levels = rev(object$model), labels = rev(labels))
  method <- attr(object, "method")
  method <- switch(method %||% "", bt = "Bradley-Terry", elo = "online Elo",
                   elo_median = "online Elo, median over orders", method)
  with_interval <- !all(is.na(data$lower))
  plot <- ggplot2::ggplot(data, ggplot2::aes(x = .data$rating, y = .data$model))
  if (with_interval) {
    plot <- plot + ggplot2::geom_errorbar(
      ggplot2::aes(xmin = .data$lower, xmax = .data$upper), width = 0.3, orientation = "y",
      na.rm = TRUE
    )
  }
  plot + ggplot2::geom_point(size = 2) +
    ggplot2::theme_bw() +
    ggplot2::theme(panel.grid.minor = ggplot2::element_blank()) +
    ggplot2::labs(
      x = "Rating", y = NULL, title = paste("Arena ratings:", method),
      subtitle = if (with_interval) {
        "Points: rating. Whiskers: bootstrap percentile interval."
      } else {
        "Points: rating (no interval: bootstrap = 0)."
      }
    )
}

#' @rdname autoplot.arena_ratings
#' @export
plot.arena_ratings <- function(x, type = c("ratings", "winrate"), ...) {
  plot <- autoplot.arena_ratings(x, type = type, ...)
  print(plot)
  invisible(plot)
}

win_rate_matrix <- function(scores, models) {
  both <- data.frame(
    model = c(scores$model_a, scores$model_b),
    opponent = c(scores$model_b, scores$model_a),
    points = c(scores$score_a, 1 - scores$score_a)
  )
  grid <- expand.grid(model = models, opponent = models, stringsAsFactors = FALSE)
  key <- paste(both$model, both$opponent, sep = "\r")
  sums <- tapply(both$points, key, sum)
  counts <- tapply(both$points, key, length)
  grid_key <- paste(grid$model, grid$opponent, sep = "\r")
  grid$win_rate <- unname(sums[grid_key] / counts[grid_key])
  grid$battles <- unname(counts[grid_key])
  grid$model <- factor(grid$model, levels = rev(models))
  grid$opponent <- factor(grid$opponent, levels = models)
  grid
}
