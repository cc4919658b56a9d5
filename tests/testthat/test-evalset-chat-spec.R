test_that("a chat's spec carries no secret; with the chat's own key it rebuilds the same chat", {
  server <- local_set_server()
  chat <- fake_chat(server, model = "m1", system_prompt = "Be brief.",
                    params = ellmer::params(temperature = 0.5, max_tokens = 20))
  spec <- chat_spec(chat)
  expect_equal(spec$provider, "openai_compatible")
  expect_equal(spec$model, "m1")
  expect_equal(spec$args$base_url, server$url)
  expect_false(any(grepl("FAKEKEY", rawToChar(serialize(spec, NULL, ascii = TRUE)))))
  expect_false(any(grepl("FAKEKEY", rawToChar(serialize(spec_identity(spec), NULL,
                                                          ascii = TRUE)))))
  withr::local_envvar(OPENAI_API_KEY = "sk-from-the-worker-env")
  spec$secrets <- chat_secrets(chat)
  rebuilt <- chat_from_spec(spec)
  expect_equal(rebuilt$get_model(), "m1")
  expect_equal(rebuilt$get_system_prompt(), "Be brief.")
  expect_equal(chat_params(rebuilt), chat_params(chat))
  expect_equal(spec_identity(chat_spec(rebuilt)), spec_identity(spec))
  # the key is the chat's, and the rebuilt chat works
  expect_equal(generate_responses(rebuilt, "hi", set_settings(FALSE))$result, "\\boxed{A}")
  expect_equal(server$requests()[[1]]$model, "m1")
  expect_equal(server$auths(), "Bearer sk-test-FAKEKEY-0123456789")
})

test_that("provider/model strings are specs; unknown providers are refused", {
  spec <- chat_spec("openai/gpt-4.1")
  expect_equal(spec[c("provider", "model")], list(provider = "openai", model = "gpt-4.1"))
  expect_equal(spec_label(spec), "openai/gpt-4.1")
  expect_error(chat_spec("nosuchprovider/x"), class = "predictivebench_error_argument")
  expect_error(chat_spec(42), class = "predictivebench_error_argument")
})

test_that("a chat is rebuilt from its spec by an exported ellmer constructor only", {
  expect_identical(ellmer_chat_constructor("openai"), ellmer::chat_openai)
  # ellmer has a chat_openai_test() taking model, system_prompt and params: not exported
  expect_null(ellmer_chat_constructor("openai_test"))
  expect_error(chat_spec("openai_test/m"), class = "predictivebench_error_argument")
})

test_that("baselines travel as they are, identified by name and answer", {
  a1 <- baseline_chat("A", name = "a")
  a2 <- baseline_chat("A", name = "a")
  b <- baseline_chat("B", name = "a")
  expect_identical(chat_from_spec(chat_spec(a1)), a1)
  expect_equal(spec_identity(chat_spec(a1)), spec_identity(chat_spec(a2)))
  expect_false(identical(spec_identity(chat_spec(a1)), spec_identity(chat_spec(b))))
})

test_that("a closure's fingerprint ignores request settings and is stable", {
  f <- function(settings) function(x) paste(x, settings$max_active)
  expect_equal(closure_fingerprint(f(request_settings(max_active = 1))),
               closure_fingerprint(f(request_settings(max_active = 50))))
  s1 <- futurex_solver(settings = request_settings(cache = tempfile()))
  s2 <- futurex_solver(settings = request_settings(cache = tempfile()))
  expect_equal(closure_fingerprint(s1), closure_fingerprint(s2))
  expect_false(identical(closure_fingerprint(futurex_solver(params = ellmer::params(max_tokens = 5))),
                         closure_fingerprint(s1)))
})

test_that("a chat's turns, system prompt and provider arguments are part of its identity", {
  server <- local_set_server()
  plain <- fake_chat(server, model = "m1")
  primed <- primed_chat(server, model = "m1")
  expect_false(identical(spec_identity(chat_spec(plain)), spec_identity(chat_spec(primed))))
  prompted <- fake_chat(server, model = "m1", system_prompt = "Be brief.")
  expect_false(identical(spec_identity(chat_spec(plain)), spec_identity(chat_spec(prompted))))
  # a plain chat keeps the identity it had before turns were part of it
  expect_named(spec_identity(chat_spec(plain)),
               c("provider", "model", "args", "params", "system_prompt"))
  # the spec carries the turns: the rebuilt chat is primed alike
  c_spec <- chat_spec(primed)
  c_spec$secrets <- chat_secrets(primed)
  rebuilt <- chat_from_spec(c_spec)
  expect_equal(turns_identity(rebuilt$get_turns()), turns_identity(few_shot_turns()))
  expect_equal(spec_identity(chat_spec(rebuilt)), spec_identity(c_spec))
  # provider arguments beyond the defaults (Anthropic's prompt cache, OpenAI's service tier)
  a1 <- ellmer::chat_anthropic(model = "c", credentials = function() "k")
  a2 <- ellmer::chat_anthropic(model = "c", credentials = function() "k", cache = "none")
  expect_null(chat_spec(a1)$args$cache)
  expect_equal(chat_spec(a2)$args$cache, "none")
  expect_false(identical(spec_identity(chat_spec(a1)), spec_identity(chat_spec(a2))))
  o <- ellmer::chat_openai(model = "g", credentials = function() "k", service_tier = "flex")
  expect_equal(chat_spec(o)$args$service_tier, "flex")
  # extra headers change the identity (hashed: they may hold keys)
  h <- ellmer::chat_openai(model = "g", credentials = function() "k",
                           api_headers = c(`x-route` = "eu-SECRETROUTE"))
  expect_length(chat_spec(h)$headers, 1)
  expect_false(grepl("SECRETROUTE", paste(unlist(spec_identity(chat_spec(h))), collapse = "")))
})

