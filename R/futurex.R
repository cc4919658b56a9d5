# FutureX: forecasting questions in four levels, scored as the reference evaluator does.

futurex_weights <- c(`1` = 0.1, `2` = 0.2, `3` = 0.3, `4` = 0.4)

futurex_interval <- c(
  normal = "95% normal interval (levels' standard errors combined)",
  bootstrap = "95% bootstrap interval (items resampled within levels)"
)

rlang::on_load(register_benchmark(
  "futurex", "futurex_summary", headline = c("overall", paste("level", 1:4)), by = "level",
  interval = futurex_interval[["normal"]]
))

#' Flatten FutureX files into a task table
#'
#' Runs the Python flattener on a FutureX question set or predictions file (a JSON array of
#' `{id, prompt, end_time, level, ground_truth, Std, "additional values", Description}`
#' objects, plus `answer` in a predictions file) and writes the `futurex` task table. See
#' [prepare_task_table()] for how Python is found.
#'
#' @param source The JSON file.
#' @param out The parquet file to write, or `NULL` to return the table.
#' @param duplicate_ids `"error"` (the default) stops at a repeated id; `"suffix"` keeps
#'   every item and renames repeats `id#2`, `id#3`, .... Real FutureX files contain ids that
#'   a spreadsheet rounded (`6.85147E+23`), shared by different questions.
#' @returns The path `out` (invisibly), or the table.
#' @family futurex
#' @family task tables
#' @export
#' @examplesIf python_available()
#' src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
#' prepare_futurex(src)
prepare_futurex <- function(source, out = NULL, duplicate_ids = c("error", "suffix")) {
  duplicate_ids <- rlang::arg_match(duplicate_ids)
  prepare_task_table("futurex", source, out = out, duplicate_ids = duplicate_ids)
}

