# A model of an evaluation set as a spec that carries no secret: it is what a cell's identity
# is computed from, and what a mirai worker rebuilds its chat from. A Chat sent to another
# process as it is loses its credentials (ellmer issue 700), and one that kept them would put
# the key in every serialised task; a spec names the ellmer constructor, the model, the
# address, the parameters, the system prompt, the chat's turns (few-shot examples) and its
# tools. The
# chat's own credentials and extra headers travel beside it in the mirai payload only
# (R/evalset-chat-secrets.R), never in an identity, a record, a log or a cache.

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
  args <- provider_args(provider, fun, slug)
  extra <- chat_model_field(x, "extra_args")
  if (length(extra) && "api_args" %in% names(formals(fun))) args$api_args <- extra
  spec <- new_chat_spec(slug, x$get_model(), args = args, params = chat_params(x),
                        system_prompt = x$get_system_prompt(), turns = x$get_turns(),
                        tools = unname(x$get_tools()),
                        headers = hash_headers(provider@extra_headers))
  spec$name <- chat_model_label(x)
  spec$label <- paste0(spec$name, spec_label_suffix(spec, fun))
  spec
}

# A set's judge as specs (NULL for none): one chat's spec, or a panel's (a list of two or
# more chats or "provider/model" strings), each member specced as one chat is, in a
# `judge_panel_spec`. A list of one is that one's spec, so that its cells are the single
# judge's.
judge_spec <- function(judge, call = rlang::caller_env()) {
  if (is.null(judge)) return(NULL)
  members <- judge_given_members(judge)
  if (length(members) == 1L) return(chat_spec(members[[1]], "judge", call))
  structure(lapply(members, chat_spec, arg = "judge", call = call), class = "judge_panel_spec")
}

# The members of a judge as given (a chat, a string, a list of them, or a panel).
judge_given_members <- function(judge) {
  if (is_judge_panel(judge)) return(unname(unclass(judge)))
  if (is.list(judge) && !is.object(judge)) {
    if (!length(judge)) {
      abort_pb("{.arg judge} is an empty list: a panel needs at least one judge.", "argument")
    }
    return(unname(judge))
  }
  list(judge)
}

# Each member's spec (one for a single judge, none for NULL).
judge_spec_members <- function(spec) {
  if (is.null(spec)) return(list())
  if (inherits(spec, "judge_panel_spec")) return(unclass(spec))
  list(spec)
}

# The judge a spec makes (in a worker: with the credentials travelling beside each member).
judge_from_spec <- function(spec, call = rlang::caller_env()) {
  if (!inherits(spec, "judge_panel_spec")) return(chat_from_spec(spec, call))
  check_judge(lapply(judge_spec_members(spec), chat_from_spec, call = call), "judge",
              call = call)
}

# A judge's part of a cell's identity: a single judge's is what it always was; a panel's is
# its members', in order.
judge_spec_identity <- function(spec) {
  if (!inherits(spec, "judge_panel_spec")) return(spec_identity(spec))
  list(panel = lapply(judge_spec_members(spec), spec_identity))
}

# `headers`: the chat's extra headers as hashes (R/engine-identity.R), for the identity only.
new_chat_spec <- function(provider, model, args = list(), params = list(),
                          system_prompt = NULL, turns = list(), tools = list(),
                          headers = character(), chat = NULL, label = NULL) {
  structure(list(provider = provider, model = model, args = args,
                 params = unclass(params) %||% list(), system_prompt = system_prompt,
                 turns = turns, tools = tools, headers = headers, chat = chat,
                 label = label),
            class = "predictivebench_chat_spec")
}

# What the constructor takes that the provider keeps: `base_url` (and an OpenAI-compatible
# server's `name`) always, as before; the others (`service_tier`, Anthropic's `cache` and
# `beta_headers`, `preserve_thinking`, ...) when they differ from the constructor's default,
# so that a chat made with the defaults keeps the identity it had before they were carried.
# Credentials and headers are never arguments of a spec.
provider_args <- function(provider, fun, slug) {
  formals <- formals(fun)
  args <- list()
  if ("base_url" %in% names(formals)) args$base_url <- provider@base_url
  if (slug == "openai_compatible") args$name <- provider@name
  kept <- setdiff(intersect(S7::prop_names(provider), names(formals)),
                  c("base_url", "name", "credentials", "extra_headers", "model", "params",
                    "extra_args"))
  for (name in kept) {
    value <- S7::prop(provider, name)
    if (!identical(value, formal_default(fun, name))) args[[name]] <- value
  }
  args
}

