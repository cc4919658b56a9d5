# probsem summary: Jensen-Shannon distance to people, accuracy per suite, query distributions.

# Logs and leaderboards show every row (the suites depend on the data): on a version with
# human judgements the paper's mean Jensen-Shannon distance first, lower being better.
#' probsem results: distance to people, accuracy per suite, and the distributions
#'
#' @description
#' On a version with the paper's human judgements (the default `"cogsci2023"`, whose
#' contexts carry them in `human_judgements`), `probsem_summary()` leads with the CogSci 2023
#' paper's metric: the Jensen-Shannon distance between the model's distribution over a
#' sentence's programs and people's judgements (see [probsem_compare_humans()], whose
#' `js_distance` it is; lower is better, 0 to `sqrt(log(2))`). Its rows, with `metric`
#' `"js_distance"`: `"overall"` (the mean over every sentence, the headline), one per suite
#' (the mean over its sentences), then one per sentence (`"<suite>: <sentence>"`, with `n`
#' 1, no interval, and the fitted `temperature`). The intervals are normal intervals over
#' sentences. Only suites whose every context has judgements and was scored get these
#' rows; p-values are left to [probsem_compare_humans()] (10,000 permutations each).
#'
#' Then, and alone elsewhere, `probsem_summary()` gives the original's test-suite accuracy
#' for each suite: the share of
#' contexts whose expected query's probability equals the maximum. Ties count as correct, as
#' in the original's suite accuracy (`print_summary()` compares with `scores.max(axis=1)`;
#' only its per-context "PASSED" line uses `np.argmax`, the first maximum). So a model that
#' gives every query the same probability (a uniform guesser, or a backend that cannot tell
#' the queries apart) scores 100%: each suite's row counts the contexts that were correct
#' only through a tie in `n_tied`, and the summary says so when there are any. A result in
#' which every query of every context ties is flagged in the column `all_tied`, with a
#' message: no model gives that, a server's broken log-probabilities do.
#' A context whose `expected` is -1 has no ground truth: it is left out of its suite's
#' accuracy and counted in `n_no_truth` (with a message), so `n` counts the contexts with a
#' ground truth that were scored, and a suite with none has no accuracy (`NA`). The original
#' printed no accuracy for a suite with any such context (see "Differences from the
#' original" in [probsem_task()]). Contexts whose scoring failed are left out and counted in
#' `n_missing`. `probsem_distributions()` gives every context's distribution over its
#' queries, the numbers the accuracy is computed from.
#'
#' @param x An evaluated [probsem_task()], its `$get_samples()` tibble, or its log file
#'   (`tsk$log_path`).
#' @param method Interval method for the accuracy, `"normal"` or `"bootstrap"` (as in
#'   [grouped_summary()]).
#' @param cluster Clusters of contexts for each suite's interval:
#'   a column of the samples, one label per context (after epochs are dropped), `NULL`, or
#'   `"default"` (`"id"`). The contexts of a suite share its scenario, so across suites one
#'   suite is one cluster; but each row here is a single suite, which is one cluster and
#'   can't be clustered by suite (its standard error would be undefined). A row can only
#'   cluster contexts within its suite: by default each context (`id`) is its own cluster,
#'   since scores are deterministic and repeated epochs are counted once, which gives the
#'   naive interval; give a column or vector that groups contexts sharing something within
#'   a suite (the same text, say) to cluster them. Clusters are used only when some cluster
#'   holds several contexts. To compare two models over all suites with one suite as one
#'   cluster, use `compare_models(x, y, options = comparison_options(cluster = "suite"))`.
#' @returns `probsem_summary()`: the `js_distance` rows above (when there are human
#'   judgements), then one accuracy row per prompt and suite, in the columns every
#'   predictivebench summary has: `group` (the suite; `"<prompt>_<suite>"` when suites of
#'   different prompts share a name), `metric` (`"accuracy"` or `"js_distance"`), `estimate`,
#'   `lower`, `upper`, `n` (contexts with a ground truth scored, or sentences compared), then `n_missing`
#'   (failed), `n_no_truth` (contexts with `expected == -1`), `n_tied` (contexts counted
#'   correct whose maximum probability is shared with another query), `prompt`,
#'   `temperature` (of a sentence row) and `all_tied` (the same in every row: `TRUE` when
#'   every query of every scored context has the same probability, which a model does not
#'   give, with a message saying so). Its class `benchmark_summary` gives it
#'   a plot (`ggplot2::autoplot()` draws it by suite), and every row is a metric of a probsem log,
#'   those with a number first (the overall distance, when there is one, is the viewer's
#'   headline).
#'
#'   `probsem_distributions()`: a tibble with one row per context and query, `id`,
#'   `prompt`, `suite`, `context_index`, `text`, `query_index` (0-based), `query`,
#'   `expected`, `logp` (after normalization and temperature), `prob`, `is_max`.
#' @family probsem
#' @export
#' @examples
#' # Samples shaped like an evaluated task's, with made-up scores in place of a model's
#' # (the first query of each context is the likeliest):
#' samples <- probsem_dataset(version = "sample")
#' samples$solver_metadata <- lapply(samples$queries, function(q) {
#'   logp <- -seq_along(q)
#'   list(queries = q, logp = logp, prob = exp(logp) / sum(exp(logp)), model = "example-model")
#' })
#' s <- probsem_summary(samples)
#' s
#' probsem_distributions(samples)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
probsem_summary <- function(x, method = c("normal", "bootstrap"), cluster = "default") {
  method <- rlang::arg_match(method)
  samples <- probsem_samples(x)
  accuracy <- probsem_accuracy(samples, method, cluster)
  humans <- probsem_human_rows(samples, method, cluster)
  # a suite compared with people needs no ground truth to have a number
  apart <- accuracy$n_no_truth > 0 & !accuracy$group %in% humans$group
  if (any(apart)) {
    counts <- sprintf("%s: %d of %d", accuracy$group[apart], accuracy$n_no_truth[apart],
                      accuracy$n_no_truth[apart] + accuracy$n[apart] + accuracy$n_missing[apart])
    summary_note(
      c("Contexts without ground truth (expected = -1) are left out of their suite's
         accuracy and counted in {.field n_no_truth}:", "*" = "{counts}"),
      class = "predictivebench_message_no_truth"
    )
  }
  tied <- accuracy$n_tied > 0 & !is.na(accuracy$estimate)
  if (any(tied)) {
    note <- sprintf("%s: %d of %d", accuracy$group[tied], accuracy$n_tied[tied], accuracy$n[tied])
    summary_note(
      c("Some contexts count as correct only through a tie: the expected query shares the
         maximum probability with another query.",
        "*" = "{note}",
        i = "Ties count as correct, as in the original's suite accuracy, so a model that
             gives every query the same probability scores 100%."),
      class = "predictivebench_message_ties"
    )
  }
  failed <- sum(accuracy$n_missing)
  if (failed) {
    summary_note("{failed} context{?s} could not be scored and {?is/are} left out.",
                    class = "predictivebench_message_skipped")
  }
  all_tied <- probsem_all_tied(samples)
  if (all_tied) {
    summary_note(
      c("Every query of every context has the same probability: the scores can't tell the queries apart.",
        i = "This is what log-probabilities that are not a model's give (a server echoing 0.0 for every token, say); the accuracy is that of a tie, not of the model.",
        i = "Every row of this summary has {.code all_tied = TRUE}."),
      class = "predictivebench_message_all_tied"
    )
  }
  if (is.null(humans)) return(accuracy)
  accuracy$temperature <- NA_real_
  humans$all_tied <- rep(all_tied, nrow(humans))
  benchmark_summary(rbind(humans, accuracy), "probsem", method = method,
                    title = summary_title("probsem", "distance to human judgements and accuracy",
                                          "suite"))
}

# Whether the whole result is one tie: every scored context gives all its queries one probability.
probsem_all_tied <- function(samples) {
  tied <- vapply(samples$solver_metadata, function(m) {
    prob <- as.double(m$prob)
    if (length(prob) < 2 || anyNA(prob)) return(NA)
    max(prob) - min(prob) <= 1e-12
  }, NA)
  any(!is.na(tied)) && all(tied, na.rm = TRUE)
}

probsem_human_rows <- function(samples, method = "normal", cluster = "default") {
  fits <- probsem_human_fits(samples)
  if (is.null(fits)) return(NULL)
  labels <- probsem_suite_labels(samples)
  at <- match(fits$id, as.character(samples$id))
  fits$group <- labels$label[match(fits$label, labels$key)]
  fits$prompt <- samples$prompt[at]
  cl <- resolve_cluster(samples, cluster, benchmark_cluster("probsem", samples))
  cl <- if (!is.null(cl)) cl[at]
  mean_row <- function(group, rows) {
    ci <- mean_ci(fits$js_distance[rows], method = method,
                  cluster = shared_cluster(cl[rows]))
    summary_rows(group, "js_distance", ci, n_missing = 0L, n_no_truth = NA_integer_,
                 n_tied = NA_integer_, prompt = unique(fits$prompt[rows])[1],
                 temperature = NA_real_)
  }
  all_rows <- seq_len(nrow(fits))
  overall <- mean_row("overall", all_rows)
  overall$prompt <- NA_character_
  suites <- lapply(unique(fits$group), function(g) mean_row(g, which(fits$group == g)))
  sentences <- summary_rows(
    paste0(fits$group, ": ", sub("^;;\\s*", "", fits$text)), "js_distance",
    list(mean = fits$js_distance, lower = NA_real_, upper = NA_real_, n = 1L),
    n_missing = 0L, n_no_truth = NA_integer_, n_tied = NA_integer_, prompt = fits$prompt,
    temperature = fits$temperature
  )
  do.call(rbind, c(list(overall), suites, list(sentences)))
}

# A suite's label: the suite, or "<prompt>_<suite>" when prompts share its name (as the original).
probsem_suite_labels <- function(samples) {
  groups <- unique(samples[c("prompt", "suite")])
  key <- paste0(groups$prompt, "_", groups$suite)
  label <- if (anyDuplicated(groups$suite)) key else groups$suite
  tibble::tibble(prompt = groups$prompt, suite = groups$suite, key = key, label = label)
}

probsem_accuracy <- function(x, method = "normal", cluster = "default") {
  samples <- probsem_samples(x)
  cl <- resolve_cluster(samples, cluster, benchmark_cluster("probsem", samples))
  judged <- lapply(seq_len(nrow(samples)), function(i) {
    probsem_judge(samples$solver_metadata[[i]], samples$expected[[i]])
  })
  correct <- vapply(judged, `[[`, NA, "correct")
  tied <- correct %in% TRUE & vapply(judged, `[[`, NA, "tied")
  groups <- probsem_suite_labels(samples)
  labels <- groups$label
  all_tied <- probsem_all_tied(samples)
  rows <- lapply(seq_len(nrow(groups)), function(g) {
    in_group <- samples$prompt == groups$prompt[[g]] & samples$suite == groups$suite[[g]]
    no_truth <- sum(samples$expected[in_group] == -1)
    scored <- in_group & samples$expected != -1
    # contexts without ground truth are counted apart (n_no_truth), not in the accuracy
    ci <- mean_ci(as.double(correct[scored]), method = method, limits = c(0, 1),
                  cluster = shared_cluster(cl[scored]))
    summary_rows(labels[[g]], "accuracy", ci, n_missing = ci$n_missing,
                 n_no_truth = no_truth, n_tied = sum(tied[scored]),
                 prompt = groups$prompt[[g]], all_tied = all_tied)
  })
  benchmark_summary(do.call(rbind, rows), "probsem", method = method,
                    title = summary_title("probsem", "accuracy", "suite"))
}

probsem_samples <- function(x, call = rlang::caller_env()) {
  needed <- c("prompt", "suite", "context_index", "text", "expected", "solver_metadata")
  x <- benchmark_samples(x, needed, "an evaluated probsem task or its samples.", call = call)
  # Scores are cached and deterministic, so further epochs repeat the first one.
  if ("id" %in% names(x)) x <- x[!duplicated(x$id), ]
  x
}

#' @rdname probsem_summary
#' @export
probsem_distributions <- function(x) {
  samples <- probsem_samples(x)
  rows <- lapply(seq_len(nrow(samples)), function(i) {
    m <- samples$solver_metadata[[i]]
    k <- length(m$queries)
    tibble::tibble(
      id = rep(as.character(samples$id[[i]]), k),
      prompt = samples$prompt[[i]], suite = samples$suite[[i]],
      context_index = samples$context_index[[i]], text = samples$text[[i]],
      query_index = seq_len(k) - 1L, query = m$queries, expected = samples$expected[[i]],
      logp = as.double(m$logp), prob = as.double(m$prob),
      is_max = if (anyNA(m$prob)) rep(NA, k) else m$prob == max(m$prob)
    )
  })
  do.call(rbind, rows)
}
