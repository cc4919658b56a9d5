test_that("futurex_task end to end against the fake server, cached on the second run", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("park vote", text)) return(list(status = 400))
    if (grepl("Yes or No", text)) "Thinking... \\boxed{Yes}" else "\\boxed{B, D}"
  })
  dir <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache)), dir = dir)
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  expect_true(is.na(samples$score[samples$id == "fx-l1-vote"]))
  expect_equal(samples$score[samples$id == "fx-l1-rain"], 1)
  expect_equal(samples$score[samples$id == "fx-l1-ferry"], 0)
  expect_equal(samples$score[samples$id == "fx-l2-stocks"], 1)
  summary <- suppressMessages(futurex_summary(tsk))
  expect_equal(summary$n_missing[[1]], 1L)
  expect_equal(summary$estimate[summary$group == "level 1"], 0.5)
  sent <- server$count()
  expect_equal(sent, nrow(samples))  # one request per sample

  tsk2 <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache)), dir = dir)
  expect_warning(tsk2$eval(solver_chat = fake_chat(server), view = FALSE))
  # only the failed request is sent again
  expect_equal(server$count(), sent + 1)
  expect_equal(tsk2$get_samples()$score, samples$score)
})

test_that("the scorer accepts a judge chat through $eval(scorer_chat =)", {
  server <- local_fake_openai(function(body, n) "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5")
  dataset <- futurex_dataset(version = "sample")
  dataset <- dataset[dataset$id == "fx-l3-temp", ]
  tsk <- futurex_task(dataset = dataset, solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{99}"), scorer_chat = fake_chat(server),
           view = FALSE)
  expect_equal(tsk$get_samples()$score, 1)
  expect_equal(tsk$get_samples()$scorer_metadata[[1]]$normalization, "llm")
})

test_that("futurex_task(judge =) scores a set with nothing for the judge to normalize", {
  # Only choice items (levels 1 and 2): the judge is sent nothing, yet vitals wants a Chat
  # per item from a scorer that has one.
  dataset <- futurex_dataset(version = "sample")
  dataset <- dataset[dataset$level <= 2, ]
  judge <- baseline_chat(choices = "GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 1")
  tsk <- futurex_task(dataset, judge = judge, dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), nrow(dataset))
  expect_false(anyNA(samples$score))
  expect_true(all(vapply(samples$scorer_chat, inherits, TRUE, "Chat")))
  expect_match(samples$scorer_chat[[1]]$last_turn("user")@text, "not sent to the judge")
  expect_true(all(is.na(vapply(samples$scorer_metadata, `[[`, "", "normalization"))))
})

test_that("prepare_futurex writes a readable task table", {
  skip_if_no_python()
  out <- withr::local_tempfile(fileext = ".parquet")
  src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
  prepare_futurex(src, out)
  table <- read_task_table(out)
  expect_equal(table, futurex_dataset(version = "sample"))
  expect_equal(futurex_dataset(table), table)
})

test_that("futurex_dataset() takes a limit, which its task keeps", {
  full <- futurex_dataset(version = "sample")
  expect_equal(futurex_dataset(version = "sample", limit = 2)$id, full$id[1:2])
  sampled <- futurex_dataset(version = "sample", limit = 3, shuffle = 1)
  expect_equal(nrow(sampled), 3)
  expect_true(all(sampled$id %in% full$id))
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 4), dir = withr::local_tempdir())
  expect_equal(tsk$get_samples()$id, full$id[1:4])
})

test_that("a FutureX log over HTTP counts the judge, and a cached re-run costs nothing", {
  server <- local_fake_openai(futurex_judge_reply)
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache)),
                        scorer = futurex_scorer(scorer_chat = fake_chat(server, "judge"),
                                                settings = request_settings(cache = cache)),
                        dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk
  }
  first <- run()
  log <- expect_results_log(first, futurex_summary, c("level", "std", "end_time"))
  usage <- log_usage(first$log_path)
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/fake-model"], 11 * 20)
  judged <- sum(futurex_dataset(version = "sample")$level >= 3 & !is.na(futurex_dataset(version = "sample")$std))
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/judge"], judged * 40)
  numeric <- Filter(function(s) identical(s$scores[[1]]$metadata$kind, "numeric"), log$samples)
  expect_match(numeric[[1]]$scores[[1]]$explanation,
               "^numeric: extracted 12 vs .* \\(values 12 vs 12.5, normalized by the judge\\)$")
  expect_equal(numeric[[1]]$scores[[1]]$metadata$input_tokens, 40)

  sent <- server$count()
  second <- run()
  expect_equal(server$count(), sent)
  expect_results_log(second, futurex_summary, c("level", "std", "end_time"))
  expect_equal(sum(log_usage(second$log_path)$input_tokens), 0)
  samples <- log_json(second$log_path)$samples
  expect_true(all(vapply(samples, function(s) s$metadata$cached, TRUE)))
  expect_true(all(vapply(samples, function(s) s$scores[[1]]$metadata$cached, TRUE)))
  expect_false(log_json(second$log_path)$eval$task_id == log$eval$task_id)
})

test_that("batch = TRUE: $eval() through a provider batch; a later run without it sends 0", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) {
    if (grepl("Yes or No", last_user_text(body))) "\\boxed{Yes}" else "\\boxed{B, D}"
  })
  cache <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache, batch = TRUE)),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = chat, view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(server$count(), nrow(samples))
  expect_equal(server$uploads(), 1)  # one batch file for every sample
  expect_false(anyNA(samples$result))
  expect_equal(samples$score[samples$id == "fx-l1-rain"], 1)
  expect_equal(samples$score[samples$id == "fx-l2-stocks"], 1)
  # the answers are in the response cache: a run without batch sends nothing
  again <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache)), dir = withr::local_tempdir())
  again$eval(solver_chat = chat, view = FALSE)
  expect_equal(server$count(), nrow(samples))
  expect_true(all(vapply(again$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  expect_equal(again$get_samples()$score, samples$score)
})

test_that("batch = TRUE, wait = FALSE: $eval() submits and says how to collect; again collects", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) "\\boxed{Yes}", batch = list(polls = 1))
  cache <- withr::local_tempdir()
  chat <- fake_anthropic_chat(server)
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = cache, batch = "submit")),
                      dir = withr::local_tempdir())
  expect_message(
    suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE),
                     classes = "predictivebench_warning_failed_requests"),
    "Run the same call again", class = "predictivebench_message_batch_pending"
  )
  n <- nrow(tsk$get_samples())
  expect_true(all(is.na(tsk$get_samples()$result)))
  expect_match(tsk$get_samples()$solver_metadata[[1]]$error, "still running")
  expect_equal(server$count(), n)
  expect_no_message(tsk$eval(solver_chat = chat, view = FALSE),
                    class = "predictivebench_message_batch_pending")
  expect_equal(tsk$get_samples()$result, rep("\\boxed{Yes}", n))
  expect_equal(server$count(), n)  # collected, not submitted again
  expect_length(list.files(file.path(cache, "batches")), 0)
})

test_that("prepare_futurex(on_error = 'skip') leaves out a malformed item", {
  skip_if_no_python()
  src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
  items <- jsonlite::read_json(src)
  items[[2]]$level <- 9
  bad <- withr::local_tempfile(fileext = ".json")
  jsonlite::write_json(items, bad, auto_unbox = TRUE, null = "null")
  err <- expect_error(prepare_futurex(bad), class = "predictivebench_error_field")
  expect_equal(err$field, "level")
  table <- prepare_futurex(bad, on_error = "skip")
  expect_equal(table$id, prepare_futurex(src)$id[-2])
})
