# Plots of summaries and leaderboards that say what the interval is and how many samples
# stand behind each bar.

#' Tag a summary for plotting
#'
#' `benchmark_summary()` marks a summary tibble (columns `group`, `metric`, `estimate`,
#' `lower`, `upper`, `n`) with what its groups are and what its interval is, so that
#' `ggplot2::autoplot()` draws it with [autoplot_summary()]. Benchmarks return their
#' summaries this way.
#'
#' @param rows The summary tibble.
#' @param benchmark The benchmark's name, for the title.
#' @param by What the groups are (`"level"`, `"task"`, `"competition"`, `"suite"`).
#' @param interval What `lower` and `upper` are.
#' @returns `rows`, with class `benchmark_summary` added.
#' @export
#' @examples
#' rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("a", "a", "b", "b", "b"))
#' s <- benchmark_summary(rows, "demo", by = "suite")
#' class(s)
benchmark_summary <- function(rows, benchmark, by = "group",
                              interval = "95% confidence interval") {
  rows <- check_summary_rows(rows)
  check_string(benchmark)
  check_string(by)
  check_string(interval)
  attr(rows, "benchmark") <- benchmark
  attr(rows, "by") <- by
  attr(rows, "interval") <- interval
  class(rows) <- c("benchmark_summary", setdiff(class(rows), "benchmark_summary"))
  rows
}

#' Plot a benchmark summary or a leaderboard
#'
#' @description
#' `autoplot_summary()` draws any summary tibble (columns `group`, `metric`, `estimate`,
#' `lower`, `upper`, `n`) as one bar per group with its interval as whiskers, and the number
#' of samples behind each bar written on it; the axis and subtitle say what the interval
#' is. A summary with several rows per group (one per metric, such as ProcessBench's
#' accuracies and F1) gets one panel per metric.
#' `autoplot()` of a [benchmark_summary()] calls it with the summary's own labels.
#'
#' `autoplot()` of a [leaderboard()] draws one panel per benchmark and headline metric,
#' one bar per model.
#'
#' @param object,summary A summary or a leaderboard.
#' @param title The plot's title; by default it names the benchmark.
#' @param by What the groups are, for the axis.
#' @param interval What `lower` and `upper` are.
#' @param ... Unused.
#' @returns A ggplot object.
#' @export
#' @examplesIf rlang::is_installed("ggplot2")
#' rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("a", "a", "b", "b", "b"),
#'                         limits = c(0, 1))
#' autoplot_summary(rows, by = "suite")
#' ggplot2::autoplot(benchmark_summary(rows, "demo", by = "suite"))
autoplot_summary <- function(summary, title = NULL, by = "group",
                             interval = "95% confidence interval") {
  rlang::check_installed("ggplot2", "to plot a summary.")
  rows <- check_summary_rows(summary)
  data <- as.data.frame(rows[summary_columns])
  # one bar per headline key: per group, or per group within a panel per metric
  several <- !identical(summary_keys(rows), as.character(rows$group))
  data$group <- factor(data$group, levels = unique(data$group))
  data$metric <- factor(data$metric, levels = unique(data$metric))
  plot <- interval_bars(data, "group", interval) +
    ggplot2::labs(x = by, title = title %||% "Summary by group")
  if (several) {
    plot <- plot + ggplot2::facet_wrap(ggplot2::vars(.data$metric), scales = "free_x") +
      ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 30, hjust = 1))
  }
  plot
}

# Bars of `estimate` per `x` with `lower`-`upper` whiskers and "n = " on each bar; the y axis
# and subtitle say what the whiskers are.
interval_bars <- function(data, x, interval) {
  data$label <- paste0("n = ", data$n)
  ggplot2::ggplot(data, ggplot2::aes(x = .data[[x]], y = .data$estimate)) +
    ggplot2::geom_col(fill = "grey70", na.rm = TRUE) +
    ggplot2::geom_errorbar(ggplot2::aes(ymin = .data$lower, ymax = .data$upper), width = 0.2,
                           na.rm = TRUE) +
    ggplot2::geom_text(ggplot2::aes(y = 0, label = .data$label), vjust = -0.5, size = 3) +
    ggplot2::scale_y_continuous(limits = c(0, 1)) +
    ggplot2::labs(
      y = paste0("Estimate (0-1) with\n", wrap_label(interval, 50)),
      subtitle = wrap_label(paste0(
        "Bars: estimate. Whiskers: ", interval, " (none where not computed). ",
        "n: samples behind each bar."
      ), 75)
    )
}

wrap_label <- function(text, width) paste(strwrap(text, width), collapse = "\n")

#' @rdname autoplot_summary
#' @exportS3Method ggplot2::autoplot
autoplot.benchmark_summary <- function(object, ...) {
  autoplot_summary(object, title = paste(attr(object, "benchmark"), "by", attr(object, "by")),
                   by = attr(object, "by"), interval = attr(object, "interval"))
}

#' @rdname autoplot_summary
#' @exportS3Method ggplot2::autoplot
autoplot.benchmark_leaderboard <- function(object, ...) {
  rlang::check_installed("ggplot2", "to plot a leaderboard.")
  data <- as.data.frame(unclass(object)[c("benchmark", "model", "metric", "estimate", "lower",
                                          "upper", "n", "interval")])
  data$panel <- paste0(data$benchmark, "\n", data$metric)
  data$panel <- factor(data$panel, levels = unique(data$panel))
  intervals <- unique(data[c("benchmark", "interval")])
  interval <- if (length(unique(intervals$interval)) == 1) intervals$interval[[1]] else
    "the interval each benchmark reports (see the caption)"
  caption <- if (nrow(intervals) > 1 && length(unique(intervals$interval)) > 1) {
    paste(vapply(seq_len(nrow(intervals)), function(i) {
      wrap_label(paste0(intervals$benchmark[[i]], ": ", intervals$interval[[i]]), 100)
    }, ""), collapse = "\n")
  }
  interval_bars(data, "model", interval) +
    ggplot2::facet_wrap(ggplot2::vars(.data$panel)) +
    ggplot2::labs(x = "Model", title = "Headline metrics by benchmark and model",
                  caption = caption) +
    ggplot2::theme(axis.text.x = ggplot2::element_text(angle = 30, hjust = 1))
}
