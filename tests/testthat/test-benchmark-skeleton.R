test_that("benchmark_dataset() reads the sample, a parquet file or a data frame", {
  sample <- benchmark_dataset("futurex", version = "sample")
  path <- system.file("extdata", "futurex-sample.parquet", package = "predictivebench")
  expect_equal(benchmark_dataset("futurex", path), sample)
  expect_equal(benchmark_dataset("futurex", as.data.frame(sample)), sample)
  expect_s3_class(sample, "tbl_df")
  # the schema is checked whichever way the table comes in
  bad <- sample
  bad$level <- as.character(bad$level)
  expect_error(benchmark_dataset("futurex", bad), class = "predictivebench_error_schema")
  expect_error(benchmark_dataset("probsem", path), class = "predictivebench_error_benchmark")
  expect_snapshot(benchmark_dataset("futurex", 42), error = TRUE)
  expect_snapshot(benchmark_dataset("futurex", version = "sample", sample = NULL), error = TRUE)
})

test_that("benchmark_dataset() runs the benchmark's row check with the file name", {
  path <- system.file("extdata", "futurex-sample.parquet", package = "predictivebench")
  seen <- NULL
  check <- function(table, file) {
    seen <<- file
    table[table$level == 1, ]
  }
  out <- benchmark_dataset("futurex", path, check = check)
  expect_equal(seen, path)
  expect_true(all(out$level == 1))
  benchmark_dataset("futurex", as.data.frame(out), check = check)
  expect_equal(seen, "<data frame>")
})

test_that("an empty task table is a classed error naming the file, not a crash in $eval()", {
  sample <- benchmark_dataset("futurex", version = "sample")
  path <- write_task_table(sample[0, ], withr::local_tempfile(fileext = ".parquet"), "futurex")
  err <- expect_error(futurex_dataset(path), class = "predictivebench_error_empty")
  expect_identical(err$file, path)
  expect_error(futurex_dataset(sample[0, ]), class = "predictivebench_error_empty")
  # A table emptied after it was read stops when the task is made.
  expect_snapshot(futurex_task(sample[0, ], dir = tempfile()), error = TRUE)
  expect_error(dsbench_task(dsbench_dataset(version = "sample")[0, ], dir = tempfile()),
               class = "predictivebench_error_empty")
})

test_that("a task table column that vitals keeps for its results is refused, naming it", {
  sample <- futurex_dataset(version = "sample")
  for (name in c("epoch", "result", "score", "solver_chat")) {
    x <- sample
    x[[name]] <- "mine"
    err <- expect_error(futurex_task(x, dir = tempfile()), class = "predictivebench_error_schema")
    expect_identical(err$field, name)
  }
})

test_that("limit takes the first n rows; shuffle makes it a seeded random sample", {
  full <- benchmark_dataset("futurex", version = "sample")
  first <- benchmark_dataset("futurex", version = "sample", limit = 3)
  expect_equal(first$id, full$id[1:3])
  expect_equal(nrow(benchmark_dataset("futurex", full, limit = 1000)), nrow(full))
  a <- benchmark_dataset("futurex", full, limit = 4, shuffle = 7)
  b <- benchmark_dataset("futurex", full, limit = 4, shuffle = 7)
  expect_identical(a, b)
  expect_true(all(a$id %in% full$id))
  expect_false(identical(a$id, full$id[1:4]))
  expect_false(identical(a$id, benchmark_dataset("futurex", full, limit = 4, shuffle = 8)$id))
  # the global random stream is left alone
  set.seed(1)
  expected <- runif(1)
  set.seed(1)
  benchmark_dataset("futurex", full, shuffle = 3)
  expect_equal(runif(1), expected)
  expect_snapshot(benchmark_dataset("futurex", full, limit = 0), error = TRUE)
  expect_snapshot(benchmark_dataset("futurex", full, shuffle = "yes"), error = TRUE)
})

