# The ProcessBench Task: preparing and reading the task table, and the vitals Task that
# critiques each solution's steps.

#' @noRd
prepare_processbench <- function(source, out = NULL, split = NULL,
                                 on_error = c("error", "skip")) {
  check_strings(source)
  if (!is.null(split)) {
    check_strings(split)
    if (length(split) != length(source)) {
      abort_pb("{.arg split} must name each of the {length(source)} file{?s}.", "argument",
               field = "split")
    }
  }
  on_error <- rlang::arg_match(on_error)
  run_flattener("processbench", source, out = out, split = python_strings(split),
                     on_error = on_error)
}

#' ProcessBench-style first-error identification as a vitals Task
#'
#' @description
#' Given a problem and a solution split into steps, the model returns the 0-based index of
#' the first wrong step, or `-1` if there is none. `processbench_task()` runs this over
#' the real ProcessBench (the default: version `"hf"`, its four splits, 3,400 samples,
#' downloaded once; `"2f2fd8ae"` is the paper's GitHub release), DeltaBench data, or, with
#' `version = "sample"`, a shipped sample of made-up DeltaBench-format records,
#' with `n_votes = 8` sampled critiques per sample at `temperature = 0.7`
#' and a majority vote over the boxed answers. [processbench_summary()] gives the
#' benchmark's metrics (error accuracy, correct accuracy and their harmonic mean F1).
#'
#' For DeltaBench's own section-level protocol (all erroneous sections, precision/recall
#' over section sets), use [deltabench_task()]; the vignette explains why the two give
#' different numbers.
#'
#' * `processbench_dataset()` reads a `processbench` task table (by default the real
#'   ProcessBench; `version = "sample"`: the DeltaBench sample, see "The sample") and adds
#'   `input` (the prompt) and `target` (the label). It,
#'   and `processbench_task()` given a data frame, check each row as the flatteners do: a
#'   solution with no steps, a missing or blank step, a label outside -1 to the last step's
#'   index, or a section number past the last step stops with a `predictivebench_error_field`
#'   naming the file, row and field.
#' * `processbench_solver()` sends each prompt `n_votes` times, each vote its own request
#'   with its own epoch (so each vote is its own cache entry and a re-run costs nothing),
#'   and votes.
#' * `processbench_scorer()` marks a sample correct (`C`, logged as 1) iff the prediction
#'   equals the label. Its explanation lists the votes and the majority vs the label.
#'
#' The task is a `ResultsTask`: its log (see `vitals::vitals_view()`) shows
#' [processbench_summary()]'s overall F1, error accuracy and correct accuracy as headline
#' metrics, the scorer as `processbench_score`, each sample's `label`, `task_l1`,
#' `task_l2`, `generator` and `final_answer_correct` and the solver's metadata as key-value
#' fields, and model usage that counts all `n_votes` requests of each sample (as
#' `$get_cost()` does; cached votes cost nothing).
#'
#' @section Greedy mode:
#' `n_votes = 1, temperature = 0` reproduces ProcessBench's default (non-voting) protocol.
#' The defaults reproduce its voting protocol with DeltaBench's ProcessBench-style settings.
#'
#' @section Differences from the original:
#' * Votes are separate requests (the same prompt, epochs 1 to `n_votes`, never a fixed seed
#'   shared by every request, which would make the votes identical: a seed is offset per
#'   vote, see `params`). ProcessBench asked vLLM
#'   for `n` samples in one call; the samples are drawn the same way, only billed as
#'   separate requests (the prompt is paid `n_votes` times, unless the provider caches it);
#'   `n_per_request = TRUE` asks for them in one request instead.
#' * Sampling parameters: ProcessBench's voting used `temperature = 1, top_p = 0.9` (0.7 /
#'   0.8 / top-k 20 for Qwen2.5-Math); here the default is `temperature = 0.7` and no
#'   `top_p`; pass `temperature` and `params = list(top_p = 0.9)` to match a given run.
#' * The answer is the last `\boxed{}` with nested braces matched; ProcessBench's regular
#'   expression stopped at the first `}`, so `\boxed{\text{2}}` gave no answer there.
#' * Votes are whole numbers before counting: `"02"`, `"+2"` and `"2"` are one vote for 2.
#'   ProcessBench counted the raw strings, and a winning string that was not a number gave no
#'   prediction; here invalid votes are dropped first, so the majority of valid votes wins.
#' * Ties go to the value seen first (as Python's `Counter.most_common()` does).
#' * A failed request is a missing vote, reported in the metadata, never a crash.
#' * Reasoning is kept, never counted. ProcessBench's critic models wrote their reasoning in
#'   the critique itself, and a reasoning model's `<think>...</think>` (or a server's
#'   `reasoning_content`) would put a guessed `\boxed{}` before the answer; here each vote
#'   is read from the text after the thinking (with `n_per_request = TRUE`, each choice's),
#'   so only the answer votes. A vote whose answer exists only in unfinished thinking (cut
#'   off at the token limit) is an invalid vote; `solver_metadata$truncated` counts a
#'   sample's votes cut off, and [processbench_summary()] counts them over the run.
#' * ProcessBench printed the accuracies and F1 and wrote `{split}_error.jsonl` and
#'   `{split}_correct.jsonl`; here [processbench_summary()] reports them as fractions (0 to
#'   1, not percent) and adds counts, intervals and the mean of the groups' F1; each
#'   sample's votes are in the task's log (`tsk$log_path`).
#' * The flatteners check the data (a label or section number past the last step, an empty
#'   step, a section without content stop with an error, or are skipped with
#'   `on_error = "skip"`); the original loaded whatever it was given.
#'
#' @section The sample:
#' `processbench_dataset(version = "sample")`, and `"processbench@sample"` in [eval_set()],
#' is DeltaBench's sample: the same 8 made-up solutions as `deltabench_dataset(version =
#' "sample")`, prepared from `extdata/deltabench-sample.jsonl` as a `processbench` task
#' table. This is on purpose: ProcessBench's protocol and DeltaBench's then judge the same
#' solutions, so their numbers can be set side by side (`vignette("processbench")`). Its
#' groups (`task_l1`) are therefore DeltaBench's task categories (`"math"`, `"code"`,
#' `"physics"`), not ProcessBench's splits (`"gsm8k"`, `"math"`, `"olympiadbench"`,
#' `"omnimath"`), and not all its problems are maths problems.
#'
#' A made-up split in ProcessBench's own format (each solution's `steps`, its 0-based
#' `label`, `generator` and `final_answer_correct`; 6 solutions, `task_l1` `"sample"`)
#' ships beside it, read with
#' `processbench_dataset(system.file("extdata", "processbench-sample.parquet",
#' package = "predictivebench"))`; `extdata/processbench-sample.json` is the same split as
#' ProcessBench publishes its splits, the file that
#' `prepare_task_table("processbench", ...)` reads. `data-raw/processbench.R` writes both
#' samples.
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param template The prompt wording: `"generic"` ("a problem", `[Problem]`, as
#'   DeltaBench's ProcessBench-style runs word it) or `"processbench"` (ProcessBench's own
#'   template: "a math problem", `[Math Problem]`, and `(which typically denotes "not
#'   found")`).
#' @param n_votes Critiques sampled per sample (default 8). 1 with `temperature = 0` is
#'   greedy decoding, the cheapest run.
#' @param system_prompt `NULL` (the chat's own; the original sends none) or a system prompt.
#' @param temperature Sampling temperature (default 0.7). Voting needs a positive
#'   temperature, or the votes are (nearly) identical.
#' @param params Other request parameters (see [ellmer::params()]), such as
#'   `list(top_p = 0.9, max_tokens = 8192)`. They override the chat's own. A `seed` (here
#'   or set on the chat with `ellmer::params(seed = )`) is offset per vote: vote `j` is sent
#'   with `seed + j - 1`, counting votes across vitals epochs (the k-th epoch's votes are
#'   `(k - 1) * n_votes + 1` to `k * n_votes`). A run is then reproducible, yet its votes
#'   differ; one fixed seed on every request would make them identical. A provider that
#'   ignores `seed` (OpenAI's Responses API, Anthropic) says so once per eval.
#' @param n_per_request `FALSE` (the default) sends each vote as its own request, which
#'   works with every provider. It stays the default because many OpenAI-compatible
#'   providers ignore `n` (returning one choice) or reject the request outright. `TRUE` asks
#'   for all `n_votes` in one request with the OpenAI-style `n` field, as ProcessBench did
#'   with vLLM: the prompt's input tokens are paid once where the provider honours `n`
#'   (OpenAI, vLLM). When a response holds fewer choices than asked, the missing votes are
#'   requested as separate requests (the epochs, seeds and cache entries
#'   `n_per_request = FALSE` would use), with a message (`predictivebench_message_n_ignored`),
#'   so every sample still gets `n_votes` votes. The `n` response is one cache entry; a
#'   failed `n` request loses all its votes (recorded per vote in `errors`). Providers
#'   whose API has no `n` (OpenAI's Responses API, i.e. [ellmer::chat_openai()];
#'   Anthropic; Gemini; Bedrock) are refused up front with an error.
#' @param dataset A table from `processbench_dataset()`.
#' @param solver,scorer By default `processbench_solver()` and `processbench_scorer()`.
#' @param epochs Passed to [vitals::Task]: each epoch draws `n_votes` new critiques.
#' @inheritParams generate_responses
#' @returns `processbench_dataset()` a tibble; `processbench_solver()` and
#'   `processbench_scorer()` functions for [vitals::Task]; `processbench_task()` a
#'   `ResultsTask` (a [vitals::Task]). The solver's result is the prediction as a string
#'   (`NA` when no vote was valid); its `solver_metadata` holds `prediction`, `votes`,
#'   `critiques` (every raw text), `errors` (one per vote), `n_valid`, `n_votes`,
#'   `cached`, tokens, cost and seconds.
#' @family processbench and deltabench
#' @order 1
#' @export
#' @examples
#' tsk <- processbench_task(processbench_dataset(version = "sample"),
#'                          dir = tempfile(),
#'                          solver = processbench_solver(settings = request_settings(cache = FALSE)))
#' guess <- baseline_chat(choices = c("-1", "0", "1", "2"), template = "\\boxed{%s}")
#' tsk$eval(solver_chat = guess, view = FALSE)
#' processbench_summary(tsk)
processbench_task <- function(dataset = processbench_dataset(), solver = processbench_solver(),
                              scorer = processbench_scorer(), epochs = NULL,
                              dir = vitals::vitals_log_dir(), name = "processbench",
                              template = c("generic", "processbench")) {
  template <- rlang::arg_match(template)
  dataset <- processbench_with_prompts(dataset, template)
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir,
                 benchmark = "processbench", options = task_options(
                   name, metadata_fields = c("label", "task_l1", "split", "task_l2",
                                             "generator", "final_answer_correct")))
}

processbench_with_prompts <- function(dataset, template) {
  dataset <- validate_task_table(dataset, "processbench")
  check_solution_steps(dataset)
  dataset$input <- processbench_prompt(dataset$problem, dataset$steps, template)
  dataset$target <- as.character(dataset$label)
  dataset
}

#' @rdname processbench_task
#' @order 2
#' @export
processbench_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  benchmark_dataset("processbench", path, limit = limit,
                    shuffle = shuffle, check = check_solution_steps, version = version)
}
