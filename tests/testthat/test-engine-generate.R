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

test_that("a run killed with SIGKILL pays again only for the requests in flight", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(echo_reply, latency = 0.3)
  dir <- withr::local_tempdir()
  n <- 24
  max_active <- 3
  prompts <- paste("item", seq_len(n))
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(skip_if_no_source_tree())),
    sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
             credentials = function() 'k')", deparse(server$url)),
    sprintf("generate_responses(chat, %s, cache = %s, max_active = %d, rpm = 1e6)",
            paste(deparse(prompts), collapse = ""), deparse(dir), max_active)
  ), script)
  child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                 stdout = NULL, stderr = NULL)
  entries <- function() length(list.files(dir, recursive = TRUE, pattern = "\\.rds$"))
  deadline <- Sys.time() + 60
  while (entries() < 8 && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.05)
  child$signal(tools::SIGKILL)
  child$wait(5000)
  expect_false(child$is_alive())
  sent_before <- server$count()
  done <- entries()
  expect_gte(done, 8)
  expect_lt(done, n)
  # every request sent either answered into the cache or was in flight at the kill
  expect_lte(sent_before - done, max_active)

  res <- generate_responses(fake_chat(server), prompts, cache = dir, max_active = max_active)
  sent_after <- server$count() - sent_before
  expect_equal(sent_after, n - done)
  expect_lte(sent_before + sent_after - n, max_active)  # answers paid for twice
  expect_equal(sum(res$cached), done)
  whole <- generate_responses(fake_chat(server), prompts, cache = FALSE)
  expect_equal(res$result, whole$result)
  expect_equal(res$result, paste("answer to", prompts))
})

test_that("API keys never reach the cache", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  generate_responses(fake_chat(server, key = "sk-SECRET-KEY-123"), "q", cache = dir)
  files <- list.files(dir, recursive = TRUE, full.names = TRUE, all.files = TRUE)
  entry <- grep("\\.rds$", files, value = TRUE)
  expect_length(entry, 1)
  expect_length(grepRaw("answer to q", readBin(entry, "raw", file.size(entry)), fixed = TRUE), 1)
  for (f in files) {
    expect_length(grepRaw("sk-SECRET-KEY-123", readBin(f, "raw", file.size(f)), fixed = TRUE), 0)
  }
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
})

test_that("a provider warning reaches the user once per call, not once per request", {
  server <- local_fake_openai(echo_reply)
  # ellmer's Responses and Anthropic providers drop `seed`, with a warning per request.
  # on the fast path and on ellmer's own path (a chat with tools)
  for (chat in list(fake_responses_chat(server, params = ellmer::params(seed = 1)),
                    fake_anthropic_chat(server, params = ellmer::params(seed = 1)),
                    with_idle_tool(fake_responses_chat(server, params = ellmer::params(seed = 1))),
                    with_idle_tool(fake_anthropic_chat(server, params = ellmer::params(seed = 1))))) {
    warnings <- list()
    res <- withCallingHandlers(
      generate_responses(chat, paste("q", 1:5), cache = FALSE),
      warning = function(w) {
        warnings[[length(warnings) + 1]] <<- conditionMessage(w)
        invokeRestart("muffleWarning")
      }
    )
    expect_equal(res$result, paste("answer to q", 1:5))
    expect_length(warnings, 1)
    expect_match(warnings[[1]], "seed")
  }
  # the fast path too: chat completions have no `reasoning_effort`
  chat <- fake_chat(server, params = ellmer::params(reasoning_effort = "low"))
  expect_warning(generate_responses(chat, paste("r", 1:5), cache = FALSE), "reasoning_effort")
  expect_no_warning(generate_responses(fake_chat(server), paste("r", 1:5), cache = FALSE))
})

