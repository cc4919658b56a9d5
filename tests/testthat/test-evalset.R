test_that("a set runs every cell, headlines its summary, and a rerun sends no request", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  set <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings, limit = 3)
  expect_named(set, c("benchmark", "model", "cell_id", "status", "failed_samples", "log_path",
                      "metric", "headline", "cost", "attempts", "reused", "error"))
  expect_equal(set$failed_samples, rep(0L, 4))
  expect_equal(nrow(set), 4)
  expect_equal(set$benchmark, rep(set_benchmarks_sample, 2))
  expect_equal(set$model, rep(c("openai_compatible/m1", "openai_compatible/m2"), each = 2))
  expect_equal(set$status, rep("done", 4))
  expect_true(all(file.exists(set$log_path)))
  expect_true(all(dirname(normalizePath(set$log_path)) == normalizePath(logs)))
  expect_equal(anyDuplicated(set$cell_id), 0L)
  expect_false(any(set$reused))
  # the headline is the registered summary's first headline row, read back from the log
  fx <- suppressMessages(futurex_summary(set$log_path[[1]]))
  expect_equal(set$metric[[1]], "overall")
  expect_equal(set$headline[[1]], fx$estimate[fx$group == "overall"])
  pb <- suppressMessages(processbench_summary(set$log_path[[2]]))
  expect_equal(set$headline[[2]], pb$estimate[paste(pb$group, pb$metric) == set$metric[[2]]])
  # every request of every cell was sent once (futurex: 1 per sample, processbench: 8 votes)
  sent <- server$count()
  expect_equal(sent, 2 * (3 + 3 * 8))

  again <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_equal(server$count(), sent)
  expect_true(all(again$reused))
  expect_equal(again$attempts, rep(0L, 4))
  expect_equal(again[c("cell_id", "status", "log_path", "headline")],
               set[c("cell_id", "status", "log_path", "headline")])
})

test_that("adding a model or a benchmark runs only the new cells", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  quiet_set("futurex@sample", set_chats(server, "m1"), log_dir = logs, settings = settings,
            limit = 2)
  expect_equal(server$count(), 2)
  more <- quiet_set(set_benchmarks_sample, set_chats(server, c("m1", "m2")), log_dir = logs,
                    settings = settings, limit = 2)
  expect_equal(more$reused, c(TRUE, FALSE, FALSE, FALSE))
  expect_equal(more$status, rep("done", 4))
  # the 3 new cells only (futurex 2 requests, processbench 2 x 8 votes); the first cell's log
  # was not rewritten
  expect_equal(server$count(), 2 + 2 + 2 * 16)
  expect_length(list.files(logs, pattern = "\\.json$"), 4)
})

test_that("a cell's identity ignores transport settings, not epochs, limit or the model", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  chats <- set_chats(server, "m1")
  first <- quiet_set("futurex@sample", chats, log_dir = logs, settings = set_settings(cache),
                     limit = 2)
  # other transport settings, another retry count: the same cell, nothing runs
  same <- quiet_set("futurex@sample", chats, log_dir = logs, retries = 3, limit = 2,
                    settings = set_settings(cache, max_active = 2, timeout = 30))
  expect_equal(same$cell_id, first$cell_id)
  expect_true(same$reused)
  ids <- c(
    quiet_set("futurex@sample", chats, log_dir = logs, settings = set_settings(cache),
              limit = 2, epochs = 2)$cell_id,
    quiet_set("futurex@sample", chats, log_dir = logs, settings = set_settings(cache),
              limit = 1)$cell_id,
    quiet_set("futurex@sample", list(fake_chat(server, "m1", params = ellmer::params(temperature = 0))),
              log_dir = logs, settings = set_settings(cache), limit = 2)$cell_id
  )
  expect_equal(anyDuplicated(c(first$cell_id, ids)), 0L)
})

test_that("a cell whose log is gone or cut short runs again", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  set <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 2)
  unlink(set$log_path[[1]])
  writeLines("{\"version\": 2, \"status\": \"succ", set$log_path[[2]])
  again <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 2)
  expect_equal(again$reused, c(FALSE, FALSE))
  expect_equal(again$status, c("done", "done"))
  expect_true(all(file.exists(again$log_path)))
  # the answers came from the cache
  expect_equal(server$count(), 4)
})

