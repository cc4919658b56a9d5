# Cache identity: what makes two requests the same request (and never the credentials).

prompt_fingerprint <- function(prompt) {
  if (is.character(prompt)) return(digest::digest(prompt, algo = "sha256"))
  digest::digest(lapply(prompt, function(x) {
    if (is.character(x)) x else ellmer::contents_record(x)
  }), algo = "sha256")
}

# What identifies a request besides its messages: the provider's class and properties, the
# system prompt, turns and tools; never the credentials. Header values (which may hold keys)
# enter only hashed.
request_identity <- function(chat, key_extra = NULL) {
  provider <- chat$get_provider()
  list(
    version = 2L,
    provider_class = class(provider)[[1]],
    provider = provider_properties(provider),
    model = canonical_value(chat$get_model_object()),
    system_prompt = chat$get_system_prompt(),
    turns = lapply(chat$get_turns(), function(t) ellmer::contents_record(t)),
    tools = lapply(unname(chat$get_tools()), tool_fingerprint),
    extra = key_extra
  )
}

# Every provider property but its credentials and those ellmer keeps on the model (reading
# them on the provider is deprecated).
provider_properties <- function(provider) {
  names <- setdiff(S7::prop_names(provider), c("credentials", "model", "params", "extra_args"))
  props <- lapply(stats::setNames(names, names), function(name) {
    value <- S7::prop(provider, name)
    if (name == "extra_headers") hash_headers(value) else canonical_value(value)
  })
  Filter(Negate(is.null), props)
}

# Names and values of headers, as one hash each: they change the answer (gateway routing)
# but may hold credentials.
hash_headers <- function(headers) {
  if (!length(headers)) return(list())
  pairs <- paste0(tolower(rlang::names2(headers)), ":", vapply(headers, paste, "",
                                                              collapse = ","))
  vapply(sort(pairs), digest::digest, "", algo = "sha256", serialize = FALSE, USE.NAMES = FALSE)
}

# A tool changes the answer by its definition and by what its function returns.
tool_fingerprint <- function(tool) {
  list(definition = canonical_value(tool),
       fun = digest::digest(deparse(S7::S7_data(tool)), algo = "sha256"))
}

# A value reduced to what JSON can hold: S7 objects become their class and properties;
# functions and environments (credentials, callbacks) are left out.
canonical_value <- function(x) {
  if (is.function(x) && !inherits(x, "S7_object") || is.environment(x)) return(NULL)
  if (inherits(x, "S7_object")) {
    props <- lapply(S7::props(x), canonical_value)
    return(c(list(.class = class(x)[[1]]), Filter(Negate(is.null), props)))
  }
  if (is.list(x)) return(lapply(x, canonical_value))
  x
}
