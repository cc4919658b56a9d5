# Requests sent, nothing cached.
no_cache <- request_settings(cache = FALSE)

# A fake echo server whose log-probabilities depend on hints in the text: the last token
# scores -0.25 when the text contains "[hint <token>]", otherwise every token scores
# -nchar(token) / 2; the first token has none (echo_completion() in helper-fake-openai.R).
hint_reply <- function(body, n) {
  text <- body$prompt
  tokens <- echo_tokenize(text)
  lp <- -nchar(tokens) / 2
  last <- length(tokens)
  if (last > 1 && grepl(paste0("[hint ", trimws(tokens[[last]]), "]"), text, fixed = TRUE)) {
    lp[[last]] <- -0.25
  }
  echo_completion(text, tokens, lp)
}

# A fake chat endpoint whose first answer token is "True" (-0.5) or "False" (-1.5).
true_false_reply <- function(body, n) {
  top <- list(list(token = "True", logprob = -0.5), list(token = "False", logprob = -1.5))
  list(text = "True", logprobs = list(content = list(list(token = "True", logprob = -0.5,
                                                          top_logprobs = top))))
}

# A task table written by hand, in the schema the flattener produces.
hint_table <- function() {
  prompt <- "Notes.\n"
  row <- function(suite, i, text, queries, expected) {
    tibble::tibble(
      id = paste0(suite, "-", i), input = paste0(prompt, "\n", text, "\n"),
      target = if (expected >= 0) queries[[expected + 1]] else NA_character_,
      prompt = "notes", suite = suite, context_index = as.integer(i), text = text,
      queries = list(queries), expected = as.integer(expected)
    )
  }
  rbind(
    row("tf", 0, "one [hint True]\nAnswer:", c("True", "False"), 0),
    row("tf", 1, "two [hint True]\nAnswer:", c("True", "False"), 1),
    row("tf", 2, "three [hint True] [hint False]\nAnswer:", c("False", "True"), 1),
    row("open", 0, "four\nAnswer:", c("cold", "very hot"), -1)
  )
}

test_that("the bundled sample is a valid table with the two example suites", {
  d <- probsem_dataset(version = "sample")
  expect_equal(unique(d$suite), c("choice", "truth"))
  expect_equal(d$expected, c(0L, 2L, -1L, 0L, 1L, 0L))
  expect_true(is.na(d$target[[3]]))
  expect_identical(d$queries[[4]], c("True", "False"))
  prompt <- rawToChar(readBin(system.file("extdata", "probsem", "weather.txt",
                                          package = "predictivebench"), "raw", 1e5))
  # The prompt keeps its trailing newline, then one "\n" joins it to the text.
  expect_identical(d$input[[4]], paste0(
    prompt, "\n", "Say whether the statement is True or False.\n",
    "The ferry ran on time on Tuesday.\nAnswer:\n"))
  expect_identical(d$text[[1]], paste0(
    "Pick the best option.\nWhich day was the ferry kept in port?\n",
    "A) Monday\nB) Tuesday\nC) Wednesday\nThe answer is:"))
})

test_that("prepare_probsem() prepares the shipped files into the shipped table", {
  skip_if_not(python_available(), "Python with pandas is not available")
  src <- system.file("extdata", "probsem", "weather.txt", package = "predictivebench")
  tbl <- prepare_probsem(src)
  expect_equal(tbl, probsem_dataset(version = "sample"), ignore_attr = TRUE)
  one <- prepare_probsem(src, suites = "truth")
  expect_equal(unique(one$suite), "truth")
  bad <- withr::local_tempdir()
  writeLines("P", file.path(bad, "p.txt"))
  writeLines('{"pretext": "", "posttext": "", "queries": ["a", "a"],
               "context": [{"text": "x", "expected": 0}]}', file.path(bad, "p_S.json"))
  err <- expect_error(prepare_probsem(file.path(bad, "p.txt")),
                      class = "predictivebench_error_field")
  expect_match(conditionMessage(err), "suite 'S', query 1 'a'")
  expect_match(err$file, "p_S.json")
})

