# batch = TRUE: provider batch APIs through ellmer::batch_chat(), against the fake server's
# OpenAI Files + Batches and Anthropic Message Batches endpoints.

batch_reply <- function(body, n) {
  text <- last_user_text(body)
  if (grepl("bad", text)) return(list(status = 400))
  if (grepl("late", text)) return(list(expire = TRUE))
  paste("answer to", text)
}

batch_chats <- function(server) {
  list(openai = fake_responses_chat(server), anthropic = fake_anthropic_chat(server))
}

batch_files <- function(dir) list.files(file.path(dir, "batches"), full.names = TRUE)

withr::local_options(predictivebench.batch_poll_seconds = 0.05)

test_that("batch = TRUE end to end: partial failure kept per item, answers cached", {
  server <- local_fake_openai(batch_reply)
  for (shape in c("openai", "anthropic")) {
    dir <- withr::local_tempdir()
    chat <- batch_chats(server)[[shape]]
    prompts <- c("a", "bad b", "c")
    before <- server$count()
    res <- generate_responses(chat, prompts, cache = dir, batch = TRUE)
    expect_equal(server$count() - before, 3)
    expect_equal(res$result, c("answer to a", NA, "answer to c"))
    expect_match(res$error[[2]], "^Batch (batch|msgbatch)_[0-9]+: fake error 400")
    expect_true(all(is.na(res$error[-2])))
    expect_equal(res$input_tokens[c(1, 3)], c(10, 10))
    # the answers are in the cache, so the ended batch's state file is gone
    expect_length(batch_files(dir), 0)
    # a later run without batch sends only the failed one
    again <- generate_responses(chat, prompts, cache = dir)
    expect_equal(server$count() - before, 4)
    expect_equal(again$cached, c(TRUE, FALSE, TRUE))
    expect_equal(again$result[c(1, 3)], res$result[c(1, 3)])
  }
})

test_that("items a batch failed go into a new batch on the next run", {
  server <- local_fake_openai(batch_reply)
  dir <- withr::local_tempdir()
  chat <- fake_anthropic_chat(server)
  res <- generate_responses(chat, c("bad 1", "bad 2"), cache = dir, batch = TRUE)
  expect_equal(res$result, c(NA_character_, NA_character_))
  before <- server$count()
  again <- generate_responses(chat, c("bad 1", "bad 2"), cache = dir, batch = TRUE)
  expect_equal(server$count() - before, 2)  # sent again, not read back from the old batch
})

test_that("an expired Anthropic batch keeps what was answered and marks the rest expired", {
  server <- local_fake_openai(batch_reply)
  dir <- withr::local_tempdir()
  res <- generate_responses(fake_anthropic_chat(server), c("a", "late b"), cache = dir,
                            batch = TRUE)
  expect_equal(res$result[[1]], "answer to a")
  expect_true(is.na(res$result[[2]]))
  expect_match(res$error[[2]], "expired")
})

test_that("an expired OpenAI batch keeps what was answered and marks the rest expired", {
  server <- local_fake_openai(batch_reply)
  dir <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  generate_responses(chat, "a", cache = dir)
  res <- generate_responses(chat, c("a", "b", "late c", "bad d"), cache = dir, batch = TRUE)
  expect_equal(res$result, c("answer to a", "answer to b", NA, NA))
  expect_equal(res$cached, c(TRUE, FALSE, FALSE, FALSE))
  expect_match(res$error[[3]], "^Batch batch_[0-9]+: .*completion window expired")
  expect_match(res$error[[4]], "fake error 400")
  # the answered item entered the cache
  expect_true(generate_responses(chat, "b", cache = dir)$cached)
})

