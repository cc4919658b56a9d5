pb_table <- function() {
  tibble::tibble(
    id = c("s-apples", "s-pen", "s-train"),
    problem = c("How many apples?", "What do a pen and a book cost?", "When does the train arrive?"),
    steps = list(c("3 * 4 = 12.", "12 - 2 = 10."), c("8 + 3 = 12.", "So 12."),
                 c("9:40 + 50 min = 10:30.", "So 10:30.", "Done.")),
    label = c(-1L, 0L, 1L), task_l1 = c("a", "a", "b"), task_l2 = NA_character_,
    origin = NA_character_, generator = NA_character_, final_answer_correct = NA,
    error_sections = list(NULL, NULL, NULL), unuseful_sections = list(NULL, NULL, NULL),
    sections_content = NA_character_
  )
}

test_that("votes: last box, nested braces, 02 and +2, majority, ties to the first seen", {
  v <- processbench_vote(c("\\boxed{1} no, \\boxed{2}", "\\boxed{02}", "\\boxed{+2}",
                           "\\boxed{-1}"))
  expect_equal(v$votes, c(2L, 2L, 2L, -1L))
  expect_equal(v$prediction, 2L)
  expect_equal(v$n_valid, 4L)
  nested <- processbench_vote(c("\\boxed{\\frac{1}{2}} then \\boxed{{3}}",
                                "\\boxed{\\text{3}}", "$\\boxed{ 3 }$"))
  expect_equal(nested$votes, c(3L, 3L, 3L))
  # a tie goes to the value seen first, whatever the values
  expect_equal(processbench_vote(c("\\boxed{4}", "\\boxed{1}", "\\boxed{1}", "\\boxed{4}"))$prediction, 4L)
  expect_equal(processbench_vote(c("\\boxed{1}", "\\boxed{4}", "\\boxed{4}", "\\boxed{1}"))$prediction, 1L)
  # invalid votes are dropped before counting: two valid 5s beat nothing else
  v <- processbench_vote(c("\\boxed{x}", "\\boxed{x}", "\\boxed{x}", "\\boxed{5}", "\\boxed{5}"))
  expect_equal(v$prediction, 5L)
  expect_equal(v$n_valid, 2L)
  # a last box cut off before its closing brace is skipped: the last complete box votes
  cut <- processbench_vote(c("\\boxed{2} On reflection, the answer is \\boxed{",
                             "\\boxed{-1} no, \\boxed{\\text{3",
                             "\\boxed{0} then \\boxed{1} and \\boxed{\\frac{1}{2}",
                             "only \\boxed{4"))
  expect_equal(cut$votes, c(2L, -1L, 1L, NA))
    none <- processbench_vote(c("\\boxed{two}", "no box at all", NA, "\\boxed{2.5}"))
  expect_true(is.na(none$prediction))
  expect_equal(none$n_valid, 0L)
  expect_equal(none$votes, rep(NA_integer_, 4))
})

test_that("prompts are ProcessBench's, with both wordings", {
  p <- processbench_prompt("What is 1+1?", list(c("1+1=3.", "So 3.")))
  expect_identical(p, paste0(
    "The following is a problem and a solution (split into paragraphs, enclosed with tags and indexed from 0):\n\n",
    "[Problem]\n\nWhat is 1+1?\n\n[Solution]\n\n",
    "<paragraph_0>\n1+1=3.\n</paragraph_0>\n\n<paragraph_1>\nSo 3.\n</paragraph_1>\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you identify an error in a paragraph, ",
    "return the index of the paragraph where the earliest error occurs. Otherwise, return the index of -1.\n\n",
    "Please put your final answer (i.e., the index) in \\boxed{}."
  ))
  q <- processbench_prompt("Q {tagged_response}", list("s"), template = "processbench")
  expect_match(q, "^The following is a math problem and a solution")
  expect_match(q, "[Math Problem]\n\nQ {tagged_response}\n\n[Solution]", fixed = TRUE)
  expect_match(q, "index of -1 (which typically denotes \"not found\").\n\nPlease", fixed = TRUE)
  expect_error(processbench_prompt("a", list()), class = "predictivebench_error_argument")
})

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
                           solver = processbench_solver(n_votes = 3, cache = cache))
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
                            solver = processbench_solver(n_votes = 3, cache = cache))
  tsk2$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), before)
  expect_true(all(vapply(tsk2$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
})

test_that("greedy mode sends one request per sample at temperature 0", {
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  tsk <- processbench_task(pb_table(), template = "processbench", dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 1, temperature = 0,
                                                        cache = FALSE))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  expect_length(bodies, 3)
  expect_true(all(vapply(bodies, function(b) identical(b$temperature, 0L) ||
                           identical(b$temperature, 0), TRUE)))
  expect_match(last_user_text(bodies[[1]]), "[Math Problem]", fixed = TRUE)
  expect_identical(tsk$get_samples()$score, c(1, 0, 0))
})

