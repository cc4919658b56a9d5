skip_if_not_installed("ggplot2")

test_that("a summary plot says what the interval is and how many samples each bar has", {
  rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("a", "a", "b", "b", "b"), limits = c(0, 1))
  p <- ggplot2::autoplot(benchmark_summary(rows, "demo", by = "suite",
                                           interval = "95% Wilson interval"))
  expect_s3_class(p, "ggplot")
  expect_match(p$labels$title, "demo by suite")
  expect_match(p$labels$x, "95% Wilson interval")
  expect_match(gsub("\n", " ", p$labels$subtitle), "samples behind each estimate")
  built <- ggplot2::ggplot_build(p)
  labels <- unlist(lapply(built$data, function(d) d$label))
  expect_setequal(labels, c("n = 5", "n = 2", "n = 3"))
  expect_equal(p$labels$y, "suite")
})

test_that("a leaderboard plot has a panel per benchmark metric and a bar per model", {
  local_arith_benchmark()
  runs <- lapply(c("2", "4"), function(answer) {
    tsk <- arith_task(dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    tsk$eval(solver_chat = baseline_constant(answer), view = FALSE)
    tsk
  })
  board <- leaderboard(!!!runs)
  p <- ggplot2::autoplot(board, metrics = "all")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 2)
  # by default, each benchmark's primary (first) headline metric
  primary <- ggplot2::autoplot(board)
  expect_equal(levels(primary$data$panel), "arith: weighted")
  expect_match(p$labels$x, "95% confidence interval")
  expect_true("n = 4" %in% unlist(lapply(built$data, function(d) d$label)))
  expect_error(benchmark_summary(data.frame(x = 1), "demo"),
               class = "predictivebench_error_argument")
})

test_that("a summary with several metrics per group gets a panel per metric", {
  rows <- rbind(grouped_summary(c(1, 0, 1, 1), by = c("x", "x", "y", "y"), metric = "acc"),
                grouped_summary(c(0, 0, 1), by = c("x", "x", "y"), metric = "f1"))
  p <- autoplot_summary(rows, by = "task", interval = "95% normal interval")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 2)
  expect_equal(p$labels$y, "task")
  expect_setequal(unlist(lapply(built$data, function(d) d$label)),
                  c("n = 4", "n = 2", "n = 3", "n = 1"))
})

test_that("a leaderboard of benchmarks with different intervals names each in the caption", {
  board <- structure(
    tibble::tibble(benchmark = c("a", "b"), model = "m", metric = "overall",
                   estimate = c(0.5, 0.25), lower = c(0.4, 0.1), upper = c(0.6, 0.4),
                   n = c(10L, 20L), interval = c("95% normal interval", "95% bootstrap interval"),
                   source = NA_character_),
    class = c("benchmark_leaderboard", "tbl_df", "tbl", "data.frame")
  )
  p <- ggplot2::autoplot(board)
  expect_match(p$labels$caption, "a: 95% normal interval\nb: 95% bootstrap interval")
  expect_match(gsub("\n", " ", p$labels$x), "each benchmark reports")
})

# A leaderboard of six models and five benchmarks, as bench/plots.R draws it.
six_by_five <- function() {
  models <- c("gpt-4.1-mini-2025-04-14", "claude-sonnet-4-20250514", "Qwen/Qwen2.5-72B-Instruct",
              "meta-llama/Llama-3.3-70B-Instruct", "gemini-2.5-flash", "deepseek-chat")
  benches <- c("dsbench", "futurex", "processbench", "deltabench", "probsem")
  grid <- expand.grid(model = models, benchmark = benches, stringsAsFactors = FALSE)
  est <- seq(0.05, 0.95, length.out = nrow(grid))
  rows <- tibble::tibble(benchmark = grid$benchmark, model = grid$model, metric = "overall",
                         estimate = est, lower = pmax(0, est - 0.1), upper = pmin(1, est + 0.1),
                         n = 10L, interval = "95% normal interval", source = NA_character_)
  rows$estimate[[1]] <- NA_real_
  structure(rows, class = c("benchmark_leaderboard", "tbl_df", "tbl", "data.frame"))
}

