test_that("a cell's identity holds the benchmark and model, not how requests are sent", {
  dir <- withr::local_tempdir()
  a <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir, options = set_options(limit = 2, dry_run = TRUE)))
  b <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir,
                                 settings = request_settings(max_active = 2, rpm = 10), options = set_options(limit = 2, dry_run = TRUE)))
  expect_equal(a$cell_id, b$cell_id)
  c <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{No}")),
                                 log_dir = dir, options = set_options(limit = 2, dry_run = TRUE)))
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
  register_benchmark(new_benchmark("cells-toy", list(fn = identity),
                                   task = function(dataset, dir) NULL))
  expect_true("cells-toy" %in% set_benchmark_names())
  unregister_benchmark("cells-toy")
  expect_false("cells-toy" %in% set_benchmark_names())
  expect_error(named_benchmark("cells-toy@sample", NULL, NULL, rlang::current_env()),
               class = "predictivebench_error_argument")
  # the arena's registration refuses its real versions by name, before any cell runs
  expect_true(is.function(registration("arena")$check_by_name))
  expect_error(named_benchmark("arena@rwq_200", NULL, NULL, rlang::current_env()),
               class = "predictivebench_error_answers")
  judge <- arena_baseline_judge("longer")
  expect_equal(named_benchmark("arena@sample", judge, NULL, rlang::current_env())$version,
               "sample")
})

test_that("a benchmark registered as needing a judge, in a set without one, is refused before any request", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  needing <- names(Filter(function(e) isTRUE(e$needs_judge), registrations()))
  expect_setequal(needing, c("arena", "dsbench"))
  for (b in c("dsbench@sample", "arena@sample")) {
    for (dry_run in c(FALSE, TRUE)) {
      err <- expect_error(
        eval_set(c("futurex@sample", b), set_chats(server, "m1"), log_dir = logs,
                 settings = settings, options = set_options(limit = 2, dry_run = dry_run)),
        class = "predictivebench_error_argument"
      )
      # the shared missing-judge message, in the set's words
      expect_match(conditionMessage(err), "eval_set(..., judge = )", fixed = TRUE)
      expect_match(conditionMessage(err), b, fixed = TRUE)
    }
  }
  expect_equal(server$count(), 0)
  expect_length(list.files(logs, recursive = TRUE, all.files = TRUE), 0)
  # the registration says it, not the name: a benchmark of the session's own
  toy_task <- function(dataset, dir, judge = NULL) stop("not reached")
  local_benchmarks(list(new_benchmark(
    "cells-judged", list(fn = identity), task = toy_task, judging = list(needs_judge = TRUE),
    data = list(schema = data.frame(name = c("id", "input", "target"), type = "string"),
                sample = data.frame(id = "a", input = "q", target = "t")))))
  expect_error(eval_set("cells-judged@sample", set_chats(server, "m1"), log_dir = logs),
               class = "predictivebench_error_argument")
  expect_equal(server$count(), 0)
  # with a judge it is taken (no request until it runs)
  expect_equal(named_benchmark("cells-judged@sample", fake_chat(server, "j"), NULL,
                               rlang::current_env())$version, "sample")
})

# Judges on the fake server: "ja" and "jb" say True, "jc" says False; others answer \boxed{A}.
local_panel_set_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    switch(body$model, ja = , jb = "True", jc = "False", "\\boxed{A}")
  }, .local_envir = .local_envir)
}

test_that("a set's judge may be a panel: specced member by member, its own cells; a list of one is the single judge's", {
  server <- local_panel_set_server()
  one <- named_benchmark("dsbench@sample", fake_chat(server, "ja"), NULL, rlang::current_env())
  listed <- named_benchmark("dsbench@sample", list(fake_chat(server, "ja")), NULL,
                            rlang::current_env())
  expect_identical(listed$identity, one$identity)
  panel <- named_benchmark("dsbench@sample",
                           list(fake_chat(server, "ja"), "openai/gpt-4.1-mini"), NULL,
                           rlang::current_env())
  expect_s3_class(panel$judge, "judge_panel_spec")
  expect_identical(vapply(judge_spec_members(panel$judge), `[[`, "", "model"),
                   c("ja", "gpt-4.1-mini"))
  expect_false(identical(panel$identity, one$identity))
  expect_identical(panel$identity$judge$panel[[1]], one$identity$judge)
  expect_error(named_benchmark("dsbench@sample", list(fake_chat(server, "ja"), 1), NULL,
                               rlang::current_env()),
               class = "predictivebench_error_argument")
})

