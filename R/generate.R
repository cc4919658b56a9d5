# The shared solver: parallel ellmer requests with retries, failure isolation and a cache.

#' Send prompts through a chat, in parallel, with a response cache
#'
#' `generate_responses()` is the engine behind every predictivebench solver and judge. It
#' sends each prompt as a fresh conversation (the chat's system prompt and earlier turns are
#' kept) through [ellmer::parallel_chat()], and adds what vitals' `generate()` lacks:
#'
#' * **A response cache.** A request already answered (same provider, base URL, model,
#'   parameters, system prompt, messages and epoch) is read from disk instead of sent, so a
#'   second run makes no request. Answers are written after every chunk of `chunk_size`
#'   prompts, so an interrupted run loses at most one chunk and resumes where it stopped.
#'   See [cache_dir()]; `cache = FALSE` turns it off. Offline [baseline_chat()]s are never
#'   cached: they cost nothing, and two of them may share a name.
#' * **Failure isolation.** A request that fails leaves every other answer in place; the
#'   failed prompt gets `NA` and its error message. Transient failures (HTTP 429, 5xx,
#'   timeouts, dropped connections) are retried by ellmer (`max_tries` attempts, honouring
#'   `retry-after`), and those still failing are sent again in up to `max_tries - 1` later
#'   rounds, `backoff` seconds apart (doubling). A request that keeps failing transiently
#'   (a provider answering 429 forever) is given up after `max_tries` attempts in a round
#'   with a "Gave up after ... tries" error, never retried endlessly.
#' * **Accounting.** Per prompt: input/output tokens, cost, seconds, whether it came from
#'   the cache, and the error. With tools, tokens and cost are summed over every round of
#'   the request (each tool call is one more request to the provider).
#'
#' Identical prompts within one call are told apart by their epoch (their occurrence
#' number: 1, 2, ...), so `vitals` epochs and repeated votes are separate requests and
#' separate cache entries.
#'
#' Offline [baseline_chat()]s are answered locally, with the same outputs.
#'
#' @param chat An ellmer chat (or a baseline chat) with the provider, model and parameters
#'   to use. It is cloned, never modified.
#' @param prompts A character vector, or a list whose elements are strings or lists of
#'   ellmer content (e.g. text plus [ellmer::content_image_file()]).
#' @param cache `TRUE` (the default directory), `FALSE` (no cache) or a directory.
#' @param max_active Requests in flight at once.
#' @param rpm Requests per minute at most.
#' @param max_tries Attempts per request (ellmer's retries and ours).
#' @param backoff Seconds before the first retry round (doubling each round).
#' @param chunk_size Prompts sent between cache writes; `NULL` is `4 * max_active`.
#' @param epoch Epoch of each prompt (integers, recycled). `NULL` numbers repeated
#'   prompts 1, 2, ....
#' @param key_extra Anything else that should make a cache key distinct (a prompt version).
#' @param keep_json Keep the provider's raw response JSON (for log-probabilities).
#' @param progress Show a progress bar.
#' @returns A tibble with one row per prompt: `result` (the response text, `NA` on failure),
#'   `chat` (an ellmer Chat holding the conversation), `error`, `cached`, `input_tokens`,
#'   `output_tokens`, `cost`, `seconds` and, with `keep_json`, `json`.
#' @export
#' @examples
#' chat <- baseline_constant("\\boxed{A}")
#' generate_responses(chat, c("Pick one: A or B?", "Again?"), cache = FALSE)
generate_responses <- function(chat, prompts, cache = TRUE, max_active = 10, rpm = 500,
                               max_tries = 3, backoff = 1, chunk_size = NULL, epoch = NULL,
                               key_extra = NULL, keep_json = FALSE, progress = interactive()) {
  chat <- as_chat(chat)
  check_count(max_active)
  check_count(rpm)
  check_count(max_tries)
  check_number(backoff)
  check_flag(keep_json)
  prompts <- as_prompt_list(prompts)
  n <- length(prompts)
  chunk_size <- chunk_size %||% (4L * max_active)
  epoch <- if (is.null(epoch)) occurrence_index(prompts) else rep_len(as.integer(epoch), n)
  # A baseline answers locally for free, and two baselines can share a name (two constant
  # answers): caching them could only serve one's answers to the other.
  dir <- if (inherits(chat, "BaselineChat")) cache_dir(FALSE) else cache_dir(cache)
  request <- request_identity(chat, key_extra)
  keys <- vapply(seq_len(n), function(i) {
    cache_key(request, prompt_fingerprint(prompts[[i]]), epoch[[i]])
  }, "")

  records <- lapply(keys, function(key) cache_get(dir, key))
  cached <- !vapply(records, is.null, TRUE)
  errors <- rep(NA_character_, n)
  transient <- rep(FALSE, n)
  todo <- which(!cached)

  for (round in seq_len(max_tries)) {
    if (!length(todo)) break
    if (round > 1) Sys.sleep(backoff * 2^(round - 2))
    chunks <- split(todo, ceiling(seq_along(todo) / chunk_size))
    if (progress && length(chunks) > 1) {
      cli::cli_progress_bar("Generating", total = length(todo), .envir = environment())
    }
    for (chunk in chunks) {
      answers <- send_prompts(chat, prompts[chunk], max_active, rpm, max_tries, keep_json)
      for (j in seq_along(chunk)) {
        i <- chunk[[j]]
        if (inherits(answers[[j]], "error")) {
          errors[[i]] <- conditionMessage(answers[[j]])
          transient[[i]] <- is_transient_error(answers[[j]])
        } else {
          records[[i]] <- answers[[j]]
          errors[[i]] <- NA_character_
          cache_set(dir, keys[[i]], answers[[j]])
        }
      }
      if (progress && length(chunks) > 1) {
        cli::cli_progress_update(length(chunk), .envir = environment())
      }
    }
    todo <- todo[!is.na(errors[todo]) & transient[todo]]
  }
  responses_tibble(chat, prompts, records, errors, cached, keep_json)
}

