# estimate_cost() (R/results-estimate-cost.R) against the fake server: the requests it
# predicts are the requests the same eval sends, and a re-run on a warm cache sends none.
# The default cache directory is a temporary one.

local_default_cache <- function(envir = parent.frame()) {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir(.local_envir = envir),
                       .local_envir = envir)
}

estimate_then_run <- function(tsk, server, cache, ...) {
  chat <- fake_chat(server, model = "gpt-4.1")
  before <- estimate_cost(tsk, chat, cache = cache, ...)
  expect_equal(server$count(), 0)  # the estimate sent nothing
  tsk$eval(solver_chat = chat, view = FALSE, ...)
  sent <- server$count()
  after <- estimate_cost(tsk, chat, cache = cache, ...)
  list(before = before, sent = sent, after = after)
}

test_that("FutureX: the estimate equals the requests sent, and 0 on a cached re-run", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  cache <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(),
                      solver = futurex_solver(
                                              params = ellmer::params(max_tokens = 100),
                                              settings = request_settings(cache = cache)))
  out <- estimate_then_run(tsk, server, cache)
  n <- nrow(futurex_dataset(version = "sample"))
  expect_equal(out$sent, n)
  expect_equal(out$before$requests, out$sent)
  expect_equal(out$before$to_send, out$sent)
  expect_equal(out$before$cached, 0)
  expect_equal(out$after$requests, out$sent)
  expect_equal(out$after$to_send, 0)
  expect_equal(out$after$cached, out$sent)
  # exact tokens: each request's messages through OpenAI's tokenizer, plus 3 + 3
  prompts <- futurex_dataset(version = "sample")$input
  tokens <- sum(vapply(prompts, function(p) rtiktoken::get_token_count(p, "gpt-4.1"), 1)) +
    6 * n
  expect_equal(out$before$input_tokens, tokens)
  expect_equal(out$before$tokens, "exact")
  expect_equal(out$before$output_tokens_max, 100 * n)
  # the estimate left the cache as it was: the eval's answers are all that is in it
  expect_equal(length(list.files(file.path(cache, "responses"), recursive = TRUE)), n)
  expect_setequal(list.files(cache), c("predictivebench-cache.json", "responses"))
})

test_that("ProcessBench with 8 votes and 2 epochs: the estimate equals the requests sent", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  cache <- withr::local_tempdir()
  tsk <- processbench_task(processbench_dataset(version = "sample"), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 8,
                                                        settings = request_settings(cache = cache)))
  out <- estimate_then_run(tsk, server, cache, epochs = 2)
  expect_equal(out$sent, 8 * 2 * nrow(processbench_dataset(version = "sample")))
  expect_equal(out$before$requests, out$sent)
  expect_equal(out$after$to_send, 0)
  expect_equal(out$after$cached, out$sent)
  expect_true(is.na(out$before$output_tokens_max))
})

test_that("prices come from ellmer's table, batch prices from its batches rows", {
  local_default_cache()
  chat <- ellmer::chat_openai(model = "gpt-4.1", credentials = function() "unused")
  regular <- model_price(chat)
  batch <- model_price(chat, batch = TRUE)
  skip_if(is.null(regular), "ellmer has no price for gpt-4.1")
  expect_true(batch$input < regular$input)
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(),
                      solver = futurex_solver(params = ellmer::params(max_tokens = 10)))
  est <- estimate_cost(tsk, chat, cache = withr::local_tempdir())
  expect_equal(est$cost_max,
               (est$input_tokens * regular$input + est$output_tokens_max * regular$output) / 1e6)
  other <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "mystery",
                                          credentials = function() "unused")
  est <- estimate_cost(tsk, other, cache = withr::local_tempdir())
  expect_true(is.na(est$cost_max))
  expect_equal(est$tokens, "estimate")
  expect_equal(est$input_tokens, sum(ceiling(nchar(futurex_dataset(version = "sample")$input) / 4)))
})

