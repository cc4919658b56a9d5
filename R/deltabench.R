# DeltaBench's own section-level protocol: one critique per long chain of thought, every
# erroneous section named, scored by precision/recall over section sets.

deltabench_interval <- "95% normal interval (macro means and accuracies; none for micro)"

rlang::on_load(register_benchmark(
  "deltabench", "deltabench_summary",
  headline = c("overall f1_macro", "overall precision_macro", "overall recall_macro",
               "overall accuracy"),
  by = "task", interval = deltabench_interval
))

#' Flatten DeltaBench or ProcessBench files into a task table
#'
#' @description
#' Run the Python flattener over a DeltaBench release or a ProcessBench split and get the
#' `processbench` task table: one row per solution with `id`, `problem`, `steps` (a list of
#' strings), `label` (the 0-based index of the first wrong step, `-1` when all steps are
#' right), `task_l1`, `task_l2`, `origin`, `generator`, `final_answer_correct`, and for
#' DeltaBench the raw 1-based `error_sections`, `unuseful_sections` and `sections_content`.
#' See [task_table_schema()]`("processbench")` and [prepare_task_table()] for how Python is
#' found.
#'
#' * `prepare_deltabench()` reads DeltaBench's JSON Lines (or a JSON array, or the CSV
#'   release whose list columns are serialized strings: they are parsed as data, never
#'   evaluated). `steps` are the `content` of each entry of `sections`;
#'   `label = min(reason_error_section_numbers) - 1`.
#' * `prepare_processbench()` reads a ProcessBench split (a JSON array or JSON Lines of
#'   `{id, generator, problem, steps, final_answer_correct, label}`); `task_l1` is the split.
#'
#' @param source The raw file (`.jsonl`, `.json` or `.csv`).
#' @param out The parquet file to write, or `NULL` (the default) to return the table.
#' @param count_unuseful `FALSE` (the default) takes the label from
#'   `reason_error_section_numbers` only. `TRUE` also counts
#'   `reason_unuseful_section_numbers` as errors, as DeltaBench's own section-level ground
#'   truth does ([deltabench_task()] always uses both).
#' @param split The split name stored in `task_l1`; `NULL` (the default) takes the file name
#'   without its extension (`gsm8k.json` gives `"gsm8k"`).
#' @param on_error `"error"` (the default) stops at the first bad record (a section without
#'   content, an empty step, a label or section number past the last step, a malformed line)
#'   with an error naming the file, row and field. `"skip"` leaves such records out and
#'   reports each one on standard error.
#' @returns The path `out` (invisibly), or the table as a tibble.
#' @family processbench and deltabench
#' @family task tables
#' @export
#' @examplesIf python_available()
#' src <- system.file("extdata", "deltabench-sample.jsonl", package = "predictivebench")
#' prepare_deltabench(src)
#' src <- system.file("extdata", "processbench-sample.json", package = "predictivebench")
#' prepare_processbench(src, split = "sample")
prepare_deltabench <- function(source, out = NULL, count_unuseful = FALSE,
                               on_error = c("error", "skip")) {
  check_flag(count_unuseful)
  on_error <- rlang::arg_match(on_error)
  prepare_task_table("deltabench", source, out = out, count_unuseful = count_unuseful,
                     on_error = on_error)
}

