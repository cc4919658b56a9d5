# R/engine-transport-errors.R: what a failed request becomes (no HTTP: responses built in memory).

error_response <- function(status, body, type = "application/json", headers = list()) {
  httr2::response(status_code = status, url = "https://api.example.com/v1/chat/completions",
                  headers = c(list(`Content-Type` = type), headers),
                  body = charToRaw(enc2utf8(body)))
}

test_that("the provider's message is read from each provider's error format", {
  said <- function(body, type = "application/json") {
    provider_error_text(error_response(400, body, type))
  }
  expect_equal(said('{"error":{"message":"Bad key","type":"invalid_request_error"}}'),
               "Bad key (invalid_request_error)")
  expect_equal(said('{"type":"error","error":{"type":"overloaded_error","message":"Busy"}}'),
               "Busy (overloaded_error)")
  # Gemini: a status instead of a type, sometimes wrapped in an array
  expect_equal(said('[{"error":{"code":400,"message":"Bad arg","status":"INVALID_ARGUMENT"}}]'),
               "Bad arg (INVALID_ARGUMENT)")
  expect_equal(said('{"error":"plain string error"}'), "plain string error")
  expect_equal(said('{"detail":"Not found"}'), "Not found")
  # no message field: the body itself
  expect_equal(said('{"unexpected":true}'), '{"unexpected":true}')
  expect_equal(said("Service   Unavailable\n\n(upstream)", "text/plain"),
               "Service Unavailable (upstream)")
  expect_null(said("", "text/plain"))
  long <- said(strrep("x", 2000), "text/plain")
  expect_equal(nchar(long), 500)
  expect_match(long, "\\.\\.\\.$")
})

test_that("an HTTP error keeps httr2's classes and fields, so retries and retry-after work", {
  e <- http_error(error_response(429, '{"error":{"message":"Slow down"}}',
                                 headers = list(`retry-after` = "7")))
  expect_s3_class(e, "httr2_http_429")
  expect_equal(conditionMessage(e), "HTTP 429 Too Many Requests: Slow down")
  expect_equal(error_status(e), 429L)
  expect_equal(error_retry_after(e), "7")
  expect_true(is_transient_error(e))
  expect_false(is_auth_error(e))
  auth <- http_error(error_response(401, "", "text/plain"))
  expect_equal(conditionMessage(auth), "HTTP 401 Unauthorized.")
  expect_true(is_auth_error(auth))
  expect_false(is_transient_error(auth))
  expect_true(is_auth_error(http_error(error_response(403, "{}"))))
})

test_that("a redirect is an error naming where it pointed, never retried", {
  e <- http_error(error_response(308, "", "text/plain",
                                 headers = list(Location = "http://evil.example:8080/steal?k=1")))
  expect_s3_class(e, "predictivebench_error_redirect")
  expect_match(conditionMessage(e),
               "^HTTP 308 Permanent Redirect to http://evil.example:8080: not followed")
  # the target's path and query (which could carry anything) are left out of the message
  expect_no_match(conditionMessage(e), "steal")
  expect_false(is_transient_error(e))
  relative <- http_error(error_response(302, "", headers = list(Location = "/v2/chat")))
  expect_match(conditionMessage(relative), "to https://api.example.com: not followed")
})

test_that("a curl timeout is the deadline's error; other failures keep their message", {
  withr::local_options(ellmer_timeout_s = 7)
  timeout <- connection_error("Timeout was reached: [x] Operation timed out after 7001 ms")
  expect_s3_class(timeout, "predictivebench_error_deadline")
  expect_match(conditionMessage(timeout), "deadline of 7 s")
  expect_true(is_transient_error(timeout))
  refused <- connection_error("Failed to connect to 127.0.0.1 port 1: Connection refused")
  expect_s3_class(refused, "predictivebench_connection_error")
  expect_match(conditionMessage(refused), "Connection refused")
  # ellmer's path rejects with httr2's conditions: mapped to the same ones
  httr2_timeout <- rlang::error_cnd(c("httr2_failure", "httr2_error"),
                                    message = "Timeout was reached")
  expect_s3_class(request_error(httr2_timeout), "predictivebench_error_deadline")
})

