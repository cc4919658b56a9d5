# A chat's own credentials travel to a worker beside its spec (the daemons' side, over real
# HTTP, is in test-evalset-mirai.R).

test_that("a chat's secrets: the credentials it would send here, read here", {
  withr::local_envvar(OPENAI_API_KEY = "sk-parent-env", ANTHROPIC_API_KEY = "sk-ant-parent")
  own <- ellmer::chat_openai(model = "g", credentials = function() "sk-own")
  expect_equal(chat_secrets(own)$credentials, "sk-own")
  # the constructor's default is this process's key: it travels too, wherever the chat points
  expect_equal(chat_secrets(ellmer::chat_openai(model = "g"))$credentials, "sk-parent-env")
  expect_equal(chat_secrets(ellmer::chat_anthropic(model = "c"))$credentials, "sk-ant-parent")
  compatible <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m")
  expect_equal(chat_secrets(compatible)$credentials, "sk-parent-env")
  expect_null(chat_secrets(baseline_chat("A")))
  # a key given through ellmer's deprecated `api_key` is the user's, though ellmer wraps it
  old <- suppressWarnings(ellmer::chat_openai(model = "g", api_key = "sk-old"))
  expect_match(chat_secrets(old)$credentials, "sk-old", fixed = TRUE)
  # a "provider/model" string: the chat it makes here, with this process's key
  expect_equal(spec_secrets(chat_spec("openai/g"))$credentials, "sk-parent-env")
  # on a worker, the key that came is sent, not the worker's own
  spec <- chat_spec(compatible)
  spec$secrets <- chat_secrets(compatible)
  withr::local_envvar(OPENAI_API_KEY = "sk-worker-env")
  expect_equal(chat_from_spec(spec)$get_provider()@credentials(), "sk-parent-env")
  # a key that can't be read here fails the cell there, in one line saying why
  spec$secrets <- list(error = "vault locked")
  expect_error(chat_from_spec(spec), "vault locked",
               class = "predictivebench_error_credentials")
})

test_that("a chat without its key: its secrets say what is missing, in one line", {
  # (ellmer skips a test instead of failing where TESTTHAT is "true")
  withr::local_envvar(OPENAI_API_KEY = NA, TESTTHAT = "false")
  keyless <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m")
  secrets <- chat_secrets(keyless)
  expect_null(secrets$credentials)
  expect_match(secrets$error, "OPENAI_API_KEY", fixed = TRUE)
  expect_false(grepl("\n", secrets$error))
  spec <- chat_spec(keyless)
  spec$secrets <- secrets
  withr::local_envvar(OPENAI_API_KEY = "sk-worker-env")
  err <- expect_error(chat_from_spec(spec), class = "predictivebench_error_credentials")
  expect_match(conditionMessage(err), "OPENAI_API_KEY", fixed = TRUE)
})

test_that("a judge travels to a worker with its own credentials", {
  server <- local_set_server()
  chat <- fake_chat(server, model = "m1", key = "sk-solver")
  judge <- fake_chat(server, model = "j", key = "sk-judge")
  cell <- list(model = chat_spec(chat), chat = chat,
               benchmark = list(judge = chat_spec(judge), judge_chat = judge))
  portable <- portable_cell(cell)
  expect_null(portable$chat)
  expect_null(portable$benchmark$judge_chat)
  expect_equal(portable$model$secrets$credentials, "sk-solver")
  expect_equal(portable$benchmark$judge$secrets$credentials, "sk-judge")
  expect_equal(chat_from_spec(portable$benchmark$judge)$get_provider()@credentials(),
               "sk-judge")
  # what a cell's identity is made of holds neither
  expect_false(grepl("sk-", paste(unlist(spec_identity(portable$model)), collapse = " ")))
})

test_that("without a key, a preview works and a real run stops in one line, sending nothing", {
  server <- local_set_server()
  # (ellmer skips a test instead of failing where TESTTHAT is "true")
  withr::local_envvar(OPENAI_API_KEY = NA, TESTTHAT = "false")
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  keyless <- ellmer::chat_openai_compatible(base_url = server$url, model = "m1")
  logs <- withr::local_tempdir()
  # a preview sends nothing, so it reads no key: a string model, a chat, a judge
  preview <- quiet_set(c("futurex@sample", "dsbench@sample"), list("openai/gpt-4.1", keyless),
                       log_dir = logs, judge = "openai/gpt-4.1-mini", limit = 2,
                       dry_run = TRUE)
  expect_equal(preview$status, rep("to run", 4))
  expect_true(all(preview$to_send > 0))
  expect_s3_class(estimate_cost(futurex_task(futurex_dataset(version = "sample", limit = 2),
                                             dir = withr::local_tempdir()), keyless),
                  "tbl_df")
  expect_equal(server$count(), 0)
  # a real run: one classed line naming the variable, before any request
  for (model in list("openai/gpt-4.1", keyless)) {
    err <- expect_error(eval_set("futurex@sample", list(model), log_dir = logs, options = set_options(limit = 2)),
                        class = "predictivebench_error_credentials")
    expect_match(conditionMessage(err), "OPENAI_API_KEY", fixed = TRUE)
    expect_length(strsplit(cli::ansi_strip(conditionMessage(err)), "\n")[[1]], 1)
  }
  expect_equal(server$count(), 0)
  expect_length(list.files(logs, pattern = "[.]json$"), 0)
})
