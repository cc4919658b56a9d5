test_that("the solver sends n_votes separate requests at temperature 0.7, cached per vote", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("apples", text)) return("All fine. \\boxed{-1}")
    if (grepl("pen and a book", text)) {
      # two of the three votes say 0 and one says 1, whatever order the requests arrive in
      env <- environment(sys.function())
      seen <- get0("pen_seen", envir = env, inherits = FALSE, ifnotfound = 0) + 1
      assign("pen_seen", seen, envir = env)
      return(if (seen == 3) "\\boxed{1}" else "Paragraph 0 is wrong. \\boxed{0}")
    }
    list(status = 400L)  # the train question always fails: a recorded failure, not a crash
  })
  cache <- withr::local_tempdir()
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 3,
                                                        settings = request_settings(cache = cache)))
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  bodies <- server$requests()
  expect_length(bodies, 9)
  expect_true(all(vapply(bodies, function(b) identical(b$temperature, 0.7), TRUE)))
  expect_true(all(vapply(bodies, function(b) is.null(b$seed), TRUE)))
  s <- tsk$get_samples()
  expect_equal(s$result[1:2], c("-1", "0"))
  expect_true(is.na(s$result[[3]]))
  expect_identical(s$score, c(1, 1, 0))
  m <- s$solver_metadata[[2]]
  expect_length(m$critiques, 3)
  expect_equal(sum(m$votes == 0L), 2)
  expect_equal(m$prediction, 0L)
  expect_true(all(!is.na(s$solver_metadata[[3]]$errors)))
  # a second run answers every successful vote from the cache
  before <- server$count()
  tsk2 <- processbench_task(pb_table()[1:2, ], dir = withr::local_tempdir(),
                            solver = processbench_solver(n_votes = 3,
                                                         settings = request_settings(cache = cache)))
  tsk2$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), before)
  expect_true(all(vapply(tsk2$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
})

test_that("greedy mode sends one request per sample at temperature 0", {
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  tsk <- processbench_task(pb_table(), template = "processbench", dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 1, temperature = 0,
                                                        settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  expect_length(bodies, 3)
  expect_true(all(vapply(bodies, function(b) identical(b$temperature, 0L) ||
                           identical(b$temperature, 0), TRUE)))
  expect_match(last_user_text(bodies[[1]]), "[Math Problem]", fixed = TRUE)
  expect_identical(tsk$get_samples()$score, c(1, 0, 0))
})

test_that("n_per_request asks for all votes in one request with n", {
  server <- local_fake_openai(function(body, n) {
    k <- body$n %||% 1L
    list(choices = c("\\boxed{1}", "\\boxed{2}", "\\boxed{2}")[seq_len(k)])
  })
  cache <- withr::local_tempdir()
  solver <- processbench_solver(n_votes = 3, n_per_request = TRUE,
                                settings = request_settings(cache = cache))
  tsk <- processbench_task(pb_table()[1:2, ], dir = withr::local_tempdir(), solver = solver)
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  expect_length(bodies, 2)
  expect_equal(bodies[[1]]$n, 3L)
  expect_equal(bodies[[1]]$temperature, 0.7)
  m <- tsk$get_samples()$solver_metadata[[1]]
  expect_equal(m$votes, c(1L, 2L, 2L))
  expect_equal(m$prediction, 2L)
  # cached: a re-run sends nothing and keeps the three votes
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), 2)
  expect_equal(tsk$get_samples()$solver_metadata[[2]]$votes, c(1L, 2L, 2L))
})

test_that("n_per_request: votes a provider leaves out are requested separately, cached", {
  # This provider ignores n: one choice per request, whatever was asked.
  one <- local_fake_openai(function(body, n) {
    list(choices = if (is.null(body$n)) "\\boxed{1}" else "\\boxed{0}")
  })
  cache <- withr::local_tempdir()
  solver <- processbench_solver(n_votes = 3, n_per_request = TRUE,
                                settings = request_settings(cache = cache))
  tsk <- processbench_task(pb_table()[1:2, ], dir = withr::local_tempdir(), solver = solver)
  expect_message(tsk$eval(solver_chat = fake_chat(one), view = FALSE),
                 class = "predictivebench_message_n_ignored")
  bodies <- one$requests()
  expect_length(bodies, 6)  # per sample: the n request, then the 2 missing votes
  asked_n <- vapply(bodies, function(b) !is.null(b$n), TRUE)
  expect_equal(sum(asked_n), 2)
  expect_true(all(vapply(bodies[!asked_n], function(b) identical(b$temperature, 0.7), TRUE)))
  s <- tsk$get_samples()
  for (m in s$solver_metadata) {
    expect_equal(m$votes, c(0L, 1L, 1L))
    expect_equal(m$n_votes, 3)
    expect_length(m$critiques, 3)
    expect_equal(m$errors, rep(NA_character_, 3))
    expect_equal(m$prediction, 1L)
  }
  # a re-run sends nothing: the extra votes are cached too
  expect_message(tsk$eval(solver_chat = fake_chat(one), view = FALSE),
                 class = "predictivebench_message_n_ignored")
  expect_equal(one$count(), 6)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  # ... and they are the entries n_per_request = FALSE uses for votes 2 and 3
  separate <- processbench_task(pb_table()[1:2, ], dir = withr::local_tempdir(),
                                solver = processbench_solver(n_votes = 3,
                                                             settings = request_settings(cache = cache)))
  separate$eval(solver_chat = fake_chat(one), view = FALSE)
  expect_equal(one$count(), 8)  # only vote 1 of each sample was never sent on its own
})