test_that("a set with a panel judge: each judge's verdicts in the cells' logs, members x items requests, none on a rerun", {
  server <- local_panel_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  judges <- list(fake_chat(server, "ja"), fake_chat(server, "jb"), fake_chat(server, "jc"))
  run <- function() {
    quiet_set("dsbench@sample", set_chats(server, "m1"), log_dir = logs, judge = judges,
              settings = settings, limit = 3)
  }
  # the preview counts every judge: 3 answers and 3 judges x 3 verdicts, nothing sent
  preview <- eval_set("dsbench@sample", set_chats(server, "m1"), log_dir = logs,
                      judge = judges, settings = settings, options = set_options(limit = 3, dry_run = TRUE))
  expect_equal(preview$to_send, 3L + 3L * 3L)
  expect_equal(server$count(), 0)
  set <- run()
  expect_equal(set$status, "done")
  asked <- vapply(server$requests(), `[[`, "", "model")
  expect_equal(as.vector(table(asked[asked %in% c("ja", "jb", "jc")])), c(3, 3, 3))
  samples <- log_samples(set$log_path[[1]])
  expect_equal(as_score(samples$score), rep(1, 3))  # ja and jb say True
  each <- panel_judges(vapply(samples$scorer_metadata, `[[`, "", "judges"))
  expect_identical(each$correct, rep(c(TRUE, TRUE, FALSE), 3))
  sent <- server$count()
  again <- run()
  expect_true(again$reused)
  expect_equal(server$count(), sent)
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
  # one epoch is what runs when none is given: the same cell, whichever way it is said
  expect_equal(cell_id(one, epochs = 1), cell_id(one))
  expect_equal(cell_id(one, epochs = 1L), cell_id(one))
  expect_equal(cell_id(futurex_task(data, dir = withr::local_tempdir(), epochs = 1)), cell_id(one))
  expect_false(cell_id(one, epochs = 2) == cell_id(one))
})

test_that("a set with epochs = 1 takes the cells of the same set with none, paying nothing", {
  data <- futurex_dataset(version = "sample", limit = 2)
  server <- local_fake_openai(function(body, n) "\\boxed{Yes}")
  chat <- fake_chat(server)
  logs <- withr::local_tempdir()
  settings <- request_settings(cache = withr::local_tempdir())
  run <- function(epochs) {
    suppressMessages(eval_set(list(futurex = futurex_task(data, dir = logs)), list(chat),
                              log_dir = logs, settings = settings, options = set_options(epochs = epochs)))
  }
  first <- run(NULL)
  sent <- server$count()
  expect_gt(sent, 0)
  again <- run(1)
  expect_true(all(again$reused))
  expect_equal(again$cell_id, first$cell_id)
  expect_equal(server$count(), sent)
})

test_that("a cell's label does not claim a setting its benchmark sends otherwise, and says so", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- list(fake_chat(server, model = "m1"),
                fake_chat(server, model = "m1", params = ellmer::params(temperature = 0.5)))
  run <- function() {
    msgs <- character()
    set <- withCallingHandlers(
      suppressWarnings(eval_set(set_benchmarks_sample, chats, log_dir = logs,
                                settings = settings, options = set_options(limit = 2))),
      predictivebench_message_setting_overridden = function(m) {
        msgs <<- c(msgs, conditionMessage(m))
      },
      message = function(m) invokeRestart("muffleMessage"))
    list(set = set, msgs = msgs)
  }
  first <- run()
  set <- first$set
  expect_equal(set$status, rep("done", 4))
  # FutureX sends the chat's temperature; ProcessBench its own 0.7, whatever the chat's
  expect_equal(set$model[set$benchmark == "futurex@sample"],
               c("openai_compatible/m1", "openai_compatible/m1 [temperature=0.5]"))
  expect_equal(set$model[set$benchmark == "processbench@sample"],
               c("openai_compatible/m1", "openai_compatible/m1 [temperature=0.5 sent as 0.7]"))
  expect_length(first$msgs, 1)
  expect_match(first$msgs, "processbench@sample sends temperature = 0.7", fixed = TRUE)
  # what ProcessBench sent at 0.7 was the plain chat's: no request of its own
  bodies <- server$requests()
  temperature <- vapply(bodies, function(b) b$temperature %||% NA_real_, 1)
  expect_equal(sum(is.na(temperature)), 2)   # FutureX, the plain chat
  expect_equal(sum(temperature == 0.5, na.rm = TRUE), 2)  # FutureX, at the chat's 0.5
  # ProcessBench: the same two prompts at 0.7 for both chats (the two cells may overlap in
  # flight, so a request may go twice)
  at_07 <- bodies[which(temperature == 0.7)]
  expect_gte(length(at_07), 2 * 8)
  expect_length(unique(lapply(at_07, function(b) b$messages)), 2)
  # the cell's log names the model as the table does, and a rerun names the cell alike
  pb <- set[set$benchmark == "processbench@sample", ][2, ]
  expect_equal(jsonlite::read_json(pb$log_path)$eval$model, pb$model)
  again <- run()
  expect_equal(again$set$model, set$model)
  expect_true(all(again$set$reused))
  expect_equal(again$set$cell_id, set$cell_id)
})

