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
#' @param by What the groups are (`"level"`, `"task_l1"`, `"competition"`, `"suite"`).
#'   `NULL` (the default): the benchmark's registered `by` (see [new_benchmark()]).
#' @param interval What `lower` and `upper` are. `NULL` (the default): the benchmark's
#'   registered `interval` for `method`.
#' @param method The interval method the summary used (`"normal"`, `"bootstrap"`), which
#'   picks a registered `interval` named by method; `NULL`: the first.
#' @param title The plot's title, in words (`"ProcessBench: accuracy and F1 by task"`, see
#'   summary_title()). `NULL` (the default, a user's own benchmark): `"<benchmark> by
#'   <groups>"`.
#' @param by_label What the groups are, in words, for the plot's axis and title (`"task"`
#'   for ProcessBench's `task_l1`). `NULL`: `by`, its underscores spaces.
#' @returns `rows`, with class `benchmark_summary` added.
#' @noRd
benchmark_summary <- function(rows, benchmark, by = NULL, interval = NULL, method = NULL,
                              title = NULL, by_label = NULL) {
  rows <- check_summary_rows(rows)
  check_string(benchmark)
  b <- benchmark_named(benchmark)
  by <- by %||% benchmark_by(b) %||% "group"
  interval <- interval %||% benchmark_interval(b, method)
  check_string(by)
  check_string(interval)
  check_string(title, allow_null = TRUE)
  check_string(by_label, allow_null = TRUE)
  attr(rows, "benchmark") <- benchmark
  attr(rows, "title") <- title
  attr(rows, "by") <- by
  attr(rows, "by_label") <- by_label %||% groups_label(by)
  attr(rows, "interval") <- interval
  class(rows) <- c("benchmark_summary", setdiff(class(rows), "benchmark_summary"))
  rows
}

# "ProcessBench: accuracy and F1 by task"; `labels` names columns in words (task_l1 = "task").
summary_title <- function(name, what, by = NULL, labels = character()) {
  label <- groups_label(by, labels)
  paste0(name, ": ", what, if (!is.null(label) && label != "group") paste(" by", label))
}

groups_label <- function(by, labels = character()) {
  if (is.null(by)) return(NULL)
  if (by %in% names(labels)) return(labels[[by]])
  gsub("_", " ", by, fixed = TRUE)
}

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

top_down <- function(x) factor(x, levels = rev(unique(as.character(x))))

# Ratings (`scale` "Elo") get an axis of their own; "n =" stands right of each axis, clear of
# every whisker.
interval_rows <- function(data, y, interval) {
  data$label <- paste0("n = ", data$n)
  data <- axis_columns(data)
  missing <- data[is.na(data$estimate), , drop = FALSE]
  missing$estimate <- missing$middle
  ggplot2::ggplot(data, ggplot2::aes(x = .data$estimate, y = .data[[y]])) +
    ggplot2::geom_vline(data = proportion_bounds(data), ggplot2::aes(xintercept = .data$at),
                        colour = "grey80") +
    ggplot2::geom_blank(ggplot2::aes(x = .data$axis_from)) +
    ggplot2::geom_blank(ggplot2::aes(x = .data$axis_to)) +
    ggplot2::geom_errorbar(ggplot2::aes(xmin = .data$lower, xmax = .data$upper),
                           width = 0.3, orientation = "y", na.rm = TRUE) +
    ggplot2::geom_point(size = 2, na.rm = TRUE) +
    ggplot2::geom_text(ggplot2::aes(x = .data$label_at, label = .data$label), hjust = 1,
                       size = 2.5, colour = "grey30") +
    # no estimate (an F1 of groups without errors) is said, rather than shown as nothing or 0
    ggplot2::geom_text(data = missing, label = "no estimate", size = 2.6, colour = "grey45",
                       fontface = "italic") +
    ggplot2::scale_x_continuous(breaks = axis_breaks, labels = axis_labels,
                                expand = ggplot2::expansion(mult = c(0.02, 0))) +
    ggplot2::theme_bw() +
    # title, subtitle and caption start at the plot's left edge, not the panel's, so their
    # room is the plot's width whatever the group names (note_chars())
    ggplot2::theme(panel.grid.minor = ggplot2::element_blank(),
                   panel.grid.major.x = ggplot2::element_line(colour = "grey92"),
                   plot.title.position = "plot", plot.caption.position = "plot",
                   plot.subtitle = ggplot2::element_text(size = note_size),
                   axis.title.x = ggplot2::element_text(size = note_size)) +
    ggplot2::labs(
      x = wrap_label(paste0(if (any(data$scale == "Elo")) {
        "Estimate (0-1; ratings on the Elo scale)"
      } else {
        "Estimate (0-1)"
      }, " with ", interval), note_chars(inches = 4)),
      subtitle = wrap_label(paste0(
        "Points: estimate. Whiskers: ", interval, " (none where not computed). ",
        "n: samples ", if (any(data$scale == "Elo")) "(battles for ratings) ",
        "behind each estimate."
      ), note_chars())
    )
}

