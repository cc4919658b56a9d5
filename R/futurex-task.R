# The FutureX Task: preparing and reading the task table, and the vitals Task.

#' Flatten FutureX files into a task table
#'
#' Runs the Python flattener on a FutureX question set or predictions file (a JSON array of
#' `{id, prompt, end_time, level, ground_truth, Std, "additional values", Description}`
#' objects, plus `answer` in a predictions file) and writes the `futurex` task table. See
#' [prepare_task_table()] for how Python is found.
#'
#' @param source The JSON file.
#' @param out The parquet file to write, or `NULL` to return the table.
#' Real FutureX files contain ids that a spreadsheet rounded (`6.85147E+23`), shared by
#' different questions (two in the pinned `250915` file). Such an id, one in scientific
#' notation, always becomes `<id>#<the first 8 hex digits of the sha256 of its prompt>`, so
#' it is unique, the same in every run and the same in a question file and its predictions
#' files, whatever their order. The reference evaluator never reads ids, so this changes no
#' score. Other ids are kept as written.
#'
#' @param duplicate_ids For any other repeated id: `"error"` (the default) stops;
#'   `"suffix"` keeps every item and renames repeats `id#2`, `id#3`, ... in file order.
#' @param on_error `"error"` (the default) stops at the first malformed item (a missing
#'   field, a level outside 1-4, ...) with an error naming its row and field; `"skip"`
#'   leaves malformed items out and lists them (on standard error).
#' @returns The path `out` (invisibly), or the table.
#' @noRd
prepare_futurex <- function(source, out = NULL, duplicate_ids = c("error", "suffix"),
                            on_error = c("error", "skip")) {
  duplicate_ids <- rlang::arg_match(duplicate_ids)
  on_error <- rlang::arg_match(on_error)
  run_flattener("futurex", source, out = out, duplicate_ids = duplicate_ids,
                     on_error = on_error)
}

#' FutureX: forecasting as a vitals Task
#'
#' @description
#' FutureX asks a model to forecast events; each question has a level:
#' 1 single choice, 2 multiple choice, 3 and 4 open answers, scored as numbers when the item
#' has a standard deviation `Std` and as rankings otherwise. `futurex_task()` runs the
#' dataset's own prompts through the package's request engine (cache, retries, failure isolation) and
#' scores the answers exactly as the reference evaluator (`eval.py`) does; [futurex_summary()]
#' gives its level-weighted overall score. To score a predictions file without a model, use
#' [futurex_score()].
#'
#' * `futurex_dataset()` reads a task table: by default the real question set `"250915"`
#'   (53 questions, downloaded once; `version = "sp500"` for the other), or
#'   `version = "sample"` for the bundled sample of eleven fictional questions.
#' * `futurex_solver()` sends each `input` as one user message.
#' * `futurex_scorer()` scores each answer in `[0, 1]`; see "Scoring". Its explanation
#'   says why: the kind of item and the extracted answer vs the target (and the values
#'   compared, for numeric items).
#'
#' The task is a `ResultsTask`: its log (see `vitals::vitals_view()`) shows
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
#' retries, the plain parse is used and the reason is kept in the sample's scorer metadata:
#' `judge_error` for a request that failed (a failed request: [report_failures()] lists it,
#' and [eval_set()] asks it again), `judge_note` for a reply without the numbers (a note,
#' not a failure: asking again would bring the same reply from the cache). Items the judge never sees (levels 1 and 2, rankings, no
#' answer) get a scorer chat that says so, so that `vitals_view()` shows every sample.
#'
#' @section Judge panels:
#' A list of chats as `judge` or `scorer_chat` is a panel: every judge normalizes every
#' numeric item (all their requests in one pool, each cached as that judge's alone), each
#' judge's two values give a score by the rule above (the plain parse where that judge failed
#' or gave no values), and the item's score is the mean of those scores. The mean of scores,
#' not a median of values: each judge reads both numbers in one unit of its choosing, so
#' values taken from different judges could compare numbers in two units. The sample's
#' `pred_value` and `truth_value` are the judges' medians (for reading), `normalization` is
#' `"mixed"` when the judges' differ, `judge_error` and `judge_note` name the judge, and
#' `scorer_metadata$judges` keeps each judge's own values, score, normalization and error (a
#' JSON array). A list of one chat is that chat.
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
#' * Reasoning is kept, never scored. The reference's models showed no reasoning, and
#'   `eval.py` takes the first `\boxed{}` of the text: of a reasoning model's text that
#'   would be a guess inside its thinking. Here the answer is the text after the thinking
#'   (`<think>...</think>`, or a provider's reasoning field such as vLLM's
#'   `reasoning_content`, kept in the sample's chat as reasoning), for a task's answers, the
#'   judge's replies and [futurex_score()]'s predictions alike. An answer that exists only
#'   in unfinished thinking (cut off at the token limit) is an empty answer and scores 0;
#'   each sample's `solver_metadata$truncated` says whether its answer was cut off, and
#'   [futurex_summary()] counts them (a note, and the summary's attribute `truncated`).
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param temperature,params,system_prompt The request's temperature, other parameters
#'   (see [ellmer::params()]) and system prompt; by default
#'   (`NULL`) the chat is used as configured (the reference sends only the prompt).
#' @inheritParams settings-args
#' @param number_rule `"reference"` (first run of digits and dots, as `eval.py`) or
#'   `"strict"` (signed numbers with thousands separators).
#' @param dataset A task table (tibble) from `futurex_dataset()`.
#' @param solver,scorer A solver and scorer, by default `futurex_solver()` and
#'   `futurex_scorer()`.
#' @param judge For `futurex_task()`: the chat given to the default scorer as its
#'   `scorer_chat` (the unit normalization of numeric items, see `futurex_scorer()`);
#'   `NULL` (the default) scores without it, as the reference does. A list of chats is a
#'   panel of judges (see "Judge panels"). Ignored when you give your own `scorer`.
#' @inheritParams generate_solver
#' @returns `futurex_dataset()` a tibble; `futurex_solver()` and `futurex_scorer()`
#'   functions for [vitals::Task]; `futurex_task()` a `ResultsTask` (a [vitals::Task]).
#' @family futurex
#' @export
#' @examples
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile())
#' guess <- baseline_chat(choices = c("A", "B", "Yes", "No"), template = "\\boxed{%s}")
#' tsk$eval(solver_chat = guess, view = FALSE)
#' futurex_summary(tsk)
futurex_task <- function(dataset = futurex_dataset(), solver = futurex_solver(),
                         scorer = futurex_scorer(scorer_chat = judge), epochs = NULL,
                         dir = vitals::vitals_log_dir(), name = "futurex", judge = NULL) {
  dataset <- validate_task_table(dataset, "futurex")
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir,
                 benchmark = "futurex",
                 options = task_options(name, metadata_fields = c("level", "std", "end_time")))
}