# DeltaBench's critic prompt (OpenStellarTeam/DeltaBench, evaluation.py), word for word; the
# curly apostrophe and the ellipsis are written as escapes to keep the source ASCII.
deltabench_critic_template <- function() {
  text <- r"---(I will provide you with a question and a robot{RSQUO}s answer, divided into several sections. Your task is to evaluate each section of the robot{RSQUO}s answer for any errors.

**Evaluation Criteria:**
- Evaluate each section independently. Assess each section based solely on the accuracy and logic within that section.
- Do not consider subjective elements such as redundancy or stylistic preferences as errors.
- Do not consider corrections or reflections made in later sections. Even if a later section acknowledges and fixes an earlier mistake, the original section must still be marked as erroneous.
- If a subsequent section contains an error caused by an earlier section's mistake, do not count it as a new error.

**Output Format:**
- If you think all sections of the robot's answer are correct, output in the following format:{SP2}
    Conclusion: no error
- If you think any section contains an error, output in the following format:{SP2}
    Conclusion: yes
    Error Section Number: [section number]
    Explanation: [explanation for the error in this section]
    Error Section Number: [section number]
    Explanation: [explanation for the error in this section]
    {ELLIPSIS} (repeat for each erroneous section){SP2}


**example:**
- Question: Two numbers, $x$ and $y$ are selected at random from the interval $(0,3)$.  What is the probability that a triangle with sides of length 1, $x$, and $y$ exists?
- Robot's Answer:{SP1}
section1:
So I've got this probability problem here. It says that two numbers, x and y, are selected at random from the interval (0,3), and I need to find the probability that a triangle with sides of length 1, x, and y exists. Okay, let's break this down.

section2:
First, I need to recall the triangle inequality theorem. It states that for any triangle with sides a, b, and c, the following must be true:
1. a + b > c
2. a + c > b
3. b + c > a

section3:
So, in this case, the sides are 1, x, and y. That means I need to satisfy all three inequalities:
1. 1 + x > y
2. 1 + y > x
3. x + y > 1
Alright, now, to find the probability, I need to find the ratio of the area where these inequalities hold to the total area from which x and y are selected.

section4:
Now, I need to find the area where all three inequalities are satisfied.
Let me consider each inequality one by one.
First inequality: 1 + x > y
This can be rewritten as y < 1 + x.
Second inequality: 1 + y > x
This can be rewritten as y > x - 1.
Third inequality: x + y > 1
This can be rewritten as y > 1 - x.
Now, since x and y are both positive (from (0,3)), 1 - x could be negative if x > 1. But since y is positive, y > 1 - x will always hold true when x < 1, and when x >=1, y > 1 - x is always true because y > 0 and 1 - x <=0. So, this inequality is always satisfied in the given range. Therefore, I don't need to worry about this inequality separately.

section5:
So, effectively, I only need to consider the first two inequalities:
1. y < 1 + x
2. y > x - 1
And, of course, x and y are between 0 and 3.

- judge result:{SP1}
Conclusion: yes
Error Section Number: 4
Explanation: The analysis of the inequality \( x + y > 1 \) is incorrect. The argument that "this inequality is always satisfied in the given range" is flawed. Specifically, for small values of \( x \) and \( y \), such as when both are close to zero, the inequality \( x + y > 1 \) does not always hold. The constraint \( x + y > 1 \) must still be explicitly considered in the probability calculation.

**Input:**
- Question: {{question}}
- Robot's Answer: {{model_output}}
- judge result:{SP1})---"
  text <- gsub("\r", "", text, fixed = TRUE)
  text <- gsub("{RSQUO}", "\u2019", text, fixed = TRUE)
  text <- gsub("{ELLIPSIS}", "\u2026", text, fixed = TRUE)
  text <- gsub("{SP2}", "  ", text, fixed = TRUE)
  gsub("{SP1}", " ", text, fixed = TRUE)
}

#' Build DeltaBench critic prompts
#'
#' DeltaBench's critic prompt, word for word: the evaluation criteria, the output format
#' (`Conclusion:`, then `Error Section Number:` and `Explanation:` for each erroneous
#' section), a worked example, then the question and the sectioned answer
#' (`sections_content`, `section1: ...` blocks). As in the original, `{{question}}` is
#' replaced first and `{{model_output}}` second.
#'
#' @param question A character vector of questions.
#' @param sections_content A character vector of sectioned answers, as long as `question`.
#' @returns A character vector of prompts.
#' @family processbench and deltabench
#' @export
#' @examples
#' prompt <- deltabench_prompt("What is 1 + 1?", "section1: 1 + 1 = 3.")
#' cat(substr(prompt, nchar(prompt) - 80, nchar(prompt)))
deltabench_prompt <- function(question, sections_content) {
  if (!is.character(question) || !is.character(sections_content) ||
      length(question) != length(sections_content)) {
    abort_pb("{.arg question} and {.arg sections_content} must be character vectors of the same length.",
             "argument")
  }
  template <- deltabench_critic_template()
  vapply(seq_along(question), function(i) {
    out <- gsub("{{question}}", question[[i]], template, fixed = TRUE)
    gsub("{{model_output}}", sections_content[[i]], out, fixed = TRUE)
  }, "")
}

