# Requests sent, nothing cached.
no_cache <- request_settings(cache = FALSE)

# A fake /v1/completions with echo (see echo_completion() in helper-fake-openai.R):
# whitespace tokens ("\n" alone, words with one leading space), each token's
# log-probability is -nchar(token) / 2 and the first token has none.
echo_reply <- function(body, n) echo_completion(body$prompt, model = body$model)

test_that("the completions backend sums the query's tokens, worked out by hand", {
  server <- local_fake_openai(echo_reply)
  chat <- fake_chat(server, model = "tiny-lm")
  out <- query_logprobs(chat, "Is it on?\nAnswer:\n", c("True", "False", "very true"),
                        settings = no_cache)
  # "True" is one token (-4/2), "False" one (-5/2), "very true" two: "very" + " true".
  expect_equal(out$logp, c(-2, -2.5, -2 - 2.5))
  expect_equal(out$n_tokens, c(1L, 1L, 2L))
  expect_equal(out$tokens[[3]], c("very", " true"))
  expect_true(all(is.na(out$error)))
  bodies <- server$requests()
  # Three full texts and three queries alone.
  expect_length(bodies, 6)
  first <- bodies[[1]]
  expect_identical(first$echo, TRUE)
  expect_identical(first$logprobs, 0L)
  expect_identical(first$max_tokens, 0L)
  expect_identical(first$model, "tiny-lm")
  prompts <- vapply(bodies, function(b) b$prompt, "")
  expect_setequal(prompts, c("Is it on?\nAnswer:\nTrue", "Is it on?\nAnswer:\nFalse",
                             "Is it on?\nAnswer:\nvery true", "True", "False", "very true"))
})

test_that("scores are cached: a second run sends nothing, and the key is not cached", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  key <- "sk-test-FAKEKEY-0123456789"
  chat <- fake_chat(server, key = key)
  one <- query_logprobs(chat, c("A:\n", "B:\n"), "yes", settings = request_settings(cache = dir))
  # Two full texts and one shared query-alone request.
  expect_equal(server$count(), 3)
  expect_false(any(one$cached))
  two <- query_logprobs(chat, c("A:\n", "B:\n"), "yes", settings = request_settings(cache = dir))
  expect_equal(server$count(), 3)
  expect_true(all(two$cached))
  expect_equal(two$logp, one$logp)
  files <- list.files(dir, recursive = TRUE, full.names = TRUE)
  expect_length(grep("\\.rds$", files), 3)
  for (f in files) {
    expect_length(grepRaw("FAKEKEY", readBin(f, "raw", file.size(f)), fixed = TRUE), 0)
  }
  # Another model is another request.
  query_logprobs(fake_chat(server, model = "other"), "A:\n", "yes",
                 settings = request_settings(cache = dir))
  expect_equal(server$count(), 5)
})

test_that("a query merged with the text before it is reported, not silently scored", {
  # This tokenizer glues a newline to the following word, as many BPE vocabularies do.
  merge_reply <- function(body, n) {
    tokens <- echo_tokenize(body$prompt, "\n?[^ \n]+| [^ \n]+|\n")
    echo_completion(body$prompt, tokens, logprobs = -nchar(tokens))
  }
  server <- local_fake_openai(merge_reply)
  chat <- fake_chat(server)
  out <- query_logprobs(chat, "Answer:\n", "True", settings = no_cache)
  expect_true(is.na(out$logp))
  expect_match(out$error, "do not spell the query")
  expect_match(out$error, "\\\\nTrue", fixed = FALSE)
  loose <- query_logprobs(chat, "Answer:\n", "True", settings = no_cache, span_check = FALSE)
  # The span is the merged token "\nTrue" (5 characters), scored anyway.
  expect_equal(loose$logp, -5)
  expect_match(loose$error, "do not spell")
})

test_that("a BOS token the server puts before every text is not counted as the query's", {
  bos_reply <- function(body, n) {
    echo_completion(body$prompt, c("<s>", echo_tokenize(body$prompt)))
  }
  server <- local_fake_openai(bos_reply)
  out <- query_logprobs(fake_chat(server), "Q\n", c("no", "not so"), settings = no_cache)
  expect_equal(out$n_tokens, c(1L, 2L))
  expect_equal(out$logp, c(-1, -1.5 - 1.5))
  expect_true(all(is.na(out$error)))
})

