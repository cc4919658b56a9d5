# estimate_cost(): what a run will cost, before any request is sent. The task is run here,
# above the engine: solved and scored offline a chunk of samples at a time, as $eval() runs
# it (R/results-eval.R), inside the engine's one cost preview, with_pricing() (R/engine-price.R),
# which answers each request where it would be sent and prices them a chunk at a time.

#' What will this run cost?
#'
#' @description
#' `estimate_cost()` answers before you pay: it runs `task` with `chat` as `$eval()` would,
#' but answers every request locally, so nothing leaves the machine and nothing is
#' billed. From the requests the run tried to send it reports:
#'
#' * `requests`: every request the run sends: each sample, epoch and vote of the solver,
#'   each judge call of the scorer, each log-probability request;
#' * `cached`: those already answered in the response cache (see [cache_dir()]), which cost
#'   nothing, and `to_send` = `requests - cached`;
#' * `input_tokens` of the requests to send: exact with OpenAI's tokenizer (the rtiktoken
#'   package) for OpenAI models, counting the message texts plus 3 tokens per message and 3
#'   to start the reply (as OpenAI documents for its chat models); for other models an
#'   estimate of 1 token per 4 characters (`tokens = "estimate"`); images are not counted;
#' * `output_tokens_max`: the bound the parameters set (`max_tokens`,
#'   `max_completion_tokens` or `max_output_tokens`, times `n` choices); `NA` when no
#'   request sets one (pass `params = ellmer::params(max_tokens = )` to the solver to bound
#'   it);
#' * `cost_max`: input tokens plus the output bound at the prices of ellmer's price table
#'   when it knows the provider and model, else `NA`: tokens only. Each request is counted
#'   and priced for the model of the chat that sends it: the solver's at `chat`, a judge's
#'   or a grader's at the judge's, also when the judge is inside the task's scorer (as
#'   [eval_set()] gives its `judge`). Requests a run would
#'   send as a provider batch (the setting `batch = TRUE`, the route through
#'   [ellmer::batch_chat()]) at the table's `batches` prices, or half the regular price
#'   where it lists none (the providers' batch discount).
#'
#' Judge calls and tool rounds that depend on the model's answers are counted as they
#' happen for the placeholder answer `answer` (an empty reply by default), so for such
#' scorers `requests` is an estimate; for solvers and judges called once per sample it is
#' exact.
#'
#' The dry run writes nothing to the cache or the logs, and never moves or hides the cache:
#' it only reads the cache directories and keeps its placeholder answers in memory, so
#' however it ends, even killed, the cache is as it was and no placeholder answer is ever
#' served as a model's. It solves and scores once, at about a millisecond of CPU a request
#' (`bench/README.md`): a request's tokens are counted from the prompt it would send and
#' its chat's fixed messages, not from a request built and answered. A task made by a
#' `<benchmark>_task()` is solved and scored a chunk of samples at a time, as `$eval()`
#' does (its `$chunk_size`), each chunk's requests priced as it ends: memory holds one
#' chunk, whatever the task's size. `cached` counts hits in
#' every cache the task's solver and scorer use (their settings' `cache`, or the one given
#' here); a request asked again in the same run counts once, as the real run would send it
#' once.
#'
#' @param task A vitals Task (not modified).
#' @param chat The ellmer chat you will pass as `solver_chat`.
#' @param ... Other named arguments of `$eval()`, such as `scorer_chat`, and request
#'   settings (see [request_settings()]) as `$eval()` takes them, which override the
#'   solver's and scorer's own: `batch = TRUE` prices the run as provider batches, `cache`
#'   names the cache the run will use. Requests the engine does not send itself (vitals'
#'   own solvers and scorers) are priced at the chat given here of their model (a
#'   `scorer_chat`, or a member of a panel given as a list of chats), else at `chat`'s.
#'   Every chat given here, each member of a panel too, is used offline: no key is read. A
#'   solver or judge whose settings say `batch = TRUE` is priced at the batch price anyway:
#'   the dry run counts its requests one by one, at that price.
#' @param epochs Epochs, as for `$eval()`.
#' @param answer The placeholder reply text of every request.
#' @returns A one-row tibble: `requests`, `cached`, `to_send`, `input_tokens`,
#'   `output_tokens_max`, `cost_max`, `tokens` (`"exact"` or `"estimate"`), `provider`,
#'   `model`, `batch` (whether every request to send is priced at the batch price).
#' @family engine
#' @export
#' @examples
#' old <- options(predictivebench.cache_dir = tempfile())
#' tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile(),
#'                     solver = futurex_solver(params = ellmer::params(max_tokens = 500)))
#' chat <- ellmer::chat_openai(model = "gpt-4.1", credentials = function() "not used")
#' estimate_cost(tsk, chat, cache = tempfile())
#' estimate_cost(tsk, chat, cache = tempfile(), batch = TRUE)
#' options(old)
estimate_cost <- function(task, chat, ..., epochs = NULL, answer = "") {
  if (!inherits(task, "Task")) abort_pb("{.arg task} must be a vitals Task.", "argument")
  if (!inherits(chat, "Chat")) abort_pb("{.arg chat} must be an ellmer chat.", "argument")
  if (!is.null(epochs)) check_count(epochs)
  check_string(answer)
  dots <- list(...)
  if (length(dots) && !all(nzchar(rlang::names2(dots)))) {
    abort_pb("All arguments in {.arg ...} must be named.", "argument")
  }
  if ("dry_run" %in% names(dots)) {
    abort_pb("{.arg dry_run} is set by {.fn estimate_cost} itself.", "argument")
  }
  # settings given here are checked now, at the door $eval() would use
  rlang::exec(settings_with_dots, request_settings(),
              !!!dots[names(dots) %in% request_setting_names()])
  batch <- isTRUE(dots$batch)
  # nothing is sent, so no key is read (vitals' own solvers and scorers build their
  # requests through ellmer too): a preview works without one
  chat <- chat_offline(chat)
  dots <- lapply(dots, offline_chats)
  chats <- c(list(chat), unlist(lapply(dots, chats_in), recursive = FALSE, use.names = FALSE))
  priced <- with_pricing(chats, dry_run_task(task, chat, dots, epochs), batch = batch,
                         answer = answer)
  tibble::tibble(priced[setdiff(names(priced), "batch")], provider = chat$get_provider()@name,
                 model = chat$get_model(), batch = priced$batch)
}

