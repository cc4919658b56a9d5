# Local model servers as ellmer's constructors meet them, over real HTTP: what each serves,
# from its documented API, and only that (any other path is a 404, as on the real server),
# so a constructor that asks elsewhere fails here as it would there.
#
# * "vllm" (`vllm serve`, docs.vllm.ai "OpenAI-Compatible Server"): GET /v1/models, POST
#   /v1/chat/completions; with `--reasoning-parser` the thinking is `reasoning_content`.
#   ellmer::chat_vllm(base_url = "<server>/v1") posts to <base_url>/chat/completions with
#   the key as a bearer token.
# * "ollama" (Ollama's own API and its OpenAI-compatible endpoint, docs.ollama.com): GET
#   /api/tags (the installed models: ellmer::chat_ollama() checks the server and the model
#   there), POST /api/show (a model's capabilities), GET /v1/models, POST
#   /v1/chat/completions, the thinking in `reasoning`.
# * "llamacpp" (llama.cpp's `llama-server`, tools/server/README.md): GET /health, /props,
#   /v1/models, POST /v1/chat/completions; by default (`--reasoning-format none`) the
#   thinking stays inline in `<think>` tags, with `deepseek` it is `reasoning_content`.
#   Reached through ellmer::chat_openai_compatible(base_url = "<server>/v1").
#
# `answer(text)` (run in the server's process) gives, for the last user message's text, a
# list of `content`, `reasoning` (NULL for none) and `finish` ("stop" by default); the
# server puts `reasoning` in its own field, or for "llamacpp" inline before the content.
# The object returned has $url (the server's root), $log() (each request's `method`,
# `path` and `auth`, the Authorization header) and $stop().
fake_local_server <- function(kind = c("vllm", "ollama", "llamacpp"), answer,
                              model = "qwen3") {
  kind <- match.arg(kind)
  app <- webfakes::new_app()
  app$use(webfakes::mw_json())
  app$locals$log <- list()
  app$locals$answer <- answer
  app$locals$kind <- kind
  app$locals$model <- model
  send <- function(res, body, status = 200L) {
    res$set_status(status)$send_json(body, auto_unbox = TRUE, null = "null")
  }
  app$locals$send <- send
  app$all(webfakes::new_regexp(".*"), function(req, res) {
    locals <- req$app$locals
    auth <- req$get_header("Authorization")
    if (req$path == "/__log") return(locals$send(res, locals$log))
    locals$log[[length(locals$log) + 1L]] <- list(
      method = toupper(req$method), path = req$path,
      auth = if (is.null(auth)) NA_character_ else auth
    )
    kind <- locals$kind
    model <- locals$model
    route <- paste(toupper(req$method), req$path)
    ollama <- identical(kind, "ollama")
    if (route == "GET /v1/models") {
      return(locals$send(res, list(object = "list", data = list(
        list(id = model, object = "model", created = 0L, owned_by = kind)
      ))))
    }
    if (ollama && route == "GET /api/tags") {
      return(locals$send(res, list(models = list(list(
        name = paste0(model, ":latest"), model = paste0(model, ":latest"),
        modified_at = "2025-05-01T10:00:00Z", size = 522653767L
      )))))
    }
    if (ollama && route == "POST /api/show") {
      return(locals$send(res, list(capabilities = list("completion", "thinking"))))
    }
    if (identical(kind, "llamacpp") && route == "GET /health") {
      return(locals$send(res, list(status = "ok")))
    }
    if (route == "POST /v1/chat/completions") {
      body <- req$json
      messages <- body$messages
      content <- messages[[length(messages)]]$content
      if (!is.character(content)) {
        content <- paste(vapply(content, function(x) x$text %||% "", ""), collapse = "")
      }
      got <- locals$answer(content)
      message <- list(role = "assistant", content = got$content)
      if (!is.null(got$reasoning)) {
        if (identical(kind, "llamacpp")) {
          message$content <- paste0("<think>", got$reasoning, "</think>", got$content %||% "")
        } else {
          message[[if (ollama) "reasoning" else "reasoning_content"]] <- got$reasoning
        }
      }
      return(locals$send(res, list(
        id = paste0("chatcmpl-", length(locals$log)), object = "chat.completion",
        created = 0L, model = body$model,
        choices = list(list(index = 0L, message = message,
                            finish_reason = got$finish %||% "stop")),
        usage = list(prompt_tokens = 20L, completion_tokens = 10L, total_tokens = 30L)
      )))
    }
    if (ollama) return(res$set_status(404L)$send("404 page not found"))
    locals$send(res, list(error = list(code = 404L, message = "File Not Found",
                                       type = "not_found_error")), 404L)
  })
  `%||%` <- function(x, y) if (is.null(x)) y else x
  environment(app$locals$answer) <- list2env(list(`%||%` = `%||%`),
                                             parent = environment(answer))
  proc <- webfakes::new_app_process(app, opts = webfakes::server_opts(num_threads = 8))
  url <- sub("/$", "", proc$url())
  list(
    url = url,
    log = function() {
      log <- jsonlite::fromJSON(paste0(url, "/__log"), simplifyVector = FALSE)
      tibble::tibble(method = vapply(log, function(r) r$method, ""),
                     path = vapply(log, function(r) r$path, ""),
                     auth = vapply(log, function(r) r$auth %||% NA_character_, ""))
    },
    stop = function() proc$stop()
  )
}

local_fake_local_server <- function(kind, answer, model = "qwen3",
                                    .local_envir = parent.frame()) {
  server <- fake_local_server(kind, answer, model)
  withr::defer(server$stop(), envir = .local_envir)
  server
}

# The chat each kind of server is used through, as its documentation shows it.
local_server_chat <- function(server, kind, model = "qwen3") {
  switch(kind,
    vllm = ellmer::chat_vllm(base_url = paste0(server$url, "/v1"), model = model,
                             credentials = function() "vllm-local-key"),
    ollama = ellmer::chat_ollama(base_url = server$url, model = model),
    llamacpp = ellmer::chat_openai_compatible(base_url = paste0(server$url, "/v1"),
                                              model = model, name = "llama.cpp",
                                              credentials = function() "")
  )
}
