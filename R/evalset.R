#' Evaluate many models on many benchmarks, resumably
#'
#' @description
#' `eval_set()` runs every benchmark x model **cell** of an evaluation set (as Inspect AI's
#' `eval_set()` does) and keeps `log_dir` as the record of what is done:
#'
#' * **Cells.** A cell is one benchmark's task evaluated with one model: one vitals log in
#'   `log_dir`, summarised by the benchmark's own registered summary (its headline is the
#'   number the log header and [leaderboard()] show).
#' * **What is done.** A cell is done when `log_dir` holds its complete log, recorded in
#'   `log_dir/.eval-set/<cell id>.json` once the log is written. Calling `eval_set()` again
#'   with the same arguments sends no request and returns the same table. Adding a model or a
#'   benchmark runs only the new cells.
#' * **Identity.** A cell is identified by its benchmark, the benchmark's version (the pinned
#'   files, or a task object's dataset), the task's options (its solver and scorer as
#'   configured, the judge), the model (provider, model, address, parameters, system prompt)
#'   and `epochs`. How requests are sent (`settings`: `max_active`, `rpm`, `timeout`, the
#'   cache, `batch`) and `retries` are not part of it: changing them reruns nothing.
#' * **Resuming.** Every answer is cached as it arrives (see [cache_dir()]), so a set that was
#'   interrupted or killed resumes where it stopped: the cells that finished are done, and a
#'   cell that was running pays again only for the requests it had in flight (at most its
#'   `max_active`).
#' * **Failures.** A cell that fails (an error, a refused key, or a step whose every request
#'   failed) is tried again up to `retries` more times in the same call, then reported with
#'   `status = "failed"` and its `error`; it never stops the other cells, and the next call
#'   tries it again. The log of a failed attempt, if it wrote one, stays in `log_dir` (see
#'   [report_failures()]); only a done cell's log is in the returned `log_path`.
#' * **Overlap.** In one process the cells' requests overlap: each round, every unfinished
#'   cell hands the requests it needs to one shared pool, whose `max_active` is the sum of
#'   the models' own, with the models' requests interleaved; then the cells go on from the
#'   cache (a solver's answers first, then the judge's). So a set takes about as long as its
#'   longest cell plus each cell's own CPU work (its evaluation from the cache, one cell
#'   after another), not the sum of its cells: 1.2 times its longest cell for 4 models x 2
#'   benchmarks at 5 s a request (see `bench/eval-set.R`).
#' * **mirai.** When you have started [mirai::daemons()] (on this machine, over SSH, or on a
#'   cluster through [mirai::cluster_config()]), the cells run in parallel on them through
#'   [mirai::mirai_map()]; the package never starts daemons itself. Each worker rebuilds the
#'   chat from a spec that carries no secret (the ellmer constructor, model, `base_url`,
#'   parameters and system prompt): the key comes from the worker's own environment
#'   (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`, ...), as a chat sent to another process loses its
#'   credentials anyway (ellmer issue 700). A chat's extra headers (`api_headers`) are not
#'   carried either, as they may hold keys. Workers share the response cache and the arena
#'   caches through the file system, under their locks. Offline [baseline_chat()]s travel as
#'   they are. Task objects travel as they are too: give a judge through `judge` (not inside
#'   a task) so that workers rebuild it from its spec.
#' * **Cost.** `dry_run = TRUE` returns the cost preview of the cells still to run
#'   ([estimate_cost()] on each, offline) instead of running them; `max_cost` refuses to
#'   start a set that may cost more (an error of class `predictivebench_error_cost`).
#'
#' @param benchmarks Benchmark names (`"futurex"`, `"processbench"`, `"deltabench"`,
#'   `"probsem"`, `"dsbench"`, `"arena"`) for their default real versions, optionally with a
#'   version after `@` (`"futurex@sample"`, see [benchmark_versions()]), and/or
#'   `<benchmark>_task()` objects (a list; name its elements to run one benchmark with two
#'   configurations). The arena takes part as any benchmark does: each model's answers are
#'   judged against the reference answers ([arena_task()]). By name, only `"arena@sample"`
#'   has them (the bundled ones): `"arena"` and its other versions are refused before any
#'   cell runs (an error of class `predictivebench_error_answers`); give
#'   `arena_task(arena_dataset(), answers = )` with an EloBench answer cache instead.
#' @param models `"provider/model"` strings as [ellmer::chat()] takes them, and/or ellmer
#'   chats (a list). In this process a chat is used as given; on daemons it is rebuilt from
#'   its spec. An offline [baseline_chat()] is identified by its name and its responder: the
#'   function's code and the values it captured. Made again the same way it is the same
#'   model; a responder that captures a changing value (a counter, a whole script's
#'   environment) is a new model each time, and its cells run again.
#' @param log_dir The folder of the set's logs and records (created if needed). Everything
#'   the set writes stays inside it.
#' @param judge The judge chat (or `"provider/model"`) of benchmarks whose task takes one
#'   (FutureX, DSBench, the arena), for benchmarks given by name. `NULL` uses each task's
#'   default.
#' @param settings How requests are sent: a [request_settings()] object, or `NULL` for the
#'   defaults. Not part of a cell's identity. Given to the package's solvers and scorers; a
#'   task object whose solver or scorer is not the package's (such as [vitals::generate()],
#'   which would pass them on to the model as parameters) runs with its own.
#' @param epochs Epochs of every cell, as for `$eval()`; `NULL` for each task's own.
#' @param limit For benchmarks given by name: run only the first `limit` samples (as
#'   `<benchmark>_dataset(limit = )`). Part of the cells' identity. Task objects run the
#'   dataset they were built with.
#' @param retries How many more times a failed cell is tried in this call (default 1: two
#'   attempts). The next call tries failed cells again.
#' @param dry_run `TRUE` sends nothing and returns the cost preview of each cell.
#' @param max_cost `NULL`, or the most (in dollars) the cells still to run may cost, as
#'   [estimate_cost()] bounds it; above it, or when a cell's cost can't be bounded, nothing
#'   is sent.
#' @param arena `NULL`, or a list of [arena_run()] arguments (`version`, `experiment`, `n`,
#'   ...) to end the set with one arena run among its models, judged by `judge`, in
#'   `log_dir/arena` (resumable from its own caches, in this process).
#' @returns A tibble with one row per cell: `benchmark`, `model`, `cell_id`, `status`
#'   (`"done"` or `"failed"`), `log_path`, `metric` (the headline row's key) and `headline`
#'   (its estimate), `cost` (dollars of this run's requests, `0` when every answer was
#'   cached, `NA` when a price is unknown), `attempts` (made in this call; 0 for a cell done
#'   before), `reused` (done before this call) and `error`. With `arena`, the [arena_run()]
#'   result is its attribute `"arena_run"`. With `dry_run = TRUE`: one row per cell with
#'   `status` (`"done"` or `"to run"`) and the columns of [estimate_cost()].
#' @seealso [estimate_cost()] for one task's cost, [leaderboard()] to compare the cells' logs.
#' @export
#' @examples
#' old <- options(predictivebench.cache_dir = tempfile())
#' models <- list(baseline_chat("0", name = "zero"), baseline_chat("1", name = "one"))
#' logs <- tempfile()
#' set <- eval_set(c("futurex@sample", "processbench@sample"), models, log_dir = logs)
#' set[c("benchmark", "model", "status", "metric", "headline")]
#' # Again: every cell is done, nothing runs
#' eval_set(c("futurex@sample", "processbench@sample"), models, log_dir = logs)$reused
#' \dontrun{
#' # The same cells in parallel on four local daemons
#' mirai::daemons(4)
#' eval_set(c("futurex", "processbench"), c("openai/gpt-4.1", "anthropic/claude-sonnet-4-0"),
#'          log_dir = "logs/set", max_cost = 20)
#' mirai::daemons(0)
#' }
#' options(old)
eval_set <- function(benchmarks, models, log_dir, judge = NULL, settings = NULL,
                     epochs = NULL, limit = NULL, retries = 1, dry_run = FALSE,
                     max_cost = NULL, arena = NULL) {
  check_string(log_dir)
  if (!is.null(epochs)) check_count(epochs)
  check_limit(limit)
  check_count(retries, min = 0)
  check_flag(dry_run)
  check_number(max_cost, allow_null = TRUE)
  if (!is.null(arena) && (!is.list(arena) || !rlang::is_named(arena))) {
    abort_pb("{.arg arena} must be {.code NULL} or a named list of {.fn arena_run} arguments.",
             "argument")
  }
  # one run for the whole set, on every worker: what it pays for is counted as paid
  settings <- settings_in_run(as_request_settings(settings), new_run())
  models <- check_set_models(models)
  specs <- lapply(models, chat_spec)
  chats <- lapply(models, function(m) if (inherits(m, "Chat")) m)
  entries <- set_benchmarks(benchmarks, judge, limit)
  cells <- set_cells(entries, specs, chats, epochs)

  dir.create(log_dir, recursive = TRUE, showWarnings = FALSE)
  log_dir <- normalizePath(log_dir, winslash = "/")  # as workers elsewhere find it
  outcomes <- lapply(cells, function(cell) read_manifest(log_dir, cell$id))
  if (dry_run || !is.null(max_cost)) {
    preview <- set_cost_preview(cells, outcomes, log_dir, settings)
    if (dry_run) return(preview)
    check_max_cost(preview, max_cost)
  }
  todo <- which(vapply(outcomes, is.null, TRUE))
  if (length(todo)) outcomes[todo] <- run_cells(cells[todo], log_dir, settings, retries)
  result <- set_result(cells, outcomes)
  report_set(result)
  if (!is.null(arena)) {
    attr(result, "arena_run") <- run_set_arena(arena, models, specs, judge, log_dir, settings)
  }
  result
}

