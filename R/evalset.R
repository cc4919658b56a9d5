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
#'   `log_dir/.eval-set/<cell id>.json` once the log is written (with its size and its
#'   number of samples). Calling `eval_set()` again with the same arguments sends no request
#'   and returns the same table. Adding a model or a benchmark runs only the new cells. A
#'   log that is no longer complete (cut short, or changed since: it is not JSON to its end,
#'   or has another size or number of samples) is set aside, renamed
#'   `<name>.json.partial-<time>` (kept, but no longer a `.json` file that the set,
#'   [leaderboard()] or `vitals::vitals_view()` would read), and its cell runs again from the
#'   cache.
#' * **Identity.** A cell is identified by its benchmark, the benchmark's version (the pinned
#'   files, or a task object's dataset), the task's options (its solver and scorer as
#'   configured, the judge), the model (provider, model, address and the provider's other
#'   arguments such as `service_tier`, parameters, `api_args`, system prompt, the chat's
#'   turns such as few-shot examples, its tools, and its extra headers, hashed) and
#'   `epochs`. The key is
#'   not part of it: the same model with another key is the same cell. How requests are
#'   sent (`settings`: `max_active`, `rpm`, `timeout`, the cache, `batch`) and `retries` are
#'   not part of it either: changing them reruns nothing.
#' * **Names.** Each model has one name in the table, the records and a closing arena run:
#'   `"<provider>/<model>"`, followed, for a chat made with more than its constructor's
#'   defaults, by what it was made with, in brackets:
#'   `"openai/gpt-4.1 [temperature=0.7, system prompt #1a2b3c, 2 turns #4d5e6f]"`
#'   (parameters, `api_args` and provider arguments with their values, or a hash when long;
#'   a system prompt, turns, tools and headers by a hash; `base_url` when not the constructor's
#'   default, its user, password and query values as `****`, since those are credentials:
#'   `"base_url=https://****@gateway/v1"`). Two models with one name are refused before any request (an error of class
#'   `predictivebench_error_argument`): the same model given twice, or two chats that
#'   differ only where a name does not show it (an OpenAI-compatible server's address: give
#'   each its own `name`). A cell's log names the model as vitals does, without the
#'   brackets.
#' * **Resuming.** Every answer is cached as it arrives (see [cache_dir()]), so a set that was
#'   interrupted or killed resumes where it stopped: the cells that finished are done, and a
#'   cell that was running pays again only for the requests it had in flight (at most its
#'   `max_active`).
#' * **Failures.** A cell that fails (an error, a refused key, or a step whose every request
#'   failed) is tried again up to `retries` more times in the same call, then reported with
#'   `status = "failed"` and its `error` (the provider's own message, such as
#'   `HTTP 404 Not Found: The model 'x' does not exist`); it never stops the other cells, and
#'   the next call tries it again. A cell some of whose samples failed for good (their
#'   requests failed past their tries, as in an outage) is `"partial"`: its log is written
#'   and readable, `failed_samples` says how many, and it is not done. Like a failed cell it
#'   is tried again up to `retries` more times in the same call, then again in the next
#'   call; each attempt sends only the failed samples' requests again (the others come from
#'   the cache), as Inspect AI's `eval_set()` retries the samples that errored. The log of a
#'   failed or partial attempt stays in `log_dir` (see [report_failures()]). Only failed
#'   requests make a cell partial: a note on a sample (such as FutureX's `judge_note`, a
#'   judge that answered without the values asked for) is not a failure, as asking again
#'   would bring the same answer from the cache.
#' * **One writer per cell.** Two calls on one folder (two R sessions, or a rerun while a
#'   daemon job still runs) never run one cell twice: a cell is run under its lock,
#'   `log_dir/.eval-set/<cell id>.lock`, and a call finding a cell locked runs its other
#'   cells, then waits for it and takes it from its log, or runs it itself if the other
#'   process stopped before finishing it. A killed process holds no lock. The wait lasts as
#'   long as the other process runs the cell, or at most
#'   `options(predictivebench.cell_wait_s = )` seconds: past them the cell is skipped,
#'   `"failed"` in this call.
#' * **Overlap.** In one process the cells' requests overlap, and each cell is evaluated
#'   once, in one pass: a cell hands its requests to one shared pool, whose `max_active` is
#'   the sum of the models' own (each model within its own), and while it waits for them
#'   the next cell starts inside that wait (up to 8 deep), so every cell's requests are in
#'   flight together; a cell finished inside another's wait returns to it. So a set takes
#'   about as long as its longest cell plus each cell's own CPU work, not the sum of its
#'   cells, and its CPU is about the sum of its cells run alone (see `bench/eval-set.R`).
#' * **mirai.** When you have started [mirai::daemons()] (on this machine, over SSH, or on a
#'   cluster through [mirai::cluster_config()]), the cells run in parallel on them through
#'   [mirai::mirai_map()]; the package never starts daemons itself. Each worker rebuilds the
#'   chat from its spec (the ellmer constructor, model, `base_url` and provider arguments,
#'   parameters, `api_args`, system prompt, turns and tools), as a chat sent to another process
#'   loses its credentials (ellmer issue 700). The credentials the chat would send in this
#'   process (the value its `credentials` function gives here: its own, or its
#'   constructor's default, such as `OPENAI_API_KEY` read from this process's environment)
#'   and its extra headers travel with the spec in the payload sent to the worker, and
#'   nowhere else: never in a cell's identity, its record, its log or the cache. So a chat
#'   does on a worker exactly what it does here, and a worker's own environment (its own
#'   `OPENAI_API_KEY`, perhaps for another host) is never read for it. A chat whose key
#'   can't be read here (`OPENAI_API_KEY` unset) stops the call before any request, in one
#'   line naming what is missing (an error of class `predictivebench_error_credentials`),
#'   in this process or on daemons alike; `dry_run = TRUE` sends nothing and reads no key.
#'   Workers
#'   share the response cache through the file system, under its locks. Offline
#'   [baseline_chat()]s travel as they are. Task objects travel as they are
#'   too: give a judge through `judge` (not inside a task) so that workers rebuild it from
#'   its spec. When every daemon that had connected is gone (killed, its job ended) and none
#'   connects again within `getOption("predictivebench.daemons_grace_s", 20)` seconds, the
#'   cells still waiting fail with an error saying so (the cells done stay done); daemons
#'   that have not connected yet (a cluster's queued jobs) are waited for.
#' * **Cost.** `dry_run = TRUE` returns the cost preview of the cells still to run
#'   ([estimate_cost()] on each, offline) instead of running them, and of the closing
#'   `arena` (a row `"arena_run"`: its rounds run offline as far as `max_rounds` or the
#'   questions allow, every answer and verdict counted, each judge request with two answers
#'   as long as the models' `max_tokens` allow); `max_cost` refuses to start a set that may
#'   cost more (an error of class `predictivebench_error_cost`), the arena included.
#'
#' @param benchmarks Benchmark names (`"futurex"`, `"processbench"`, `"deltabench"`,
#'   `"probsem"`, `"dsbench"`, `"arena"`) for their default real versions, optionally with a
#'   version after `@` (`"futurex@sample"`, see [benchmark_versions()]), and/or
#'   `<benchmark>_task()` objects (a list; name its elements to run one benchmark with two
#'   configurations), and/or benchmark objects made by [new_benchmark()] with a `task`, run
#'   as their name is and registering nothing (`list(toy = toy_benchmark)`; a version after
#'   `@` in the element's name, `list("toy@sample" = toy_benchmark)`), also on mirai daemons,
#'   where each cell carries its benchmark. The arena takes part as any benchmark does: each model's answers are
#'   judged against the reference answers ([arena_task()]). By name, only `"arena@sample"`
#'   has them (the bundled ones): `"arena"` and its other versions are refused before any
#'   cell runs (an error of class `predictivebench_error_answers`); give
#'   `arena_task(arena_dataset(), answers = )` with an EloBench answer cache instead.
#' @param models `"provider/model"` strings as [ellmer::chat()] takes them, and/or ellmer
#'   chats (a list), each with its own name (see "Names" above). In this process a chat is
#'   used as given; on daemons it is rebuilt from its spec. An offline [baseline_chat()] is
#'   identified by its name and its responder: the function's code and the values it
#'   captured. Made again the same way it is the same model; a responder that captures a
#'   changing value (a counter, a whole script's environment) is a new model each time,
#'   and its cells run again.
#' @param log_dir The folder of the set's logs and records (created if needed). Everything
#'   the set writes stays inside it. A file, or a folder that can't be written, is an error
#'   (of class `predictivebench_error_argument`) before any request.
#' @param judge The judge chat (or `"provider/model"`) of benchmarks whose task takes one
#'   (FutureX, DSBench, the arena), for benchmarks given by name, or a list of them: a panel
#'   of judges (each benchmark's help says how it reduces their verdicts; the panel's members,
#'   in order, are part of each cell's identity, and each travels to a daemon with its own
#'   credentials). `NULL` uses each task's default; a benchmark by name that can't score
#'   without a judge (DSBench, the arena: [new_benchmark()]'s `needs_judge`) is then refused
#'   before any request (an error of class `predictivebench_error_argument`).
#' @param settings How requests are sent: a [request_settings()] object, or `NULL` for the
#'   defaults. Not part of a cell's identity. Given to the package's solvers and scorers
#'   (and to `vitals::generate()` in a task made by [benchmark_task()], which sends it
#'   through the engine); a task object whose solver or scorer is not the package's (such
#'   as [vitals::generate()] in a plain [vitals::Task], which would pass them on to the
#'   model as parameters) runs with its own.
#' @param options What every cell runs and how the set runs them: a [set_options()] object
#'   (epochs, limit, retries, dry run, cost cap, epoch reducer).
#' @param arena `NULL`, or a list of [arena_run()] arguments (the questions, `dataset` or
#'   `version`, then `n`, `experiment`, `elobench`, ...; not `models`) to end the set with
#'   one arena run among its models, named by their labels (the `model` column), judged by
#'   `judge`, its log in `log_dir` beside the cells' (resumable from the response cache, in
#'   this process). `version = "sample"` runs on the bundled sample's questions. Its
#'   arguments, the judge, the labels as arena model names (unique), the questions and
#'   writable folders are checked before the set's first request (errors of class
#'   `predictivebench_error_argument` or `predictivebench_error_path`).
#' @param ... Deprecated: `epochs`, `limit`, `retries`, `dry_run`, `max_cost`, `reducer`
#'   and `k` given by name (now `options = set_options(...)`), taken for one release with a
#'   warning of class `predictivebench_warning_deprecated`; they win over `options`.
#' @returns A tibble with one row per cell: `benchmark`, `model`, `cell_id`, `status`
#'   (`"done"`: its log is complete and every sample was answered; `"partial"`: its log is
#'   written, but some samples failed for good, and the next call asks them again;
#'   `"failed"`: no usable run), `failed_samples` (samples whose requests failed for good: 0
#'   for a done cell, `NA` when unknown), `log_path` (a partial cell's too), `metric` (the
#'   headline row's key) and `headline` (its estimate), `cost` (dollars the set paid for
#'   the cell's requests, as its log's model usage and [leaderboard()] have it: in this call
#'   or, for a cell run again from the cache, in an earlier call on the same `log_dir`; `0`
#'   when every answer was paid by another set or run, `NA` when a price is unknown),
#'   `attempts`
#'   (made in this call; 0 for a cell done before), `reused` (done before this call, or by
#'   another process on the same folder during it) and `error` (the requests' own error,
#'   with how many samples failed, or the error that stopped the cell). With `arena`, the
#'   [arena_run()] result is its attribute `"arena_run"`; when the arena run fails, the table
#'   is still returned, with the error as its attribute `"arena_error"` and a warning (class
#'   `predictivebench_warning_arena`). With `dry_run = TRUE`: one row per cell with
#'   `status` (`"done"` or `"to run"`) and the columns of [estimate_cost()].
#' @seealso [estimate_cost()] for one task's cost, [leaderboard()] to compare the cells' logs.
#' @export
#' @examples
#' old <- options(predictivebench.cache_dir = tempfile())
#' models <- list(baseline_chat("0", name = "zero"), baseline_chat("1", name = "one"))
#' logs <- tempfile()
#' set <- eval_set(c("futurex@sample", "processbench@sample"), models, log_dir = logs,
#'                 options = set_options(limit = 2))
#' set[c("benchmark", "model", "status", "metric", "headline")]
#' # Again: every cell is done, nothing runs
#' eval_set(c("futurex@sample", "processbench@sample"), models, log_dir = logs,
#'          options = set_options(limit = 2))$reused
#' \dontrun{
#' # The same cells in parallel on four local daemons
#' mirai::daemons(4)
#' eval_set(c("futurex", "processbench"), c("openai/gpt-4.1", "anthropic/claude-sonnet-4-0"),
#'          log_dir = "logs/set", options = set_options(max_cost = 20))
#' mirai::daemons(0)
#' }
#' options(old)
eval_set <- function(benchmarks, models, log_dir, judge = NULL, settings = NULL,
                     options = set_options(), arena = NULL, ...) {
  check_string(log_dir)
  options <- set_options_with_dots(options, list(...))
  epochs <- options$epochs
  limit <- options$limit
  retries <- options$retries
  dry_run <- options$dry_run
  max_cost <- options$max_cost
  spec <- options$reducer
  if (!is.null(arena) && (!is.list(arena) || !rlang::is_named(arena))) {
    abort_pb("{.arg arena} must be {.code NULL} or a named list of {.fn arena_run} arguments.",
             "argument")
  }
  settings <- as_request_settings(settings)
  models <- check_set_models(models)
  specs <- lapply(models, chat_spec)
  chats <- lapply(models, function(m) if (inherits(m, "Chat")) m)
  benches <- set_benchmarks(benchmarks, judge, limit)
  check_set_reducer(benches, spec, epochs)
  cells <- label_overridden_cells(set_cells(benches, specs, chats, epochs))
  check_set_arena(arena, specs, judge, log_dir)

  log_dir <- check_set_log_dir(log_dir)
  # one run for the whole set (every call on this folder, every worker): what it pays for is
  # counted as paid, also when a later call reads it back from the cache
  local_request_session(run = set_run(log_dir, create = !dry_run))
  outcomes <- lapply(cells, function(cell) read_cell_record(log_dir, cell$id, !dry_run))
  if (dry_run || !is.null(max_cost)) {
    preview <- set_cost_preview(cells, outcomes, log_dir, settings)
    if (!is.null(arena)) {
      preview <- rbind(preview,
                       arena_cost_preview(arena, models, specs, judge, log_dir, settings))
    }
    if (dry_run) return(preview)
    check_max_cost(preview, max_cost)
  }
  todo <- which(vapply(outcomes, is.null, TRUE))
  if (length(todo)) {
    check_set_credentials(cells[todo])  # one line naming a missing key, before any request
    outcomes[todo] <- run_locked_cells(cells[todo], log_dir, function(cells) {
      run_cells(cells, log_dir, settings, retries)
    })
  }
  result <- set_result(cells, outcomes)
  if (!is.null(spec)) result <- reduced_set_result(result, cells, spec)
  report_set(result, outcomes)
  if (!is.null(arena)) {
    result <- run_set_arena(result, arena, models, specs, judge, log_dir, settings)
  }
  result
}

