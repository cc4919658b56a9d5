# A ResultsTask's `$eval()` killed with SIGKILL in the middle of a run of several chunks
# (R/results-eval.R): no log anything counts as done, and the rerun pays only for the
# requests that were in flight (every answer that arrived is in the response cache).

test_that("a run killed in its third chunk leaves no log, and its rerun pays only what was in flight", {
  skip_on_cran()
  skip_on_os("windows")
  root <- skip_if_no_source_tree()
  server <- local_fake_openai(function(body, n) "\\boxed{A}", latency = 0.05)
  cache <- withr::local_tempdir()
  logs <- withr::local_tempdir()
  n <- 90
  max_active <- 3
  data <- futurex_dataset(version = "sample")
  data <- data[rep_len(seq_len(nrow(data)), n), ]
  data$id <- sprintf("kill-%03d", seq_len(n))
  data$input <- paste0(data$input, "\n(item ", seq_len(n), ")")
  rds <- withr::local_tempfile(fileext = ".rds")
  saveRDS(data, rds)
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    sprintf("pkgload::load_all(%s, quiet = TRUE)", deparse(root)),
    sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model',
             credentials = function() 'k')", deparse(server$url)),
    sprintf("tsk <- futurex_task(readRDS(%s), dir = %s, solver = futurex_solver(settings =
             request_settings(cache = %s, max_active = %d, rpm = 1e6)))",
            deparse(rds), deparse(logs), deparse(cache), max_active),
    "tsk$chunk_size <- 20",
    "tsk$eval(solver_chat = chat, view = FALSE)"
  ), script)
  child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                                 stdout = NULL, stderr = NULL)
  withr::defer(if (child$is_alive()) child$kill())
  entries <- function() length(list.files(cache, recursive = TRUE, pattern = "\\.rds$"))
  deadline <- Sys.time() + 120
  # two chunks are in the log's part file, the third is being answered
  while (entries() < 48 && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.02)
  child$signal(tools::SIGKILL)
  child$wait(5000)
  expect_false(child$is_alive())
  sent_before <- server$count()
  done <- entries()
  expect_gte(done, 48)
  expect_lt(done, n)
  expect_lte(sent_before - done, max_active)

  # what the run left: a hidden part file with the finished chunks, no *.json log
  left <- list.files(logs, all.files = TRUE, no.. = TRUE)
  expect_length(list.files(logs, pattern = "\\.json$"), 0)
  expect_true(any(grepl("^\\..*\\.json\\.part$", left)))
  expect_equal(nrow(leaderboard(logs)), 0)

  tsk <- futurex_task(data, dir = logs, solver = futurex_solver(settings = request_settings(
    cache = cache, max_active = max_active, rpm = 1e6)))
  tsk$chunk_size <- 20
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  sent_after <- server$count() - sent_before
  expect_equal(sent_after, n - done)
  expect_lte(sent_before + sent_after - n, max_active)  # answers paid for twice
  expect_equal(sum(vapply(tsk$get_samples()$solver_metadata, `[[`, NA, "cached")), done)
  expect_length(list.files(logs, pattern = "\\.json$"), 1)
  # the rerun removed the crashed run's part file (and its lock): the folder holds the log only
  expect_equal(list.files(logs, all.files = TRUE, no.. = TRUE), basename(tsk$log_path))
  expect_equal(nrow(log_samples(tsk$log_path)), n)
  board <- leaderboard(logs)
  expect_gt(nrow(board), 0)
  expect_length(unique(board$run), 1)
})
