# What a set paid for is recorded as paid: its cells hand their requests to the overlap and
# are then evaluated again from the cache, and those answers are this run's, not cached.

sample_usage <- function(path) {
  samples <- log_samples(path)
  meta <- samples$solver_metadata
  tibble::tibble(
    cached = vapply(meta, function(m) isTRUE(m$cached), TRUE),
    input_tokens = vapply(meta, function(m) as.double(m$input_tokens %||% NA), 1),
    seconds = vapply(meta, function(m) as.double(m$seconds %||% NA), 1)
  )
}

test_that("a fresh set's logs carry what it paid; a rerun's carry cached answers at 0", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  set <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  expect_equal(server$count(), 6)
  for (path in set$log_path) {
    usage <- sample_usage(path)
    expect_false(any(usage$cached))
    expect_true(all(usage$input_tokens > 0))
    # the header's model usage counts them too
    expect_gt(sum(log_usage(path)$input_tokens), 0)
  }
  # the fake models have no price: the cost is unknown, not 0
  expect_true(all(is.na(set$cost)))

  # The same cells again in a new set (their records and logs gone): every answer is read
  # from the cache, paid by the earlier run, so it is cached and costs nothing.
  unlink(c(set$log_path, file.path(logs, ".eval-set")), recursive = TRUE)
  again <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  expect_equal(server$count(), 6)
  for (path in again$log_path) {
    usage <- sample_usage(path)
    expect_true(all(usage$cached))
    expect_equal(usage$input_tokens, rep(0, 3))
    expect_equal(sum(log_usage(path)$input_tokens), 0)
  }
  expect_equal(again$cost, c(0, 0))
})

test_that("a priced model's set cost is the sum of its logs' costs", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  # a model in ellmer's price table, at the fake server
  chat <- ellmer::chat_openai(base_url = server$url, model = "gpt-4.1-nano",
                              credentials = function() "sk-test")
  set <- quiet_set("futurex@sample", list(chat), log_dir = logs, settings = settings,
                   limit = 3)
  expect_gt(set$cost, 0)
  expect_equal(set$cost, sum(log_usage(set$log_path)$total_cost))
})

test_that("a run stamps the answers it pays for, and only those count as its own", {
  records <- list(list(text = "a", run = structure("r1", class = "predictivebench_run")),
                  list(text = "b"), NULL)
  run <- structure("r1", class = "predictivebench_run")
  expect_equal(paid_by_run(records, run), c(TRUE, FALSE, FALSE))
  expect_equal(paid_by_run(records, NULL), c(FALSE, FALSE, FALSE))
  # the run is the request session's (R/engine-session.R), not a setting
  expect_error(settings_with_dots(request_settings(), run = run),
               class = "predictivebench_error_argument")
  expect_identical(with_request_session(new_request_session(run = run),
                                        current_request_session()$run), run)
})

test_that("on daemons too, a fresh set's logs carry what it paid", {
  server <- local_set_server()
  local_daemons(2)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
                   settings = settings, limit = 2)
  expect_equal(server$count(), 4)
  for (path in set$log_path) {
    usage <- sample_usage(path)
    expect_false(any(usage$cached))
    expect_true(all(usage$input_tokens > 0))
  }
})

test_that("a cell run again from the cache in a later call costs what the set paid for it", {
  # The second cell's log is cut short: the next call runs it again, every answer from the
  # cache. Those answers were paid by this set (an earlier call on the same folder): the
  # cell's cost and its new log's model usage say what was paid, as for the cell done
  # before, not 0.
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  priced <- function(model) {
    ellmer::chat_openai(base_url = server$url, model = model, credentials = function() "sk-test")
  }
  chats <- list(priced("gpt-4.1-nano"), priced("gpt-4.1-mini"))
  first <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  expect_true(all(first$cost > 0))
  sent <- server$count()
  text <- readBin(first$log_path[[2]], "raw", file.size(first$log_path[[2]]))
  writeBin(text[seq_len(length(text) %/% 2)], first$log_path[[2]])
  again <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  expect_equal(server$count(), sent)
  expect_equal(again$reused, c(TRUE, FALSE))
  expect_equal(again$cost, first$cost)
  expect_equal(again$cost[[2]], sum(log_usage(again$log_path[[2]])$total_cost))
  expect_gt(sum(log_usage(again$log_path[[2]])$input_tokens), 0)
})