test_that("a solver built with batch = TRUE: the same requests, at the batch price", {
  local_default_cache()
  chat <- ellmer::chat_openai(model = "gpt-4.1", base_url = "http://127.0.0.1:9/v1",
                              credentials = function() "unused")
  regular <- model_price(chat)
  batch <- model_price(chat, batch = TRUE)
  skip_if(is.null(regular), "ellmer has no price for gpt-4.1")
  cache <- withr::local_tempdir()
  solver <- function(batch) {
    futurex_solver( params = ellmer::params(max_tokens = 10),
                   settings = request_settings(cache = cache, batch = batch))
  }
  one_by_one <- estimate_cost(futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(), solver = solver(FALSE)),
                              chat, cache = cache)
  batched <- estimate_cost(futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(), solver = solver(TRUE)),
                           chat, cache = cache)
  expect_equal(batched$to_send, nrow(futurex_dataset(version = "sample")))
  expect_equal(batched[c("requests", "to_send", "input_tokens", "output_tokens_max")],
               one_by_one[c("requests", "to_send", "input_tokens", "output_tokens_max")])
  expect_true(batched$batch)
  expect_false(one_by_one$batch)
  expect_equal(batched$cost_max,
               (batched$input_tokens * batch$input + batched$output_tokens_max * batch$output) /
                 1e6)
  expect_lt(batched$cost_max, one_by_one$cost_max)
  # the same as pricing the one-by-one solver at the batch price
  expect_equal(batched$cost_max, estimate_cost(
    futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(), solver = solver(FALSE)), chat, cache = cache,
    batch = TRUE
  )$cost_max)
  # no batch was submitted or left behind, and the cache is as it was
  expect_length(list.files(cache, recursive = TRUE, all.files = TRUE), 0)
})

test_that("bad input is refused", {
  expect_error(estimate_cost(list(), NULL), class = "predictivebench_error_argument")
})

test_that("DSBench: solver and judge requests, each counted for its own chat", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) {
    if (startsWith(last_user_text(body), "Please judge")) "True" else "ANSWER"
  })
  cache <- withr::local_tempdir()
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver(settings = request_settings(cache = cache)),
                      scorer = dsbench_scorer(settings = request_settings(cache = cache)), dir = withr::local_tempdir())
  solver <- fake_chat(server, model = "gpt-4.1")
  judge <- fake_chat(server, model = "judge-model")
  est <- estimate_cost(tsk, solver, scorer_chat = judge, cache = cache)
  expect_equal(server$count(), 0)
  suppressWarnings(tsk$eval(solver_chat = solver, scorer_chat = judge, view = FALSE))
  expect_equal(est$requests, server$count())
  expect_equal(est$requests, 2 * nrow(dsbench_dataset(version = "sample")))
  # the judge's model is not an OpenAI one: its tokens are estimated
  expect_equal(est$tokens, "estimate")
  again <- estimate_cost(tsk, solver, scorer_chat = judge, cache = cache)
  expect_equal(c(again$to_send, again$cached), c(0, est$requests))
})

test_that("probsem: log-probability requests are counted, and free once cached", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  cache <- withr::local_tempdir()
  tsk <- probsem_task(probsem_dataset(version = "sample"), solver = probsem_solver(settings = request_settings(cache = cache)), dir = withr::local_tempdir())
  chat <- fake_chat(server, model = "org/tiny:v1")
  est <- estimate_cost(tsk, chat, cache = cache)
  expect_equal(server$count(), 0)
  tsk$eval(solver_chat = chat, view = FALSE)
  expect_equal(est$requests, server$count())
  expect_gt(est$requests, 0)
  expect_equal(estimate_cost(tsk, chat, cache = cache)$to_send, 0)
})