#' FutureX: forecasting as a vitals Task
#'
#' @description
#' FutureX asks a model to forecast events; each question has a level:
#' 1 single choice, 2 multiple choice, 3 and 4 open answers, scored as numbers when the item
#' has a standard deviation `Std` and as rankings otherwise. `futurex_task()` runs the
#' dataset's own prompts through [generate_solver()] (cache, retries, failure isolation) and
#' scores the answers exactly as the reference evaluator (`eval.py`) does; [futurex_summary()]
#' gives its level-weighted overall score. To score a predictions file without a model, use
#' [futurex_score()].
#'
#' * `futurex_dataset()` reads a task table (by default the bundled sample of eleven
#'   fictional questions).
#' * `futurex_solver()` sends each `input` as one user message.
#' * `futurex_scorer()` scores each answer in `[0, 1]`; see "Scoring". Its explanation
#'   says why: the kind of item and the extracted answer vs the target (and the values
#'   compared, for numeric items).
#'
#' The task is a [ResultsTask]: its log (see `vitals::vitals_view()`) shows
#' [futurex_summary()]'s overall score and each level's as headline metrics, the scorer as
#' `futurex_score`, each item's `level`, `std` and `end_time` and the scorer's metadata as
#' key-value fields, and model usage that counts the judge's requests too (as `$get_cost()`
#' does; cached answers cost nothing).
#'
#' @section Scoring:
#' The answer is the content of the **first** `\boxed{...}` up to the first `}`, or the whole
#' text when there is no box.
#' * Level 1: the predicted option (a standalone capital letter `\b[A-Z]\b` of the upper-cased
#'   text, else the whole text if it is only letters, such as "Yes") must equal the stripped,
#'   upper-cased ground truth. An unboxed "I think..." reads as option I, as in the reference.
#' * Level 2: F1 between predicted and true option sets (both empty: 1).
#' * Levels 3/4 with `Std`: `max(0, 1 - ((truth - pred) / Std)^2)`, and `Std == 0` means an
#'   exact match within 1e-6. A value that cannot be parsed scores 0.
#' * Levels 3/4 without `Std`: ranking. Rank prefixes like `1.` or `2nd:` are removed, the text
#'   is split on `, ， 、 ; ；` and newlines; an exact ordered match scores 1, otherwise
#'   `0.8 * |set(pred) n set(truth)| / length(truth)`.
#' * Overall: `sum(mean(level) * weight)` over the levels present, weights 0.1, 0.2, 0.3, 0.4,
#'   without renormalization. Items without an answer (a failed request, or no `answer` in a
#'   predictions file) are skipped and counted.
#'
#' With a `scorer_chat`, numeric items are first normalized to the ground truth's unit by that
#' model with the reference's prompt (system prompt "You are a precise number normalization
#' assistant.", temperature 0.2); when its reply does not contain both
#' `GROUND_TRUTH_VALUE:` and `PREDICTION_VALUE:` numbers, or the request fails after its
#' retries, the plain parse is used and the reason is kept in the sample's
#' `scorer_metadata$judge_error`. Items the judge never sees (levels 1 and 2, rankings, no
#' answer) get a scorer chat that says so, so that `vitals_view()` shows every sample.
#'
#' @section Differences from the original:
#' * Level 1 with several letters in the answer: the reference takes an arbitrary element of
#'   a Python set, which changes from run to run with Python's hash seed (on the reference's
#'   random-baseline file, runs score 0.0986, 0.1077 or 0.1168 overall). Here the pick is the
#'   one the reference makes under `PYTHONHASHSEED=0` with CPython 3.11+ (the set's iteration
#'   order is reproduced exactly), so results are deterministic and match
#'   `PYTHONHASHSEED=0 python3 eval.py`; that file then scores 0.1077.
#' * Numbers: the reference reads the first run of digits and dots, losing signs and stopping
#'   at commas (`"1,250"` is 1, `"-3.2"` is 3.2). That is the default
#'   (`number_rule = "reference"`); `number_rule = "strict"` reads signed numbers with
#'   thousands separators and exponents.
#' * A `null` answer counts as no answer (skipped); the reference crashes on it for ranking
#'   items. A non-string answer is an error.
#' * Regular expressions use Unicode word boundaries and whitespace, like Python's `re`.
#' * The reference reports a level with no items as 0; [futurex_summary()] reports `NA` with
#'   `n = 0` (the overall score is the same).
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param system_prompt,params Passed to [generate_solver()]; by default the chat is used as
#'   configured (the reference sends only the prompt).
#' @param number_rule `"reference"` (first run of digits and dots, as `eval.py`) or
#'   `"strict"` (signed numbers with thousands separators); see [parse_number_text()].
#' @param dataset A task table (tibble) from `futurex_dataset()`.
#' @param solver,scorer A solver and scorer, by default `futurex_solver()` and
#'   `futurex_scorer()`.
#' @inheritParams generate_solver
#' @returns `futurex_dataset()` a tibble; `futurex_solver()` and `futurex_scorer()`
#'   functions for [vitals::Task]; `futurex_task()` a [ResultsTask] (a [vitals::Task]).
#' @family futurex
#' @export
#' @examples
#' tsk <- futurex_task(dir = tempfile())
#' tsk$eval(solver_chat = baseline_random(c("A", "B", "Yes", "No"), "\\boxed{%s}"),
#'          view = FALSE)
#' futurex_summary(tsk)
futurex_task <- function(dataset = futurex_dataset(), solver = futurex_solver(),
                         scorer = futurex_scorer(), epochs = NULL, dir = vitals::vitals_log_dir(),
                         name = "futurex", limit = NULL) {
  dataset <- validate_task_table(dataset, "futurex")
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, name = name,
                 limit = limit, benchmark = "futurex",
                 metadata_fields = c("level", "std", "end_time"))
}

#' @rdname futurex_task
#' @export
futurex_dataset <- function(path = NULL, limit = NULL, shuffle = FALSE) {
  benchmark_dataset("futurex", path, sample = "futurex-sample.parquet", limit = limit,
                    shuffle = shuffle)
}

#' @rdname futurex_task
#' @export
futurex_solver <- function(system_prompt = NULL, params = NULL, cache = TRUE, max_active = 10,
                           rpm = 500, max_tries = 3, batch = getOption("predictivebench.batch", FALSE),
                           wait = TRUE) {
  generate_solver(system_prompt = system_prompt, params = params, cache = cache,
                  max_active = max_active, rpm = rpm, max_tries = max_tries, batch = batch,
                  wait = wait)
}