as_prompt_list <- function(prompts) {
  if (is.character(prompts)) return(as.list(prompts))
  if (!is.list(prompts)) {
    abort_pb("{.arg prompts} must be a character vector or a list.", "argument")
  }
  prompts
}

occurrence_index <- function(prompts) {
  fingerprints <- vapply(prompts, prompt_fingerprint, "")
  stats::ave(seq_along(fingerprints), fingerprints, FUN = seq_along)
}

prompt_fingerprint <- function(prompt) {
  if (is.character(prompt)) return(digest::digest(prompt, algo = "sha256"))
  digest::digest(lapply(prompt, function(x) {
    if (is.character(x)) x else ellmer::contents_record(x)
  }), algo = "sha256")
}

# What identifies a request besides its messages; never the credentials.
request_identity <- function(chat, key_extra = NULL) {
  provider <- chat$get_provider()
  model <- chat$get_model_object()
  list(
    version = 1L,
    provider = provider@name,
    base_url = tryCatch(provider@base_url, error = function(e) NA_character_),
    model = model@name,
    params = model@params,
    extra_args = model@extra_args,
    system_prompt = chat$get_system_prompt(),
    turns = lapply(chat$get_turns(), function(t) ellmer::contents_record(t)),
    extra = key_extra
  )
}

send_prompts <- function(chat, prompts, max_active, rpm, max_tries, keep_json) {
  if (inherits(chat, "BaselineChat")) {
    return(lapply(prompts, function(p) {
      tryCatch(record_from_turn(chat$respond(p), 0, keep_json), error = identity)
    }))
  }
  started <- Sys.time()
  n_before <- length(chat$get_turns(include_system_prompt = TRUE))
  chats <- withr::with_options(
    list(ellmer_max_tries = max_tries,
         httr2_mock = getOption("httr2_mock") %||% bounded_retries(prompts, max_tries)),
    without_jit(suppressWarnings(ellmer::parallel_chat(
      chat$clone(), prompts, max_active = max_active, rpm = rpm, on_error = "continue"
    )))
  )
  elapsed <- as.double(Sys.time() - started, units = "secs")
  lapply(chats, function(x) {
    if (is.null(x)) return(simpleError("The request did not complete."))
    if (inherits(x, "error")) return(x)
    turn <- x$last_turn()
    usage <- request_usage(x, n_before)
    record_from_turn(turn, turn@duration %|NA|% elapsed, keep_json, usage$tokens, usage$cost)
  })
}

# Tokens and cost of every assistant turn this request added (with tools, one per round),
# not only the last; the chat's earlier turns (`n_before`, counting the system prompt) are
# not this request's.
request_usage <- function(x, n_before) {
  turns <- x$get_turns(include_system_prompt = TRUE)
  new <- turns[setdiff(seq_along(turns), seq_len(n_before))]
  new <- Filter(function(t) identical(t@role, "assistant"), new)
  if (!length(new)) new <- list(x$last_turn())
  tokens <- Reduce(`+`, lapply(new, function(t) t@tokens))
  list(tokens = tokens, cost = sum(vapply(new, function(t) as.double(t@cost), 1)))
}