# A child R process that runs estimate_cost() on `n` FutureX-shaped questions with a scorer
# that blocks forever at its `block_at`-th call (the dry run solves and scores once: 1), after
# touching a file in `flags` so the test knows when to kill.
estimate_child <- function(server_url, cache, flags, n, block_at) {
  callr::r_bg(function(root, server_url, cache, flags, n, block_at) {
    pkgload::load_all(root, quiet = TRUE)
    chat <- ellmer::chat_openai_compatible(base_url = server_url, model = "gpt-4.1",
                                           credentials = function() "sk-child")
    scorer <- function(samples, ...) {
      calls <- length(list.files(flags)) + 1
      writeLines("", file.path(flags, paste0("call-", calls)))
      if (calls == block_at) Sys.sleep(600)
      list(score = factor(rep("C", nrow(samples)), levels = c("I", "C"), ordered = TRUE))
    }
    tsk <- vitals::Task$new(
      dataset = tibble::tibble(input = sprintf("Question %d?", seq_len(n)), target = "A"),
      solver = generate_solver(settings = request_settings(cache = cache)), scorer = scorer, dir = tempfile()
    )
    estimate_cost(tsk, chat, cache = cache)
  }, args = list(skip_if_no_source_tree(), server_url, cache, flags, n, block_at),
  stdout = tempfile(), stderr = tempfile())
}

cache_snapshot <- function(dir) {
  files <- sort(list.files(dir, recursive = TRUE, all.files = TRUE, full.names = TRUE))
  stats::setNames(tools::md5sum(files), files)
}

test_that("an estimate_cost() killed mid-run leaves the cache as it was; the next eval serves no placeholder", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(function(body, n) paste("real answer to", last_user_text(body)))
  n <- 6
  for (block_at in 1) {
    root <- withr::local_tempdir()
    cache <- file.path(root, "cache")
    flags <- file.path(root, "flags")
    dir.create(flags)
    # the real cache answers the first 3 questions
    generate_responses(fake_chat(server, model = "gpt-4.1"), sprintf("Question %d?", 1:3),
                       cache = cache)
    before <- cache_snapshot(cache)
    sent <- server$count()
    child <- estimate_child(server$url, cache, flags, n, block_at)
    deadline <- Sys.time() + 90
    while (length(list.files(flags)) < block_at && child$is_alive() && Sys.time() < deadline) {
      Sys.sleep(0.1)
    }
    expect_true(child$is_alive(), info = paste(readLines(child$get_error_file()),
                                               collapse = "\n"))
    child$kill()  # SIGKILL: no on.exit() runs
    child$wait(5000)
    expect_equal(length(list.files(flags)), block_at)
    # nothing added, changed, renamed or hidden in the real cache
    expect_equal(cache_snapshot(cache), before)
    expect_equal(list.files(root), c("cache", "flags"))
    expect_equal(server$count(), sent)  # the dry run sent nothing
    # the next run sends the 3 missing questions and serves only real answers
    res <- generate_responses(fake_chat(server, model = "gpt-4.1"),
                              sprintf("Question %d?", seq_len(n)), cache = cache)
    expect_equal(server$count(), sent + 3)
    expect_equal(res$cached, rep(c(TRUE, FALSE), each = 3))
    expect_equal(res$result, paste("real answer to", sprintf("Question %d?", seq_len(n))))
  }
})

test_that("an arena judge's estimate reads the response cache but stores no placeholder verdict", {
  local_default_cache()
  root <- withr::local_tempdir()
  cache <- file.path(root, "cache")
  battles <- sample_battles(2)
  # the real judge answers the two verdicts cached below; the estimates send it nothing
  judge <- local_fake_openai(function(body, n) '{"winner": 1}')
  chat <- ellmer::chat_openai_compatible(base_url = judge$url, model = "gpt-4.1",
                                         credentials = function() "sk-unused")
  tsk <- arena_judge_task(battles, arena_judge_solver(settings = request_settings(cache = cache)),
                          dir = file.path(root, "logs"))
  est <- estimate_cost(tsk, chat)
  expect_equal(est$requests, nrow(battles))
  expect_equal(est$to_send, nrow(battles))
  expect_false(dir.exists(cache))
  expect_equal(judge$count(), 0)
  # with 2 verdicts in the response cache (the same judge requests: a verdict is reused only
  # for its request, so a judge of the same model name elsewhere would not count) only the
  # others are to be sent, and the cache is left as it was
  judge_battles(battles[1:2, ], chat, settings = request_settings(cache = cache))
  expect_equal(judge$count(), 2)
  before <- cache_snapshot(cache)
  est <- estimate_cost(tsk, chat)
  expect_equal(est$requests, nrow(battles))
  expect_equal(est$to_send, nrow(battles) - 2)
  expect_equal(cache_snapshot(cache), before)
  expect_equal(judge$count(), 2)
})