#' @rdname futurex_task
#' @param scorer_chat An ellmer chat for the optional unit normalization of numeric items,
#'   given to `futurex_scorer()` or through `$eval(scorer_chat = )`; `NULL` skips it.
#' @export
futurex_scorer <- function(number_rule = c("reference", "strict"), scorer_chat = NULL,
                           cache = TRUE, batch = getOption("predictivebench.batch", FALSE),
                           wait = TRUE) {
  number_rule <- rlang::arg_match(number_rule)
  scorer_chat <- as_chat(scorer_chat, allow_null = TRUE)
  default_chat <- scorer_chat
  function(samples, ..., scorer_chat = default_chat) {
    scorer_chat <- as_chat(scorer_chat, allow_null = TRUE)
    scores <- futurex_score_items(samples$result, samples, number_rule, scorer_chat, cache,
                                  batch = batch, wait = wait)
    out <- list(
      score = scores$score,
      explanation = futurex_explanation(scores, samples$target),
      scorer_chat = if (!is.null(scorer_chat)) scores$chat,
      scorer_metadata = lapply(seq_len(nrow(scores)), function(i) {
        meta <- list(kind = scores$kind[[i]], extracted = scores$extracted[[i]],
                     pred_value = scores$pred_value[[i]], truth_value = scores$truth_value[[i]],
                     normalization = scores$normalization[[i]],
                     judge_error = scores$judge_error[[i]])
        # the judge's requests for this item (none for items it never saw)
        if (!is.null(scorer_chat)) meta <- c(meta, scores$judge_usage[[i]])
        meta
      })
    )
    out[!vapply(out, is.null, TRUE)]
  }
}

futurex_score_items <- function(answers, table, number_rule, scorer_chat = NULL,
                                cache = TRUE, ...) {
  n <- length(answers)
  kind <- futurex_kind(table$level, table$std)
  numeric <- which(kind == "numeric" & !is.na(answers))
  normalized <- futurex_normalize(answers[numeric], table$target[numeric], scorer_chat, cache,
                                  ...)
  pred_value <- truth_value <- rep(NA_real_, n)
  normalization <- rep(NA_character_, n)
  score <- rep(NA_real_, n)
  for (i in seq_len(n)) {
    if (is.na(answers[[i]])) next
    score[[i]] <- switch(kind[[i]],
      single = futurex_single_choice(answers[[i]], table$target[[i]]),
      multiple = futurex_multi_choice(answers[[i]], table$target[[i]]),
      ranking = futurex_ranking(answers[[i]], table$target[[i]]),
      numeric = {
        j <- match(i, numeric)
        values <- if (!is.null(normalized) && !is.na(normalized$pred[[j]])) {
          normalization[[i]] <- "llm"
          c(normalized$pred[[j]], normalized$truth[[j]])
        } else {
          normalization[[i]] <- if (is.null(normalized)) "none" else "fallback"
          c(parse_number_text(answers[[i]], futurex_number_rule(number_rule)),
            parse_number_text(table$target[[i]], futurex_number_rule(number_rule)))
        }
        pred_value[[i]] <- values[[1]]
        truth_value[[i]] <- values[[2]]
        futurex_numeric(values[[1]], values[[2]], table$std[[i]])
      }
    )
  }
  judge_error <- rep(NA_character_, n)
  chats <- NULL
  judge_usage <- rep(list(list(cached = TRUE, input_tokens = 0, output_tokens = 0, cost = 0)), n)
  if (!is.null(normalized)) {
    judge_error[numeric] <- normalized$error
    judge_usage[numeric] <- normalized$usage
    # vitals reads the last turn of every scorer chat, so items the judge never saw get a
    # conversation that says so instead of an empty clone.
    chats <- lapply(kind, function(k) unjudged_chat(scorer_chat, k))
    chats[numeric] <- normalized$chat
  }
  tibble::tibble(
    score = score, kind = kind,
    extracted = extract_boxed(ifelse(is.na(answers), NA_character_, answers), which = "first",
                              rule = "first_brace", fallback = "text"),
    pred_value = pred_value, truth_value = truth_value, normalization = normalization,
    judge_error = judge_error, judge_usage = judge_usage, chat = chats %||% rep(list(NULL), n)
  )
}