test_that("wait = FALSE submits and says how to collect; a new R process resumes the batch", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(batch_reply, batch = list(polls = 2))
  for (shape in c("openai", "anthropic")) {
    dir <- withr::local_tempdir()
    before <- server$count()
    out <- withr::local_tempfile(fileext = ".rds")
    script <- withr::local_tempfile(fileext = ".R")
    maker <- if (shape == "openai") "chat_openai" else "chat_anthropic"
    writeLines(c(
      sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(skip_if_no_source_tree())),
      sprintf("chat <- ellmer::%s(base_url = %s, model = 'fake-model',
               credentials = function() 'sk-test-FAKEKEY-0123456789')", maker,
              deparse(server$url)),
      sprintf("msg <- NULL; res <- withCallingHandlers(
                 generate_responses(chat, c('x', 'y'), cache = %s, batch = TRUE, wait = FALSE),
                 predictivebench_message_batch_pending = function(m) msg <<- conditionMessage(m))",
              deparse(dir)),
      sprintf("saveRDS(list(res = res[c('result', 'error')], msg = msg), %s)", deparse(out))
    ), script)
    child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                   stdout = NULL, stderr = NULL)
    child$wait(120000)
    expect_equal(child$get_exit_status(), 0)
    first <- readRDS(out)
    expect_equal(first$res$result, c(NA_character_, NA_character_))
    expect_match(first$res$error, "still running")
    expect_match(first$msg, "run the same call again", ignore.case = TRUE)
    expect_equal(server$count() - before, 2)
    # here, in another process: the same batch is collected, nothing is submitted again
    res <- generate_responses(batch_chats(server)[[shape]], c("x", "y"), cache = dir,
                              batch = TRUE)
    expect_equal(res$result, c("answer to x", "answer to y"))
    expect_equal(server$count() - before, 2)
    expect_length(batch_files(dir), 0)
  }
})

# A batch of two prompts submitted and still running: its chat, cache folder and state file.
pending_batch <- function(server, env = parent.frame()) {
  dir <- withr::local_tempdir(.local_envir = env)
  chat <- fake_anthropic_chat(server)
  suppressMessages(generate_responses(chat, c("p", "q"), cache = dir, batch = TRUE,
                                      wait = FALSE))
  list(chat = chat, dir = dir, state = batch_files(dir))
}

test_that("a corrupt state file and one from another chat are classed errors naming the file", {
  server <- local_fake_openai(batch_reply, batch = list(polls = 5))
  pending <- pending_batch(server)
  chat <- pending$chat
  dir <- pending$dir
  state <- pending$state
  expect_length(state, 1)
  good <- readLines(state)

  # a state file written by another chat (another model) at this call's path
  other <- fake_anthropic_chat(server, model = "other-model")
  other_keys <- vapply(c("p", "q"), function(p) {
    cache_key(request_identity(other), prompt_fingerprint(p), 1L)
  }, "")
  other_path <- batch_state_path(dir, other_keys)
  file.copy(state, other_path)
  err <- tryCatch(generate_responses(other, c("p", "q"), cache = dir, batch = TRUE),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_batch_state")
  expect_identical(err$file, other_path)
  expect_match(conditionMessage(err), "another chat")

  # a state file cut short
  writeLines(substr(paste(good, collapse = "\n"), 1, 40), state)
  err <- tryCatch(generate_responses(chat, c("p", "q"), cache = dir, batch = TRUE),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_batch_state")
  expect_identical(err$file, state)
  expect_match(conditionMessage(err), "not valid JSON")
})

test_that("a state file of another shape names the field; nothing is submitted again", {
  server <- local_fake_openai(batch_reply, batch = list(polls = 5))
  pending <- pending_batch(server)
  chat <- pending$chat
  dir <- pending$dir
  state <- pending$state
  good <- jsonlite::read_json(state)
  json <- function(x) jsonlite::toJSON(x, auto_unbox = TRUE, null = "null")
  change <- function(...) {
    values <- list(...)
    for (name in names(values)) good[name] <- list(values[[name]])
    good
  }
  cases <- list(
    list(text = "[]", field = NULL, message = "not a JSON object"),
    list(text = '"x"', field = NULL, message = "not a JSON object"),
    list(text = json(good[setdiff(names(good), "batch")]), field = "batch",
         message = "no batch id"),
    list(text = json(change(batch = "abc")), field = "batch", message = "no batch id"),
    list(text = json(change(stage = "weird")), field = "stage", message = "stage is not"),
    list(text = json(good[setdiff(names(good), "hash")]), field = "hash",
         message = "hash"),
    list(text = json(change(started_at = "yesterday")), field = "started_at",
         message = "start time"),
    list(text = json(change(stage = "done", results = list(list(type = "x")))),
         field = "results", message = "1 results for 2 prompts")
  )
  before <- server$count()
  for (case in cases) {
    writeLines(case$text, state)
    err <- tryCatch(generate_responses(chat, c("p", "q"), cache = dir, batch = TRUE),
                    error = identity)
    expect_s3_class(err, "predictivebench_error_batch_state")
    expect_identical(err$file, state)
    expect_identical(err$field, case$field)
    expect_match(conditionMessage(err), case$message)
    expect_no_match(conditionMessage(err), "did not accept")
  }
  expect_equal(server$count(), before)
})

test_that("a batch refused as a whole (HTTP 400) is a classed error; cached answers stay", {
  server <- local_fake_openai(batch_reply, batch = list(reject = TRUE))
  for (chat in batch_chats(server)) {
    dir <- withr::local_tempdir()
    generate_responses(chat, "done before", cache = dir)
    err <- tryCatch(generate_responses(chat, c("done before", "new"), cache = dir,
                                       batch = TRUE), error = identity)
    expect_s3_class(err, "predictivebench_error_batch")
    expect_match(conditionMessage(err), "did not accept")
    expect_match(conditionMessage(err$parent), "400")
    expect_true(generate_responses(chat, "done before", cache = dir)$cached)
  }
})

test_that("a run killed during the upload submits again on the next run; nothing is lost", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(batch_reply, batch = list(upload_delay = 30))
  dir <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  generate_responses(chat, "answered", cache = dir)
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(skip_if_no_source_tree())),
    sprintf("chat <- ellmer::chat_openai(base_url = %s, model = 'fake-model',
             credentials = function() 'sk-test-FAKEKEY-0123456789')", deparse(server$url)),
    sprintf("generate_responses(chat, c('answered', 'u', 'v'), cache = %s, batch = TRUE)",
            deparse(dir))
  ), script)
  child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                 stdout = NULL, stderr = NULL)
  deadline <- Sys.time() + 60
  while (server$uploads() < 1 && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.05)
  child$signal(tools::SIGKILL)
  child$wait(5000)
  expect_false(child$is_alive())
  expect_length(batch_files(dir), 0)  # ellmer writes its state only once a batch exists
  before <- server$count()
  res <- generate_responses(chat, c("answered", "u", "v"), cache = dir, batch = TRUE)
  expect_equal(res$result, paste("answer to", c("answered", "u", "v")))
  expect_equal(res$cached, c(TRUE, FALSE, FALSE))
  expect_equal(server$count() - before, 2)
})