test_that("the walkthrough suites are assembled byte for byte", {
  # The reference folder sits beside the checkout: ../shared/reference/probsem.
  candidates <- c(reference_dir("probsem"),
                  "/work/shared/reference/probsem")
  ref <- Filter(dir.exists, candidates)
  skip_if(length(ref) == 0, "../shared/reference/probsem is absent")
  ref <- ref[[1]]
  skip_if_not(python_available(), "Python with pandas is not available")
  tbl <- prepare_probsem(file.path(ref, "test.txt"))
  prompt <- rawToChar(readBin(file.path(ref, "test.txt"), "raw", 1e6))
  a <- jsonlite::read_json(file.path(ref, "test_A.json"))
  b <- jsonlite::read_json(file.path(ref, "test_B.json"))
  expect_equal(tbl$id, c("A-0", "A-1", "B-0"))
  expect_equal(tbl$expected, c(0L, 1L, -1L))
  # The original: "\n".join([prompt, text, query]) with text = "\n".join(non-empty parts).
  full <- function(suite, k, q) {
    paste(c(prompt, paste(c(suite$pretext, suite$context[[k]]$text, suite$posttext),
                          collapse = "\n"), q), collapse = "\n")
  }
  expect_identical(charToRaw(paste0(tbl$input[[1]], "True")), charToRaw(full(a, 1, "True")))
  expect_identical(charToRaw(paste0(tbl$input[[2]], "False")), charToRaw(full(a, 2, "False")))
  for (q in c("A", "B", "C", "D")) {
    expect_identical(charToRaw(paste0(tbl$input[[3]], q)), charToRaw(full(b, 1, q)))
  }
  expect_match(tbl$input[[3]], "\nD) Only negative.\nThe correct answer is:\n$")
})

test_that("a task scores every query, picks the winner and marks C/I/NA by hand", {
  server <- local_fake_openai(hint_reply)
  dir <- withr::local_tempdir()
  d <- hint_table()
  logs <- withr::local_tempdir()
  tsk <- probsem_task(d, solver = probsem_solver(settings = request_settings(cache = dir)),
                      dir = logs)
  tsk$eval(solver_chat = fake_chat(server, model = "org/tiny:v1"), view = FALSE)
  s <- tsk$get_samples()
  # Neither the vitals log nor the cache holds the API key.
  written <- c(list.files(logs, recursive = TRUE, full.names = TRUE),
               list.files(dir, recursive = TRUE, full.names = TRUE))
  expect_gt(length(written), 0)
  for (f in written) {
    text <- if (grepl("[.]rds$", f)) paste(deparse(readRDS(f)), collapse = "") else
      paste(readLines(f, warn = FALSE), collapse = "")
    expect_false(grepl("FAKEKEY", text, fixed = TRUE))
  }
  m <- s$solver_metadata
  # tf-0: True hinted (-0.25), False -5/2.
  expect_equal(m[[1]]$logp, c(-0.25, -2.5))
  expect_equal(m[[1]]$prob, exp(c(-0.25, -2.5)) / sum(exp(c(-0.25, -2.5))))
  expect_equal(s$result[[1]], "True")
  # tf-1 expects False, but True is hinted: incorrect.
  expect_equal(s$result[[2]], "True")
  # tf-2: both hinted, a tie; ties count as correct.
  expect_equal(m[[3]]$logp, c(-0.25, -0.25))
  expect_equal(m[[3]]$prob, c(0.5, 0.5))
  # open-0: "cold" -2, "very hot" = "very" -2 + " hot" -2.
  expect_equal(m[[4]]$logp, c(-2, -4))
  expect_equal(m[[4]]$n_tokens, c(1L, 2L))
  expect_equal(as_score(s$score), c(1, 0, 1, NA))
  expect_equal(m[[1]]$model, "org/tiny:v1")
  # Eight full texts and four distinct queries alone.
  expect_equal(server$count(), 8 + 4)
  # A second run costs nothing.
  tsk2 <- probsem_task(d, solver = probsem_solver(settings = request_settings(cache = dir)),
                       dir = withr::local_tempdir())
  tsk2$eval(solver_chat = fake_chat(server, model = "org/tiny:v1"), view = FALSE)
  expect_equal(server$count(), 12)
  expect_true(all(vapply(tsk2$get_samples()$solver_metadata, `[[`, NA, "cached")))

  expect_message(probsem_summary(tsk), class = "predictivebench_message_no_truth")
  sm <- suppressMessages(probsem_summary(tsk))
  acc <- sm
  expect_equal(acc$group, c("tf", "open"))
  expect_equal(acc$estimate, c(2 / 3, NA))
  expect_equal(acc$n_no_truth, c(0L, 1L))
  dist <- probsem_distributions(tsk)
  expect_equal(nrow(dist), 8)
  expect_equal(dist$is_max[dist$id == "tf-2"], c(TRUE, TRUE))
  expect_equal(dist$query_index[dist$id == "open-0"], c(0L, 1L))

  # The original's CSV: one file per suite, model name sanitized.
  out <- withr::local_tempdir()
  paths <- probsem_write_results(tsk, out)
  expect_equal(basename(paths), c("notes_tf_org-tiny-v1_results.csv",
                                  "notes_open_org-tiny-v1_results.csv"))
  lines <- readLines(paths[[2]])
  expect_equal(lines[[1]], "text,query,logp,score")
  p <- exp(c(-2, -4)) / sum(exp(c(-2, -4)))
  # The multi-line text is quoted, so the first record spans two lines of the file.
  expect_equal(lines[2:3], c('"four', paste0('Answer:",cold,-2.0,', py_float_repr(p[[1]]))))
  csv <- utils::read.csv(paths[[2]], stringsAsFactors = FALSE)
  expect_equal(csv$text, c("four\nAnswer:", "four\nAnswer:"))
  expect_equal(csv$query, c("cold", "very hot"))
  expect_equal(csv$logp, c(-2, -4))
  expect_equal(csv$score, p)
})

