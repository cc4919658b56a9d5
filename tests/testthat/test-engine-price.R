# The dry run as the engine holds it, and its pricing (R/engine-price.R): requests the engine
# answered in a dry run, priced and folded into running totals a chunk at a time. The task side
# is test-results-estimate-cost.R.

test_that("a dry run answers run_requests() where it would send, and sends nothing", {
  server <- local_set_server()
  context <- new_dry_run(answer = "\\boxed{Z}")
  res <- with_request_session(
    new_request_session(price = context),
    run_requests(list(fake_chat(server)), c(1L, 1L, 1L), list("a", "b", "a"),
                 request_settings(cache = FALSE), progress = FALSE)
  )
  expect_equal(server$count(), 0)
  expect_equal(res$result, rep("\\boxed{Z}", 3))
  # one template for the one chat; each prompt's text kept for counting in bulk
  expect_length(context$templates, 1)
  texts <- unlist(lapply(context$chunks, `[[`, "texts"))
  expect_setequal(texts, c("a", "b"))
})

test_that("log-probability requests are answered by the caller's reader, and counted", {
  context <- new_dry_run()
  kept <- list()
  endpoint <- list(model = "m", route = "echo")
  left <- dry_run_completions(context, endpoint, c("x y", "z"), c("k1", "k2"), 1:2, 3L,
                              keep = function(i, value) kept[[i]] <<- value,
                              max_tokens = 0, read = function(body) list(seen = body))
  expect_equal(left, integer())
  expect_equal(context$hits, 3L)
  expect_length(kept, 2)
  expect_true(all(vapply(kept, function(k) is.list(k$seen), TRUE)))
  expect_equal(unlist(context$chunks[[1]]$texts), c("x y", "z"))
  # outside a dry run the requests are left to send
  expect_equal(dry_run_completions(NULL, endpoint, "x", "k", 1L, 0L, identity, 0, identity), 1L)
})

test_that("folding a dry run's requests chunk by chunk gives the totals of pricing them at once", {
  skip_if_not_installed("rtiktoken")
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "gpt-4.1",
                                         credentials = function() "unused")
  prompts <- sprintf("Question %d: what is %d + %d?", 1:6, 1:6, 6:1)
  send <- function(context, at) {
    with_dry_run_mock(context, generate_responses(chat, prompts[at],
                                                  settings = request_settings(cache = FALSE)))
  }
  once <- new_dry_run(chats = list(chat))
  send(once, 1:6)
  whole <- dry_run_row(once)
  folded <- new_dry_run(chats = list(chat))
  send(folded, 1:3)
  dry_run_fold(folded)
  # a folded chunk's texts leave the context; what it cost stays in the totals
  expect_length(folded$chunks, 0)
  expect_equal(folded$tally$n, 3L)
  send(folded, c(4:6, 1))  # a request asked again in a later chunk is sent once
  expect_equal(dry_run_row(folded), whole)
  expect_equal(whole$to_send, 6L)
  expect_equal(whole$tokens, "exact")
})
