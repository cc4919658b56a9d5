# Every place predictivebench reaches past ellmer's public API, in one file. Each helper says
# why it exists and which public hook would replace it; nothing here changes global state
# beyond the frame that asked (an option set with withr, restored when that frame ends).

# ellmer's internal functions, looked up by name. `NULL` when this ellmer version has no such
# function, so callers can fall back to the public API instead of failing.
ellmer_internal <- function(name) {
  ns <- asNamespace("ellmer")
  if (exists(name, envir = ns, inherits = FALSE)) get(name, envir = ns) else NULL
}

# Why: ellmer keeps a chat's parameters on its private Model object and has no setter for
# them (`Chat$set_model()` takes a model name only), yet a benchmark must fix, e.g.,
# `temperature = 0` on whatever chat the user passes. Replaced by: a public
# `Chat$set_params()` / `Chat$set_model_object()`, were ellmer to add one.
chat_set_params <- function(chat, params = NULL, api_args = NULL) {
  private <- chat$.__enclos_env__$private
  model <- private$model
  if (length(params)) model@params <- utils::modifyList(model@params, params)
  if (length(api_args)) model@extra_args <- utils::modifyList(model@extra_args, api_args)
  private$model <- model
  chat
}

# Why: a dry run (estimate_cost(), a set's preview) builds the requests ellmer would send
# to count them, and ellmer reads the chat's credentials while building one: without a key
# (`OPENAI_API_KEY` unset) the preview of a run that sends nothing failed. ellmer has no
# setter for a chat's provider. So the dry run builds its requests with a clone whose
# credentials give no header at all. Replaced by: a public `Chat$set_provider()`, or a way
# to build a request without its credentials.
chat_offline <- function(chat) {
  provider <- chat$get_provider()
  if (!is.function(S7::prop(provider, "credentials"))) return(chat)
  chat <- chat$clone()
  private <- chat$.__enclos_env__$private
  S7::prop(provider, "credentials") <- function(...) list()
  private$provider <- provider
  chat
}

# The fast request path (R/engine-transport.R) sends OpenAI-compatible chat completions over curl's
# multi interface without ellmer's per-request promise and coro machinery, which costs about
# 10 ms of CPU per request (more than the network at 50 requests in flight). To send exactly
# what ellmer would send and read the answer exactly as ellmer would, it uses ellmer's own
# request builder and response parser, which are not exported:
# * `ellmer_request()`: the httr2 request ellmer builds for `turns` (its URL, headers and
#   JSON body are then read with httr2's public req_get_*() getters);
# * `ellmer_turn()`: the assistant turn ellmer makes of a response body (contents, tokens,
#   cost from its price table, finish reason), with the warning `$chat()` gives for an answer
#   that did not finish (warn_finish_reason()).
# Replaced by: public `chat_request()`/`value_turn()` generics (or a public "build the
# request" / "parse a response" pair on Chat). When this ellmer lacks them,
# `ellmer_fast_path_available()` is FALSE and every request goes through `$chat_async()`.
ellmer_fast_path_available <- function() {
  !is.null(ellmer_internal("chat_request")) && !is.null(ellmer_internal("value_turn"))
}

ellmer_request <- function(chat, turns) {
  chat_request <- ellmer_internal("chat_request")
  chat_request(provider = chat$get_provider(), model = chat$get_model_object(),
               stream = FALSE, turns = turns, tools = list(), type = NULL)
}

ellmer_turn <- function(chat, json) {
  turn <- ellmer_internal("value_turn")(chat$get_provider(), chat$get_model_object(), json,
                                        has_type = FALSE)
  warn_finish_reason(turn@finish_reason)
  turn
}

# ellmer's warning (the text of its check_finish_reason(), as `$chat()` gives it) for a turn's
# `finish_reason`: a known cut or filter, or a provider's reason ellmer does not know (kept
# as I(reason) by value_turn()).
warn_finish_reason <- function(reason) {
  message <- if (inherits(reason, "AsIs")) {
    "Response may be incomplete, unexpected finish reason: {.val {reason}}."
  } else {
    switch(reason,
      max_tokens = c(
        "Response was truncated because it hit the {.arg max_tokens} limit.",
        i = "Increase {.arg max_tokens} to allow the model to generate the full response."
      ),
      context_window = "Response was truncated because it exceeded the model's context window.",
      content_filter = "Response was filtered by the provider's content moderation policy.",
      NULL)
  }
  if (!is.null(message)) cli::cli_warn(message, call = NULL)
}