test_that("a leaderboard plot reads at six models x five benchmarks", {
  p <- ggplot2::autoplot(six_by_five())
  built <- ggplot2::ggplot_build(p)
  layout <- built$layout$layout
  # one panel per benchmark headline, in rows of at most three
  expect_equal(nrow(layout), 5)
  expect_lte(max(layout$COL), 3)
  # models on the one vertical axis, the same order in every panel, names not rotated
  expect_match(rlang::as_label(p$mapping$y), "model")
  expect_equal(levels(p$data$model), rev(sort(unique(as.character(p$data$model)))))
  expect_null(p$theme$axis.text.x$angle)
  # whiskers are horizontal intervals around each estimate
  geoms <- vapply(p$layers, function(l) class(l$geom)[[1]], "")
  bars <- built$data[[which(geoms == "GeomErrorbar")]]
  expect_true(all(bars$xmin <= bars$xmax, na.rm = TRUE))
  expect_equal(nrow(bars), 30)
  # every "n =" label stands in one column right of the 0-1 axis, one per row and panel:
  # no label can touch a whisker or another label
  texts <- built$data[which(geoms == "GeomText")]
  n_labels <- texts[[1]]
  expect_true(all(n_labels$x > 1))
  expect_true(all(bars$xmax <= 1, na.rm = TRUE))
  expect_false(anyDuplicated(paste(n_labels$PANEL, n_labels$y)) > 0)
  # a missing estimate says so
  expect_equal(texts[[2]]$label, "no estimate")
  path <- withr::local_tempfile(fileext = ".png")
  ggplot2::ggsave(path, p, width = 12, height = 7, dpi = 50)
  expect_gt(file.size(path), 0)
})

test_that("arena ratings: best model on top, battles in its label, whiskers horizontal", {
  battles <- data.frame(model_a = c("a", "a", "b", "b", "a", "c"),
                        model_b = c("b", "c", "c", "a", "b", "a"),
                        winner = c("model_a", "model_a", "model_a", "model_b", "tie", "model_a"))
  fit <- arena_ratings(battles, rating_options(bootstrap = 20))
  p <- ggplot2::autoplot(fit)
  expect_equal(levels(p$data$model)[[length(fit$model)]],
               paste0(fit$model[[1]], "\n(", fit$battles[[1]], " battles)"))
  expect_match(p$labels$title, "Bradley-Terry")
  expect_match(p$labels$subtitle, "bootstrap percentile interval")
  none <- ggplot2::autoplot(arena_ratings(battles, rating_options(bootstrap = 0)))
  expect_match(none$labels$subtitle, "no interval")
})

# Six models x six benchmarks: five 0-1 headlines (probsem's lower-is-better) and the arena's
# ratings on the Elo scale.
six_by_six <- function() {
  board <- six_by_five()
  board$better <- ifelse(board$benchmark == "probsem", "lower", "higher")
  board$scale <- "0-1"
  board$run <- "r1"
  board$created <- "2026-11-26T10:00:00+00:00"
  models <- unique(board$model)
  ratings <- tibble::tibble(benchmark = "arena_ratings", model = models, metric = "rating",
                            estimate = seq(1150, 850, length.out = 6), n = 40L,
                            interval = "95% bootstrap interval of the rating",
                            source = NA_character_, better = "higher", scale = "Elo",
                            run = "r2", created = "2026-11-26T11:00:00+00:00")
  ratings$lower <- ratings$estimate - 60
  ratings$upper <- ratings$estimate + 70
  out <- rbind(tibble::as_tibble(unclass(board)), ratings[names(unclass(board))])
  structure(out, class = c("benchmark_leaderboard", "tbl_df", "tbl", "data.frame"))
}

