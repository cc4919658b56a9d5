# The transport for log-probability requests: a raw JSON POST to `<base_url>/completions`, with
# request_transport()'s interface on the chat fast path's curl sender (post_sender()), so it gets
# the pool's retries, deadline, refused redirects, provider error text and 401/403 stop. In a
# dry run (a pricing session) requests go through httr2 one at a time, where its mock answers:
# no server is reached.
completions_transport <- function(endpoint, texts, max_tokens, read, max_active,
                                  deadline = request_deadline()) {
  template <- completion_template(endpoint, max_tokens)
  read_response <- function(resp) {
    if (httr2::resp_status(resp) >= 300) return(http_error(resp))
    read(resp)
  }
  label <- function(i) paste("OpenAI-compatible completions at", shown_url(endpoint$base_url))
  if (!is.null(pricing_collector())) {
    return(httr2_transport(template, texts, read_response, label))
  }
  pool <- connection_pool(max_active)
  sender <- post_sender(pool, template, deadline, function(res, seconds) {
    read_response(curl_response(res))
  })
  list(
    start = function(i, finish) sender$start(i, texts[[i]], finish),
    drive = function(timeout) {
      curl::multi_run(timeout = timeout, poll = TRUE, pool = pool)
      invisible()
    },
    cancel = function(i) invisible(sender$cancel(i)),
    progress = NULL,  # a completions request has no rounds
    label = label,
    close = function() for (handle in curl::multi_list(pool)) curl::multi_cancel(handle)
  )
}

# The request for a text: its URL, headers (the credentials read once, here, and kept only
# in memory) and JSON body. `data(text)` is the body as a list (for httr2's mock).
completion_template <- function(endpoint, max_tokens) {
  headers <- c(unlist(endpoint$headers), `Content-Type` = "application/json")
  creds <- if (!is.null(endpoint$credentials)) endpoint$credentials()
  if (rlang::is_string(creds) && nzchar(creds)) {
    headers <- c(headers, Authorization = paste("Bearer", creds))
  } else if (is.list(creds) && length(creds)) {
    headers <- c(headers, unlist(creds))
  }
  # not a local `data`: R CMD check reads `data(text)` as utils::data() (a NOTE)
  body_list <- function(text) completion_body(endpoint, text, max_tokens)
  secrets <- credential_values(headers, endpoint$base_url,
                               also = creds)
  list(url = paste0(endpoint$base_url, "/completions"), headers = headers, data = body_list,
       secrets = secrets,
       body = function(text) {
         enc2utf8(as.character(jsonlite::toJSON(body_list(text), auto_unbox = TRUE, digits = NA)))
       },
       useragent = "predictivebench")
}

# One request at a time through httr2 (whose mock estimate_cost() installs): each answer is
# known when start() returns.
httr2_transport <- function(template, texts, read_response, label) {
  list(
    start = function(i, finish) {
      req <- httr2::request(template$url)
      req <- httr2::req_headers(req, !!!as.list(template$headers))
      req <- httr2::req_body_json(req, template$data(texts[[i]]), auto_unbox = TRUE,
                                  digits = NA)
      req <- httr2::req_error(req, is_error = function(resp) FALSE)
      req <- httr2::req_options(req, followlocation = 0L)
      resp <- tryCatch(httr2::req_perform(req), error = identity)
      value <- if (inherits(resp, "error")) request_error(resp) else
        tryCatch(read_response(resp), error = identity)
      finish(i, redact_error(value, template$secrets))
    },
    drive = function(timeout) invisible(),
    cancel = function(i) invisible(),
    progress = NULL,
    label = label,
    close = function() invisible()
  )
}

# The request for a text on the endpoint's route (probe_completions()): the prompt echoed
# with its log-probabilities, or vLLM's `prompt_logprobs` (the prompt's own tokens only).
completion_body <- function(endpoint, text, max_tokens) {
  if (identical(endpoint$route, "prompt_logprobs")) {
    return(list(model = endpoint$model, prompt = text, max_tokens = as.integer(max_tokens),
                prompt_logprobs = 0L))
  }
  list(model = endpoint$model, prompt = text, echo = TRUE, logprobs = 0L,
       max_tokens = as.integer(max_tokens))
}