#' Parse a DeltaBench critique
#'
#' Reads a critique as DeltaBench's evaluation script does. The conclusion is the text after
#' the last `Conclusion:` and before the first `Error Section Number:`; it says "errors" when
#' it contains `yes` or `Yes`. Then every `Error Section Number:` entry (up to its
#' `Explanation:`) gives the first whole number in it, or `-1` when it has none.
#'
#' @param critique A character vector of critiques (`NA` for a failed request).
#' @returns A tibble with one row per critique: `conclusion` (text), `judge` (1 when the
#'   critique reports errors, 0 when not, `NA` for a missing or empty critique) and
#'   `sections` (a list of integer vectors, in the order written, duplicates kept).
#' @family processbench and deltabench
#' @export
#' @examples
#' deltabench_parse(c(
#'   "Conclusion: yes\nError Section Number: 3\nExplanation: wrong sum.\nError Section Number: section 5\nExplanation: ...",
#'   "Conclusion: no error"
#' ))
deltabench_parse <- function(critique) {
  if (!is.character(critique) && !all(is.na(critique))) {
    abort_pb("{.arg critique} must be a character vector.", "argument")
  }
  critique <- as.character(critique)
  parsed <- lapply(critique, function(text) {
    if (is.na(text) || !nzchar(text)) return(list(NA_character_, NA_integer_, integer()))
    chunks <- strsplit_all(text, "Error Section Number:")
    before <- strsplit_all(chunks[[1]], "Conclusion:")
    conclusion <- trimws(before[[length(before)]], whitespace = "[\\h\\v]")
    if (!grepl("yes|Yes", conclusion)) return(list(conclusion, 0L, integer()))
    sections <- vapply(chunks[-1], function(chunk) {
      number <- strsplit_all(chunk, "Explanation:")[[1]]
      digits <- regmatches(number, regexpr("[0-9]+", number))
      if (length(digits)) as.integer(digits) else -1L
    }, 1L)
    list(conclusion, 1L, unname(sections))
  })
  tibble::tibble(
    conclusion = vapply(parsed, `[[`, "", 1),
    judge = vapply(parsed, `[[`, 1L, 2),
    sections = lapply(parsed, `[[`, 3)
  )
}

# Python's str.split(sep): keeps empty pieces, including a trailing one.
strsplit_all <- function(x, sep) {
  pieces <- strsplit(x, sep, fixed = TRUE)[[1]]
  if (!length(pieces)) pieces <- ""
  if (endsWith(x, sep)) pieces <- c(pieces, "")
  pieces
}

