# A chat's credentials and extra headers, so a mirai worker rebuilds the very chat the user gave,
# sending the key it would send here. They travel in the mirai payload only: a cell's identity,
# record, log and cache are made from the spec without them.

# What travels: `credentials`, what the chat's credentials function gives HERE (or `error` when
# unreadable), and `headers` (they may hold keys). The worker's own environment is never read
# for a chat: it may hold another key, for another host.
chat_secrets <- function(chat) {
  if (!inherits(chat, "Chat") || inherits(chat, "BaselineChat")) return(NULL)
  provider <- chat$get_provider()
  secrets <- list(headers = provider@extra_headers)
  creds <- S7::prop(provider, "credentials")
  if (is.function(creds)) secrets <- c(secrets, read_credentials(creds))  # R/engine-chat.R
  secrets
}

# The secrets of the chat the user gave, else of the one the spec makes here (this process's key).
spec_secrets <- function(spec, chat = NULL) {
  if (is.null(spec) || identical(spec$provider, "baseline")) return(NULL)
  if (!inherits(chat, "Chat")) chat <- chat_from_spec(spec)
  chat_secrets(chat)
}

# Every chat of a real run must read its credentials here before anything is sent: a missing key
# stops the set at once, in one line, instead of failing each cell. A preview reads no key.
check_set_credentials <- function(cells, call = rlang::caller_env()) {
  pairs <- unlist(lapply(cells, function(cell) {
    c(list(list(cell$model, cell$chat)),
      judge_spec_pairs(cell$benchmark$judge, cell$benchmark$judge_chat))
  }), recursive = FALSE)
  pairs <- Filter(function(p) !is.null(p[[1]]), pairs)
  labels <- vapply(pairs, function(p) spec_label(p[[1]]), "")
  for (p in pairs[!duplicated(labels)]) {
    secrets <- spec_secrets(p[[1]], p[[2]])
    if (!is.null(secrets$error)) abort_credentials(spec_label(p[[1]]), secrets$error, call)
  }
  invisible(cells)
}

# The constructor's arguments the secrets give. In this process a spec has none (the default
# reads this process's key, as ellmer does); on a worker they came with it and the worker's own
# key is never read.
secret_args <- function(spec, fun, call = rlang::caller_env()) {
  secrets <- spec$secrets
  formals <- names(formals(fun))
  args <- list()
  if (length(secrets$headers) && "api_headers" %in% formals) {
    args$api_headers <- secrets$headers
  }
  if (!"credentials" %in% formals) return(args)
  if (!is.null(secrets$error)) abort_credentials(spec_label(spec), secrets$error, call)
  if (!is.null(secrets$credentials)) {
    args$credentials <- fixed_credentials(secrets$credentials)
    return(args)
  }
  if (!is.null(secrets) && !at_default_address(spec, fun)) {
    # (a chat whose provider keeps no credentials function: nothing came to send)
    abort_pb(c("The chat {.val {spec_label(spec)}} came without credentials for
                {.url {shown_url(spec$args$base_url)}}: this process will not send its own key there.",
               i = "A key only goes to the host it was given for. Give the chat its key
                    ({.code credentials = function() ...}) when you make it."),
             "credentials", call = call)
  }
  args
}

# A credentials function that holds nothing but its value.
fixed_credentials <- function(value) {
  force(value)
  function() value
}

# Whether the spec's address is its constructor's default here (the one this process's key is for).
at_default_address <- function(spec, fun) {
  url <- spec$args$base_url
  if (is.null(url)) return(TRUE)
  default <- tryCatch(suppressWarnings(suppressMessages(
    rlang::exec(fun, model = spec$model, credentials = function() "")$get_provider()@base_url
  )), error = function(e) NULL)
  rlang::is_string(default) && identical(sub("/+$", "", url), sub("/+$", "", default))
}