#' What an evaluation set runs
#'
#' The options of [eval_set()] that say what every cell runs (its epochs, its samples, how
#' its epochs are reduced) and how the set runs them (retries, a dry run, a cost cap),
#' validated once here.
#'
#' @param epochs Epochs of every cell, as for `$eval()`; `NULL` for each task's own. Part
#'   of the cells' identity (a task object's own epochs too, when `epochs` is `NULL`): a
#'   set with `epochs = 3` never takes the cells of one with `epochs = 1`. One epoch is what
#'   a task runs when given none, so `epochs = 1` takes the cells of `epochs = NULL`.
#' @param reducer,k `NULL` (the default: each cell's headline as its log's header has it),
#'   or an epoch reducer of [reduce_epochs()] and its `k`: the `metric` and `headline`
#'   columns give each cell's headline with every sample's epochs reduced to one score
#'   (its summary with `reducer =`; the metric names the reducer, as
#'   `"overall pass_at_2"`). Not part of a cell's identity: it is read from the logs, so a
#'   set run again with another reducer sends nothing. Every benchmark of the set must reduce
#'   epochs (see [reduce_epochs()]) and `k` must be at most the epochs, else nothing runs
#'   (an error of class `predictivebench_error_reducer`).
#' @param limit For benchmarks given by name: run only the first `limit` samples (as
#'   `<benchmark>_dataset(limit = )`). Part of the cells' identity. Task objects run the
#'   dataset they were built with.
#' @param retries How many more times a failed or partial cell is tried in this call
#'   (default 1: two attempts); a partial cell's attempts send only its failed samples'
#'   requests. The next call tries failed and partial cells again, as many times. A cell
#'   whose error another attempt would only meet again (a server without the
#'   log-probabilities a benchmark needs, a chat without its key, a wrong argument) is
#'   tried once, and its error is said whole, as what to change.
#' @param dry_run `TRUE` sends nothing and returns the cost preview of each cell (and of the
#'   closing `arena`).
#' @param max_cost `NULL`, or the most (in dollars) the cells still to run and the closing
#'   `arena` may cost, as [estimate_cost()] bounds it; above it, or when a cell's cost
#'   can't be bounded, nothing is sent.
#' @returns A `set_options` object (a list with these fields; `reducer` holds the reducer
#'   with its `k`).
#' @seealso [eval_set()]
#' @export
#' @examples
#' set_options(epochs = 3, limit = 20, max_cost = 5)
#' set_options(epochs = 3, reducer = "pass_at_k", k = 2)
set_options <- function(epochs = NULL, limit = NULL, retries = 1, dry_run = FALSE,
                        max_cost = NULL, reducer = NULL, k = NULL) {
  if (!is.null(epochs)) check_count(epochs)
  check_limit(limit)
  check_count(retries, min = 0)
  check_flag(dry_run)
  check_number(max_cost, allow_null = TRUE)
  structure(list(epochs = epochs, limit = limit, retries = retries, dry_run = dry_run,
                 max_cost = max_cost, reducer = epoch_reducer(reducer, k), k = k),
            class = "set_options")
}