#' Score critiques against DeltaBench's gold sections
#'
#' The per-sample part of DeltaBench's evaluation. The gold set is the union of the erroneous
#' and the unuseful sections. For a sample with errors, predicted sections beyond the last
#' gold section are dropped (`clip_predictions = TRUE`, as the original does), then
#' true/false positives and false negatives over the section sets give precision, recall and
#' F1 (0 when undefined, as in the original). `correct` is 1 when the conclusion matches the
#' gold (errors or none) and, for a sample with errors, at least one predicted section is
#' gold.
#'
#' @param critique A character vector of critiques (`NA` for failed requests).
#' @param error_sections,unuseful_sections Lists of 1-based section numbers, one element per
#'   critique.
#' @param clip_predictions `TRUE` (the default, the original's rule) drops predicted sections
#'   beyond the last gold section before counting. That rule never penalises a guess past the
#'   last error, so a constant guess that names every section scores far above chance
#'   (see `vignette("processbench")`); `FALSE` counts every predicted section.
#' @returns A tibble with one row per critique: `judge`, `has_error` (gold not empty),
#'   `predicted` (the sections counted), `tp`, `fp`, `fn`, `precision`, `recall`, `f1`
#'   (`NA` for samples without gold errors and for failed critiques), `correct`, and `failed`.
#' @family processbench and deltabench
#' @export
#' @examples
#' deltabench_score_critiques(
#'   c("Conclusion: yes\nError Section Number: 2\nError Section Number: 9", "Conclusion: no error"),
#'   error_sections = list(c(2L, 4L), integer()), unuseful_sections = list(integer(), integer())
#' )
deltabench_score_critiques <- function(critique, error_sections, unuseful_sections,
                                       clip_predictions = TRUE) {
  check_flag(clip_predictions)
  n <- length(critique)
  if (!is.list(error_sections) || !is.list(unuseful_sections) ||
      length(error_sections) != n || length(unuseful_sections) != n) {
    abort_pb("{.arg error_sections} and {.arg unuseful_sections} must be lists as long as {.arg critique}.",
             "argument")
  }
  parsed <- deltabench_parse(critique)
  rows <- lapply(seq_len(n), function(i) {
    gold <- unique(as.integer(c(error_sections[[i]], unuseful_sections[[i]])))
    has_error <- length(gold) > 0
    judge <- parsed$judge[[i]]
    failed <- is.na(judge)
    predicted <- parsed$sections[[i]]
    if (clip_predictions && has_error) predicted <- predicted[predicted <= max(gold)]
    out <- list(judge = judge, has_error = has_error, predicted = list(predicted),
                tp = NA_integer_, fp = NA_integer_, fn = NA_integer_, precision = NA_real_,
                recall = NA_real_, f1 = NA_real_, correct = NA_integer_, failed = failed)
    if (failed) return(out)
    out$correct <- as.integer(judge == has_error &&
                                (!has_error || any(predicted %in% gold)))
    if (has_error) {
      p <- unique(predicted)
      out$tp <- length(intersect(p, gold))
      out$fp <- length(setdiff(p, gold))
      out$fn <- length(setdiff(gold, p))
      out$precision <- ratio0(out$tp, out$tp + out$fp)
      out$recall <- ratio0(out$tp, out$tp + out$fn)
      out$f1 <- ratio0(2 * out$precision * out$recall, out$precision + out$recall)
    }
    out
  })
  col <- function(name, type) vapply(rows, function(r) r[[name]], type)
  tibble::tibble(
    judge = col("judge", 1L), has_error = col("has_error", TRUE),
    predicted = lapply(rows, function(r) r$predicted[[1]]),
    tp = col("tp", 1L), fp = col("fp", 1L), fn = col("fn", 1L),
    precision = col("precision", 1), recall = col("recall", 1), f1 = col("f1", 1),
    correct = col("correct", 1L), failed = col("failed", TRUE)
  )
}

ratio0 <- function(x, y) if (y > 0) x / y else 0