test_that("a seed is offset per vote, so votes differ but re-runs repeat them", {
  seeds_sent <- function(server) {
    vapply(server$requests(), function(b) as.numeric(b$seed %||% NA), 1)
  }
  server <- local_fake_openai(function(body, n) paste0("\\boxed{", body$seed %% 2, "}"))
  tsk <- processbench_task(pb_table()[1, ], dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 4, params = list(seed = 7),
                                                        settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(sort(seeds_sent(server)), c(7, 8, 9, 10))
  expect_equal(tsk$get_samples()$solver_metadata[[1]]$votes, c(1L, 0L, 1L, 0L))

  # a seed set on the chat itself, over two samples and two vitals epochs
  chat_server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  chat <- fake_chat(chat_server, params = ellmer::params(seed = 5))
  tsk2 <- processbench_task(pb_table()[1:2, ], epochs = 2, dir = withr::local_tempdir(),
                            solver = processbench_solver(n_votes = 3,
                                                         settings = request_settings(cache = FALSE)))
  tsk2$eval(solver_chat = chat, view = FALSE)
  bodies <- chat_server$requests()
  expect_length(bodies, 12)
  seeds <- seeds_sent(chat_server)
  prompts <- vapply(bodies, last_user_text, "")
  for (p in unique(prompts)) expect_equal(sort(seeds[prompts == p]), 5:10)

  # with n in one request, each request carries the seed of its first vote
  n_server <- local_fake_openai(function(body, n) {
    list(choices = rep("\\boxed{-1}", body$n %||% 1L))
  })
  tsk3 <- processbench_task(pb_table()[1, ], epochs = 2, dir = withr::local_tempdir(),
                            solver = processbench_solver(n_votes = 3, n_per_request = TRUE,
                                                         params = list(seed = 7),
                                                         settings = request_settings(cache = FALSE)))
  tsk3$eval(solver_chat = fake_chat(n_server), view = FALSE)
  expect_equal(sort(seeds_sent(n_server)), c(7, 10))
})

test_that("vitals epochs draw new votes: every (epoch, vote) is its own request", {
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  tsk <- processbench_task(pb_table()[1, ], epochs = 2, dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 2,
                                                        settings = request_settings(cache = withr::local_tempdir())))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), 4)
  expect_equal(nrow(tsk$get_samples()), 2)
})

test_that("a ProcessBench log over HTTP counts all votes; a cached re-run costs nothing", {
  server <- local_fake_openai(function(body, n) {
    list(text = "\\boxed{-1}", usage = list(prompt_tokens = 30L, completion_tokens = 5L))
  })
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                             solver = processbench_solver(settings = request_settings(cache = cache)))
    tsk$eval(solver_chat = fake_chat(server), view = FALSE)
    tsk
  }
  first <- run()
  expect_equal(server$count(), 3 * 8)
  log <- expect_results_log(first, processbench_summary, pb_fields)
  usage <- log_usage(first$log_path)
  expect_equal(c(usage$input_tokens, usage$output_tokens), c(3 * 8 * 30, 3 * 8 * 5))
  expect_equal(log$samples[[1]]$model_usage[[1]]$input_tokens, 8 * 30)
  expect_equal(log$samples[[2]]$scores[[1]]$explanation,
               paste("votes", paste(rep(-1, 8), collapse = ", "),
                     "(8 valid of 8); majority -1 vs label 0: wrong"))
  second <- run()
  expect_equal(server$count(), 3 * 8)
  expect_results_log(second, processbench_summary, pb_fields)
  expect_equal(sum(log_usage(second$log_path)$input_tokens), 0)
  expect_true(all(vapply(log_json(second$log_path)$samples, function(s) s$metadata$cached, TRUE)))
})

test_that("batch = TRUE: 8 votes a sample through a provider batch; a later run sends 0", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) {
    if (grepl("apples", last_user_text(body))) "\\boxed{-1}" else "\\boxed{0}"
  })
  cache <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(settings = request_settings(cache = cache, batch = TRUE)))
  tsk$eval(solver_chat = chat, view = FALSE)
  s <- tsk$get_samples()
  expect_equal(server$count(), 3 * 8)
  expect_equal(server$uploads(), 1)  # one chat sends every vote: one batch
  expect_equal(s$result, c("-1", "0", "0"))
  expect_equal(lengths(lapply(s$solver_metadata, `[[`, "critiques")), c(8, 8, 8))
  expect_identical(s$score, c(1, 1, 0))
  again <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                             solver = processbench_solver(settings = request_settings(cache = cache)))
  again$eval(solver_chat = chat, view = FALSE)
  expect_equal(server$count(), 3 * 8)
  expect_equal(again$get_samples()$result, s$result)
})

test_that("batch = TRUE, wait = FALSE: the votes are collected by a second $eval()", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) "\\boxed{-1}", batch = list(polls = 1))
  cache <- withr::local_tempdir()
  chat <- fake_anthropic_chat(server)
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 2,
                                                        settings = request_settings(cache = cache, batch = "submit")))
  expect_message(
    suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE),
                     classes = "predictivebench_warning_failed_requests"),
    class = "predictivebench_message_batch_pending"
  )
  expect_true(all(is.na(tsk$get_samples()$result)))
  expect_no_message(tsk$eval(solver_chat = chat, view = FALSE),
                    class = "predictivebench_message_batch_pending")
  expect_equal(tsk$get_samples()$result, rep("-1", 3))
  expect_equal(server$count(), 3 * 2)
})
