# A local OpenAI-compatible server for tests: scripted replies over real HTTP.
#
# fake_openai(reply) starts a webfakes app in a child process. `reply(body, n)` runs in that
# process for every POST to /v1/chat/completions, /v1/completions, /v1/responses (OpenAI's
# Responses API) or /v1/messages (Anthropic's Messages API); `body` is the parsed
# request JSON (its attributes `path` and `auth`, the Authorization header as received)
# and `n` the request number (1, 2, ...). It returns either a string (the
# assistant's text) or a list with any of:
#   text       the reply text (chat) or completion text
#   status     an HTTP status to answer with instead (429, 500, ...)
#   headers    extra response headers, e.g. list(`retry-after` = "0")
#   delay      seconds to wait before answering (a timeout when larger than the client's)
#   json       a complete response body to send as is (for /v1/completions with logprobs;
#              with `status`, the error body sent with it)
#   choices    a character vector: one choice per element (for requests with n > 1)
#   usage      list(prompt_tokens =, completion_tokens =)
# Reply functions may also call last_user_text(), `%||%`, echo_tokenize() and
# echo_completion() (below), which are copied into the server's process with them.
# The object returned has $url (the base_url to give ellmer), $count() (requests so far,
# batch items included), $requests() (their bodies, in arrival order), $auths() (the
# Authorization header of each, as received), $uploads() (OpenAI
# file uploads begun) and $stop(). `batch` configures the batch endpoints (add_batch_routes()).
# `routes` adds POST paths answered by the same handler (a server's own endpoints, such as
# llama.cpp's "/completion"); the reply reads which path was asked with attr(body, "path").
# `static` answers other paths with fixed bodies, named by method and path ("GET /health" =
# list(status = "ok")), neither counted nor in $requests() (a server's model list, health).
# `not_found` is the answer to any path the server has not (a list of `status` and `json` or
# `text`); by default webfakes' own 404. $log() lists every request that arrived, answered
# or not: its `method`, `path` and `auth` (the Authorization header), in arrival order.
fake_openai <- function(reply = function(body, n) "ok", latency = 0, batch = list(),
                        routes = character(), static = list(), not_found = NULL) {
  `%||%` <- function(x, y) if (is.null(x)) y else x
  app <- webfakes::new_app()
  app$use(webfakes::mw_json())
  app$locals$log <- list()
  app$use(function(req, res) {
    # once per request (a delayed answer runs the handlers again)
    if (is.null(res$locals$logged) && !startsWith(req$path, "/__")) {
      res$locals$logged <- TRUE
      req$app$locals$log[[length(req$app$locals$log) + 1L]] <- list(
        method = toupper(req$method), path = req$path,
        auth = req$get_header("Authorization") %||% NA_character_
      )
    }
    "next"
  })
  app$locals$n <- 0L
  app$locals$bodies <- list()
  app$locals$auth <- list()
  # The reply function runs in the server's own process: give it the helpers it may use.
  helpers <- new.env(parent = environment(reply) %||% globalenv())
  helpers$last_user_text <- last_user_text
  environment(helpers$last_user_text) <- helpers
  helpers$`%||%` <- `%||%`
  for (name in c("echo_tokenize", "echo_completion", "fake_responses_body",
                 "fake_messages_body", "battle_answers")) {
    helpers[[name]] <- get(name)
    environment(helpers[[name]]) <- helpers
  }
  environment(reply) <- helpers
  app$locals$reply <- reply
  app$locals$responses_body <- helpers$fake_responses_body
  app$locals$messages_body <- helpers$fake_messages_body
  app$locals$latency <- latency
  handle <- function(req, res) {
    app <- req$app
    body <- req$json
    if (is.null(res$locals$out)) {
      app$locals$n <- app$locals$n + 1L
      n <- app$locals$n
      app$locals$bodies[[n]] <- body
      app$locals$auth[[n]] <- req$get_header("Authorization") %||% NA_character_
      out <- app$locals$reply(structure(body %||% list(), path = req$path,
                                        auth = app$locals$auth[[n]]), n)
      if (is.character(out)) out <- list(text = out)
      res$locals$out <- out
      res$locals$n <- n
      delay <- (out$delay %||% 0) + app$locals$latency
      # res$delay() answers later without blocking, so requests overlap like a real API's.
      if (delay > 0) return(res$delay(delay))
    }
    out <- res$locals$out
    n <- res$locals$n
    for (name in names(out$headers)) res$set_header(name, out$headers[[name]])
    if (!is.null(out$status)) {
      # `text` with a `status`: a plain-text error body, as some servers' routers send
      if (!is.null(out$text)) return(res$set_status(out$status)$send(out$text))
      # `json` with a `status`: that error body (a provider's own) instead of the default
      return(res$set_status(out$status)$send_json(
        out$json %||%
          list(error = list(message = paste("fake error", out$status), type = "fake")),
        auto_unbox = TRUE, null = "null"
      ))
    }
    usage <- out$usage %||% list(prompt_tokens = 10L, completion_tokens = 5L)
    usage$total_tokens <- usage$prompt_tokens + usage$completion_tokens
    if (!is.null(out$json)) {
      return(res$send_json(out$json, auto_unbox = TRUE, null = "null", na = "null"))
    }
    if (grepl("/completions$", req$path) && !grepl("/chat/", req$path)) {
      choices <- list(list(index = 0L, text = out$text %||% "", finish_reason = "stop",
                           logprobs = out$logprobs))
      return(res$send_json(list(id = paste0("cmpl-", n), object = "text_completion",
                                created = 0L, model = body$model %||% "fake",
                                choices = choices, usage = usage),
                           auto_unbox = TRUE, null = "null"))
    }
    if (grepl("/responses$", req$path)) {
      return(res$send_json(app$locals$responses_body(out$text %||% "", n, body$model, usage),
                           auto_unbox = TRUE, null = "null"))
    }
    if (grepl("/messages$", req$path)) {
      return(res$send_json(app$locals$messages_body(out$text %||% "", n, body$model, usage),
                           auto_unbox = TRUE, null = "null"))
    }
    texts <- out$choices %||% rep(out$text %||% "", max(1L, body$n %||% 1L))
    choices <- lapply(seq_along(texts), function(i) {
      list(index = i - 1L,
           message = list(role = "assistant", content = texts[[i]]),
           logprobs = out$logprobs,
           finish_reason = "stop")
    })
    res$send_json(list(id = paste0("chatcmpl-", n), object = "chat.completion",
                       created = 0L, model = body$model %||% "fake",
                       choices = choices, usage = usage),
                  auto_unbox = TRUE, null = "null")
  }
  app$post("/v1/chat/completions", handle)
  app$post("/v1/responses", handle)
  app$post("/v1/messages", handle)
  app$post("/v1/completions", handle)
  for (path in routes) app$post(path, handle)
  for (route in names(static)) {
    method_path <- strsplit(route, " ", fixed = TRUE)[[1]]
    app[[tolower(method_path[[1]])]](method_path[[2]], local({
      body <- static[[route]]
      function(req, res) res$send_json(body, auto_unbox = TRUE, null = "null")
    }))
  }
  add_batch_routes(app, batch)
  app$get("/__count", function(req, res) res$send_json(list(n = req$app$locals$n),
                                                        auto_unbox = TRUE))
  app$get("/__auth", function(req, res) {
    res$send_json(as.character(unlist(req$app$locals$auth)), auto_unbox = FALSE)
  })
  app$get("/__requests", function(req, res) {
    res$send_json(req$app$locals$bodies, auto_unbox = TRUE, null = "null")
  })
  app$get("/__log", function(req, res) {
    res$send_json(req$app$locals$log, auto_unbox = TRUE, null = "null")
  })
  if (!is.null(not_found)) {
    app$locals$not_found <- not_found
    app$all(webfakes::new_regexp(".*"), function(req, res) {
      out <- req$app$locals$not_found
      res$set_status(out$status)
      if (!is.null(out$text)) return(res$send(out$text))
      res$send_json(out$json, auto_unbox = TRUE, null = "null")
    })
  }
  proc <- webfakes::new_app_process(app, opts = webfakes::server_opts(num_threads = 64, enable_keep_alive = TRUE))
  url <- sub("/$", "", proc$url())
  list(
    url = paste0(url, "/v1"),
    count = function() jsonlite::fromJSON(paste0(url, "/__count"))$n,
    uploads = function() jsonlite::fromJSON(paste0(url, "/__uploads"))$n,
    requests = function() jsonlite::fromJSON(paste0(url, "/__requests"),
                                             simplifyVector = FALSE),
    auths = function() as.character(jsonlite::fromJSON(paste0(url, "/__auth"))),
    log = function() {
      log <- jsonlite::fromJSON(paste0(url, "/__log"), simplifyVector = FALSE)
      tibble::tibble(method = vapply(log, function(r) r$method, ""),
                     path = vapply(log, function(r) r$path, ""),
                     auth = vapply(log, function(r) r$auth %||% NA_character_, ""))
    },
    stop = function() proc$stop(),
    process = proc
  )
}