#' DeltaBench's section-level protocol as a vitals Task
#'
#' @description
#' DeltaBench's own evaluation of a critic model: one critique per long chain of thought
#' with DeltaBench's critic prompt ([deltabench_prompt()], over `sections_content`), at
#' `temperature = 1, top_p = 0.8`, naming **every** erroneous section. Each critique is
#' scored by precision, recall and F1 between the predicted and the gold sections (erroneous
#' and unuseful sections); [deltabench_summary()] gives macro and micro averages, overall and
#' by `task_l1`.
#'
#' For the first-error task with majority voting on the same data, use
#' [processbench_task()]: it asks a different question (one index, not a set), so its
#' numbers are not comparable; see `vignette("processbench")`.
#'
#' * `deltabench_dataset()` reads a `processbench` task table made by [prepare_deltabench()]
#'   (by default the shipped made-up sample) and adds `input` (the critic prompt) and
#'   `target` (the gold sections, as text).
#' * `deltabench_solver()` sends each prompt once through [generate_solver()] (cache,
#'   retries, failure isolation).
#' * `deltabench_scorer()` scores each critique (see "Scores"). Its explanation says what
#'   the critique concluded and which sections it named vs the gold sections.
#'
#' The task is a [ResultsTask]: its log (see `vitals::vitals_view()`) shows
#' [deltabench_summary()]'s overall macro F1, precision and recall and its accuracy as
#' headline metrics, the scorer as `deltabench_score`, each sample's `label`, `task_l1`,
#' `task_l2`, `error_sections` and `unuseful_sections` and the scorer's metadata as
#' key-value fields, and the model usage `$get_cost()` reports (cached critiques cost
#' nothing).
#'
#' @section Scores:
#' The per-sample score is the critique's section F1 (0 to 1) for a sample with errors; for
#' an error-free sample it is 1 when the critique says there is no error and 0 otherwise; it
#' is `NA` for a failed request. vitals' accuracy is the mean of these when none is `NA`; the
#' benchmark's metrics come from [deltabench_summary()].
#'
#' @section Differences from the original:
#' * Failed requests: the original retries, then leaves failed rows out of the averages
#'   without saying so. Here they are counted (`n_failed`) and announced, and
#'   `deltabench_summary(failed = "zero")` counts them as wrong instead of dropping them.
#' * Error-free samples: the original's scoring crashes on them (`max()` of an empty list)
#'   and silently leaves them out of the section metrics; here they are left out of the
#'   section metrics by rule, and counted (`n_error_free`) with their own accuracy.
#' * `clip_predictions = FALSE` (not the default) removes the original's rule of dropping
#'   predicted sections beyond the last gold section.
#' * Requests run in parallel through [generate_responses()], with a response cache.
#' * Field names: the original script reads `idea_error_section_numbers`,
#'   `error_section_numbers` and `evaluation_label` from its internal data; the released
#'   data has `reason_error_section_numbers` and `reason_unuseful_section_numbers`. Here the
#'   gold set is their union and a sample "has errors" when that set is not empty.
#' * Metrics are fractions, as in the original's CSV. The original's
#'   sample-level detection precision, recall and F1 (did the critique flag the right
#'   solutions) are not reported; its `accuracy` is.
#'
#' @param path A task table (parquet) or a data frame in the `processbench` schema with
#'   `error_sections`, `unuseful_sections` and `sections_content` (DeltaBench data); `NULL`
#'   is the shipped sample.
#' @inheritParams task-table-args
#' @param temperature,top_p Sampling parameters, by default DeltaBench's (1 and 0.8).
#' @param params Other request parameters, such as `list(max_tokens = 4096)`.
#' @param clip_predictions See [deltabench_score_critiques()].
#' @param dataset A table from `deltabench_dataset()`.
#' @param solver,scorer By default `deltabench_solver()` and `deltabench_scorer()`.
#' @inheritParams processbench_task
#' @returns `deltabench_dataset()` a tibble; `deltabench_solver()` and `deltabench_scorer()`
#'   functions for [vitals::Task]; `deltabench_task()` a [ResultsTask] (a [vitals::Task]).
#'   The scorer's
#'   `scorer_metadata` holds `judge`, `predicted`, `gold`, `tp`, `fp`, `fn`, `precision`,
#'   `recall`, `f1` and `correct`.
#' @family processbench and deltabench
#' @export
#' @examples
#' tsk <- deltabench_task(dir = tempfile(), solver = deltabench_solver(cache = FALSE))
#' tsk$eval(
#'   solver_chat = baseline_constant("Conclusion: yes\nError Section Number: 2\nExplanation: x"),
#'   view = FALSE
#' )
#' deltabench_summary(tsk)
deltabench_task <- function(dataset = deltabench_dataset(), solver = deltabench_solver(),
                            scorer = deltabench_scorer(), epochs = NULL,
                            dir = vitals::vitals_log_dir(), name = "deltabench",
                            limit = NULL) {
  dataset <- deltabench_with_prompts(dataset)
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, name = name,
                 limit = limit, benchmark = "deltabench",
                 metadata_fields = c("label", "task_l1", "task_l2", "error_sections",
                                     "unuseful_sections"))
}

