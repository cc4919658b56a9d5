# R/transport.R: the fast path over curl sends and reads what ellmer's own path does; other
# chats go through ellmer's $chat_async().

test_that("the fast path sends what ellmer sends and reads answers as ellmer does", {
  server <- local_fake_openai(function(body, n) {
    list(text = paste("answer to", last_user_text(body)),
         usage = list(prompt_tokens = 120L, completion_tokens = 30L))
  })
  # Providers and models in ellmer's price table, so the cost is a number.
  makers <- list(
    completions = function(...) ellmer::chat_openai_compatible(
      base_url = server$url, name = "OpenAI", model = "gpt-4.1-nano", ...,
      credentials = function() "sk-test"),
    responses = function(...) ellmer::chat_openai(
      base_url = server$url, model = "gpt-4.1-nano", ..., credentials = function() "sk-test"),
    anthropic = function(...) ellmer::chat_anthropic(
      base_url = server$url, model = "claude-3-5-haiku-latest", ...,
      credentials = function() "sk-ant-test")
  )
  for (kind in names(makers)) {
    chat <- makers[[kind]](system_prompt = "Be brief.",
                           params = ellmer::params(temperature = 0.3, max_tokens = 50),
                           api_args = list(metadata = list(run = "bench")))
    chat$set_turns(list(
      ellmer::UserTurn(contents = list(ellmer::ContentText("earlier"))),
      ellmer::AssistantTurn(contents = list(ellmer::ContentText("earlier answer")))
    ))
    prompts <- list("plain \"quoted\" \u00e9\n", list("two", "parts"))
    expect_true(uses_fast_path(chat))
    before <- server$count()
    ours <- generate_responses(chat, prompts, cache = FALSE, max_active = 1)
    theirs <- lapply(prompts, function(p) {
      x <- chat$clone()
      do.call(x$chat, c(as.list(p), echo = "none"))
      x$last_turn()
    })
    bodies <- server$requests()[before + 1:4]
    expect_equal(bodies[1:2], bodies[3:4], info = kind)
    expect_equal(bodies[[1]]$metadata$run, "bench", info = kind)
    for (i in 1:2) {
      turn <- ours$chat[[i]]$last_turn()
      expect_equal(turn@contents, theirs[[i]]@contents, info = kind)
      expect_equal(turn@tokens, theirs[[i]]@tokens, info = kind)
      expect_equal(turn@cost, theirs[[i]]@cost, info = kind)
      expect_equal(turn@finish_reason, theirs[[i]]@finish_reason, info = kind)
    }
    expect_equal(ours$result[[1]], "answer to plain \"quoted\" \u00e9\n", info = kind)
    if (kind != "anthropic") expect_gt(ours$cost[[1]], 0)
  }
})

test_that("chats the fast path does not cover go through ellmer's own $chat_async()", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  for (chat in list(with_idle_tool(fake_responses_chat(server)),
                    with_idle_tool(fake_anthropic_chat(server)))) {
    expect_false(uses_fast_path(chat))
    res <- generate_responses(chat, c("a", "b"), cache = dir)
    expect_equal(res$result, c("answer to a", "answer to b"))
    expect_equal(res$input_tokens, c(10, 10))
    again <- generate_responses(chat, c("a", "b"), cache = dir)
    expect_true(all(again$cached))
  }
  expect_equal(server$count(), 4)
})