# Batch APIs, as ellmer::batch_chat() calls them: OpenAI's Files + Batches (a JSONL file of
# /v1/responses requests is uploaded, a batch made of it, polled, and its output and error
# files downloaded) and Anthropic's Message Batches (requests in the body, polled, results
# downloaded from `results_url`). Every item goes through `reply(body, n)` when the batch is
# created (counted like any request); an item whose reply has a `status` fails with it (and
# with its `message`, when the reply gives one), and
# one whose reply is `list(expire = TRUE)` expires (the batch then ends "expired" on OpenAI).
# `batch` options: `polls` (polls answered "in progress" first, default 1), `reject` (answer
# 400 to the batch itself), `echo_key` (a refusal repeats the request's key, as some gateways
# do), `upload_delay` (seconds the OpenAI file upload takes).
add_batch_routes <- function(app, options) {
  `%||%` <- function(x, y) if (is.null(x)) y else x
  # What the Batches endpoints show of a batch: in progress until polled enough, then final.
  openai_batch_view <- function(batch, ended) {
    list(id = batch$id, object = "batch", endpoint = batch$endpoint,
         input_file_id = batch$input_file_id, completion_window = "24h",
         status = if (ended) batch$final else "in_progress",
         request_counts = if (ended) batch$request_counts else
           list(total = batch$request_counts$total, completed = 0L, failed = 0L),
         output_file_id = if (ended) batch$output_file_id,
         error_file_id = if (ended) batch$error_file_id)
  }

  anthropic_batch_view <- function(batch, ended, root) {
    counts <- batch$counts
    if (!ended) {
      counts <- list(processing = length(batch$results), succeeded = 0L, errored = 0L,
                     canceled = 0L, expired = 0L)
    }
    list(id = batch$id, type = "message_batch",
         processing_status = if (ended) "ended" else "in_progress", request_counts = counts,
         results_url = if (ended) paste0(root, "/v1/messages/batches/", batch$id, "/results"))
  }
  app$use(webfakes::mw_multipart())
  app$locals$batch_options <- options
  app$locals$files <- list()
  app$locals$batches <- list()
  # Runs every item of a new batch through the reply function: a list of outcomes.
  run_items <- function(app, bodies) {
    lapply(bodies, function(body) {
      app$locals$n <- app$locals$n + 1L
      n <- app$locals$n
      app$locals$bodies[[n]] <- body
      out <- app$locals$reply(body, n)
      if (is.character(out)) out <- list(text = out)
      out$n <- n
      out
    })
  }
  reject <- function(req, res) {
    if (!isTRUE(req$app$locals$batch_options$reject)) return(FALSE)
    said <- "fake: the batch is invalid"
    if (isTRUE(req$app$locals$batch_options$echo_key)) {
      said <- paste0(said, " (Authorization: ", req$get_header("Authorization") %||% "",
                     ", x-api-key: ", req$get_header("x-api-key") %||% "", ")")
    }
    res$set_status(400)$send_json(list(error = list(message = said,
                                                    type = "invalid_request_error")),
                                  auto_unbox = TRUE)
    TRUE
  }
  usage <- list(prompt_tokens = 10L, completion_tokens = 5L, total_tokens = 15L)
  app$locals$uploads <- 0L
  app$get("/__uploads", function(req, res) {
    res$send_json(list(n = req$app$locals$uploads), auto_unbox = TRUE)
  })
  app$post("/v1/files", function(req, res) {
    if (is.null(res$locals$seen)) {
      res$locals$seen <- TRUE
      req$app$locals$uploads <- req$app$locals$uploads + 1L
      # only the first upload is slow (long enough to kill the client during it)
      delay <- req$app$locals$batch_options$upload_delay %||% 0
      if (delay > 0 && req$app$locals$uploads == 1L) return(res$delay(delay))
    }
    id <- paste0("file-", length(req$app$locals$files) + 1L)
    req$app$locals$files[[id]] <- rawToChar(req$files$file$value)
    res$send_json(list(id = id, object = "file", purpose = "batch", filename = "batch.jsonl",
                       bytes = length(req$files$file$value)), auto_unbox = TRUE)
  })
  app$get("/v1/files/:id/content", function(req, res) {
    res$set_type("application/jsonl")$send(req$app$locals$files[[req$params$id]])
  })
  app$post("/v1/batches", function(req, res) {
    if (reject(req, res)) return()
    app <- req$app
    lines <- strsplit(app$locals$files[[req$json$input_file_id]], "\n")[[1]]
    requests <- lapply(lines[nzchar(lines)], jsonlite::parse_json)
    outs <- run_items(app, lapply(requests, `[[`, "body"))
    id <- paste0("batch_", length(app$locals$batches) + 1L)
    line <- function(r, out) {
      if (isTRUE(out$expire)) {
        return(list(id = paste0("batch_req_", out$n), custom_id = r$custom_id, response = NULL,
                    error = list(code = "batch_expired", message = paste(
                      "This request could not be executed before the completion window",
                      "expired."))))
      }
      body <- if (is.null(out$status)) {
        app$locals$responses_body(out$text %||% "", out$n, r$body$model, usage)
      } else {
        list(error = list(message = out$message %||% paste("fake error", out$status),
                          type = "fake"))
      }
      list(id = paste0("batch_req_", out$n), custom_id = r$custom_id,
           response = list(status_code = out$status %||% 200L,
                           request_id = paste0("req_", out$n), body = body),
           error = NULL)
    }
    all <- Map(line, requests, outs)
    expired <- vapply(outs, function(o) isTRUE(o$expire), TRUE)
    jsonl <- function(x) {
      if (!length(x)) return(NULL)
      file <- paste0("file-", length(app$locals$files) + 1L)
      app$locals$files[[file]] <- paste0(vapply(x, function(l) {
        as.character(jsonlite::toJSON(l, auto_unbox = TRUE, null = "null"))
      }, ""), "\n", collapse = "")
      file
    }
    ok <- vapply(outs, function(o) is.null(o$status) && !isTRUE(o$expire), TRUE)
    app$locals$batches[[id]] <- list(
      id = id, object = "batch", endpoint = req$json$endpoint,
      input_file_id = req$json$input_file_id, completion_window = "24h",
      final = if (any(expired)) "expired" else "completed",
      polls = app$locals$batch_options$polls %||% 1L,
      request_counts = list(total = length(outs), completed = sum(ok),
                            failed = sum(!ok)),
      output_file_id = jsonl(all[!expired]), error_file_id = jsonl(all[expired])
    )
    res$send_json(openai_batch_view(app$locals$batches[[id]], FALSE), auto_unbox = TRUE,
                  null = "null")
  })
  app$get("/v1/batches/:id", function(req, res) {
    batch <- req$app$locals$batches[[req$params$id]]
    batch$polls <- batch$polls - 1L
    req$app$locals$batches[[req$params$id]] <- batch
    res$send_json(openai_batch_view(batch, batch$polls < 0), auto_unbox = TRUE, null = "null")
  })
  app$post("/v1/messages/batches", function(req, res) {
    if (reject(req, res)) return()
    app <- req$app
    requests <- req$json$requests
    outs <- run_items(app, lapply(requests, `[[`, "params"))
    id <- paste0("msgbatch_", length(app$locals$batches) + 1L)
    results <- Map(function(r, out) {
      result <- if (isTRUE(out$expire)) list(type = "expired") else if (!is.null(out$status)) {
        list(type = "errored", error = list(type = "error", error = list(
          type = "invalid_request_error",
          message = out$message %||% paste("fake error", out$status))))
      } else {
        list(type = "succeeded", message = app$locals$messages_body(
          out$text %||% "", out$n, r$params$model, usage))
      }
      list(custom_id = r$custom_id, result = result)
    }, requests, outs)
    types <- vapply(results, function(r) r$result$type, "")
    app$locals$batches[[id]] <- list(
      id = id, results = results, polls = app$locals$batch_options$polls %||% 1L,
      counts = list(processing = 0L, succeeded = sum(types == "succeeded"),
                    errored = sum(types == "errored"), canceled = 0L,
                    expired = sum(types == "expired"))
    )
    res$send_json(anthropic_batch_view(app$locals$batches[[id]], FALSE, ""),
                  auto_unbox = TRUE, null = "null")
  })
  app$get("/v1/messages/batches/:id", function(req, res) {
    batch <- req$app$locals$batches[[req$params$id]]
    batch$polls <- batch$polls - 1L
    req$app$locals$batches[[req$params$id]] <- batch
    root <- sub("/v1/.*$", "", req$url)
    res$send_json(anthropic_batch_view(batch, batch$polls < 0, root), auto_unbox = TRUE,
                  null = "null")
  })
  app$get("/v1/messages/batches/:id/results", function(req, res) {
    batch <- req$app$locals$batches[[req$params$id]]
    res$set_type("application/binary")$send(paste0(vapply(batch$results, function(l) {
      as.character(jsonlite::toJSON(l, auto_unbox = TRUE, null = "null"))
    }, ""), "\n", collapse = ""))
  })
  invisible(app)
}