test_that("a cell that always fails is retried, reported, and never stops the others", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "broken", "m2"))
  set <- quiet_set("processbench@sample", chats, log_dir = logs, settings = settings,
                   limit = 2, retries = 2)
  expect_equal(set$status, c("done", "failed", "done"))
  expect_equal(set$attempts, c(1L, 3L, 1L))
  expect_match(set$error[[2]], "failed")
  expect_true(is.na(set$error[[1]]))
  # 3 attempts of 2 samples x 8 votes, each request sent once per attempt
  expect_equal(sum(vapply(server$requests(), `[[`, "", "model") == "broken"), 3 * 16)
  # the next call tries the failed cell again, and only it
  before <- server$count()
  again <- quiet_set("processbench@sample", chats, log_dir = logs, settings = settings,
                     limit = 2, retries = 0)
  expect_equal(again$reused, c(TRUE, FALSE, TRUE))
  expect_equal(server$count(), before + 16)
})

test_that("a refused key fails its cell only", {
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "refused")) list(status = 401) else "\\boxed{A}"
  })
  logs <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "refused")), log_dir = logs,
                   settings = set_settings(withr::local_tempdir()), limit = 2, retries = 0)
  expect_equal(set$status, c("done", "failed"))
  expect_match(set$error[[2]], "401|refused|credentials", ignore.case = TRUE)
})

test_that("the cost preview covers the cells to run; max_cost refuses to start above it", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  priced <- ellmer::chat_openai(model = "gpt-4.1", base_url = server$url,
                                credentials = function() "sk-test")
  task <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = logs,
                       solver = futurex_solver(params = ellmer::params(max_tokens = 100)))
  preview <- eval_set(list(task), list(priced), log_dir = logs, settings = settings, options = set_options(dry_run = TRUE))
  expect_equal(preview$status, "to run")
  expect_equal(preview$to_send, 3L)
  expect_gt(preview$cost_max, 0)
  expect_equal(server$count(), 0)
  expect_error(eval_set(list(task), list(priced), log_dir = logs, settings = settings, options = set_options(max_cost = preview$cost_max / 2)),
               class = "predictivebench_error_cost")
  expect_equal(server$count(), 0)
  expect_length(list.files(logs), 0)
  # a model without a price can't be kept under a budget
  expect_error(eval_set(list(task), set_chats(server, "m1"), log_dir = logs,
                        settings = settings, options = set_options(max_cost = 1)),
               class = "predictivebench_error_cost")
  set <- quiet_set(list(task), list(priced), log_dir = logs, settings = settings,
                   max_cost = preview$cost_max * 2)
  expect_equal(set$status, "done")
  expect_equal(server$count(), 3)
  done <- eval_set(list(task), list(priced), log_dir = logs, settings = settings, options = set_options(dry_run = TRUE))
  expect_equal(done$status, "done")
  expect_equal(done$to_send, 0L)
})

test_that("task objects are cells as names are; a name may pin a version", {
  logs <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  tasks <- list(short = futurex_task(futurex_dataset(version = "sample", limit = 2), dir = logs),
                long = futurex_task(futurex_dataset(version = "sample", limit = 3), dir = logs))
  models <- list(baseline_chat("\\boxed{A}", name = "a"))
  set <- quiet_set(tasks, models, log_dir = logs)
  expect_equal(set$benchmark, c("short", "long"))
  expect_equal(set$status, c("done", "done"))
  expect_equal(nrow(suppressMessages(futurex_summary(set$log_path[[2]]))) > 0, TRUE)
  # the same tasks, rebuilt: the same cells
  rebuilt <- list(short = futurex_task(futurex_dataset(version = "sample", limit = 2), dir = logs),
                  long = futurex_task(futurex_dataset(version = "sample", limit = 3), dir = logs))
  expect_true(all(quiet_set(rebuilt, models, log_dir = logs)$reused))
})

test_that("bad input is refused up front, with classed errors", {
  logs <- withr::local_tempdir()
  chat <- baseline_chat("A")
  expect_error(eval_set("nope", list(chat), log_dir = logs),
               class = "predictivebench_error_argument")
  expect_error(eval_set(3, list(chat), log_dir = logs), class = "predictivebench_error_argument")
  expect_error(eval_set("futurex@sample", 42, log_dir = logs),
               class = "predictivebench_error_argument")
  expect_error(eval_set("futurex@sample", list(chat), log_dir = logs, options = set_options(retries = -1)),
               class = "predictivebench_error_argument")
  expect_error(eval_set(c("futurex@sample", "futurex@sample"), list(chat), log_dir = logs),
               class = "predictivebench_error_argument")
  expect_error(eval_set("futurex@sample", list(chat), log_dir = logs, arena = list(1)),
               class = "predictivebench_error_argument")
  expect_length(list.files(logs), 0)
})

