test_that("user_turn_of() turns strings and mixed content into one user turn", {
  turn <- user_turn_of(c("a", "b"))
  expect_equal(turn@role, "user")
  expect_equal(vapply(turn@contents, function(x) x@text, ""), c("a", "b"))
  image <- ellmer::ContentImageRemote(url = "http://127.0.0.1/x.png")
  mixed <- user_turn_of(list("look", image))
  expect_true(S7::S7_inherits(mixed@contents[[1]], ellmer::ContentText))
  expect_identical(mixed@contents[[2]], image)
})

test_that("empty_turn() is an assistant turn with no text, no tokens and a reason", {
  turn <- empty_turn()
  expect_equal(turn@role, "assistant")
  expect_equal(turn@text, "")
  expect_equal(sum(turn@tokens), 0)
  expect_equal(turn@finish_reason, "error")
  expect_equal(empty_turn("not_judged")@finish_reason, "not_judged")
})

test_that("last_turn_of() is ellmer's $last_turn() for chats with and without a system prompt", {
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                         credentials = function() "unused")
  expect_null(last_turn_of(chat))
  expect_identical(last_turn_of(chat), chat$last_turn())
  answer <- ellmer::AssistantTurn(list(ellmer::ContentText("a")))
  chat$set_turns(list(user_turn_of("q"), answer))
  expect_identical(last_turn_of(chat), chat$last_turn())
  expect_identical(last_turn_of(chat), answer)
  chat$set_system_prompt("be brief")
  expect_identical(last_turn_of(chat), chat$last_turn())
  # a system prompt alone: no assistant turn
  alone <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                          system_prompt = "s", credentials = function() "x")
  expect_null(last_turn_of(alone))
  expect_identical(last_turn_of(alone), alone$last_turn())
})