test_that("generated tokens are left out when max_tokens > 0", {
  gen_reply <- function(body, n) {
    echo_completion(paste0(body$prompt, " extra"), generated = 1L)
  }
  server <- local_fake_openai(gen_reply)
  out <- query_logprobs(fake_chat(server), "Q\n", "yes", max_tokens = 1, settings = no_cache)
  expect_equal(out$logp, -1.5)
  expect_identical(server$requests()[[1]]$max_tokens, 1L)
})

test_that("a failed request leaves NA and its error; the other pairs are kept", {
  fail_reply <- function(body, n) {
    if (grepl("^broken", body$prompt)) return(list(status = 400))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(fail_reply)
  dir <- withr::local_tempdir()
  out <- query_logprobs(fake_chat(server), c("fine\n", "broken\n"), "yes",
                        settings = request_settings(cache = dir, retry = list(max_tries = 1)))
  expect_equal(out$logp[[1]], -1.5)
  expect_true(is.na(out$logp[[2]]))
  expect_match(out$error[[2]], "400|fake error")
  # Only the successful requests were cached.
  expect_length(list.files(dir, pattern = "\\.rds$", recursive = TRUE), 2)
})

test_that("an endpoint without prompt log-probabilities stops the call, saying why", {
  server <- local_fake_openai(function(body, n) "plain text")
  err <- expect_error(query_logprobs(fake_chat(server), c("Q\n", "R\n"), "yes",
                                     settings = no_cache),
                      class = "predictivebench_error_logprobs_unsupported")
  expect_match(conditionMessage(err), "no echoed token log-probabilities", fixed = TRUE)
  # echo, vLLM's prompt_logprobs, the chat endpoint: no query
  expect_equal(server$count(), 3)
})

test_that("an endpoint that does not echo the context says so, not a token count", {
  # It answers every text with the one token "True", as if the prompt were not echoed: the
  # probe refuses it (its tokens do not spell the prompt), and with span_check = FALSE
  # each pair says what is missing.
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt, tokens = "True"))
  expect_error(query_logprobs(fake_chat(server), "Is it on?\nAnswer:\n", "True",
                              settings = no_cache),
               "do not spell the prompt", class = "predictivebench_error_logprobs_broken")
  out <- query_logprobs(fake_chat(server), "Is it on?\nAnswer:\n", "True", settings = no_cache,
                        span_check = FALSE)
  expect_true(is.na(out$logp))
  expect_no_match(out$error, "has 1 tokens but the full text has 1", fixed = TRUE)
  expect_match(out$error, "echoed 1 token(s) for context + query and 1 for the query \"True\"",
               fixed = TRUE)
  expect_match(out$error, "does not echo the prompt", fixed = TRUE)
  expect_match(out$error, "backend = \"chat\"", fixed = TRUE)
})

test_that("the completions backend needs a chat; arguments are checked", {
  expect_error(query_logprobs(NULL, "a", "b"), class = "predictivebench_error_argument")
  chat <- ellmer::chat_openai_compatible(base_url = "http://x/v1", model = "m",
                                         credentials = function() "k")
  expect_error(query_logprobs(chat, c("a", "b", "c"), c("x", "y")),
               class = "predictivebench_error_argument")
  expect_error(query_logprobs(chat, "a", NA_character_),
               class = "predictivebench_error_argument")
  expect_error(query_logprobs(NULL, "a", "b", backend = "chat"),
               class = "predictivebench_error_argument")
})

test_that("the endpoint is the chat's: its base URL, model, key and headers", {
  server <- local_fake_openai(echo_reply)
  chat <- ellmer::chat_openai_compatible(base_url = paste0(server$url, "/"), model = "m2",
                                         credentials = function() "sk-other",
                                         api_headers = c(`x-route` = "eu"))
  endpoint <- logprob_endpoint(chat)
  expect_identical(endpoint$base_url, server$url)  # without the trailing slash
  expect_identical(endpoint$model, "m2")
  expect_identical(endpoint$credentials(), "sk-other")
  expect_identical(endpoint$headers, c(`x-route` = "eu"))
  out <- query_logprobs(chat, "Q:\n", "True", settings = no_cache)
  expect_equal(out$logp, -2)
  expect_identical(server$requests()[[1]]$model, "m2")
})

