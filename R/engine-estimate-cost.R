# What a run will cost, before any request is sent: the task is solved and scored once
# offline, every request answered where the engine would send it (R/engine-dry-run.R), and
# any other HTTP request by httr2's mock.

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
#' its chat's fixed messages, not from a request built and answered. `cached` counts hits in
#' every cache the task's solver and scorer use (their settings' `cache`, or the one given
#' here); a request asked again in the same run counts once, as the real run would send it
#' once.
#'
#' @param task A vitals Task (not modified: a copy is run).
#' @param chat The ellmer chat you will pass as `solver_chat`.
#' @param ... Other named arguments of `$eval()`, such as `scorer_chat`, and request
#'   settings (see [request_settings()]) as `$eval()` takes them, which override the
#'   solver's and scorer's own: `batch = TRUE` prices the run as provider batches, `cache`
#'   names the cache the run will use. Requests the engine does not send itself (vitals'
#'   own solvers and scorers) are priced at the chat given here of their model (a
#'   `scorer_chat`), else at `chat`'s. A solver or judge whose
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
  # nothing is sent, so no key is read (vitals' own solvers and scorers build their
  # requests through ellmer too): a preview works without one
  chat <- chat_offline(chat)
  dots <- lapply(dots, function(x) if (inherits(x, "Chat")) chat_offline(x) else x)
  context <- dry_run(task, chat, dots, epochs, new_dry_run(answer))
  chats <- c(list(chat), Filter(function(x) inherits(x, "Chat"), dots))
  counts <- dry_run_costs(context, chats, batch)
  # priced at the batch price throughout: asked for, or every request of a batch = TRUE solver
  batch <- batch || (counts$n > 0 && counts$all_batch)
  # one type per column however many requests there are (a sum over none is an integer)
  tibble::tibble(
    requests = as.integer(context$hits + counts$n), cached = as.integer(context$hits),
    to_send = as.integer(counts$n), input_tokens = as.double(counts$input),
    output_tokens_max = as.double(counts$output), cost_max = as.double(counts$cost),
    tokens = counts$how,
    provider = chat$get_provider()@name, model = chat$get_model(),
    batch = batch
  )
}

# Solves and scores a copy of `task` once, inside a dry-run context (R/engine-dry-run.R):
# the engine answers its own requests there; any request that still reaches httr2 (vitals'
# own solvers and scorers) is answered by fake_response() and recorded (url, body). Every
# cache is only read.
dry_run <- function(task, chat, dots, epochs, context) {
  copy <- task$clone(deep = TRUE)
  # As $eval() splits them: request settings go to the solver and the scorer, and so does
  # the dry-run context, a setting only this function gives (R/engine-settings.R).
  dots$dry_run <- context
  settings <- rlang::names2(dots) %in% c(request_setting_names(), "dry_run")
  solver_args <- dots[startsWith(rlang::names2(dots), "solver_") | settings]
  scorer_args <- dots[!startsWith(rlang::names2(dots), "solver_")]
  with_dry_run_mock(context, {
    do.call(copy$solve, c(list(solver_chat = chat), solver_args, list(epochs = epochs)))
    do.call(copy$score, scorer_args)
  })
  invisible(context)
}

# Evaluates `code` (quietly) with every HTTP request that still reaches httr2 answered by
# fake_response() and recorded in the dry-run `context` (url, body), so nothing leaves the
# machine: what estimate_cost() runs, and what an evaluation set's closing arena runs for
# its preview (R/evalset-cost.R).
with_dry_run_mock <- function(context, code) {
  mock <- function(req) {
    body <- tryCatch(httr2::req_get_body(req), error = function(e) NULL)
    context$requests[[length(context$requests) + 1]] <- list(url = req$url, body = body,
                                                              batch = context$batch)
    fake_response(req$url, body, context$answer)
  }
  httr2::with_mocked_responses(mock, suppressMessages(suppressWarnings(code)))
}