# httr2's req_perform_parallel() (behind ellmer::parallel_chat()) does not respect
# req_retry(max_tries): a request answered 429 or 503 again and again is retried forever, so
# one exhausted quota would hang a run. This httr2 mock sees every attempt before it is sent;
# once a request body has been tried `max_tries` times (per copy of it in the batch), it
# answers locally with a non-transient error instead, and the batch finishes.
bounded_retries <- function(prompts, max_tries) {
  tries <- new.env(parent = emptyenv())
  copies <- table(vapply(prompts, prompt_fingerprint, ""))
  limit <- max_tries * max(copies)
  function(req) {
    key <- digest::digest(req$body$data, algo = "md5")
    tries[[key]] <- (tries[[key]] %||% 0L) + 1L
    if (tries[[key]] <= limit) return(NULL)
    message <- paste0("Gave up after ", limit, " tries: the provider kept answering with a ",
                      "transient error (such as HTTP 429 or 503) or dropping the connection.")
    httr2::response(
      status_code = 499L, url = req$url,
      headers = list(`Content-Type` = "application/json"),
      body = charToRaw(as.character(jsonlite::toJSON(
        list(error = list(message = message, type = "predictivebench_retries")),
        auto_unbox = TRUE
      )))
    )
  }
}

# R's JIT byte-compiles each new closure when it is first run. ellmer sends every parallel
# request through a fresh coro generator (a new closure), so with the JIT on (R's default)
# most of a large run's CPU goes to the compiler: 300 requests took 25 s with it and 4 s
# without on the bench machine (bench/throughput.R). The JIT level is restored on exit.
without_jit <- function(expr) {
  # compiler ships with R; fetched this way it needs no Imports entry.
  enable_jit <- utils::getFromNamespace("enableJIT", "compiler")
  old <- enable_jit(0)
  on.exit(enable_jit(old), add = TRUE)
  expr
}

`%|NA|%` <- function(x, y) if (length(x) != 1 || is.na(x)) y else x

# `tokens`/`cost` override the turn's own (the sum over a request's tool-call rounds).
record_from_turn <- function(turn, seconds, keep_json, tokens = turn@tokens, cost = turn@cost) {
  list(
    turn = ellmer::contents_record(
      ellmer::AssistantTurn(contents = turn@contents, tokens = tokens, cost = cost,
                            duration = seconds, finish_reason = turn@finish_reason)
    ),
    text = turn@text,
    json = if (keep_json) turn@json else NULL,
    input_tokens = tokens[[1]],
    output_tokens = tokens[[2]],
    cost = cost,
    seconds = seconds
  )
}

is_transient_error <- function(e) {
  status <- tryCatch(httr2::resp_status(e$resp), error = function(e2) NA_integer_)
  if (!is.na(status)) return(status == 429 || status >= 500)
  inherits(e, c("httr2_failure", "curl_error", "httr2_timeout")) ||
    grepl("timeout|timed out|connect|reset", conditionMessage(e), ignore.case = TRUE)
}

responses_tibble <- function(chat, prompts, records, errors, cached, keep_json) {
  base_turns <- chat$get_turns()
  chats <- lapply(seq_along(prompts), function(i) {
    user <- user_turn_of(prompts[[i]])
    turns <- c(base_turns, list(user))
    assistant <- if (is.null(records[[i]])) empty_turn() else
      ellmer::contents_replay(records[[i]]$turn)
    turns <- c(turns, list(assistant))
    chat$clone()$set_turns(turns)
  })
  field <- function(name, default) {
    vapply(records, function(r) if (is.null(r)) default else as.double(r[[name]] %||% default),
           default)
  }
  out <- tibble::tibble(
    result = vapply(records, function(r) if (is.null(r)) NA_character_ else r$text, ""),
    chat = chats,
    error = errors,
    cached = cached,
    input_tokens = ifelse(cached, 0, field("input_tokens", NA_real_)),
    output_tokens = ifelse(cached, 0, field("output_tokens", NA_real_)),
    cost = ifelse(cached, 0, field("cost", NA_real_)),
    seconds = ifelse(cached, 0, field("seconds", NA_real_))
  )
  if (keep_json) out$json <- lapply(records, function(r) r$json)
  out
}