# Why: ellmer's `value_turn()` reads every answer with S7's checked constructors and looks the
# model's price up in its price table for each one (`get_token_cost()`: a data.frame() and a
# vctrs::vec_match() per answer), ~0.8 ms of CPU a request, more than curl's own. So the
# fast path reads the commonest answer itself: a chat completion (the exact
# ProviderOpenAICompatible class) whose first choice is a message of one non-empty text, no
# reasoning, no tool calls, finished with "stop" and with numeric (or absent) usage. It builds
# the turn ellmer's value_turn() would build (identical(): test-engine-compat-ellmer.R) from
# ellmer's prototype turn (R/engine-turns.R), with the cost computed by ellmer's formula from
# the chat's price row, looked up once per reader (one reader per chat and run). Any other
# answer, or an ellmer without the internals, goes through ellmer_turn(). Replaced by: a
# public value_turn() that does not look the price up each time.
ellmer_turn_reader <- function(chat) {
  provider <- chat$get_provider()
  fast <- identical(class(provider)[[1]], "ellmer::ProviderOpenAICompatible") &&
    !is.null(ellmer_prices())
  price <- NULL
  function(json) {
    choice <- if (fast) plain_text_choice(json)
    if (is.null(choice)) return(ellmer_turn(chat, json))
    usage <- json$usage
    cached <- usage$prompt_tokens_details$cached_tokens %||% 0
    # ellmer's value_tokens() and tokens(), then get_token_cost()'s sum, in the same order
    tokens <- list(input = (usage$prompt_tokens %||% 0) - cached,
                   output = usage$completion_tokens %||% 0, cached_input = cached)
    price <<- price %||% ellmer_price(provider@name, chat$get_model_object()@name)
    cost <- ellmer_dollars(tokens$input * price$input / 1e+06 +
                             tokens$output * price$output / 1e+06 +
                             tokens$cached_input * price$cached_input / 1e+06)
    S7::set_props(turn_prototype("assistant"),
                  contents = list(text_content(choice$message$content)), json = json,
                  tokens = unlist(tokens), cost = cost, finish_reason = "success",
                  .check = FALSE)
  }
}

# The first choice of a chat completion `json` when ellmer_turn_reader() may read it itself
# (see there), else NULL.
plain_text_choice <- function(json) {
  choice <- if (is.list(json$choices) && length(json$choices)) json$choices[[1]]
  message <- if (is.list(choice) && !"delta" %in% names(choice)) choice$message
  if (!is.list(message) || !identical(choice$finish_reason, "stop")) return(NULL)
  content <- message$content
  plain <- is.character(content) && length(content) == 1 && !is.na(content) &&
    nzchar(content) && is.null(message$reasoning) && is.null(message$reasoning_content) &&
    !"tool_calls" %in% names(message)
  usage <- json$usage
  details <- if (is.list(usage)) usage$prompt_tokens_details
  counts <- list(if (is.list(usage)) usage$prompt_tokens,
                 if (is.list(usage)) usage$completion_tokens,
                 if (is.list(details)) details$cached_tokens)
  usage_ok <- (is.null(usage) || is.list(usage)) && (is.null(details) || is.list(details)) &&
    all(vapply(counts, is_token_count, TRUE))
  if (plain && usage_ok) choice
}

# A token count ellmer's tokens() takes (one number, not NA) or none.
is_token_count <- function(x) is.null(x) || (is.numeric(x) && length(x) == 1 && !is.na(x))

# A cost as ellmer's turns carry it: its class prints it in dollars.
ellmer_dollars <- function(x) structure(x, class = c("ellmer_dollars", "numeric"))

# Why: what a request costs is read from ellmer's price table (its bundled prices, or those
# models_update_prices() cached), which has no exported reader. NULL when this ellmer has none.
# Replaced by: an exported price lookup.
ellmer_prices <- function() {
  prices_get <- ellmer_internal("prices_get")
  if (is.function(prices_get)) tryCatch(prices_get(), error = function(e) NULL)
}

