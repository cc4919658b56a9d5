# A run's items, and two runs' items paired: read by compare_models() and power_analysis().

# NULL for plain samples, which don't say.
task_benchmark <- function(x) {
  if (inherits(x, "ResultsTask")) return(x$benchmark)
  if (is_scores_object(x)) return(x$benchmark %||% attr(x, "benchmark"))
  if (rlang::is_string(x) && file.exists(x) && !dir.exists(x)) {
    benchmark <- tryCatch(log_benchmark(read_log_header(x)), error = function(e) NULL)
    if (rlang::is_string(benchmark)) return(benchmark)
  }
  NULL
}

comparison_items <- function(x, cluster, benchmark, arg, spec = NULL,
                             call = rlang::caller_env()) {
  if (inherits(x, "Task")) x <- x$get_samples()
  if (is_scores_object(x)) x <- x$items
  if (rlang::is_string(x)) x <- log_run_samples(x)
  if (!is.data.frame(x) || !all(c("id", "score") %in% names(x))) {
    abort_pb("{.arg {arg}} must be an evaluated task, its samples or log file, or a data
              frame with {.field id} and {.field score}.", "argument", call = call)
  }
  score <- as_score(x$score)
  id <- as.character(x$id)
  if (identical(cluster, "default") && "cluster" %in% names(x)) cluster <- "cluster"
  labels <- resolve_cluster(x, cluster, default = benchmark_cluster(benchmark, x))
  labels <- if (is.null(labels)) id else as.character(labels)
  keep <- !is.na(score)
  first <- !duplicated(id[keep])
  rows <- which(keep)[first]
  items <- tibble::tibble(id = id[rows], cluster = labels[rows],
                          asked_input = item_text(x, "input", rows),
                          asked_target = item_text(x, "target", rows))
  # a log keeps the prompt as sent (probsem's holds its context too), a task's samples
  # the table's input: inputs are compared only between runs read alike
  attr(items, "read_from") <- if (is.null(attr(x, "log"))) "samples" else "log"
  if (is.null(spec)) {
    means <- tapply(score[keep], id[keep], mean)
    items$score <- as.double(means[items$id])
  } else {
    items$score <- reduce_scores(score[keep], id[keep], spec)
  }
  for (column in intersect(statistic_columns(), names(x))) items[[column]] <- x[[column]][rows]
  items[!is.na(items$score), ]
}

# futurex_score()'s: a predictions file scored without a model.
is_scores_object <- function(x) {
  is.list(x) && !is.data.frame(x) && is.data.frame(x$items) &&
    rlang::is_string(x$benchmark %||% attr(x, "benchmark"))
}

item_text <- function(x, column, rows) {
  if (!column %in% names(x)) return(rep(NA_character_, length(rows)))
  values <- x[[column]][rows]
  if (is.list(values)) {
    values <- vapply(values, function(v) paste(format(unlist(v)), collapse = "\r"), "")
  }
  as.character(values)
}

pair_items <- function(items_x, items_y) {
  common <- intersect(items_x$id, items_y$id)
  differs <- function(column) {
    a <- items_x[[column]][match(common, items_x$id)]
    b <- items_y[[column]][match(common, items_y$id)]
    !is.na(a) & !is.na(b) & a != b
  }
  # two versions of a table can reuse an id for another question: those items don't pair
  changed <- differs("asked_target")
  if (identical(attr(items_x, "read_from"), attr(items_y, "read_from"))) {
    changed <- changed | differs("asked_input")
  }
  changed <- common[changed]
  common <- setdiff(common, changed)
  only_x <- setdiff(items_x$id, c(common, changed))
  only_y <- setdiff(items_y$id, c(common, changed))
  if (length(only_x) || length(only_y) || length(changed)) {
    cli::cli_inform(
      c("Items that don't pair are left out:",
        "*" = if (length(only_x) || length(only_y))
          "{length(only_x)} only in {.arg x}, {length(only_y)} only in {.arg y}.",
        "*" = if (length(changed))
          "{length(changed)} of {length(common) + length(changed)} shared id{?s} ask{?s/}
           another question in each run (input or target differ: two versions of the
           table?), such as {.val {changed[[1]]}}."),
      class = "predictivebench_message_unpaired"
    )
  }
  list(x = items_x[match(common, items_x$id), ], y = items_y[match(common, items_y$id), ],
       only_x = only_x, only_y = only_y, changed = changed)
}