test_that("norm and temperature change logp and the distribution as the original", {
  server <- local_fake_openai(hint_reply)
  d <- hint_table()[4, ]
  run <- function(...) {
    tsk <- probsem_task(d, solver = probsem_solver(settings = no_cache, ...),
                        dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    tsk$eval(solver_chat = fake_chat(server), view = FALSE)
    tsk$get_samples()$solver_metadata[[1]]
  }
  # "cold" -2 (1 token), "very hot" -4 (2 tokens).
  m <- run(norm = "tokens")
  expect_equal(m$logp_raw, c(-2, -4))
  expect_equal(m$logp, c(-2, -2))
  expect_equal(m$prob, c(0.5, 0.5))
  m <- run(norm = "sqrt", temperature = 2)
  expect_equal(m$logp, c(-1, -4 / sqrt(2) / 2))
  m <- run(temperature = 0.5)
  expect_equal(m$logp, c(-4, -8))
  expect_equal(m$prob, exp(c(-4, -8)) / sum(exp(c(-4, -8))))
})

test_that("a failed request gives NA for that context only and is counted", {
  reply <- function(body, n) {
    if (grepl("two", body$prompt)) return(list(status = 400))
    echo_completion(body$prompt)
  }
  server <- local_fake_openai(reply)
  d <- hint_table()[1:2, ]
  one_try <- request_settings(cache = FALSE, retry = list(max_tries = 1))
  tsk <- probsem_task(d, solver = probsem_solver(settings = one_try),
                      dir = withr::local_tempdir())
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  s <- tsk$get_samples()
  expect_true(is.na(s$result[[2]]))
  expect_true(is.na(s$score[[2]]))
  expect_equal(as_score(s$score[[1]]), 1)
  expect_message(probsem_summary(s), class = "predictivebench_message_skipped")
  sm <- suppressMessages(probsem_summary(s))
  expect_equal(sm$n_missing, 1L)
  expect_equal(sm$n, 1L)
  expect_equal(sm$estimate, 1)
})

test_that("answers that can't be scored are reported as such, not as an API key problem", {
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt, tokens = "True"))
  tsk <- probsem_task(hint_table()[1:2, ], solver = probsem_solver(settings = no_cache),
                      dir = withr::local_tempdir())
  # the first answer does not echo the prompt: the run stops before scoring, after it alone
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_error_logprobs_broken")
  expect_equal(server$count(), 1)
  expect_no_match(conditionMessage(err), "API key")
  expect_match(conditionMessage(err), "do not spell the prompt")
  # with span_check = FALSE the answers are taken, and each says what is wrong with it
  tsk <- probsem_task(hint_table()[1:2, ],
                      solver = probsem_solver(settings = no_cache, span_check = FALSE),
                      dir = withr::local_tempdir())
  w <- expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_warning_all_failed")
  expect_no_match(conditionMessage(w), "API key")
  expect_match(conditionMessage(w), "The endpoint answered every request")
  expect_match(conditionMessage(w), "does not echo the prompt")
})

