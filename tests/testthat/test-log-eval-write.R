# Logs written in Inspect AI's `.eval` layout (R/log-eval-write.R, issue 46): the JSON log's
# content in a zip, samples added as they finish, header.json last.

eval_sample <- function(i) {
  list(id = paste0("s", i), epoch = 1L, input = paste("question", i), target = "A",
       messages = list(list(role = "user", content = paste("question", i), source = "input")),
       scores = list(choice = list(value = i / 10, answer = "A")),
       metadata = list(note = paste0("line one\nline \"two\" of ", i)), store = NULL)
}

eval_header <- function(n) {
  list(version = 2L, status = "success",
       eval = list(created = "2026-01-02T03:04:05.123456+00:00", task_id = "bench/model/abc",
                   dataset = list(samples = n), config = list(epochs = 1L)),
       results = list(total_samples = n, completed_samples = n),
       stats = list(started_at = "2026-01-02T03:04:05.123456+00:00",
                    completed_at = "2026-01-02T03:04:07.5+00:00"))
}

entry_text <- function(path, entry) {
  dir <- withr::local_tempdir()
  zip::unzip(path, files = entry, exdir = dir)
  text <- readChar(file.path(dir, entry), file.size(file.path(dir, entry)), useBytes = TRUE)
  Encoding(text) <- "UTF-8"
  text
}

expect_inspect_valid_eval <- function(paths) expect_inspect_valid(paths, "validate_eval.py")

test_that("an .eval log is written as it goes: samples as they come, header.json last", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", created = "2026-01-02T03:04:05.123456+00:00",
                  format = "eval")
  log_writer_add(w, lapply(1:3, eval_sample))
  # unfinished: a hidden zip with the samples so far and no header.json
  expect_length(list.files(dir), 0)
  expect_match(basename(w$part), "^\\..*\\.eval\\.part$")
  expect_equal(zip::zip_list(w$part)$filename,
               c("_journal/start.json", sprintf("samples/s%d_epoch_1.json", 1:3),
                 "_journal/summaries/1.json"))
  log_writer_add(w, lapply(4:5, eval_sample))
  path <- log_writer_finish(w, eval_header(5))
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(path))
  expect_equal(basename(path), log_file_name("2026-01-02T03:04:05.123456+00:00",
                                             "bench/model/abc", "eval"))
  entries <- zip::zip_list(path)
  expect_equal(entries$filename[[length(entries$filename)]], "header.json")
  expect_equal(sum(startsWith(entries$filename, "samples/")), 5)
  expect_true(all(entries$compressed_size[startsWith(entries$filename, "samples/")] <
                  entries$uncompressed_size[startsWith(entries$filename, "samples/")]))
  # the JSON log's content: the same sample text, the same header
  expect_equal(entry_text(path, "samples/s2_epoch_1.json"), sample_json(eval_sample(2)))
  header <- jsonlite::parse_json(entry_text(path, "header.json"))
  expect_equal(header, jsonlite::parse_json(json_text(nulls_as_objects(eval_header(5)),
                                                      log_json_options())))
  summaries <- jsonlite::parse_json(entry_text(path, "summaries.json"))
  expect_equal(vapply(summaries, `[[`, "", "id"), paste0("s", 1:5))
  reductions <- jsonlite::parse_json(entry_text(path, "reductions.json"))
  expect_equal(reductions[[1]]$scorer, "choice")
  expect_equal(vapply(reductions[[1]]$samples, `[[`, 0, "value"), (1:5) / 10)
  expect_error(log_writer_add(w, list(eval_sample(6))), class = "predictivebench_error_argument")
})

test_that("samples without usage write {} where Inspect wants an object, valid for Inspect", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", format = "eval")
  bare <- eval_sample(1)  # no model_usage at all
  empty <- eval_sample(2)
  empty$model_usage <- empty_object()  # as log_samples_of() makes one
  log_writer_add(w, list(bare, empty))
  # an Inspect header whose run used no model: its stats' model_usage an empty list too
  header <- jsonlite::parse_json(inspect_eval_entries("bench", c("C", "I"), 0.5)$header.json)
  expect_identical(header$stats$model_usage, list())
  path <- log_writer_finish(w, header)
  expect_inspect_valid_eval(path)
  for (entry in c("_journal/summaries/1.json", "summaries.json")) {
    expect_match(entry_text(path, entry), '"model_usage":{}', fixed = TRUE)
    expect_no_match(entry_text(path, entry), '"model_usage":[]', fixed = TRUE)
  }
  expect_match(entry_text(path, "header.json"), '"model_usage": ?[{]')
})

test_that("an abandoned .eval log leaves nothing; a format other than json or eval is refused", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", format = "eval")
  log_writer_add(w, list(eval_sample(1)))
  stage <- w$stage
  log_writer_abandon(w)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
  expect_false(dir.exists(stage))
  expect_error(log_writer(dir, "bench/model/abc", format = "zip"),
               class = "predictivebench_error_argument")
  withr::local_options(predictivebench.log_format = "yaml")
  expect_error(log_writer(dir, "bench/model/abc"), class = "predictivebench_error_argument")
})