# A constructor argument's default as R evaluates it (in the constructor's environment); of
# a choice (`c("auto", "flex")`, taken with arg_match()), its first value. NULL when it
# depends on the call.
formal_default <- function(fun, name) {
  value <- tryCatch(eval(formals(fun)[[name]], environment(fun)), error = function(e) NULL)
  if (is.character(value) && length(value) > 1) value[[1]] else value
}

# The chat a spec describes, made in this process (a worker's), with the turns it was
# primed with and its tools. On a worker its credentials are those it came with, the ones
# the chat sends in the calling process (spec_secrets()), never the worker's own; a spec
# without secrets (a "provider/model" string here) gets its constructor's default.
chat_from_spec <- function(spec, call = rlang::caller_env()) {
  if (identical(spec$provider, "baseline")) return(spec$chat)
  fun <- getExportedValue("ellmer", paste0("chat_", spec$provider))
  params <- if (length(spec$params)) rlang::exec(ellmer::params, !!!spec$params)
  args <- c(spec$args, secret_args(spec, fun, call))
  chat <- rlang::exec(fun, model = spec$model, system_prompt = spec$system_prompt,
                      params = params, !!!args)
  if (length(spec$turns)) chat$set_turns(spec$turns)
  if (length(spec$tools)) chat$set_tools(spec$tools)
  chat
}

# The model as logs and boards name it: "<provider>/<model>", as vitals writes it in a
# cell's log (from the chat's provider name, which for an OpenAI-compatible server is the
# name it was given, not the constructor's), so that the set's table, the cells' logs and
# the closing arena run's competitors name one model alike; for a chat made with more than
# its constructor's defaults, followed by what it was made with (spec_label_suffix()), so
# that two chats of one model that answer differently have two names.
spec_label <- function(spec) {
  spec$label %||% paste0(spec$provider, "/", spec$model)
}

# What makes two specs the same model for a cell's identity: everything that changes an
# answer, never the credentials; a baseline by its name and what it answers. Turns, tools
# and headers enter only when the chat has them, so that a plain chat keeps the identity (and
# the cells) it had before they were part of it.
spec_identity <- function(spec, depth = 0L, seen = new.env(parent = emptyenv())) {
  if (identical(spec$provider, "baseline")) {
    return(list(provider = "baseline", model = spec$model,
                responder = closure_fingerprint(spec$chat$responder, depth, seen)))
  }
  identity <- unclass(spec[c("provider", "model", "args", "params", "system_prompt")])
  if (length(spec$turns)) identity$turns <- turns_identity(spec$turns)
  if (length(spec$tools)) identity$tools <- lapply(spec$tools, tool_fingerprint)
  if (length(spec$headers)) identity$headers <- spec$headers
  identity
}