#' A vitals solver built on generate_responses()
#'
#' `generate_solver()` returns a solver for [vitals::Task] that sends each input through
#' [generate_responses()] (cache, retries, failure isolation, accounting) and returns the
#' response text as the result. Benchmarks build their solvers on it; use it directly for a
#' custom task. Per-sample `solver_metadata` holds `error`, `cached`, `input_tokens`,
#' `output_tokens`, `cost` and `seconds`.
#'
#' @param prepare A function turning the task's `input` column into prompts (strings or
#'   lists of contents); the default uses the input as is.
#' @param system_prompt A system prompt that replaces the chat's, or `NULL` to keep it.
#' @param params A list of request parameters (see [ellmer::params()]) that override the
#'   chat's, such as `list(temperature = 0)`; `NULL` keeps the chat's.
#' @inheritParams generate_responses
#' @returns A function `function(inputs, ..., solver_chat)`.
#' @export
#' @examples
#' tsk <- vitals::Task$new(
#'   dataset = tibble::tibble(input = c("1+1?", "2+2?"), target = c("2", "4")),
#'   solver = generate_solver(cache = FALSE),
#'   scorer = function(samples, ...) {
#'     list(score = factor(ifelse(samples$result == samples$target, "C", "I"),
#'                         levels = c("I", "C"), ordered = TRUE))
#'   },
#'   dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
generate_solver <- function(prepare = identity, system_prompt = NULL, params = NULL,
                            cache = TRUE, max_active = 10, rpm = 500, max_tries = 3,
                            backoff = 1, chunk_size = NULL, key_extra = NULL,
                            keep_json = FALSE) {
  force(prepare)
  cache_dir(cache)
  function(inputs, ..., solver_chat) {
    solver_chat <- as_chat(solver_chat)
    chat <- configure_chat(solver_chat, system_prompt, params)
    res <- generate_responses(
      chat, prepare(inputs), cache = cache, max_active = max_active, rpm = rpm,
      max_tries = max_tries, backoff = backoff, chunk_size = chunk_size,
      key_extra = key_extra, keep_json = keep_json
    )
    warn_failures(res$error)
    list(result = res$result, solver_chat = res$chat, solver_metadata = response_metadata(res))
  }
}

response_metadata <- function(res) {
  lapply(seq_len(nrow(res)), function(i) {
    out <- list(
      error = res$error[[i]], cached = res$cached[[i]],
      input_tokens = res$input_tokens[[i]], output_tokens = res$output_tokens[[i]],
      cost = res$cost[[i]], seconds = res$seconds[[i]]
    )
    if ("json" %in% names(res)) out$json <- res$json[[i]]
    out
  })
}

warn_failures <- function(errors) {
  failed <- sum(!is.na(errors))
  if (failed) {
    cli::cli_warn(c(
      "{failed} request{?s} failed; {?its/their} sample{?s} {?has/have} result {.code NA}.",
      i = "First error: {errors[!is.na(errors)][[1]]}",
      i = "Run {.code $eval()} again to retry them; answered requests come from the cache."
    ), class = "predictivebench_warning_failed_requests")
  }
}

#' Override a chat's system prompt and request parameters
#'
#' Returns a clone of `chat` with `system_prompt` (when not `NULL`) and `params` merged into
#' its parameters, so a benchmark can fix, e.g., `temperature = 0` whatever chat the user
#' passes. The original chat is not changed.
#'
#' @param chat An ellmer chat.
#' @param api_args A list of extra request-body fields merged into the chat's `api_args`
#'   (ellmer's escape hatch for fields it has no parameter for, such as `list(n = 8)`);
#'   `NULL` keeps them.
#' @inheritParams generate_solver
#' @returns An ellmer chat.
#' @export
#' @examples
#' chat <- baseline_constant("x")
#' configure_chat(chat, "Be brief.", list(temperature = 0))$get_system_prompt()
configure_chat <- function(chat, system_prompt = NULL, params = NULL, api_args = NULL) {
  chat <- as_chat(chat)
  chat <- chat$clone()
  if (!is.null(system_prompt)) chat$set_system_prompt(system_prompt)
  if (length(params) || length(api_args)) {
    # ellmer keeps parameters on the chat's private Model object and has no setter for them.
    private <- chat$.__enclos_env__$private
    model <- private$model
    if (length(params)) model@params <- utils::modifyList(model@params, params)
    if (length(api_args)) model@extra_args <- utils::modifyList(model@extra_args, api_args)
    private$model <- model
  }
  chat
}