# Why each item scored what it did: the kind of item and the extracted answer vs the target
# (with the values compared, for numeric items).
futurex_explanation <- function(scores, target) {
  values <- ifelse(
    scores$kind == "numeric" & !is.na(scores$normalization),
    paste0(" (values ", format_value(scores$pred_value), " vs ",
           format_value(scores$truth_value),
           ifelse(scores$normalization == "llm", ", normalized by the judge", ""), ")"),
    ""
  )
  ifelse(is.na(scores$score), "no answer (the request failed): not scored",
         paste0(scores$kind, ": extracted ", scores$extracted, " vs ", target, values))
}

format_value <- function(x) ifelse(is.na(x), "none", format(x, digits = 15, trim = TRUE))

unjudged_chat <- function(scorer_chat, kind) {
  why <- if (kind == "numeric") "it has no answer" else paste("it is a", kind, "item")
  scorer_chat$clone()$set_turns(list(
    user_turn_of(paste0("(not sent to the judge: ", why, ")")),
    empty_turn(finish_reason = "not_judged")
  ))
}

futurex_number_rule <- function(rule) if (rule == "reference") "first_digits" else "strict"

futurex_kind <- function(level, std) {
  ifelse(level == 1, "single", ifelse(level == 2, "multiple",
    ifelse(is.na(std), "ranking", "numeric")))
}

# Python's re is Unicode-aware by default; (*UCP) makes PCRE's \b, \s and \w agree with it.
futurex_content <- function(text) {
  extract_boxed(text, which = "first", rule = "first_brace", fallback = "text")
}


futurex_options <- function(text) {
  if (is.na(text) || !nzchar(text)) return(character())
  content <- futurex_content(text)
  letters <- regmatches(toupper(content),
                        gregexpr("(*UCP)\\b([A-Z])\\b", toupper(content), perl = TRUE))[[1]]
  if (length(letters)) return(unique(letters))
  token <- py_strip(content)
  if (grepl("^[A-Za-z]+$", token)) return(toupper(token))
  character()
}

futurex_single_choice <- function(pred, truth) {
  # The reference takes next(iter(set)), which changes with Python's hash seed; this is the
  # element it takes under PYTHONHASHSEED=0.
  options <- python_set_order(futurex_options(pred))
  option <- if (length(options)) options[[1]] else ""
  as.double(toupper(option) == toupper(py_strip(truth)))
}

futurex_multi_choice <- function(pred, truth) {
  set_f1(futurex_options(pred), futurex_options(truth))
}

futurex_list <- function(text) {
  content <- futurex_content(text)
  content <- gsub("(*UCP)\\d+(?:st|nd|rd|th)?[:\uff1a.\\s]+", "", content, perl = TRUE)
  items <- strsplit(content, "[,\uff0c\u3001;\uff1b\n]", perl = TRUE)[[1]]
  items <- py_strip(items)
  items[nzchar(items)]
}

futurex_ranking <- function(pred, truth) {
  pred_list <- futurex_list(pred)
  truth_list <- futurex_list(truth)
  if (identical(pred_list, truth_list)) return(1)
  if (!length(truth_list)) return(0)
  0.8 * length(intersect(pred_list, truth_list)) / length(truth_list)
}

futurex_numeric <- function(pred, truth, std) {
  if (is.na(pred) || is.na(truth)) return(0)
  if (std == 0) return(as.double(abs(pred - truth) < 1e-6))
  max(0, 1 - ((truth - pred) / std)^2)
}