deltabench_with_prompts <- function(dataset) {
  dataset <- validate_task_table(dataset, "processbench")
  check_processbench_rows(dataset)
  missing <- vapply(dataset$error_sections, is.null, TRUE) | is.na(dataset$sections_content)
  if (any(missing)) {
    abort_pb(
      c("DeltaBench's section-level protocol needs DeltaBench data.",
        i = "Row {which(missing)[[1]]} has no {.field error_sections} or {.field sections_content}; make the table with {.fn prepare_deltabench}."),
      "field", row = which(missing)[[1]], field = "error_sections"
    )
  }
  dataset$unuseful_sections <- lapply(dataset$unuseful_sections, function(x) x %||% integer())
  dataset$input <- deltabench_prompt(dataset$problem, dataset$sections_content)
  dataset$target <- vapply(seq_len(nrow(dataset)), function(i) {
    gold <- sort(unique(c(dataset$error_sections[[i]], dataset$unuseful_sections[[i]])))
    if (length(gold)) paste(gold, collapse = ", ") else "no error"
  }, "")
  dataset
}

#' @rdname deltabench_task
#' @export
deltabench_dataset <- function(path = NULL, limit = NULL, shuffle = FALSE) {
  processbench_dataset(path, limit = limit, shuffle = shuffle)
}

#' @rdname deltabench_task
#' @export
deltabench_solver <- function(temperature = 1, top_p = 0.8, params = NULL, cache = TRUE,
                              max_active = 10, rpm = 500, max_tries = 3,
                              batch = getOption("predictivebench.batch", FALSE), wait = TRUE) {
  check_number(temperature)
  check_number(top_p)
  settings <- utils::modifyList(list(temperature = temperature, top_p = top_p),
                                params %||% list())
  generate_solver(params = settings, cache = cache, max_active = max_active, rpm = rpm,
                  max_tries = max_tries, batch = batch, wait = wait)
}

#' @rdname deltabench_task
#' @export
deltabench_scorer <- function(clip_predictions = TRUE) {
  check_flag(clip_predictions)
  function(samples, ...) {
    scored <- deltabench_score_critiques(samples$result, samples$error_sections,
                                         lapply(samples$unuseful_sections, function(x) x %||% integer()),
                                         clip_predictions = clip_predictions)
    score <- ifelse(scored$has_error, scored$f1, as.double(scored$judge == 0))
    list(
      score = score,
      explanation = deltabench_explanation(scored, samples$target),
      scorer_metadata = lapply(seq_len(nrow(scored)), function(i) {
        list(judge = scored$judge[[i]], predicted = scored$predicted[[i]],
             gold = sort(unique(c(samples$error_sections[[i]], samples$unuseful_sections[[i]]))),
             tp = scored$tp[[i]], fp = scored$fp[[i]], fn = scored$fn[[i]],
             precision = scored$precision[[i]], recall = scored$recall[[i]],
             f1 = scored$f1[[i]], correct = scored$correct[[i]])
      })
    )
  }
}

# Why a critique scored what it did: what it concluded and named vs the gold sections.
deltabench_explanation <- function(scored, target) {
  named <- vapply(scored$predicted, function(p) {
    if (length(p)) paste("errors in sections", paste(p, collapse = ", ")) else "errors"
  }, "")
  said <- ifelse(scored$judge %in% 1L, named, "no error")
  how <- ifelse(scored$has_error, paste0("F1 ", format(scored$f1, digits = 3)),
                ifelse(scored$judge %in% 0L, "correct", "wrong"))
  ifelse(scored$failed, "no critique (the request failed): not scored",
         paste0("critique: ", said, " vs gold ", target, ": ", how))
}

