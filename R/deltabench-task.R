# The DeltaBench Task: the task table, and the one-critique solver and section-set scorer.

#' Flatten DeltaBench or ProcessBench files into a task table
#'
#' @description
#' Run the Python flattener over a DeltaBench release or a ProcessBench split and get the
#' `processbench` task table: one row per solution with `id`, `problem`, `steps` (a list of
#' strings), `label` (the 0-based index of the first wrong step, `-1` when all steps are
#' right), `task_l1`, `task_l2`, `origin`, `generator`, `final_answer_correct`, for
#' DeltaBench the raw 1-based `error_sections`, `unuseful_sections` and `sections_content`,
#' and for ProcessBench `split`.
#' See `task_table_schema()``("processbench")` and [prepare_task_table()] for how Python is
#' found.
#'
#' * `prepare_deltabench()` reads DeltaBench's JSON Lines (or a JSON array, or the CSV
#'   release whose list columns are serialized strings: they are parsed as data, never
#'   evaluated). `steps` are the `content` of each entry of `sections`;
#'   `label = min(reason_error_section_numbers) - 1`.
#' * `prepare_processbench()` reads ProcessBench splits (each a JSON array or JSON Lines of
#'   `{id, generator, problem, steps, final_answer_correct, label}`), one file or several
#'   stacked into one table in the order given; `split` and `task_l1` hold each row's split.
#'   ProcessBench's four files (`gsm8k`, `math`, `olympiadbench`, `omnimath`) so make one
#'   table of 3,400 rows, and [processbench_summary()] reports each split and the mean F1
#'   of the splits, as the original does. Ids must be unique across the files.
#'
#' @param source The raw file (`.jsonl`, `.json` or `.csv`); for `prepare_processbench()` a
#'   character vector of files, one per split.
#' @param out The parquet file to write, or `NULL` (the default) to return the table.
#' @param count_unuseful `FALSE` (the default) takes the label from
#'   `reason_error_section_numbers` only. `TRUE` also counts
#'   `reason_unuseful_section_numbers` as errors, as DeltaBench's own section-level ground
#'   truth does ([deltabench_task()] always uses both).
#' @param split The split names stored in `split` and `task_l1`, one per file; `NULL` (the
#'   default) takes each file's name without its extension (`gsm8k.json` gives `"gsm8k"`).
#' @param on_error `"error"` (the default) stops at the first bad record (a section without
#'   content, an empty step, a label or section number past the last step, a malformed line)
#'   with an error naming the file, row and field. `"skip"` leaves such records out and
#'   reports each one on standard error.
#' @returns The path `out` (invisibly), or the table as a tibble.
#' @noRd
prepare_deltabench <- function(source, out = NULL, count_unuseful = FALSE,
                               on_error = c("error", "skip")) {
  check_flag(count_unuseful)
  on_error <- rlang::arg_match(on_error)
  run_flattener("deltabench", source, out = out, count_unuseful = count_unuseful,
                     on_error = on_error)
}