futurex_normalize_prompt <- function(truth, pred) {
  paste0(
    " \nGround Truth: ", truth, "\nPrediction: ", pred, "\n\n",
    "Task: Convert the prediction to match the SAME format and unit as the ground truth.\n\n",
    "Examples:\n",
    "- Ground Truth: \"10362 millions yuan\", Prediction: \"10362000000\" \n",
    "  \u2192 Ground Truth Value: 10362, Prediction Value: 10362\n  \n",
    "- Ground Truth: \"4522.61\", Prediction: \"4.52261 thousand\"\n",
    "  \u2192 Ground Truth Value: 4522.61, Prediction Value: 4522.61\n\n",
    "- Ground Truth: \"12740 million\", Prediction: \"12.74 billion\"\n",
    "  \u2192 Ground Truth Value: 12740, Prediction Value: 12740\n\n",
    "- Ground Truth: \"15.5 billion\", Prediction: \"15500 million\"\n",
    "  \u2192 Ground Truth Value: 15.5, Prediction Value: 15.5\n\n",
    "IMPORTANT: \n",
    "1. Keep the SAME unit as ground truth (if GT is \"millions yuan\", convert prediction to ",
    "millions yuan) \uff01\n",
    "2. Extract only the numeric value, ignore unit text\n",
    "3. If there is no numeric value in Prediction, set PREDICTION_VALUE to 0 directly\n",
    "4. Return ONLY two numbers in this exact format:\n",
    "   GROUND_TRUTH_VALUE: [number]\n",
    "   PREDICTION_VALUE: [number]\n",
    "5. No explanation, just the two numbers.\n\n",
    "Now normalize:\n"
  )
}

# `...`: batch and wait for generate_responses().
futurex_normalize <- function(answers, truths, scorer_chat, cache, ...) {
  if (is.null(scorer_chat) || !length(answers)) return(NULL)
  chat <- configure_chat(scorer_chat, "You are a precise number normalization assistant.",
                         list(temperature = 0.2))
  res <- generate_responses(chat, futurex_normalize_prompt(truths, answers), cache = cache,
                            key_extra = "futurex-normalize-v1", ...)
  parse_value <- function(label) {
    m <- regmatches(res$result, regexec(paste0(label, ":\\s*([0-9.]+)"), res$result))
    vapply(m, function(x) if (length(x) == 2) suppressWarnings(as.numeric(x[[2]])) else NA, 1)
  }
  truth <- parse_value("GROUND_TRUTH_VALUE")
  pred <- parse_value("PREDICTION_VALUE")
  ok <- !is.na(truth) & !is.na(pred)
  error <- ifelse(!ok & is.na(res$error),
                  "The judge's reply has no GROUND_TRUTH_VALUE and PREDICTION_VALUE numbers.",
                  res$error)
  list(pred = ifelse(ok, pred, NA_real_), truth = ifelse(ok, truth, NA_real_),
       chat = res$chat, error = error,
       usage = lapply(seq_len(nrow(res)), function(i) usage_metadata(res, i)))
}