test_that("a dry run counts the tokens of the bodies ellmer builds (system prompt, turns, parts)", {
  skip_if_not_installed("rtiktoken")
  local_default_cache()
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "gpt-4.1",
                                         credentials = function() "unused",
                                         system_prompt = "You are terse.")
  chat$set_turns(list(ellmer::UserTurn(list(ellmer::ContentText("Say hi."))),
                      ellmer::AssistantTurn(list(ellmer::ContentText("hi")))))
  inputs <- c("What is 2 + 2?", "Name a colour.")
  prompts <- list("What is 2 + 2?", list("Name a colour.", ellmer::ContentText("One word.")))
  scorer <- function(samples, ...) {
    list(score = factor(rep("C", nrow(samples)), levels = c("I", "C"), ordered = TRUE))
  }
  tsk <- vitals::Task$new(
    dataset = tibble::tibble(input = inputs, target = "x"),
    solver = generate_solver(prepare = function(x) prompts[match(x, inputs)],
                             settings = request_settings(cache = FALSE)),
    scorer = scorer, dir = withr::local_tempdir()
  )
  est <- estimate_cost(tsk, chat)
  # each request's body as ellmer builds it, counted message by message
  bodies <- lapply(prompts, function(p) {
    turns <- c(chat$get_turns(include_system_prompt = TRUE), list(user_turn_of(p)))
    httr2::req_get_body(ellmer_request(chat, turns), "reveal")
  })
  expect_length(request_texts(bodies[[1]]), 4)
  expected <- sum(vapply(bodies, function(b) one_request(b, "o200k_base", NULL)$input, 1))
  expect_equal(est$input_tokens, expected)
  expect_equal(c(est$requests, est$to_send, est$cached), c(2, 2, 0))
  expect_equal(est$tokens, "exact")
})

test_that("ProcessBench with n choices a request: one request a sample, bounded n times", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  tsk <- processbench_task(processbench_dataset(version = "sample"), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_per_request = TRUE,
                                                        params = ellmer::params(max_tokens = 10)))
  est <- estimate_cost(tsk, fake_chat(server, model = "gpt-4.1"), cache = withr::local_tempdir())
  n <- nrow(processbench_dataset(version = "sample"))
  # the placeholder answer holds the 8 choices asked for: no vote is asked again alone
  expect_equal(c(est$requests, est$to_send), c(n, n))
  expect_equal(est$output_tokens_max, n * 8 * 10)
  expect_equal(server$count(), 0)
})

test_that("estimate_cost() gives each column one type, whether everything is cached or not", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  cache <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2), dir = withr::local_tempdir(),
                      solver = futurex_solver(settings = request_settings(cache = cache)))
  out <- estimate_then_run(tsk, server, cache)
  expect_equal(out$after$to_send, 0L)
  types <- function(x) vapply(x, typeof, "")
  expect_equal(types(out$after), types(out$before))
  expect_equal(types(out$after)[c("requests", "cached", "to_send")],
               c(requests = "integer", cached = "integer", to_send = "integer"))
  expect_equal(types(out$after)[c("input_tokens", "output_tokens_max", "cost_max")],
               c(input_tokens = "double", output_tokens_max = "double", cost_max = "double"))
})

