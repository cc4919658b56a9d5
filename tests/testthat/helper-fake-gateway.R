# A gateway that repeats the request's credentials in its error bodies, as some proxies do
# (webfakes, in a child process): every POST under /v1 is answered with HTTP `status` and an
# OpenAI-style error body whose message quotes the request's Authorization and x-api-key
# headers as sent, JSON-escaped inside a JSON string, and cut short at the end (the text a
# gateway truncates); a response header repeats the Authorization header too. `status = 200`
# sends the same error object with a 200 (a body without an answer). $count() counts them.
local_fake_gateway <- function(status = 400L, .local_envir = parent.frame()) {
  app <- webfakes::new_app()
  app$locals$n <- 0L
  app$locals$status <- status
  answer <- function(req, res) {
    req$app$locals$n <- req$app$locals$n + 1L
    header <- function(name) {
      value <- req$get_header(name)
      if (is.null(value)) "" else value
    }
    auth <- header("Authorization")
    key <- header("x-api-key")
    seen <- as.character(jsonlite::toJSON(list(authorization = auth, `x-api-key` = key),
                                          auto_unbox = TRUE))
    cut <- substr(auth, 1, nchar(auth) - 4)
    message <- paste0("upstream rejected the request; request headers were ", seen,
                      "; retry with ", cut)
    body <- list(error = list(message = message, type = "gateway_error",
                              request = list(headers = list(authorization = auth))))
    res$set_header("X-Echo-Authorization", auth)
    res$set_status(req$app$locals$status)$send_json(body, auto_unbox = TRUE)
  }
  for (path in c("/v1/chat/completions", "/v1/completions", "/v1/responses",
                 "/v1/messages")) {
    app$post(path, answer)
  }
  app$get("/__count", function(req, res) {
    res$send_json(list(n = req$app$locals$n), auto_unbox = TRUE)
  })
  proc <- webfakes::new_app_process(app)
  withr::defer(proc$stop(), envir = .local_envir)
  origin <- sub("/$", "", proc$url())
  list(url = paste0(origin, "/v1"), origin = origin,
       count = function() jsonlite::fromJSON(paste0(origin, "/__count"))$n)
}

# Every file under `dir` (recursively), read as bytes, holds `secret` nowhere.
expect_secret_nowhere_in <- function(dir, secret) {
  files <- list.files(dir, recursive = TRUE, full.names = TRUE, all.files = TRUE)
  for (f in files) {
    bytes <- readBin(f, "raw", file.size(f))
    found <- length(bytes) > 0 && length(grepRaw(secret, bytes, fixed = TRUE)) > 0
    expect_false(found, label = paste(secret, "in", f))
  }
  invisible(files)
}
