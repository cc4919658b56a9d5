# Miller 2024, section 4 (question-level paired differences); a paired bootstrap for
# headlines that are not means.

#' Is one model really better than another on this benchmark?
#'
#' @description
#' `compare_models()` pairs two runs of one benchmark item by item and estimates the
#' difference of the benchmark's headline metric, `x` minus `y`, with a standard error, an
#' interval and a p-value. Because both models answer the same items, the item-to-item
#' variation in difficulty cancels out of the paired differences, and the interval is
#' narrower than the one you would get by comparing the two summaries' intervals (reported
#' as `se_unpaired` for contrast).
#'
#' * Each run's samples are reduced to one score per item (`id`): the mean over its epochs,
#'   or with `reducer` the epoch reducer's value (pass@k, majority, ... see
#'   [reduce_epochs()]), as [leaderboard()] reduces them under the same `reducer`.
#' * Items pair by `id` where both runs asked the same question: an id whose `target`, or
#'   `input` (between two logs, or two tasks' samples: a log keeps the prompt as sent),
#'   differs between the runs (two versions of a table that reuse ids) is left out and
#'   counted in `n_changed`. Runs without `input` and `target` (data frames of `id` and
#'   `score`) pair by `id` alone. Items only one side answered (a missing id or a missing
#'   score) are left out and counted in `n_only_x`, `n_only_y`. A message says what was left
#'   out; the ids are in the attribute `"unpaired"` (`x`, `y` and `changed`).
#' * Headline metrics that are means (DSBench and probsem accuracy, your own scores): the
#'   mean of the paired differences `d`, with the standard error `sd(d) / sqrt(n)` or, with
#'   clusters, the clustered (CR1) standard error of `d` (`method = "paired"`). Scores lie
#'   in `[0, 1]`, so `d` lies in `[-1, 1]`: the interval is the score (Wilson) interval of
#'   `u = (d + 1) / 2` with the effective sample size its standard error implies, mapped
#'   back. It is close to `d +/- z * se` away from the ends and never passes them (a normal
#'   interval reached 1.29); differences all equal (the same answers on every item) get the
#'   interval of a share of items seen 0 times that might differ, not a point. The p-value
#'   is the two-sided test this interval inverts. In simulations of 5 to 40 items with
#'   accuracies from 0.02 to 0.98, its coverage averaged 95% (the normal interval's 83%).
#' * Headline metrics that are not means (FutureX's level-weighted overall, ProcessBench's
#'   F1, DeltaBench's macro F1 over solutions with an error, or any `statistic` you pass): a paired bootstrap that draws items (or whole clusters)
#'   with replacement, computes the metric for both models on the same draw, and takes the
#'   percentile interval of the differences; the standard error is the draws' standard
#'   deviation and the p-value twice the share of draws on the far side of 0
#'   (`method = "bootstrap"`). When every draw gives the same difference (each model all
#'   right or all wrong on every draw), the interval and p-value are `NA`, with a message:
#'   the draws can't say how far the difference might be.
#'
#' Arena ratings compare models inside one set of battles, not two runs: read their
#' bootstrap intervals in [arena_ratings()].
#'
#' **A folder of logs** (as [leaderboard()] takes one, such as an [eval_set()]'s `log_dir`):
#' `compare_models(<folder>)` compares every two models of each benchmark in it, on the
#' latest completed run of each (an evaluation set's failed attempts are left out, as on
#' the board), one row per pair with the models in `model_x` and `model_y`. A model with
#' runs of several judges (a run and its [rescore()]) is named with its judge (`"<model>
#' [judge <judge>]"`), each run compared as a model of its own. Logs that can't
#' be read or placed are skipped with a warning, as by [leaderboard()]; arena logs, whose
#' models are compared inside one run, are left out. A run whose log is in several files
#' (an [arena_run()] of many battles) is one run: any of its files, given as `x` or `y`,
#' reads all its samples.
#'
#' An `.eval` log Inspect AI wrote for a task of its own (named as on the board) is compared
#' on its first scorer's first metric (`"includes accuracy"`) if the other log has it and it
#' is a mean (`accuracy`, `mean`), else refused (`predictivebench_error_incomparable`, naming
#' the file and why); under an epoch reducer it is left out, with a message.
#'
#' @param x,y The two runs: evaluated tasks of the same benchmark, their `$get_samples()`
#'   tibbles, their log files, [futurex_score()] results (a predictions file scored without
#'   a model), or data frames with `id`, `score` (numbers, logicals or I/P/C) and optionally
#'   `cluster` (and the columns a `statistic` needs, such as `level` for FutureX or `label`
#'   for ProcessBench). Each side may be a different kind of run. Or `x` a folder of logs
#'   (or several folders and log files) and `y` missing: every pair of models in it.
#' @param benchmark The benchmark, which picks the headline metric. `NULL` takes it from a
#'   `<benchmark>_task()`, a [futurex_score()] result or a log file (two runs that name different
#'   benchmarks are an error); plain samples and data frames, which don't say, are compared
#'   on the mean score unless you name the benchmark.
#' @param options A [comparison_options()] object: the clusters, the statistic, the
#'   interval level, the method, the bootstrap and the epoch reducer. Benchmarks whose
#'   summary takes no reducer are an error under one (for a folder: left out, with a
#'   message).
#' @param ... Deprecated: the options by their names before 0.2.0 (`cluster`, `statistic`,
#'   `level`, `method`, `times`, `seed`, `reducer`, `k`), taken with a warning.
#' @returns A one-row tibble of class `model_comparison`: `benchmark`, `metric`, `x`, `y`
#'   (each model's metric on the paired items), `difference` (`x - y`), `se`, `lower`,
#'   `upper`, `p_value`, `se_unpaired`, `n` (paired items), `n_clusters`, `n_only_x`,
#'   `n_only_y`, `n_changed` and `method`. For a folder, one such row per pair of models of a benchmark,
#'   with `model_x` and `model_y` after `benchmark`, and `log_x` and `log_y` last.
#' @family results
#' @export
#' @examples
#' a <- data.frame(id = 1:8, score = c(1, 1, 1, 0, 1, 1, 0, 1))
#' b <- data.frame(id = 1:8, score = c(1, 0, 1, 0, 0, 1, 0, 1))
#' compare_models(a, b)
#' # items of one topic move together: cluster them
#' a$cluster <- b$cluster <- rep(1:4, each = 2)
#' compare_models(a, b)
#' # FutureX: the level-weighted overall score, by a paired bootstrap
#' fx <- futurex_dataset(version = "sample")
#' run <- function(p) data.frame(id = fx$id, level = fx$level,
#'                               score = as.double(seq_along(fx$id) %% p == 0))
#' compare_models(run(2), run(3), benchmark = "futurex",
#'                options = comparison_options(times = 200))
#' # predictions scored without a model against another run
#' preds <- fx
#' preds$answer <- "\\boxed{Yes}"
#' preds$has_answer <- TRUE
#' compare_models(futurex_score(preds), run(2), options = comparison_options(times = 200))
#' # three epochs an item, compared on pass@2 (as leaderboard(reducer = "pass_at_k", k = 2))
#' epochs <- function(p) data.frame(id = rep(1:8, each = 3), epoch = rep(1:3, 8),
#'                                  score = as.double(seq_len(24) %% p == 0))
#' compare_models(epochs(2), epochs(3),
#'                options = comparison_options(reducer = "pass_at_k", k = 2))
compare_models <- function(x, y = NULL, benchmark = NULL, options = comparison_options(),
                           ...) {
  check_options(options, "comparison_options")
  o <- options_with_dots(options, list(...), "compare_models", old_comparison_names)
  check_string(benchmark, allow_null = TRUE)
  if (is.null(y)) {
    if (!is_log_folders(x)) {
      abort_pb(c("Give two runs to compare, {.arg x} and {.arg y}.",
                 i = "Or a folder of logs as {.arg x} alone: every pair of its models."),
               "argument")
    }
    return(compare_folder(x, benchmark, o))
  }
  benchmark <- benchmark %||% runs_benchmark(task_benchmark(x), task_benchmark(y))
  spec <- o$reducer
  method <- o$method
  inspect <- if (is.null(o$statistic)) inspect_headline(list(x = x, y = y))
  if (!is.null(spec) && !is.null(benchmark) && is.null(inspect)) check_reducible(benchmark)
  head <- inspect %||% headline_statistic(benchmark, o$statistic)
  head$metric <- if (is.null(spec)) head$metric else paste(head$metric, spec$label)
  items_x <- comparison_items(x, o$cluster, benchmark, "x", spec = spec)
  items_y <- comparison_items(y, o$cluster, benchmark, "y", spec = spec)
  if (is.null(benchmark) && is.null(o$statistic)) hint_benchmark(items_x, items_y)
  pair <- pair_items(items_x, items_y)
  if (!nrow(pair$x)) abort_pb("The two runs have no item in common.", "argument")
  if (method == "auto") method <- if (head$is_mean) "paired" else "bootstrap"
  if (method == "paired" && !head$is_mean) {
    abort_pb("The headline {.val {head$metric}} is not a mean: use {.code method = \"bootstrap\"}.",
             "argument")
  }
  cl <- pair$x$cluster
  est <- if (method == "paired") {
    paired_difference(pair$x$score, pair$y$score, cl, o$level)
  } else {
    paired_bootstrap(pair$x, pair$y, head$fn, cl, o)
  }
  out <- tibble::tibble(
    benchmark = benchmark %||% NA_character_, metric = head$metric,
    x = head$fn(pair$x), y = head$fn(pair$y), difference = est$difference, se = est$se,
    lower = est$lower, upper = est$upper, p_value = est$p_value,
    se_unpaired = unpaired_se(pair, head, method, cl),
    n = nrow(pair$x), n_clusters = length(unique(cl)),
    n_only_x = length(pair$only_x), n_only_y = length(pair$only_y),
    n_changed = length(pair$changed),
    method = if (method == "paired") "paired differences" else "paired bootstrap"
  )
  attr(out, "unpaired") <- list(x = pair$only_x, y = pair$only_y, changed = pair$changed)
  class(out) <- c("model_comparison", class(out))
  out
}

