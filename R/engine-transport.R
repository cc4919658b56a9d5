# How one request is sent: the transports request_pool() (R/engine-pool.R) drives, with
# `start(i, finish)`, `drive(timeout)`, `cancel(i)`, `progress(i)`, `label(i)` and `close()`.
# "curl": OpenAI chat completions/Responses and Anthropic Messages without tools, on curl's multi
# interface with ellmer's own request builder and parser (a tenth of a promise's CPU per
# request); "later": every other provider, through ellmer's `$chat_async()`. On both, redirects
# are refused: following one would send the API key (and the prompt) wherever it points.

# A dry run (the session's `price`) sends all through httr2, where its mock answers
# (uses_fast_path()). `extend()` adds more chats' requests on the same curl pool (a set's overlap).
request_transport <- function(chats, chat_index, prompts, keep_json, max_active,
                              deadline = request_deadline(), max_turns = 20L) {
  pool <- connection_pool(max_active)
  new_senders <- function(chats) {
    lapply(chats, chat_sender, pool = pool, keep_json = keep_json, deadline = deadline,
           max_turns = max_turns)
  }
  senders <- new_senders(chats)
  chat_index <- as.integer(chat_index)
  active <- c(curl = 0L, later = 0L)
  kind_of <- function(i) senders[[chat_index[[i]]]]$kind
  uses_later <- function() any(vapply(senders, function(s) s$kind == "later", TRUE))
  # ellmer's requests go to curl's default pool, which httr2 drives: whatever this run added
  # there and abandoned (past its deadline, or on interrupt) is cancelled when it closes.
  before <- curl::multi_list()
  list(
    uses_later = uses_later,
    extend = function(more_chats, more_index, more_prompts, max_active = NULL) {
      ids <- length(prompts) + seq_along(more_prompts)
      chat_index <<- c(chat_index, length(senders) + as.integer(more_index))
      prompts <<- c(prompts, more_prompts)
      chats <<- c(chats, more_chats)
      senders <<- c(senders, new_senders(more_chats))
      if (!is.null(max_active)) {
        curl::multi_set(total_con = connection_limit(max_active),
                        host_con = connection_limit(max_active), multiplex = FALSE, pool = pool)
      }
      ids
    },
    start = function(i, finish) {
      kind <- kind_of(i)
      active[[kind]] <<- active[[kind]] + 1L
      senders[[chat_index[[i]]]]$start(i, prompts[[i]], function(i, value) {
        active[[kind]] <<- active[[kind]] - 1L
        finish(i, value)
      })
    },
    drive = function(timeout) {
      # Both loops at once only with chats of both kinds in flight (rare): each then waits briefly.
      if (active[["curl"]] > 0L && active[["later"]] > 0L) timeout <- min(timeout, 0.01)
      if (active[["curl"]] > 0L) curl::multi_run(timeout = timeout, poll = TRUE, pool = pool)
      if (active[["later"]] > 0L) drive_later(timeout)
      invisible()
    },
    cancel = function(i) {
      kind <- kind_of(i)
      if (senders[[chat_index[[i]]]]$cancel(i)) active[[kind]] <<- active[[kind]] - 1L
      invisible()
    },
    # Only ellmer's path has rounds (tool calls) that progress: the fast path's are 0.
    progress = function(i) senders[[chat_index[[i]]]]$progress(i),
    # What request i's rounds so far cost (request_usage()), NULL for none.
    usage = function(i) senders[[chat_index[[i]]]]$usage(i),
    label = function(i) chat_label(chats[[chat_index[[i]]]]),
    close = function() {
      for (sender in senders) if (!is.null(sender$release)) sender$release()
      for (handle in curl::multi_list(pool)) curl::multi_cancel(handle)
      if (active[["later"]] > 0L || any(vapply(senders, function(s) s$abandoned(), TRUE))) {
        for (handle in curl::multi_list()) {
          if (!any(vapply(before, identical, TRUE, handle))) curl::multi_cancel(handle)
        }
      }
    }
  )
}

# Runs the later event loop for ellmer's requests: httr2's own later callback waits only on the
# sockets in flight when it was registered (and reads curl's ms timeout as seconds), so a
# stalled server would postpone newer requests for hours.
drive_later <- function(timeout) {
  later::run_now(0)
  if (!length(curl::multi_list())) return(later::run_now(timeout))
  curl::multi_run(timeout = min(timeout, 0.05), poll = TRUE)
  later::run_now(0)
}

# A curl pool of at most `max_active` connections (no limit, `Inf` or past integers, is curl's 0).
connection_pool <- function(max_active) {
  limit <- connection_limit(max_active)
  curl::new_pool(total_con = limit, host_con = limit, multiplex = FALSE)
}

connection_limit <- function(max_active) {
  if (max_active > .Machine$integer.max) 0L else as.integer(max_active)
}

chat_label <- function(chat) {
  provider <- chat$get_provider()
  url <- tryCatch(provider@base_url, error = function(e) NULL)
  if (!rlang::is_string(url) || !nzchar(url)) return(provider@name)
  paste(provider@name, "at", shown_url(url))
}