# The row of ellmer's price table get_token_cost() uses for a provider's model (the default
# variant): its prices per million input, output and cached input tokens, NA when unknown.
ellmer_price <- function(provider_name, model_name) {
  prices <- ellmer_prices()
  row <- which(prices$provider == provider_name & prices$model == model_name &
                 prices$variant == "")[1]
  list(input = prices$input[row], output = prices$output[row],
       cached_input = prices$cached_input[row])
}

# Why: ellmer's requests follow redirects (httr2's default), to any host, and so send the API
# key header, and on a 307/308 the prompt, to wherever a redirect points; ellmer has no
# option or hook to set a request's curl options. So the chat that `$chat_async()` sends
# through (a clone, R/engine-transport.R) gets its provider wrapped in a subclass of the provider's
# own S7 class whose only method, for ellmer's internal `chat_request()` generic (the request
# of every round, tools included), turns redirects off and makes a 30x an error (read by
# http_error()). The S7 method is registered once per provider class and session, for
# classes only this package makes. ellmer's own error-body reader is left out: it errors on
# an empty body, and inside a later callback that error would escape the event loop;
# http_error() reads the provider's message instead. Replaced by: a public way to set
# request options (or a request hook) on a chat or provider.
# `stop`, when given, is an environment: once its `reason` is set (abandon_chat()), every
# further round of the chat fails before it is sent. A request abandoned past its deadline
# is still a live promise on the later event loop, and its tool loop would otherwise send
# (and pay for) one more round whenever the loop next runs, even in another run.
chat_without_redirects <- function(chat, stop = NULL) {
  if (is.null(ellmer_internal("chat_request"))) return(chat)
  private <- chat$.__enclos_env__$private
  provider <- private$provider
  wrapped <- no_redirect_class(S7::S7_class(provider))(provider)
  attr(wrapped, "predictivebench_stop") <- stop
  private$provider <- wrapped
  chat
}

# Marks a chat made by chat_without_redirects(chat, stop) as abandoned: its next round fails.
abandon_chat <- function(stop, reason) {
  if (is.environment(stop)) stop$reason <- reason
  invisible()
}

no_redirect_classes <- new.env(parent = emptyenv())

# One subclass per provider class, made (and its method registered) once per session.
no_redirect_class <- function(parent) {
  # attr(), not @: codetools under R 4.2 reads the name after @ as a variable
  name <- paste0("predictivebench_no_redirect_", attr(parent, "package") %||% "", "_",
                 attr(parent, "name"))
  if (!is.null(no_redirect_classes[[name]])) return(no_redirect_classes[[name]])
  class <- S7::new_class(name, parent = parent, package = NULL,
                         constructor = function(provider) S7::new_object(provider))
  chat_request <- ellmer_internal("chat_request")
  S7::method(chat_request, class) <- function(provider, model, stream = TRUE, turns = list(),
                                              tools = list(), type = NULL) {
    reason <- attr(provider, "predictivebench_stop")$reason
    if (!is.null(reason)) abort_pb(reason, "abandoned")
    req <- chat_request(S7::super(provider, parent), model = model, stream = stream,
                        turns = turns, tools = tools, type = type)
    req <- httr2::req_options(req, followlocation = 0L)
    # Over plain http, HTTP/1.1 is what curl speaks anyway; saying so up front keeps curl's
    # default pool (which multiplexes) from holding every other request to the host until
    # the first connection answers, which a stalled server never does.
    if (startsWith(req$url, "http://")) req <- httr2::req_options(req, http_version = 2L)
    httr2::req_error(req, is_error = function(resp) httr2::resp_status(resp) >= 300,
                     body = function(resp) NULL)
  }
  # Batch APIs (files, batches, polls, results; R/engine-batch.R) build their requests on
  # base_request(): the same rule for them.
  base_request <- ellmer_internal("base_request")
  if (!is.null(base_request)) {
    S7::method(base_request, class) <- function(provider) {
      req <- base_request(S7::super(provider, parent))
      req <- httr2::req_options(req, followlocation = 0L)
      refuse_redirects(req)
    }
  }
  no_redirect_classes[[name]] <- class
  class
}

# A 30x is an error (keeping the provider's own reading of error bodies for 4xx/5xx), so a
# redirect that is not followed fails with its status and target instead of being parsed as
# an answer.
refuse_redirects <- function(req) {
  body <- req$policies$error_body
  httr2::req_error(req, is_error = function(resp) httr2::resp_status(resp) >= 300,
                   body = function(resp) {
                     if (httr2::resp_status(resp) < 400) {
                       location <- httr2::resp_header(resp, "location") %||% "?"
                       return(paste0("Redirect to ", url_origin(location), ": not followed."))
                     }
                     if (is.function(body)) body(resp)
                   })
}

