test_that("without daemons, cells run in this process", {
  skip_if_not_installed("mirai")
  expect_false(daemons_running())
})

test_that("on daemons(2) a set gives the same results as in this process", {
  server <- local_set_server()
  chats <- set_chats(server, c("m1", "m2"))
  here <- quiet_set(set_benchmarks_sample, chats, log_dir = withr::local_tempdir(),
                    settings = set_settings(withr::local_tempdir()), limit = 3)
  sent_here <- server$count()
  local_daemons(2)
  expect_true(daemons_running())
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  there <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_equal(there[c("benchmark", "model", "cell_id", "status", "metric", "headline")],
               here[c("benchmark", "model", "cell_id", "status", "metric", "headline")])
  expect_equal(server$count() - sent_here, sent_here)
  expect_true(all(file.exists(there$log_path)))
  # the workers' logs are complete: a rerun (here, or on the daemons) sends nothing
  sent <- server$count()
  again <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_true(all(again$reused))
  expect_equal(server$count(), sent)
})

test_that("on daemons, added models run only their cells", {
  server <- local_set_server()
  local_daemons(2)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  quiet_set("futurex@sample", set_chats(server, "m1"), log_dir = logs,
            settings = settings, limit = 2)
  expect_equal(server$count(), 2)
  more <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2", "m3")),
                    log_dir = logs, settings = settings, limit = 2)
  expect_equal(more$reused, c(TRUE, FALSE, FALSE))
  expect_equal(more$status, rep("done", 3))
  expect_equal(server$count(), 2 + 2 * 2)
})

test_that("on daemons, a cell that always fails is reported and the rest complete", {
  server <- local_set_server()
  local_daemons(2)
  set <- quiet_set("processbench@sample", set_chats(server, c("m1", "broken")),
                   log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2, retries = 1)
  expect_equal(set$status, c("done", "failed"))
  expect_equal(set$attempts, c(1L, 2L))
  expect_match(set$error[[2]], "failed")
})

test_that("a daemon killed mid-cell: the cell is tried again, the rest completes", {
  local_daemons(2)
  flag <- withr::local_tempfile()
  # the first answer kills the daemon that asks for it (SIGKILL: no clean-up at all)
  killer <- function(question) {
    if (!file.exists(flag)) {
      file.create(flag)
      tools::pskill(Sys.getpid(), tools::SIGKILL)
    }
    "\\boxed{A}"
  }
  environment(killer) <- list2env(list(flag = flag), parent = globalenv())
  models <- list(baseline_chat("\\boxed{B}", name = "steady"),
                 baseline_chat(killer, name = "killer"))
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  set <- quiet_set("futurex@sample", models, log_dir = withr::local_tempdir(), limit = 2,
                   retries = 1)
  expect_true(file.exists(flag))
  expect_equal(set$status, c("done", "done"))
  expect_equal(set$attempts, c(1L, 2L))
  expect_true(all(file.exists(set$log_path)))
})

test_that("on daemons, a chat primed with few-shot turns is its own cell and sends them", {
  server <- local_set_server()
  local_daemons(2)
  set <- quiet_set("futurex@sample",
                   list(fake_chat(server, model = "m1"), primed_chat(server, model = "m1")),
                   log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(set$status, c("done", "done"))
  expect_false(set$cell_id[[1]] == set$cell_id[[2]])
  expect_equal(server$count(), 4)
  expect_equal(sum(vapply(server$requests(), has_few_shot, TRUE)), 2)
})

test_that("on daemons, a chat's own key goes to its host, never the worker's", {
  server <- local_set_server()
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)
  key <- "sk-chat-OWN-key-4242"
  chats <- function(key) {
    list(ellmer::chat_openai_compatible(base_url = server$url, model = "m1",
                                        credentials = function() key),
         ellmer::chat_openai(base_url = server$url, model = "m2",
                             credentials = function() key))
  }
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", chats(key), log_dir = logs, settings = set_settings(cache),
                   limit = 2)
  expect_equal(set$status, c("done", "done"))
  expect_equal(server$auths(), rep(paste("Bearer", key), 4))
  # the key is in no file of the set: not in a log, a record or the cache
  expect_length(files_holding(key, c(logs, cache)), 0)
  # another key for the same models is the same cells
  again <- quiet_set("futurex@sample", chats("sk-another-key"), log_dir = logs,
                     settings = set_settings(cache), limit = 2)
  expect_equal(again$cell_id, set$cell_id)
  expect_equal(again$reused, c(TRUE, TRUE))
  expect_equal(server$count(), 4)
  expect_false(any(grepl(decoy, server$auths(), fixed = TRUE)))
})