# The options eval_set() took by name before 0.2.0, through `...`: they win over `options`.
set_options_with_dots <- function(options, dots, call = rlang::caller_env()) {
  check_options(options, "set_options", call = call)
  old_names <- names(formals(set_options))
  dots <- deprecated_dots(dots, "eval_set", old_names, "options = set_options()", call = call)
  if (!length(dots)) return(options)
  fields <- unclass(options)
  fields$reducer <- fields$reducer$reducer
  fields[names(dots)] <- dots
  rlang::exec(set_options, !!!fields[intersect(old_names, names(fields))])
}

check_set_models <- function(models, call = rlang::caller_env()) {
  models <- as_set_list(models, "Chat", c(
    "{.arg models} must be {.val provider/model} strings or ellmer chats.",
    i = "For example {.code c(\"openai/gpt-4.1\", \"anthropic/claude-sonnet-4-0\")}."
  ), call)
  check_unique_labels(models, call)
  models
}

# The set's folder, created if needed and normalised (as workers elsewhere find it): a
# folder this process can write to, with its records' folder, checked before any request.
check_set_log_dir <- function(log_dir, call = rlang::caller_env()) {
  if (file.exists(log_dir) && !dir.exists(log_dir)) {
    abort_pb("{.arg log_dir} is a file, not a folder.", "argument", file = log_dir,
             call = call)
  }
  records <- records_dir(log_dir)
  dir.create(records, recursive = TRUE, showWarnings = FALSE)
  probe <- tempfile(".write-test-", tmpdir = records)
  writable <- dir.exists(records) && isTRUE(suppressWarnings(file.create(probe)))
  unlink(probe)
  if (!writable) {
    abort_pb(c("Can't write to {.arg log_dir}.",
               i = "The set writes its logs and records there: give a folder you can write to."),
             "argument", file = log_dir, call = call)
  }
  normalizePath(log_dir, winslash = "/")
}