chat_sender <- function(chat, pool, keep_json, deadline = request_deadline(), max_turns = 20L) {
  if (uses_fast_path(chat)) return(curl_sender(chat, pool, keep_json, deadline))
  later_sender(chat, keep_json, max_turns)
}

# The fast path's providers (checked against ellmer's path in test-engine-generate.R);
# subclasses are left out: they may sign or refresh credentials per request (AWS, Azure).
fast_path_providers <- c("ellmer::ProviderOpenAICompatible", "ellmer::ProviderOpenAI",
                         "ellmer::ProviderAnthropic")

# A dry run sends without the fast path, so all its requests pass through httr2's mock.
uses_fast_path <- function(chat) {
  is.null(pricing_collector()) &&
    class(chat$get_provider())[[1]] %in% fast_path_providers &&
    !length(chat$get_tools()) && ellmer_fast_path_available()
}

# With tools, at most `max_turns` paid rounds per request, then max_turns_error(). ellmer's
# clones share callbacks, so each request's callback acts only on its own tool requests and is
# removed when the request ends: none is left on the user's chat.
later_sender <- function(chat, keep_json, max_turns = 20L) {
  n_before <- length(chat$get_turns(include_system_prompt = TRUE))
  clones <- list()  # by request, while in flight
  stops <- list()  # by request: abandon_chat() stops the clone's further rounds
  removers <- list()  # of each request's tool-request callback, while in flight
  abandoned <- FALSE
  # The chat's credentials, read the first time an error must be cleared of them.
  known <- NULL
  secrets <- function() {
    if (is.null(known)) known <<- chat_credentials(chat)
    known
  }
  release <- function(key) {
    remove <- removers[[key]]
    removers[[key]] <<- NULL
    if (is.function(remove)) remove()
  }
  own_request <- function(x, request) {
    last <- last_turn_of(x)
    ids <- if (is.null(last)) character() else vapply(Filter(function(c) {
      S7::S7_inherits(c, ellmer::ContentToolRequest)
    }, last@contents), function(c) S7::prop(c, "id"), "")
    S7::prop(request, "id") %in% ids
  }
  turns_of <- function(x) {
    new <- x$get_turns(include_system_prompt = TRUE)
    new <- new[setdiff(seq_along(new), seq_len(n_before))]
    sum(vapply(new, function(t) identical(t@role, "assistant"), TRUE))
  }
  list(
    kind = "later",
    start = function(i, prompt, finish) {
      key <- as.character(i)
      stops[[key]] <<- new.env(parent = emptyenv())
      x <- chat_without_redirects(chat$clone(), stops[[key]])  # R/engine-compat-ellmer.R
      removers[[key]] <<- x$on_tool_request(function(request) {
        if (own_request(x, request) && turns_of(x) >= max_turns) {
          stop(max_turns_error(max_turns, request_usage(x, n_before)))
        }
      })
      clones[[key]] <<- x
      # A settled promise of an attempt that was cancelled (past its deadline) is ignored.
      settle <- function(value) {
        if (!identical(clones[[key]], x)) return(invisible())
        clones[[key]] <<- NULL
        stops[[key]] <<- NULL
        release(key)
        finish(i, if (inherits(value, "error")) redact_error(value, secrets()) else value)
      }
      started <- now_seconds()
      done <- tryCatch(
        do.call(x$chat_async, if (is.character(prompt)) as.list(prompt) else prompt),
        error = identity
      )
      if (inherits(done, "error")) return(settle(request_error(done)))
      promises::then(done, onFulfilled = function(text) {
        turn <- last_turn_of(x)
        usage <- request_usage(x, n_before)
        seconds <- turn@duration %|NA|% (now_seconds() - started)
        problem <- answer_problem(turn@json, turn)
        if (!is.null(problem)) return(settle(with_usage(problem, usage)))
        settle(tryCatch(entry_from_turn(turn, seconds, keep_json, usage$tokens, usage$cost),
                        error = identity))
      }, onRejected = function(e) settle(request_error(e)))
      invisible()
    },
    cancel = function(i) {
      key <- as.character(i)
      if (is.null(clones[[key]])) return(FALSE)
      clones[[key]] <<- NULL
      abandon_chat(stops[[key]], "This request was abandoned (past its deadline).")
      release(key)
      abandoned <<- TRUE
      TRUE
    },
    # The transport closes: rounds still to come of requests in flight are never sent.
    release = function() {
      for (key in names(stops)) abandon_chat(stops[[key]], "This request's run has ended.")
      for (key in names(removers)) release(key)
    },
    # Each tool-call round adds an assistant turn to the request's chat.
    progress = function(i) {
      x <- clones[[as.character(i)]]
      if (is.null(x)) 0L else turns_of(x)
    },
    usage = function(i) {
      x <- clones[[as.character(i)]]
      if (is.null(x) || !turns_of(x)) NULL else request_usage(x, n_before)
    },
    abandoned = function() abandoned
  )
}