#' DeltaBench's section-level protocol as a vitals Task
#'
#' @description
#' DeltaBench's own evaluation of a critic model: one critique per long chain of thought
#' with DeltaBench's critic prompt (over `sections_content`), at
#' `temperature = 1, top_p = 0.8`, naming **every** erroneous section. Each critique is
#' scored by precision, recall and F1 between the predicted and the gold sections (erroneous
#' and unuseful sections); [deltabench_summary()] gives macro and micro averages, overall and
#' by `task_l1`.
#'
#' For the first-error task with majority voting on the same data, use
#' [processbench_task()]: it asks a different question (one index, not a set), so its
#' numbers are not comparable; see `vignette("processbench")`.
#'
#' * `deltabench_dataset()` reads a `processbench` task table made by
#'   [prepare_task_table()]`("deltabench", source)`
#'   (by default the shipped made-up sample) and adds `input` (the critic prompt) and
#'   `target` (the gold sections, as text).
#' * `deltabench_solver()` sends each prompt once through the package's request engine
#'   (cache, retries, failure isolation).
#' * `deltabench_scorer()` scores each critique (see "Scores"). Its explanation says what
#'   the critique concluded and which sections it named vs the gold sections.
#'
#' The task is a `ResultsTask`: its log (see `vitals::vitals_view()`) shows
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
#' * Requests run in parallel, with a response cache (see [request_settings()]).
#' * Reasoning is kept, never scored: the critique scored is the text after a reasoning
#'   model's thinking (`<think>...</think>`, or a server's `reasoning_content`), which the
#'   original's critic models did not write apart. A critique that exists only in unfinished
#'   thinking (cut off at the token limit) is empty, so it names no section;
#'   `solver_metadata$truncated` says so per sample and [deltabench_summary()] counts them.
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
#'   is the real DeltaBench at `version` (`"v1"`, 1,236 records, downloaded once) or, with
#'   `version = "sample"`, the shipped sample.
#' @inheritParams task-table-args
#' @param temperature,top_p Sampling parameters, by default DeltaBench's (1 and 0.8).
#' @param params Other request parameters, such as `list(max_tokens = 4096)`.
#' @param clip_predictions `TRUE` (the default, the original's rule) drops predicted sections
#'   beyond the last gold section before counting; `FALSE` counts every predicted section
#'   (see [deltabench_summary()]).
#' @param dataset A table from `deltabench_dataset()`.
#' @param solver,scorer By default `deltabench_solver()` and `deltabench_scorer()`.
#' @inheritParams processbench_task
#' @returns `deltabench_dataset()` a tibble; `deltabench_solver()` and `deltabench_scorer()`
#'   functions for [vitals::Task]; `deltabench_task()` a `ResultsTask` (a [vitals::Task]).
#'   The scorer's
#'   `scorer_metadata` holds `judge`, `predicted`, `gold`, `tp`, `fp`, `fn`, `precision`,
#'   `recall`, `f1` and `correct`.
#' @family processbench and deltabench
#' @export
#' @examples
#' tsk <- deltabench_task(deltabench_dataset(version = "sample"),
#'                        dir = tempfile(),
#'                        solver = deltabench_solver(settings = request_settings(cache = FALSE)))
#' tsk$eval(
#'   solver_chat = baseline_chat("Conclusion: yes\nError Section Number: 2\nExplanation: x"),
#'   view = FALSE
#' )
#' deltabench_summary(tsk)
deltabench_task <- function(dataset = deltabench_dataset(), solver = deltabench_solver(),
                            scorer = deltabench_scorer(), epochs = NULL,
                            dir = vitals::vitals_log_dir(), name = "deltabench") {
  dataset <- deltabench_with_prompts(dataset)
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir,
                 benchmark = "deltabench", options = task_options(
                   name, metadata_fields = c("label", "task_l1", "task_l2", "error_sections",
                                             "unuseful_sections")))
}

deltabench_with_prompts <- function(dataset) {
  dataset <- validate_task_table(dataset, "processbench")
  check_solution_steps(dataset)
  missing <- vapply(dataset$error_sections, is.null, TRUE) | is.na(dataset$sections_content)
  if (any(missing)) {
    abort_pb(
      c("DeltaBench's section-level protocol needs DeltaBench data.",
        i = "Row {which(missing)[[1]]} has no {.field error_sections} or {.field sections_content}; make the table with {.code prepare_task_table(\"deltabench\", ...)}."),
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
deltabench_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  benchmark_dataset("processbench", path, limit = limit,
                    shuffle = shuffle, check = check_solution_steps, version = version,
                    versions = "deltabench")
}

#' @rdname deltabench_task
#' @export
deltabench_solver <- function(top_p = 0.8, temperature = 1, params = NULL,
                              system_prompt = NULL, settings = NULL) {
  check_number(temperature)
  check_number(top_p)
  check_string(system_prompt, allow_null = TRUE)
  settings <- as_request_settings(settings)
  request_params <- utils::modifyList(list(temperature = temperature, top_p = top_p),
                                      params %||% list())
  generate_solver(system_prompt = system_prompt, params = request_params,
                  settings = settings)
}

#' @rdname deltabench_task
#' @export
deltabench_scorer <- function(clip_predictions = TRUE) {
  check_flag(clip_predictions)
  function(samples, ...) {
    scored <- deltabench_score_critiques(samples$result, samples$error_sections,
                                         lapply(samples$unuseful_sections, function(x) x %||% integer()),
                                         clip_predictions = clip_predictions)
    list(
      score = score_values(ifelse(scored$has_error, scored$f1, scored$judge == 0)),
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