# A server that answers only the key it is given, as a provider does: any other
# Authorization header gets a 401.
local_keyed_server <- function(key, .local_envir = parent.frame()) {
  reply <- function(body, n) {
    if (!identical(attr(body, "auth"), paste("Bearer", key))) {
      return(list(status = 401, json = list(error = list(
        message = "Incorrect API key provided.", type = "invalid_request_error"))))
    }
    "\\boxed{A}"
  }
  environment(reply) <- list2env(list(key = key), parent = globalenv())
  local_fake_openai(reply, .local_envir = .local_envir)
}

board_of <- function(logs) {
  board <- suppressMessages(suppressWarnings(leaderboard(logs)))
  # (which run wrote it, when and where: not the board)
  tibble::as_tibble(board)[order(board$benchmark, board$model, board$metric),
                           setdiff(names(board), c("run", "created", "source"))]
}

test_that("a chat with its constructor's default key does on daemons what it does here", {
  key <- "sk-HERE-calling-process-7777"
  server <- local_keyed_server(key)
  withr::local_envvar(OPENAI_API_KEY = key)
  # no `credentials`: ellmer's default, this process's OPENAI_API_KEY, wherever it points
  chats <- lapply(c("m1", "m2"), function(m) {
    ellmer::chat_openai_compatible(base_url = server$url, model = m)
  })
  cols <- c("benchmark", "model", "cell_id", "status", "failed_samples", "metric", "headline")
  logs_here <- withr::local_tempdir()
  cache_here <- withr::local_tempdir()
  here <- quiet_set(set_benchmarks_sample, chats, log_dir = logs_here,
                    settings = set_settings(cache_here))
  expect_equal(here$status, rep("done", 4))
  sent_here <- server$count()
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)  # the workers' own OPENAI_API_KEY, never to be sent
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  there <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = set_settings(cache))
  expect_equal(there[cols], here[cols])
  expect_equal(board_of(logs), board_of(logs_here))
  expect_equal(server$count(), 2 * sent_here)
  expect_equal(unique(server$auths()), paste("Bearer", key))
  # the key is in no file of either run: no log, record or cache entry
  expect_length(files_holding(key, c(logs_here, logs, cache_here, cache)), 0)
})

test_that("on daemons, each key reaches only its own host", {
  here_key <- "sk-HERE-for-host-A-1111"
  own_key <- "sk-OWN-for-host-B-2222"
  a <- local_keyed_server(here_key)
  b <- local_keyed_server(own_key)
  withr::local_envvar(OPENAI_API_KEY = here_key)
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)
  models <- list(ellmer::chat_openai_compatible(base_url = a$url, model = "m1"),
                 ellmer::chat_openai_compatible(base_url = b$url, model = "m2",
                                                credentials = function() own_key),
                 ellmer::chat_openai(base_url = a$url, model = "m3"))
  set <- quiet_set("futurex@sample", models, log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(set$status, rep("done", 3))
  expect_equal(a$auths(), rep(paste("Bearer", here_key), 4))
  expect_equal(b$auths(), rep(paste("Bearer", own_key), 2))
})