test_that("solver_rows() maps inputs to rows by position, for either epoch layout", {
  dataset <- tibble::tibble(input = c("a", "b", "a"), target = "", id = c("x", "y", "z"))
  each <- solver_rows(c("a", "a", "b", "b", "a", "a"), dataset)
  expect_equal(each$.row, c(1L, 1L, 2L, 2L, 3L, 3L))
  expect_equal(each$.epoch, c(1L, 2L, 1L, 2L, 1L, 2L))
  expect_equal(each$id, c("x", "x", "y", "y", "z", "z"))
  times <- solver_rows(c("a", "b", "a", "a", "b", "a"), dataset)
  expect_equal(times$.row, c(1L, 2L, 3L, 1L, 2L, 3L))
  expect_equal(times$.epoch, c(1L, 1L, 1L, 2L, 2L, 2L))
})

test_that("solver_rows() falls back to the text, and refuses what it can't tell apart", {
  dataset <- tibble::tibble(input = c("a", "b", "a"), target = "", id = c("x", "y", "z"))
  sub <- solver_rows(c("b", "b"), dataset)
  expect_equal(sub$.row, c(2L, 2L))
  expect_equal(sub$.epoch, c(1L, 2L))
  expect_snapshot(solver_rows("a", dataset), error = TRUE)
  expect_error(solver_rows("c", dataset), class = "predictivebench_error_argument")
  unbound <- solver_rows(c("p", "q", "p"), NULL)
  expect_equal(unbound$.epoch, c(1L, 1L, 2L))
  expect_false(is_bound(unbound))
})

test_that("a dataset_solver() gets the rows of the dataset it is bound to", {
  got <- NULL
  solver <- dataset_solver(function(inputs, rows, ..., solver_chat) {
    got <<- list(rows = rows, chat = solver_chat, dots = list(...))
    list(result = if (is_bound(rows)) rows$id else inputs,
         solver_chat = rep(list(solver_chat), length(inputs)))
  })
  dataset <- tibble::tibble(input = c("a", "a"), target = "", id = c("x", "y"))
  bound <- bind_dataset(solver, dataset)
  out <- bound(c("a", "a"), solver_chat = "chat", extra = 1)
  expect_equal(out$result, c("x", "y"))  # same text, each its own row
  expect_equal(got$chat, "chat")
  expect_equal(got$dots, list(extra = 1))
  expect_true(is_bound(got$rows))
  # unbound: no rows, epochs counted over equal inputs
  solver(c("a", "a"))
  expect_false(is_bound(got$rows))
  expect_equal(got$rows$.epoch, 1:2)
  # rebinding replaces the dataset; other solvers pass through unchanged
  other <- tibble::tibble(input = "a", target = "", id = "w")
  expect_equal(bind_dataset(bound, other)("a")$result, "w")
  plain <- function(inputs, ..., solver_chat) NULL
  expect_identical(bind_dataset(plain, dataset), plain)
  expect_error(dataset_solver("no"), class = "predictivebench_error_argument")
})

# A chat per input that has answered it, as vitals logs each sample's conversation.
answered_chats <- function(chat, inputs) {
  lapply(inputs, function(input) {
    ch <- chat$clone()
    ch$chat(input, echo = "none")
    ch
  })
}

test_that("benchmark_task() checks the core arguments and binds the solver", {
  dataset <- tibble::tibble(input = c("a", "b", "c"), target = c("1", "2", "3"),
                            id = c("x", "y", "z"))
  solver <- dataset_solver(function(inputs, rows, ..., solver_chat) {
    list(result = rows$target, solver_chat = answered_chats(solver_chat, inputs))
  })
  scorer <- function(samples, ...) list(score = as.double(samples$result == samples$target))
  tsk <- benchmark_task(dataset[1:2, ], solver, scorer, dir = tempfile(), benchmark = "skeleton")
  expect_equal(tsk$get_samples()$id, c("x", "y"))
  tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)
  expect_equal(tsk$get_samples()$result, c("1", "2"))
  expect_equal(tsk$get_samples()$score, c(1, 1))
  expect_snapshot(benchmark_task(dataset["id"], solver, scorer, benchmark = "x"), error = TRUE)
  expect_error(benchmark_task(dataset, solver, scorer, benchmark = "x", epochs = 0),
               class = "predictivebench_error_argument")
  expect_error(benchmark_task(dataset, "solver", scorer, benchmark = "x"),
               class = "predictivebench_error_argument")
})