#' FutureX headline numbers
#'
#' The reference evaluator's summary: the mean score of each level, the number of items
#' scored, and the overall score `sum(mean(level) * weight)` over the levels present
#' (weights 0.1, 0.2, 0.3, 0.4, no renormalization), each with a 95% interval. The overall
#' interval combines the levels' standard errors (`sqrt(sum(w^2 * var / n))`), or, with
#' `method = "bootstrap"`, resamples items within each level. Intervals are clipped to
#' `[0, 1]`, the range of the scores. A level whose scores are all 0 or all 1 gets a Wilson
#' interval rather than a zero-width one (see [mean_ci()]), and its width stands in for that
#' level's standard error in the overall interval.
#'
#' @param x An evaluated [futurex_task()], its `$get_samples()` tibble, the log file it
#'   wrote (or that log read by [log_samples()]; [vitals::vitals_log_read()] output lacks
#'   `level`: add it with `log_samples(x, dataset = futurex_dataset())`), or the result of
#'   [futurex_score()].
#' @param method Interval method, `"normal"` or `"bootstrap"`.
#' @param times,seed Bootstrap resamples and seed.
#' @param cluster Clusters of samples (see [resolve_cluster()]): by default each item's
#'   epochs form one cluster (`"id"`), so several epochs of an item are not counted as
#'   independent evidence; with one epoch this is the naive interval. `NULL` treats every
#'   sample as independent. The levels' standard errors are then clustered
#'   ([clustered_se()]) and the bootstrap draws whole clusters within each level.
#' @returns A tibble with rows `overall` and `level 1` to `level 4`, in the columns every
#'   predictivebench summary has: `group`, `metric` (`"score"`), `estimate` (the mean score,
#'   or for `overall` the level-weighted score), `lower`, `upper`, `n` (items scored), then
#'   `n_missing` (items skipped: no answer) and `weight`. Its class `benchmark_summary` gives
#'   it a plot: `ggplot2::autoplot()` draws a bar per row (see [autoplot_summary()]). The
#'   rows `overall` and `level 1` to `level 4` are the task's headline metrics: the numbers
#'   the log's header shows in `vitals_view()`.
#' @family futurex
#' @export
#' @examples
#' tsk <- futurex_task(dir = tempfile())
#' tsk$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE)
#' s <- futurex_summary(tsk)
#' s
#' # the same numbers from the log file
#' futurex_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
futurex_summary <- function(x, method = c("normal", "bootstrap"), times = 1000, seed = 1,
                            cluster = "default") {
  method <- rlang::arg_match(method)
  items <- futurex_items(x)
  items$cluster <- resolve_cluster(items, cluster, default = "id") %||% seq_len(nrow(items))
  levels <- 1:4
  rows <- lapply(levels, function(l) {
    ci <- mean_ci(items$score[items$level == l], method = method, times = times, seed = seed,
                  limits = c(0, 1), cluster = shared_cluster(items$cluster[items$level == l]))
    summary_rows(paste("level", l), "score", ci, n_missing = ci$n_missing,
                 weight = futurex_weights[[l]])
  })
  by_level <- do.call(rbind, rows)
  present <- by_level$n > 0
  overall <- sum(by_level$estimate[present] * by_level$weight[present])
  bounds <- futurex_overall_interval(items, by_level, method, times, seed)
  top <- summary_rows(
    "overall", "score",
    list(mean = if (any(present)) overall else NA_real_, lower = bounds[[1]],
         upper = bounds[[2]], n = sum(by_level$n)),
    n_missing = sum(by_level$n_missing), weight = sum(by_level$weight[present])
  )
  skipped <- sum(by_level$n_missing)
  if (skipped) {
    cli::cli_inform("{skipped} item{?s} without an answer {?was/were} skipped.",
                    class = "predictivebench_message_skipped")
  }
  benchmark_summary(rbind(top, by_level), "futurex", by = "level",
                    interval = futurex_interval[[method]])
}

futurex_overall_interval <- function(items, by_level, method, times, seed) {
  present <- by_level$n > 0
  if (!any(present)) return(c(NA_real_, NA_real_))
  if (method == "normal") {
    z <- stats::qnorm(0.975)
    var_terms <- vapply(which(present), function(l) {
      keep <- items$level == l & !is.na(items$score)
      s <- items$score[keep]
      if (length(s) < 2) return(0)
      # a level whose scores are all 0 or all 1 has a Wilson interval (see mean_ci()): its
      # width stands in for the standard error that var() would put at zero
      se <- if (stats::var(s) > 0) clustered_se(s, items$cluster[keep]) else
        (by_level$upper[[l]] - by_level$lower[[l]]) / (2 * z)
      futurex_weights[[l]]^2 * se^2
    }, 1)
    est <- sum(by_level$estimate[present] * by_level$weight[present])
    half <- z * sqrt(sum(var_terms))
    return(pmin(pmax(c(est - half, est + half), 0), 1))
  }
  keep <- !is.na(items$score)
  groups <- lapply(which(present), function(l) {
    split(items$score[keep & items$level == l],
          in_order(items$cluster[keep & items$level == l]))
  })
  weights <- futurex_weights[which(present)]
  draws <- with_seed(seed, vapply(seq_len(times), function(b) {
    sum(vapply(seq_along(groups), function(k) {
      g <- groups[[k]]
      mean(unlist(g[sample.int(length(g), length(g), replace = TRUE)])) * weights[[k]]
    }, 1))
  }, 1))
  unname(stats::quantile(draws, c(0.025, 0.975)))
}

