score_one <- function(answer, target, level, std = NA_real_, rule = "reference") {
  table <- tibble::tibble(target = target, level = level, std = std)
  predictivebench:::futurex_score_items(answer, table, rule)$score
}

test_that("level 1: options, Yes/No words, and the reference's quirks", {
  expect_equal(score_one("\\boxed{Yes}", "Yes", 1L), 1)
  expect_equal(score_one("\\boxed{yes}", " YES ", 1L), 1)
  expect_equal(score_one("\\boxed{B}", "B", 1L), 1)
  # first box only, and its content stops at the first brace
  expect_equal(score_one("\\boxed{A} \\boxed{B}", "B", 1L), 0)
  # an unboxed sentence reads as option I ("I think ...")
  expect_equal(score_one("I think it will rain", "I", 1L), 1)
  expect_equal(score_one("I think it will rain", "Yes", 1L), 0)
  # no letters and not a single word: no option
  expect_equal(score_one("\\boxed{maybe so}", "B", 1L), 0)
  # a letter inside CJK text is not a standalone letter (Unicode word boundaries)
  expect_equal(score_one("\\boxed{选A项}", "A", 1L), 0)
})

test_that("level 1 with several letters picks as PYTHONHASHSEED=0 Python does", {
  expect_equal(predictivebench:::python_set_order(c("A", "C", "B"))[[1]], "B")
  expect_equal(predictivebench:::python_set_order(c("C", "A"))[[1]], "C")
  expect_equal(score_one("\\boxed{A, C, B}", "B", 1L), 1)
  expect_equal(score_one("\\boxed{A, C, B}", "A", 1L), 0)
})

test_that("level 2: F1 of option sets", {
  expect_equal(score_one("\\boxed{A, B, C}", "A, C", 2L), 0.8)
  expect_equal(score_one("\\boxed{D}", "B, D", 2L), 2 / 3)
  expect_equal(score_one("\\boxed{E}", "B, D", 2L), 0)
  expect_equal(score_one("\\boxed{none here}", "none at all", 2L), 1)
})

test_that("numeric: the reference parse, the strict parse, Std = 0", {
  expect_equal(score_one("\\boxed{11.5}", "12.5", 3L, 2), 0.75)
  # the reference reads "1,180" as 1 and "1,250" as 1: a perfect score
  expect_equal(score_one("\\boxed{1,180 units}", "1,250 units", 4L, 100), 1)
  expect_equal(score_one("\\boxed{1,180 units}", "1,250 units", 4L, 100, "strict"), 0.51)
  # signs are lost by the reference
  expect_equal(score_one("\\boxed{-3.0}", "-3.2", 4L, 1.5), 1 - (0.2 / 1.5)^2)
  expect_equal(score_one("\\boxed{3.2}", "-3.2", 4L, 1.5), 1)
  expect_equal(score_one("\\boxed{3.2}", "-3.2", 4L, 1.5, "strict"), 0)
  expect_equal(score_one("\\boxed{7}", "7", 4L, 0), 1)
  expect_equal(score_one("\\boxed{7.01}", "7", 4L, 0), 0)
  # "904.27." is not a Python float: the reference scores 0
  expect_equal(score_one("\\boxed{904.27}", "904.27.", 4L, 10), 0)
  expect_equal(score_one("\\boxed{no idea}", "5", 4L, 1), 0)
  expect_equal(score_one("\\boxed{100}", "5", 4L, 1), 0)
})

test_that("ranking: prefixes removed, exact order 1, else 0.8 * overlap / k", {
  truth <- "\\boxed{1. Blue River, 2. Paper Moon, 3. Quiet Town}"
  expect_equal(score_one("\\boxed{1. Blue River, 2. Paper Moon, 3. Quiet Town}", truth, 3L), 1)
  expect_equal(score_one("\\boxed{Blue River; Paper Moon; Quiet Town}", truth, 3L), 1)
  expect_equal(score_one("\\boxed{1st: Blue River、2nd: Quiet Town、3rd: Paper Moon}", truth, 3L), 0.8)
  expect_equal(score_one("\\boxed{Blue River, Nothing}", truth, 3L), 0.8 / 3)
  expect_equal(score_one("第6名：甲，第7名：乙", "\\boxed{第6名：甲，第7名：乙}", 3L), 1)
  expect_equal(score_one("\\boxed{x}", "\\boxed{}", 4L), 0)
})