test_that("the scorer reads voted indices and raw critiques", {
  scorer <- processbench_scorer()
  out <- scorer(tibble::tibble(result = c("2", NA, "So \\boxed{-1}", "-1"),
                               label = c(2L, 2L, -1L, 0L)))
  expect_equal(as.character(out$score), c("C", "I", "C", "I"))
  expect_true(is.ordered(out$score))
})

# One number of a summary: the `column` of `group`'s `metric` row.
pb_value <- function(s, group, metric, column = "estimate") {
  s[[column]][s$group == group & s$metric %in% metric]
}

test_that("summary: error/correct accuracy, F1, groups, NA with a message", {
  samples <- tibble::tibble(
    label = c(2, 0, 1, -1, -1, 3, -1),
    task_l1 = c("a", "a", "a", "a", "b", "b", "b"),
    result = c("2", "1", "1", "-1", "0", NA, "-1")
  )
  expect_message(s <- processbench_summary(samples), class = "predictivebench_message_small_group")
  expect_equal(names(s), c("group", "metric", "estimate", "lower", "upper", "n",
                           "n_no_prediction"))
  expect_equal(s$group, c(rep(c("overall", "a", "b"), each = 3), "mean of groups"))
  expect_equal(s$metric, c(rep(c("error_acc", "correct_acc", "f1"), 3), "f1"))
  expect_equal(pb_value(s, "overall", "error_acc"), 0.5)      # 2 of 4 errors found
  expect_equal(pb_value(s, "overall", "correct_acc"), 2 / 3)
  expect_equal(pb_value(s, "overall", "f1"), 2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
  expect_equal(pb_value(s, "overall", c("error_acc", "correct_acc", "f1"), "n"), c(4L, 3L, 7L))
  expect_equal(pb_value(s, "overall", "f1", "n_no_prediction"), 1L)
  expect_equal(pb_value(s, "a", c("error_acc", "correct_acc")), c(2 / 3, 1))
  expect_equal(pb_value(s, "b", c("error_acc", "correct_acc", "f1")), c(0, 0.5, 0))
  expect_equal(pb_value(s, "mean of groups", "f1"),
               mean(c(pb_value(s, "a", "f1"), pb_value(s, "b", "f1"))))
  expect_true(all(s$lower <= s$estimate & s$upper >= s$estimate, na.rm = TRUE))
  expect_true(all(s$lower >= 0 & s$upper <= 1, na.rm = TRUE))
  boot <- suppressMessages(processbench_summary(samples, method = "bootstrap", times = 200))
  expect_equal(boot$estimate, s$estimate)
  expect_true(all(boot$lower <= boot$estimate & boot$estimate <= boot$upper, na.rm = TRUE))
  expect_identical(boot, suppressMessages(processbench_summary(samples, method = "bootstrap",
                                                               times = 200)))

  # an empty side and two zero accuracies are NA, announced
  only_errors <- tibble::tibble(label = c(1, 2), task_l1 = "x", result = c("0", "0"))
  expect_message(e <- processbench_summary(only_errors), class = "predictivebench_message_na")
  expect_true(is.na(pb_value(e, "overall", "correct_acc")))
  expect_true(is.na(pb_value(e, "overall", "f1")))
  zeros <- tibble::tibble(label = c(1, -1), task_l1 = "x", result = c("0", "0"))
  expect_message(z <- processbench_summary(zeros, by = NULL), "both accuracies are 0")
  expect_true(is.na(pb_value(z, "overall", "f1")))
  expect_equal(unique(z$group), "overall")
})

test_that("user-facing summary errors name the call and what is missing", {
  expect_snapshot(processbench_summary(data.frame(x = 1)), error = TRUE)
  expect_snapshot(processbench_summary(tibble::tibble(label = 1), by = NULL), error = TRUE)
  samples <- tibble::tibble(label = 1, result = "1")
  expect_snapshot(processbench_summary(samples, by = "split"), error = TRUE)
})

test_that("results files are named {dataset}_{model}_votes{n} and written inside dir", {
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 2, cache = FALSE))
  tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
  dir <- withr::local_tempdir()
  paths <- processbench_write_results(tsk, dir, dataset = "my data", model = "../org/model:1")
  expect_equal(basename(paths[["results"]]), "my-data_org-model-1_votes2.jsonl")
  expect_equal(basename(paths[["summary"]]), "my-data_org-model-1_votes2.csv")
  expect_equal(normalizePath(dirname(paths)), rep(normalizePath(dir), 2))
  expect_setequal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(paths))
  lines <- readLines(paths[["results"]])
  expect_length(lines, 3)
  first <- jsonlite::fromJSON(lines[[1]], simplifyVector = FALSE)
  expect_equal(first$id, "s-apples")
  expect_equal(first$prediction, -1L)
  expect_true(first$match)
  expect_equal(unlist(first$votes), c(-1L, -1L))
  expect_length(first$critiques, 2)
  csv <- utils::read.csv(paths[["summary"]])
  expect_equal(unique(csv$group), c("overall", "a", "b", "mean of groups"))
  expect_equal(pb_value(csv, "overall", "correct_acc"), 1)
  # the model name defaults to the chat's, the vote count to the metadata's
  auto <- processbench_write_results(tsk, dir, dataset = "d")
  expect_equal(basename(auto[["results"]]), "d_baseline-constant_votes2.jsonl")
})