test_that("in one process, a chat primed with few-shot turns is its own cell and sends them", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  plain <- quiet_set("futurex@sample", list(fake_chat(server, model = "m1")), log_dir = logs,
                     settings = settings, limit = 2)
  sent <- server$count()
  expect_equal(sent, 2)
  expect_false(any(vapply(server$requests(), has_few_shot, TRUE)))
  both <- quiet_set("futurex@sample",
                    list(fake_chat(server, model = "m1"), primed_chat(server, model = "m1")),
                    log_dir = logs, settings = settings, limit = 2)
  expect_equal(both$status, c("done", "done"))
  expect_equal(both$reused, c(TRUE, FALSE))
  expect_equal(both$cell_id[[1]], plain$cell_id[[1]])
  expect_false(both$cell_id[[1]] == both$cell_id[[2]])
  expect_equal(server$count(), sent + 2)
  expect_true(all(vapply(server$requests()[-seq_len(sent)], has_few_shot, TRUE)))
  expect_match(both$model[[2]], "^openai_compatible/m1 \\[2 turns #[0-9a-f]{6}\\]$")
  expect_equal(both$model[[1]], "openai_compatible/m1")
})

test_that("labels say how two chats of one model differ", {
  server <- local_set_server()
  label <- function(...) spec_label(chat_spec(fake_chat(server, model = "m1", ...)))
  expect_equal(label(), "openai_compatible/m1")
  expect_equal(label(params = ellmer::params(temperature = 0.7)),
               "openai_compatible/m1 [temperature=0.7]")
  expect_match(label(params = ellmer::params(temperature = 0, max_tokens = 20),
                     system_prompt = "Be brief."),
               "[temperature=0, max_tokens=20, system prompt #", fixed = TRUE)
  other_host <- ellmer::chat_openai(model = "g", base_url = server$url,
                                    credentials = function() "k")
  expect_equal(spec_label(chat_spec(other_host)),
               paste0("openai/g [base_url=", server$url, "]"))
  expect_equal(spec_label(chat_spec(ellmer::chat_openai(model = "g"))), "openai/g")
})

test_that("two chats of one model with different parameters run as two models, arena included", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  elobench <- arena_folder(paste("Question", 1:3))
  chats <- list(fake_chat(server, model = "m1", params = ellmer::params(temperature = 0.7)),
                fake_chat(server, model = "m1", params = ellmer::params(temperature = 0.2)))
  set <- quiet_set("futurex@sample", chats, log_dir = logs, limit = 2,
                   settings = set_settings(withr::local_tempdir()),
                   judge = arena_baseline_judge("longer"),
                   arena = list(elobench = elobench, version = "toy", experiment = "set",
                                n = 1, times = 20))
  expect_equal(set$model, c("openai_compatible/m1 [temperature=0.7]",
                            "openai_compatible/m1 [temperature=0.2]"))
  expect_equal(set$status, c("done", "done"))
  expect_setequal(attr(set, "arena_run")$ratings$model, set$model)
  ratings <- read.csv(file.path(elobench, "results", "set", "elo_rating.csv"))
  expect_setequal(ratings$model, set$model)
  # each chat's answers under its own label, exported by model name
  exported <- arena_read_answers(file.path(elobench, "tempcache", "toy", "q_and_as.csv"))
  expect_setequal(setdiff(names(exported), "question"), set$model)
})

test_that("models a label can't tell apart are refused before any request", {
  server <- local_set_server()
  other <- local_set_server()
  logs <- withr::local_tempdir()
  # one model at two servers of one name
  expect_error(eval_set("futurex@sample",
                        list(fake_chat(server, model = "m1"), fake_chat(other, model = "m1")),
                        log_dir = logs),
               "base_url", class = "predictivebench_error_argument")
  # the same model twice (two keys for one model are one model)
  expect_error(eval_set("futurex@sample",
                        list(fake_chat(server, model = "m1", key = "k1"),
                             fake_chat(server, model = "m1", key = "k2")),
                        log_dir = logs),
               "same model", class = "predictivebench_error_argument")
  expect_error(eval_set("futurex@sample", c("openai/gpt-4.1", "openai/gpt-4.1"),
                        log_dir = logs),
               class = "predictivebench_error_argument")
  expect_equal(server$count() + other$count(), 0)
  expect_length(list.files(logs), 0)
})

test_that("a chat's tools are part of its identity and of the chat rebuilt from its spec", {
  server <- local_set_server()
  plain <- fake_chat(server, model = "m1")
  tooled <- fake_chat(server, model = "m1")
  tooled$register_tool(ellmer::tool(function(x) x + 1, "Adds one.", name = "add_one",
                                    arguments = list(x = ellmer::type_number())))
  spec <- chat_spec(tooled)
  expect_false(identical(spec_identity(chat_spec(plain)), spec_identity(spec)))
  expect_match(spec_label(spec), "[1 tool #", fixed = TRUE)
  spec$secrets <- chat_secrets(tooled)
  rebuilt <- chat_from_spec(spec)
  expect_named(rebuilt$get_tools(), "add_one")
  expect_equal(spec_identity(chat_spec(rebuilt)), spec_identity(spec))
})
