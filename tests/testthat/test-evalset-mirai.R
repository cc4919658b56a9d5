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
