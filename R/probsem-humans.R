# probsem's own metric: the CogSci 2023 paper's comparison of the model's distribution over
# programs with human judgements (the original's paper/norms.py).

#' Compare probsem distributions with human judgements
#'
#' @description
#' The CogSci 2023 probsem suites have no right answer (`expected` is -1 everywhere): the
#' paper asks how close the model's distribution over programs comes to people's. For each
#' sentence ("Jack is strong."), people chose a strength threshold 0, 10, ..., 100; the
#' programs (`(condition (> (strength 'jack) 50))`) say the same with one threshold each.
#' `probsem_compare_humans()` follows the paper's procedure (`paper/norms.py` at commit
#' 5d0c92c):
#'
#' * the human distribution of a sentence is the share of subjects who chose each threshold;
#' * the model distribution is `softmax(weights / T)` over the sentence's programs, ordered
#'   by their threshold (the last number in the program);
#' * `T` is fitted for each sentence on all the **other** sentences of its suite, minimizing
#'   the sum of their Jensen-Shannon distances with Nelder-Mead from `T = 1`, with the steps
#'   and stopping rule of `scipy.optimize.fmin()`;
#' * `js_distance` is the Jensen-Shannon distance (`scipy.spatial.distance.jensenshannon`,
#'   natural log: the square root of the divergence, from 0 to `sqrt(log(2))`) between the
#'   two distributions;
#' * `pval` is the share of `permutations` random shuffles (of both distributions,
#'   independently) whose distance is at most the observed one: a small p-value says the
#'   model's distribution is closer to people's than a shuffled one would be.
#'
#' The distances equal the paper's published `_stats.csv` files. The p-values come from R's
#' random numbers, not numpy's, so they match the published ones only up to Monte-Carlo
#' error (about `sqrt(p * (1 - p) / permutations)`); with the same `seed` they are the same
#' in every run. The paper then corrects the p-values of a suite for multiple comparisons
#' (Benjamini-Hochberg): `stats::p.adjust(pval, "BH")`.
#'
#' @param x An evaluated [probsem_task()], its `$get_samples()` tibble or log file, or a data
#'   frame in the paper's results layout: `text` (the sentence as the suite writes it,
#'   `";; Jack is strong."`), `program` and `weights` (the program's log-probability), one
#'   row per sentence and program (an optional `suite` column keeps suites apart). From a
#'   task, the weights are each query's `logp` (after the length normalization and
#'   temperature chosen for the task, as the original's weights were). A weight of `-Inf`
#'   gives its program probability 0.
#' @param humans `NULL` (the default) for the judgements that `x` carries (a task on a
#'   version with the paper's human results, such as the default `"cogsci2023"`, carries
#'   them in its column `human_judgements`), or the human results: a CSV file (the paper's
#'   `<prompt>_<experiment>_human_results.csv`) or a data frame, one row per subject (an
#'   optional `subject_id` column) and one column per sentence, named as the paper names them (`"jack is strong"`, matched to the
#'   sentence `";; Jack is strong."`); each cell a threshold or missing (a sentence with
#'   no judgement at all counts as absent).
#' @param permutations Random shuffles for each p-value (10,000, as in the paper).
#' @param seed Seed for the shuffles (the global random stream is left as it was); `NULL`
#'   uses the global stream.
#' @returns A tibble with one row per sentence, in the order of `x`: `suite` (when `x` has
#'   suites), `text`, `js_distance`, `pval` and `temperature`. A suite none of whose
#'   sentences is in `humans` is left out, with a message; a suite with only some is an
#'   error naming the missing sentences.
#' @family probsem
#' @export
#' @examples
#' # Two made-up sentences, three programs each, and five people's judgements.
#' programs <- sprintf("(condition (> (height 'ann) %d))", c(0, 50, 100))
#' model <- data.frame(
#'   text = rep(c(";; Ann is tall.", ";; Ann is short."), each = 3),
#'   program = rep(programs, 2),
#'   weights = c(-3, -1, -2, -1, -2, -4)
#' )
#' humans <- data.frame(
#'   subject_id = 1:5,
#'   "ann is tall" = c(50, 50, 100, 50, 0),
#'   "ann is short" = c(0, 0, 50, 0, 0),
#'   check.names = FALSE
#' )
#' probsem_compare_humans(model, humans, permutations = 1000)
probsem_compare_humans <- function(x, humans = NULL, permutations = 10000, seed = 0) {
  check_count(permutations)
  check_number(seed, allow_null = TRUE)
  model <- probsem_model_weights(x)
  judgements <- if (is.null(humans)) {
    probsem_sample_humans(probsem_samples(x))
  } else {
    probsem_read_humans(humans)
  }
  out <- probsem_compare(model, judgements, permutations, seed)
  if (is.null(out)) {
    abort_pb("None of the sentences of {.arg x} is in {.arg humans}.", "argument",
             field = "text")
  }
  out <- out[c("suite", "text", "js_distance", "pval", "temperature")]
  if (!"suite" %in% names(x) && !probsem_is_task_like(x)) out$suite <- NULL
  out
}

