# One writer per cell: two R processes on one set folder (callr children), a holder that is
# killed, a holder that stays.

# A child R process that loads the package from its source tree, says it is ready (a file in
# `ready`), waits for the file `go`, then runs the set of futurex@sample x `models` in `logs`.
set_child <- function(pkg, logs, cache, url, models, ready, go) {
  callr::r_bg(function(pkg, logs, cache, url, models, ready, go) {
    pkgload::load_all(pkg, quiet = TRUE)
    chats <- lapply(models, function(m) {
      ellmer::chat_openai_compatible(base_url = url, model = m,
                                     credentials = function() "sk-test-child")
    })
    settings <- request_settings(cache = cache, rpm = Inf, retry = list(max_tries = 1, backoff = 0))
    writeLines("", file.path(ready, Sys.getpid()))
    while (!file.exists(go)) Sys.sleep(0.02)
    set <- suppressMessages(suppressWarnings(
      eval_set("futurex@sample", chats, log_dir = logs, settings = settings, options = set_options(limit = 2))
    ))
    as.data.frame(set[c("cell_id", "status", "reused", "log_path", "error")])
  }, args = list(pkg, logs, cache, url, models, ready, go),
  stdout = tempfile(), stderr = tempfile())
}

# A child that holds the lock file `path` until it is killed.
lock_holder <- function(path) {
  ready <- paste0(path, ".held")
  holder <- callr::r_bg(function(path, ready) {
    lock <- filelock::lock(path)
    writeLines("", ready)
    Sys.sleep(600)
  }, args = list(path, ready))
  deadline <- Sys.time() + 30
  while (!file.exists(ready) && holder$is_alive() && Sys.time() < deadline) Sys.sleep(0.05)
  holder
}

test_that("two processes on one folder run each cell once: nothing paid twice, one log each", {
  skip_on_cran()
  skip_on_os("windows")
  pkg <- skip_if_no_source_tree()
  # slow answers: without a lock, both processes would have every request in flight at once
  server <- local_set_server(latency = 2)
  root <- withr::local_tempdir()
  logs <- file.path(root, "logs")
  ready <- file.path(root, "ready")
  dir.create(ready)
  go <- file.path(root, "go")
  models <- c("m1", "m2", "m3")
  children <- lapply(1:2, function(i) {
    set_child(pkg, logs, file.path(root, "cache"), server$url, models, ready, go)
  })
  withr::defer(for (child in children) child$kill())
  deadline <- Sys.time() + 120
  while (length(list.files(ready)) < 2 && Sys.time() < deadline &&
         all(vapply(children, function(x) x$is_alive(), TRUE))) {
    Sys.sleep(0.05)
  }
  expect_length(list.files(ready), 2)
  writeLines("", go)  # both start together
  results <- lapply(children, function(child) {
    child$wait(120000)
    child$get_result()
  })
  for (result in results) expect_equal(result$status, rep("done", 3), info = result$error)
  expect_equal(server$count(), 3 * 2)  # one set's requests: 3 cells of 2 samples
  expect_length(list.files(logs, pattern = "[.]json$"), 3)
  expect_equal(results[[1]]$log_path, results[[2]]$log_path)
  # each cell was run by one process and taken from its log by the other
  expect_true(all(xor(results[[1]]$reused, results[[2]]$reused)))
})

test_that("a held cell is waited for, skipped past the wait, and free once its holder dies", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  ids <- eval_set("futurex@sample", chats, log_dir = logs, settings = settings, options = set_options(limit = 2, dry_run = TRUE))$cell_id
  holder <- lock_holder(cell_lock_path(logs, ids[[2]]))
  withr::defer(holder$kill())
  expect_true(holder$is_alive())
  withr::local_options(predictivebench.cell_wait_s = 1.5)
  expect_message(
    set <- suppressWarnings(eval_set("futurex@sample", chats, log_dir = logs,
                                     settings = settings, options = set_options(limit = 2))),
    class = "predictivebench_message_eval_set_waits"
  )
  expect_equal(set$status, c("done", "failed"))
  expect_match(set$error[[2]], "Another process", fixed = TRUE)
  expect_equal(server$count(), 2)  # the held cell sent nothing
  expect_length(list.files(logs, pattern = "[.]json$"), 1)

  # killed, it holds nothing: the cell runs at once
  holder$kill()
  holder$wait(5000)
  withr::local_options(predictivebench.cell_wait_s = 60)
  started <- Sys.time()
  again <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 2)
  expect_lt(as.double(difftime(Sys.time(), started, units = "secs")), 30)
  expect_equal(again$status, c("done", "done"))
  expect_equal(again$reused, c(TRUE, FALSE))
  expect_equal(server$count(), 4)
})

test_that("a cell finished by another process while this one waited is taken from its log", {
  dir <- withr::local_tempdir()
  cells <- list(list(id = "a", benchmark = list(label = "futurex", version = "sample"),
                     label = "m/x", epochs = NULL))
  dir.create(records_dir(dir))
  log <- file.path(dir, "a.json")
  writeLines('{"version": 2, "status": "success", "eval": {}, "samples": []}', log)
  write_cell_record(dir, cells[[1]], new_outcome("done", log_path = log, metric = "overall",
                                              headline = 1, cost = 0))
  ran <- 0
  out <- run_locked_cells(cells, dir, function(cells) {
    ran <<- ran + 1
    list(new_outcome("done"))
  })
  expect_equal(ran, 0)
  expect_equal(out[[1]]$status, "done")
  expect_true(out[[1]]$reused)
})