# An argument of `$eval()` with its chats offline (chat_offline()): a chat, or each chat of a
# list of them (a panel of judges, `scorer_chat = list(a, b)`), the list's class and names
# kept; anything else as it is.
offline_chats <- function(x) {
  if (inherits(x, "Chat")) return(chat_offline(x))
  if (!is.list(x) || is.data.frame(x)) return(x)
  out <- lapply(x, function(m) if (inherits(m, "Chat")) chat_offline(m) else m)
  attributes(out) <- attributes(x)
  out
}

# The chats an argument holds: itself, or the chats of a list (a panel's members), each of
# which prices the requests of its own model.
chats_in <- function(x) {
  if (inherits(x, "Chat")) return(list(x))
  if (!is.list(x) || is.data.frame(x)) return(list())
  Filter(function(m) inherits(m, "Chat"), unclass(x))
}

# Solves and scores `task` inside a dry run (with_pricing()), a chunk of samples at a time as
# $eval() does (R/results-eval.R: the same chunks, each sample with its epochs, the rows a
# scorer reads together in one chunk; the same steps, called as vitals calls them), each
# chunk's requests priced and its texts dropped as it ends: memory holds one chunk's
# solutions and requests. The task is not changed. A plain vitals Task (no dataset of its
# own to chunk) is solved and scored whole, on a copy. Every cache is only read.
dry_run_task <- function(task, chat, dots, epochs) {
  # As $eval() splits them: request settings go to the solver and the scorer; the dry run is
  # the request session's, around them.
  names <- rlang::names2(dots)
  settings <- names %in% request_setting_names()
  solver_args <- c(list(solver_chat = chat), dots[startsWith(names, "solver_") | settings])
  scorer_args <- dots[!startsWith(names, "solver_")]
  dataset <- if (inherits(task, "ResultsTask")) task$dataset()
  if (is.data.frame(dataset)) {
    return(dry_run_task_chunks(task, dataset, solver_args, scorer_args, epochs))
  }
  copy <- task$clone(deep = TRUE)
  do.call(copy$solve, c(solver_args, list(epochs = epochs)))
  do.call(copy$score, scorer_args)
  invisible()
}

# A ResultsTask's dry run, chunk by chunk: each chunk's rows (with their epochs) solved, then
# scored, then dropped.
dry_run_task_chunks <- function(task, dataset, solver_args, scorer_args, epochs) {
  # as vitals' $solve() and $score() run their steps (and $eval()'s chunks)
  withr::local_envvar(IN_VITALS_EVAL = "true")
  epochs <- as.integer(epochs %||% task$default_epochs() %||% 1L)
  solver <- task$steps()$solver
  scorer <- task$steps()$scorer
  size <- task$chunk_size %||% chunk_rows_default(solver_args)
  chunks <- eval_chunks(dataset, attr(scorer$fn, "predictivebench_chunk_by"),
                        max(1L, size %/% epochs))
  for (chunk in chunks) {
    rows <- epoch_rows(dataset, chunk, epochs)
    solved <- call_step(chunk_solver(solver$fn, chunk, epochs), rows,
                        quote(self$get_samples()$input), solver_args, "solve")
    rows$result <- solved$result
    rows$solver_chat <- solved$solver_chat
    if ("solver_metadata" %in% names(solved)) rows$solver_metadata <- solved$solver_metadata
    call_step(scorer$fn, rows, quote(self$get_samples()), scorer_args, "score")
    rm(rows, solved)
    dry_run_fold(pricing_collector())  # R/engine-price.R
  }
  invisible()
}
