# How one request is sent: the transports request_pool() (R/pool.R) drives.
#
# A transport has `start(i, finish)` (send request i; call `finish(i, value)` once, with a
# record or an error), `drive(timeout)` (wait up to `timeout` seconds for answers, running
# their callbacks) and `close()` (cancel whatever is still in flight). Each chat gets a
# sender of one of two kinds (offline baseline chats never get here: run_requests() answers
# them at once):
# * "curl": OpenAI-compatible chat completions, OpenAI Responses and Anthropic Messages (no
#   tools), sent with curl's multi interface:
#   ellmer builds the request once per chat (R/compat.R), each prompt is spliced into its
#   JSON, and each response is read with ellmer's own parser. About a tenth of the CPU of a
#   promise per request, which matters at 50 requests in flight.
# * "later": every other provider (and chats with tools), through ellmer's public
#   `$chat_async()`, whose promises run on the later event loop.

request_transport <- function(chats, chat_index, prompts, keep_json, max_active) {
  pool <- curl::new_pool(total_con = max_active, host_con = max_active, multiplex = FALSE)
  senders <- lapply(chats, chat_sender, pool = pool, keep_json = keep_json)
  active <- c(curl = 0L, later = 0L)
  list(
    uses_later = any(vapply(senders, function(s) s$kind == "later", TRUE)),
    start = function(i, finish) {
      sender <- senders[[chat_index[[i]]]]
      kind <- sender$kind
      active[[kind]] <<- active[[kind]] + 1L
      sender$start(i, prompts[[i]], function(i, value) {
        active[[kind]] <<- active[[kind]] - 1L
        finish(i, value)
      })
    },
    drive = function(timeout) {
      # Both loops at once only when chats of both kinds are in flight (rare): then each
      # waits briefly in turn.
      if (active[["curl"]] > 0L && active[["later"]] > 0L) timeout <- min(timeout, 0.01)
      if (active[["curl"]] > 0L) curl::multi_run(timeout = timeout, poll = TRUE, pool = pool)
      if (active[["later"]] > 0L) later::run_now(timeout)
      invisible()
    },
    close = function() {
      for (handle in curl::multi_list(pool)) curl::multi_cancel(handle)
    }
  )
}

chat_sender <- function(chat, pool, keep_json) {
  if (uses_fast_path(chat)) return(curl_sender(chat, pool, keep_json))
  later_sender(chat, keep_json)
}

# The fast path: providers whose request is one JSON POST with fixed headers, checked side
# by side with ellmer's own path (test-generate.R): OpenAI-compatible chat completions,
# OpenAI's Responses API and Anthropic's Messages API, without tools, with an ellmer that
# still has the internals R/compat.R uses. (Subclasses are left out: they may sign or
# refresh credentials per request, as AWS, Azure and Databricks do.)
fast_path_providers <- c("ellmer::ProviderOpenAICompatible", "ellmer::ProviderOpenAI",
                         "ellmer::ProviderAnthropic")

# estimate_cost() turns the fast path off (withr-scoped option) so that its dry run's requests
# all pass through httr2, where it answers them locally.
uses_fast_path <- function(chat) {
  isTRUE(getOption("predictivebench.fast_path", TRUE)) &&
    class(chat$get_provider())[[1]] %in% fast_path_providers &&
    !length(chat$get_tools()) && ellmer_fast_path_available()
}

later_sender <- function(chat, keep_json) {
  n_before <- length(chat$get_turns(include_system_prompt = TRUE))
  list(kind = "later", start = function(i, prompt, finish) {
    x <- chat$clone()
    started <- now_seconds()
    done <- tryCatch(
      do.call(x$chat_async, if (is.character(prompt)) as.list(prompt) else prompt),
      error = identity
    )
    if (inherits(done, "error")) return(finish(i, done))
    promises::then(done, onFulfilled = function(text) {
      turn <- x$last_turn()
      usage <- request_usage(x, n_before)
      seconds <- turn@duration %|NA|% (now_seconds() - started)
      finish(i, tryCatch(record_from_turn(turn, seconds, keep_json, usage$tokens, usage$cost),
                         error = identity))
    }, onRejected = function(e) finish(i, e))
    invisible()
  })
}

curl_sender <- function(chat, pool, keep_json) {
  template <- request_template(chat)
  timeout <- getOption("ellmer_timeout_s", 5 * 60)
  list(kind = "curl", start = function(i, prompt, finish) {
    started <- now_seconds()
    handle <- curl::new_handle(url = template$url, timeout_ms = round(timeout * 1000),
                               useragent = template$useragent)
    curl::handle_setopt(handle, copypostfields = template$body(prompt))
    curl::handle_setheaders(handle, .list = template$headers)
    curl::multi_add(handle, pool = pool, done = function(res) {
      finish(i, tryCatch(curl_record(chat, res, now_seconds() - started, keep_json),
                         error = identity))
    }, fail = function(message) {
      finish(i, structure(class = c("predictivebench_connection_error", "error", "condition"),
                          list(message = message, call = NULL)))
    })
    invisible()
  })
}

# What ellmer would send for this chat, built once: the URL, the headers (with the key), and
# the JSON body with a placeholder where the prompt's text goes. A prompt that is not one
# plain string (images, several parts) gets its whole body built by ellmer.
request_template <- function(chat) {
  existing <- chat$get_turns(include_system_prompt = TRUE)
  placeholder <- paste0("predictivebench-prompt-", digest::digest(stats::runif(1)))
  req <- ellmer_request(chat, c(existing, list(user_turn_of(placeholder))))
  json <- request_json(req)
  parts <- strsplit(json, paste0('"', placeholder, '"'), fixed = TRUE)[[1]]
  headers <- vapply(httr2::req_get_headers(req, "reveal"), paste, "", collapse = ",")
  if (!"content-type" %in% tolower(names(headers))) {
    headers <- c(headers, `Content-Type` = "application/json")
  }
  body <- function(prompt) {
    if (length(parts) == 2 && rlang::is_string(prompt) && nzchar(prompt)) {
      return(paste0(parts[[1]], jsonlite::toJSON(enc2utf8(prompt), auto_unbox = TRUE),
                    parts[[2]]))
    }
    request_json(ellmer_request(chat, c(existing, list(user_turn_of(prompt)))))
  }
  list(url = httr2::req_get_url(req), headers = headers, body = body,
       useragent = req$options$useragent %||% "predictivebench")
}

# The JSON body as httr2 would serialize it (req_body_json()'s defaults, as ellmer uses).
request_json <- function(req) {
  enc2utf8(as.character(jsonlite::toJSON(httr2::req_get_body(req, "reveal"), auto_unbox = TRUE,
                                         digits = 22, null = "null")))
}

# A curl response as a record, or the error ellmer would raise for it (httr2's, with the
# provider's message).
curl_record <- function(chat, res, seconds, keep_json) {
  text <- rawToChar(res$content)
  Encoding(text) <- "UTF-8"
  if (res$status_code >= 400) {
    headers <- curl::parse_headers_list(res$headers)
    resp <- httr2::response(status_code = res$status_code, url = res$url,
                            headers = headers, body = res$content)
    message <- tryCatch({
      error <- jsonlite::parse_json(text)$error
      if (is.list(error)) error$message else error
    }, error = function(e) NULL)
    return(tryCatch(httr2::resp_check_status(resp, info = message), error = identity))
  }
  turn <- ellmer_turn(chat, jsonlite::parse_json(text))
  record_from_turn(turn, seconds, keep_json)
}