test_that("the settings a benchmark replaces are found offline, for every model made with them", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  chat <- function(model, ...) {
    ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = model,
                                   credentials = function() "k", ...)
  }
  models <- list(chat("m1", params = ellmer::params(temperature = 0.5)),
                 chat("m2", params = ellmer::params(temperature = 0.5)),
                 chat("m3"), chat("m4", params = ellmer::params(temperature = 0.7)))
  cells <- set_cells(set_benchmarks(c("futurex@sample", "processbench@sample"), NULL, NULL),
                     lapply(models, chat_spec), models, NULL)
  expect_message(labelled <- label_overridden_cells(cells),
                 class = "predictivebench_message_setting_overridden")
  labels <- vapply(labelled, `[[`, "", "label")
  expect_equal(labels[vapply(cells, function(x) x$benchmark$label, "") == "processbench@sample"],
               c("openai_compatible/m1 [temperature=0.5 sent as 0.7]",
                 "openai_compatible/m2 [temperature=0.5 sent as 0.7]",
                 "openai_compatible/m3", "openai_compatible/m4 [temperature=0.7]"))
  # FutureX sends the chat's own: its cells keep their models' names
  expect_equal(labels[vapply(cells, function(x) x$benchmark$label, "") == "futurex@sample"],
               vapply(cells[1:4 * 2 - 1], `[[`, "", "label"))
  # the cells are the same cells: their identities do not move
  expect_equal(vapply(labelled, `[[`, "", "id"), vapply(cells, `[[`, "", "id"))
})

test_that("a set takes a benchmark object where it takes a name, registering nothing", {
  toy <- toy_set_benchmark()
  fours <- baseline_chat("4", name = "fours")
  dir <- withr::local_tempdir()
  set <- quiet_set(list("toy@sample" = toy), list(fours), log_dir = dir)
  expect_equal(set$benchmark, "pbt-toyobj@sample")
  expect_equal(set$status, "done")
  expect_equal(set$headline, 0.5)
  # nothing is left in the index; the same object again is the same cell, reused
  expect_null(benchmark_named("pbt-toyobj"))
  again <- quiet_set(list("toy@sample" = toy), list(fours), log_dir = dir)
  expect_true(again$reused)
  expect_equal(again$cell_id, set$cell_id)
  # registered, its name runs the same cell
  local_benchmarks(list(toy))
  by_name <- quiet_set("pbt-toyobj@sample", list(fours), log_dir = dir)
  expect_equal(by_name$cell_id, set$cell_id)
})

test_that("a set refuses a benchmark object it can't run, and two benchmarks under one name", {
  toy <- toy_set_benchmark()
  no_task <- new_benchmark("pbt-toyobj", list(fn = identity))
  dir <- withr::local_tempdir()
  chat <- list(baseline_chat("4"))
  expect_error(eval_set(list(no_task), chat, log_dir = dir), class = "predictivebench_error_argument")
  expect_error(eval_set(list(toy, no_task), chat, log_dir = dir),
               class = "predictivebench_error_argument")
  expect_null(benchmark_named("pbt-toyobj"))
})