curl_sender <- function(chat, pool, keep_json, deadline = request_deadline()) {
  read_turn <- ellmer_turn_reader(chat)  # R/engine-compat-ellmer.R: the price looked up once
  post_sender(pool, request_template(chat), deadline, function(res, seconds) {
    curl_entry(chat, res, seconds, keep_json, read_turn)
  })
}

# Sends `template` (url, headers, useragent, body(prompt)) as JSON POSTs on curl's `pool`;
# `read(res, seconds)` turns curl's response into a record or an error. Also the sender of
# log-probability requests (R/engine-transport-completions.R).
post_sender <- function(pool, template, deadline, read) {
  handles <- new.env(parent = emptyenv())  # by request, while in flight
  timeout_ms <- round(deadline * 1000)
  # What a provider says in an error is delivered without the credentials sent to it.
  secrets <- template$secrets %||% credential_values(template$headers, template$url)
  clear <- function(value) if (inherits(value, "error")) redact_error(value, secrets) else value
  header_lines <- curl_header_lines(template$headers)
  list(
    kind = "curl",
    start = function(i, prompt, finish) {
      key <- as.character(i)
      started <- now_seconds()
      # curl's own timeout at request_pool()'s deadline only wakes curl's wait (else up to 1 s
      # late). All options in one call: each handle_setopt() rebuilds curl's option table.
      handle <- curl::new_handle(url = template$url, useragent = template$useragent,
                                 timeout_ms = timeout_ms, followlocation = 0L,
                                 copypostfields = template$body(prompt),
                                 httpheader = header_lines)
      handles[[key]] <- handle
      curl::multi_add(handle, pool = pool, done = function(res) {
        rm(list = key, envir = handles)
        finish(i, clear(tryCatch(read(res, now_seconds() - started), error = identity)))
      }, fail = function(message) {
        rm(list = key, envir = handles)
        finish(i, clear(connection_error(message, deadline)))
      })
      invisible()
    },
    cancel = function(i) {
      key <- as.character(i)
      handle <- handles[[key]]
      if (is.null(handle)) return(FALSE)
      rm(list = key, envir = handles)
      curl::multi_cancel(handle)
      TRUE
    },
    progress = function(i) 0L,
    usage = function(i) NULL,
    abandoned = function() FALSE
  )
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
  # The last prompt's body is kept: the votes and epochs of one prompt are sent one after the
  # other, and toJSON() costs ~0.08 ms a call.
  last <- list(prompt = NULL, body = NULL)
  body <- function(prompt) {
    if (length(parts) == 2 && rlang::is_string(prompt) && nzchar(prompt)) {
      if (identical(prompt, last$prompt)) return(last$body)
      last <<- list(prompt = prompt, body = paste0(
        parts[[1]], jsonlite::toJSON(enc2utf8(prompt), auto_unbox = TRUE), parts[[2]]
      ))
      return(last$body)
    }
    request_json(ellmer_request(chat, c(existing, list(user_turn_of(prompt)))))
  }
  list(url = httr2::req_get_url(req), headers = headers, body = body,
       useragent = req$options$useragent %||% "predictivebench",
       secrets = request_credentials(req))
}

# The credentials `chat` sends (those of the request ellmer builds for it), or none when
# they can't be read without sending.
chat_credentials <- function(chat) {
  if (!ellmer_fast_path_available()) return(character())  # R/engine-compat-ellmer.R
  tryCatch(request_credentials(ellmer_request(chat, list(user_turn_of("-")))),
           error = function(e) character())
}

# The JSON body as httr2 would serialize it (req_body_json()'s defaults, as ellmer uses).
request_json <- function(req) {
  enc2utf8(as.character(jsonlite::toJSON(httr2::req_get_body(req, "reveal"), auto_unbox = TRUE,
                                         digits = 22, null = "null")))
}

# The lines curl::handle_setheaders() sets for `headers` (a named character vector): "Name:
# value", "Name;" for a value of blanks, and an empty `Expect` (no 100-continue round trip).
curl_header_lines <- function(headers) {
  headers <- as.list(headers)
  headers$Expect <- ""
  values <- as.character(unlist(headers))
  paste0(names(headers), ifelse(grepl("^\\s+$", values), ";", paste(":", values)))
}

# A curl response as a cache entry, or the error for it (http_error()). `read_turn(json)`
# reads an answer's body into ellmer's assistant turn.
curl_entry <- function(chat, res, seconds, keep_json,
                       read_turn = function(json) ellmer_turn(chat, json)) {
  if (res$status_code >= 300) return(http_error(curl_response(res)))
  text <- rawToChar(res$content)
  Encoding(text) <- "UTF-8"
  json <- tryCatch(jsonlite::parse_json(text), error = function(e) NULL)
  if (is.null(json)) return(no_answer_error("the body is not JSON"))
  problem <- answer_problem(json)
  if (!is.null(problem)) return(problem)
  turn <- read_turn(json)
  answer_problem(json, turn) %||% entry_from_turn(turn, seconds, keep_json)
}

# curl's answer as an httr2 response (for http_error() and httr2's readers).
curl_response <- function(res) {
  httr2::response(status_code = res$status_code, url = res$url,
                  headers = curl::parse_headers_list(res$headers), body = res$content)
}