test_that("a task's dry run goes a chunk at a time, as $eval(), and prices the same requests", {
  local_default_cache()
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  cache <- withr::local_tempdir()
  data <- processbench_dataset(version = "sample")
  chat <- fake_chat(server, model = "gpt-4.1")
  # the solver's calls, each with the number of samples it was given
  seen <- integer()
  counting <- function() {
    inner <- processbench_solver(n_votes = 2, settings = request_settings(cache = cache))
    out <- function(inputs, ...) {
      seen <<- c(seen, length(inputs))
      inner(inputs, ...)
    }
    out
  }
  whole <- processbench_task(data, dir = withr::local_tempdir(), solver = counting())
  est_whole <- estimate_cost(whole, chat, cache = cache, epochs = 2)
  expect_equal(seen, 2L * nrow(data))
  seen <- integer()
  chunked <- processbench_task(data, dir = withr::local_tempdir(), solver = counting())
  chunked$chunk_size <- 4
  est <- estimate_cost(chunked, chat, cache = cache, epochs = 2)
  # 4 samples with their 2 epochs a chunk: memory holds one chunk's solutions and requests
  expect_equal(seen, rep(4L, nrow(data) / 2))
  expect_equal(est, est_whole)
  expect_equal(est$requests, 2 * 2 * nrow(data))
  expect_equal(server$count(), 0)
})

test_that("a panel in the dots: every member offline (no key read), its requests counted and priced per member", {
  local_default_cache()
  server <- local_fake_openai()
  cache <- withr::local_tempdir()
  # priced OpenAI models, none of which may read its key once made (ellmer reads it once, to
  # check it, when the chat is made)
  keys <- new.env()
  keys$open <- TRUE
  no_key <- function() if (keys$open) "sk-checked" else stop("a key was read")
  chat <- function(model, max_tokens = 50) {
    ellmer::chat_openai(base_url = server$url, model = model, credentials = no_key,
                        params = ellmer::params(max_tokens = max_tokens))
  }
  a <- chat("gpt-4o")
  b <- chat("gpt-4.1-mini", 80)
  solver <- chat("gpt-4.1")
  keys$open <- FALSE
  expect_error(a$get_provider()@credentials(), "a key was read")
  # a solver and a scorer of the user's that ask through ellmer (not the engine), the scorer
  # each judge of its panel
  ask_each <- function(inputs, ..., solver_chat) {
    chats <- lapply(inputs, function(input) {
      asked <- solver_chat$clone()
      asked$chat(input, echo = "none")
      asked
    })
    list(result = vapply(chats, function(ch) ch$last_turn()@text, ""), solver_chat = chats)
  }
  panel_scorer <- function(samples, ..., scorer_chat) {
    judges <- if (inherits(scorer_chat, "Chat")) list(scorer_chat) else scorer_chat
    chats <- lapply(judges, function(judge) {
      lapply(samples$result, function(r) {
        grader <- judge$clone()
        grader$chat(paste("Is this right?", r), echo = "none")
        grader
      })
    })
    list(score = factor(rep("C", nrow(samples)), levels = c("I", "P", "C")),
         scorer_chat = if (length(chats)) chats[[1]] else samples$solver_chat)
  }
  tsk <- vitals::Task$new(dataset = tibble::tibble(input = c("1 + 1?", "2 + 2?", "3 + 3?"),
                                                   target = c("2", "4", "6")),
                          solver = ask_each, scorer = panel_scorer,
                          dir = withr::local_tempdir())
  panel <- estimate_cost(tsk, solver, scorer_chat = list(a, b), cache = cache)
  alone <- list(a = estimate_cost(tsk, solver, scorer_chat = a, cache = cache),
                b = estimate_cost(tsk, solver, scorer_chat = b, cache = cache))
  expect_equal(server$count(), 0)
  # each member's requests counted: three solver requests, three a judge
  expect_equal(panel$requests, 3 + 2 * 3)
  # each member at its own model's price and output bound: the panel's judgements cost a's
  # plus b's, over the solver's own (a panel of none sends nothing)
  none <- estimate_cost(tsk, solver, scorer_chat = list(), cache = cache)
  expect_equal(none$requests, 3)
  expect_false(anyNA(c(panel$cost_max, alone$a$cost_max, alone$b$cost_max, none$cost_max)))
  expect_gt(abs(alone$a$cost_max - alone$b$cost_max), 0)
  expect_equal(panel$cost_max, none$cost_max + (alone$a$cost_max - none$cost_max) +
                 (alone$b$cost_max - none$cost_max))
  expect_equal(panel$output_tokens_max, 3 * 50 + 3 * 50 + 3 * 80)
})