#' @export
print.model_comparison <- function(x, ...) {
  shown <- c("metric", "difference", "lower", "upper", "p_value", "n", "method")
  lines <- if (all(shown %in% names(x))) seq_len(nrow(x)) else integer()
  pairs <- all(c("benchmark", "model_x", "model_y") %in% names(x))
  for (i in lines) {
    if (pairs) {
      cli::cat_line(cli::format_inline(
        "{x$benchmark[[i]]}: {.val {x$model_x[[i]]}} (x) vs {.val {x$model_y[[i]]}} (y)"
      ))
    }
    cli::cat_line(cli::format_inline(
      "{.strong {x$metric[[i]]}}: x - y = {signif(x$difference[[i]], 3)} ",
      "(interval {signif(x$lower[[i]], 3)} to ",
      "{signif(x$upper[[i]], 3)}, p = {format.pval(x$p_value[[i]], digits = 2)}; ",
      "{x$n[[i]]} paired item{?s}, {x$method[[i]]})"
    ))
  }
  print(structure(x, unpaired = NULL, class = setdiff(class(x), "model_comparison")), ...)
  invisible(x)
}

# A log Inspect wrote for a task of its own (is_inspect_task()) is compared on its first
# headline (its first scorer's first metric, not a spread; a sample's first score is that
# scorer's, as Inspect orders them), if the other log has it too and it is a mean of the
# samples' scores; NULL when neither run is such a log.
inspect_headline <- function(runs, call = rlang::caller_env()) {
  logs <- Filter(function(x) rlang::is_string(x) && file.exists(x) && !dir.exists(x), runs)
  keys <- Filter(Negate(is.null), lapply(logs, function(path) {
    meta <- read_log_header(path)$eval$metadata
    rows <- Filter(function(r) identical(r$better, "higher"), meta$headline)
    if (isTRUE(meta$inspect_task)) vapply(rows, function(r) r$key, "")
  }))
  if (!length(keys)) return(NULL)
  key <- keys[[1]][1]
  lacking <- names(keys)[!vapply(keys, function(k) key %in% k, TRUE)]
  why <- c("Its header's results give no metric of a scorer." = is.na(key),
           "It has no {.val {key}}, the metric of the other run's log." = length(lacking) > 0,
           "Its {.val {key}} is not a mean of the samples' scores: they can't be paired." =
             !sub("^.* ", "", key) %in% c("accuracy", "mean"))
  file <- logs[[c(lacking, names(keys))[[1]]]]
  if (any(why)) {
    abort_pb(c("Can't compare an Inspect task's log on its scorer's metric.",
               x = names(why)[why][[1]]), "incomparable", file = file, call = call)
  }
  list(fn = function(items) mean(items$score), metric = key, is_mean = TRUE)
}