axis_columns <- function(data) {
  if (is.null(data[["scale"]])) data$scale <- rep("0-1", nrow(data))
  panel <- if (is.null(data[["panel"]])) rep("all", nrow(data)) else as.character(data$panel)
  from <- rep(0, nrow(data))
  to <- rep(1, nrow(data))
  for (p in unique(panel[data$scale == "Elo"])) {
    rows <- panel == p
    values <- c(data$estimate[rows], data$lower[rows], data$upper[rows])
    span <- range(values, na.rm = TRUE)
    if (!all(is.finite(span))) span <- c(900, 1100)
    if (diff(span) < 1) span <- span + c(-50, 50)
    from[rows] <- span[[1]]
    to[rows] <- span[[2]]
  }
  width <- to - from
  data$axis_from <- from
  # the "n =" labels end at the right edge: a column of 0.4 of the axis, clear of 0-1
  data$axis_to <- to + 0.4 * width
  data$label_at <- data$axis_to
  data$middle <- from + width / 2
  data
}

proportion_bounds <- function(data) {
  if (is.null(data[["panel"]])) return(data.frame(at = c(0, 1)))
  panels <- unique(data$panel[data$scale == "0-1"])
  data.frame(panel = rep(panels, each = 2), at = rep(c(0, 1), length(panels)))
}

axis_breaks <- function(limits) {
  if (limits[[2]] <= 1.5) return(c(0, 0.25, 0.5, 0.75, 1))
  data_to <- limits[[1]] + (limits[[2]] - limits[[1]]) / 1.4
  steps <- c(1, 2, 2.5, 5) * rep(10^(0:4), each = 4)
  for (step in steps) {
    breaks <- seq(ceiling(limits[[1]] / step) * step, data_to, by = step)
    if (length(breaks) <= 4) return(breaks)
  }
  breaks
}

axis_labels <- function(breaks) {
  if (all(breaks <= 1, na.rm = TRUE)) {
    return(sub("^0[.]", ".", format(breaks, drop0trailing = TRUE, trim = TRUE)))
  }
  format(breaks, trim = TRUE, scientific = FALSE, big.mark = "")
}

wrap_label <- function(text, width) paste(strwrap(text, width), collapse = "\n")