test_that("the bundled predictions score as worked out by hand", {
  skip_if_no_python()
  path <- system.file("extdata", "futurex-predictions.json", package = "predictivebench")
  scored <- futurex_score(path)
  expect_s3_class(scored, "futurex_scores")
  expect_equal(scored$items$score,
               c(1, 0, 1, 0.8, 2 / 3, 0.8, 0.75, 1, 1 - (0.2 / 1.5)^2, 0.8, NA))
  s <- scored$summary
  expect_equal(s$group, c("overall", paste("level", 1:4)))
  expect_equal(s$n, c(10L, 3L, 2L, 2L, 3L))
  expect_equal(s$n_missing[[1]], 1L)
  level_means <- c(2 / 3, (0.8 + 2 / 3) / 2, 0.775, (1 + 1 - (0.2 / 1.5)^2 + 0.8) / 3)
  expect_equal(s$estimate[-1], level_means)
  expect_equal(s$estimate[[1]], sum(level_means * c(0.1, 0.2, 0.3, 0.4)))
  expect_true(all(s$lower <= s$estimate & s$estimate <= s$upper))
  # without .json, like eval.py -f
  expect_equal(futurex_score(sub("\\.json$", "", path))$summary$estimate, s$estimate)
  # the overall weights are not renormalized when a level is absent
  only_l1 <- futurex_summary(scored$items[scored$items$level == 1, ])
  expect_equal(only_l1$estimate[[1]], 0.1 * 2 / 3)
  expect_true(is.na(only_l1$estimate[[3]]))
  expect_message(futurex_summary(scored), class = "predictivebench_message_skipped")
})

test_that("the reference's random-baseline file scores 0.1077", {
  skip_if_no_python()
  path <- skip_if_no_reference("futurex", "250915-random.json")
  expect_error(futurex_score(path), class = "predictivebench_error_duplicate_id")
  scored <- futurex_score(path, duplicate_ids = "suffix")
  expect_equal(round(scored$summary$estimate[[1]], 4), 0.1077)
  expect_equal(scored$summary$n[-1], c(11L, 10L, 9L, 23L))
})

test_that("bad prediction files are classed errors naming file, row and field", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  write <- function(x, name) {
    path <- file.path(dir, name)
    writeLines(x, path)
    path
  }
  good <- '{"id": "a", "prompt": "p", "level": 1, "ground_truth": "A", "Std": null'
  err <- expect_error(futurex_score(write(paste0("[", good, ', "answer": 5}]'), "num.json")),
                      class = "predictivebench_error_field")
  expect_equal(err$field, "answer")
  expect_match(err$row, "^1")
  expect_match(conditionMessage(err), "num.json")
  err <- expect_error(futurex_score(write(sub('"level": 1', '"level": 7', paste0("[", good, "}]")),
                                          "lvl.json")), class = "predictivebench_error_field")
  expect_equal(err$field, "level")
  expect_error(futurex_score(write("[{", "trunc.json")), class = "predictivebench_error_json")
  expect_error(futurex_score(file.path(dir, "missing.json")),
               class = "predictivebench_error_missing_file")
  expect_error(futurex_score(write(paste0("[", good, "},", good, "}]"), "dup.json")),
               class = "predictivebench_error_duplicate_id")
})

test_that("futurex_task end to end against the fake server, cached on the second run", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("park vote", text)) return(list(status = 400))
    if (grepl("Yes or No", text)) "Thinking... \\boxed{Yes}" else "\\boxed{B, D}"
  })
  dir <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  tsk <- futurex_task(solver = futurex_solver(cache = cache), dir = dir)
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  expect_true(is.na(samples$score[samples$id == "fx-l1-vote"]))
  expect_equal(samples$score[samples$id == "fx-l1-rain"], 1)
  expect_equal(samples$score[samples$id == "fx-l1-ferry"], 0)
  expect_equal(samples$score[samples$id == "fx-l2-stocks"], 1)
  summary <- suppressMessages(futurex_summary(tsk))
  expect_equal(summary$n_missing[[1]], 1L)
  expect_equal(summary$estimate[[2]], 0.5)
  sent <- server$count()
  expect_equal(sent, nrow(samples))  # one request per sample

  tsk2 <- futurex_task(solver = futurex_solver(cache = cache), dir = dir)
  expect_warning(tsk2$eval(solver_chat = fake_chat(server), view = FALSE))
  # only the failed request is sent again
  expect_equal(server$count(), sent + 1)
  expect_equal(tsk2$get_samples()$score, samples$score)
})

