# Chat configuration: what a benchmark fixes on the user's chat, on a clone.

# A clone of `chat` with `system_prompt` (when not NULL), `params` merged into its parameters
# and `api_args` into its extra request-body fields (ellmer's escape hatch, e.g. list(n = 8)),
# so a benchmark can fix, e.g., temperature = 0 whatever chat the user passes. Internal: it
# rests on a workaround (ellmer has no public setter for a chat's parameters; R/engine-compat-ellmer.R).
configure_chat <- function(chat, system_prompt = NULL, params = NULL, api_args = NULL) {
  chat <- as_chat(chat)
  chat <- chat$clone()
  if (!is.null(system_prompt)) chat$set_system_prompt(system_prompt)
  if (length(params) || length(api_args)) {
    chat_set_params(chat, params, api_args)  # R/engine-compat-ellmer.R
  }
  chat
}
