

test_that("empty and missing scorer metadata leave valid JSON beside a judge's grading", {
  local_arith_benchmark()
  scorer <- function(samples, ...) {
    n <- nrow(samples)
    list(score = rep(1, n),
         scorer_chat = lapply(seq_len(n), function(i) samples$solver_chat[[i]]),
         scorer_metadata = c(list(NULL, list()), rep(list(list(note = "ok")), n - 2)))
  }
  tsk <- arith_task(scorer = scorer, dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  log <- log_json(tsk$log_path)
  metas <- lapply(log$samples, function(s) s$scores[[1]]$metadata)
  expect_named(metas[[1]], "grading")
  expect_named(metas[[2]], "grading")
  expect_equal(metas[[3]]$note, "ok")
  back <- log_samples(tsk$log_path)
  expect_equal(back$scorer_metadata[[3]], list(note = "ok"))
})

test_that("metadata_fields chooses the dataset columns a log carries", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir(), metadata_fields = character())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  expect_null(log_json(tsk$log_path)$samples[[1]]$metadata$level)
  expect_false("level" %in% names(log_samples(tsk$log_path)))
  expect_error(arith_task(dir = tempdir(), metadata_fields = "nope"), "lacks")
})

test_that("a field that is JSON in one sample is JSON in every sample", {
  samples <- tibble::tibble(level = c(1L, 2L))
  meta <- list(list(votes = 2L, note = "a"), list(votes = c(2L, 3L), note = "b"))
  flats <- sample_metadata(samples, "level", meta)
  expect_equal(attr(flats, "json"), "votes")
  expect_equal(flats[[1]]$votes, "[2]")
  expect_equal(flats[[1]]$level, 1L)
  expect_equal(restore_metadata(flats[[1]], json = "votes")$votes, 2L)
  clash <- sample_metadata(samples, "level", list(list(level = "x"), NULL))
  expect_equal(clash[[1]]$solver_level, "x")
})

test_that("logs of all six benchmarks are valid for Inspect AI's reader and read back", {
  skip_if_no_reference("inspect", "inspect-openapi.json")
  dir <- withr::local_tempdir()
  run <- function(tsk, chat) {
    suppressMessages(suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE)))
    tsk
  }
  # FutureX under a limit without level-3/4 items (NA headlines), in two epochs
  futurex <- run(futurex_task(futurex_dataset(version = "sample", limit = 3),
                      solver = futurex_solver(settings = request_settings(cache = FALSE)), epochs = 2,
                              dir = dir), baseline_constant("\\boxed{A}"))
  dsbench <- run(dsbench_task(dsbench_dataset(version = "sample"),
                      solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                              scorer = dsbench_scorer_exact(), dir = dir),
                 baseline_constant("The answer is C."))
  # ProcessBench without an erroneous sample: F1 is undefined
  pb <- processbench_dataset(system.file("extdata", "processbench-sample.parquet",
                                         package = "predictivebench"))
  processbench <- run(processbench_task(pb[pb$label == -1, ],
                                        solver = processbench_solver(settings = request_settings(cache = FALSE)), dir = dir),
                      baseline_constant("\\boxed{-1}"))
  deltabench <- run(deltabench_task(deltabench_dataset(version = "sample", limit = 2),
                      solver = deltabench_solver(settings = request_settings(cache = FALSE)),
                                    dir = dir), baseline_constant("Conclusion: no error"))
  arena <- run(arena_task(arena_dataset(version = "sample"),
                          solver = arena_solver(settings = request_settings(cache = FALSE)),
                          judge = arena_baseline_judge("longer"), dir = dir),
               baseline_chat(function(q) "It depends on the details."))
  # a probsem suite without ground truth: no accuracy
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  ps <- probsem_dataset(version = "sample")
  probsem <- run(probsem_task(ps[ps$suite == ps$suite[[3]] & ps$expected == -1, ],
                              solver = probsem_solver(settings = list(cache = FALSE)),
                              dir = dir),
                 fake_chat(server))
  tasks <- list(futurex = futurex, dsbench = dsbench, processbench = processbench,
                deltabench = deltabench, arena = arena, probsem = probsem)
  paths <- vapply(tasks, function(t) t$log_path, "")
  lines <- expect_inspect_valid(paths)
  expect_length(grep("^ok ", lines), 6)

  logs <- lapply(paths, log_json)
  # the NA headlines keep their place as "NaN" and are named, never written as null
  for (name in c("futurex", "processbench", "probsem")) {
    expect_true(length(logs[[name]]$eval$metadata$not_computed) > 0, label = name)
  }
  expect_true("level 3" %in% unlist(logs$futurex$eval$metadata$not_computed))
  # an undefined metric that is not the headline is left out: vitals' log page shows only
  # numbers
  expect_null(logs$futurex$results$scores[[1]]$metrics$`level 3`)
  expect_identical(names(logs$processbench$results$scores[[1]]$metrics)[[1]], "overall f1")
  expect_identical(logs$processbench$results$scores[[1]]$metrics[[1]]$value, "NaN")
  for (name in names(tasks)) {
    log <- logs[[name]]
    samples <- tasks[[name]]$get_samples()
    # the samples' own ids, once each, and every sample carries one of them
    expect_identical(unlist(log$eval$dataset$sample_ids), unique(samples$id), label = name)
    expect_setequal(vapply(log$samples, function(s) as.character(s$id), ""), samples$id)
    # the header's usage is the sum of the samples'
    header <- log$stats$model_usage
    for (model in names(header)) {
      summed <- sum(vapply(log$samples, function(s) {
        as.double(s$model_usage[[model]]$input_tokens %||% 0)
      }, 1))
      expect_equal(summed, as.double(header[[model]]$input_tokens), label = paste(name, model))
    }
    # round trip: the log's summary is the live one
    summary <- get(paste0(name, "_summary"))
    expect_identical(suppressMessages(summary(log_samples(paths[[name]]))),
                     suppressMessages(summary(tasks[[name]])), label = name)
  }
  expect_equal(logs$futurex$eval$config$epochs, 2)
  expect_equal(nrow(log_samples(paths[["futurex"]])), 6)
  # vitals reads them back too
  read <- vitals::vitals_log_read(paths[["processbench"]],
                                  solver_chat = baseline_constant("\\boxed{-1}"))
  expect_identical(as.character(read$id), processbench$get_samples()$id)
  board <- suppressMessages(leaderboard(dir))
  expect_setequal(unique(board$benchmark), names(tasks))
})