futurex_items <- function(x, call = rlang::caller_env()) {
  if (inherits(x, "futurex_scores")) return(x$items)
  x <- benchmark_samples(
    x, c("level", "score"),
    "an evaluated FutureX task, its samples or log file, or {.fn futurex_score} output.",
    call = call
  )
  tibble::tibble(id = x$id, level = x$level, score = as.double(x$score))
}

#' Score FutureX predictions without a model
#'
#' Like the reference's `eval.py -f FILE`: reads a predictions file (the question objects
#' plus an `answer` string) and scores every answer with the rules of [futurex_task()].
#' Items without an answer are skipped and counted.
#'
#' @param predictions A predictions JSON file (as with `eval.py`, a name without `.json`
#'   also finds `name.json`), a `futurex` task table (parquet), or a data frame with the
#'   task-table columns and `answer`.
#' @param scorer_chat Optional chat for the LLM unit normalization of numeric items.
#' @param duplicate_ids Passed to [prepare_futurex()] when reading JSON.
#' @inheritParams futurex_task
#' @returns An object of class `futurex_scores`: a list with `summary` (as
#'   [futurex_summary()]) and `items` (one row per item: `id`, `level`, `kind`, `answer`,
#'   `target`, `extracted`, `pred_value`, `truth_value`, `score`, `normalization` (for
#'   numeric items: `"llm"` when the judge's values were used, `"fallback"` when the judge
#'   failed or its reply had no values and the plain parse was used, `"none"` without a
#'   judge) and `judge_error` (why the judge's values were not used, else `NA`)).
#' @family futurex
#' @export
#' @examplesIf python_available()
#' path <- system.file("extdata", "futurex-predictions.json", package = "predictivebench")
#' scored <- futurex_score(path)
#' scored
#' scored$items
futurex_score <- function(predictions, number_rule = c("reference", "strict"),
                          scorer_chat = NULL, duplicate_ids = c("error", "suffix"),
                          cache = TRUE) {
  number_rule <- rlang::arg_match(number_rule)
  duplicate_ids <- rlang::arg_match(duplicate_ids)
  table <- futurex_predictions_table(predictions, duplicate_ids)
  answers <- ifelse(table$has_answer, table$answer, NA_character_)
  scores <- futurex_score_items(answers, table, number_rule, scorer_chat, cache)
  items <- tibble::tibble(
    id = table$id, level = table$level, kind = scores$kind, answer = answers,
    target = table$target, extracted = scores$extracted, pred_value = scores$pred_value,
    truth_value = scores$truth_value, score = scores$score,
    normalization = scores$normalization, judge_error = scores$judge_error
  )
  out <- structure(list(summary = NULL, items = items), class = "futurex_scores")
  out$summary <- suppressMessages(futurex_summary(out))
  out
}

futurex_predictions_table <- function(predictions, duplicate_ids) {
  if (is.data.frame(predictions)) return(validate_task_table(predictions, "futurex"))
  check_string(predictions)
  path <- predictions
  if (!file.exists(path) && !grepl("\\.json$", path) && file.exists(paste0(path, ".json"))) {
    path <- paste0(path, ".json")
  }
  if (grepl("\\.parquet$", path)) return(read_task_table(path, "futurex"))
  prepare_futurex(path, duplicate_ids = duplicate_ids)
}

#' @export
print.futurex_scores <- function(x, ...) {
  skipped <- sum(is.na(x$items$score))
  cli::cli_text("FutureX scores for {nrow(x$items)} item{?s} ({skipped} without an answer).")
  fell_back <- sum(!is.na(x$items$judge_error))
  if (fell_back) {
    cli::cli_text("{fell_back} numeric item{?s} used the plain parse: the judge failed ",
                  "(see {.field judge_error} in {.field $items}).")
  }
  print(x$summary, ...)
  invisible(x)
}
