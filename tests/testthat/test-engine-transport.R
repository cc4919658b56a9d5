# R/engine-transport.R: the fast path over curl sends and reads what ellmer's own path does; other
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

# The chats of every path: the fast path (OpenAI-compatible, Anthropic) and ellmer's own
# $chat_async() (a chat with tools, of each wire format).
every_path_chats <- function(server) {
  list(fast = fake_chat(server), fast_anthropic = fake_anthropic_chat(server),
       async = with_idle_tool(fake_chat(server)),
       async_anthropic = with_idle_tool(fake_anthropic_chat(server)))
}

test_that("a server that accepts and never answers: each path ends the request at its deadline", {
  skip_on_cran()
  server <- local_fake_openai(function(body, n) list(delay = 3600, text = "never sent"))
  withr::local_options(ellmer_timeout_s = 1.5)
  for (path in names(every_path_chats(server))) {
    chat <- every_path_chats(server)[[path]]
    before <- server$count()
    delivered <- list()
    transport <- request_transport(list(chat), c(1L, 1L), list("a", "b"), keep_json = FALSE,
                                   max_active = 2)
    request_pool(1:2, transport, function(i, value) delivered[[i]] <<- value, max_active = 2,
                 max_tries = 2, backoff = 0)
    expect_length(delivered, 2)
    for (value in delivered) {
      expect_s3_class(value, "predictivebench_gave_up")
      expect_s3_class(value$parent, "predictivebench_error_deadline")
      # each request was tried twice, each try ended by its deadline
      expect_match(conditionMessage(value), "Gave up after 2 tries", info = path)
    }
    # The stall is the server's, not a refused connection: both requests reached it. It
    # counts a request when it has read it, which on a loaded machine can come after the
    # client gave up on it, and a retry can reach its deadline before the server has read it
    # (CI once counted 3 of the 4 tries): at least one try of each, at most both.
    deadline <- Sys.time() + 10
    while (server$count() - before < 4 && Sys.time() < deadline) Sys.sleep(0.05)
    expect_lte(server$count() - before, 4)
    requests <- server$requests()
    read <- vapply(requests[seq_along(requests) > before], last_user_text, "")
    expect_setequal(read, c("a", "b"))
  }
})

test_that("an eval on ellmer's own path returns when the server stalls, each sample saying why", {
  skip_on_cran()
  server <- local_fake_openai(function(body, n) {
    if (grepl("stall", last_user_text(body))) list(delay = 3600, text = "x") else "fine"
  })
  # (long enough for the answering request on a loaded machine: the deadline counts from
  # when the request is started, ellmer's own work included; one request at a time, the
  # answering one first: webfakes holds back a reply while a delayed one is pending, and a
  # sample's deadline is no longer renewed by a round)
  withr::local_options(ellmer_timeout_s = 5)
  tsk <- vitals::Task$new(
    dataset = tibble::tibble(input = c("answer this", "stall here"), target = c("fine", "x")),
    solver = generate_solver(settings = request_settings(cache = FALSE,
                                                         max_active = 1, retry = list(max_tries = 1))),
    scorer = function(samples, ...) list(score = as.double(samples$result == samples$target)),
    dir = withr::local_tempdir()
  )
  expect_warning(tsk$eval(solver_chat = with_idle_tool(fake_chat(server)), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  errors <- vapply(samples$solver_metadata, function(m) m$error %||% NA_character_, "")
  expect_match(errors[[2]], "no answer within the deadline of 5 s")
  expect_equal(samples$result[[1]], "fine", info = errors[[1]])
})

test_that("a redirect to another origin is followed on no path: the other host receives nothing", {
  skip_on_cran()
  bystander <- local_fake_bystander()
  for (status in c(307L, 302L)) {
    redirect <- local_fake_redirect(bystander$origin, status = status)
    chats <- every_path_chats(redirect)
    for (path in names(chats)) {
      res <- generate_responses(chats[[path]], c("secret prompt", "another"), cache = FALSE,
                                max_tries = 3, backoff = 0)
      expect_equal(res$result, c(NA_character_, NA_character_), info = path)
      expect_match(res$error, paste0("HTTP ", status, " .* to ", bystander$origin,
                                     ": not followed"), info = path)
    }
    # not retried: one request per prompt and path, and not one reached the other origin
    expect_equal(redirect$count(), 2 * length(chats))
  }
  expect_equal(bystander$count(), 0)
  expect_length(bystander$seen(), 0)
})

test_that("the provider's own error text reaches the sample's error on every path", {
  skip_on_cran()
  bodies <- list(
    openai = list('{"error":{"message":"Invalid model: nope","type":"invalid_request_error"}}',
                  "application/json", "Invalid model: nope (invalid_request_error)"),
    anthropic = list(paste0('{"type":"error","error":{"type":"invalid_request_error",',
                            '"message":"max_tokens: 99999 > 8192"}}'),
                     "application/json", "max_tokens: 99999 > 8192 (invalid_request_error)"),
    text = list("upstream: quota exceeded for project p-1\n", "text/plain",
                "upstream: quota exceeded for project p-1")
  )
  for (format in names(bodies)) {
    body <- bodies[[format]]
    server <- local_fake_error(400L, body[[1]], body[[2]])
    chats <- every_path_chats(server)
    for (path in names(chats)) {
      res <- generate_responses(chats[[path]], "a", cache = FALSE, max_tries = 1)
      expect_equal(res$error, paste("HTTP 400 Bad Request:", body[[3]]),
                   info = paste(format, path))
    }
  }
})

test_that("a transport grows: requests of chats added later go out on its pool, their ids after the first", {
  server <- local_fake_openai(function(body, n) paste(body$model, last_user_text(body)))
  transport <- request_transport(list(fake_chat(server, "m1")), 1L, list("a"),
                                 keep_json = FALSE, max_active = 1)
  ids <- transport$extend(list(fake_chat(server, "m2"), fake_chat(server, "m3")), c(2L, 1L, 2L),
                          list("b", "c", "d"), max_active = 3)
  expect_equal(ids, 2:4)
  expect_equal(transport$extend(list(), integer(), list()), integer())
  delivered <- list()
  pool <- new_request_pool(transport, function(i, value) delivered[[i]] <<- value$text,
                           max_active = 1, rpm = Inf, max_tries = 1, backoff = 0)
  pool$add(1L)
  pool$add(ids)
  pool$limit(4)
  pool$run()
  pool$close()
  expect_equal(unlist(delivered), c("m1 a", "m3 b", "m2 c", "m3 d"))
  expect_equal(server$count(), 4)
  expect_false(transport$uses_later())
})

test_that("curl_header_lines() are the lines curl::handle_setheaders() sets", {
  headers <- c(Authorization = "Bearer k", `Content-Type` = "application/json", X = " ")
  expect_identical(curl_header_lines(headers), curl:::format_request_headers(as.list(headers)))
})