# The providers' documented error bodies (see is_auth_error() for the sources).
documented_bodies <- list(
  openai_401 = list(401, '{"error":{"message":"Incorrect API key provided: sk-...","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}'),
  openai_403_region = list(403, '{"error":{"message":"Country, region, or territory not supported","type":"request_forbidden","param":null,"code":"unsupported_country_region_territory"}}'),
  anthropic_401 = list(401, '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'),
  anthropic_403 = list(403, '{"type":"error","error":{"type":"permission_error","message":"Your API key does not have permission to use the specified resource."}}'),
  gemini_403 = list(403, '{"error":{"code":403,"message":"Method doesn\'t allow unregistered callers.","status":"PERMISSION_DENIED"}}'),
  openrouter_401 = list(401, '{"error":{"code":401,"message":"No auth credentials found"}}'),
  openrouter_403_moderation = list(403, '{"error":{"code":403,"message":"Your chosen model requires moderation and your input was flagged","metadata":{"reasons":["violence"],"flagged_input":"how do I ...","provider_name":"OpenAI","model_slug":"openai/gpt-4o"}}}'),
  azure_400_filter = list(400, '{"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI\'s content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"hate":{"filtered":false,"severity":"safe"},"violence":{"filtered":true,"severity":"high"}}}}}'),
  openai_400_safety = list(400, '{"error":{"message":"Your request was rejected as a result of our safety system.","type":"invalid_request_error","param":null,"code":"content_policy_violation"}}'),
  anthropic_400 = list(400, '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: must be positive"}}')
)

test_that("a refusal of content is not an auth failure; 401 and a permission 403 are", {
  classify <- function(x) {
    e <- http_error(error_response(x[[1]], x[[2]]))
    c(auth = is_auth_error(e), refusal = inherits(e, "predictivebench_error_refusal"),
      transient = is_transient_error(e))
  }
  got <- lapply(documented_bodies, classify)
  for (name in c("openai_401", "openai_403_region", "anthropic_401", "anthropic_403",
                 "gemini_403", "openrouter_401")) {
    expect_equal(got[[name]], c(auth = TRUE, refusal = FALSE, transient = FALSE), label = name)
  }
  for (name in c("openrouter_403_moderation", "azure_400_filter", "openai_400_safety")) {
    expect_equal(got[[name]], c(auth = FALSE, refusal = TRUE, transient = FALSE), label = name)
  }
  expect_equal(got$anthropic_400, c(auth = FALSE, refusal = FALSE, transient = FALSE))
  # the message says it was the content, and keeps the provider's words
  e <- http_error(error_response(403, documented_bodies$openrouter_403_moderation[[2]]))
  expect_match(conditionMessage(e), "HTTP 403 Forbidden: Your chosen model requires moderation")
  expect_match(conditionMessage(e), "refused this prompt's content")
  # a 403 with no body, or a body that says nothing of content, is still the credentials
  expect_true(is_auth_error(http_error(error_response(403, "", "text/plain"))))
  expect_true(is_auth_error(http_error(error_response(403, "Forbidden", "text/plain"))))
})

test_that("every transient status is retried: 408, 409, 425, 429, 5xx, resets", {
  transient <- function(status) is_transient_error(http_error(error_response(status, "{}")))
  for (status in c(408, 409, 425, 429, 500, 502, 503, 504, 529)) {
    expect_true(transient(status), label = status)
  }
  for (status in c(400, 402, 404, 413, 422)) expect_false(transient(status), label = status)
  reset <- connection_error("Recv failure: Connection reset by peer")
  expect_true(is_transient_error(reset))
})

