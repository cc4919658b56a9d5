# Knowing the server before paying for it, at servers that answer like the real ones
# (helper-server-*.R), through real HTTP: the first request learns what the endpoint gives,
# and answers that can't be a model's stop the run before anything is scored.

no_cache <- request_settings(cache = FALSE)

sample_task <- function(solver = probsem_solver(settings = no_cache)) {
  probsem_task(probsem_dataset(version = "sample"), solver = solver,
               dir = withr::local_tempdir(.local_envir = parent.frame()))
}

tf_chat <- function(body, n) list(text = "True", alternatives = c(True = -0.5, False = -1.5))

test_that("at a chat-only server probsem stops after 2 requests, naming the chat backend", {
  server <- local_fake_ollama(chat = tf_chat, chat_logprobs = TRUE)
  tsk <- sample_task()
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server, model = "qwen3:0.6b"),
                               view = FALSE),
                      class = "predictivebench_error_logprobs_unsupported")
  # one completions request (404) and one chat request, not the 20 of the sample
  expect_lte(server$count(), 3)
  expect_equal(server$count(), 2)
  expect_match(conditionMessage(err), "has no completions endpoint", fixed = TRUE)
  expect_match(conditionMessage(err), "use `backend = \"chat\"`", fixed = TRUE)
  expect_match(conditionMessage(err), "HTTP 404", fixed = TRUE)
  expect_true(err$chat_logprobs)
})

test_that("the chat backend, when asked, runs at the chat-only server", {
  server <- local_fake_ollama(chat = tf_chat, chat_logprobs = TRUE)
  tsk <- sample_task(probsem_solver(backend = "chat", settings = no_cache))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  s <- tsk$get_samples()
  truth <- s$suite == "truth"
  expect_equal(s$solver_metadata[[which(truth)[[1]]]]$logp, c(-0.5, -1.5))
  expect_equal(s$result[truth], rep("True", 3))
  # one request per distinct prefix, no completions request
  expect_equal(server$count(), 6)
  expect_false(any(vapply(server$requests(), function(b) !is.null(b$prompt), TRUE)))
})

test_that("a server without log-probabilities anywhere says so after 3 requests", {
  server <- local_fake_ollama(completions = "ignore", chat_logprobs = FALSE)
  tsk <- sample_task()
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_error_logprobs_unsupported")
  expect_equal(server$count(), 3)
  expect_match(conditionMessage(err), "gives no log-probabilities of the prompt's tokens")
  expect_match(conditionMessage(err), "chat endpoint gives no log-probabilities either")
  expect_false(err$chat_logprobs)
  # echo, then vLLM's prompt_logprobs, then the chat endpoint
  bodies <- server$requests()
  expect_true(bodies[[1]]$echo)
  expect_equal(bodies[[2]]$prompt_logprobs, 0L)
  expect_true(bodies[[3]]$logprobs)
})

test_that("mainline llama-server (echo ignored) is told apart from a chat-only one", {
  server <- local_fake_llamacpp(chat = tf_chat, echo = "ignored")
  err <- expect_error(query_logprobs(fake_chat(server), c("Q:\n", "R:\n"), "True",
                                     settings = no_cache),
                      class = "predictivebench_error_logprobs_unsupported")
  expect_equal(server$count(), 3)
  expect_match(conditionMessage(err), "use `backend = \"chat\"`", fixed = TRUE)
})

test_that("at a broken-echo server (every prompt token 0.0) probsem stops before scoring", {
  server <- local_fake_llamacpp()
  tsk <- sample_task()
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_error_logprobs_broken")
  # the probe, sent again up to max_tries (3) times: one broken answer may be one replica's
  expect_equal(server$count(), 3)
  expect_match(conditionMessage(err), "same log-probability (0)", fixed = TRUE)
})

# A load-balanced server of which one replica echoes 0.0 for every token: the first attempt
# at every second text is answered by it, the others (and every retry) by a right one. Each
# text's attempts are counted in the server's process.
local_fake_balanced <- function(.local_envir = parent.frame()) {
  local_fake_openai(local({
    attempts <- new.env()
    order <- new.env()
    function(body, n) {
      text <- body$prompt
      attempts[[text]] <- (attempts[[text]] %||% 0L) + 1L
      if (is.null(order[[text]])) order[[text]] <- length(ls(order)) + 1L
      broken <- attempts[[text]] == 1L && order[[text]] %% 2L == 0L
      echo_completion(text, logprobs = if (broken) 0 else -nchar(echo_tokenize(text)) / 2)
    }
  }), .local_envir = .local_envir)
}