test_that("LLM unit normalization is used when it parses and falls back when not", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("1,250 thousand", text)) "GROUND_TRUTH_VALUE: 1250\nPREDICTION_VALUE: 1180"
    else "I am not sure"
  })
  path <- system.file("extdata", "futurex-sample.parquet", package = "predictivebench")
  table <- read_task_table(path)
  table$answer <- "\\boxed{1,180 thousand units}"
  table$has_answer <- TRUE
  numeric <- table[!is.na(table$std), ]
  scored <- futurex_score(numeric, scorer_chat = fake_chat(server), cache = FALSE)
  sales <- scored$items[scored$items$id == "fx-l4-sales", ]
  expect_equal(sales$score, 1 - (70 / 100)^2)
  expect_equal(c(sales$pred_value, sales$truth_value), c(1180, 1250))
  temp <- scored$items[scored$items$id == "fx-l3-temp", ]
  # fallback to the reference parse: 1 vs 12.5 with Std 2
  expect_equal(temp$score, 0)
  body <- server$requests()[[1]]
  expect_equal(body$temperature, 0.2)
  expect_equal(body$messages[[1]]$content, "You are a precise number normalization assistant.")
  expect_match(last_user_text(body), "Now normalize:\n$")
})

test_that("the scorer accepts a judge chat through $eval(scorer_chat =)", {
  server <- local_fake_openai(function(body, n) "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5")
  dataset <- futurex_dataset()
  dataset <- dataset[dataset$id == "fx-l3-temp", ]
  tsk <- futurex_task(dataset = dataset, solver = futurex_solver(cache = FALSE),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{99}"), scorer_chat = fake_chat(server),
           view = FALSE)
  expect_equal(tsk$get_samples()$score, 1)
  expect_equal(tsk$get_samples()$scorer_metadata[[1]]$normalization, "llm")
})

test_that("prepare_futurex writes a readable task table", {
  skip_if_no_python()
  out <- withr::local_tempfile(fileext = ".parquet")
  src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
  prepare_futurex(src, out)
  table <- read_task_table(out)
  expect_equal(table, futurex_dataset())
  expect_equal(futurex_dataset(table), table)
})

test_that("all-zero scores still get an honest (non-zero-width) overall interval", {
  items <- tibble::tibble(id = paste0("q", 1:20), level = rep(1:4, each = 5), score = 0)
  sm <- futurex_summary(items)
  z <- stats::qnorm(0.975)
  wilson_upper <- z^2 / (5 + z^2)
  expect_equal(sm$upper[sm$group == "level 1"], wilson_upper)
  # overall: se of each level = wilson_upper / (2 z); half = z * sqrt(sum(w^2 se^2))
  se <- wilson_upper / (2 * z)
  expect_equal(sm$upper[sm$group == "overall"], z * sqrt(sum(c(0.1, 0.2, 0.3, 0.4)^2 * se^2)))
  expect_equal(sm$estimate[sm$group == "overall"], 0)
})

test_that("the summary has the shared shape on the 0-1 scale", {
  items <- tibble::tibble(id = paste0("q", 1:8), level = rep(1:4, 2),
                          score = c(1, 0, 0.5, 1, 0, 0, 0.25, 0.5))
  sm <- futurex_summary(items)
  expect_equal(names(sm), c("group", "metric", "estimate", "lower", "upper", "n", "n_missing",
                            "weight"))
  expect_equal(sm$group, c("overall", paste("level", 1:4)))
  expect_true(all(sm$metric == "score"))
  expect_true(all(sm$lower >= 0 & sm$upper <= 1))
})

test_that("futurex_dataset() and futurex_task() take a limit", {
  full <- futurex_dataset()
  expect_equal(futurex_dataset(limit = 2)$id, full$id[1:2])
  sampled <- futurex_dataset(limit = 3, shuffle = 1)
  expect_equal(nrow(sampled), 3)
  expect_true(all(sampled$id %in% full$id))
  tsk <- futurex_task(limit = 4, dir = withr::local_tempdir())
  expect_equal(tsk$get_samples()$id, full$id[1:4])
})

test_that("user-facing errors name the user's call", {
  expect_snapshot(futurex_summary(data.frame(x = 1)), error = TRUE)
  expect_snapshot(futurex_dataset(limit = -1), error = TRUE)
})