# The set's run (the engine's `run` context): one per folder, kept in its records' folder,
# so that every call on it counts what the set paid as paid. A cell run again in a later call
# (a partial one, or one whose log was set aside) reads its answers back from the cache with
# the usage and cost the set paid for them: its cost is the same in the table, its log's
# model usage and the board as a cell done earlier. A new folder is a new set: what another
# set paid reads as cached, at 0. Two processes starting a folder at once agree on one run
# (the first file linked in place wins).
set_run <- function(log_dir, create = TRUE) {
  run <- new_run()
  path <- file.path(records_dir(log_dir), "set-run")
  read_run <- function() {
    if (!file.exists(path)) return(NULL)
    id <- tryCatch(suppressWarnings(readLines(path, n = 1L, warn = FALSE)),
                   error = function(e) character())
    if (length(id) == 1L && nzchar(id)) id
  }
  id <- read_run()
  if (is.null(id) && create) {
    tmp <- tempfile(".set-run-", tmpdir = dirname(path))
    writeLines(unclass(run), tmp)
    suppressWarnings(file.link(tmp, path))  # (never replaces a run another call wrote)
    unlink(tmp)
    id <- read_run()
  }
  if (!is.null(id)) run[] <- id
  run
}

# In parallel on the user's mirai daemons, or here overlapping (R/evalset-overlap.R).
run_cells <- function(cells, log_dir, settings, retries) {
  if (daemons_running()) return(run_on_daemons(cells, log_dir, settings, retries))
  run_overlapping(cells, retries, function(cell, collector) {
    run_cell(cell, log_dir, settings, collector)
  })
}