# Lines must fit the narrowest plot, 6 inches (the vignettes'), with panels keeping 4 inches
# beside the group names; a sans-serif character is about 0.6 of the size wide.
note_size <- 9
note_chars <- function(size = note_size, inches = 6) {
  floor((inches * 72 - 2 * 5.5) / (0.6 * size))
}

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
#' `autoplot()` of a [leaderboard()] draws one panel per benchmark (its primary headline
#' metric; `metrics = "all"` for one panel per benchmark and headline metric), each
#' with the models on the same vertical axis (in the same order in every panel), so a model
#' is read across a row of panels. Ratings on the Elo scale (an [arena_run()]'s competitors)
#' get an axis of their own, fitted to their panel; a metric for which lower is better
#' (probsem's distance to human judgements) says so in its panel's title. A model with
#' several runs of one benchmark (re-runs) gets a row per run, `"(run 1)"`, `"(run 2)"` in
#' the order they were created. Long model names wrap, and the plot reads at six models
#' and six benchmarks at ggsave's default size (7 x 7 inches).
#'
#' `bench/plots.R` renders every plot of the package as a PNG, at six models and five
#' benchmarks for the leaderboard, to look at them.
#'
#' @param object A summary or a leaderboard.
#' @param metrics For a leaderboard: each benchmark's `"primary"` headline metric (the
#'   first it registers, the one the viewer shows first: FutureX's `"overall"`,
#'   ProcessBench's `"overall f1"`, an arena run's `"rating"`), one panel per benchmark; or
#'   `"all"` its headline metrics, a panel each. Filter the board to plot others.
#' @param ... Unused.
#' @returns A ggplot object.
#' @family results
#' @examplesIf rlang::is_installed("ggplot2")
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile())
#' tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}"), view = FALSE)
#' ggplot2::autoplot(futurex_summary(tsk))
#' @exportS3Method ggplot2::autoplot
autoplot.benchmark_summary <- function(object, ...) {
  by <- attr(object, "by_label") %||% groups_label(attr(object, "by")) %||% "group"
  title <- attr(object, "title") %||% paste(attr(object, "benchmark"), "by", by)
  autoplot_summary(object, title = title, by = by,
                   interval = attr(object, "interval"))
}

#' @rdname autoplot.benchmark_summary
#' @exportS3Method ggplot2::autoplot
autoplot.benchmark_leaderboard <- function(object, metrics = c("primary", "all"), ...) {
  rlang::check_installed("ggplot2", "to plot a leaderboard.")
  metrics <- rlang::arg_match(metrics)
  if (metrics == "primary") object <- primary_rows(object)
  data <- board_plot_data(object)
  intervals <- unique(data[c("benchmark", "interval")])
  interval <- if (length(unique(intervals$interval)) == 1) intervals$interval[[1]] else
    "the interval each benchmark reports (see the caption)"
  caption <- if (nrow(intervals) > 1 && length(unique(intervals$interval)) > 1) {
    kinds <- unique(intervals$interval)
    paste(vapply(kinds, function(k) {
      wrap_label(paste0(paste(intervals$benchmark[intervals$interval == k], collapse = ", "),
                        ": ", k), note_chars(size = 7))
    }, "", USE.NAMES = FALSE), collapse = "\n")
  }
  panels <- length(levels(data$panel))
  shared <- attr(data, "provider")
  if (!is.null(shared)) {
    caption <- paste(c(caption, paste0("Models: ", shared, "/<model>")), collapse = "\n")
  }
  rows <- length(levels(data$model))
  interval_rows(data, "model", interval) +
    ggplot2::facet_wrap(ggplot2::vars(.data$panel), ncol = min(3L, panels),
                        scales = if (any(data$scale == "Elo")) "free_x" else "fixed") +
    ggplot2::labs(y = NULL, title = "Headline metrics by benchmark and model",
                  caption = caption) +
    ggplot2::theme(strip.text = ggplot2::element_text(size = 8),
                   axis.text.y = ggplot2::element_text(size = if (rows > 10) 7 else 8,
                                                       lineheight = 0.85),
                   axis.text.x = ggplot2::element_text(size = 7),
                   axis.title.x = ggplot2::element_text(size = 9),
                   plot.caption = ggplot2::element_text(size = 7, hjust = 0),
                   plot.subtitle = ggplot2::element_text(size = 8))
}

