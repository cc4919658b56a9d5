# A fake Ollama server (`ollama serve`, http://localhost:11434), from its documented wire
# format (docs/api.md and docs/openai.md of ollama/ollama):
#
# * GET /api/tags: the installed models (`name` with its tag, ":latest" when it has none,
#   `modified_at`, `size`, ...); ellmer::chat_ollama() checks the server and the model there.
# * POST /api/show: a model's details, its `capabilities` ("completion", "thinking").
# * GET /v1/models: the models, in the OpenAI shape.
# * POST /v1/chat/completions: the chat endpoint; a thinking model's thinking in
#   `message$reasoning` (Ollama's field name; `reasoning_field = NULL`: inline `<think>`
#   tags), `finish_reason = "length"` at the token limit, `system_fingerprint = "fp_ollama"`.
#   Ollama's OpenAI layer long ignored `logprobs` (`chat_logprobs = FALSE`, the default: no
#   `logprobs` in the answer); newer versions give them (`chat_logprobs = TRUE`).
#   Scripted by `chat` (helper-server-common.R).
# * POST /v1/completions: `completions = "404"` a server without it; `"ignore"` one that
#   answers but ignores `echo` and `logprobs`: the generated text only, no `logprobs`.
# * Any other path: HTTP 404, plain text "404 page not found" (Go's router).
local_fake_ollama <- function(chat = "ok", completions = c("404", "ignore"),
                              chat_logprobs = FALSE, reasoning_field = "reasoning",
                              model = "qwen3:0.6b", .local_envir = parent.frame()) {
  completions <- match.arg(completions)
  options <- list(chat = chat, completions = completions, chat_logprobs = chat_logprobs,
                  reasoning_field = reasoning_field, model = model)
  reply <- server_reply(function(body, n) {
    path <- attr(body, "path")
    if (identical(path, "/v1/chat/completions")) {
      return(server_chat(chat, body, n, model, reasoning_field, logprobs = chat_logprobs,
                         extra = list(system_fingerprint = "fp_ollama")))
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
    ollama_not_found
  }, c(options, list(ollama_not_found = ollama_not_found)))
  tag <- if (grepl(":", model, fixed = TRUE)) model else paste0(model, ":latest")
  static <- list(
    "GET /api/tags" = list(models = list(list(
      name = tag, model = tag, modified_at = "2025-05-01T10:00:00Z", size = 522653767L,
      digest = "a2af6cc3eb7f", details = list(format = "gguf", family = "qwen3",
                                              parameter_size = "751.63M",
                                              quantization_level = "Q4_K_M")
    ))),
    "POST /api/show" = list(capabilities = list("completion", "thinking"),
                            details = list(format = "gguf", family = "qwen3")),
    "GET /v1/models" = server_models(tag, "library")
  )
  local_fake_openai(reply, static = static, not_found = ollama_not_found,
                    .local_envir = .local_envir)
}

ollama_not_found <- list(status = 404L, text = "404 page not found")