test_that("ProcessBench: one seed warning per eval, n_per_request refused without n, Responses votes", {
  server <- local_fake_openai(function(body, n) "\\boxed{1}")
  data <- tibble::tibble(
    id = c("s1", "s2"), problem = c("How many?", "When?"),
    steps = list(c("3 * 4 = 12.", "So 12."), c("9 + 1 = 10.", "So 10.")),
    label = c(1L, -1L), task_l1 = "a", task_l2 = NA_character_, origin = NA_character_,
    generator = NA_character_, final_answer_correct = NA,
    error_sections = list(NULL, NULL), unuseful_sections = list(NULL, NULL),
    sections_content = NA_character_
  )
  chat <- fake_responses_chat(server)
  tsk <- processbench_task(data, dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 3, params = list(seed = 4),
                                                        settings = request_settings(cache = FALSE)))
  warnings <- character()
  withCallingHandlers(tsk$eval(solver_chat = chat, view = FALSE), warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  expect_equal(sum(grepl("seed", warnings)), 1)
  expect_equal(server$count(), 6)
  meta <- tsk$get_samples()$solver_metadata
  expect_equal(meta[[1]]$votes, c(1L, 1L, 1L))

  before <- server$count()
  for (chat in list(fake_responses_chat(server), fake_anthropic_chat(server))) {
    tsk <- processbench_task(data, dir = withr::local_tempdir(),
                             solver = processbench_solver(n_votes = 3, n_per_request = TRUE,
                                                          settings = request_settings(cache = FALSE)))
    expect_error(tsk$eval(solver_chat = chat, view = FALSE),
                 class = "predictivebench_error_argument")
  }
  expect_equal(server$count(), before)

  # votes read from a Responses body (one per message item)
  json <- list(output = list(
    list(type = "reasoning", summary = list()),
    list(type = "message", content = list(list(type = "output_text", text = "\\boxed{2}")))
  ))
  expect_equal(processbench_choices(json, "ignored"), "\\boxed{2}")
})

test_that("the n_ignored message says cached only when the cache is on", {
  one <- local_fake_openai(function(body, n) list(choices = "\\boxed{1}"))
  data <- tibble::tibble(
    id = "s1", problem = "How many?", steps = list(c("3 * 4 = 12.", "So 12.")), label = 1L,
    task_l1 = "a", task_l2 = NA_character_, origin = NA_character_,
    generator = NA_character_, final_answer_correct = NA, error_sections = list(NULL),
    unuseful_sections = list(NULL), sections_content = NA_character_
  )
  for (cache in list(FALSE, withr::local_tempdir())) {
    tsk <- processbench_task(data, dir = withr::local_tempdir(),
                             solver = processbench_solver(n_votes = 2, n_per_request = TRUE,
                                                          settings = request_settings(cache = cache)))
    msg <- NULL
    withCallingHandlers(tsk$eval(solver_chat = fake_chat(one), view = FALSE),
                        predictivebench_message_n_ignored = function(m) {
                          msg <<- conditionMessage(m)
                          invokeRestart("muffleMessage")
                        })
    expect_equal(grepl("cached", msg), !isFALSE(cache))
  }
})

test_that("an rpm limit that sets a run's pace says so once, naming the setting", {
  server <- local_fake_openai(function(body, n) "ok")
  rm(list = ls(the_informed), envir = the_informed)
  # 6 requests at 120 a minute, one at a time: at least 2.5 s of throttle for answers a
  # local server gives in milliseconds.
  msg <- expect_message(
    generate_responses(fake_chat(server), paste("q", 1:6), cache = FALSE, max_active = 1,
                       rpm = 120, progress = FALSE),
    class = "predictivebench_message_once"
  )
  expect_match(conditionMessage(msg), "rpm = 120", fixed = TRUE)
  expect_match(conditionMessage(msg), "local server")
  # once per session
  expect_no_message(generate_responses(fake_chat(server), paste("r", 1:6), cache = FALSE,
                                       max_active = 1, rpm = 120, progress = FALSE))
  # no note when the limit cannot have mattered
  rm(list = ls(the_informed), envir = the_informed)
  expect_no_message(generate_responses(fake_chat(server), paste("s", 1:6), cache = FALSE,
                                       max_active = 2, rpm = 1e6, progress = FALSE))
})

test_that("the pace note's arithmetic and loopback hosts", {
  rm(list = ls(the_informed), envir = the_informed)
  # 1000 requests at 500 a minute: at least 118.8 s; a 10 s floor in a 300 s run is not the pace
  expect_false(note_rpm_pace(60, 500, 10, 300, list()))
  msg <- expect_message(note_rpm_pace(1000, 500, 10, 125, list()))
  expect_match(conditionMessage(msg), "at least 118.8 s", fixed = TRUE)
  expect_match(conditionMessage(msg), "If your provider allows more")
  expect_equal(is_loopback_url(c("http://127.0.0.1:8000/v1", "http://localhost/v1",
                                 "http://[::1]:9/v1", "https://api.openai.com/v1",
                                 "http://10.0.0.2:8000", "http://user@LOCALHOST:1")),
               c(TRUE, TRUE, TRUE, FALSE, FALSE, TRUE))
})