test_that("on daemons as here, a chat without its key stops the set in one line, sending nothing", {
  server <- local_set_server()
  local_daemons(2)
  set_daemon_decoy_key(2)
  # (ellmer skips a test instead of failing where TESTTHAT is "true")
  withr::local_envvar(OPENAI_API_KEY = NA, TESTTHAT = "false")
  keyless <- ellmer::chat_openai_compatible(base_url = server$url, model = "m1")
  err <- expect_error(quiet_set("futurex@sample", list(keyless), log_dir = withr::local_tempdir(),
                                settings = set_settings(withr::local_tempdir()), limit = 2),
                      class = "predictivebench_error_credentials")
  expect_match(conditionMessage(err), "OPENAI_API_KEY", fixed = TRUE)
  expect_equal(server$count(), 0)
})

test_that("when every daemon is killed, the waiting cells fail within a bound; done ones stay", {
  skip_if_not_installed("callr")
  server <- local_set_server(latency = 300)
  local_daemons(2)
  pids <- daemon_pids(2)
  expect_length(pids, 2)
  logs <- withr::local_tempdir()
  withr::local_options(predictivebench.daemons_grace_s = 2)
  # Outside this process (which waits in eval_set()): once the quick cell is done and the
  # slow one waits on the server, every daemon is killed (SIGKILL: nothing is cleaned up).
  killer <- callr::r_bg(function(count_url, records, pids) {
    repeat {
      n <- tryCatch(jsonlite::fromJSON(count_url)$n, error = function(e) 0)
      if (n >= 1 && length(list.files(records, pattern = "[.]json$")) >= 1) break  # (not a lock)
      Sys.sleep(0.2)
    }
    tools::pskill(pids, tools::SIGKILL)
  }, args = list(count_url = sub("/v1$", "/__count", server$url),
                 records = file.path(logs, ".eval-set"), pids = pids))
  withr::defer(killer$kill())
  # without the bound, the set would wait forever: stop it after 120 s
  setTimeLimit(elapsed = 120, transient = TRUE)
  withr::defer(setTimeLimit(elapsed = Inf))
  models <- list(baseline_chat("\\boxed{A}", name = "quick"), fake_chat(server, model = "slow"))
  start <- Sys.time()
  set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1, retries = 1,
                   settings = set_settings(withr::local_tempdir(), timeout = 900))
  expect_lt(as.double(difftime(Sys.time(), start, units = "secs")), 60)
  expect_false(killer$is_alive())
  expect_equal(set$status, c("done", "failed"))
  expect_match(set$error[[2]], "Every mirai daemon is gone", fixed = TRUE)
  expect_true(file.exists(set$log_path[[1]]))
  expect_equal(server$count(), 1)
})

test_that("on daemons, a panel judge's members travel with their own credentials and give the verdicts they give here", {
  server <- local_fake_openai(function(body, n) {
    switch(body$model, ja = , jb = "True", jc = "False", "\\boxed{A}")
  })
  judges <- list(fake_chat(server, "ja", key = "sk-judge-a"),
                 fake_chat(server, "jb", key = "sk-judge-b"),
                 fake_chat(server, "jc", key = "sk-judge-c"))
  here <- quiet_set("dsbench@sample", set_chats(server, "m1"),
                    log_dir = withr::local_tempdir(), judge = judges,
                    settings = set_settings(withr::local_tempdir()), limit = 2)
  sent_here <- server$count()
  local_daemons(2)
  logs <- withr::local_tempdir()
  there <- quiet_set("dsbench@sample", set_chats(server, "m1"), log_dir = logs,
                     judge = judges, settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(there$status, "done")
  expect_equal(there$headline, here$headline)
  expect_equal(server$count() - sent_here, sent_here)
  bodies <- server$requests()[-seq_len(sent_here)]
  auths <- server$auths()[-seq_len(sent_here)]
  models <- vapply(bodies, `[[`, "", "model")
  expect_setequal(auths[models == "jb"], "Bearer sk-judge-b")
  expect_setequal(auths[models == "jc"], "Bearer sk-judge-c")
  samples <- log_samples(there$log_path[[1]])
  each <- panel_judges(vapply(samples$scorer_metadata, `[[`, "", "judges"))
  expect_identical(each$judge, rep(c("ja", "jb", "jc"), 2))
})
