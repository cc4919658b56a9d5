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

# The turns the engine builds from prototypes (unchecked) must be the objects ellmer's own
# constructors make: a new ellmer property, or a changed default, fails here, not in a log.
test_that("turns built from prototypes are identical to ellmer's constructors' turns", {
  same <- function(ours, theirs) {
    expect_identical(ours, theirs)
    expect_identical(names(attributes(ours)), names(attributes(theirs)))
  }
  same(user_turn_of(c("a", "b")),
       ellmer::UserTurn(list(ellmer::ContentText("a"), ellmer::ContentText("b"))))
  same(empty_turn("length"),
       ellmer::AssistantTurn(list(ellmer::ContentText("")), tokens = c(0, 0, 0), cost = 0,
                             finish_reason = "length"))
  same(baseline_chat("x")$respond("q"),
       ellmer::AssistantTurn(list(ellmer::ContentText("x")), tokens = c(0, 0, 0), cost = 0,
                             duration = 0, finish_reason = "stop"))
  turns <- list(
    ellmer::AssistantTurn(list(ellmer::ContentText("a"), ellmer::ContentText("b")),
                          tokens = c(10, 5, 1), cost = 0.5, duration = 1.2,
                          finish_reason = "stop"),
    ellmer::AssistantTurn(list(ellmer::ContentText("a")), tokens = c(1L, 2L, 0L)),
    ellmer::AssistantTurn(list(ellmer::ContentThinking("hm"), ellmer::ContentText("a")),
                          tokens = c(1, 2, 0), cost = 0, duration = 0, finish_reason = "stop")
  )
  for (turn in turns) {
    record <- ellmer::contents_record(turn)
    same(replay_turn(record), ellmer::contents_replay(record))
    same(replay_turn(record, zero_usage = TRUE),
         ellmer::AssistantTurn(turn@contents, tokens = c(0, 0, 0), cost = 0, duration = 0,
                               finish_reason = turn@finish_reason))
    for (seconds in c(0, 2.5)) {
      kept <- entry_from_turn(turn, seconds, keep_json = FALSE, tokens = c(3, 4, 0), cost = 0)
      same(kept$turn, ellmer::contents_record(
        ellmer::AssistantTurn(turn@contents, tokens = c(3, 4, 0), cost = 0, duration = seconds,
                              finish_reason = turn@finish_reason)
      ))
    }
  }
  # values ellmer's checks refuse are still refused
  expect_error(user_turn_of(NA_character_))
  expect_error(entry_from_turn(turns[[1]], 0, keep_json = FALSE, tokens = c(1, 2), cost = 0))
})

test_that("turn_record() is ellmer's contents_record() for every turn, built directly for texts", {
  turns <- list(
    ellmer::AssistantTurn(list(ellmer::ContentText("a"), ellmer::ContentText("b \u00e9")),
                          tokens = c(input = 10, output = 5, cached_input = 1),
                          cost = structure(0.5, class = c("ellmer_dollars", "numeric")),
                          duration = 1.2, finish_reason = "success"),
    ellmer::AssistantTurn(list(), tokens = c(0, 0, 0), cost = 0),
    assistant_turn(list(text_content("x")), tokens = c(1, 2, 0), cost = NA_real_,
                   duration = NA_real_, finish_reason = NA_character_),
    # not built directly: json kept, reasoning, a tool request
    ellmer::AssistantTurn(list(ellmer::ContentText("a")), json = list(id = "x"),
                          tokens = c(1, 2, 0)),
    ellmer::AssistantTurn(list(ellmer::ContentThinking("hm"), ellmer::ContentText("a")),
                          tokens = c(1, 2, 0)),
    ellmer::AssistantTurn(list(ellmer::ContentToolRequest("id1", "f", list(x = 1))),
                          tokens = c(1, 2, 0)),
    ellmer::UserTurn(list(ellmer::ContentText("q")))
  )
  for (turn in turns) expect_identical(turn_record(turn), ellmer::contents_record(turn))
})

test_that("request_usage() sums tokens and cost over the request's assistant turns, not earlier ones", {
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
  x <- ellmer::chat_openai(system_prompt = "Be brief.", credentials = function() "not used")
  x$set_turns(turns)
  usage <- request_usage(x, n_before = 3)  # the system prompt and the earlier exchange
  expect_equal(unname(usage$tokens), c(18, 8, 2))
  expect_equal(usage$cost, 0.75)
})