test_that("a sample whose score is NA is unscored in the log, and reads back as NA", {
  local_arith_benchmark()
  scorer <- function(samples, ...) {
    list(score = c(1, NA, 0, NA), scorer_metadata = rep(list(list(note = "n")), 4))
  }
  tsk <- arith_task(scorer = scorer, dir = withr::local_tempdir())
  suppressWarnings(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  log <- log_json(tsk$log_path)
  expect_null(log$samples[[2]]$scores)
  expect_equal(log$results$scores[[1]]$unscored_samples, 2)
  expect_inspect_valid(tsk$log_path)
  back <- log_samples(tsk$log_path)
  expect_identical(back$score, c(1, NA, 0, NA))
  expect_identical(back$result, unname(tsk$get_samples()$result))
  expect_equal(back$scorer_metadata[[2]], list(note = "n"))
  expect_identical(arith_summary(back), arith_summary(tsk))
})

test_that("the schema check rejects what Inspect rejects: a null metric, 1..n ids of strings", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  expect_inspect_valid(tsk$log_path)
  log <- jsonlite::read_json(tsk$log_path)
  log$results$scores[[1]]$metrics$weighted$value <- NULL
  log$results$scores[[1]]$metrics$weighted["value"] <- list(NULL)
  bad <- withr::local_tempfile(fileext = ".json")
  jsonlite::write_json(log, bad, auto_unbox = TRUE, null = "null")
  expect_failure(expect_inspect_valid(bad), "weighted")
})