test_that("the results file counts the votes asked for, even when the first sample failed", {
  # every request for the first sample fails: with n, that leaves a single failed response
  server <- local_fake_openai(function(body, n) {
    if (grepl("apples", last_user_text(body))) return(list(status = 400L))
    list(choices = rep("\\boxed{0}", body$n %||% 1L))
  })
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 8, n_per_request = TRUE,
                                                        cache = FALSE))
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  s <- tsk$get_samples()
  expect_equal(s$solver_metadata[[1]]$n_votes, 8)
  expect_length(s$solver_metadata[[1]]$errors, 8)
  paths <- processbench_write_results(tsk, withr::local_tempdir(), dataset = "d", model = "m")
  expect_equal(basename(paths[["results"]]), "d_m_votes8.jsonl")
  # samples written by an older solver, without n_votes: the longest list of votes
  old <- s
  old$solver_metadata <- list(list(votes = NA_integer_), list(votes = c(0L, 0L, 1L)), NULL)
  paths <- processbench_write_results(old, withr::local_tempdir(), dataset = "d", model = "m")
  expect_equal(basename(paths[["results"]]), "d_m_votes3.jsonl")
})

test_that("prepare_processbench() flattens through Python", {
  skip_if_no_python()
  pb <- prepare_processbench(
    system.file("extdata", "processbench-sample.json", package = "predictivebench")
  )
  expect_equal(unique(pb$task_l1), "processbench-sample")
  expect_equal(sum(pb$label == -1), 3)
})

test_that("reference files convert with the expected labels", {
  skip_if_no_python()
  delta <- skip_if_no_reference("deltabench", "Deltabench_v1_examples.jsonl")
  gsm8k <- skip_if_no_reference("processbench", "gsm8k.json")
  d <- prepare_deltabench(delta)
  expect_equal(d$label, c(6L, 6L, 13L, 1L, 15L, 1L, 1L, 3L, 8L))
  g <- prepare_processbench(gsm8k)
  expect_equal(c(sum(g$label != -1), sum(g$label == -1)), c(207L, 193L))
  expect_equal(unique(g$task_l1), "gsm8k")
})