test_that("a 200 that holds no answer is an error: error object, no choices, no content", {
  err <- answer_problem(list(error = list(code = 502L, message = "Upstream provider down")))
  expect_s3_class(err, "predictivebench_error_no_answer")
  expect_match(conditionMessage(err), "error object \\(code 502\\): Upstream provider down")
  expect_true(is_transient_error(err))
  permanent <- answer_problem(list(error = list(code = 400L, message = "Bad input")))
  expect_false(is_transient_error(permanent))
  flagged <- answer_problem(jsonlite::parse_json(documented_bodies$openrouter_403_moderation[[2]]))
  expect_s3_class(flagged, "predictivebench_error_refusal")
  expect_false(is_transient_error(flagged))
  empty <- answer_problem(list(id = "x", choices = list()))
  expect_match(conditionMessage(empty), "choices is empty")
  expect_true(is_transient_error(empty))
  expect_null(answer_problem(list(id = "x", choices = list(list(message = list(content = "hi"))))))
})

# ---- a gateway that repeats the key (real HTTP, helper-fake-gateway.R) -------------------

# Every message and warning `expr` gives, as text, with its value.
caught_texts <- function(expr) {
  texts <- character()
  value <- withCallingHandlers(
    tryCatch(expr, error = function(e) {
      texts <<- c(texts, conditionMessage(e))
      e
    }),
    warning = function(w) {
      texts <<- c(texts, conditionMessage(w))
      invokeRestart("muffleWarning")
    },
    message = function(m) {
      texts <<- c(texts, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  list(value = value, texts = texts)
}

test_that("redact_text() takes a key out as sent, JSON-escaped, URL-encoded and cut short", {
  key <- "sk-proj-AbC/dEf\"gHi+123456"
  said <- c(paste("Authorization: Bearer", key),
            as.character(jsonlite::toJSON(list(auth = paste("Bearer", key)), auto_unbox = TRUE)),
            as.character(jsonlite::toJSON(as.character(jsonlite::toJSON(key)))),
            paste0("?key=", utils::URLencode(key, reserved = TRUE)),
            paste("cut:", substr(key, 1, 12)), NA)
  out <- redact_text(said, key)
  expect_equal(out[[1]], "Authorization: Bearer [redacted]")
  expect_equal(out[[5]], "cut: [redacted]")
  expect_true(is.na(out[[6]]))
  for (text in out[1:5]) {
    expect_no_match(text, "AbC", fixed = TRUE)
    expect_no_match(text, "sk-proj", fixed = TRUE)
  }
  # a short credential goes only where it stands alone; a placeholder key is left alone
  expect_equal(redact_text("ollama key ollama in ollamas", "ollama"),
               "[redacted] key [redacted] in ollamas")
  expect_equal(redact_text("EMPTY means EMPTY", "EMPTY"), "EMPTY means EMPTY")
})

test_that("a gateway repeating the Authorization header: the key is in no error, sample, log, cache or message", {
  key <- "sk-test-ECHOED-KEY-0123456789abcdef"
  gateway <- local_fake_gateway(400L)
  cache <- withr::local_tempdir()
  logs <- withr::local_tempdir()
  chat <- fake_chat(gateway, key = key)
  for (path in c("fast", "ellmer")) {
    tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2), dir = logs)
    solver_chat <- if (path == "fast") chat else with_idle_tool(chat$clone())
    run <- caught_texts(tsk$eval(solver_chat = solver_chat, view = FALSE, cache = cache,
                                 max_tries = 1))
    samples <- tsk$get_samples()
    errors <- vapply(samples$solver_metadata, function(m) m$error %||% NA_character_, "")
    # the provider's own text is kept, less the key
    expect_true(all(grepl("HTTP 400", errors)), label = path)
    expect_true(all(grepl("upstream rejected the request", errors)), label = path)
    expect_true(all(grepl("[redacted]", errors, fixed = TRUE)), label = path)
    shown <- c(run$texts, errors,
               as.character(jsonlite::toJSON(samples$solver_metadata, auto_unbox = TRUE,
                                             force = TRUE)),
               unlist(Filter(is.character, as.list(samples))),
               utils::capture.output(print(report_failures(tsk), width = 500)),
               caught_texts(report_failures(errors))$texts)
    expect_false(any(grepl(key, shown, fixed = TRUE)), label = path)
    expect_false(any(grepl(substr(key, 1, 16), shown, fixed = TRUE)), label = path)
  }
  expect_equal(gateway$count(), 4)
  expect_gt(length(list.files(logs)), 0)
  expect_secret_nowhere_in(logs, key)
  expect_secret_nowhere_in(logs, substr(key, 1, 16))
  expect_secret_nowhere_in(cache, key)
})

test_that("a refused key repeated in the 401 body, a 200 error object, a retried 5xx: the key is in no error", {
  key <- "sk-test-ECHOED-KEY-0123456789abcdef"
  settings <- request_settings(cache = FALSE, retry = list(max_tries = 2, backoff = 0))
  refused <- local_fake_gateway(401L)
  err <- expect_error(generate_responses(fake_chat(refused, key = key), c("a", "b"),
                                         settings = settings),
                      class = "predictivebench_error_auth")
  expect_match(conditionMessage(err), "upstream rejected", fixed = TRUE)
  expect_no_match(conditionMessage(err), substr(key, 1, 16), fixed = TRUE)
  expect_no_match(paste(format(err$parent %||% ""), collapse = ""), key, fixed = TRUE)
  for (status in c(200L, 502L)) {
    gateway <- local_fake_gateway(status)
    for (chat in list(fake_chat(gateway, key = key),
                      with_idle_tool(fake_chat(gateway, key = key)))) {
      out <- suppressWarnings(generate_responses(chat, "a", settings = settings))
      expect_match(out$error, "upstream rejected", fixed = TRUE)
      expect_no_match(out$error, substr(key, 1, 16), fixed = TRUE)
    }
  }
  # the Anthropic wire format sends the key as x-api-key
  gateway <- local_fake_gateway(400L)
  anthropic <- ellmer::chat_anthropic(base_url = gateway$url, model = "m",
                                      credentials = function() key)
  out <- suppressWarnings(generate_responses(anthropic, "a", settings = settings))
  expect_match(out$error, "upstream rejected", fixed = TRUE)
  expect_no_match(out$error, substr(key, 1, 16), fixed = TRUE)
})

test_that("log-probability requests to a gateway repeating the key: the key is in no error", {
  key <- "sk-test-ECHOED-KEY-0123456789abcdef"
  gateway <- local_fake_gateway(400L)
  run <- caught_texts(query_logprobs(fake_chat(gateway, key = key), "Q:\n", "yes",
                                     settings = request_settings(cache = FALSE)))
  expect_s3_class(run$value, "predictivebench_error")
  expect_true(any(grepl("upstream rejected", run$texts, fixed = TRUE)))
  expect_false(any(grepl(substr(key, 1, 16), run$texts, fixed = TRUE)))
})

test_that("an evaluation set at a gateway repeating the key: its error column and logs hold no key", {
  key <- "sk-test-ECHOED-KEY-0123456789abcdef"
  gateway <- local_fake_gateway(400L)
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  chats <- list(fake_chat(gateway, model = "m1", key = key),
                fake_chat(gateway, model = "m2", key = key))
  run <- caught_texts(eval_set("futurex@sample", chats, log_dir = logs,
                               settings = request_settings(cache = cache,
                                                           rpm = Inf, retry = list(max_tries = 1)), options = set_options(limit = 2)))
  set <- run$value
  expect_equal(nrow(set), 2)
  expect_true(all(grepl("upstream rejected", set$error, fixed = TRUE)))
  failures <- caught_texts(report_failures(logs))
  shown <- c(run$texts, set$error, failures$texts,
             utils::capture.output(print(failures$value, width = 500)))
  expect_false(any(grepl(substr(key, 1, 16), shown, fixed = TRUE)))
  expect_secret_nowhere_in(logs, substr(key, 1, 16))
  expect_secret_nowhere_in(cache, substr(key, 1, 16))
})