test_that("a load-balanced server with one broken replica: each broken answer is sent again, and the scores are right", {
  settings <- request_settings(cache = FALSE, retry = list(backoff = 0))
  right <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  balanced <- local_fake_balanced()
  runs <- lapply(list(right, balanced), function(server) {
    tsk <- sample_task(probsem_solver(settings = settings))
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk$get_samples()
  })
  logp <- lapply(runs, function(s) lapply(s$solver_metadata, `[[`, "logp"))
  expect_equal(logp[[2]], logp[[1]])
  expect_false(anyNA(unlist(logp[[2]])))
  # every second text was sent again (a query of one token alone has no scored token: its
  # echo is not used for a score, and is not told apart)
  expect_gt(balanced$count(), right$count() + 5)
})

test_that("an answer that stays broken is a failed request: NA with its error, never cached", {
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, retry = list(backoff = 0, max_tries = 2))
  server <- local_fake_openai(function(body, n) {
    echo_completion(body$prompt, logprobs = if (grepl("^Bad", body$prompt)) 0 else
      -nchar(echo_tokenize(body$prompt)) / 2)
  })
  out <- query_logprobs(fake_chat(server), c("Good one:\n", "Bad one:\n"), " yes",
                        settings = settings)
  expect_false(is.na(out$logp[[1]]))
  expect_true(is.na(out$logp[[2]]))
  expect_match(out$error[[2]], "Gave up after 2 tries")
  expect_match(out$error[[2]], "0.0, which is not a model's", fixed = TRUE)
  sent <- server$count()
  expect_equal(sent, 1 + 2 + 1)  # the good text, the bad one twice, the query alone
  # a rerun asks again only for the broken one
  again <- query_logprobs(fake_chat(server), c("Good one:\n", "Bad one:\n"), " yes",
                          settings = settings)
  expect_equal(server$count(), sent + 2)
  expect_equal(again$logp[[1]], out$logp[[1]])
})

test_that("echoed tokens that do not spell the prompt, or broken offsets, are refused", {
  # a server that echoes another text's tokens than the prompt's
  server <- local_fake_openai(function(body, n) {
    echo_completion(body$prompt, tokens = echo_tokenize(toupper(body$prompt)))
  })
  err <- expect_error(query_logprobs(fake_chat(server), "Is it on?\n", "yes",
                                     settings = no_cache),
                      class = "predictivebench_error_logprobs_broken")
  expect_match(conditionMessage(err), "do not spell the prompt")
  # offsets with a gap
  server <- local_fake_openai(function(body, n) {
    out <- echo_completion(body$prompt)
    k <- length(out$json$choices[[1]]$logprobs$tokens)
    out$json$choices[[1]]$logprobs$text_offset <- c(list(0L, NULL), as.list(seq_len(k - 2)))
    out
  })
  err <- expect_error(query_logprobs(fake_chat(server), "Is it on?\n", "yes",
                                     settings = no_cache),
                      class = "predictivebench_error_logprobs_broken")
  expect_match(conditionMessage(err), "text offsets that are missing or out of order")
  expect_equal(server$count(), 1)
})

# The sample's scores, by hand: each token -nchar(token) / 2, queries of one token.
by_hand <- function(query) -nchar(query) / 2

test_that("at a vLLM-like server the numbers are those by hand, through echo or prompt_logprobs", {
  rm(list = ls(the_informed), envir = the_informed)
  runs <- list(
    echo = local_fake_vllm(),
    prompt_logprobs = local_fake_vllm(echo = FALSE),
    bos = local_fake_vllm(bos = "<s>")
  )
  for (route in names(runs)) {
    server <- runs[[route]]
    tsk <- sample_task()
    expect_message(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                   if (route == "prompt_logprobs") "prompt_logprobs" else "echoes prompt",
                   class = "predictivebench_message_once")
    m <- tsk$get_samples()$solver_metadata
    expect_equal(m[[1]]$logp, by_hand(c("A", "B", "C")), label = route)
    expect_equal(m[[4]]$logp, by_hand(c("True", "False")), label = route)
    expect_equal(m[[4]]$n_tokens, c(1L, 1L))
    # 15 full texts and 5 queries alone; the failed echo probe once more with prompt_logprobs
    expect_equal(server$count(), 20 + (route == "prompt_logprobs"), label = route)
  }
  expect_true(all(vapply(runs$prompt_logprobs$requests()[-1],
                         function(b) identical(b$prompt_logprobs, 0L), TRUE)))
})