test_that("a refused key stops the run after max_active requests; earlier answers stay cached", {
  skip_on_cran()
  refuse <- withr::local_tempfile()
  reply <- function(body, n) {
    if (file.exists(refuse)) list(status = 401) else paste("answer to", last_user_text(body))
  }
  environment(reply) <- list2env(list(refuse = refuse), parent = baseenv())
  server <- local_fake_openai(reply)
  dir <- withr::local_tempdir()
  prompts <- paste("question", 1:20)
  chats <- list(fast = fake_chat(server), async = with_idle_tool(fake_chat(server)))
  for (path in names(chats)) {
    chat <- chats[[path]]
    key <- paste(path, prompts)
    unlink(refuse)
    first <- generate_responses(chat, key[1:5], cache = dir)
    writeLines("refuse", refuse)
    before <- server$count()
    err <- expect_error(generate_responses(chat, key, cache = dir, max_active = 3),
                        class = "predictivebench_error_auth")
    expect_lte(server$count() - before, 3)
    expect_match(conditionMessage(err), "HTTP 401 Unauthorized: fake error 401")
    expect_match(conditionMessage(err), paste("OpenAI-compatible at", server$url),
                 fixed = TRUE)
    expect_match(conditionMessage(err), "were not sent")
    # the answers from before are still there: with the key fixed only the rest is sent
    unlink(refuse)
    before <- server$count()
    again <- generate_responses(chat, key, cache = dir, max_active = 3)
    expect_equal(again$cached, rep(c(TRUE, FALSE), c(5, 15)), info = path)
    expect_equal(again$result[1:5], first$result)
    expect_equal(server$count() - before, 15)
  }
})

test_that("with chat_per, only each group's kept chat is built: its first answered row's", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (text %in% c("a1", "c1", "c2")) list(status = 400L) else paste("echo", text)
  })
  prompts <- as.list(c("a1", "a2", "a3", "b1", "b2", "c1", "c2"))
  res <- suppressWarnings(run_requests(list(fake_chat(server)), rep(1L, 7), prompts,
                                       request_settings(cache = FALSE, retry = list(max_tries = 1)),
                                       chat_per = c(1, 1, 1, 2, 2, 3, 3)))
  built <- !vapply(res$chat, is.null, TRUE)
  # a: a1 failed, so a2's; b: b1's; c: every request failed, so c1's (as the caller keeps)
  expect_equal(which(built), c(2L, 4L, 6L))
  expect_equal(res$chat[[2]]$last_turn()@text, "echo a2")
  expect_equal(res$result[c(2, 3, 5)], c("echo a2", "echo a3", "echo b2"))
  expect_equal(chat_rows(c(NA, NA), NULL), 1:2)
  # without chat_per every row has its chat
  all <- run_requests(list(fake_chat(server)), c(1L, 1L), list("b1", "b2"),
                      request_settings(cache = FALSE))
  expect_false(any(vapply(all$chat, is.null, TRUE)))
})

test_that("no prompts: no request and no rows, with or without a cache", {
  for (cache in list(FALSE, withr::local_tempdir())) {
    res <- generate_responses(baseline_constant("x"), character(), request_settings(cache = cache))
    expect_equal(nrow(res), 0)
    expect_named(res, c("result", "chat", "error", "cached", "input_tokens", "output_tokens",
                        "cost", "seconds", "reasoning", "truncated"), ignore.order = TRUE)
  }
})

# ---- response_keys() and import_responses() -------------------------------------------------
# The key a request is cached under, computed outside run_requests() (an arena verdict's
# identity), and answers made elsewhere filed under the request that would get them.

cache_entry_exists <- function(dir, keys) file.exists(cache_path(dir, keys))

test_that("response_keys() are the keys run_requests() caches under", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  chat <- fake_chat(server)
  prompts <- c("one", "two", "three")
  keys <- response_keys(list(chat), rep(1L, 3), as.list(prompts), 1L, "extra-v1")
  expect_length(keys, 3)
  expect_true(all(grepl("^[0-9a-f]{64}$", keys)))
  expect_false(any(cache_entry_exists(dir, keys)))
  generate_responses(chat, prompts, cache = dir, epoch = 1L, key_extra = "extra-v1")
  expect_true(all(cache_entry_exists(dir, keys)))
  expect_equal(cache_get(dir, keys[[2]])$text, "answer to two")
  # anything that makes another request makes another key: key_extra, epoch, the chat
  expect_false(any(response_keys(list(chat), rep(1L, 3), as.list(prompts), 1L, "extra-v2") %in%
                     keys))
  expect_false(any(response_keys(list(chat), rep(1L, 3), as.list(prompts), 2L, "extra-v1") %in%
                     keys))
  expect_false(any(response_keys(list(fake_chat(server, model = "other")), rep(1L, 3),
                                 as.list(prompts), 1L, "extra-v1") %in% keys))
  # the same chat built again (a new object, the same request) has the same keys
  expect_equal(response_keys(list(fake_chat(server)), rep(1L, 3), as.list(prompts), 1L,
                             "extra-v1"), keys)
  # several chats with their own keys (chat_keys), epochs recycled, as run_requests() has them
  chats <- list(fake_chat(server, model = "a"), fake_chat(server, model = "b"))
  run_requests(chats, c(1L, 2L, 2L), list("x", "y", "y"), request_settings(cache = dir),
               epoch = c(1L, 1L, 2L), chat_keys = list("ka", "kb"))
  pooled <- response_keys(chats, c(1L, 2L, 2L), list("x", "y", "y"), c(1L, 1L, 2L),
                          chat_keys = list("ka", "kb"))
  expect_true(all(cache_entry_exists(dir, pooled)))
  expect_false(anyDuplicated(pooled) > 0)
  expect_equal(response_keys(list(chat), integer(), list(), 1L), character())
})