# OpenAI's Responses API (ellmer::chat_openai()) and Anthropic's Messages API
# (ellmer::chat_anthropic()) answer in their own shapes; `usage` is the chat-completions one.
fake_responses_body <- function(text, n, model, usage) {
  list(id = paste0("resp_", n), object = "response", status = "completed",
       model = model %||% "fake",
       output = list(list(type = "message", id = paste0("msg_", n), role = "assistant",
                          status = "completed",
                          content = list(list(type = "output_text", text = text,
                                              annotations = list())))),
       usage = list(input_tokens = usage$prompt_tokens, output_tokens = usage$completion_tokens,
                    total_tokens = usage$total_tokens))
}

fake_messages_body <- function(text, n, model, usage) {
  list(id = paste0("msg_", n), type = "message", role = "assistant", model = model %||% "fake",
       content = list(list(type = "text", text = text)), stop_reason = "end_turn",
       usage = list(input_tokens = usage$prompt_tokens, output_tokens = usage$completion_tokens))
}

# A real ellmer chat pointed at a fake server, with a recognisable fake key.
fake_chat <- function(server, model = "fake-model", system_prompt = NULL, params = NULL,
                      key = "sk-test-FAKEKEY-0123456789") {
  ellmer::chat_openai_compatible(
    base_url = server$url, model = model, system_prompt = system_prompt,
    params = params, credentials = function() key
  )
}

