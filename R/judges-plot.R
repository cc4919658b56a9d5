# The plot of a judge audit: ggplot2::autoplot() of a judge_audit() result.

#' @rdname judge_audit
#' @param object A `judge_audit()` result.
#' @param ... Unused.
#' @details `ggplot2::autoplot()` of an audit draws one panel per judge (and what it is
#'   compared with), one row per statistic: the estimate and its interval, the number
#'   behind it in a column on the right, a grey tick at the value a fair judge gives, and
#'   flagged rows in red, on one axis from 0 (from -1 when kappa or alpha fall below 0) to
#'   1. A statistic that is undefined (kappa when both raters give one label throughout)
#'   says "no estimate".
#' @exportS3Method ggplot2::autoplot
autoplot.judge_audit <- function(object, ...) {
  rlang::check_installed("ggplot2", "to plot a judge audit.")
  data <- audit_plot_data(object)
  fair <- data[!is.na(data$fair), , drop = FALSE]
  missing <- data[is.na(data$estimate), , drop = FALSE]
  from <- data$axis_from[[1]]
  ggplot2::ggplot(data, ggplot2::aes(x = .data$estimate, y = .data$statistic)) +
    ggplot2::geom_vline(xintercept = c(from, 1), colour = "grey80") +
    ggplot2::geom_point(data = fair, ggplot2::aes(x = .data$fair), shape = 124, size = 5,
                        colour = "grey50") +
    ggplot2::geom_blank(ggplot2::aes(x = .data$axis_to)) +
    ggplot2::geom_errorbar(ggplot2::aes(xmin = .data$lower, xmax = .data$upper,
                                        colour = .data$flag),
                           width = 0.3, orientation = "y", na.rm = TRUE) +
    ggplot2::geom_point(ggplot2::aes(colour = .data$flag), size = 2, na.rm = TRUE) +
    ggplot2::geom_text(ggplot2::aes(x = .data$axis_to, label = .data$label), hjust = 1,
                       size = 2.5, colour = "grey30") +
    ggplot2::geom_text(data = missing, ggplot2::aes(x = .data$middle), label = "no estimate",
                       size = 2.6, colour = "grey45", fontface = "italic") +
    ggplot2::scale_colour_manual(values = c(flagged = "firebrick", `not flagged` = "black"),
                                 name = NULL, drop = FALSE) +
    ggplot2::scale_x_continuous(breaks = audit_breaks(from),
                                labels = axis_labels(audit_breaks(from)),
                                expand = ggplot2::expansion(mult = c(0.02, 0))) +
    ggplot2::facet_wrap(ggplot2::vars(.data$panel), ncol = 1, scales = "free_y") +
    ggplot2::theme_bw() +
    ggplot2::theme(plot.title.position = "plot", legend.position = "bottom",
                   panel.grid.minor = ggplot2::element_blank(),
                   strip.text = ggplot2::element_text(size = 8),
                   plot.subtitle = ggplot2::element_text(size = note_size),
                   axis.title.x = ggplot2::element_text(size = note_size)) +
    ggplot2::labs(
      y = NULL, x = wrap_label(paste("Estimate with", attr(object, "interval") %||%
                                       judge_audit_interval(0.95)),
                               note_chars(inches = 4)),
      title = "Judge audit",
      subtitle = wrap_label(paste(
        "One panel per judge (and what it is compared with). Grey tick: what a fair judge",
        "gives; red: the interval excludes it. n: battles, verdicts or items behind each",
        "estimate."
      ), note_chars())
    )
}

# From -1 when kappa or alpha fall below 0.
audit_breaks <- function(from) if (from < 0) seq(-1, 1, by = 0.5) else seq(0, 1, by = 0.25)

# One axis for all panels, with the "n =" column right of it.
audit_plot_data <- function(object) {
  data <- as.data.frame(unclass_audit(object))
  data$panel <- ifelse(is.na(data$compared_with), data$group,
                       paste0(data$group, " vs ", data$compared_with))
  if (anyDuplicated(paste(data$panel, data$metric))) {
    data$panel <- paste0(data$panel, " (", basename(data$source), ")")
  }
  data$panel <- factor(data$panel, levels = unique(data$panel))
  data$statistic <- top_down(audit_metric_title(data$metric))
  from <- if (any(c(data$lower, data$estimate) < 0, na.rm = TRUE)) -1 else 0
  data$axis_from <- from
  data$axis_to <- 1 + 0.3 * (1 - from)
  data$middle <- (from + 1) / 2
  data$label <- ifelse(is.na(data$estimate), "", paste0("n = ", data$n))
  data$flag <- factor(ifelse(data$flagged, "flagged", "not flagged"),
                      levels = c("flagged", "not flagged"))
  data
}

audit_metric_title <- function(metric) {
  titles <- c(position_consistency = "Position consistency",
              first_position_win_rate = "First-position win rate",
              longer_answer_win_rate = "Longer-answer win rate",
              self_preference = "Self-preference",
              unreadable_verdicts = "Unreadable verdicts",
              percent_agreement = "Percent agreement", cohen_kappa = "Cohen's kappa",
              krippendorff_alpha = "Krippendorff's alpha")
  unname(ifelse(metric %in% names(titles), titles[metric], metric))
}