# Input tokens, the bound on output tokens and its price over the requests to send, each
# counted and priced for its own chat's model: the engine's requests (a solver's, a judge's,
# a grader's) for the chat that sends them, whatever was given here; log-probability
# requests and those the mock saw for the chat given here of their body's model (else the
# solver's). Tokens are counted once per distinct text and encoding, in bulk.
dry_run_costs <- function(context, chats, batch) {
  models <- vapply(chats, function(ch) ch$get_model(), "")
  chat_of <- function(chat, model) {
    if (!is.null(chat)) return(chat)
    at <- match(model %||% NA_character_, models)
    chats[[if (is.na(at)) 1L else at]]
  }
  pricing <- memo_pricing(batch)
  chunks <- context$chunks
  templates <- lapply(context$templates, function(t) {
    c(t[c("fixed", "chat_style", "output")], pricing(chat_of(t$chat, t$model)))
  })
  engine <- lapply(chunks, function(chunk) {
    t <- templates[[chunk$template]]
    list(texts = chunk$texts, encoding = t$encoding, fixed = t$fixed,
         chat_style = t$chat_style, output = t$output,
         price = t[[if (chunk$batch) "batch" else "regular"]])
  })
  rows <- c(engine_request_costs(engine), lapply(context$requests, function(r) {
    p <- pricing(chat_of(NULL, r$body$model))
    one_request(r$body, p$encoding, p[[if (isTRUE(r$batch)) "batch" else "regular"]])
  }))
  pick <- function(field) unlist(lapply(rows, `[[`, field))
  exact <- pick("exact")
  flags <- c(unlist(lapply(chunks, function(x) rep(x$batch, length(x$texts)))),
             vapply(context$requests, function(r) isTRUE(r$batch), NA))
  list(n = length(exact), input = sum(pick("input")), output = sum(pick("output")),
       cost = sum(pick("cost")), how = if (length(exact) && all(exact)) "exact" else "estimate",
       all_batch = all(flags))
}

# A chat's tokenizer and its regular and batch prices, looked up once per provider and model.
memo_pricing <- function(batch) {
  seen <- list()
  function(chat) {
    id <- paste(chat$get_provider()@name, chat$get_model(), sep = "\r")
    seen[[id]] <<- seen[[id]] %||% list(encoding = openai_encoding(chat),
                                         regular = model_price(chat, batch = batch),
                                         batch = model_price(chat, batch = TRUE))
    seen[[id]]
  }
}

# The engine's requests, one list per chunk (its texts, encoding, fixed messages, style,
# output bound and price): for each request the counts one_request() gives for its body.
engine_request_costs <- function(chunks) {
  texts <- unlist(lapply(chunks, function(x) unlist(x$texts)), use.names = FALSE)
  encodings <- unlist(lapply(chunks, function(x) {
    rep(x$encoding %||% NA_character_, sum(lengths(x$texts)))
  }), use.names = FALSE)
  counts <- bulk_token_counts(texts, encodings)
  start <- 0L
  lapply(chunks, function(x) {
    n <- lengths(x$texts)
    at <- start + seq_len(sum(n))
    start <<- start + sum(n)
    request <- factor(rep(seq_along(n), n), seq_along(n))
    exact <- !is.null(x$encoding)
    input <- if (exact) {
      fixed <- sum(bulk_token_counts(x$fixed, rep(x$encoding, length(x$fixed))))
      # chat messages: 3 tokens per message and 3 to start the reply
      sum_by(counts[at], request) + fixed +
        if (x$chat_style) 3 * (n + length(x$fixed)) + 3 else 0
    } else {
      ceiling((sum_by(nchar(texts[at]), request) + sum(nchar(x$fixed))) / 4)
    }
    output <- rep(x$output, length(n))
    cost <- if (is.null(x$price)) rep(NA_real_, length(n)) else
      (input * x$price$input + output * x$price$output) / 1e6
    list(input = input, output = output, cost = cost, exact = rep(exact, length(n)))
  })
}

sum_by <- function(x, group) {
  out <- as.vector(tapply(as.double(x), group, sum))
  out[is.na(out)] <- 0  # a request without texts
  out
}

# Tokens of each text for its encoding (NA: not counted), each distinct pair counted once.
bulk_token_counts <- function(texts, encodings) {
  out <- rep(NA_real_, length(texts))
  for (encoding in unique(encodings[!is.na(encodings)])) {
    at <- which(encodings == encoding)
    distinct <- unique(texts[at])
    counts <- vapply(distinct, function(t) {
      as.double(rtiktoken::get_token_count(enc2utf8(t), encoding))
    }, 1, USE.NAMES = FALSE)
    out[at] <- counts[match(texts[at], distinct)]
  }
  out
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
  output <- output_bound(body)
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