# FutureX's sample judged by a panel of two fake judges ("judge-a", "judge-b") at `server`,
# logging to a folder that lasts as long as the calling test: the task, its data, the panel
# and how many of its items the judges are asked about (levels 3 and 4 with a `std`).
futurex_panel_task <- function(server, settings, env = parent.frame()) {
  data <- futurex_dataset(version = "sample")
  panel <- list(fake_chat(server, "judge-a"), fake_chat(server, "judge-b"))
  task <- futurex_task(data, solver = futurex_solver(settings = settings),
                       scorer = futurex_scorer(scorer_chat = panel, settings = settings),
                       dir = withr::local_tempdir(.local_envir = env))
  list(task = task, data = data, panel = panel,
       judged = sum(data$level >= 3 & !is.na(data$std)))
}

# The same, through OpenAI's Responses API and through Anthropic's Messages API.
fake_responses_chat <- function(server, model = "fake-model", params = NULL) {
  ellmer::chat_openai(base_url = server$url, model = model, params = params,
                      credentials = function() "sk-test-FAKEKEY-0123456789")
}

fake_anthropic_chat <- function(server, model = "fake-model", params = NULL) {
  ellmer::chat_anthropic(base_url = server$url, model = model, params = params,
                         credentials = function() "sk-ant-test-FAKEKEY")
}