test_that("benchmark_samples() takes a Task or its samples, and says what it needs", {
  dataset <- tibble::tibble(input = "a", target = "1", id = "x")
  tsk <- benchmark_task(dataset, function(inputs, ..., solver_chat) {
    list(result = "1", solver_chat = answered_chats(solver_chat, inputs))
  }, function(samples, ...) list(score = 1), dir = tempfile(), benchmark = "skeleton")
  tsk$eval(solver_chat = baseline_constant("1"), view = FALSE)
  from_task <- benchmark_samples(tsk, c("result", "score"), "a task.")
  expect_equal(from_task, tsk$get_samples())
  expect_equal(benchmark_samples(from_task, "result", "a task."), from_task)
  expect_snapshot(
    benchmark_samples(from_task, "level", "an evaluated FutureX task or its samples."),
    error = TRUE
  )
  expect_error(benchmark_samples(file.path(tempdir(), "no-run.json"), "level", "a task."),
               class = "predictivebench_error_missing_file")
})

test_that("benchmark_task() with a benchmark name builds a ResultsTask that logs it", {
  dataset <- tibble::tibble(input = c("a", "b"), target = c("1", "2"), id = c("x", "y"),
                            level = 1:2, note = c("p", "q"))
  scorer <- function(samples, ...) {
    list(score = factor(ifelse(samples$result == samples$target, "C", "I"),
                        levels = c("I", "C")))
  }
  tsk <- benchmark_task(dataset, generate_solver(settings = request_settings(cache = FALSE)), scorer,
                        dir = withr::local_tempdir(), benchmark = "skeleton",
                        options = task_options(name = "run 1", metadata_fields = "level"))
  expect_s3_class(tsk, "ResultsTask")
  tsk$eval(solver_chat = baseline_constant("1"), view = FALSE)
  expect_identical(tsk$get_samples()$score, c(1, 0))
  log <- jsonlite::fromJSON(tsk$log_path, simplifyVector = FALSE)
  expect_equal(log$results$scores[[1]]$name, "skeleton_score")
  expect_equal(log$eval$metadata$benchmark, "skeleton")
  expect_named(log$results$scores[[1]]$metrics, "mean")
  expect_equal(log$samples[[2]]$metadata$level, 2L)
  expect_null(log$samples[[2]]$metadata$note)
  expect_error(benchmark_task(dataset, generate_solver(), scorer),
               "benchmark")
})

test_that("benchmark_task()'s old names of its options warn and make the same task", {
  dataset <- tibble::tibble(input = c("a", "b"), target = c("1", "2"), id = c("x", "y"),
                            level = 1:2, note = c("p", "q"))
  scorer <- function(samples, ...) list(score = as.double(samples$result == samples$target))
  metrics <- list(share = function(scores) mean(scores))
  run <- function(...) {
    tsk <- benchmark_task(dataset, generate_solver(settings = request_settings(cache = FALSE)),
                          scorer, dir = withr::local_tempdir(),
                          benchmark = "skeleton", ...)
    tsk$eval(solver_chat = baseline_constant("1"), view = FALSE)
    log <- jsonlite::read_json(tsk$log_path)
    # the task's name in logs, before the run's own part
    list(name = sub("/.*$", "", log$eval$task), metrics = names(log$results$scores[[1]]$metrics),
         value = log$results$scores[[1]]$metrics$share$value,
         fields = names(log$samples[[1]]$metadata), scores = tsk$get_samples()$score)
  }
  new <- run(options = task_options(name = "run 1", metrics = metrics, metadata_fields = "level"))
  expect_warning(
    old <- run(name = "run 1", metrics = metrics, metadata_fields = "level"),
    class = "predictivebench_warning_deprecated"
  )
  expect_equal(old, new)
  expect_equal(new$name, "run-1")
  expect_equal(new$metrics, "share")
  expect_true("level" %in% new$fields)
  expect_false("note" %in% new$fields)
  # an old name wins over the same field of `options`, as the other options objects' do
  expect_warning(both <- run(options = task_options(name = "a"), name = "b"),
                 class = "predictivebench_warning_deprecated")
  expect_equal(both$name, "b")
  # options are checked once, where they are made; anything else is refused
  expect_error(benchmark_task(dataset, scorer, scorer, benchmark = "x", options = list()),
               class = "predictivebench_error_argument")
  expect_error(benchmark_task(dataset, scorer, scorer, benchmark = "x", nonesuch = 1),
               class = "predictivebench_error_argument")
  expect_error(task_options(metrics = mean), class = "predictivebench_error_argument")
  expect_error(task_options(metadata_fields = 1), class = "predictivebench_error_argument")
  expect_error(task_options(name = c("a", "b")), class = "predictivebench_error_argument")
})

