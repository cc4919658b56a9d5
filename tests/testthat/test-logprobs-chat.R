# Requests sent, nothing cached.
no_cache <- request_settings(cache = FALSE)

test_that("the chat backend reads each query's first-token log-probability", {
  chat_reply <- function(body, n) {
    top <- list(list(token = "True", logprob = -0.1), list(token = " False", logprob = -2.4),
                list(token = "Fal", logprob = -5), list(token = "false", logprob = -3),
                list(token = " True", logprob = -3.2))
    list(text = "True",
         logprobs = list(content = list(list(token = "True", logprob = -0.1,
                                             top_logprobs = top))))
  }
  server <- local_fake_openai(chat_reply)
  chat <- fake_chat(server)
  out <- query_logprobs(chat, c("Q1:\n", "Q1:\n", "Q1:\n", "Q2:\n"),
                        c("True", "False", "Maybe", "True"), backend = "chat",
                        top_logprobs = 5, settings = no_cache)
  # "True" and " True" spell the same text: their probabilities add up.
  expect_equal(out$logp[[1]], log(exp(-0.1) + exp(-3.2)))
  # " False" is the longest alternative that starts "False" ("Fal" is shorter).
  expect_equal(out$logp[[2]], -2.4)
  expect_equal(out$logp[[3]], -Inf)
  # The approximation scores one token per query, found among the alternatives or not.
  expect_equal(out$n_tokens, c(1L, 1L, 1L, 1L))
  # One request per distinct prefix, asking for log-probabilities of one token.
  expect_equal(server$count(), 2)
  body <- server$requests()[[1]]
  expect_true(isTRUE(body$logprobs))
  expect_equal(body$top_logprobs, 5)
  expect_equal(body$max_completion_tokens, 1)
  expect_match(last_user_text(body), "^Q[12]:\n$")
})

test_that("a chat endpoint without log-probabilities stops the call after one request", {
  server <- local_fake_openai(function(body, n) "True")
  dir <- withr::local_tempdir()
  err <- expect_error(query_logprobs(fake_chat(server), c("Q:\n", "R:\n"), "True",
                                     backend = "chat", settings = request_settings(cache = dir)),
                      class = "predictivebench_error_logprobs_unsupported")
  expect_match(conditionMessage(err), "answers without token log-probabilities")
  expect_equal(server$count(), 1)
  # the answer was cached: asking again sends nothing, and says the same
  expect_error(query_logprobs(fake_chat(server), c("Q:\n", "R:\n"), "True", backend = "chat",
                              settings = request_settings(cache = dir)),
               class = "predictivebench_error_logprobs_unsupported")
  expect_equal(server$count(), 1)
})

test_that("the chat backend at Ollama's endpoint, which ignores logprobs, stops at once", {
  server <- local_fake_ollama(chat = "True", chat_logprobs = FALSE)
  tsk <- probsem_task(probsem_dataset(version = "sample"),
                      solver = probsem_solver(backend = "chat",
                                              settings = request_settings(cache = FALSE)),
                      dir = withr::local_tempdir())
  expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
               class = "predictivebench_error_logprobs_unsupported")
  expect_equal(server$count(), 1)
})

test_that("top alternatives are read from chat-completions and responses bodies", {
  alt <- list(list(token = "A", logprob = -0.2), list(token = " B", logprob = -1.9))
  chat_json <- list(choices = list(list(logprobs = list(content = list(
    list(token = "A", logprob = -0.2, top_logprobs = alt))))))
  responses_json <- list(output = list(
    list(type = "reasoning", content = list()),
    list(type = "message", content = list(list(type = "output_text", text = "A",
      logprobs = list(list(token = "A", logprob = -0.2, top_logprobs = alt)))))
  ))
  for (json in list(chat_json, responses_json)) {
    top <- top_alternatives(json)
    expect_equal(top$token, c("A", " B"))
    expect_equal(first_token_logprob(top, "B")$logp, -1.9)
    expect_equal(first_token_logprob(top, "C")$logp, -Inf)
  }
  expect_error(top_alternatives(list(choices = list(list(message = "x")))),
               class = "predictivebench_error_logprobs")
})

test_that("the chat backend counts each distinct prefix's request on its first query", {
  server <- local_fake_openai(function(body, n) {
    top <- list(list(token = "True", logprob = -0.1))
    list(text = "True", usage = list(prompt_tokens = 12L, completion_tokens = 1L),
         logprobs = list(content = list(list(token = "True", logprob = -0.1,
                                             top_logprobs = top))))
  })
  out <- query_logprobs(fake_chat(server), c("A?", "A?", "B?"), c("True", "No", "True"),
                        backend = "chat", settings = no_cache)
  expect_equal(server$count(), 2)
  expect_equal(out$input_tokens, c(12, 0, 12))
  expect_equal(out$output_tokens, c(1, 0, 1))
})

test_that("answers cut at max_tokens on purpose raise no ellmer truncation warning", {
  # Every answer stops at the one token asked for, as a real endpoint reports it.
  length_reply <- function(body, n) {
    top <- list(list(token = "True", logprob = -0.5), list(token = "False", logprob = -1.5))
    list(json = list(
      id = paste0("chatcmpl-", n), object = "chat.completion", created = 0L, model = "fake",
      choices = list(list(index = 0L, message = list(role = "assistant", content = "True"),
                          logprobs = list(content = list(list(token = "True", logprob = -0.5,
                                                              top_logprobs = top))),
                          finish_reason = "length")),
      usage = list(prompt_tokens = 5L, completion_tokens = 1L, total_tokens = 6L)
    ))
  }
  server <- local_fake_openai(length_reply)
  chat <- fake_chat(server)
  # ellmer itself warns for such an answer ...
  expect_warning(chat$clone()$chat("Q:\n", echo = "none"), "max_tokens")
  # ... but not when the chat backend reads the first token on purpose.
  expect_no_warning(out <- query_logprobs(chat, c("Q1:\n", "Q2:\n"), "True",
                                          backend = "chat", settings = no_cache))
  expect_equal(out$logp, c(-0.5, -0.5))
  # Other warnings still come through.
  expect_warning(without_max_tokens_warning(warning("something else")), "something else")
})

test_that("the chat backend's requests go through the pool: retries, deadline, 401 stop", {
  alternatives <- list(content = list(list(token = "True", logprob = -0.5,
                                           top_logprobs = list(list(token = "True",
                                                                    logprob = -0.5)))))
  reply <- function(body, n) {
    if (n == 1) return(list(status = 503, headers = list(`retry-after` = "0")))
    if (n == 2) return(list(delay = 60))
    list(text = "True", logprobs = alternatives)
  }
  server <- local_fake_openai(reply)
  settings <- request_settings(cache = FALSE, timeout = 1, retry = list(max_tries = 3, backoff = 0))
  out <- query_logprobs(fake_chat(server), "Q:\n", "True", backend = "chat",
                        settings = settings)
  expect_equal(out$logp, -0.5)
  expect_equal(server$count(), 3)  # a 503, a request cut at the 1 s deadline, an answer
  refused <- local_fake_openai(function(body, n) list(status = 401))
  expect_error(
    query_logprobs(fake_chat(refused), paste0("Q", 1:4, ":\n"), "True", backend = "chat",
                   settings = request_settings(cache = FALSE, max_active = 1)),
    class = "predictivebench_error_auth"
  )
  expect_equal(refused$count(), 1)
})
