# Chat configuration: what a benchmark fixes on the user's chat, on a clone.

# A clone of `chat` with `system_prompt`, `params` and `api_args` (ellmer's escape hatch, e.g.
# list(n = 8)) set, so a benchmark can fix e.g. temperature = 0 on any chat; it rests on the
# workaround in R/engine-compat-ellmer.R. What it replaces is signalled (signal_overridden()).
configure_chat <- function(chat, system_prompt = NULL, params = NULL, api_args = NULL) {
  chat <- as_chat(chat)
  chat <- chat$clone()
  signal_overridden(chat, system_prompt, params, api_args)
  if (!is.null(system_prompt)) chat$set_system_prompt(system_prompt)
  if (length(params) || length(api_args)) {
    chat_set_params(chat, params, api_args)  # R/engine-compat-ellmer.R
  }
  chat
}

# A chat setting the benchmark sends otherwise (ProcessBench's temperature 0.7 over 0.5) is
# signalled (`predictivebench_setting_overridden`, with each setting's `own` and `sent`), so a
# set's labels don't claim a setting that was not sent. A seed is not overridden: benchmarks
# derive their votes' seeds from the chat's.
signal_overridden <- function(chat, system_prompt, params, api_args) {
  overridden <- c(
    overridden_values(chat_params(chat), params[setdiff(names(params), "seed")]),
    overridden_values(chat_model_field(chat, "extra_args"), api_args)
  )
  own_prompt <- chat$get_system_prompt()
  if (!is.null(system_prompt) && !is.null(own_prompt) && !identical(own_prompt, system_prompt)) {
    overridden$system_prompt <- list(own = own_prompt, sent = system_prompt)
  }
  if (!length(overridden)) return(invisible())
  rlang::signal("A benchmark replaced settings of the chat.",
                class = "predictivebench_setting_overridden",
                provider = chat$get_provider()@name, model = chat$get_model(),
                overridden = overridden)
}

# Per name set in both, whose values differ: list(own =, sent =).
overridden_values <- function(own, fixed) {
  names <- intersect(names(own), names(fixed))
  names <- names[!vapply(names, function(n) identical(own[[n]], fixed[[n]]), TRUE)]
  lapply(stats::setNames(names, names), function(n) list(own = own[[n]], sent = fixed[[n]]))
}

# The chat's parameters (temperature, max_tokens, seed, ...) as a plain list.
chat_params <- function(chat) chat_model_field(chat, "params")

# A field ellmer keeps on the model object from 0.5 on (reading it on the provider now warns).
chat_model_field <- function(chat, name) {
  model <- tryCatch(chat$get_model_object(), error = function(e) NULL)
  value <- if (!is.null(model)) tryCatch(S7::prop(model, name), error = function(e) NULL) else
    tryCatch(S7::prop(chat$get_provider(), name), error = function(e) NULL)
  unclass(value) %||% list()
}

# ---- credentials, read before a run -------------------------------------------------------

# `list(credentials = <value>)` from the chat's credentials function here, or `list(error = <why>)`.
read_credentials <- function(creds) {
  tryCatch(list(credentials = creds()),
           error = function(e) list(error = one_line(conditionMessage(e))))
}

one_line <- function(text) trimws(gsub("\\s+", " ", paste(text, collapse = " ")))

# A chat that can't read its credentials stops a run before anything is sent, in one line;
# ellmer would say so only while building the first request. Offline baselines have none.
check_chat_credentials <- function(chat, label, call = rlang::caller_env()) {
  if (!inherits(chat, "Chat") || inherits(chat, "BaselineChat")) return(invisible(chat))
  creds <- S7::prop(chat$get_provider(), "credentials")
  error <- if (is.function(creds)) read_credentials(creds)$error
  if (!is.null(error)) abort_credentials(label, error, call)
  invisible(chat)
}

abort_credentials <- function(label, error, call) {
  abort_pb("Can't read the credentials of the chat {.val {label}}: {error}", "credentials",
           call = call)
}
