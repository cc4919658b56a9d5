# What a run will cost, before any request is sent: the task is solved and scored once
# offline, with every HTTP request answered locally (httr2's mocking) and recorded.

#' What will this run cost?
#'
#' @description
#' `estimate_cost()` answers before you pay: it runs `task` with `chat` as `$eval()` would,
#' but answers every HTTP request locally, so nothing leaves the machine and nothing is
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
#'   when it knows the provider and model, else `NA`: tokens only. Requests a run would
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
#' it reads the cache directories and puts the placeholder answers into a private
#' temporary directory (deleted at the end), so however it ends, even killed, the cache is
#' as it was and no placeholder answer is ever served as a model's. To count cached requests
#' too it runs twice, the second time without reading the cache. `cached` counts hits in
#' every cache the task's solver and scorer use (their settings' `cache`, or the one given
#' here).
#'
#' @param task A vitals Task (not modified: a copy is run).
#' @param chat The ellmer chat you will pass as `solver_chat`.
#' @param ... Other named arguments of `$eval()`, such as `scorer_chat`, and request
#'   settings (see [request_settings()]) as `$eval()` takes them, which override the
#'   solver's and scorer's own: `batch = TRUE` prices the run as provider batches, `cache`
#'   names the cache the run will use. Requests to a chat's model given here (a judge) are
#'   counted with that chat's tokenizer and priced at its price. A solver or judge whose
#'   settings say `batch = TRUE` is priced at the batch price anyway: the dry run counts its
#'   requests one by one, at that price.
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
  to_send <- dry_run(task, chat, dots, epochs, answer, hide_cache = FALSE)
  total <- dry_run(task, chat, dots, epochs, answer, hide_cache = TRUE)
  chats <- c(list(chat), Filter(function(x) inherits(x, "Chat"), dots))
  counts <- request_costs(to_send, chats, batch)
  # priced at the batch price throughout: asked for, or every request of a batch = TRUE solver
  batch <- batch || (length(to_send) > 0 && all(vapply(to_send, `[[`, NA, "batch")))
  tibble::tibble(
    requests = length(total), cached = length(total) - length(to_send),
    to_send = length(to_send), input_tokens = counts$input,
    output_tokens_max = counts$output, cost_max = counts$cost, tokens = counts$how,
    provider = chat$get_provider()@name, model = chat$get_model(),
    batch = batch
  )
}

# Solves and scores a copy of `task` with every HTTP request answered by fake_response();
# returns the requests (url and body). Every cache is read-only for it (new_dry_run()).
dry_run <- function(task, chat, dots, epochs, answer, hide_cache) {
  context <- new_dry_run(tempfile("predictivebench-dry-run-"), hide_cache)
  on.exit(unlink(context$overlay$dir, recursive = TRUE), add = TRUE)
  mock <- function(req) {
    body <- tryCatch(httr2::req_get_body(req), error = function(e) NULL)
    context$requests[[length(context$requests) + 1]] <- list(url = req$url, body = body,
                                                              batch = context$batch)
    fake_response(req$url, body, answer)
  }
  copy <- task$clone(deep = TRUE)
  # As $eval() splits them: request settings go to the solver and the scorer, and so does
  # the dry-run context, a setting only this function gives (R/engine-settings.R).
  dots$dry_run <- context
  settings <- rlang::names2(dots) %in% c(request_setting_names(), "dry_run")
  solver_args <- dots[startsWith(rlang::names2(dots), "solver_") | settings]
  scorer_args <- dots[!startsWith(rlang::names2(dots), "solver_")]
  httr2::with_mocked_responses(
    mock,
    suppressMessages(suppressWarnings({
      do.call(copy$solve, c(list(solver_chat = chat), solver_args, list(epochs = epochs)))
      do.call(copy$score, scorer_args)
    }))
  )
  context$requests
}

# The dry run's context, carried down in the settings (`settings$dry_run`), never in a
# global option. Every request must go through httr2 (which the mock answers) and one by
# one: no fast path over curl (uses_fast_path()), no provider batch; a solver built with
# `batch = TRUE` sends one by one too, and its requests are marked for the batch price
# (dry_run_batch()). Answers go to a private overlay of each cache (cache_view()), in the
# session's temporary directory, so neither an error nor a kill leaves a placeholder answer
# where a real run would read it; `hide_cache` also stops reading the real caches, so that
# every request counts. Judges that keep their own records (the arena's battle cache) read
# it and write nothing.
new_dry_run <- function(overlay, hide_cache) {
  context <- new.env(parent = emptyenv())
  context$requests <- list()
  context$batch <- FALSE
  context$overlay <- list(dir = overlay, hide = hide_cache)
  class(context) <- "predictivebench_dry_run"
  context
}

# Called by the engine (run_requests()) with its settings: inside estimate_cost()'s dry run,
# a batch becomes requests sent one by one (which the mock answers), marked for the batch
# price until the caller returns. Outside it, the settings' `batch` is returned unchanged.
dry_run_batch <- function(settings, frame = parent.frame()) {
  context <- settings$dry_run
  if (!settings$batch || is.null(context)) return(settings$batch)
  context$batch <- TRUE
  withr::defer(context$batch <- FALSE, envir = frame)
  FALSE
}