local_fake_openai <- function(reply = function(body, n) "ok", latency = 0, batch = list(),
                              routes = character(), static = list(), not_found = NULL,
                              .local_envir = parent.frame()) {
  server <- fake_openai(reply, latency, batch, routes, static, not_found)
  withr::defer(server$stop(), envir = .local_envir)
  server
}

# The text of the last user message in a chat request body.
last_user_text <- function(body) {
  messages <- body$messages %||% body$input
  content <- messages[[length(messages)]]$content
  if (is.character(content)) return(content)
  paste(vapply(content, function(x) x$text %||% "", ""), collapse = "")
}

# The two answers an arena judge's prompt (EloBench's) shows, `list(a = , b = )`: "" for one
# the prompt does not hold. For fake judges that judge by the answers.
battle_answers <- function(prompt) {
  part <- function(pattern) {
    m <- regmatches(prompt, regexec(pattern, prompt, perl = TRUE))[[1]]
    if (length(m) == 2) m[[2]] else ""
  }
  list(a = part("Response of LLM-1: \n\n``` \n\n([\\s\\S]*?) \n\n``` \n\n \n\nResponse of LLM-2:"),
       b = part("Response of LLM-2: \n\n``` \n\n([\\s\\S]*) \n\n```"))
}

# A whitespace tokenizer for fake /v1/completions echo replies: "\n" alone, words with one
# leading space, runs of spaces. Another `pattern` gives another tokenizer.
echo_tokenize <- function(text, pattern = "\n| ?[^ \n]+| +") {
  regmatches(text, gregexpr(pattern, text))[[1]]
}