# Plain samples are compared on the mean: name a benchmark whose columns they have.
hint_benchmark <- function(items_x, items_y) {
  common <- intersect(names(items_x), names(items_y))
  present <- Filter(function(b) !is.null(benchmark_comparison(b)$statistic) &&
                      length(benchmark_comparison(b)$columns) &&
                      all(benchmark_comparison(b)$columns %in% common), indexed_benchmarks())
  if (!length(present)) return(invisible(NULL))
  bench <- names(present)[[1]]
  cli::cli_inform(
    c("Comparing mean scores: neither run names its benchmark.",
      i = "If these are {bench} runs, pass {.code benchmark = \"{bench}\"} to compare its
           headline, which is not a plain mean."),
    class = "predictivebench_message_benchmark"
  )
}

runs_benchmark <- function(bx, by, call = rlang::caller_env()) {
  if (!is.null(bx) && !is.null(by) && !identical(bx, by)) {
    abort_pb("{.arg x} is a {.val {bx}} run and {.arg y} a {.val {by}} run: compare runs of one benchmark.",
             "argument", call = call)
  }
  bx %||% by
}

headline_statistic <- function(benchmark, statistic = NULL) {
  if (!is.null(statistic)) {
    return(list(fn = function(items) statistic(items), metric = "statistic", is_mean = FALSE))
  }
  b <- benchmark_named(benchmark)
  comparison <- benchmark_comparison(b)
  if (is.null(comparison$statistic)) {
    return(list(fn = function(items) mean(items$score), metric = "mean score", is_mean = TRUE))
  }
  needed <- comparison$columns
  list(fn = function(items) {
    check_item_columns(items, needed, b$name)
    comparison$statistic(items)
  }, metric = comparison$metric %||% benchmark_headline(b)[[1]] %||% "statistic",
  is_mean = FALSE)
}

check_item_columns <- function(items, columns, benchmark) {
  missing <- setdiff(columns, names(items))
  if (length(missing)) {
    abort_pb("{benchmark}'s headline needs a {.field {missing[[1]]}} column in both runs.",
             "argument", field = missing[[1]], call = rlang::caller_env(3))
  }
}

paired_difference <- function(x, y, cluster, level) {
  d <- x - y
  shared <- anyDuplicated(cluster) > 0
  se <- if (shared) clustered_se(d, cluster) else clustered_se(d)
  bounded_test(mean(d), se, length(unique(cluster)), level)
}

# A difference in [-1, 1] read as a proportion u = (estimate + 1) / 2 whose effective
# sample size is u (1 - u) / se_u^2 (Korn and Graubard's, for a clustered proportion): the
# Wilson interval never passes the ends, where the normal one reached 1.29. The p-value
# inverts the interval, so p < 1 - level exactly when it leaves out 0.
bounded_test <- function(estimate, se, n, level) {
  z <- stats::qnorm(1 - (1 - level) / 2)
  out <- list(difference = estimate, se = se, lower = NA_real_, upper = NA_real_,
              p_value = NA_real_)
  if (is.na(se)) return(out)
  u <- (estimate + 1) / 2
  if (se == 0) {
    bounds <- constant_bounds(u, c(0, 1), n, z)
    # the z at which the bound reaches u = 1/2: w = z^2 / (n + z^2) is the share that
    # moves it there
    w <- if (u >= 0.5) 1 - 0.5 / u else (0.5 - u) / (1 - u)
    z0 <- if (w >= 1) Inf else sqrt(n * w / (1 - w))
  } else {
    m <- u * (1 - u) / (se / 2)^2
    centre <- (u + z^2 / (2 * m)) / (1 + z^2 / m)
    half <- z / (1 + z^2 / m) * sqrt(u * (1 - u) / m + z^2 / (4 * m^2))
    bounds <- c(centre - half, centre + half)
    z0 <- abs(u - 0.5) / (0.5 / sqrt(m))
  }
  bounds <- clip_to_limits(2 * bounds - 1, c(-1, 1))
  out$lower <- bounds[[1]]
  out$upper <- bounds[[2]]
  out$p_value <- 2 * stats::pnorm(-z0)
  out
}

# Both models get the same draw; a drawn copy keeps its own rows (a statistic sees each).
paired_bootstrap <- function(x, y, fn, cluster, options) {
  members <- split(seq_len(nrow(x)), in_order(cluster))
  g <- length(members)
  estimate <- fn(x) - fn(y)
  draws <- with_seed(options$seed, vapply(seq_len(options$times), function(b) {
    rows <- unlist(members[sample.int(g, g, TRUE)], use.names = FALSE)
    fn(x[rows, ]) - fn(y[rows, ])
  }, 1))
  alpha <- (1 - options$level) / 2
  bounds <- unname(stats::quantile(draws, c(alpha, 1 - alpha), na.rm = TRUE))
  p <- min(1, 2 * min(mean(draws <= 0, na.rm = TRUE), mean(draws >= 0, na.rm = TRUE)))
  spread <- stats::sd(draws, na.rm = TRUE)
  if (isTRUE(spread == 0)) {
    # a point would claim a certainty the items can't give
    cli::cli_inform(
      c("The paired bootstrap can't vary: every draw gives the difference {signif(estimate, 3)}.",
        i = "Its interval and p-value are {.code NA}; compare the two runs' own intervals."),
      class = "predictivebench_message_no_spread"
    )
    bounds <- c(NA_real_, NA_real_)
    p <- NA_real_
  }
  list(difference = estimate, se = spread, lower = bounds[[1]], upper = bounds[[2]],
       p_value = p)
}

# As if the runs were independent samples, for contrast.
unpaired_se <- function(pair, head, method, cluster) {
  if (method != "paired") return(NA_real_)
  clustered <- if (anyDuplicated(cluster)) cluster
  sqrt(clustered_se(pair$x$score, clustered)^2 + clustered_se(pair$y$score, clustered)^2)
}

is_log_folders <- function(x) {
  is.character(x) && length(x) > 0 && !anyNA(x) && any(dir.exists(x)) &&
    all(dir.exists(x) | file.exists(x))
}

compare_folder <- function(paths, benchmark, options) {
  runs <- folder_runs(paths)
  if (!is.null(benchmark)) runs <- runs[runs$benchmark == benchmark, ]
  runs <- reducible_runs(runs, options$reducer)
  rows <- list()
  for (bench in sort(unique(runs$benchmark))) {
    of <- runs[runs$benchmark == bench, ]
    if (nrow(of) < 2) next
    pairs <- utils::combn(nrow(of), 2)
    for (k in seq_len(ncol(pairs))) {
      a <- of[pairs[1, k], ]
      b <- of[pairs[2, k], ]
      row <- compare_models(a$source, b$source, benchmark = bench, options = options)
      row <- tibble::add_column(tibble::as_tibble(unclass(row)), model_x = a$model,
                                model_y = b$model, .after = "benchmark")
      row$log_x <- a$source
      row$log_y <- b$source
      rows <- c(rows, list(row))
    }
  }
  if (!length(rows)) {
    abort_pb(c("The folder has no benchmark with runs of two models to compare.",
               i = "Found {nrow(runs)} run{?s}: {.val {unique(paste(runs$benchmark, runs$model))}}."),
             "argument")
  }
  out <- do.call(rbind, rows)
  class(out) <- c("model_comparison", class(out))
  out
}

# As the board skips their logs.
reducible_runs <- function(runs, reducer) {
  if (is.null(reducer) || !nrow(runs)) return(runs)
  ok <- vapply(runs$benchmark, function(bench) {
    # a task of Inspect's own has no summary to reduce under
    summary <- if (!is.null(benchmark_named(bench))) benchmark_summary_fn(require_benchmark(bench))
    is.function(summary) && "reducer" %in% names(formals(summary))
  }, TRUE)
  if (any(!ok)) {
    left <- unique(runs$benchmark[!ok])
    cli::cli_inform(c("Left out under {.arg reducer}: {.val {left}} (no epoch reducer applies).",
                      i = "See {.fn reduce_epochs} for why."),
                    class = "predictivebench_message_reducer")
  }
  runs[ok, ]
}

# Arena logs are left out: their models are compared inside one run.
folder_runs <- function(paths) {
  skipped <- character()
  rows <- lapply(log_files(paths, attempts = FALSE), function(path) {
    tryCatch({
      header <- read_log_header(path)
      bench <- log_benchmark(header)
      if (!rlang::is_string(bench)) {
        abort_pb("The log names no benchmark (not written by predictivebench).", "argument",
                 file = path)
      }
      if (!identical(log_kind(header), "samples")) return(NULL)
      tibble::tibble(benchmark = bench, model = as.character(header$eval$model %||% NA),
                     judge = log_judge(header),
                     created = as.character(header$eval$created %||% NA),
                     source = log_part_paths(path, header)[[1]])
    }, predictivebench_error = function(e) {
      skipped[[path]] <<- conditionMessage(e)
      NULL
    })
  })
  warn_skipped_logs(skipped)
  runs <- do.call(rbind, c(list(tibble::tibble(benchmark = character(), model = character(),
                                               judge = character(), created = character(),
                                               source = character())),
                           rows))
  # a run's log in several files is one run, named by its first file
  runs <- runs[!duplicated(runs$source), ]
  runs <- runs[order(runs$created, decreasing = TRUE, method = "radix"), ]
  runs <- runs[!duplicated(paste(runs$benchmark, runs$model, runs$judge, sep = "\r")), ]
  # a run and its rescore() are two models
  judged <- paste(runs$benchmark, runs$model, sep = "\r")
  several <- judged %in% judged[duplicated(judged)]
  runs$model[several] <- paste0(runs$model[several], " [judge ", runs$judge[several], "]")
  runs$judge <- NULL
  runs[order(runs$benchmark, runs$model, method = "radix"), ]
}
