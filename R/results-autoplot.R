# Plots of summaries and leaderboards that say what the interval is and how many samples
# stand behind each bar.

#' Tag a summary for plotting
#'
#' `benchmark_summary()` marks a summary tibble (columns `group`, `metric`, `estimate`,
#' `lower`, `upper`, `n`) with what its groups are and what its interval is, so that
#' `ggplot2::autoplot()` draws it. Benchmarks return their
#' summaries this way.
#'
#' @param rows The summary tibble.
#' @param benchmark The benchmark's name, for the title.
#' @param by What the groups are (`"level"`, `"task"`, `"competition"`, `"suite"`).
#' @param interval What `lower` and `upper` are.
#' @returns `rows`, with class `benchmark_summary` added.
#' @keywords internal
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

# Draws any summary tibble (columns `group`, `metric`, `estimate`, `lower`, `upper`, `n`); the
# autoplot() methods below are its public face.
autoplot_summary <- function(summary, title = NULL, by = "group",
                             interval = "95% confidence interval") {
  rlang::check_installed("ggplot2", "to plot a summary.")
  rows <- check_summary_rows(summary)
  data <- as.data.frame(rows[summary_columns])
  # one row per headline key: per group, or per group within a panel per metric
  several <- !identical(summary_keys(rows), as.character(rows$group))
  data$group <- top_down(data$group)
  data$metric <- factor(data$metric, levels = unique(data$metric))
  plot <- interval_rows(data, "group", interval) +
    ggplot2::labs(y = by, title = title %||% "Summary by group")
  if (several) plot <- plot + ggplot2::facet_wrap(ggplot2::vars(.data$metric))
  plot
}

# A factor whose first level is drawn at the top of a vertical discrete axis.
top_down <- function(x) factor(x, levels = rev(unique(as.character(x))))

# One row per `y` value: the estimate as a point, `lower`-`upper` as whiskers, on a 0-1 axis;
# "n = " in a column right of 1, apart from every whisker. The x axis and subtitle say what
# the whiskers are.
interval_rows <- function(data, y, interval) {
  data$label <- paste0("n = ", data$n)
  missing <- data[is.na(data$estimate), , drop = FALSE]
  missing$estimate <- rep(0.5, nrow(missing))
  ggplot2::ggplot(data, ggplot2::aes(x = .data$estimate, y = .data[[y]])) +
    ggplot2::geom_vline(xintercept = c(0, 1), colour = "grey80") +
    ggplot2::geom_errorbar(ggplot2::aes(xmin = .data$lower, xmax = .data$upper),
                           width = 0.3, orientation = "y", na.rm = TRUE) +
    ggplot2::geom_point(size = 2, na.rm = TRUE) +
    ggplot2::geom_text(ggplot2::aes(x = 1.04, label = .data$label), hjust = 0, size = 3,
                       colour = "grey30") +
    # where there is no estimate (an F1 of groups without errors, a suite without ground
    # truth) the row says so, rather than showing nothing or a zero
    ggplot2::geom_text(data = missing, label = "no estimate", size = 3, colour = "grey45",
                       fontface = "italic") +
    ggplot2::scale_x_continuous(limits = c(0, 1.3), breaks = c(0, 0.25, 0.5, 0.75, 1),
                                labels = c("0", ".25", ".5", ".75", "1"),
                                expand = ggplot2::expansion(mult = c(0.02, 0))) +
    ggplot2::theme_bw() +
    ggplot2::theme(panel.grid.minor = ggplot2::element_blank(),
                   panel.grid.major.x = ggplot2::element_line(colour = "grey92")) +
    ggplot2::labs(
      x = paste0("Estimate (0-1) with ", wrap_label(interval, 60)),
      subtitle = wrap_label(paste0(
        "Points: estimate. Whiskers: ", interval, " (none where not computed). ",
        "n: samples behind each estimate."
      ), 90)
    )
}

wrap_label <- function(text, width) paste(strwrap(text, width), collapse = "\n")

#' Plot a benchmark summary or a leaderboard
#'
#' @description
#' `ggplot2::autoplot()` of a summary (what every `<benchmark>_summary()` returns) draws one
#' row per group: a point at the estimate with its interval as whiskers, on a 0-1 axis, and
#' the number of samples behind it written in a column to the right, where labels can't
#' collide with whiskers or with each other. Groups read top to bottom in the summary's
#' order, their names horizontal; the axis and subtitle say what the interval is. A group
#' without an estimate says so ("no estimate") instead of showing a zero. A summary with
#' several rows per group (one per metric, such as ProcessBench's accuracies and F1) gets
#' one panel per metric.
#'
#' `autoplot()` of a [leaderboard()] draws one panel per benchmark and headline metric, each
#' with the models on the same vertical axis (in the same order in every panel), so a model
#' is read across a row of panels.
#'
#' `bench/plots.R` renders every plot of the package as a PNG, at six models and five
#' benchmarks for the leaderboard, to look at them.
#'
#' @param object A summary or a leaderboard.
#' @param ... Unused.
#' @returns A ggplot object.
#' @family results
#' @examplesIf rlang::is_installed("ggplot2")
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}"), view = FALSE)
#' ggplot2::autoplot(futurex_summary(tsk))
#' @exportS3Method ggplot2::autoplot
autoplot.benchmark_summary <- function(object, ...) {
  autoplot_summary(object, title = paste(attr(object, "benchmark"), "by", attr(object, "by")),
                   by = attr(object, "by"), interval = attr(object, "interval"))
}

#' @rdname autoplot.benchmark_summary
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
  # the same model order, alphabetical from the top, in every panel
  data$model <- factor(data$model, levels = rev(sort(unique(as.character(data$model)))))
  panels <- length(levels(data$panel))
  interval_rows(data, "model", interval) +
    ggplot2::facet_wrap(ggplot2::vars(.data$panel), ncol = min(3L, panels)) +
    ggplot2::labs(y = NULL, title = "Headline metrics by benchmark and model",
                  caption = caption)
}
