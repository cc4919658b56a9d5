# A model of an evaluation set as a spec that carries no secret: it is what a cell's identity
# is computed from, and what a mirai worker rebuilds its chat from. A Chat sent to another
# process as it is loses its credentials (ellmer issue 700), and one that kept them would put
# the key in every serialised task; a spec names the ellmer constructor, the model, the
# address and the parameters, and the worker's constructor reads the key from the worker's
# environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, ...), as it would in a fresh session.

# `x`: a "provider/model" string as ellmer::chat() takes it, or an ellmer chat. A baseline
# chat (offline, no credentials) travels as it is.
chat_spec <- function(x, arg = "models", call = rlang::caller_env()) {
  if (inherits(x, "BaselineChat")) {
    return(new_chat_spec("baseline", x$get_model(), chat = x, label = chat_model_label(x)))
  }
  if (rlang::is_string(x) && grepl("^[^/]+/.+", x)) {
    provider <- sub("/.*$", "", x)
    check_chat_constructor(provider, x, arg, call)
    return(new_chat_spec(provider, sub("^[^/]+/", "", x)))
  }
  if (!inherits(x, "Chat")) {
    abort_pb(c("Each of {.arg {arg}} must be a {.val provider/model} string or an ellmer chat.",
               i = "For example {.val openai/gpt-4.1} or {.code ellmer::chat_openai()}."),
             "argument", call = call)
  }
  provider <- x$get_provider()
  slug <- provider_slug(provider)
  fun <- check_chat_constructor(slug, chat_model_label(x), arg, call)
  formals <- names(formals(fun))
  args <- list()
  if ("base_url" %in% formals) args$base_url <- provider@base_url
  if (slug == "openai_compatible") args$name <- provider@name
  extra <- chat_model_field(x, "extra_args")
  if (length(extra) && "api_args" %in% formals) args$api_args <- extra
  new_chat_spec(slug, x$get_model(), args = args, params = chat_params(x),
                system_prompt = x$get_system_prompt(), label = chat_model_label(x))
}

new_chat_spec <- function(provider, model, args = list(), params = list(),
                          system_prompt = NULL, chat = NULL, label = NULL) {
  structure(list(provider = provider, model = model, args = args,
                 params = unclass(params) %||% list(), system_prompt = system_prompt,
                 chat = chat, label = label),
            class = "predictivebench_chat_spec")
}

# The chat a spec describes, made in this process (a worker's): credentials are the
# constructor's default, read from this process's environment.
chat_from_spec <- function(spec) {
  if (identical(spec$provider, "baseline")) return(spec$chat)
  fun <- get(paste0("chat_", spec$provider), envir = asNamespace("ellmer"))
  params <- if (length(spec$params)) rlang::exec(ellmer::params, !!!spec$params)
  rlang::exec(fun, model = spec$model, system_prompt = spec$system_prompt, params = params,
              !!!spec$args)
}

# The model as logs and boards name it: "<provider>/<model>", as vitals writes it in a
# cell's log (from the chat's provider name, which for an OpenAI-compatible server is the
# name it was given, not the constructor's), so that the set's table, the cells' logs and
# the closing arena run's competitors name one model alike.
spec_label <- function(spec) {
  spec$label %||% paste0(spec$provider, "/", spec$model)
}

# What makes two specs the same model for a cell's identity: everything but the chat object
# of a baseline, which is identified by its name and what it answers.
spec_identity <- function(spec, depth = 0L, seen = new.env(parent = emptyenv())) {
  if (identical(spec$provider, "baseline")) {
    return(list(provider = "baseline", model = spec$model,
                responder = closure_fingerprint(spec$chat$responder, depth, seen)))
  }
  unclass(spec[c("provider", "model", "args", "params", "system_prompt")])
}