test_that("a FutureX log shows futurex_summary()'s numbers, offline", {
  tsk <- futurex_task(solver = futurex_solver(cache = FALSE), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_random(c("A", "B", "Yes", "No", "12"), "\\boxed{%s}",
                                         seed = 2), view = FALSE)
  log <- expect_results_log(tsk, futurex_summary, c("level", "std", "end_time"))
  expect_equal(log$results$scores[[1]]$name, "futurex_score")
  expect_named(log$results$scores[[1]]$metrics, c("overall", paste("level", 1:4)))
  first <- log$samples[[1]]
  expect_equal(first$metadata$level, 1L)
  expect_match(first$scores[[1]]$explanation, "^single: extracted [A-Za-z0-9]+ vs Yes$")
  expect_equal(first$scores[[1]]$metadata$kind, "single")
  # vitals_log_read() output with the dataset's level added
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant("x"))
  expect_identical(suppressMessages(futurex_summary(log_samples(read, futurex_dataset()))),
                   suppressMessages(futurex_summary(tsk)))
  expect_error(futurex_summary(read), "log_samples")
})

test_that("a FutureX log over HTTP counts the judge, and a cached re-run costs nothing", {
  server <- local_fake_openai(function(body, n) {
    if (grepl("normalization", body$messages[[1]]$content %||% "")) {
      list(text = "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12",
           usage = list(prompt_tokens = 40L, completion_tokens = 9L))
    } else {
      list(text = "\\boxed{12}", usage = list(prompt_tokens = 20L, completion_tokens = 4L))
    }
  })
  cache <- withr::local_tempdir()
  run <- function() {
    tsk <- futurex_task(solver = futurex_solver(cache = cache),
                        scorer = futurex_scorer(scorer_chat = fake_chat(server, "judge"),
                                                cache = cache),
                        dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk
  }
  first <- run()
  log <- expect_results_log(first, futurex_summary, c("level", "std", "end_time"))
  usage <- log_usage(first$log_path)
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/fake-model"], 11 * 20)
  judged <- sum(futurex_dataset()$level >= 3 & !is.na(futurex_dataset()$std))
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

test_that("futurex_summary() plots a bar per level with its interval and n", {
  skip_if_not_installed("ggplot2")
  tsk <- futurex_run("\\boxed{A}", withr::local_tempdir())
  s <- suppressMessages(futurex_summary(tsk))
  expect_s3_class(s, "benchmark_summary")
  p <- ggplot2::autoplot(s)
  expect_equal(p$labels$title, "futurex by level")
  expect_match(gsub("\n", " ", p$labels$y), "levels' standard errors combined")
  expect_true(paste0("n = ", s$n[[1]]) %in% unlist(lapply(ggplot2::ggplot_build(p)$data,
                                                           function(d) d$label)))
  boot <- suppressMessages(futurex_summary(tsk, method = "bootstrap", times = 50))
  expect_match(ggplot2::autoplot(boot)$labels$y, "bootstrap")
})

test_that("batch = TRUE: $eval() through a provider batch; a later run without it sends 0", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) {
    if (grepl("Yes or No", last_user_text(body))) "\\boxed{Yes}" else "\\boxed{B, D}"
  })
  cache <- withr::local_tempdir()
  chat <- fake_responses_chat(server)
  tsk <- futurex_task(solver = futurex_solver(cache = cache, batch = TRUE),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = chat, view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(server$count(), nrow(samples))
  expect_equal(server$uploads(), 1)  # one batch file for every sample
  expect_false(anyNA(samples$result))
  expect_equal(samples$score[samples$id == "fx-l1-rain"], 1)
  expect_equal(samples$score[samples$id == "fx-l2-stocks"], 1)
  # the answers are in the response cache: a run without batch sends nothing
  again <- futurex_task(solver = futurex_solver(cache = cache), dir = withr::local_tempdir())
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
  tsk <- futurex_task(solver = futurex_solver(cache = cache, batch = TRUE, wait = FALSE),
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

test_that("the scorer's normalization judge takes batch = TRUE", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5")
  dataset <- futurex_dataset()
  dataset <- dataset[dataset$id == "fx-l3-temp", ]
  cache <- withr::local_tempdir()
  tsk <- futurex_task(dataset = dataset, solver = futurex_solver(cache = FALSE),
                      scorer = futurex_scorer(cache = cache, batch = TRUE),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{99}"),
           scorer_chat = fake_responses_chat(server), view = FALSE)
  expect_equal(tsk$get_samples()$score, 1)
  expect_equal(server$uploads(), 1)
})
