# Every place predictivebench reaches past ellmer's public API, in one file. Each helper says
# why it exists and which public hook would replace it; nothing here changes global state.

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

# The fast request path (R/transport.R) sends OpenAI-compatible chat completions over curl's
# multi interface without ellmer's per-request promise and coro machinery, which costs about
# 10 ms of CPU per request (more than the network at 50 requests in flight). To send exactly
# what ellmer would send and read the answer exactly as ellmer would, it uses ellmer's own
# request builder and response parser, which are not exported:
# * `ellmer_request()`: the httr2 request ellmer builds for `turns` (its URL, headers and
#   JSON body are then read with httr2's public req_get_*() getters);
# * `ellmer_turn()`: the assistant turn ellmer makes of a response body (contents, tokens,
#   cost from its price table, finish reason), after ellmer's own finish-reason warning.
# Replaced by: public `chat_request()`/`value_turn()` generics (or a public "build the
# request" / "parse a response" pair on Chat). When this ellmer lacks them,
# `ellmer_fast_path_available()` is FALSE and every request goes through `$chat_async()`.
ellmer_fast_path_available <- function() {
  all(!vapply(c("chat_request", "value_turn", "check_finish_reason", "value_finish_reason"),
              function(name) is.null(ellmer_internal(name)), TRUE))
}

ellmer_request <- function(chat, turns) {
  chat_request <- ellmer_internal("chat_request")
  chat_request(provider = chat$get_provider(), model = chat$get_model_object(),
               stream = FALSE, turns = turns, tools = list(), type = NULL)
}

ellmer_turn <- function(chat, json) {
  provider <- chat$get_provider()
  reason <- ellmer_internal("value_finish_reason")(provider, json)
  ellmer_internal("check_finish_reason")(reason, "warn")
  ellmer_internal("value_turn")(provider, chat$get_model_object(), json, has_type = FALSE)
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
# `response` is null) anyway. To keep the answered part of such a batch, R/batch.R
# downloads the batch's output and error files itself, with the provider's authenticated
# base request. Replaced by: ellmer handling terminal batch states (or a public
# batch_retrieve()).
ellmer_base_request <- function(chat) {
  base_request <- ellmer_internal("base_request")
  if (is.null(base_request)) return(NULL)
  base_request(chat$get_provider())
}
