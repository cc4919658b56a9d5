# Every reach past ellmer's public API, in one file: each helper says why it exists and which
# public hook would replace it.

# ellmer's internal function `name`, or NULL when this ellmer lacks it (callers fall back).
ellmer_internal <- function(name) {
  ns <- asNamespace("ellmer")
  if (exists(name, envir = ns, inherits = FALSE)) get(name, envir = ns) else NULL
}

# Why: ellmer has no setter for a chat's parameters (`Chat$set_model()` takes a name only), yet a
# benchmark must fix e.g. `temperature = 0`. Replaced by: a public `Chat$set_params()`.
chat_set_params <- function(chat, params = NULL, api_args = NULL) {
  private <- chat$.__enclos_env__$private
  model <- private$model
  if (length(params)) model@params <- utils::modifyList(model@params, params)
  if (length(api_args)) model@extra_args <- utils::modifyList(model@extra_args, api_args)
  private$model <- model
  chat
}

# Why: ellmer reads the credentials while building a request, so a dry run without a key failed,
# and it has no setter for a chat's provider. Replaced by: a public `Chat$set_provider()`.
chat_offline <- function(chat) {
  provider <- chat$get_provider()
  if (!is.function(S7::prop(provider, "credentials"))) return(chat)
  chat <- chat$clone()
  private <- chat$.__enclos_env__$private
  S7::prop(provider, "credentials") <- function(...) list()
  private$provider <- provider
  chat
}

# Why: the fast path (R/engine-transport.R) skips ellmer's per-request promise machinery (~10 ms
# of CPU a request) yet must send and read exactly as ellmer does, so it uses ellmer's unexported
# request builder and response parser. Replaced by: public `chat_request()`/`value_turn()`;
# without them `ellmer_fast_path_available()` is FALSE and `$chat_async()` sends everything.
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

# ellmer's check_finish_reason() warning for a turn's `finish_reason`, as `$chat()` gives it.
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

# Why: ellmer's value_turn() costs ~0.8 ms of CPU an answer (S7 checks, a price lookup each
# time), so the commonest answer (one plain text choice, finished "stop") is read here into the
# identical turn (test-engine-compat-ellmer.R); any other goes through ellmer_turn().
# Replaced by: a value_turn() that does not look the price up each time.
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

# The first choice of `json` when ellmer_turn_reader() may read it itself, else NULL.
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

# Why: ellmer's price table has no exported reader. Replaced by: an exported price lookup.
ellmer_prices <- function() {
  prices_get <- ellmer_internal("prices_get")
  if (is.function(prices_get)) tryCatch(prices_get(), error = function(e) NULL)
}

# ellmer's price row for a model (per million input, output, cached tokens; NA when unknown).
ellmer_price <- function(provider_name, model_name) {
  prices <- ellmer_prices()
  row <- which(prices$provider == provider_name & prices$model == model_name &
                 prices$variant == "")[1]
  list(input = prices$input[row], output = prices$output[row],
       cached_input = prices$cached_input[row])
}

# Why: ellmer follows redirects to any host, sending the API key (on a 307/308 the prompt too),
# and has no hook for curl options; so the provider is wrapped in a subclass whose
# chat_request() refuses redirects. ellmer's error-body reader is left out: it errors on an empty
# body inside a later callback. Replaced by: a public request hook on a chat or provider.
# `stop`: once its `reason` is set (abandon_chat()) further rounds fail unsent, since an
# abandoned request's tool loop would otherwise send (and pay for) one more round.
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
    # HTTP/1.1 over plain http keeps curl's multiplexing pool from holding every request to the
    # host until a stalled first connection answers.
    if (startsWith(req$url, "http://")) req <- httr2::req_options(req, http_version = 2L)
    httr2::req_error(req, is_error = function(resp) httr2::resp_status(resp) >= 300,
                     body = function(resp) NULL)
  }
  # Batch APIs (R/engine-batch.R) build on base_request(): the same rule for them.
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

# A 30x is an error naming its target, instead of being parsed as an answer.
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

# Why: ellmer's `$chat_async()` makes fresh coro closures per request and R's JIT compiles each
# (~450 ms of CPU instead of ~25 ms, bench/README.md); the process-global JIT level is lowered
# only while they are in flight. Replaced by: coro generators compiled once.
without_jit <- function(expr) {
  # compiler ships with R; fetched this way it needs no Imports entry.
  enable_jit <- utils::getFromNamespace("enableJIT", "compiler")
  old <- enable_jit(0)
  on.exit(enable_jit(old), add = TRUE)
  expr
}

# Why: ellmer 0.5.0 keeps polling an "expired" OpenAI batch and can't read its error file, so
# R/engine-batch.R downloads the files itself with this base request. Replaced by: ellmer
# handling terminal batch states.
ellmer_base_request <- function(chat) {
  base_request <- ellmer_internal("base_request")
  if (is.null(base_request)) return(NULL)
  base_request(chat$get_provider())
}

# Why: ellmer::parallel_chat() (vitals' generate() and graders) always sends over HTTP, so while
# `frame` runs an httr2 mock answers requests to each baseline's address in `chats` (lists
# looked into). Replaced by: an ellmer provider that answers locally.
local_baseline_answers <- function(chats, frame = parent.frame()) {
  chats <- unlist(lapply(chats, function(x) if (is.list(x) && !is.object(x)) x else list(x)),
                  recursive = FALSE)
  baselines <- Filter(function(x) inherits(x, "BaselineChat"), chats)
  if (!length(baselines)) return(invisible())
  mock <- getOption("httr2_mock")
  for (chat in baselines) mock <- baseline_mock(chat, mock)
  httr2::local_mocked_responses(mock, env = frame)
}

# An httr2 mock answering `chat`'s address with its responder; other requests pass on.
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

# The last user message's text parts joined by newlines, as prompt_text() reads a prompt.
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