test_that("the chat backend runs a task through ellmer", {
  server <- local_fake_openai(true_false_reply)
  d <- hint_table()[1:2, ]
  tsk <- probsem_task(d, solver = probsem_solver(backend = "chat", settings = no_cache),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  s <- tsk$get_samples()
  expect_equal(s$solver_metadata[[1]]$logp, c(-0.5, -1.5))
  expect_equal(s$result, c("True", "True"))
  expect_equal(as_score(s$score), c(1, 0))
  expect_equal(server$count(), 2)
})

test_that("a solver refuses inputs from another dataset, and ambiguous inputs are caught", {
  d <- hint_table()
  solver <- bind_dataset(probsem_solver(settings = no_cache), d[1, ])
  expect_error(solver(d$input[2], solver_chat = baseline_constant("x")),
               class = "predictivebench_error_argument")
  # the task gives the solver its dataset; alone it says so
  expect_snapshot(probsem_solver(settings = no_cache)(d$input[1],
                                                    solver_chat = baseline_constant("x")),
                  error = TRUE)
  dup <- d[c(1, 1), ]
  dup$id <- c("a", "b")
  dup$queries[[2]] <- c("x", "y")
  expect_error(probsem_task(dup, solver = function(...) NULL, dir = tempfile()),
               class = "predictivebench_error_duplicate_input")
})

test_that("epochs repeat cached scores; the summary and CSV count each context once", {
  server <- local_fake_openai(hint_reply)
  d <- hint_table()[1:2, ]
  cached <- request_settings(cache = withr::local_tempdir())
  tsk <- probsem_task(d, solver = probsem_solver(settings = cached),
                      epochs = 2, dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(nrow(tsk$get_samples()), 4)
  # Two full texts per context and two queries alone, sent once.
  expect_equal(server$count(), 4 + 2)
  sm <- probsem_summary(tsk)
  expect_equal(sm$n, 2L)
  expect_equal(nrow(probsem_distributions(tsk)), 4)
  paths <- probsem_write_results(tsk, withr::local_tempdir())
  expect_equal(nrow(utils::read.csv(paths[[1]])), 4)
})

test_that("the chat backend with norm gives a missing query probability 0, not NA", {
  server <- local_fake_openai(true_false_reply)
  d <- hint_table()[1, ]
  d$queries[[1]] <- c("True", "Maybe", "False")
  for (norm in c("tokens", "sqrt")) {
    solver <- probsem_solver(backend = "chat", norm = norm, temperature = 0.5,
                             settings = no_cache)
    tsk <- probsem_task(d, solver = solver, dir = withr::local_tempdir())
    tsk$eval(solver_chat = fake_chat(server), view = FALSE)
    s <- tsk$get_samples()
    m <- s$solver_metadata[[1]]
    expect_equal(m$n_tokens, c(1L, 1L, 1L))
    expect_equal(m$logp, c(-1, -Inf, -3))
    expect_equal(m$prob, c(exp(-1), 0, exp(-3)) / (exp(-1) + exp(-3)))
    expect_equal(s$result, "True")
    expect_equal(as_score(s$score), 1)
  }
})

test_that("user-facing errors name the user's call", {
  expect_snapshot(probsem_summary(data.frame(x = 1)), error = TRUE)
  d <- hint_table()
  dup <- d[c(1, 1), ]
  dup$id <- c("a", "b")
  dup$queries[[2]] <- c("x", "y")
  expect_snapshot(probsem_task(dup, dir = tempfile()), error = TRUE)
})

test_that("probsem_dataset() takes a limit, which its task keeps", {
  full <- probsem_dataset(version = "sample")
  expect_equal(probsem_dataset(version = "sample", limit = 2)$id, full$id[1:2])
  shuffled <- probsem_dataset(version = "sample", shuffle = 2)
  expect_setequal(shuffled$id, full$id)
  tsk <- probsem_task(probsem_dataset(version = "sample", limit = 3), dir = withr::local_tempdir())
  expect_equal(tsk$get_samples()$id, full$id[1:3])
})

test_that("a probsem log counts every log-probability request; a cached re-run is free", {
  server <- local_fake_openai(hint_reply)
  cache <- withr::local_tempdir()
  d <- hint_table()
  make <- function() {
    probsem_task(d, solver = probsem_solver(settings = request_settings(cache = cache)),
                 dir = withr::local_tempdir())
  }
  tsk <- make()
  tsk$eval(solver_chat = fake_chat(server, model = "tiny-lm"), view = FALSE)
  sent <- vapply(server$requests(), function(b) length(echo_tokenize(b$prompt)), 1)
  usage <- expect_log_usage(tsk)
  expect_equal(usage$model, "openai_compatible/tiny-lm")
  expect_equal(usage$input_tokens, sum(sent))
  summ <- suppressMessages(probsem_summary(tsk))
  expect_log_metrics(tsk$log_path, summ)
  expect_key_value_metadata(tsk$log_path)
  expect_identical(suppressMessages(probsem_summary(tsk$log_path)), summ)

  again <- make()
  again$eval(solver_chat = fake_chat(server, model = "tiny-lm"), view = FALSE)
  expect_equal(nrow(task_usage(again)), 0)
  expect_equal(sum(log_usage(again$log_path)$input_tokens), 0)
  expect_true(all(vapply(log_samples(again$log_path)$solver_metadata,
                         function(m) m$cached, TRUE)))
})

test_that("the chat backend's requests are in the log's usage too", {
  server <- local_fake_openai(true_false_reply)
  tsk <- probsem_task(hint_table()[1:3, ], solver = probsem_solver(backend = "chat",
                                                                   settings = no_cache),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  usage <- expect_log_usage(tsk)
  expect_equal(c(usage$input_tokens, usage$output_tokens), c(3 * 10, 3 * 5))
})

test_that("the solver's settings apply, and $eval()'s named settings override them", {
  server <- local_fake_openai(function(body, n) {
    list(status = 503, headers = list(`retry-after` = "0"))
  })
  d <- hint_table()[1, ]
  run <- function(...) {
    tsk <- probsem_task(d, solver = probsem_solver(
      settings = request_settings(cache = FALSE, retry = list(max_tries = 2, backoff = 0))
    ), dir = withr::local_tempdir())
    before <- server$count()
    # the first request (the probe) fails, and the run stops there
    expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE, ...),
                 class = "predictivebench_error_logprobs_probe")
    server$count() - before
  }
  twice <- run()
  once <- run(max_tries = 1)
  expect_equal(once, 1)
  expect_equal(twice, 2)
  expect_error(probsem_solver(settings = list(max_active = 0)),
               class = "predictivebench_error_argument")
  expect_error(probsem_solver(settings = list(nonsense = 1)),
               class = "predictivebench_error_argument")
})

test_that("prepare_probsem(on_error = 'skip') leaves out a broken suite", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  src <- system.file("extdata", "probsem", package = "predictivebench")
  file.copy(list.files(src, full.names = TRUE), dir)
  prompt <- file.path(dir, "weather.txt")
  whole <- prepare_probsem(prompt)
  suites <- unique(whole$suite)
  writeLines("{not json", file.path(dir, paste0("weather_", suites[[1]], ".json")))
  expect_error(prepare_probsem(prompt), class = "predictivebench_error")
  table <- prepare_probsem(prompt, on_error = "skip")
  expect_setequal(unique(table$suite), suites[-1])
  expect_equal(table$id, whole$id[whole$suite != suites[[1]]])
})