#' DeltaBench headline numbers
#'
#' @description
#' DeltaBench's section-level metrics, as fractions from 0 to 1, overall and by group (by default
#' `task_l1`), computed from the critiques (the samples' `result`) with
#' [deltabench_score_critiques()]:
#'
#' * **macro** precision, recall and F1: the mean over samples with errors of each sample's
#'   values, with 95% normal intervals;
#' * **micro** precision, recall and F1: from the summed true/false positives and false
#'   negatives;
#' * `accuracy`: the share of answered samples whose critique is `correct` (right conclusion
#'   and, with errors, at least one gold section named), the original's `accuracy`;
#' * `error_free_accuracy`: the share of error-free samples judged error-free.
#'
#' The rows have the columns every predictivebench summary has, one row per group and
#' metric; `n` is the number of samples behind each estimate (samples with errors for the
#' macro and micro metrics, error-free ones for `error_free_accuracy`, all answered ones for
#' `accuracy`).
#'
#' @param x An evaluated [deltabench_task()], its `$get_samples()` tibble, or the log file
#'   it wrote (or that log read by [log_samples()]).
#' @param by The grouping column (default `"task_l1"`), or `NULL`.
#' @param clip_predictions See [deltabench_score_critiques()]; the default keeps the
#'   original's rule.
#' @param failed `"drop"` (the default, as the original) leaves samples without a critique
#'   out of the metrics (they are still counted in `n_failed`, and a message says so);
#'   `"zero"` counts them as critiques that found nothing.
#' @param cluster Clusters of samples for the macro and accuracy intervals (see
#'   [resolve_cluster()]): by default the solutions of one `problem` when some problem has
#'   several in the data, else each item's epochs (`id`); with one of each, the naive
#'   interval. `NULL` treats every sample as independent.
#' @returns A tibble with eight rows per group (`"overall"` first), one per `metric`
#'   (`"precision_macro"`, `"recall_macro"`, `"f1_macro"`, `"precision_micro"`,
#'   `"recall_micro"`, `"f1_micro"`, `"accuracy"`, `"error_free_accuracy"`): `group`,
#'   `metric`, `estimate`, `lower`, `upper` (95% normal intervals for the means; `NA` for
#'   the micro metrics), `n`, and the group's counts `n_with_errors`, `n_error_free` and
#'   `n_failed` (samples without a critique, counted in the first two as well). Its class
#'   `benchmark_summary` gives it a plot: `ggplot2::autoplot()` draws a panel per metric and
#'   a bar per group (see [autoplot_summary()]). The rows `"overall f1_macro"`,
#'   `"overall precision_macro"`, `"overall recall_macro"` and `"overall accuracy"` (their
#'   keys, see [summary_keys()]) are the task's headline metrics: the numbers the log's
#'   header shows in `vitals_view()`.
#' @family processbench and deltabench
#' @export
#' @examples
#' samples <- tibble::tibble(
#'   task_l1 = c("math", "math", "code"),
#'   error_sections = list(c(2L, 4L), integer(), 1L),
#'   unuseful_sections = list(integer(), integer(), integer()),
#'   result = c("Conclusion: yes\nError Section Number: 2", "Conclusion: no error", NA)
#' )
#' deltabench_summary(samples)
#' # a task's summary, read from its log file, and its plot
#' tsk <- deltabench_task(dir = tempfile(), solver = deltabench_solver(cache = FALSE))
#' tsk$eval(solver_chat = baseline_constant("Conclusion: yes\nError Section Number: 2"),
#'          view = FALSE)
#' s <- deltabench_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
deltabench_summary <- function(x, by = "task_l1", clip_predictions = TRUE,
                               failed = c("drop", "zero"), cluster = "default") {
  failed <- rlang::arg_match(failed)
  x <- benchmark_samples(
    x, c("result", "error_sections", "unuseful_sections"),
    paste("an evaluated DeltaBench task, its log file, or its samples (with {.field result},",
          "{.field error_sections} and {.field unuseful_sections})."),
    by = by
  )
  unuseful <- lapply(x$unuseful_sections, function(s) s %||% integer())
  scored <- deltabench_score_critiques(x$result, x$error_sections, unuseful,
                                       clip_predictions = clip_predictions)
  scored$cluster <- resolve_cluster(x, cluster, benchmark_cluster("deltabench", x)) %||%
    seq_len(nrow(x))
  if (failed == "zero") {
    gold_n <- vapply(seq_len(nrow(x)), function(i) {
      length(unique(c(x$error_sections[[i]], unuseful[[i]])))
    }, 1L)
    f <- scored$failed
    scored$tp[f & scored$has_error] <- 0L
    scored$fp[f & scored$has_error] <- 0L
    scored$fn[f & scored$has_error] <- gold_n[f & scored$has_error]
    scored$precision[f & scored$has_error] <- 0
    scored$recall[f & scored$has_error] <- 0
    scored$f1[f & scored$has_error] <- 0
    scored$correct[f] <- 0L
  }
  group <- if (is.null(by)) rep(NA_character_, nrow(x)) else as.character(x[[by]])
  groups <- if (is.null(by)) character() else sort(unique(group[!is.na(group)]))
  rows <- lapply(c("overall", groups), function(g) {
    keep <- if (g == "overall") rep(TRUE, nrow(x)) else group %in% g
    deltabench_group_row(g, scored[keep, ], failed)
  })
  n_failed <- sum(scored$failed)
  if (n_failed) {
    cli::cli_inform(
      c("{n_failed} sample{?s} ha{?s/ve} no critique (a failed request).",
        i = if (failed == "drop") "They are left out of the metrics; {.code failed = \"zero\"} counts them as wrong."
            else "They count as critiques that found nothing."),
      class = "predictivebench_message_failed"
    )
  }
  benchmark_summary(do.call(rbind, rows), "deltabench", by = by %||% "group",
                    interval = deltabench_interval)
}

