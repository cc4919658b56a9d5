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

# The oracle: the turn and the warning ellmer's own `$chat()` gives for the same answer.
test_that("ellmer_turn() warns as ellmer's $chat() does on each unfinished answer", {
  reasons <- c("length", "content_filter", "not_a_reason", "stop")
  server <- local_fake_openai(function(body, n) {
    list(json = list(id = "x", object = "chat.completion", created = 0L, model = "m",
                     choices = list(list(index = 0L, finish_reason = reasons[[n]],
                                         message = list(role = "assistant", content = "hi"))),
                     usage = list(prompt_tokens = 3L, completion_tokens = 2L,
                                  total_tokens = 5L)))
  })
  warnings_of <- function(code) {
    found <- character()
    withCallingHandlers(code, warning = function(w) {
      found <<- c(found, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    found
  }
  for (reason in reasons) {
    chat <- fake_chat(server)
    theirs <- warnings_of(chat$chat("q", echo = "none"))
    turn <- chat$last_turn()
    ours <- warnings_of(mine <- ellmer_turn(chat, turn@json))
    expect_identical(ours, theirs, info = reason)
    expect_identical(mine@finish_reason, turn@finish_reason, info = reason)
    expect_identical(mine@contents, turn@contents, info = reason)
  }
  expect_length(warnings_of(ellmer_turn(compat_chat(), completion_json("stop"))), 0)
})

test_that("ellmer_prices() is the table ellmer prices its turns by", {
  prices <- ellmer_prices()
  expect_true(all(c("provider", "model", "variant", "input", "output", "cached_input") %in%
                    names(prices)))
  chat <- compat_chat(name = "OpenAI")
  chat$set_model("chat-latest")
  million <- completion_json()
  million$usage <- list(prompt_tokens = 1e6, completion_tokens = 0)
  charged <- unclass(ellmer_turn(chat, million)@cost)
  expect_gt(charged, 0)
  expect_equal(model_price(chat)$input, charged)
  expect_equal(ellmer_price("OpenAI", "chat-latest")$input, charged)
})

# Every reach into ellmer's namespace, read from R/'s parse trees: a name looked up there
# (ellmer_internal(), get(), get0(), getFromNamespace(), `:::`) that ellmer does not export,
# or one computed at run time, or code evaluated there.
ellmer_reaches <- function(file) {
  found <- character()
  in_ellmer <- function(args) {
    any(vapply(args, function(a) {
      identical(a, "ellmer") || identical(a, quote(asNamespace("ellmer")))
    }, TRUE))
  }
  walk <- function(x) {
    if (!is.call(x)) return(invisible())
    f <- x[[1]]
    args <- as.list(x)[-1]
    name <- if (is.name(f)) {
      as.character(f)
    } else if (is.call(f) && identical(f[[1]], quote(`::`))) {
      as.character(f[[3]])  # utils::getFromNamespace()
    } else {
      ""
    }
    if (identical(f, quote(`:::`)) && identical(x[[2]], quote(ellmer))) {
      found <<- c(found, as.character(x[[3]]))
    } else if (name == "ellmer_internal" ||
                 (name %in% c("get", "get0", "getFromNamespace") && in_ellmer(args))) {
      found <<- c(found, if (is.character(args[[1]])) args[[1]] else "<computed>")
    } else if (name == "eval" && in_ellmer(args)) {
      found <<- c(found, "<evaluated>")
    }
    if (is.call(f)) walk(f)  # getFromNamespace("x", "ellmer")()
    for (a in args) if (!missing(a)) walk(a)
  }
  for (e in parse(file, keep.source = FALSE)) walk(e)
  setdiff(unique(found), getNamespaceExports("ellmer"))
}

test_that("ellmer's unexported functions are reached in its compat file only, by four names", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)
  reaches <- lapply(stats::setNames(files, basename(files)), ellmer_reaches)
  compat <- "engine-compat-ellmer.R"
  outside <- Filter(length, reaches[names(reaches) != compat])
  expect_equal(outside, stats::setNames(list(), character()))
  # each named in the file with the public hook that would replace it
  expect_setequal(reaches[[compat]], c("chat_request", "value_turn", "prices_get",
                                       "base_request"))
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