test_that("$eval(log_format = 'eval') writes the JSON run's log as .eval, valid for Inspect", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  data <- futurex_dataset(version = "sample")
  json_task <- futurex_task(data, dir = withr::local_tempdir())
  suppressMessages(json_task$eval(solver_chat = fake_chat(server), view = FALSE))
  dir <- withr::local_tempdir()
  tsk <- futurex_task(data, dir = dir)
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE, log_format = "eval"))
  expect_match(tsk$log_path, "\\.eval$")
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(tsk$log_path))
  expect_inspect_valid_eval(tsk$log_path)
  header <- jsonlite::parse_json(entry_text(tsk$log_path, "header.json"))
  json_header <- read_log_header(json_task$log_path)
  expect_equal(header$results, json_header$results)
  expect_equal(header$eval$metadata$headline, json_header$eval$metadata$headline)
  expect_equal(sum(startsWith(zip::zip_list(tsk$log_path)$filename, "samples/")), nrow(data))
  expect_equal(tsk$get_samples()$score, json_task$get_samples()$score)
  # the option does the same for every writer (sets, the arena)
  withr::local_options(predictivebench.log_format = "eval")
  other <- futurex_task(data, dir = withr::local_tempdir())
  suppressMessages(other$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_match(other$log_path, "\\.eval$")
  expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE, log_format = "xml"),
               class = "predictivebench_error_argument")
})

test_that("the .eval writer appends batches together, at most a tenth of the log unzipped", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", created = "2026-01-02T03:04:05.123456+00:00",
                  format = "eval")
  appends <- 0L
  zipped <- 0L
  for (k in 0:59) {
    log_writer_add(w, lapply(k * 10 + 1:10, eval_sample))
    now <- sum(startsWith(zip::zip_list(w$part)$filename, "samples/"))
    appends <- appends + (now > zipped)
    zipped <- now
    expect_gte(zipped, (k + 1) * 10 / 1.1 - 10)
  }
  path <- log_writer_finish(w, eval_header(600))
  # one append a batch would be 60; each rewrites the zip's central directory
  expect_lt(appends, 35)
  expect_equal(sum(startsWith(zip::zip_list(path)$filename, "samples/")), 600)
  expect_equal(sum(startsWith(zip::zip_list(path)$filename, "_journal/summaries/")), 60)
})

test_that("a JSON log converted to .eval keeps every sample's text and its header", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  dest <- file.path(withr::local_tempdir(), "converted.eval")
  log_convert_to_eval(tsk$log_path, dest, lines = 4L)
  expect_equal(list.files(dirname(dest), all.files = TRUE, no.. = TRUE), "converted.eval")
  expect_inspect_valid_eval(dest)
  lines <- character()
  con <- open_sample_lines(tsk$log_path)
  lines <- sub(",$", "", setdiff(readLines(con, encoding = "UTF-8"), c("  ]", "}")))
  close(con)
  ids <- vapply(lines, function(l) jsonlite::parse_json(l)$id, "", USE.NAMES = FALSE)
  texts <- vapply(sprintf("samples/%s_epoch_1.json", ids), entry_text, "", path = dest,
                  USE.NAMES = FALSE)
  expect_identical(texts, lines)
  expect_equal(jsonlite::parse_json(entry_text(dest, "header.json")), read_log_header(tsk$log_path))
  # three batches of four samples or fewer, each journalled
  expect_equal(sum(startsWith(zip::zip_list(dest)$filename, "_journal/summaries/")),
               ceiling(length(lines) / 4))
})

test_that("an .eval run killed mid-run leaves no header.json, its rerun pays only what was in flight", {
  skip_on_cran()
  skip_on_os("windows")
  root <- skip_if_no_source_tree()
  server <- local_fake_openai(function(body, n) "\\boxed{A}", latency = 0.05)
  cache <- withr::local_tempdir()
  logs <- withr::local_tempdir()
  n <- 90
  data <- futurex_dataset(version = "sample")
  data <- data[rep_len(seq_len(nrow(data)), n), ]
  data$id <- sprintf("kill-%03d", seq_len(n))
  data$input <- paste0(data$input, "\n(item ", seq_len(n), ")")
  rds <- withr::local_tempfile(fileext = ".rds")
  saveRDS(data, rds)
  settings <- sprintf("request_settings(cache = %s, max_active = 3, rpm = 1e6)", deparse(cache))
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(root)),
    sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
             credentials = function() 'k')", deparse(server$url)),
    sprintf("tsk <- futurex_task(readRDS(%s), dir = %s, solver = futurex_solver(settings = %s))",
            deparse(rds), deparse(logs), settings),
    "tsk$chunk_size <- 20",
    "tsk$eval(solver_chat = chat, view = FALSE, log_format = 'eval')"
  ), script)
  child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                 stdout = NULL, stderr = NULL)
  withr::defer(if (child$is_alive()) child$kill())
  entries <- function() length(list.files(cache, recursive = TRUE, pattern = "\\.rds$"))
  deadline <- Sys.time() + 120
  while (entries() < 48 && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.02)
  child$signal(tools::SIGKILL)
  child$wait(5000)
  expect_false(child$is_alive())
  sent_before <- server$count()
  done <- entries()
  expect_gte(done, 48)
  expect_lt(done, n)

  # left: the hidden zip of the finished chunks, without header.json; no *.eval
  part <- list.files(logs, pattern = "\\.eval\\.part$", all.files = TRUE, full.names = TRUE)
  expect_length(part, 1)
  written <- zip::zip_list(part)$filename
  expect_gte(sum(startsWith(written, "samples/")), 40)
  expect_false("header.json" %in% written)
  expect_length(list.files(logs, pattern = "\\.(eval|json)$"), 0)
  expect_equal(nrow(leaderboard(logs)), 0)

  tsk <- futurex_task(data, dir = logs, solver = futurex_solver(settings = request_settings(
    cache = cache, max_active = 3, rpm = 1e6)))
  tsk$chunk_size <- 20
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE, log_format = "eval"))
  expect_equal(server$count() - sent_before, n - done)
  expect_equal(list.files(logs, all.files = TRUE, no.. = TRUE), basename(tsk$log_path))
  expect_match(tsk$log_path, "\\.eval$")
  expect_equal(sum(startsWith(zip::zip_list(tsk$log_path)$filename, "samples/")), n)
  expect_inspect_valid_eval(tsk$log_path)
})