test_that("a 429 is retried and then scored", {
  flaky_reply <- function(body, n) {
    if (n == 1) return(list(status = 429, headers = list(`retry-after` = "0")))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(flaky_reply)
  out <- query_logprobs(fake_chat(server), "Q\n", "yes",
                        settings = request_settings(cache = FALSE, max_active = 1))
  expect_equal(out$logp, -1.5)
  expect_equal(server$count(), 3)
})

test_that("a word-start mark only at the start of a text is not a span mismatch", {
  # SentencePiece-like: words carry "\u2581" for a preceding space, and the first word of a
  # text gets one too; the gpt-like model marks with " " instead. "\n" is its own token.
  sp_reply <- function(body, n) {
    mark <- if (identical(body$model, "gpt-like")) " " else "\u2581"
    tokens <- echo_tokenize(body$prompt, "\n| ?[^ \n]+")
    tokens <- sub("^ ", mark, tokens)
    if (tokens[[1]] != "\n" && !startsWith(tokens[[1]], mark)) {
      tokens[[1]] <- paste0(mark, tokens[[1]])
    }
    echo_completion(body$prompt, tokens)
  }
  server <- local_fake_openai(sp_reply)
  for (model in c("sp-like", "gpt-like")) {
    chat <- fake_chat(server, model = model)
    out <- query_logprobs(chat, "Answer:\n", c("True", "very true"), settings = no_cache)
    # Alone: "\u2581True" / "\u2581very" "\u2581true"; after "\n": "True" / "very" "\u2581true".
    expect_true(all(is.na(out$error)))
    expect_equal(out$tokens[[1]], "True")
    expect_equal(out$logp, c(-2, -2 - 2.5))
    expect_equal(out$n_tokens, c(1L, 2L))
    # A real mismatch is still reported: "un" + "true" is one token, "untrue".
    bad <- query_logprobs(chat, "Say: un", "true", settings = no_cache)
    expect_true(is.na(bad$logp))
    expect_match(bad$error, "do not spell the query")
  }
  # The span may not drop a space: " True" in the text for "True" alone (GPT-2-like BPE)
  # is the text's space merged with the query; nor may the query's own leading space go.
  expect_false(same_span(" True", "True", "True"))
  expect_true(same_span("True", " True", "True"))
  expect_false(same_span("True", " True", " True"))
  expect_true(same_span(c("very", "\u2581true"), c("\u2581very", "\u2581true"), "very true"))
  expect_false(same_span(c("ver", "y\u2581true"), c("\u2581very"), "very true"))
})

# Input tokens ellmer's session usage holds for one provider/model.
session_input_tokens <- function(provider, model) {
  usage <- suppressMessages(ellmer::token_usage())
  sum(usage$input[usage$provider == provider & usage$model == model])
}

test_that("every completions request is counted once, in the result and in ellmer's usage", {
  server <- local_fake_openai(echo_reply)
  chat <- fake_chat(server, model = "usage-lm")
  before <- session_input_tokens("OpenAI-compatible", "usage-lm")
  cache <- withr::local_tempdir()
  prefix <- c("Q one:\n", "Q two:\n")
  out <- query_logprobs(chat, rep(prefix, each = 2), c("True", "False"),
                        settings = request_settings(cache = cache))
  # Every echoed token is a prompt token: four full texts and two queries alone, the query
  # alone counted on the first pair that needs it.
  sent <- vapply(server$requests(), function(b) length(echo_tokenize(b$prompt)), 1)
  expect_length(sent, 6)
  expect_equal(sum(out$input_tokens), sum(sent))
  expect_equal(out$input_tokens[[3]], length(echo_tokenize("Q two:\nTrue")))
  expect_equal(out$input_tokens[[1]], length(echo_tokenize("Q one:\nTrue")) + 1)
  expect_equal(out$output_tokens, rep(0, 4))
  expect_true(all(is.na(out$cost)))
  expect_equal(session_input_tokens("OpenAI-compatible", "usage-lm") - before, sum(sent))
  # From the cache: nothing sent, nothing counted.
  again <- query_logprobs(chat, rep(prefix, each = 2), c("True", "False"),
                          settings = request_settings(cache = cache))
  expect_true(all(again$cached))
  expect_equal(again$input_tokens, rep(0, 4))
  expect_equal(again$cost, rep(0, 4))
  expect_equal(session_input_tokens("OpenAI-compatible", "usage-lm") - before, sum(sent))
})

# ---- through the one request pool --------------------------------------------------------

test_that("a 429 is sent again after the server's retry-after, and scored", {
  flaky_reply <- function(body, n) {
    if (n == 1) return(list(status = 429, headers = list(`retry-after` = "0")))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(flaky_reply)
  # backoff = 60: a retry that ignored the server's retry-after would wait a minute.
  settings <- request_settings(cache = FALSE, max_active = 1, retry = list(backoff = 60))
  out <- query_logprobs(fake_chat(server), "Q\n", "yes", settings = settings)
  expect_equal(out$logp, -1.5)
  expect_equal(server$count(), 3)
})

test_that("a 5xx is retried up to max_tries; a 400 is sent once, with the provider's words", {
  reply <- function(body, n) {
    if (grepl("^down", body$prompt)) return(list(status = 503))
    if (grepl("^bad", body$prompt)) return(list(status = 400))
    if (n == 1) return(list(status = 502))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(reply)
  settings <- request_settings(cache = FALSE, max_active = 1, retry = list(max_tries = 2, backoff = 0))
  out <- query_logprobs(fake_chat(server), "fine\n", "yes", settings = settings)
  expect_equal(out$logp, -1.5)
  expect_equal(server$count(), 3)  # the 502, its retry, the query alone
  before <- server$count()
  # the first text (the probe) is answered; the others fail each on its own
  out <- query_logprobs(fake_chat(server), c("ok\n", "down\n", "bad\n"), "yes",
                        settings = settings)
  prompts <- vapply(server$requests()[-seq_len(before)], function(b) b$prompt, "")
  expect_equal(sum(prompts == "down\nyes"), 2)  # max_tries
  expect_equal(sum(prompts == "bad\nyes"), 1)   # not transient: sent once
  expect_equal(out$logp[[1]], -1.5)
  expect_match(out$error[[2]], "Gave up after 2 tries", fixed = TRUE)
  expect_match(out$error[[2]], "HTTP 503 Service Unavailable: fake error 503 (fake)",
               fixed = TRUE)
  expect_identical(out$error[[3]], "HTTP 400 Bad Request: fake error 400 (fake)")
})

test_that("a request that never answers is cut at the settings' deadline, and retried", {
  reply <- function(body, n) {
    if (n == 1) return(list(delay = 60))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(reply)
  settings <- request_settings(cache = FALSE, max_active = 1,
                               timeout = 1, retry = list(max_tries = 2, backoff = 0))
  out <- query_logprobs(fake_chat(server), "Q\n", "yes", settings = settings)
  expect_equal(out$logp, -1.5)
  expect_equal(server$count(), 3)
  # With one try the first request (the probe) fails with the deadline's message, and the
  # call stops there: a server that does not answer is sent nothing else.
  server <- local_fake_openai(function(body, n) list(delay = 60))
  one <- request_settings(cache = FALSE, timeout = 1, retry = list(max_tries = 1))
  err <- expect_error(query_logprobs(fake_chat(server), c("Q\n", "R\n"), "yes", settings = one),
                      class = "predictivebench_error_logprobs_probe")
  expect_match(conditionMessage(err), "Timed out: no answer within the deadline of 1 s",
               fixed = TRUE)
  expect_equal(server$count(), 1)
})

test_that("a redirect is not followed and not retried: the other origin gets nothing", {
  bystander <- local_fake_bystander()
  for (status in c(307L, 308L)) {
    redirect <- local_fake_redirect(bystander$origin, status = status)
    chat <- ellmer::chat_openai_compatible(base_url = redirect$url, model = "fake-model",
                                           credentials = function() "secret-key")
    err <- expect_error(query_logprobs(chat, "The secret text\n", "yes",
                                       settings = request_settings(cache = FALSE, retry = list(backoff = 0))),
                        class = "predictivebench_error_logprobs_probe")
    expect_match(conditionMessage(err),
                 paste0("HTTP ", status, " [A-Za-z ]+ to http://127.0.0.1:[0-9]+: ",
                        "not followed"))
    expect_equal(redirect$count(), 1)  # the probe, once: nothing else is sent
  }
  expect_equal(bystander$count(), 0)
})

test_that("a refused key (401) stops the run at once with predictivebench_error_auth", {
  server <- local_fake_openai(function(body, n) list(status = 401))
  dir <- withr::local_tempdir()
  settings <- request_settings(cache = dir, max_active = 1)
  expect_error(
    query_logprobs(fake_chat(server), paste0("Q", 1:5, "\n"), "yes", settings = settings),
    class = "predictivebench_error_auth"
  )
  expect_equal(server$count(), 1)
  err <- tryCatch(
    query_logprobs(fake_chat(server), paste0("Q", 1:5, "\n"), "yes", settings = settings),
    error = identity
  )
  expect_match(conditionMessage(err), "fake error 401", fixed = TRUE)
  expect_match(conditionMessage(err), paste("OpenAI-compatible completions at", server$url),
               fixed = TRUE)
  # the first request (the probe) was refused: nothing else was sent
  expect_match(conditionMessage(err), "Stopped after 1 request", fixed = TRUE)
  expect_no_match(conditionMessage(err), "FAKEKEY", fixed = TRUE)
})

# A /v1/completions server that counts the requests it holds at once: each is answered after
# `delay` seconds, and /__peak gives the most it held together.
local_peak_server <- function(delay, .local_envir = parent.frame()) {
  app <- webfakes::new_app()
  app$use(webfakes::mw_json())
  app$locals$active <- 0L
  app$locals$peak <- 0L
  app$locals$delay <- delay
  app$post("/v1/completions", function(req, res) {
    locals <- req$app$locals
    if (is.null(res$locals$held)) {
      res$locals$held <- TRUE
      locals$active <- locals$active + 1L
      locals$peak <- max(locals$peak, locals$active)
      return(res$delay(locals$delay))
    }
    locals$active <- locals$active - 1L
    tokens <- regmatches(req$json$prompt, gregexpr("\n| ?[^ \n]+", req$json$prompt))[[1]]
    res$send_json(list(
      choices = list(list(index = 0L, text = req$json$prompt, logprobs = list(
        tokens = as.list(tokens),
        token_logprobs = c(list(NULL), as.list(-nchar(tokens[-1]) / 2))
      ))),
      usage = list(prompt_tokens = length(tokens), completion_tokens = 0L)
    ), auto_unbox = TRUE, null = "null")
  })
  app$get("/__peak", function(req, res) {
    res$send_json(list(peak = req$app$locals$peak), auto_unbox = TRUE)
  })
  proc <- webfakes::new_app_process(app, opts = webfakes::server_opts(num_threads = 16))
  withr::defer(proc$stop(), envir = .local_envir)
  origin <- sub("/$", "", proc$url())
  list(url = paste0(origin, "/v1"),
       peak = function() jsonlite::fromJSON(paste0(origin, "/__peak"))$peak)
}

test_that("the server never holds more than max_active requests at once, and does hold that many", {
  server <- local_peak_server(delay = 0.3)
  prefixes <- paste0("Question ", 1:8, "\n")
  chat <- ellmer::chat_openai_compatible(base_url = server$url, model = "m",
                                         credentials = function() "k")
  out <- query_logprobs(chat, prefixes, "yes",
                        settings = request_settings(cache = FALSE, max_active = 3, rpm = Inf))
  expect_equal(out$logp, rep(-1.5, 8))
  expect_equal(server$peak(), 3)
})

test_that("batch = TRUE is ignored for log-probabilities, with one message", {
  rm(list = ls(the_informed), envir = the_informed)
  server <- local_fake_openai(echo_reply)
  settings <- request_settings(cache = FALSE, batch = TRUE)
  expect_message(out <- query_logprobs(fake_chat(server), "Q:\n", "True", settings = settings),
                 "never batched", class = "predictivebench_message_once")
  expect_equal(out$logp, -2)
  expect_equal(server$count(), 2)
  expect_no_message(query_logprobs(fake_chat(server), "Q:\n", "True", settings = settings))
})

test_that("completions cache keys are those of earlier versions: existing caches stay valid", {
  # The key of this request as predictivebench 0.1.0 wrote it (before the pool sent it);
  # the API key is in no key.
  for (key in c("sk-a", "sk-x")) {
    endpoint <- logprob_endpoint(ellmer::chat_openai_compatible(
      base_url = "http://localhost:8000/v1/", model = "gpt2", credentials = function() key
    ))
    expect_identical(completion_key(endpoint, "Answer:\nTrue", 0),
                     "255d72ba8b673b61735f3e41b68de7a566d12fdffa9654acbf4a30de80fded4a")
  }
})
