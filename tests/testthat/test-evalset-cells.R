test_that("a cell's identity holds the benchmark and model, not how requests are sent", {
  dir <- withr::local_tempdir()
  a <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE))
  b <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE,
                                 settings = request_settings(max_active = 2, rpm = 10)))
  expect_equal(a$cell_id, b$cell_id)
  c <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{No}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE))
  expect_false(identical(a$cell_id, c$cell_id))
  expect_error(eval_set("nonesuch", list(baseline_chat("x")), log_dir = dir),
               class = "predictivebench_error_argument")
})

test_that("the names a set takes come from the registry; a registration can refuse a version", {
  # the registrations that say how their task is built, and only those
  tasks <- vapply(registrations(), function(e) is.function(e$task), TRUE)
  expect_setequal(set_benchmark_names(), names(tasks)[tasks])
  expect_false("arena_battles" %in% set_benchmark_names())
  # one registered in the session joins them, and leaves with it
  new_benchmark("cells-toy", identity, task = function(dataset, dir) NULL)
  expect_true("cells-toy" %in% set_benchmark_names())
  unregister_benchmark("cells-toy")
  expect_false("cells-toy" %in% set_benchmark_names())
  expect_error(named_benchmark("cells-toy@sample", NULL, NULL, rlang::current_env()),
               class = "predictivebench_error_argument")
  # the arena's registration refuses its real versions by name, before any cell runs
  expect_true(is.function(registration("arena")$check_by_name))
  expect_error(named_benchmark("arena@rwq_200", NULL, NULL, rlang::current_env()),
               class = "predictivebench_error_answers")
  expect_equal(named_benchmark("arena@sample", NULL, NULL, rlang::current_env())$version,
               "sample")
})

test_that("a task object's own epochs are part of its cells' identity when the set gives none", {
  data <- futurex_dataset(version = "sample", limit = 2)
  spec <- list(chat_spec(baseline_chat("\\boxed{A}", name = "a")))
  cell_id <- function(task, epochs = NULL) {
    set_cells(set_benchmarks(list(futurex = task), NULL, NULL), spec, list(NULL), epochs)[[1]]$id
  }
  one <- futurex_task(data, dir = withr::local_tempdir())
  three <- futurex_task(data, dir = withr::local_tempdir(), epochs = 3)
  expect_false(cell_id(one) == cell_id(three))
  # the set's epochs, when given, are the cells' (the task's own don't run)
  expect_equal(cell_id(one, epochs = 3), cell_id(three, epochs = 3))
  # a task without epochs of its own: the identity it had before
  expect_equal(cell_id(one), cell_id(futurex_task(data, dir = withr::local_tempdir())))
})
