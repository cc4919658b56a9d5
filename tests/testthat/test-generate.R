echo_reply <- function(body, n) {
  text <- last_user_text(body)
  if (grepl("reject", text)) return(list(status = 400))
  paste("answer to", text)
}

test_that("answers come back in order with tokens, and a second run sends nothing", {
  server <- local_fake_openai(echo_reply)
  chat <- fake_chat(server)
  dir <- withr::local_tempdir()
  prompts <- paste("question", 1:6)
  first <- generate_responses(chat, prompts, cache = dir, max_active = 3)
  expect_equal(first$result, paste("answer to", prompts))
  expect_equal(first$input_tokens, rep(10, 6))
  expect_equal(first$output_tokens, rep(5, 6))
  expect_false(any(first$cached))
  expect_equal(server$count(), 6)

  second <- generate_responses(chat, prompts, cache = dir)
  expect_equal(server$count(), 6)
  expect_true(all(second$cached))
  expect_equal(second$result, first$result)
  expect_equal(second$chat[[2]]$last_turn()@text, "answer to question 2")
})

test_that("cache = FALSE sends every time; a different model is a different request", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  generate_responses(fake_chat(server), "q", cache = FALSE)
  generate_responses(fake_chat(server), "q", cache = FALSE)
  expect_equal(server$count(), 2)
  generate_responses(fake_chat(server, model = "a"), "q", cache = dir)
  generate_responses(fake_chat(server, model = "b"), "q", cache = dir)
  expect_equal(server$count(), 4)
})

test_that("one failing request leaves the others scored", {
  server <- local_fake_openai(echo_reply)
  res <- generate_responses(fake_chat(server), c("a", "reject me", "c"), cache = FALSE,
                            backoff = 0)
  expect_equal(res$result[c(1, 3)], c("answer to a", "answer to c"))
  expect_true(is.na(res$result[[2]]))
  expect_match(res$error[[2]], "400")
  expect_true(all(is.na(res$error[c(1, 3)])))
  # a client error is not retried
  expect_equal(server$count(), 3)
})

test_that("transient errors are retried until they succeed", {
  server <- local_fake_openai(function(body, n) {
    if (n <= 2) list(status = 500) else if (n == 3) {
      list(status = 429, headers = list(`retry-after` = "0"))
    } else "fine"
  })
  res <- generate_responses(fake_chat(server), "q", cache = FALSE, backoff = 0, max_tries = 4)
  expect_equal(res$result, "fine")
  expect_equal(server$count(), 4)
})

test_that("repeated prompts are distinct epochs, each cached", {
  server <- local_fake_openai(function(body, n) paste0("vote ", n))
  dir <- withr::local_tempdir()
  res <- generate_responses(fake_chat(server), rep("same", 3), cache = dir, max_active = 1)
  expect_setequal(res$result, paste("vote", 1:3))
  again <- generate_responses(fake_chat(server), rep("same", 3), cache = dir)
  expect_equal(again$result, res$result)
  expect_equal(server$count(), 3)
})

test_that("configure_chat overrides parameters and system prompt in the request", {
  server <- local_fake_openai(echo_reply)
  chat <- configure_chat(fake_chat(server), "Be exact.", list(temperature = 0))
  generate_responses(chat, "q", cache = FALSE)
  body <- server$requests()[[1]]
  expect_equal(body$temperature, 0)
  expect_equal(body$messages[[1]]$role, "system")
  expect_equal(body$messages[[1]]$content, "Be exact.")
  # the original chat is untouched
  original <- fake_chat(server)
  configure_chat(original, params = list(temperature = 0.7))
  expect_null(original$get_model_object()@params$temperature)
})

test_that("an interrupted run resumes: killed mid-run, it sends only what is missing", {
  skip_on_cran()
  server <- local_fake_openai(echo_reply, latency = 0.3)
  dir <- withr::local_tempdir()
  prompts <- paste("item", 1:12)
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(testthat::test_path("..", ".."))),
    sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
             credentials = function() 'k')", deparse(server$url)),
    sprintf("generate_responses(chat, %s, cache = %s, max_active = 1)",
            paste(deparse(prompts), collapse = ""), deparse(dir))
  ), script)
  child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                 stdout = "|", stderr = "|")
  deadline <- Sys.time() + 60
  while (server$count() < 4 && Sys.time() < deadline) Sys.sleep(0.1)
  child$kill()
  sent_before <- server$count()
  expect_gte(sent_before, 4)
  expect_lt(sent_before, 12)
  done <- length(list.files(dir, recursive = TRUE, pattern = "\\.rds$"))
  expect_gte(done, sent_before - 1)

  res <- generate_responses(fake_chat(server), prompts, cache = dir)
  expect_equal(res$result, paste("answer to", prompts))
  expect_equal(server$count() - sent_before, 12 - done)
  expect_equal(sum(res$cached), done)
})