test_that("every benchmark's summary of its log equals the summary of the task, intervals too", {
  dir <- withr::local_tempdir()
  no_cache <- request_settings(cache = FALSE)
  run <- function(tsk, chat) {
    suppressMessages(suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE)))
    tsk
  }
  guess <- function(choices, template) baseline_chat(choices = choices, template = template)
  # ProcessBench with two solutions of each of two problems: the default intervals cluster
  # by problem, which the log must keep
  pb <- processbench_dataset(version = "sample")
  pb$problem[c(2, 4)] <- pb$problem[c(1, 3)]
  tasks <- list(
    futurex = run(futurex_task(futurex_dataset(version = "sample"), epochs = 2, dir = dir,
                               solver = futurex_solver(settings = no_cache)),
                  guess(c("A", "B", "Yes", "No"), "\\boxed{%s}")),
    processbench = run(processbench_task(pb, dir = dir,
                                         solver = processbench_solver(settings = no_cache)),
                       guess(c("-1", "0", "1", "2"), "\\boxed{%s}")),
    deltabench = run(deltabench_task(deltabench_dataset(version = "sample"), dir = dir,
                                     solver = deltabench_solver(settings = no_cache)),
                     guess(c("yes\nError Section Number: 3", "no", "yes\nError Section Number: 1"),
                           "Conclusion: %s\nExplanation: x")),
    dsbench = run(dsbench_task(dsbench_dataset(version = "sample"), dir = dir,
                               solver = dsbench_solver(settings = no_cache),
                               scorer = dsbench_scorer_exact()),
                  guess(c("A", "B", "C", "42"), "The answer is %s.")),
    arena = run(arena_task(arena_dataset(version = "sample"), dir = dir,
                           solver = arena_solver(settings = no_cache),
                           judge = arena_baseline_judge("longer")),
                guess(c("Yes.", "It depends on the details of the question."), "%s"))
  )
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  tasks$probsem <- run(probsem_task(probsem_dataset(version = "sample"), dir = dir,
                                    solver = probsem_solver(settings = no_cache)),
                       fake_chat(server))
  expect_true(anyDuplicated(tasks$processbench$get_samples()$problem) > 0)
  for (name in names(tasks)) {
    summary <- get(paste0(name, "_summary"))
    live <- suppressMessages(summary(tasks[[name]]))
    logged <- suppressMessages(summary(tasks[[name]]$log_path))
    expect_identical(logged, live, label = name)
    expect_true(any(!is.na(live$lower)), label = name)
  }
  # ProcessBench's intervals are the clustered ones, in the log as in the task
  clustered <- suppressMessages(processbench_summary(tasks$processbench, cluster = NULL))
  expect_false(identical(clustered$upper,
                         suppressMessages(processbench_summary(tasks$processbench))$upper))
})

# A log's text with what changes from run to run (run and task ids, times, event and message
# ids) replaced by placeholders, so two logs of the same run can be compared byte for byte.
# A log's text, re-indented (its samples are one compact line each), with what varies
# between runs masked: jsonlite::prettify() keeps every number's own text.
stable_log_text <- function(path) {
  text <- readLines(path, encoding = "UTF-8", warn = FALSE)
  text <- jsonlite::prettify(paste(text, collapse = "\n"), indent = 2)
  text <- gsub("\\{\\s*\\}", "{}", gsub("\\[\\s*\\]", "[]", text))
  text <- strsplit(as.character(text), "\n", fixed = TRUE)[[1]]
  keys <- c("run_id", "created", "task", "task_id", "started_at", "completed_at", "completed",
            "timestamp")
  pattern <- paste0('^(\\s*"(', paste(keys, collapse = "|"), ')": )"[^"]*"')
  text <- sub(pattern, '\\1"<varies>"', text)
  text <- sub('^(\\s*"(working_start|working_time|time)": )[-0-9.eE+]+', "\\1<varies>", text)
  sub('^(\\s*"id": )"(msg_)?[A-Za-z0-9]{22}"', '\\1"<random id>"', text)
}

test_that("a ProcessBench and a FutureX log keep their text", {
  # The snapshots were written by the log writer of issue 19 (vitals' translate_to_samples(),
  # then the additions of results_log()), then condensed by issue 37 (condense_sample():
  # references for repeated texts, no restated events); a faster writer must give the same
  # text, re-indented.
  dir <- withr::local_tempdir()
  futurex <- futurex_run("\\boxed{A}", dir)
  pb <- processbench_dataset(system.file("extdata", "processbench-sample.parquet",
                                         package = "predictivebench"))
  processbench <- processbench_task(pb, dir = dir,
                                    solver = processbench_solver(settings = request_settings(cache = FALSE)))
  suppressMessages(processbench$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE))
  paths <- c(futurex = futurex$log_path, processbench = processbench$log_path)
  for (name in names(paths)) {
    stable <- file.path(dir, paste0(name, "-log.json"))
    writeLines(stable_log_text(paths[[name]]), stable, useBytes = TRUE)
    expect_snapshot_file(stable, paste0(name, "-log.json"))
  }
  expect_length(grep("^ok ", expect_inspect_valid(paths)), 2)
  read <- vitals::vitals_log_read(processbench$log_path,
                                  solver_chat = baseline_constant("\\boxed{-1}"))
  expect_identical(as.character(read$id), processbench$get_samples()$id)
})

