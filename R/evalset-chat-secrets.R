# A chat's own credentials and extra headers, so that a mirai worker rebuilds the very chat
# the user gave and sends its requests with the key the chat was given, to the host it was
# given for. They travel beside the chat's spec in the mirai payload only (portable_cell()
# adds them as the spec's `secrets` just before the cells are mapped over the daemons): a
# cell's identity, its record, its log and the response cache are made from the spec
# without them.

# What travels: `credentials`, the value the chat's credentials function gives here (a key,
# a named list of headers, or a request-signing function), or `error` when it failed here;
# and `headers`, the chat's extra headers (they may hold keys as well). Credentials that
# are the constructor's default (the key read from the environment) do not travel: the
# worker reads its own, and only for its constructor's default address (secret_args()).
chat_secrets <- function(chat) {
  if (!inherits(chat, "Chat") || inherits(chat, "BaselineChat")) return(NULL)
  provider <- chat$get_provider()
  secrets <- list(headers = provider@extra_headers)
  creds <- S7::prop(provider, "credentials")
  if (is.function(creds) && !default_credentials(creds)) {
    secrets <- c(secrets, tryCatch(list(credentials = creds()),
                                   error = function(e) list(error = conditionMessage(e))))
  }
  secrets
}

# ellmer's default credentials are a function made inside the constructor, reading the key
# from the environment (`\() openai_key()`). A key given through the deprecated `api_key`
# is wrapped by ellmer too, but it is the user's: its function's frame holds it.
default_credentials <- function(creds) {
  env <- environment(creds)
  is.environment(env) && identical(topenv(env), asNamespace("ellmer")) &&
    is.null(tryCatch(get0("api_key", envir = env, inherits = FALSE), error = function(e) NULL))
}

# The constructor's arguments the secrets give: the chat's own credentials and headers.
# Without credentials, the constructor's default reads this process's key: allowed only at
# the constructor's default address, the host that key is for.
secret_args <- function(spec, fun, call = rlang::caller_env()) {
  secrets <- spec$secrets
  formals <- names(formals(fun))
  args <- list()
  if (length(secrets$headers) && "api_headers" %in% formals) {
    args$api_headers <- secrets$headers
  }
  if (!"credentials" %in% formals) return(args)
  label <- spec_label(spec)
  if (!is.null(secrets$error)) {
    abort_pb(c("Can't read the credentials of the chat {.val {label}}.", x = secrets$error),
             "credentials", call = call)
  }
  if (!is.null(secrets$credentials)) {
    args$credentials <- fixed_credentials(secrets$credentials)
    return(args)
  }
  if (!at_default_address(spec, fun)) {
    abort_pb(c("The chat {.val {label}} came without credentials for
                {.url {spec$args$base_url}}: this process will not send its own key there.",
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

# Whether the spec's address is its constructor's default here (where this process's key
# is for). A constructor with no default address (an OpenAI-compatible server) has none.
at_default_address <- function(spec, fun) {
  url <- spec$args$base_url
  if (is.null(url)) return(TRUE)
  default <- tryCatch(suppressWarnings(suppressMessages(
    rlang::exec(fun, model = spec$model, credentials = function() "")$get_provider()@base_url
  )), error = function(e) NULL)
  rlang::is_string(default) && identical(sub("/+$", "", url), sub("/+$", "", default))
}