# Turns as data: each one's role and contents (not when it was made or what it cost).
turns_identity <- function(turns) {
  lapply(turns, function(turn) {
    list(role = turn@role, contents = lapply(turn@contents, ellmer::contents_record))
  })
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
  fun <- ellmer_chat_constructor(slug)
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

# ellmer's exported constructor `chat_<slug>()`, or NULL when it exports none.
ellmer_chat_constructor <- function(slug) {
  name <- paste0("chat_", slug)
  if (name %in% getNamespaceExports("ellmer")) getExportedValue("ellmer", name)
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
  # `...` is the frame's promises, already read into the values beside it
  names <- setdiff(sort(ls(env, all.names = TRUE)), "...")
  lapply(stats::setNames(names, names), function(n) {
    closure_fingerprint(get(n, envir = env), depth + 1L, seen)
  })
}

is_package_env <- function(env) {
  identical(env, globalenv()) || identical(env, baseenv()) || identical(env, emptyenv()) ||
    isNamespace(env) || nzchar(environmentName(topenv(env))) && identical(topenv(env), env)
}

# What a chat was made with beyond its constructor's defaults, as its label's suffix:
# `" [temperature=0.7, system prompt #1a2b3c]"`. Short values are shown as they are; a
# system prompt, turns, tools, headers and long values by a short hash (they may be long, or hold
# anything), so that a label stays one line and says how two chats of one model differ.
# `overridden`: the settings a benchmark sends otherwise (cell_label()), shown as
# `"temperature=0.5 sent as 0.7"`.
spec_label_suffix <- function(spec, fun, overridden = list()) {
  args <- spec$args
  others <- args[setdiff(names(args), c("base_url", "name", "api_args"))]
  n_turns <- length(spec$turns)
  n_tools <- length(spec$tools)
  prompt <- overridden$system_prompt
  parts <- c(
    label_values(spec$params, overridden),
    label_values(args$api_args, overridden),
    label_values(others),
    if (shows_base_url(args$base_url, fun)) paste0("base_url=", shown_url(args$base_url)),
    if (!is.null(spec$system_prompt)) {
      paste0("system prompt ", label_hash(spec$system_prompt),
             if (!is.null(prompt)) paste(" sent as", label_hash(prompt$sent)))
    },
    if (n_turns) paste(n_turns, if (n_turns == 1) "turn" else "turns",
                       label_hash(turns_identity(spec$turns))),
    if (n_tools) paste(n_tools, if (n_tools == 1) "tool" else "tools",
                       label_hash(lapply(spec$tools, tool_fingerprint))),
    if (length(spec$headers)) paste("headers", label_hash(spec$headers))
  )
  if (!length(parts)) return("")
  paste0(" [", paste(parts, collapse = ", "), "]")
}

# "name=value" for each element of a named list; "name=value sent as other" for those in
# `overridden`.
label_values <- function(x, overridden = list()) {
  if (!length(x)) return(character())
  vapply(names(x), function(name) {
    text <- paste0(name, "=", label_text(x[[name]]))
    if (!is.null(overridden[[name]])) {
      text <- paste(text, "sent as", label_text(overridden[[name]]$sent))
    }
    text
  }, "", USE.NAMES = FALSE)
}

label_text <- function(value) {
  text <- if (is.atomic(value)) paste(as.character(value), collapse = ",") else
    as.character(jsonlite::toJSON(value, auto_unbox = TRUE, null = "null"))
  if (nchar(text) > 24 || grepl("[][\n]", text)) text <- label_hash(value)
  text
}

label_hash <- function(x) paste0("#", substr(digest::digest(x, algo = "sha256"), 1, 6))

# A base URL other than the constructor's default (chat_openai() at another host); an
# address the constructor has no default for (an OpenAI-compatible server) is not shown:
# the server's `name` is the label's provider.
shows_base_url <- function(url, fun) {
  default <- formal_default(fun, "base_url")
  rlang::is_string(url) && rlang::is_string(default) && !identical(url, default)
}

# The models of a set have one name each: the set's table, the cells' logs and a closing
# arena run tell them apart by it. Checked before any request is sent: the same model
# given twice, or two chats whose difference no label shows, are refused.
check_unique_labels <- function(models, call = rlang::caller_env()) {
  specs <- lapply(models, chat_spec, arg = "models", call = call)
  labels <- vapply(specs, spec_label, "")
  twice <- which(duplicated(labels))
  if (!length(twice)) return(invisible(specs))
  j <- twice[[1]]
  i <- match(labels[[j]], labels)
  label <- labels[[j]]
  a <- spec_identity(specs[[i]])
  b <- spec_identity(specs[[j]])
  if (identical(a, b)) {
    abort_pb(c("Models {i} and {j} of {.arg models} are the same model, {.val {label}}.",
               i = "Give each model once (two keys for one model are one model)."),
             "argument", field = "models", call = call)
  }
  fields <- union(names(a), names(b))
  differ <- fields[!vapply(fields, function(f) identical(a[[f]], b[[f]]), TRUE)]
  args <- union(names(a$args), names(b$args))
  differ <- c(setdiff(differ, "args"),
              args[!vapply(args, function(f) identical(a$args[[f]], b$args[[f]]), TRUE)])
  abort_pb(c("Models {i} and {j} of {.arg models} are two chats with one name, {.val {label}}.",
             i = "They differ in {.field {differ}}, which their name does not show.",
             i = "Give them different names: the {.arg name} of
                  {.fn ellmer::chat_openai_compatible} or of {.fn baseline_chat}."),
           "argument", field = "models", call = call)
}

# Each member's spec beside the chat the user gave for it (NULL when it was a string or
# none), as list(spec, chat) pairs: what the credentials of a set's judge are read from.
judge_spec_pairs <- function(spec, given) {
  specs <- judge_spec_members(spec)
  chats <- if (is.null(given)) list() else judge_given_members(given)
  lapply(seq_along(specs), function(i) {
    list(specs[[i]], if (length(chats) == length(specs)) chats[[i]])
  })
}

# `f(spec, chat)` applied to each member of a judge's spec, the result kept in its shape.
judge_spec_map <- function(spec, given, f) {
  pairs <- judge_spec_pairs(spec, given)
  out <- lapply(pairs, function(p) f(p[[1]], p[[2]]))
  if (inherits(spec, "judge_panel_spec")) structure(out, class = "judge_panel_spec") else out[[1]]
}
