# A fake Ollama server's OpenAI-compatible endpoint (`ollama serve`, base URL
# http://localhost:11434/v1), from its documented wire format (docs/openai.md of
# ollama/ollama):
#
# * POST /v1/chat/completions: the chat endpoint; a thinking model's thinking in
#   `message$reasoning` (Ollama's field name; `reasoning_field = NULL`: inline `<think>`
#   tags), `finish_reason = "length"` at the token limit, `system_fingerprint = "fp_ollama"`.
#   Ollama's OpenAI layer long ignored `logprobs` (`chat_logprobs = FALSE`, the default: no
#   `logprobs` in the answer); newer versions give them (`chat_logprobs = TRUE`).
#   Scripted by `chat` (helper-server-common.R).
# * POST /v1/completions: `completions = "404"` a server without it (HTTP 404,
#   "404 page not found", as Ollama's router answers an unknown path, and most mock
#   servers); `"ignore"` one that answers but ignores `echo` and `logprobs`: the generated
#   text only, no `logprobs`.
local_fake_ollama <- function(chat = "ok", completions = c("404", "ignore"),
                              chat_logprobs = FALSE, reasoning_field = "reasoning",
                              model = "qwen3:0.6b", .local_envir = parent.frame()) {
  completions <- match.arg(completions)
  options <- list(chat = chat, completions = completions, chat_logprobs = chat_logprobs,
                  reasoning_field = reasoning_field, model = model)
  reply <- server_reply(function(body, n) {
    path <- attr(body, "path")
    if (identical(path, "/v1/chat/completions")) {
      out <- server_chat_script(chat, body, n)
      if (is.list(out) && !is.null(out$status)) return(out)
      return(list(json = server_chat_body(body, out, n, model, reasoning_field,
                                          logprobs = chat_logprobs,
                                          extra = list(system_fingerprint = "fp_ollama"))))
    }
    if (identical(path, "/v1/completions") && identical(completions, "ignore")) {
      generated <- server_generated(as.integer(body$max_tokens %||% 16L))
      return(list(json = list(
        id = paste0("cmpl-", n), object = "text_completion", created = 1700000000L,
        model = model, system_fingerprint = "fp_ollama",
        choices = list(list(text = paste(generated, collapse = ""), index = 0L,
                            finish_reason = "length")),
        usage = list(prompt_tokens = length(server_tokens(server_prompt(body))),
                     completion_tokens = length(generated),
                     total_tokens = length(server_tokens(server_prompt(body))) +
                       length(generated))
      )))
    }
    list(status = 404L, json = list(error = "404 page not found"))
  }, options)
  local_fake_openai(reply, .local_envir = .local_envir)
}