# The paper's comparison per suite (probsem_compare_humans()); NULL without judgements.
probsem_compare <- function(model, judgements, permutations = 10000, seed = 0) {
  groups <- split(model, factor(model$suite, levels = unique(model$suite)))
  rows <- with_seed(seed, lapply(unname(groups), probsem_compare_suite,
                                 judgements = judgements, permutations = permutations))
  do.call(rbind, rows)
}

probsem_sample_humans <- function(samples, call = rlang::caller_env()) {
  if (!"human_judgements" %in% names(samples)) {
    abort_pb(c("{.arg x} carries no human judgements: give {.arg humans}.",
               i = "Tasks on a version with the paper's human results (the default
                    {.val cogsci2023}) carry them."), "argument", call = call)
  }
  values <- lapply(samples$human_judgements, function(v) as.double(unlist(v)))
  n <- lengths(values)
  out <- tibble::tibble(text = rep(as.character(samples$text), n), value = unlist(values),
                        column = "human_judgements", row = rep(seq_along(values), n))
  out$value <- as.double(out$value)
  attr(out, "file") <- "<samples>"
  out
}

probsem_is_task_like <- function(x) {
  inherits(x, "Task") || rlang::is_string(x) ||
    (is.data.frame(x) && "solver_metadata" %in% names(x))
}

probsem_model_weights <- function(x, call = rlang::caller_env()) {
  if (probsem_is_task_like(x)) {
    dist <- probsem_distributions(probsem_samples(x, call = call))
    x <- tibble::tibble(suite = dist$suite, text = dist$text, program = dist$query,
                        weights = dist$logp)
  } else if (!is.data.frame(x) || !all(c("text", "program", "weights") %in% names(x))) {
    abort_pb(c("{.arg x} must be an evaluated probsem task, its samples, or a data frame.",
               i = "A data frame needs the columns {.field text}, {.field program} and
                    {.field weights}, as the paper's results files have."),
             "argument", call = call)
  }
  suite <- if ("suite" %in% names(x)) as.character(x$suite) else rep("", nrow(x))
  # -Inf is a program the model gives no probability (a baseline, or the chat backend when
  # the program's first token is not among the alternatives): probability 0, as in softmax.
  weights <- suppressWarnings(as.double(x$weights))
  bad <- which(is.na(weights) | weights == Inf)
  if (length(bad)) {
    abort_pb("Weight {.val {x$weights[[bad[[1]]]]}} is not a number below infinity.",
             "field", row = bad[[1]], field = "weights", call = call)
  }
  model <- tibble::tibble(suite = suite, text = as.character(x$text),
                          program = as.character(x$program), weights = weights)
  model$threshold <- probsem_threshold(model$program, call = call)
  model
}

# A program's threshold: its last number ("(condition (> (strength 'jack) 50))" gives 50).
# The paper read characters 32 to 34 of the program, the same number for its programs.
probsem_threshold <- function(program, call = rlang::caller_env()) {
  numbers <- regmatches(program, gregexpr("-?[0-9]+(\\.[0-9]+)?", program))
  threshold <- vapply(numbers, function(n) if (length(n)) as.double(n[[length(n)]]) else NA,
                      double(1))
  if (anyNA(threshold)) {
    row <- which(is.na(threshold))[[1]]
    abort_pb("Program {.val {program[[row]]}} has no threshold (no number).", "field",
             row = row, field = "program", call = call)
  }
  threshold
}

# Human judgements as a long table: text (as the suites write it) and value.
probsem_read_humans <- function(humans, call = rlang::caller_env()) {
  file <- "<data frame>"
  if (rlang::is_string(humans)) {
    file <- humans
    humans <- read_csv_checked(file, character(), "human results file", call = call)
    humans[] <- lapply(humans, function(x) replace(x, x %in% c("", "NA"), NA_character_))
  }
  if (!is.data.frame(humans)) {
    abort_pb("{.arg humans} must be a CSV file or a data frame, not
              {.obj_type_friendly {humans}}.", "argument", call = call)
  }
  sentences <- setdiff(names(humans), "subject_id")
  rows <- lapply(sentences, function(s) {
    values <- humans[[s]]
    number <- suppressWarnings(as.double(values))
    bad <- which(!is.na(values) & (is.na(number) | is.infinite(number)))
    if (length(bad)) {
      abort_pb("Judgement {.val {values[[bad[[1]]]]}} is not a number.", "field", file = file,
               row = bad[[1]], field = s, call = call)
    }
    tibble::tibble(text = probsem_human_text(s), value = number[!is.na(number)],
                   column = s, row = which(!is.na(number)))
  })
  out <- do.call(rbind, rows)
  attr(out, "file") <- file
  out
}

# The paper's sentence text for a human-results column: f";; {column.capitalize()}." (Python's
# capitalize(): first character upper case, the rest lower case).
probsem_human_text <- function(column) {
  paste0(";; ", toupper(substr(column, 1, 1)), tolower(substring(column, 2)), ".")
}

probsem_compare_suite <- function(model, judgements, permutations, call = rlang::caller_env()) {
  texts <- unique(model$text)
  known <- texts %in% judgements$text
  label <- if (nzchar(model$suite[[1]])) paste("Suite", model$suite[[1]]) else "x"
  if (!any(known)) {
    cli::cli_inform(c(i = "{label}: no sentence is in {.arg humans}; left out."),
                    class = "predictivebench_message_skipped")
    return(NULL)
  }
  if (!all(known)) {
    missing <- texts[!known]
    abort_pb(c("{label}: {length(missing)} sentence{?s} {?is/are} not in {.arg humans}:
                {.val {missing}}.",
               i = "A human-results column is the sentence in lower case, without
                    {.val ;; } and the final period."),
             "field", file = attr(judgements, "file"), field = "text", call = call)
  }
  if (length(texts) < 2) {
    abort_pb("{label}: the temperature is fitted on the other sentences, so at least two
              are needed.",
             "argument", field = "text", call = call)
  }
  pairs <- lapply(texts, probsem_sentence_pair, model = model, judgements = judgements,
                  call = call)
  for (i in seq_along(pairs)) {
    if (all(pairs[[i]]$weights == -Inf)) {
      abort_pb("{label}: every program of {.val {texts[[i]]}} has weight -Inf.", "field",
               field = "weights", call = call)
    }
  }
  fits <- lapply(seq_along(texts), function(i) {
    temperature <- probsem_fit_temperature(pairs[-i])
    model_probs <- logprob_softmax(pairs[[i]]$weights / temperature)
    observed <- js_distance(pairs[[i]]$human, model_probs)
    pval <- if (permutations > 0) {
      probsem_permutation_pval(pairs[[i]]$human, model_probs, observed, permutations)
    } else {
      NA_real_
    }
    list(temperature = temperature, js = observed, pval = pval,
         n_people = sum(pairs[[i]]$counts), model = model_probs, human = pairs[[i]]$human,
         threshold = pairs[[i]]$threshold)
  })
  tibble::tibble(
    suite = model$suite[[1]], text = texts,
    js_distance = vapply(fits, `[[`, double(1), "js"),
    pval = vapply(fits, `[[`, double(1), "pval"),
    temperature = vapply(fits, `[[`, double(1), "temperature"),
    n_people = vapply(fits, `[[`, double(1), "n_people"),
    threshold = lapply(fits, `[[`, "threshold"),
    model_prob = lapply(fits, `[[`, "model"),
    human_prob = lapply(fits, `[[`, "human")
  )
}

# One sentence: the model's weights by threshold and the human distribution over them. A
# judgement at no program's threshold is an error (the paper dropped it silently).
probsem_sentence_pair <- function(text, model, judgements, call) {
  rows <- model[model$text == text, ]
  rows <- rows[order(rows$threshold), ]
  if (anyDuplicated(rows$threshold)) {
    twice <- rows$threshold[duplicated(rows$threshold)][[1]]
    abort_pb("Sentence {.val {text}} has two programs with threshold {.val {twice}}.",
             "field", field = "program", call = call)
  }
  people <- judgements[judgements$text == text, ]
  off <- which(!people$value %in% rows$threshold)
  if (length(off)) {
    abort_pb(c("Judgement {.val {people$value[[off[[1]]]]}} is not a program's threshold.",
               i = "Thresholds: {.val {rows$threshold}}."),
             "field", file = attr(judgements, "file"), row = people$row[[off[[1]]]],
             field = people$column[[off[[1]]]], call = call)
  }
  counts <- tabulate(match(people$value, rows$threshold), nbins = nrow(rows))
  list(weights = rows$weights, human = counts / sum(counts), counts = counts,
       threshold = rows$threshold)
}

# T minimizing the summed distance over the given sentences, from T = 1 (the paper's fmin).
probsem_fit_temperature <- function(pairs) {
  loss <- function(temperature) {
    if (temperature <= 0) return(Inf)
    sum(vapply(pairs, function(p) {
      js_distance(p$human, logprob_softmax(p$weights / temperature))
    }, double(1)))
  }
  nelder_mead(loss, 1)$par[[1]]
}

# Share of shuffles (each distribution permuted on its own) at most as far apart as observed.
probsem_permutation_pval <- function(human, model, observed, permutations) {
  k <- length(human)
  h <- matrix(human[replicate(permutations, sample.int(k))], nrow = k)
  m <- matrix(model[replicate(permutations, sample.int(k))], nrow = k)
  mean(js_distance(h, m) <= observed)
}

# scipy.spatial.distance.jensenshannon(p, q) with the natural log, for vectors or for the
# columns of two matrices: each side is scaled to sum 1, and 0 * log(0) counts 0.
js_distance <- function(p, q) {
  p <- as.matrix(p)
  q <- as.matrix(q)
  p <- sweep(p, 2, colSums(p), "/")
  q <- sweep(q, 2, colSums(q), "/")
  m <- (p + q) / 2
  rel <- function(a) ifelse(a > 0, a * log(a / m), 0)
  sqrt(pmax(colSums(rel(p) + rel(q)) / 2, 0))
}

# The paper's comparison for a task's own samples, without p-values: per judged and scored
# suite, each sentence's distance and fitted temperature, one row per context.
probsem_human_fits <- function(samples) {
  if (!"human_judgements" %in% names(samples)) return(NULL)
  samples <- samples[!duplicated(samples$id), , drop = FALSE]
  label <- paste0(samples$prompt, "_", samples$suite)
  judged <- lengths(samples$human_judgements) > 0
  scored <- vapply(samples$solver_metadata, function(m) {
    logp <- as.double(unlist(m$logp))
    length(logp) > 0 && !anyNA(logp) && any(logp > -Inf)
  }, TRUE)
  usable <- tapply(judged & scored, label, all)[label] &
    tapply(judged, label, sum)[label] >= 2
  if (!any(usable)) return(NULL)
  kept <- samples[usable, , drop = FALSE]
  dist <- probsem_distributions(kept)
  model <- tibble::tibble(suite = paste0(dist$prompt, "_", dist$suite), text = dist$text,
                          program = dist$query, weights = dist$logp)
  model$threshold <- probsem_threshold(model$program)
  fits <- probsem_compare(model, probsem_sample_humans(kept), permutations = 0)
  at <- match(paste(fits$suite, fits$text), paste(label[usable], kept$text))
  fits$id <- as.character(kept$id[at])
  names(fits)[names(fits) == "suite"] <- "label"
  fits[c("id", "label", "text", "js_distance", "temperature", "n_people", "threshold",
         "model_prob", "human_prob")]
}

probsem_human_why <- function(fit) {
  shares <- function(p) paste(sprintf("%g: %.3f", fit$threshold[[1]], p[[1]]), collapse = ", ")
  sprintf(paste("Jensen-Shannon distance to %d people's judgements: %.4f (0 is the same",
                "distribution, %.4f the farthest; temperature %.4g, fitted on the suite's",
                "other sentences). Model: %s. People: %s."),
          as.integer(fit$n_people), fit$js_distance, sqrt(log(2)), fit$temperature,
          shares(fit$model_prob), shares(fit$human_prob))
}