# Why: R's JIT byte-compiles every new closure the first time it runs, and ellmer's
# `$chat_async()` makes fresh coro generators (new closures) for every request, so with the
# JIT on (R's default) each request through the general path costs ~450 ms of CPU here
# instead of ~25 ms (bench/README.md). The JIT level is process-global, so it is lowered only
# while such requests are in flight and restored on exit, even on error or interrupt; the
# fast path and offline chats never touch it. Replaced by: coro generators that are compiled
# once (or a per-function opt-out of the JIT in R); there is no public hook in either today.
without_jit <- function(expr) {
  # compiler ships with R; fetched this way it needs no Imports entry.
  enable_jit <- utils::getFromNamespace("enableJIT", "compiler")
  old <- enable_jit(0)
  on.exit(enable_jit(old), add = TRUE)
  expr
}

# Why: ellmer 0.5.0 keeps polling an OpenAI batch that ended "expired" (its status check only
# knows "completed") and could not read the error file's lines for expired requests (their
# `response` is null) anyway. To keep the answered part of such a batch, R/engine-batch.R
# downloads the batch's output and error files itself, with the provider's authenticated
# base request. Replaced by: ellmer handling terminal batch states (or a public
# batch_retrieve()).
ellmer_base_request <- function(chat) {
  base_request <- ellmer_internal("base_request")
  if (is.null(base_request)) return(NULL)
  base_request(chat$get_provider())
}

# Why: ellmer::parallel_chat() (which vitals::generate() and vitals' model-graded scorers
# call) sends a chat's requests over HTTP with its provider, and ellmer has no provider class
# a package can implement to answer without HTTP. So while `frame` runs, an httr2 mock scoped
# to it (httr2::local_mocked_responses()) answers requests to the address of each baseline
# among `chats` (a list; plain lists in it are looked into) and passes every other request on.
# Replaced by: an ellmer provider that answers locally, were ellmer to export the hook.
local_baseline_answers <- function(chats, frame = parent.frame()) {
  chats <- unlist(lapply(chats, function(x) if (is.list(x) && !is.object(x)) x else list(x)),
                  recursive = FALSE)
  baselines <- Filter(function(x) inherits(x, "BaselineChat"), chats)
  if (!length(baselines)) return(invisible())
  mock <- getOption("httr2_mock")
  for (chat in baselines) mock <- baseline_mock(chat, mock)
  httr2::local_mocked_responses(mock, env = frame)
}

# An httr2 mock answering chat-completions requests to `chat`'s address with its responder;
# other requests go to the mock that was set before, or to the network.
baseline_mock <- function(chat, previous = NULL) {
  force(previous)
  prefix <- paste0(chat$base_url, "/")
  mock <- function(req) {
    if (!startsWith(httr2::req_get_url(req), prefix)) {
      return(if (is.function(previous)) previous(req))
    }
    body <- httr2::req_get_body(req)
    answer <- tryCatch(chat$respond(request_prompt(body$messages))@text,
                       error = function(e) e)
    if (inherits(answer, "error")) {
      return(httr2::response_json(400L, body = list(error = list(
        message = conditionMessage(answer)))))
    }
    httr2::response_json(body = list(
      id = "baseline", object = "chat.completion", model = body$model %||% "baseline",
      choices = list(list(index = 0L, finish_reason = "stop",
                          message = list(role = "assistant", content = answer))),
      usage = list(prompt_tokens = 0L, completion_tokens = 0L, total_tokens = 0L)
    ))
  }
  mock
}

# The text of the last user message of a chat-completions request, as prompt_text() reads a
# prompt: its text parts joined by newlines.
request_prompt <- function(messages) {
  users <- Filter(function(m) identical(m$role, "user"), messages %||% list())
  if (!length(users)) return("")
  content <- users[[length(users)]]$content
  if (is.character(content)) return(paste(content, collapse = "\n"))
  parts <- vapply(content, function(p) {
    if (identical(p$type, "text")) as.character(p$text %||% "") else ""
  }, "")
  paste(parts[nzchar(parts)], collapse = "\n")
}