set_result <- function(cells, outcomes) {
  field <- function(name, type) vapply(outcomes, function(o) o[[name]], type)
  tibble::tibble(
    benchmark = vapply(cells, function(x) x$benchmark$label, ""),
    model = vapply(cells, `[[`, "", "label"),
    cell_id = vapply(cells, `[[`, "", "id"),
    status = field("status", ""),
    failed_samples = as.integer(field("failed_samples", 1)),
    log_path = field("log_path", ""),
    metric = field("metric", ""),
    headline = field("headline", 1),
    cost = field("cost", 1),
    attempts = as.integer(field("attempts", 1)),
    reused = field("reused", TRUE),
    error = field("error", "")
  )
}

# An epoch reducer for every benchmark of the set, refused before any request where a
# benchmark's summary takes none or where `k` is more than the cells' epochs.
check_set_reducer <- function(benches, spec, epochs, call = rlang::caller_env()) {
  if (is.null(spec)) return(invisible())
  for (bench in benches) {
    check_reducible(bench$name, call = call)  # R/results-reducer.R
    n <- epochs %||% bench$epochs %||% 1L
    if (!is.null(spec$k) && spec$k > n) {
      abort_pb(c("{.arg k} ({spec$k}) is more than the epochs of {.val {bench$label}} ({n}).",
                 i = "Give the set {.code epochs = } at least {spec$k}."), "reducer",
               field = "k", call = call)
    }
  }
  invisible()
}