test_that("API keys never reach the cache", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  generate_responses(fake_chat(server, key = "sk-SECRET-KEY-123"), "q", cache = dir)
  files <- list.files(dir, recursive = TRUE, full.names = TRUE)
  expect_length(files, 1)
  bytes <- readBin(files, "raw", file.size(files))
  expect_length(grepRaw("answer to q", bytes, fixed = TRUE), 1)
  expect_length(grepRaw("sk-SECRET-KEY-123", bytes, fixed = TRUE), 0)
})

test_that("generate_solver runs in a vitals Task and records failures per sample", {
  server <- local_fake_openai(echo_reply)
  ds <- tibble::tibble(input = c("a", "reject", "c"), target = "x")
  tsk <- vitals::Task$new(
    dataset = ds, solver = generate_solver(cache = FALSE, backoff = 0),
    scorer = function(samples, ...) {
      list(score = factor(ifelse(is.na(samples$result), "I", "C"), c("I", "C"), ordered = TRUE))
    },
    dir = withr::local_tempdir()
  )
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  expect_equal(samples$result[c(1, 3)], c("answer to a", "answer to c"))
  expect_match(samples$solver_metadata[[2]]$error, "400")
  expect_equal(samples$solver_metadata[[1]]$input_tokens, 10)
  expect_length(list.files(tsk$dir, pattern = "\\.json$"), 1)
})

test_that("tokens are summed over a request's tool-call rounds, not earlier turns", {
  server <- local_fake_openai(function(body, n) {
    last <- body$messages[[length(body$messages)]]
    if (identical(last$role, "tool")) {
      return(list(text = paste("Looked up:", last$content),
                  usage = list(prompt_tokens = 11L, completion_tokens = 5L)))
    }
    if (!grepl("look it up", last_user_text(body))) {
      return(list(text = "plain", usage = list(prompt_tokens = 2L, completion_tokens = 1L)))
    }
    list(json = list(
      id = paste0("c", n), object = "chat.completion", created = 0L, model = "fake",
      choices = list(list(index = 0L, finish_reason = "tool_calls", message = list(
        role = "assistant", content = NULL,
        tool_calls = list(list(id = paste0("call", n), type = "function", `function` = list(
          name = "lookup", arguments = '{"key": "x"}'
        )))
      ))),
      usage = list(prompt_tokens = 7L, completion_tokens = 3L, total_tokens = 10L)
    ))
  })
  # A system prompt and an earlier exchange (1000 tokens each way) the request must not count.
  chat <- fake_chat(server, system_prompt = "Be brief.")
  chat$set_turns(list(
    ellmer::UserTurn(contents = list(ellmer::ContentText("earlier"))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("earlier answer")),
                          tokens = c(1000, 1000, 0), cost = 1)
  ))
  chat$register_tool(ellmer::tool(function(key) "42", name = "lookup",
                                  description = "Look a key up.",
                                  arguments = list(key = ellmer::type_string())))
  res <- generate_responses(chat, c("look it up", "just answer"), cache = FALSE)
  expect_equal(res$result, c("Looked up: 42", "plain"))
  expect_equal(server$count(), 3)
  expect_equal(res$input_tokens, c(7 + 11, 2))
  expect_equal(res$output_tokens, c(3 + 5, 1))
  # The logged answer turn carries the request's total, so vitals' usage agrees.
  expect_equal(unname(res$chat[[1]]$last_turn()@tokens[1:2]), c(18, 8))

  # Cost: the sum over the request's assistant turns; the earlier turn's cost is left out.
  turns <- list(
    ellmer::UserTurn(contents = list(ellmer::ContentText("earlier"))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("a")), tokens = c(100, 100, 0),
                          cost = 1),
    ellmer::UserTurn(contents = list(ellmer::ContentText("now"))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("calls a tool")),
                          tokens = c(7, 3, 0), cost = 0.25),
    ellmer::UserTurn(contents = list(ellmer::ContentText("tool result"))),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("done")), tokens = c(11, 5, 2),
                          cost = 0.5)
  )
  x <- fake_chat(server, system_prompt = "Be brief.")$set_turns(turns)
  usage <- request_usage(x, n_before = 3)  # the system prompt and the earlier exchange
  expect_equal(unname(usage$tokens), c(18, 8, 2))
  expect_equal(usage$cost, 0.75)
})