test_that("a set can end with one arena run among its models", {
  logs <- withr::local_tempdir()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  arena_dir <- arena_folder(paste("Question", 1:3))
  models <- list(named_constant("a long and careful answer", "careful"),
                 named_constant("short", "brief"))
  set <- quiet_set("processbench@sample", models, log_dir = logs, limit = 2,
                   judge = arena_baseline_judge("longer"),
                   arena = list(elobench = arena_dir, version = "toy", experiment = "set",
                                n = 1, times = 20))
  expect_equal(set$status, c("done", "done"))
  run <- attr(set, "arena_run")
  expect_s3_class(run, "arena_run")
  # the log beside the cells', the results in the EloBench folder
  expect_equal(normalizePath(dirname(run$paths$log)), normalizePath(logs))
  ratings <- read.csv(file.path(arena_dir, "results", "set", "elo_rating.csv"))
  expect_equal(ratings$model[[1]], set$model[[1]])
  expect_setequal(ratings$model, set$model)
  # "toy" is a version of that folder only: without it there are no questions, refused
  # before the set's first request
  expect_error(quiet_set("processbench@sample", models, log_dir = withr::local_tempdir(),
                         limit = 2, judge = arena_baseline_judge("longer"),
                         arena = list(version = "toy")),
               class = "predictivebench_error_path", regexp = "toy")
})

test_that("the closing arena run names its competitors as the cells' logs do: one board row each", {
  # An OpenAI-compatible server given its own name: vitals names the model after that name
  # ("local_vllm/..."), not after the constructor ("openai_compatible/...").
  server <- local_set_server()
  named <- function(model) {
    ellmer::chat_openai_compatible(base_url = server$url, model = model, name = "Local vLLM",
                                   credentials = function() "sk-test-FAKEKEY-0123456789")
  }
  logs <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", list(named("m1"), named("m2")), log_dir = logs, limit = 2,
                   settings = set_settings(withr::local_tempdir()),
                   judge = arena_baseline_judge("longer"),
                   arena = list(dataset = data.frame(question = paste("Question", 1:3)),
                                experiment = "set", n = 1, times = 20))
  expect_equal(set$model, c("local_vllm/m1", "local_vllm/m2"))
  # the closing arena's log is in the set's folder, beside the cells', and on its board
  log <- attr(set, "arena_run")$paths$log
  expect_equal(normalizePath(dirname(log)), normalizePath(logs))
  board <- suppressMessages(suppressWarnings(leaderboard(logs)))
  expect_setequal(unique(board$model), set$model)
  per_model <- table(board$model, board$benchmark == "futurex")
  expect_true(all(per_model[, "TRUE"] > 0) && all(per_model[, "FALSE"] > 0))
})

test_that("the arena by name: its sample runs as a benchmark, a real version is refused up front", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  models <- set_chats(server, c("m1", "m2"))
  settings <- set_settings(withr::local_tempdir())
  expect_error(quiet_set(c("futurex@sample", "arena"), models, log_dir = logs,
                         judge = arena_baseline_judge("longer"), settings = settings),
               class = "predictivebench_error_answers")
  expect_error(quiet_set("arena@quora_100", models, log_dir = logs, settings = settings,
                         judge = arena_baseline_judge("longer")),
               "no reference answers")
  expect_equal(server$count(), 0)
  expect_length(list.files(logs), 0)

  set <- quiet_set("arena@sample", models, log_dir = logs, limit = 3, settings = settings,
                   judge = arena_baseline_judge("longer"))
  expect_equal(set$status, c("done", "done"))
  expect_equal(server$count(), 2 * 3)  # each model's answers; the judge is offline
  expect_true(all(file.exists(set$log_path)))
  expect_false(anyNA(set$metric))
  expect_true(all(set$headline >= 0 & set$headline <= 1))
})