primary_rows <- function(board) {
  first <- board$metric[!duplicated(board$benchmark)]
  board[board$metric == first[match(board$benchmark, unique(board$benchmark))], ]
}

board_plot_data <- function(board) {
  data <- as.data.frame(unclass(board))
  if (is.null(data[["better"]])) data$better <- rep("higher", nrow(data))
  if (is.null(data[["scale"]])) data$scale <- rep("0-1", nrow(data))
  note <- ifelse(data$better == "lower", "lower is better", "")
  note <- ifelse(data$scale == "Elo", paste0("Elo scale", ifelse(nzchar(note), "; ", ""), note),
                 note)
  data$panel <- paste0(data$benchmark, ": ", data$metric,
                       ifelse(nzchar(note), paste0("\n(", note, ")"), ""))
  data$panel <- factor(data$panel, levels = unique(data$panel))
  model <- as.character(data$model)
  provider <- shared_provider(model)
  if (!is.null(provider)) model <- substring(model, nchar(provider) + 2L)
  # long names wrap where the rows have room for two lines
  if (length(unique(model)) <= 8) model <- wrap_model(model)
  data$model <- run_labels(data, model)
  data$model <- factor(data$model, levels = rev(sort(unique(data$model))))
  attr(data, "provider") <- provider
  data
}

# The provider every model label starts with, when all share one: said once in the caption.
shared_provider <- function(model) {
  if (!length(model) || !all(grepl("/", model, fixed = TRUE))) return(NULL)
  prefix <- unique(sub("/.*$", "", model))
  rest <- substring(model, nchar(prefix[[1]]) + 2L)
  if (length(prefix) != 1 || length(unique(rest)) != length(unique(model))) return(NULL)
  prefix
}

# A model's label, with "(judge: oracle)" or "(run 2)" when it has several runs of one
# benchmark metric, so re-runs get rows of their own.
run_labels <- function(data, model) {
  run <- if (is.null(data[["run"]])) rep(NA_character_, nrow(data)) else data$run
  key <- paste(data$benchmark, data$metric, model, sep = "\r")
  runs <- tapply(run, key, function(r) length(unique(r)))
  several <- runs[key] > 1
  if (!any(several)) return(model)
  created <- if (is.null(data[["created"]])) run else data$created
  judge <- if (is.null(data[["judge"]])) rep(NA_character_, nrow(data)) else
    as.character(data$judge)
  judges <- tapply(judge, key, function(j) length(unique(j)))
  by_judge <- several & judges[key] > 1
  # runs numbered within their key, or within their key and judge where judges tell them apart
  group <- ifelse(by_judge, paste(key, judge, sep = "\r"), key)
  number <- run_numbers(group, created, run)
  alone <- tapply(run, group, function(r) length(unique(r)))[group] == 1
  judged <- paste0(model, " (judge: ", ifelse(is.na(judge), "none", judge),
                   ifelse(alone, "", paste0(", run ", number)), ")")
  ifelse(by_judge, judged, ifelse(several, paste0(model, " (run ", number, ")"), model))
}

run_numbers <- function(group, created, run) {
  stats::ave(seq_along(group), group, FUN = function(i) {
    match(paste(created[i], run[i]), sort(unique(paste(created[i], run[i]))))
  })
}

# Model names of more than 24 characters wrap at a "/" or "-" so panels keep their width.
wrap_model <- function(x) {
  vapply(x, function(name) {
    if (is.na(name) || nchar(name) <= 24) return(name)
    cut <- gregexpr("[/-]", name)[[1]]
    cut <- cut[cut > 8 & cut < nchar(name) - 4]
    if (!length(cut)) return(name)
    at <- cut[[which.min(abs(cut - nchar(name) / 2))]]
    paste0(substr(name, 1, at), "\n", substr(name, at + 1, nchar(name)))
  }, "", USE.NAMES = FALSE)
}
