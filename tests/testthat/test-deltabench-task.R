test_that("the task sends one request per sample at temperature 1, top_p 0.8", {
  server <- local_fake_openai(function(body, n) {
    if (grepl("rectangle", last_user_text(body))) return("Conclusion: no error")
    "Conclusion: yes\nError Section Number: 3\nExplanation: the sum is wrong."
  })
  tsk <- deltabench_task(deltabench_dataset(version = "sample"), dir = withr::local_tempdir(),
                         solver = deltabench_solver(settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  n <- nrow(tsk$get_samples())
  expect_length(bodies, n)
  expect_equal(bodies[[1]]$temperature, 1)
  expect_equal(bodies[[1]]$top_p, 0.8)
  s <- tsk$get_samples()
  expect_match(s$input[[1]], "- Question: What is the sum of the first five positive integers?",
               fixed = TRUE)
  expect_match(s$input[[1]], "- Robot's Answer: section1: We add", fixed = TRUE)
  expect_equal(s$score[s$id == "db-sum"], 1)        # gold {3}
  expect_equal(s$score[s$id == "db-area"], 1)       # error-free, judged so
  expect_equal(s$score[s$id == "db-prime"], 2 / 3)  # gold {3, 4}
  expect_equal(s$scorer_metadata[[which(s$id == "db-prime")]]$gold, c(3L, 4L))
  summary <- deltabench_summary(tsk)
  expect_equal(unique(summary$group), c("overall", "code", "math", "physics"))
})

test_that("the section-level protocol refuses ProcessBench data", {
  expect_error(
    deltabench_task(processbench_dataset(system.file("extdata", "processbench-sample.parquet",
                                                     package = "predictivebench")),
                    dir = tempfile()),
    class = "predictivebench_error_field"
  )
})

test_that("deltabench_dataset() takes a limit, which its task keeps", {
  full <- deltabench_dataset(version = "sample")
  expect_equal(deltabench_dataset(version = "sample", limit = 2)$id, full$id[1:2])
  tsk <- deltabench_task(deltabench_dataset(version = "sample", limit = 1), dir = withr::local_tempdir())
  expect_equal(tsk$get_samples()$id, full$id[[1]])
})

test_that("prepare_deltabench() prepares through Python", {
  skip_if_no_python()
  src <- system.file("extdata", "deltabench-sample.jsonl", package = "predictivebench")
  tbl <- prepare_deltabench(src)
  expect_equal(tbl$label[tbl$id == "db-mean"], 3L)
  expect_equal(tbl$label[tbl$id == "db-area"], -1L)
  counted <- prepare_deltabench(src, count_unuseful = TRUE)
  expect_equal(counted$label[counted$id == "db-prime"], 2L)
  expect_equal(tbl$label[tbl$id == "db-prime"], 3L)
  shipped <- processbench_dataset(version = "sample")
  expect_equal(shipped$label, tbl$label)
  bad <- withr::local_tempfile(fileext = ".jsonl")
  writeLines(c(readLines(src)[[1]], "{broken"), bad)
  err <- expect_error(prepare_deltabench(bad), class = "predictivebench_error_json")
  expect_equal(err$row, "2")
  ok <- suppressWarnings(prepare_deltabench(bad, on_error = "skip"))
  expect_equal(nrow(ok), 1)
})

test_that("a DeltaBench log over HTTP counts every critique; a cached re-run costs nothing", {
  server <- local_fake_openai(function(body, n) {
    list(text = if (grepl("rectangle", last_user_text(body))) "Conclusion: no error" else
           "Conclusion: yes\nError Section Number: 3\nExplanation: the sum is wrong.",
         usage = list(prompt_tokens = 100L, completion_tokens = 12L))
  })
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- deltabench_task(deltabench_dataset(version = "sample"), dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                           solver = deltabench_solver(settings = request_settings(cache = cache)))
    tsk$eval(solver_chat = fake_chat(server), view = FALSE)
    tsk
  }
  first <- run()
  n <- nrow(first$get_samples())
  log <- expect_results_log(first, deltabench_summary, db_fields)
  usage <- log_usage(first$log_path)
  expect_equal(c(usage$input_tokens, usage$output_tokens), c(n * 100, n * 12))
  ids <- vapply(log$samples, function(s) s$id, "")
  expect_equal(log$samples[[which(ids == "db-area")]]$scores[[1]]$explanation,
               "critique: no error vs gold no error: correct")
  second <- run()
  expect_equal(server$count(), n)
  expect_results_log(second, deltabench_summary, db_fields)
  expect_equal(sum(log_usage(second$log_path)$input_tokens), 0)
  expect_true(all(vapply(log_json(second$log_path)$samples, function(s) s$metadata$cached, TRUE)))
})