test_that("benchmark_task() takes a benchmark object, registering nothing", {
  questions <- data.frame(id = c("q1", "q2", "q3"), input = c("1 + 1?", "2 + 2?", "3 + 3?"),
                          target = c("2", "4", "6"), topic = c("a", "a", "b"))
  summary <- function(x) {
    x <- benchmark_samples(x, c("score", "topic"), "a task.")
    grouped_summary(as.numeric(x$score), by = x$topic, metric = "accuracy")
  }
  toy <- new_benchmark("pbt-object", list(fn = summary, headline = c("overall", "a")),
                       comparison = list(cluster = "topic"),
                       data = list(sample = questions, schema = data.frame(
                         name = c("id", "input", "target", "topic"), type = "string")))
  scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
  run <- function(benchmark) {
    tsk <- benchmark_task(questions, vitals::generate(), scorer, dir = withr::local_tempdir(),
                          benchmark = benchmark,
                          options = task_options(metadata_fields = character()))
    tsk$eval(solver_chat = baseline_chat("4"), view = FALSE)
    log <- jsonlite::read_json(tsk$log_path)
    list(metrics = vapply(log$results$scores[[1]]$metrics, function(m) m$value, 1),
         fields = names(log$samples[[1]]$metadata), of_log = summary(tsk$log_path)$estimate,
         of_task = summary(tsk)$estimate)
  }
  object <- run(toy)
  expect_null(benchmark_named("pbt-object"))
  # its headline, from the object; its cluster column logged, so its log has its summary
  expect_equal(unname(object$metrics), c(1 / 3, 1 / 2), tolerance = 1e-12)
  expect_equal(names(object$metrics), c("overall", "a"))
  expect_true("topic" %in% object$fields)
  expect_equal(object$of_log, object$of_task)
  # registered, its name makes the same task
  local_benchmarks(list(toy))
  expect_equal(run("pbt-object"), object)
  expect_equal(run(toy), object)
  # unregistered, a summary of every row can't be found by its name: refused when built
  every_row <- new_benchmark("pbt-every-row", list(fn = summary, headline = NULL))
  expect_error(benchmark_task(questions, scorer, scorer, benchmark = every_row),
               class = "predictivebench_error_argument")
})

test_that("benchmark_samples() reads a log file and vitals_log_read() output", {
  dataset <- tibble::tibble(input = c("a", "b"), target = c("1", "2"), level = 1:2)
  scorer <- function(samples, ...) list(score = as.double(samples$result == samples$target))
  tsk <- benchmark_task(dataset, generate_solver(settings = request_settings(cache = FALSE)), scorer,
                        dir = withr::local_tempdir(), benchmark = "skeleton")
  tsk$eval(solver_chat = baseline_constant("1"), view = FALSE)
  from_file <- benchmark_samples(tsk$log_path, c("level", "score"), "a task.")
  expect_identical(from_file$level, 1:2)
  expect_identical(from_file$score, tsk$get_samples()$score)
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant("1"))
  expect_identical(benchmark_samples(read, "score", "a task.")$score, c(1, 0))
  expect_error(benchmark_samples(read, "level", "a task."), "pass the log file itself")
  with_level <- benchmark_samples(log_samples(read, dataset = log_samples(tsk$log_path)),
                                  "level", "a task.")
  expect_identical(with_level$level, 1:2)
})

# ---- A user's benchmark, as the vignette adds it: vitals::generate() through the engine ----