test_that("at OpenAI's legacy completions the numbers are those by hand, no extra request", {
  server <- local_fake_openai_legacy(logprobs = function(tokens, text) -nchar(tokens) / 4)
  out <- query_logprobs(fake_chat(server, model = "davinci-002"),
                        "A cat sat on the", c(" mat", " very red mat"), settings = no_cache)
  # " mat" (4 characters) -1; " very" -1.25, " red" -1, " mat" -1
  expect_equal(out$logp, c(-1, -1.25 - 1 - 1))
  expect_equal(out$tokens[[2]], c(" very", " red", " mat"))
  expect_equal(server$count(), 4)
})

test_that("a vLLM that refuses max_tokens = 0 is told to use 1, and then scores", {
  server <- local_fake_vllm(min_max_tokens = 1L, chat = tf_chat)
  err <- expect_error(query_logprobs(fake_chat(server), "Q:\n", "True", settings = no_cache),
                      class = "predictivebench_error_logprobs_unsupported")
  expect_match(conditionMessage(err), "max_tokens must be at least 1", fixed = TRUE)
  expect_match(conditionMessage(err), "use `max_tokens = 1`", fixed = TRUE)
  expect_equal(server$count(), 3)
  out <- query_logprobs(fake_chat(server), "Q:\n", "True", max_tokens = 1,
                        settings = no_cache)
  expect_equal(out$logp, -2)
})

test_that("a cached probe is not sent again, and a cached run sends nothing", {
  server <- local_fake_vllm()
  settings <- request_settings(cache = withr::local_tempdir())
  one <- query_logprobs(fake_chat(server), c("Q:\n", "R:\n"), "yes", settings = settings)
  expect_equal(server$count(), 3)
  two <- query_logprobs(fake_chat(server), c("Q:\n", "R:\n"), "yes", settings = settings)
  expect_equal(server$count(), 3)
  expect_equal(two$logp, one$logp)
})

test_that("spells_text() allows the spellings tokenizers give their token texts", {
  expect_true(spells_text(c("Is", " it"), "Is it"))
  expect_true(spells_text(c("<s>", "Is", " it"), "Is it"))
  expect_true(spells_text(c("\u2581Is", "\u2581it"), "Is it"))
  expect_true(spells_text(c("Is", "\u0120it", "\u010a"), "Is it\n"))
  expect_true(spells_text(c("a", "<0x0A>", "b"), "a\nb"))
  expect_false(spells_text(c("Is", " at"), "Is it"))
  expect_false(spells_text("True", "Is it\nTrue"))
  # vLLM's first prompt token has no text: it is what comes before the others
  filled <- fill_first_token(list(tokens = c(NA, " it"), logprobs = c(NA, -1)), "Is it")
  expect_equal(filled$tokens, c("Is", " it"))
})

test_that("in a set, a probsem cell at a chat-only server fails with the reason, cheaply", {
  server <- local_fake_ollama(chat = tf_chat, chat_logprobs = TRUE)
  set <- quiet_set("probsem@sample", set_chats(server, c("m1", "m2")),
                   log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()))
  expect_equal(set$status, c("failed", "failed"))
  expect_match(set$error, "has no completions endpoint")
  # one attempt each (another would meet the same server), at most 3 requests per cell
  # (the issue counted 108 for this set)
  expect_equal(set$attempts, c(1L, 1L))
  expect_lte(server$count(), 3 * 2)
})

test_that("a refusal counts the requests it sent, not those the cache answered", {
  server <- local_fake_ollama(completions = "ignore", chat_logprobs = FALSE)
  cached <- request_settings(cache = withr::local_tempdir())
  refusal <- function(solver) {
    tsk <- sample_task(solver)
    before <- server$count()
    err <- expect_error(suppressMessages(tsk$eval(solver_chat = fake_chat(server),
                                                  view = FALSE)),
                        class = "predictivebench_error_logprobs_unsupported")
    list(said = cli::ansi_strip(conditionMessage(err)), sent = server$count() - before)
  }
  # the completions backend: echo, vLLM's prompt_logprobs and the chat probe, then the two
  # refused probes again (never cached) and the chat's answer from the cache
  first <- refusal(probsem_solver(settings = cached))
  expect_equal(first$sent, 3)
  expect_match(first$said, "3 probe requests sent, no query.", fixed = TRUE)
  again <- refusal(probsem_solver(settings = cached))
  expect_equal(again$sent, 2)
  expect_match(again$said, "2 probe requests sent, no query.", fixed = TRUE)
  # the chat backend: its first request is the chat probe's, answered from the cache
  chat <- refusal(probsem_solver(backend = "chat", settings = cached))
  expect_equal(chat$sent, 0)
  expect_match(chat$said, "No request sent: its answer was in the response cache.",
               fixed = TRUE)
  expect_no_match(chat$said, "1 request sent", fixed = TRUE)
})
