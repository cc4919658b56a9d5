test_that("only settings that differ from the defaults are named to $eval()", {
  expect_equal(changed_settings(NULL), list())
  expect_equal(changed_settings(request_settings()), setNames(list(), character()))
  changed <- changed_settings(request_settings(max_active = 3, cache = FALSE))
  expect_equal(changed, list(max_active = 3, cache = FALSE))
})

test_that("a cell whose task fails is a failed outcome with its error, and writes no record", {
  dir <- withr::local_tempdir()
  cell <- list(id = "c", chat = baseline_chat("x"), epochs = NULL, label = "b/x",
               benchmark = list(label = "futurex", version = "sample",
                                task = function(...) stop("no task here")))
  out <- run_cell(cell, dir, request_settings(cache = FALSE))
  expect_equal(out$status, "failed")
  expect_false(dir.exists(records_dir(dir)))
})

test_that("settings reach only the package's steps: a task solved by a solver of the user's runs", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  data <- futurex_dataset(version = "sample", limit = 2)
  ours <- futurex_task(data, dir = withr::local_tempdir())
  # vitals::generate() is sent through the engine (benchmark_task()), and is the package's
  generated <- futurex_task(data, solver = vitals::generate(), dir = withr::local_tempdir())
  expect_true(takes_request_settings(generated))
  # a solver of the user's that hands every other argument to the model, as generate() did
  solver <- function(inputs, ..., solver_chat) {
    chats <- ellmer::parallel_chat(solver_chat$clone(), as.list(inputs), ...)
    list(result = vapply(chats, function(ch) ch$last_turn()@text, ""), solver_chat = chats)
  }
  theirs <- futurex_task(data, solver = solver, dir = withr::local_tempdir())
  expect_true(takes_request_settings(ours))
  expect_false(takes_request_settings(theirs))
  # settings that differ from the defaults, which that solver would hand the model
  set <- eval_set(list(futurex = theirs), list(baseline_chat("\\boxed{A}", name = "a")),
                  log_dir = withr::local_tempdir(),
                  settings = request_settings(max_active = 3, cache = FALSE))
  expect_equal(set$status, "done", info = set$error)
  expect_length(jsonlite::read_json(set$log_path)$samples, 2)
})

test_that("a plain vitals Task runs in a set: done, and run again from the cache next time", {
  server <- local_set_server()
  settings <- set_settings(withr::local_tempdir())
  plain <- vitals::Task$new(
    dataset = tibble::tibble(input = c("1+1?", "2+2?"), target = c("2", "4")),
    solver = vitals::generate(), scorer = function(samples, ...) {
      list(score = factor(rep("C", nrow(samples)), levels = c("I", "C"), ordered = TRUE))
    }, name = "plain"
  )
  logs <- withr::local_tempdir()
  set <- quiet_set(list(plain = plain), set_chats(server, "m1"), log_dir = logs,
                   settings = settings)
  expect_equal(set$status, "done")
  expect_equal(server$count(), 2)
})

test_that("a cell's log names its model as the set's table does: the board tells two chats apart", {
  server <- local_set_server()
  chats <- list(fake_chat(server, model = "m1"),
                fake_chat(server, model = "m1", params = ellmer::params(temperature = 0.7)))
  logs <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", chats, log_dir = logs, limit = 2,
                   settings = set_settings(withr::local_tempdir()))
  expect_equal(anyDuplicated(set$model), 0L)
  board <- suppressMessages(leaderboard(logs))
  expect_setequal(unique(board$model), set$model)
  expect_equal(vapply(set$log_path, function(p) read_log_header(p)$eval$model, ""),
               set$model, ignore_attr = TRUE)
})
