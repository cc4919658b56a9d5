# R/engine-compat-ellmer.R: every place predictivebench reaches past ellmer's public API, each checked
# against the ellmer installed, so an ellmer release that moves one fails here first.

compat_chat <- function(...) {
  ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m", ...,
                                 credentials = function() "k")
}

completion_json <- function(finish_reason = "stop") {
  list(id = "x", object = "chat.completion", created = 0L, model = "m",
       choices = list(list(index = 0L, finish_reason = finish_reason,
                           message = list(role = "assistant", content = "hi"))),
       usage = list(prompt_tokens = 3L, completion_tokens = 2L, total_tokens = 5L))
}

test_that("ellmer_internal() finds ellmer's functions and gives NULL for a missing one", {
  expect_true(is.function(ellmer_internal("chat_request")))
  expect_null(ellmer_internal("no_such_function_in_ellmer"))
  expect_true(ellmer_fast_path_available())
})

test_that("chat_set_params() merges params and api_args into the request ellmer builds", {
  chat <- compat_chat(params = ellmer::params(temperature = 1, top_p = 0.5))
  chat_set_params(chat, list(temperature = 0), list(n = 3))
  model <- chat$get_model_object()
  expect_equal(model@params$temperature, 0)
  expect_equal(model@params$top_p, 0.5)  # kept
  expect_equal(model@extra_args$n, 3)
  turns <- list(ellmer::UserTurn(contents = list(ellmer::ContentText("q"))))
  body <- httr2::req_get_body(ellmer_request(chat, turns))
  expect_equal(body$temperature, 0)
  expect_equal(body$top_p, 0.5)
  expect_equal(body$n, 3)
  expect_equal(body$model, "m")
  # nothing to merge: the chat is left as it was
  expect_equal(chat_set_params(chat)$get_model_object()@params, model@params)
})

test_that("ellmer_turn() reads a response as ellmer does, warning on a cut answer", {
  chat <- compat_chat()
  turn <- ellmer_turn(chat, completion_json())
  expect_equal(ellmer::contents_text(turn), "hi")
  expect_equal(unname(turn@tokens[1:2]), c(3, 2))
  expect_warning(ellmer_turn(chat, completion_json("length")))
})

test_that("without_jit() lowers the JIT only while it runs, even on error", {
  old <- compiler::enableJIT(3)
  on.exit(compiler::enableJIT(old), add = TRUE)
  expect_equal(without_jit(compiler::enableJIT(-1)), 0)
  expect_equal(compiler::enableJIT(-1), 3)
  expect_error(without_jit(stop("boom")), "boom")
  expect_equal(compiler::enableJIT(-1), 3)
})

test_that("ellmer_base_request() is the provider's authenticated request at its base URL", {
  req <- ellmer_base_request(compat_chat())
  expect_s3_class(req, "httr2_request")
  expect_match(req$url, "^http://127.0.0.1:9/v1")
  expect_match(httr2::req_get_headers(req, "reveal")$Authorization, "Bearer k")
})

# The fast path's reader (ellmer_turn_reader()) must give the turn ellmer's value_turn() gives,
# object for object: a priced model (ellmer's table lists OpenAI's "chat-latest"), a model
# with an unknown cached price, an unpriced one; usage absent, cached, or beyond integers.
test_that("ellmer_turn_reader() reads answers into the turns ellmer_turn() makes", {
  answer <- function(usage, content = "hi \u00e9", finish_reason = "stop", ...) {
    list(id = "x", object = "chat.completion", created = 0L, model = "m",
         choices = list(list(index = 0L, finish_reason = finish_reason,
                             message = list(role = "assistant", content = content, ...))),
         usage = usage)
  }
  usages <- list(
    list(prompt_tokens = 3L, completion_tokens = 2L, total_tokens = 5L), NULL,
    list(prompt_tokens = 1234L, completion_tokens = 77L,
         prompt_tokens_details = list(cached_tokens = 1000L)),
    list(prompt_tokens = 3.5e9, completion_tokens = 2L)
  )
  for (model in c("chat-latest", "chatgpt-4o-latest", "m")) {
    chat <- compat_chat(name = "OpenAI")
    chat$set_model(model)
    read <- ellmer_turn_reader(chat)
    for (usage in usages) {
      expect_identical(read(answer(usage)), ellmer_turn(chat, answer(usage)))
    }
  }
  priced <- compat_chat(name = "OpenAI")
  priced$set_model("chat-latest")
  expect_gt(ellmer_turn_reader(priced)(answer(usages[[3]]))@cost, 0)
  # answers it leaves to ellmer: reasoning, tool calls, no text, another finish reason
  read <- ellmer_turn_reader(compat_chat())
  others <- list(
    answer(usages[[1]], reasoning_content = "because"),
    answer(usages[[1]], content = NULL, tool_calls = list(list(
      id = "c1", type = "function", `function` = list(name = "f", arguments = "{}")))),
    answer(usages[[1]], content = "")
  )
  for (json in others) {
    expect_identical(read(json), ellmer_turn(compat_chat(), json))
  }
  expect_error(read(answer(list(prompt_tokens = "3"))))  # ellmer's check of the usage
  expect_warning(cut <- read(answer(usages[[1]], finish_reason = "length")))
  expect_identical(cut@finish_reason, "max_tokens")
})