# The reply of an OpenAI-compatible /v1/completions endpoint to `echo = true, logprobs = 0`:
# the echoed `tokens` with their `logprobs` (by default -nchar(token) / 2), the first token
# without one, as OpenAI's and vLLM's. The last `generated` tokens count as generated.
# Use it in a fake_openai() reply function: `function(body, n) echo_completion(body$prompt)`.
echo_completion <- function(text, tokens = echo_tokenize(text),
                            logprobs = -nchar(tokens) / 2, generated = 0L, model = "fake") {
  lp <- as.list(rep_len(as.double(logprobs), length(tokens)))
  if (length(lp)) lp[1] <- list(NULL)
  list(json = list(
    object = "text_completion", model = model,
    choices = list(list(index = 0L, text = text, finish_reason = "length",
                        logprobs = list(tokens = as.list(tokens), token_logprobs = lp))),
    usage = list(prompt_tokens = length(tokens) - generated, completion_tokens = generated,
                 total_tokens = length(tokens))
  ))
}

# A reply that echoes the last user message; a message containing "reject" gets HTTP 400.
echo_reply <- function(body, n) {
  text <- last_user_text(body)
  if (grepl("reject", text)) return(list(status = 400))
  paste("answer to", text)
}

# A chat-completions body whose answer is a call of tool `name` with `arguments` (a list):
# a fake model that calls tools. Use it as a reply's `json`.
tool_call_body <- function(name, arguments = list(), n = 1L) {
  list(id = paste0("chatcmpl-", n), object = "chat.completion", created = 0L, model = "fake",
       choices = list(list(index = 0L, finish_reason = "tool_calls", message = list(
         role = "assistant", content = NULL,
         tool_calls = list(list(id = paste0("call_", n), type = "function", `function` = list(
           name = name,
           arguments = if (length(arguments)) {
             as.character(jsonlite::toJSON(arguments, auto_unbox = TRUE))
           } else "{}"
         )))
       ))),
       usage = list(prompt_tokens = 10L, completion_tokens = 5L, total_tokens = 15L))
}

# A tool the fake server never calls: registering it sends the chat through ellmer's own
# `$chat_async()` path instead of the fast path.
with_idle_tool <- function(chat) {
  chat$register_tool(ellmer::tool(function() "unused", name = "idle",
                                  description = "Never called."))
  chat
}