deltabench_group_row <- function(group, s, failed) {
  answered <- if (failed == "drop") !s$failed else rep(TRUE, nrow(s))
  with_errors <- s[s$has_error & answered, ]
  error_free <- s[!s$has_error & answered, ]
  tp <- sum(with_errors$tp)
  fp <- sum(with_errors$fp)
  fn <- sum(with_errors$fn)
  p_micro <- ratio0(tp, tp + fp)
  r_micro <- ratio0(tp, tp + fn)
  micro <- function(value) {
    list(mean = if (nrow(with_errors)) value else NA_real_, lower = NA_real_,
         upper = NA_real_, n = nrow(with_errors))
  }
  ci <- function(x, cl) mean_ci(as.double(x), limits = c(0, 1), cluster = shared_cluster(cl))
  ci_errors <- function(x) ci(x, with_errors$cluster)
  rows <- list(
    precision_macro = ci_errors(with_errors$precision),
    recall_macro = ci_errors(with_errors$recall),
    f1_macro = ci_errors(with_errors$f1), precision_micro = micro(p_micro),
    recall_micro = micro(r_micro),
    f1_micro = micro(ratio0(2 * p_micro * r_micro, p_micro + r_micro)),
    accuracy = ci(s$correct[answered], s$cluster[answered]),
    error_free_accuracy = ci(error_free$judge == 0, error_free$cluster)
  )
  do.call(rbind, lapply(names(rows), function(metric) {
    summary_rows(group, metric, rows[[metric]], n_with_errors = sum(s$has_error),
                 n_error_free = sum(!s$has_error), n_failed = sum(s$failed))
  }))
}