# A benchmark registered for the test alone, whose task solves with `solver` (by default
# vitals::generate(), as the vignette's toy does) and scores with a scorer of the user's.
local_user_benchmark <- function(name = "pbt-user", env = parent.frame()) {
  questions <- data.frame(id = c("q1", "q2", "q3"), input = c("1 + 1?", "2 + 2?", "3 + 3?"),
                          target = c("2", "4", "6"), topic = c("a", "a", "b"))
  summary <- function(x) {
    x <- benchmark_samples(x, c("score", "topic"), "a task.")
    grouped_summary(as.numeric(x$score), by = x$topic, metric = "accuracy")
  }
  task <- function(dataset = benchmark_dataset(name, version = "sample"), dir = tempfile(),
                   solver = vitals::generate(), scorer = NULL) {
    scorer <- scorer %||% function(samples, ...) {
      list(score = as.numeric(samples$result == samples$target))
    }
    benchmark_task(dataset, solver, scorer, dir = dir, benchmark = name)
  }
  local_benchmarks(list(new_benchmark(
    name, list(fn = summary, headline = c("overall", "b"), by = "topic"), task = task,
    data = list(schema = data.frame(name = c("id", "input", "target", "topic"), type = "string"),
                sample = questions))), env = env)
  task
}

# Answers "2" to everything, with token counts (the fake model has no price).
local_counting_server <- function(env = parent.frame()) {
  local_fake_openai(function(body, n) {
    list(text = "2", usage = list(prompt_tokens = 7, completion_tokens = 1))
  }, .local_envir = env)
}