test_that("probsem by name runs as a benchmark in a set", {
  # probsem scores by the logprobs of each continuation: a server that echoes them
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  logs <- withr::local_tempdir()
  set <- quiet_set("probsem@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
                   settings = set_settings(withr::local_tempdir()))
  expect_equal(set$status, c("done", "done"))
  expect_gt(server$count(), 0)
  expect_true(all(file.exists(set$log_path)))
  expect_false(anyNA(set$headline))
  # the same cells again send nothing
  sent <- server$count()
  again <- quiet_set("probsem@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
                     settings = set_settings(withr::local_tempdir()))
  expect_equal(again$reused, c(TRUE, TRUE))
  expect_equal(server$count(), sent)
})

test_that("a cell whose log was cut off inside its samples is set aside and runs from the cache", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  set <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  sent <- server$count()
  # a crash while writing: the header (status "success") is whole, the samples are not
  cut <- set$log_path[[1]]
  bytes <- readBin(cut, "raw", file.size(cut))
  writeBin(bytes[seq_len(round(length(bytes) * 0.8))], cut)
  expect_equal(read_log_header(cut)$status, "success")
  expect_message(
    again <- suppressWarnings(eval_set("futurex@sample", chats, log_dir = logs,
                                       settings = settings, options = set_options(limit = 3))),
    class = "predictivebench_message_log_set_aside"
  )
  expect_equal(again$status, c("done", "done"))
  expect_equal(again$reused, c(FALSE, TRUE))
  expect_equal(server$count(), sent)  # every answer came from the cache
  # the cut log is kept under a name no reader of logs takes; one log per cell
  kept <- list.files(logs, pattern = "[.]partial-")
  expect_equal(sub("[.]partial-.*$", "", kept), basename(cut))
  expect_setequal(list.files(logs, pattern = "[.]json$"), basename(again$log_path))
  expect_length(list.files(logs, pattern = "[.]json$", recursive = TRUE), 2)
  expect_equal(nrow(suppressMessages(report_failures(logs))), 0)
  # the rerun's log is whole: the next call takes it as done
  expect_true(all(quiet_set("futurex@sample", chats, log_dir = logs, settings = settings,
                            limit = 3)$reused))
})

test_that("samples lost to an outage make a partial cell; the next call asks only them again", {
  inputs <- futurex_dataset(version = "sample", limit = 3)$input
  outage <- withr::local_tempfile()
  writeLines("", outage)
  # while the file `outage` exists, the second sample's prompt gets HTTP 503
  reply <- function(body, n) {
    if (file.exists(outage) && grepl(down, last_user_text(body), fixed = TRUE)) {
      return(list(status = 503))
    }
    "\\boxed{A}"
  }
  environment(reply) <- list2env(list(outage = outage, down = substr(inputs[[2]], 70, 130)),
                                 parent = globalenv())
  server <- local_fake_openai(reply)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, "m1")
  expect_message(
    set <- suppressWarnings(eval_set("futurex@sample", chats, log_dir = logs,
                                     settings = settings, options = set_options(limit = 3))),
    "1 partial.*1 failed"
  )
  expect_equal(set$status, "partial")
  expect_equal(set$failed_samples, 1L)
  expect_match(set$error, "HTTP 503", fixed = TRUE)
  expect_match(set$error, "1 of 3 samples failed", fixed = TRUE)
  # tried again in this call (retries = 1): the failed prompt only, once more
  prompts <- vapply(server$requests(), last_user_text, "")
  expect_equal(set$attempts, 2L)
  expect_equal(sum(grepl(substr(inputs[[2]], 70, 130), prompts, fixed = TRUE)), 2L)
  expect_equal(length(prompts), 3 + 1)
  # the partial run's log is written and readable, its failed sample in it
  expect_true(file.exists(set$log_path))
  expect_equal(nrow(suppressMessages(report_failures(set$log_path))), 1)
  expect_false(file.exists(record_path(logs, set$cell_id)))  # not done

  unlink(outage)  # the provider recovers
  again <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 3)
  expect_equal(again$status, "done")
  expect_equal(again$failed_samples, 0L)
  expect_false(again$reused)
  expect_true(is.na(again$error))
  # exactly the failed prompt was sent; the others came from the cache
  sent <- vapply(server$requests(), last_user_text, "")[-(1:4)]
  expect_length(sent, 1)
  expect_match(sent, substr(inputs[[2]], 70, 130), fixed = TRUE)
  expect_true(quiet_set("futurex@sample", chats, log_dir = logs, settings = settings,
                        limit = 3)$reused)
  expect_equal(server$count(), 5)
})