test_that("batch = TRUE needs a cache", {
  expect_error(generate_responses(fake_responses_chat(list(url = "http://127.0.0.1:9/v1")),
                                  "q", cache = FALSE, batch = TRUE),
               class = "predictivebench_error_argument")
})

test_that("a batch API answering with a redirect is not followed: the key reaches nobody else", {
  skip_on_cran()
  bystander <- local_fake_bystander()
  redirect <- local_fake_redirect(bystander$origin, status = 307L)
  for (chat in list(fake_responses_chat(redirect), fake_anthropic_chat(redirect))) {
    dir <- withr::local_tempdir()
    err <- expect_error(generate_responses(chat, c("secret a", "secret b"), cache = dir,
                                           batch = TRUE),
                        class = "predictivebench_error_batch")
    expect_match(conditionMessage(err), "307")
  }
  expect_gt(redirect$count(), 0)
  expect_equal(bystander$count(), 0)
  expect_length(bystander$seen(), 0)
})

test_that("what a batch API says is delivered without the key it was sent", {
  keys <- c(openai = "sk-test-FAKEKEY-0123456789", anthropic = "sk-ant-test-FAKEKEY")
  echo <- function(body, n) {
    # an item's error repeats both keys, as a gateway repeating the request's headers would
    list(status = 400, message = paste("bad request; headers: Authorization: Bearer",
                                       keys[["openai"]], "x-api-key:", keys[["anthropic"]]))
  }
  server <- local_fake_openai(echo)
  for (shape in names(keys)) {
    chat <- batch_chats(server)[[shape]]
    res <- generate_responses(chat, "a", cache = withr::local_tempdir(), batch = TRUE)
    expect_match(res$error[[1]], "^Batch .*bad request")
    expect_false(grepl(keys[[shape]], res$error[[1]], fixed = TRUE))
  }
  refusing <- local_fake_openai(batch_reply, batch = list(reject = TRUE, echo_key = TRUE))
  for (shape in names(keys)) {
    chat <- batch_chats(refusing)[[shape]]
    err <- tryCatch(generate_responses(chat, "new", cache = withr::local_tempdir(),
                                       batch = TRUE), error = identity)
    expect_s3_class(err, "predictivebench_error_batch")
    shown <- paste(conditionMessage(err), conditionMessage(err$parent),
                   paste(format(err), collapse = "\n"))
    expect_match(shown, "the batch is invalid")
    expect_false(grepl(keys[[shape]], shown, fixed = TRUE))
  }
})