# A successful reply in the shape of the endpoint's API, with the placeholder text.
fake_response <- function(url, body, answer) {
  n <- max(1L, as.integer(body$n %||% 1L))
  model <- body$model %||% "model"
  usage <- list(prompt_tokens = 1L, completion_tokens = 1L, total_tokens = 2L)
  json <- if (grepl("/chat/completions$", url)) {
    choices <- lapply(seq_len(n), function(i) {
      list(index = i - 1L, message = list(role = "assistant", content = answer),
           finish_reason = "stop")
    })
    list(id = "estimate", object = "chat.completion", created = 1L, model = model,
         choices = choices, usage = usage)
  } else if (grepl("/completions$", url)) {
    tokens <- regmatches(body$prompt, gregexpr("\n| ?[^ \n]+| +", body$prompt))[[1]]
    list(id = "estimate", object = "text_completion", model = model,
         choices = list(list(index = 0L, text = body$prompt, finish_reason = "length",
                             logprobs = list(tokens = as.list(tokens),
                                             token_logprobs = as.list(rep(-1, length(tokens))),
                                             top_logprobs = NULL))),
         usage = list(prompt_tokens = length(tokens), completion_tokens = 0L,
                      total_tokens = length(tokens)))
  } else if (grepl("/messages$", url)) {
    list(id = "estimate", type = "message", role = "assistant", model = model,
         content = list(list(type = "text", text = answer)), stop_reason = "end_turn",
         usage = list(input_tokens = 1L, output_tokens = 1L))
  } else if (grepl("/responses$", url)) {
    list(id = "estimate", object = "response", model = model, status = "completed",
         output = list(list(type = "message", role = "assistant", id = "m",
                            content = list(list(type = "output_text", text = answer)))),
         usage = list(input_tokens = 1L, output_tokens = 1L, total_tokens = 2L))
  } else {
    return(httr2::response(status_code = 400L, url = url))
  }
  httr2::response_json(status_code = 200L, url = url, body = json)
}

# Input tokens, the bound on output tokens and its price over the requests, each counted
# and priced for the chat of its model (the solver's chat, or a judge passed in `...`).
request_costs <- function(requests, chats, batch) {
  models <- vapply(chats, function(ch) ch$get_model(), "")
  prices <- list(regular = lapply(chats, model_price, batch = batch),
                 batch = lapply(chats, model_price, batch = TRUE))
  encodings <- lapply(chats, openai_encoding)
  rows <- lapply(requests, function(r) {
    at <- match(r$body$model %||% NA_character_, models)
    if (is.na(at)) at <- 1L
    price <- prices[[if (isTRUE(r$batch)) "batch" else "regular"]][[at]]
    one_request(r$body, encodings[[at]], price)
  })
  pick <- function(field) vapply(rows, function(x) x[[field]], if (field == "exact") NA else 1)
  exact <- pick("exact")
  list(input = sum(pick("input")), output = sum(pick("output")), cost = sum(pick("cost")),
       how = if (length(exact) && all(exact)) "exact" else "estimate")
}

# `encoding`: tiktoken's encoding for the model (exact counts), or NULL (an estimate).
one_request <- function(body, encoding, price) {
  texts <- request_texts(body)
  input <- if (!is.null(encoding)) {
    counts <- vapply(texts, function(t) {
      as.double(rtiktoken::get_token_count(enc2utf8(t), encoding))
    }, 1)
    # chat messages: 3 tokens per message and 3 to start the reply; a completions prompt
    # is its text alone
    if (is.null(body$prompt)) sum(counts) + 3 * length(texts) + 3 else sum(counts)
  } else {
    ceiling(sum(nchar(texts)) / 4)
  }
  limit <- body$max_completion_tokens %||% body$max_tokens %||% body$max_output_tokens
  output <- if (is.null(limit)) NA_real_ else as.double(limit) * max(1, as.double(body$n %||% 1))
  cost <- if (is.null(price)) NA_real_ else (input * price$input + output * price$output) / 1e6
  list(input = input, output = output, cost = cost, exact = !is.null(encoding))
}

# The texts a request sends, one per message: its messages (chat completions, Anthropic),
# input (Responses), system prompt, or prompt (completions).
request_texts <- function(body) {
  if (is.null(body)) return(character())
  if (!is.null(body$prompt)) return(as.character(body$prompt))
  messages <- c(if (!is.null(body$system)) list(list(content = body$system)),
                body$messages %||% body$input %||% list())
  vapply(messages, function(m) {
    content <- if (is.list(m) && !is.null(m$content)) m$content else m
    leaves <- unlist(content)
    names <- rlang::names2(leaves)
    text <- leaves[names %in% c("", "text", "content") | grepl("\\.text$", names)]
    paste(text, collapse = "")
  }, "")
}

# The tokenizer for an OpenAI model (by provider or by name), or NULL: other providers'
# tokenizers are not public, and a model tiktoken does not know is estimated too.
openai_encoding <- function(chat) {
  openai <- chat$get_provider()@name == "OpenAI" ||
    grepl("^(gpt-|o[0-9]|chatgpt-|text-|davinci|babbage)", chat$get_model())
  if (openai) tiktoken_encoding(chat$get_model())
}

# ellmer's price per million tokens for the chat's provider and model, or NULL.
model_price <- function(chat, batch = FALSE) {
  table <- tryCatch(utils::getFromNamespace("prices_get", "ellmer")(), error = function(e) NULL)
  if (is.null(table)) return(NULL)
  provider <- chat$get_provider()@name
  model <- chat$get_model()
  at <- function(variant) {
    which(table$provider == provider & table$model == model & table$variant == variant)
  }
  row <- if (batch) at("batches")
  if (length(row)) return(list(input = table$input[[row[[1]]]], output = table$output[[row[[1]]]]))
  row <- at("")
  if (!length(row)) return(NULL)
  # no batch price listed: the providers' usual batch discount, half the price
  discount <- if (batch) 0.5 else 1
  list(input = discount * table$input[[row[[1]]]], output = discount * table$output[[row[[1]]]])
}