test_that("import_responses() files only missing answers, read back as cached with no tokens", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  settings <- request_settings(cache = dir)
  chat <- fake_chat(server)
  generate_responses(chat, "sent", settings, key_extra = "x")
  expect_equal(server$count(), 1)
  filed <- import_responses(chat, c("sent", "made elsewhere", "empty", "none", "made elsewhere"),
                            c("other text", "their answer", "", NA, "a second copy"), settings,
                            key_extra = "x", source = "their-file.csv")
  # only missing entries: not the answer already cached, not NA, a repeated prompt once
  expect_equal(filed, 2L)
  res <- generate_responses(chat, c("sent", "made elsewhere", "empty", "none"), settings,
                            key_extra = "x")
  expect_equal(server$count(), 2)  # only "none" was sent
  expect_equal(res$result, c("answer to sent", "their answer", "", "answer to none"))
  expect_equal(res$cached, c(TRUE, TRUE, TRUE, FALSE))
  expect_equal(res$input_tokens[2:3], c(0, 0))
  expect_equal(res$output_tokens[2:3], c(0, 0))
  expect_equal(res$cost[2:3], c(0, 0))
  expect_equal(res$chat[[2]]$last_turn()@text, "their answer")
  key <- response_keys(list(chat), 1L, list("made elsewhere"), 1L, "x")
  expect_equal(cache_get(dir, key)$imported, "their-file.csv")
  # filed under the request's key: another key_extra does not see them
  generate_responses(chat, "made elsewhere", settings, key_extra = "y")
  expect_equal(server$count(), 3)
  # everything there already: nothing filed
  expect_equal(import_responses(chat, c("sent", "made elsewhere"), c("a", "b"), settings,
                                key_extra = "x"), 0L)
  expect_equal(cache_get(dir, key)$text, "their answer")
})

test_that("import_responses() files nothing for a baseline chat, with cache = FALSE, or in a dry run", {
  server <- local_fake_openai(echo_reply)
  dir <- withr::local_tempdir()
  entries <- function() list.files(dir, recursive = TRUE, pattern = "[.]rds$")
  chat <- fake_chat(server)
  # a baseline chat is never cached
  expect_equal(import_responses(baseline_constant("x"), "q", "an answer",
                                request_settings(cache = dir)), 0L)
  # no cache: nowhere to file it (not even the default cache)
  withr::local_options(predictivebench.cache_dir = dir)
  expect_equal(import_responses(chat, "q", "an answer", request_settings(cache = FALSE)), 0L)
  # estimate_cost()'s dry run never writes the cache
  expect_equal(with_request_session(new_request_session(price = new_dry_run()),
    import_responses(chat, "q", "an answer", request_settings(cache = dir))), 0L)
  expect_length(entries(), 0)
  # only NA: nothing to file
  expect_equal(import_responses(chat, "q", NA_character_, request_settings(cache = dir)), 0L)
  expect_length(entries(), 0)
  # the settings object is checked
  expect_error(import_responses(chat, "q", "an answer", list(cache = dir)), "settings")
  # the same import with the cache on files it, in the default cache here
  expect_equal(import_responses(chat, "q", "an answer", request_settings()), 1L)
  expect_length(entries(), 1)
  expect_equal(generate_responses(chat, "q", request_settings())$result, "an answer")
  expect_equal(server$count(), 0)
})

test_that("the engine's senders take at most 10 arguments (no unused group limits)", {
  expect_lte(length(formals(run_requests)), 10)
  expect_lte(length(formals(send_pool)), 10)
  expect_false(any(c("chat_group", "group_max_active") %in% names(formals(run_requests))))
})