test_that("a task solving with vitals::generate() is answered by the engine: cached, its cost unknown", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_counting_server()
  task <- local_user_benchmark()
  # the chat given to vitals::generate() stays the default
  first <- task(solver = vitals::generate(fake_chat(server)))
  suppressMessages(first$eval(view = FALSE))
  expect_equal(server$count(), 3)
  expect_equal(first$get_samples()$score, c(1, 0, 0))
  meta <- first$get_samples()$solver_metadata
  expect_false(any(vapply(meta, `[[`, TRUE, "cached")))
  # a model without a price: the cost is unknown (NA), not 0, in the log as in the samples
  expect_true(all(is.na(vapply(meta, function(m) as.double(m$cost), 1))))
  expect_equal(log_usage(first$log_path)$input_tokens, 21)
  expect_true(is.na(log_usage(first$log_path)$total_cost))
  # another task, another folder, the chat given to $eval(): every answer from the cache
  second <- task(dir = withr::local_tempdir())
  suppressMessages(second$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_equal(server$count(), 3)
  expect_true(all(vapply(second$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  expect_equal(second$get_samples()$score, first$get_samples()$score)
  expect_equal(log_usage(second$log_path)$total_cost, 0)
  # vitals::generate() of a function that makes the chat, as vitals allows
  third <- task(solver = vitals::generate(function() fake_chat(server)))
  suppressMessages(third$eval(view = FALSE))
  expect_equal(server$count(), 3)
  # the engine's settings, by name in $eval(): no cache sends again
  suppressMessages(third$eval(view = FALSE, cache = FALSE))
  expect_equal(server$count(), 6)
})

test_that("only vitals' own generate() is taken for it; the user's scorer is not handed the settings", {
  expect_true(is_vitals_generate(vitals::generate()))
  expect_false(is_vitals_generate(vitals::generate_structured()))
  # the same code outside vitals' namespace is the user's, and is left as it is
  copy <- vitals::generate()
  environment(copy) <- new.env(parent = globalenv())
  expect_false(is_vitals_generate(copy))
  expect_identical(engine_generate(copy), copy)
  expect_identical(engine_generate(identity), identity)
  expect_false(identical(engine_generate(vitals::generate()), vitals::generate()))

  task <- local_user_benchmark()
  seen <- list()
  scorer <- function(samples, ..., scorer_chat = NULL) {
    seen <<- c(list(...), list(scorer_chat = scorer_chat))
    list(score = as.numeric(samples$result == samples$target))
  }
  tsk <- task(solver = vitals::generate(baseline_chat("2")), scorer = scorer)
  # the task takes request settings: an evaluation set hands them (and its pool) over
  expect_true(takes_request_settings(tsk))
  judge <- baseline_chat("C")
  suppressMessages(tsk$eval(view = FALSE, max_active = 2, scorer_chat = judge))
  expect_equal(names(seen), "scorer_chat")
  expect_identical(seen$scorer_chat, judge)
  # what vitals::generate() passed on to ellmer::parallel_chat() is a setting, or refused
  expect_error(suppressMessages(tsk$eval(view = FALSE, note = "x")),
               class = "predictivebench_error_argument")
  # a scorer of the package is its own, and left as it is
  expect_identical(settings_blind(futurex_scorer()), settings_blind(futurex_scorer()))
  own <- futurex_scorer()
  expect_identical(settings_blind(own), own)
})

test_that("an evaluation set runs a user's benchmark with its settings, and reruns from the cache", {
  server <- local_counting_server()
  local_user_benchmark("pbt-user-set")
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, rpm = Inf, retry = list(max_tries = 1, backoff = 0))
  run <- function() {
    suppressMessages(eval_set("pbt-user-set@sample", list(fake_chat(server)),
                              log_dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                              settings = settings))
  }
  # what reaches the engine from the toy's cells: the set's overlap and run
  contexts <- list()
  real <- generate_responses
  local_replace_internal("generate_responses", function(chat, prompts, settings = NULL,
                                                          ...) {
    contexts[[length(contexts) + 1]] <<- c(
      round = !is.null(current_request_session()$collector),
      run = !is.null(current_request_session()$run),
      tries = identical(settings$max_tries, 1)
    )
    real(chat, prompts, settings, ...)
  })
  first <- run()
  expect_equal(first$status, "done")
  expect_equal(server$count(), 3)
  # its requests went out in the set's overlap (alongside other cells'), paid by its run,
  # with its settings
  expect_gt(length(contexts), 0)
  expect_true(all(unlist(contexts)))
  # its answers are in the set's cache; its cost is unknown (no price), not 0
  expect_gt(length(list.files(cache, recursive = TRUE)), 0)
  expect_true(is.na(first$cost))
  # a rerun into a new folder pays nothing
  second <- run()
  expect_equal(second$status, "done")
  expect_equal(server$count(), 3)
  expect_equal(second$headline, first$headline)
  expect_equal(second$cost, 0)
})

test_that("estimate_cost() previews a user's benchmark as the engine's: nothing sent, the cache counted", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_counting_server()
  task <- local_user_benchmark()
  preview <- estimate_cost(task(), fake_chat(server))
  expect_equal(c(preview$requests, preview$cached, preview$to_send), c(3, 0, 3))
  expect_equal(server$count(), 0)
  suppressMessages(task()$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_equal(server$count(), 3)
  again <- estimate_cost(task(), fake_chat(server))
  expect_equal(c(again$cached, again$to_send), c(3, 0))
})

test_that("a user's benchmark whose request failed is retried in its set for that request only", {
  # "3 + 3?" fails on its first two arrivals (a server error, given up after one try): the
  # cell is partial, and each retry sends only that sample's request
  server <- local_fake_openai(function(body, n) {
    if (identical(last_user_text(body), "3 + 3?")) {
      seen <- get0("seen", envir = globalenv(), ifnotfound = 0) + 1
      assign("seen", seen, envir = globalenv())
      if (seen <= 2) return(list(status = 500))
    }
    list(text = "2", usage = list(prompt_tokens = 7, completion_tokens = 1))
  })
  local_user_benchmark("pbt-user-retry")
  settings <- request_settings(cache = withr::local_tempdir(),
                               rpm = Inf, retry = list(max_tries = 1, backoff = 0))
  logs <- withr::local_tempdir()
  run <- function() {
    suppressWarnings(suppressMessages(eval_set("pbt-user-retry@sample",
                                               list(fake_chat(server)), log_dir = logs,
                                               settings = settings)))
  }
  first <- run()
  # two attempts in this call: 3 requests, then the failed one again
  expect_equal(first$status, "partial")
  expect_equal(server$count(), 4)
  # the next call sends that one request only, and completes the cell
  second <- run()
  expect_equal(second$status, "done", info = second$error)
  expect_equal(server$count(), 5)
})