check_set_models <- function(models, call = rlang::caller_env()) {
  as_set_list(models, "Chat", c(
    "{.arg models} must be {.val provider/model} strings or ellmer chats.",
    i = "For example {.code c(\"openai/gpt-4.1\", \"anthropic/claude-sonnet-4-0\")}."
  ), call)
}

# In parallel on the user's mirai daemons, or here in overlapping rounds.
run_cells <- function(cells, log_dir, settings, retries) {
  if (daemons_running()) return(run_on_daemons(cells, log_dir, settings, retries))
  run_in_rounds(cells, retries, function(cell) run_cell(cell, log_dir, settings))
}

set_result <- function(cells, outcomes) {
  field <- function(name, type) vapply(outcomes, function(o) o[[name]], type)
  tibble::tibble(
    benchmark = vapply(cells, function(x) x$benchmark$label, ""),
    model = vapply(cells, `[[`, "", "label"),
    cell_id = vapply(cells, `[[`, "", "id"),
    status = field("status", ""),
    log_path = field("log_path", ""),
    metric = field("metric", ""),
    headline = field("headline", 1),
    cost = field("cost", 1),
    attempts = as.integer(field("attempts", 1)),
    reused = field("reused", TRUE),
    error = field("error", "")
  )
}

report_set <- function(result) {
  reused <- sum(result$reused)
  failed <- result[result$status == "failed", , drop = FALSE]
  cli::cli_inform(c(
    "v" = "Evaluation set: {nrow(result)} cell{?s}, {sum(result$status == 'done')} done
           ({reused} already before this call).",
    if (nrow(failed)) c("x" = "{nrow(failed)} failed: {.val {paste(failed$benchmark, 'x',
                               failed$model)}}; call {.fn eval_set} again to retry them.")
  ), class = "predictivebench_message_eval_set")
}

# The set's closing arena run among its models, judged by the set's judge.
run_set_arena <- function(arena, models, specs, judge, log_dir, settings) {
  if (is.null(judge)) abort_pb("An arena run needs {.arg judge}.", "argument")
  chats <- lapply(seq_along(models), function(i) {
    if (inherits(models[[i]], "Chat")) models[[i]] else chat_from_spec(specs[[i]])
  })
  names(chats) <- vapply(specs, spec_label, "")
  args <- utils::modifyList(list(dir = file.path(log_dir, "arena"), models = chats,
                                 judge = as_chat(judge), settings = settings), arena)
  do.call(arena_run, args)
}