# ellmer's provider classes by the name of their constructor's suffix (`chat_<slug>()`);
# a provider not listed is looked up by its lower-cased name.
provider_slug <- function(provider) {
  class_name <- sub("^.*::", "", class(provider)[[1]])
  known <- c(ProviderOpenAICompatible = "openai_compatible", ProviderOpenAI = "openai",
             ProviderAnthropic = "anthropic", ProviderGoogleGemini = "google_gemini",
             ProviderOllama = "ollama", ProviderGroq = "groq", ProviderMistral = "mistral",
             ProviderDeepSeek = "deepseek", ProviderOpenRouter = "openrouter")
  if (class_name %in% names(known)) return(known[[class_name]])
  tolower(gsub("[^[:alnum:]]+", "_", provider@name))
}

check_chat_constructor <- function(slug, label, arg, call) {
  fun <- get0(paste0("chat_", slug), envir = asNamespace("ellmer"), mode = "function")
  if (is.null(fun) || !all(c("model", "system_prompt", "params") %in% names(formals(fun)))) {
    abort_pb(c("Can't rebuild the chat {.val {label}} from a spec: ellmer has no
                {.code chat_{slug}()} taking {.arg model}, {.arg system_prompt} and
                {.arg params}.",
               i = "Give {.arg {arg}} as {.val provider/model} strings, as {.fn ellmer::chat}
                    takes them."),
             "argument", call = call)
  }
  fun
}

# The chat's parameters (temperature, max_tokens, seed, ...) as a plain list.
chat_params <- function(chat) chat_model_field(chat, "params")

# A field ellmer keeps on the model object from 0.5 on (on the provider before: reading it
# there now warns).
chat_model_field <- function(chat, name) {
  model <- tryCatch(chat$get_model_object(), error = function(e) NULL)
  value <- if (!is.null(model)) tryCatch(S7::prop(model, name), error = function(e) NULL) else
    tryCatch(S7::prop(chat$get_provider(), name), error = function(e) NULL)
  unclass(value) %||% list()
}

# A closure as data for an identity: its formals, body and the values it captured (chats as
# specs, nested closures the same way, environments of packages as their name). Stable
# across sessions, unlike serialize(), which includes byte code and addresses.
closure_fingerprint <- function(x, depth = 0L, seen = new.env(parent = emptyenv())) {
  if (depth > 4L) return("<deep>")
  # how requests are sent is not what a task is
  if (inherits(x, "predictivebench_settings")) return("<settings>")
  # A chat inside a closure keeps the depth and the environments already walked: a baseline's
  # function can see the very list of chats it belongs to (a test's or a script's frame), and
  # walking that again from the top never ends.
  if (inherits(x, "Chat")) return(tryCatch(spec_identity(chat_spec(x), depth + 1L, seen),
                                           error = function(e) chat_model_label(x)))
  if (is.function(x)) {
    env <- environment(x)
    captured <- if (is.environment(env) && !is_package_env(env)) {
      env_fingerprint(env, depth, seen)
    }
    return(list(formals = deparse(formals(x)), body = deparse(body(x)), env = captured))
  }
  if (is.environment(x)) {
    return(if (is_package_env(x)) environmentName(x) else "<environment>")
  }
  if (is.list(x)) {
    return(lapply(unclass(x), closure_fingerprint, depth = depth + 1L, seen = seen))
  }
  if (is.object(x) && !is.atomic(x)) return(class(x))
  x
}

# What a closure's own environment holds, each environment walked once per fingerprint.
env_fingerprint <- function(env, depth, seen) {
  id <- format(env)  # its address: unique while the environment lives
  if (!is.null(seen[[id]])) return("<seen>")
  seen[[id]] <- TRUE
  names <- sort(ls(env, all.names = TRUE))
  lapply(stats::setNames(names, names), function(n) {
    closure_fingerprint(get(n, envir = env), depth + 1L, seen)
  })
}

is_package_env <- function(env) {
  identical(env, globalenv()) || identical(env, baseenv()) || identical(env, emptyenv()) ||
    isNamespace(env) || nzchar(environmentName(topenv(env))) && identical(topenv(env), env)
}
