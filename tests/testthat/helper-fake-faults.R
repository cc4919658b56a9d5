# Local servers that misbehave the way real networks and providers do (webfakes, each in a
# child process): a provider answering every request with one HTTP error body, one that
# redirects every request elsewhere, and a bystander that records whatever reaches it.

# Answers every POST under /v1 with HTTP `status` and `body` sent as is (a provider's own error
# format: OpenAI's {"error":{"message":...}}, Anthropic's {"type":"error","error":{...}} or
# plain text). $count() is the number of requests it received.
local_fake_error <- function(status, body, type = "application/json",
                             .local_envir = parent.frame()) {
  app <- webfakes::new_app()
  app$locals$n <- 0L
  app$locals$reply <- list(status = status, body = body, type = type)
  answer <- function(req, res) {
    req$app$locals$n <- req$app$locals$n + 1L
    reply <- req$app$locals$reply
    res$set_status(reply$status)$set_type(reply$type)$send(reply$body)
  }
  for (path in c("/v1/chat/completions", "/v1/responses", "/v1/messages")) {
    app$post(path, answer)
  }
  app$get("/__count", function(req, res) {
    res$send_json(list(n = req$app$locals$n), auto_unbox = TRUE)
  })
  fake_process(app, .local_envir)
}

# Answers every request with a `status` redirect to the same path on `target` (an origin,
# "http://127.0.0.1:port"), as a compromised proxy or a misconfigured gateway would.
local_fake_redirect <- function(target, status = 307L, .local_envir = parent.frame()) {
  app <- webfakes::new_app()
  app$locals$n <- 0L
  app$locals$target <- target
  app$locals$status <- status
  app$use(function(req, res) {
    if (identical(req$path, "/__count")) return("next")
    req$app$locals$n <- req$app$locals$n + 1L
    res$set_status(req$app$locals$status)
    res$set_header("Location", paste0(req$app$locals$target, req$path))
    res$send("")
  })
  app$get("/__count", function(req, res) {
    res$send_json(list(n = req$app$locals$n), auto_unbox = TRUE)
  })
  fake_process(app, .local_envir)
}

# Records every request that reaches it, whatever its method or path: $seen() lists them
# (method, path, header names, body) and $count() counts them.
local_fake_bystander <- function(.local_envir = parent.frame()) {
  app <- webfakes::new_app()
  app$locals$seen <- list()
  app$use(function(req, res) {
    if (req$path %in% c("/__seen", "/__count")) return("next")
    body <- if (length(req$.body)) rawToChar(req$.body) else ""
    req$app$locals$seen[[length(req$app$locals$seen) + 1L]] <- list(
      method = req$method, path = req$path, headers = names(req$headers), body = body
    )
    res$send_json(list(ok = TRUE), auto_unbox = TRUE)
  })
  app$get("/__seen", function(req, res) {
    res$send_json(req$app$locals$seen, auto_unbox = TRUE)
  })
  app$get("/__count", function(req, res) {
    res$send_json(list(n = length(req$app$locals$seen)), auto_unbox = TRUE)
  })
  server <- fake_process(app, .local_envir)
  server$seen <- function() jsonlite::fromJSON(paste0(server$origin, "/__seen"),
                                               simplifyVector = FALSE)
  server
}

# Starts `app` in a child process, stopped when `.local_envir` ends: $origin
# ("http://127.0.0.1:port"), $url (the base_url to give ellmer) and $count().
fake_process <- function(app, .local_envir) {
  proc <- webfakes::new_app_process(app)
  withr::defer(proc$stop(), envir = .local_envir)
  origin <- sub("/$", "", proc$url())
  list(origin = origin, url = paste0(origin, "/v1"), process = proc,
       count = function() jsonlite::fromJSON(paste0(origin, "/__count"))$n)
}