test_that("ratings get a panel and axis of their own; lower-is-better says so", {
  p <- ggplot2::autoplot(six_by_six())
  built <- ggplot2::ggplot_build(p)
  titles <- levels(p$data$panel)
  layout <- built$layout$layout
  expect_equal(nrow(layout), length(titles))
  expect_length(titles, 6)
  expect_true(any(grepl("probsem: overall\n(lower is better)", titles, fixed = TRUE)))
  elo_title <- grep("arena_ratings", titles, value = TRUE)
  expect_match(elo_title, "Elo scale")
  elo_panel <- layout$PANEL[match(elo_title, layout$panel)]
  # each panel's x range: 0-1 (and the "n =" column) for proportions, the ratings' span for
  # the arena: every rating and whisker is drawn inside its panel
  ranges <- lapply(built$layout$panel_params, function(pp) pp$x.range)
  elo_range <- ranges[[elo_panel]]
  expect_true(elo_range[[1]] <= 850 - 60 && elo_range[[2]] >= 1150 + 70)
  for (panel in setdiff(seq_along(ranges), elo_panel)) {
    expect_true(ranges[[panel]][[1]] <= 0 && ranges[[panel]][[2]] < 2)
  }
  geoms <- vapply(p$layers, function(l) class(l$geom)[[1]], "")
  bars <- built$data[[which(geoms == "GeomErrorbar")]]
  elo_bars <- bars[bars$PANEL == elo_panel, ]
  expect_equal(nrow(elo_bars), 6)
  expect_true(all(elo_bars$xmin >= elo_range[[1]] & elo_bars$xmax <= elo_range[[2]]))
  # "n =" labels stand right of every whisker of their panel
  labels <- built$data[[which(geoms == "GeomText")[[1]]]]
  for (panel in unique(labels$PANEL)) {
    right_of <- max(bars$xmax[bars$PANEL == panel], na.rm = TRUE)
    expect_true(all(labels$x[labels$PANEL == panel] > right_of))
  }
  # the lines at 0 and 1 are drawn in the 0-1 panels only
  lines <- built$data[[which(geoms == "GeomVline")]]
  expect_false(elo_panel %in% lines$PANEL)
  expect_match(p$labels$x, "Elo scale")
  # ggsave's default size (7 x 7 inches) renders
  path <- withr::local_tempfile(fileext = ".png")
  suppressMessages(ggplot2::ggsave(path, p, width = 7, height = 7, dpi = 72))
  expect_gt(file.size(path), 0)
})

test_that("re-runs of a model get rows of their own, numbered by when they ran", {
  board <- six_by_six()
  again <- board[board$benchmark == "futurex" & board$model == "deepseek-chat", ]
  again$run <- "r9"
  again$created <- "2026-11-27T10:00:00+00:00"
  again$estimate <- 0.5
  board <- structure(rbind(tibble::as_tibble(unclass(board)), again), class = class(board))
  p <- ggplot2::autoplot(board)
  futurex <- p$data[p$data$benchmark == "futurex", ]
  expect_setequal(as.character(futurex$model[grepl("deepseek", futurex$model)]),
                  c("deepseek-chat (run 1)", "deepseek-chat (run 2)"))
  expect_equal(futurex$estimate[futurex$model == "deepseek-chat (run 2)"], 0.5)
  # long names wrap at a "/" or "-"
  expect_true(any(grepl("meta-llama/\nLlama-3.3-70B-Instruct|meta-llama/Llama-\n",
                        levels(p$data$model))))
})

test_that("a run and its rescore are labelled by their judges", {
  board <- six_by_six()
  board$judge <- rep("judge-a", nrow(board))
  again <- board[board$benchmark == "futurex" & board$model == "deepseek-chat", ]
  again$run <- "r9"
  again$created <- "2026-11-27T10:00:00+00:00"
  again$judge <- "judge-b"
  again$estimate <- 0.5
  third <- again
  third$run <- "r10"
  third$created <- "2026-11-28T10:00:00+00:00"
  third$estimate <- 0.25
  board <- structure(rbind(tibble::as_tibble(unclass(board)), again, third),
                     class = class(board))
  p <- ggplot2::autoplot(board)
  futurex <- p$data[p$data$benchmark == "futurex", ]
  expect_setequal(as.character(futurex$model[grepl("deepseek", futurex$model)]),
                  c("deepseek-chat (judge: judge-a)", "deepseek-chat (judge: judge-b, run 1)",
                    "deepseek-chat (judge: judge-b, run 2)"))
  expect_equal(futurex$estimate[futurex$model == "deepseek-chat (judge: judge-b, run 2)"], 0.25)
  # a model with one run keeps its name alone
  expect_true("deepseek-chat" %in% as.character(p$data$model[p$data$benchmark != "futurex"]))
})