test_that("an undefined headline stays first, as no number, in the log, the set's table and the board", {
  # ProcessBench with no valid vote: F1 is 0/0, error_acc and correct_acc are 0
  dir <- withr::local_tempdir()
  pb <- processbench_dataset(version = "sample")
  tsk <- processbench_task(pb, dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_chat(), view = FALSE))
  text <- read_text(tsk$log_path)
  expect_match(text, "\"name\": \"overall f1\",\\s*\"value\": \"NaN\"")
  # jsonlite (vitals' viewer server, vitals_log_read()) reads the whole log
  log <- jsonlite::fromJSON(tsk$log_path, simplifyVector = FALSE)
  metrics <- log$results$scores[[1]]$metrics
  expect_named(metrics, c("overall f1", "overall error_acc", "overall correct_acc"))
  expect_identical(vapply(metrics, function(m) as.double(m$value), 1),
                   c(`overall f1` = NaN, `overall error_acc` = 0, `overall correct_acc` = 0))
  expect_equal(unlist(log$eval$metadata$not_computed), "overall f1")
  expect_equal(nrow(vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_chat())),
               nrow(pb))
  expect_inspect_valid(tsk$log_path)
  # the board: NA under the headline's own name, first
  board <- leaderboard(tsk$log_path)
  expect_equal(board$metric[[1]], "overall f1")
  expect_true(is.na(board$estimate[[1]]))
  expect_equal(board$estimate[-1], c(0, 0))
  # the set's table: NA, never another metric's number
  logs <- withr::local_tempdir()
  set <- suppressMessages(eval_set("processbench@sample", list(empty = baseline_chat()),
                                   log_dir = logs))
  expect_equal(set$metric, "overall f1")
  expect_true(is.na(set$headline))
})

test_that("a sample's message ids are unique and its event's copies of the messages carry none", {
  dir <- withr::local_tempdir()
  answer <- paste("Weighing the forecasts of the week before and the season's records, rain",
                  "looks more likely than not. \\boxed{Yes}")
  tsk <- futurex_task(futurex_dataset(version = "sample"),
                      solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      dir = dir)
  chat <- baseline_constant(answer)
  chat$set_system_prompt(paste("You forecast events for a living;", strrep("carefully ", 12)))
  suppressMessages(tsk$eval(solver_chat = chat, view = FALSE))
  samples <- tsk$get_samples()
  fields <- tsk$.__enclos_env__$private$pb_fields
  direct <- results_log_chunk(tsk, samples, fields)$samples
  # the messages' ids are unique; the event's copies of the messages carry none
  ids <- unlist(lapply(direct, function(s) vapply(s$messages, `[[`, "", "id")))
  expect_false(anyDuplicated(ids) > 0)
  expect_null(direct[[1]]$events[[1]]$input[[1]]$id)
  expect_null(direct[[1]]$events[[1]]$output$choices[[1]]$message$id)
})

test_that("paid answers, failed requests and epochs are written with their usage and config", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("park vote", text)) return(list(status = 400))
    paste("Reading the week's signs one by one, and weighing each against the others,",
          "I settle on this. \\boxed{Yes}")
  })
  dir <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample"), epochs = 2,
                      solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      dir = dir)
  chat <- fake_chat(server, params = ellmer::params(max_tokens = 300))
  suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE))
  samples <- tsk$get_samples()
  expect_true(any(is.na(samples$score)))
  fields <- tsk$.__enclos_env__$private$pb_fields
  direct <- results_log_chunk(tsk, samples, fields)$samples
  # the answers' usage and times are there
  first <- jsonlite::parse_json(sample_json(direct[[1]]))
  expect_gt(first$events[[1]]$output$usage$output_tokens, 0)
  expect_equal(first$events[[1]]$config$max_tokens, 300)
  expect_identical(log_samples(tsk$log_path)$result, samples$result)
})