# The set's table with each logged cell's headline under the reducer, from its log.
reduced_set_result <- function(result, cells, spec) {
  for (i in which(!is.na(result$log_path) & result$status != "failed")) {
    rows <- summary_headline(cells[[i]]$benchmark$name, log_samples(result$log_path[[i]]),
                             spec)
    result$metric[[i]] <- rows$key[[1]]
    result$headline[[i]] <- as.double(rows$estimate[[1]])
  }
  result
}

# What the set says: its cells done, partial and failed. A failed cell whose error is final
# (final_error_classes: another attempt would meet it again) was tried once and is not
# advised to be tried again: its error is said once, whole (the first such cell's, with its
# bullets), as what to change.
report_set <- function(result, outcomes = list()) {
  reused <- sum(result$reused)
  final <- vapply(outcomes, function(o) isTRUE(o$final), TRUE)
  if (length(final) != nrow(result)) final <- rep(FALSE, nrow(result))
  failed <- result[result$status == "failed" & !final, , drop = FALSE]
  stopped <- result[result$status == "failed" & final, , drop = FALSE]
  partial <- result[result$status == "partial", , drop = FALSE]
  errors <- c(partial$error, failed$error)
  errors <- errors[!is.na(errors)]
  head <- "Evaluation set: {nrow(result)} cell{?s}, {sum(result$status == 'done')} done
           ({reused} already before this call)."
  names(head) <- if (all(result$status == "done")) "v" else "i"
  cli::cli_inform(c(
    head,
    if (nrow(partial)) c("!" = "{nrow(partial)} partial, with samples whose requests failed:
                               {.val {paste0(partial$benchmark, ' x ', partial$model, ' (',
                               partial$failed_samples, ' failed)')}}; call {.fn eval_set}
                               again to ask them again (the others come from the cache)."),
    if (nrow(failed)) c("x" = "{nrow(failed)} failed: {.val {paste(failed$benchmark, 'x',
                               failed$model)}}; call {.fn eval_set} again to retry them."),
    if (length(errors)) c("i" = "First error: {errors[[1]]}"),
    if (nrow(stopped)) c("x" = "{nrow(stopped)} failed, not tried again (another attempt
                                would meet the same error until what it names is changed):
                                {.val {paste(stopped$benchmark, 'x', stopped$model)}}.",
                         outcomes[final][[1]]$bullets %||% c(" " = "{stopped$error[[1]]}"))
  ), class = "predictivebench_message_eval_set")
}