test_that("a failed cell's error is the provider's own message", {
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "nope")) {
      return(list(status = 404, json = list(error = list(
        message = "The model 'nope' does not exist", type = "invalid_request_error",
        param = NULL, code = "model_not_found"
      ))))
    }
    "\\boxed{A}"
  })
  logs <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "nope")), log_dir = logs,
                   settings = set_settings(withr::local_tempdir()), limit = 2, retries = 0)
  expect_equal(set$status, c("done", "failed"))
  expect_match(set$error[[2]], "HTTP 404 Not Found: The model 'nope' does not exist",
               fixed = TRUE)
  expect_match(set$error[[2]], "2 of 2 samples failed", fixed = TRUE)
  # no internal function's name
  expect_no_match(set$error[[2]], "catch_step_failure|report_failures|[a-z_]+\\(\\)")
  expect_true(is.na(set$error[[1]]))
})

test_that("a log_dir that is a file, or can't be made, is refused before any request", {
  server <- local_set_server()
  file <- withr::local_tempfile()
  writeLines("not a folder", file)
  chats <- set_chats(server, "m1")
  settings <- set_settings(withr::local_tempdir())
  err <- expect_error(eval_set("futurex@sample", chats, log_dir = file, settings = settings, options = set_options(limit = 2)),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "is a file", fixed = TRUE)
  expect_match(cli::ansi_strip(conditionMessage(err)), basename(file), fixed = TRUE)
  err <- expect_error(eval_set("futurex@sample", chats, log_dir = file.path(file, "logs"),
                               settings = settings, options = set_options(limit = 2)),
                      class = "predictivebench_error_argument")
  expect_match(cli::ansi_strip(conditionMessage(err)), "Can't write", fixed = TRUE)
  expect_equal(server$count(), 0)
  expect_equal(readLines(file), "not a folder")
})

test_that("a judge's fallback is a note: the FutureX + ProcessBench + DSBench set is done at once", {
  # The judge never gives the two numbers FutureX asks for: the plain parse scores those
  # items, as vignette("futurex") says. That is a note on the sample, not a failed request:
  # the set is done on its first call, and its rerun sends nothing and writes no log.
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  benchmarks <- c("futurex@sample", "processbench@sample", "dsbench@sample")
  run <- function() {
    quiet_set(benchmarks, set_chats(server, c("m1", "m2")), log_dir = logs,
              judge = fake_chat(server, model = "judge"), settings = settings)
  }
  set <- run()
  expect_equal(set$status, rep("done", 6))
  expect_equal(set$failed_samples, rep(0L, 6))
  expect_true(all(is.na(set$error)))
  judged <- vapply(server$requests(), `[[`, "", "model") == "judge"
  expect_gt(sum(judged), 0)
  # the note is kept in the FutureX samples' scorer metadata
  fx <- log_samples(set$log_path[[1]])
  notes <- vapply(fx$scorer_metadata, function(m) as.character(m$judge_note %||% NA), "")
  expect_gt(sum(!is.na(notes)), 0)
  expect_match(notes[!is.na(notes)], "plain parse")
  sent <- server$count()
  files <- list.files(logs, recursive = TRUE, all.files = TRUE)

  again <- run()
  expect_equal(server$count(), sent)
  expect_equal(list.files(logs, recursive = TRUE, all.files = TRUE), files)
  expect_equal(again$status, rep("done", 6))
  expect_true(all(again$reused))
  # report_failures() shows the notes, and no failure
  msgs <- character()
  failures <- withCallingHandlers(
    report_failures(logs),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  # (ProcessBench's votes "\boxed{A}" name no step: answers it can't score, not requests)
  expect_false("request" %in% failures$kind)
  expect_false("futurex" %in% failures$benchmark)
  expect_equal(nrow(attr(failures, "notes")), sum(!is.na(notes)) * 2)
  expect_match(paste(msgs, collapse = "\n"), "with a note")
  expect_no_match(paste(msgs, collapse = "\n"), "API key")
})

test_that("a full disk while a cell's log is written fails that cell only; the rerun completes from the cache", {
  skip_if_not(file.exists("/dev/full"), "needs Linux's /dev/full")
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, c("m1", "m2"))
  # the log of m1's FutureX cell is written onto a full disk (its finished file's temporary
  # copy is Linux's /dev/full, which answers every write with "No space left on device")
  device <- file.path(withr::local_tempdir(), "full")
  own_temp_file <- log_temp_file
  full_disk <- function(path) {
    if (!grepl("futurex.*m1", basename(path))) return(own_temp_file(path))
    file.symlink("/dev/full", device)
    device
  }
  local({
    local_replace_internal("log_temp_file", full_disk)
    set <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
    expect_equal(nrow(set), 4)
    hit <- set$benchmark == "futurex@sample" & set$model == "openai_compatible/m1"
    expect_equal(set$status[hit], "failed")
    expect_match(set$error[hit], "disk .* is full")
    expect_equal(set$status[!hit], rep("done", 3))
  })
  # no truncated or empty log was moved into place, and nothing the writer made is left
  left <- list.files(logs, pattern = "\\.json$", full.names = TRUE)
  expect_length(left, 3)
  expect_true(all(file.size(left) > 0))
  expect_false(any(grepl("futurex.*m1", basename(left))))
  expect_length(list.files(logs, pattern = "\\.part$", all.files = TRUE), 0)
  sent <- server$count()
  # with room on the disk again, the rerun writes the log from the cache: no request is sent
  again <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_equal(server$count(), sent)
  expect_equal(again$status, rep("done", 4))
  mended <- again$benchmark == "futurex@sample" & again$model == "openai_compatible/m1"
  expect_true(file.exists(again$log_path[mended]))
  expect_equal(suppressMessages(futurex_summary(again$log_path[mended]))$estimate[[1]],
               again$headline[mended])
})