#' @rdname futurex_task
#' @export
futurex_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  benchmark_dataset("futurex", path, limit = limit,
                    shuffle = shuffle, version = version)
}

#' @rdname futurex_task
#' @export
futurex_solver <- function(temperature = NULL, params = NULL, system_prompt = NULL,
                           settings = NULL) {
  check_number(temperature, allow_null = TRUE)
  if (!is.null(temperature)) {
    params <- utils::modifyList(list(temperature = temperature), params %||% list())
  }
  generate_solver(system_prompt = system_prompt, params = params,
                  settings = as_request_settings(settings))
}

#' @rdname futurex_task
#' @param scorer_chat An ellmer chat for the optional unit normalization of numeric items,
#'   given to `futurex_scorer()` or through `$eval(scorer_chat = )`; `NULL` skips it. A list
#'   of chats is a panel of judges: each normalizes every numeric item, and the item's score
#'   is the mean of the scores each judge's values give (see "Judge panels").
#' @export
futurex_scorer <- function(number_rule = c("reference", "strict"), scorer_chat = NULL,
                           settings = NULL) {
  number_rule <- rlang::arg_match(number_rule)
  settings <- as_request_settings(settings)
  scorer_chat <- check_judge(scorer_chat, allow_null = TRUE)
  default_chat <- scorer_chat
  scorer <- function(samples, ..., scorer_chat = default_chat) {
    scorer_chat <- check_judge(scorer_chat, allow_null = TRUE)
    scores <- futurex_score_items(samples$result, samples, number_rule, scorer_chat,
                                  settings_with_dots(settings, ...))
    out <- list(
      score = score_values(scores$score),
      explanation = futurex_explanation(scores, samples$target),
      scorer_chat = if (!is.null(scorer_chat)) scores$chat,
      scorer_metadata = lapply(seq_len(nrow(scores)), function(i) {
        meta <- list(kind = scores$kind[[i]], extracted = scores$extracted[[i]],
                     pred_value = scores$pred_value[[i]], truth_value = scores$truth_value[[i]],
                     normalization = scores$normalization[[i]],
                     judge_error = scores$judge_error[[i]])
        # (only where there is one: a log without notes reads as it did)
        if (!is.na(scores$judge_note[[i]])) meta$judge_note <- scores$judge_note[[i]]
        if (!is.null(scorer_chat)) meta <- c(meta, scores$judge_usage[[i]])
        # a panel's numeric item: each judge's own values and score (R/judges-panel.R)
        if ("judges" %in% names(scores) && !is.na(scores$judges[[i]])) {
          meta$judges <- scores$judges[[i]]
        }
        meta
      })
    )
    out[!vapply(out, is.null, TRUE)]
  }
  with_judge(scorer, default_chat)  # (its key read before the run)
}