# How far each of a plot's title, subtitle, caption and x axis title runs past the room it
# has, in inches, drawn on a device `inches` wide (as ggsave() draws it): 0 or less when it
# fits. The room is the device's width less the columns of the plot's layout outside the
# text's own (for the axis title: the y axis, its labels and the "n =" column's margin).
text_overflow <- function(plot, inches) {
  grDevices::png(withr::local_tempfile(fileext = ".png"), width = inches, height = 7,
                 units = "in", res = 72)
  on.exit(grDevices::dev.off(), add = TRUE)
  g <- ggplot2::ggplotGrob(plot)
  inch <- function(u) grid::convertWidth(u, "in", valueOnly = TRUE)
  names <- intersect(c("title", "subtitle", "caption", "xlab-b"), g$layout$name)
  vapply(stats::setNames(names, names), function(name) {
    at <- which(g$layout$name == name)
    outside <- setdiff(seq_along(g$widths), g$layout$l[[at]]:g$layout$r[[at]])
    room <- inches - sum(vapply(outside, function(i) inch(g$widths[i]), 0))
    # the text itself: an axis title's own width is the panels' ("1null")
    texts <- Filter(function(x) inherits(x, "text"), g$grobs[[at]]$children)
    max(c(0, vapply(texts, function(x) inch(grid::grobWidth(x)), 0))) - room
  }, 0)
}

test_that("a summary plot's titles fit at ggsave's default size and in the vignettes", {
  # issue 36: DSBench's subtitle ran off the right edge at 7 x 7 inches
  rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("overall_present_levels", "a", "b", "b", "b"))
  intervals <- unique(unlist(lapply(registered_benchmarks()$name, function(name) {
    registration(name)$interval
  })))
  expect_true("95% normal (or Wilson) interval" %in% intervals)
  for (interval in c(intervals, strrep("a long interval name ", 6))) {
    p <- ggplot2::autoplot(benchmark_summary(rows, "dsbench", by = "competition",
                                             interval = interval))
    for (inches in c(7, 6)) {
      over <- text_overflow(p, inches)
      expect_true(all(over <= 0), label = sprintf("%s at %s in: %s", interval, inches,
                                                  paste(names(over), round(over, 2),
                                                        collapse = ", ")))
    }
  }
  # the leaderboard's caption lines, one per interval, too
  board <- six_by_five()
  board$interval <- rep(intervals, length.out = nrow(board))
  board$benchmark <- rep(paste0("benchmark_number_", 1:5), each = 6)
  over <- text_overflow(ggplot2::autoplot(board), 7)
  expect_true(all(over <= 0), label = paste(names(over), round(over, 2), collapse = ", "))
})

test_that("every benchmark's summary plot, the arena's logs' too, fits an R Markdown figure (7 x 5 in)", {
  rows <- grouped_summary(c(1, 0, 1, 1, 0), by = c("overall_present_levels", "a", "b", "b", "b"))
  battles <- data.frame(model_a = c("p", "p", "q", "q", "r"), model_b = c("q", "r", "r", "p", "p"),
                        winner = c("model_a", "tie", "model_b", "model_a", "model_a"))
  plots <- list(
    arena_battles = ggplot2::autoplot(arena_summary(battles, times = 20)),
    arena_ratings = ggplot2::autoplot(arena_rating_rows(battles))
  )
  # the registered ones (internal too), with each interval they register
  for (name in names(registrations())) {
    for (method in names(registration(name)$interval) %||% "default") {
      plots[[paste(name, method)]] <- ggplot2::autoplot(benchmark_summary(
        rows, name, method = if (method != "default") method
      ))
    }
  }
  for (what in names(plots)) {
    over <- text_overflow(plots[[what]], 7)
    expect_true(all(over <= 0), label = sprintf("%s: %s", what,
                                                paste(names(over), round(over, 2),
                                                      collapse = ", ")))
  }
})