test_that("a cell whose server lacks a capability fails once, its error said whole, no retry advised", {
  # no completions endpoint and no chat log-probabilities: probsem can't score there
  server <- local_fake_ollama(chat_logprobs = FALSE)
  logs <- withr::local_tempdir()
  said <- NULL
  set <- withCallingHandlers(
    eval_set("probsem@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
             settings = set_settings(withr::local_tempdir()), options = set_options(retries = 2)),
    predictivebench_message_eval_set = function(m) {
      said <<- cli::ansi_strip(conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  expect_equal(set$status, c("failed", "failed"))
  expect_equal(set$attempts, c(1L, 1L))
  # each cell: one completions probe (404) and one chat probe, each sent once
  expect_equal(server$count(), 4)
  expect_equal(sum(server$log()$path == "/v1/completions"), 2)
  expect_match(set$error[[1]], "2 probe requests sent", fixed = TRUE)
  # said once, with its bullets on lines of their own; no advice to call again
  lines <- strsplit(said, "\n")[[1]]
  expect_true(any(startsWith(lines, "x `POST")))
  expect_true(any(startsWith(lines, "i 2 probe requests sent, no query.")))
  expect_equal(sum(grepl("has no completions endpoint", lines, fixed = TRUE)), 1)
  expect_no_match(said, "call `eval_set()` again", fixed = TRUE)
})

test_that("eval_set() takes its run options as set_options(); the old names warn for a release", {
  expect_lte(length(formals(eval_set)), 8)
  o <- set_options(epochs = 2, limit = 3, reducer = "pass_at_k", k = 2)
  expect_equal(c(o$epochs, o$limit), c(2, 3))
  expect_equal(o$reducer$label, "pass_at_2")
  expect_error(set_options(retries = -1), class = "predictivebench_error_argument")
  expect_error(eval_set("futurex@sample", "openai/gpt-4.1", tempfile(), options = list()),
               "set_options", class = "predictivebench_error_argument")
  # the old names keep working for one release and win over `options`
  expect_warning(old <- set_options_with_dots(o, list(limit = 1, k = 1)), "set_options",
                 class = "predictivebench_warning_deprecated")
  expect_equal(c(old$limit, old$reducer$k), c(1, 1))
  expect_equal(old$epochs, 2)
  expect_error(eval_set("futurex@sample", "openai/gpt-4.1", tempfile(), limt = 1), "limt",
               class = "predictivebench_error_argument")
  models <- list(baseline_chat("0", name = "zero"))
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  expect_warning(preview <- eval_set("futurex@sample", models, withr::local_tempdir(),
                                     dry_run = TRUE),
                 class = "predictivebench_warning_deprecated")
  expect_true("cost_max" %in% names(preview))
})