test_that("n_per_request asks for all votes in one request with n", {
  server <- local_fake_openai(function(body, n) {
    k <- body$n %||% 1L
    list(choices = c("\\boxed{1}", "\\boxed{2}", "\\boxed{2}")[seq_len(k)])
  })
  cache <- withr::local_tempdir()
  solver <- processbench_solver(n_votes = 3, n_per_request = TRUE, cache = cache)
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
  solver <- processbench_solver(n_votes = 3, n_per_request = TRUE, cache = cache)
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
                                solver = processbench_solver(n_votes = 3, cache = cache))
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
                                                        cache = FALSE))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(sort(seeds_sent(server)), c(7, 8, 9, 10))
  expect_equal(tsk$get_samples()$solver_metadata[[1]]$votes, c(1L, 0L, 1L, 0L))

  # a seed set on the chat itself, over two samples and two vitals epochs
  chat_server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  chat <- fake_chat(chat_server, params = ellmer::params(seed = 5))
  tsk2 <- processbench_task(pb_table()[1:2, ], epochs = 2, dir = withr::local_tempdir(),
                            solver = processbench_solver(n_votes = 3, cache = FALSE))
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
                                                         params = list(seed = 7), cache = FALSE))
  tsk3$eval(solver_chat = fake_chat(n_server), view = FALSE)
  expect_equal(sort(seeds_sent(n_server)), c(7, 10))
})

test_that("vitals epochs draw new votes: every (epoch, vote) is its own request", {
  server <- local_fake_openai(function(body, n) "\\boxed{-1}")
  tsk <- processbench_task(pb_table()[1, ], epochs = 2, dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 2, cache = withr::local_tempdir()))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), 4)
  expect_equal(nrow(tsk$get_samples()), 2)
})

pb_fields <- c("label", "task_l1", "task_l2", "generator", "final_answer_correct")

test_that("a ProcessBench log shows processbench_summary()'s F1 and accuracies, offline", {
  tsk <- processbench_task(dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 3, cache = FALSE))
  tsk$eval(solver_chat = baseline_random(c("-1", "0", "1", "2"), "\\boxed{%s}", seed = 4),
           view = FALSE)
  log <- expect_results_log(tsk, processbench_summary, pb_fields)
  expect_equal(log$results$scores[[1]]$name, "processbench_score")
  expect_named(log$results$scores[[1]]$metrics,
               c("overall f1", "overall error_acc", "overall correct_acc"))
  first <- log$samples[[1]]
  live <- tsk$get_samples()$solver_metadata[[1]]
  expect_equal(jsonlite::fromJSON(first$metadata$votes), live$votes)
  vote <- "-?[0-9]"
  expect_match(first$scores[[1]]$explanation, paste0(
    "^votes ", vote, ", ", vote, ", ", vote, " \\(3 valid of 3\\); majority ", vote,
    " vs label ", vote, ": (correct|wrong)$"
  ))
})

test_that("a ProcessBench log over HTTP counts all votes; a cached re-run costs nothing", {
  server <- local_fake_openai(function(body, n) {
    list(text = "\\boxed{-1}", usage = list(prompt_tokens = 30L, completion_tokens = 5L))
  })
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                             solver = processbench_solver(cache = cache))
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

test_that("processbench_summary() plots a panel per metric and a bar per task", {
  skip_if_not_installed("ggplot2")
  samples <- tibble::tibble(label = c(2L, 0L, -1L, -1L, 3L), task_l1 = c("a", "a", "a", "b", "b"),
                            result = c("2", "1", "-1", "-1", NA))
  s <- suppressMessages(processbench_summary(samples))
  expect_s3_class(s, "benchmark_summary")
  p <- ggplot2::autoplot(s)
  expect_equal(p$labels$title, "processbench by task_l1")
  expect_match(gsub("\n", " ", p$labels$y), "bootstrap interval \\(F1\\)")
  built <- ggplot2::ggplot_build(p)
  expect_equal(length(unique(built$layout$layout$PANEL)), 3)
  expect_true("n = 5" %in% unlist(lapply(built$data, function(d) d$label)))
})

test_that("batch = TRUE: 8 votes a sample through a provider batch; a later run sends 0", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) {
    if (grepl("apples", last_user_text(body))) "\\boxed{-1}" else "\\boxed{0}"
  })
  cache <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(cache = cache, batch = TRUE))
  tsk$eval(solver_chat = chat, view = FALSE)
  s <- tsk$get_samples()
  expect_equal(server$count(), 3 * 8)
  expect_equal(server$uploads(), 1)  # one chat sends every vote: one batch
  expect_equal(s$result, c("-1", "0", "0"))
  expect_equal(lengths(lapply(s$solver_metadata, `[[`, "critiques")), c(8, 8, 8))
  expect_identical(s$score, c(1, 1, 0))
  again <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                             solver = processbench_solver(cache = cache))
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
                           solver = processbench_solver(n_votes = 2, cache = cache,
                                                        batch = TRUE, wait = FALSE))
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
