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
  expect_equal(s$group, c("overall", "overall_present_levels", paste("level", 1:4)))
  expect_equal(s$n, c(10L, 10L, 3L, 2L, 2L, 3L))
  expect_equal(s$n_missing[[1]], 1L)
  level_means <- c(2 / 3, (0.8 + 2 / 3) / 2, 0.775, (1 + 1 - (0.2 / 1.5)^2 + 0.8) / 3)
  expect_equal(s$estimate[-(1:2)], level_means)
  expect_equal(s$estimate[[1]], sum(level_means * c(0.1, 0.2, 0.3, 0.4)))
  expect_true(all(s$lower <= s$estimate & s$estimate <= s$upper))
  # without .json, like eval.py -f
  expect_equal(futurex_score(sub("\\.json$", "", path))$summary$estimate, s$estimate)
  # the overall weights are not renormalized when a level is absent
  only_l1 <- futurex_summary(scored$items[scored$items$level == 1, ])
  expect_equal(only_l1$estimate[[1]], 0.1 * 2 / 3)
  expect_true(is.na(only_l1$estimate[only_l1$group == "level 2"]))
  expect_message(futurex_summary(scored), class = "predictivebench_message_skipped")
})

test_that("the reference's random-baseline file scores 0.1077", {
  skip_if_no_python()
  path <- skip_if_no_reference("futurex", "250915-random.json")
  # Its two questions with the spreadsheet-rounded id 6.85147E+23 load without any option,
  # with the ids the question file gets.
  scored <- futurex_score(path)
  expect_equal(round(scored$summary$estimate[[1]], 4), 0.1077)
  expect_equal(scored$summary$n[-(1:2)], c(11L, 10L, 9L, 23L))
  questions <- prepare_futurex(skip_if_no_reference("futurex", "250915.json"))
  expect_identical(scored$items$id, questions$id)
  expect_equal(anyDuplicated(questions$id), 0L)
  expect_equal(sum(startsWith(questions$id, "6.85147E+23#")), 2L)
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
  # An empty file of predictions: said so, not "`text` must be a character vector".
  err <- expect_error(futurex_score(write("[]", "none.json")),
                      class = "predictivebench_error_empty")
  expect_identical(err$file, file.path(dir, "none.json"))
  # Infinity and NaN, which Python's parser would take, name the item and field.
  err <- expect_error(futurex_score(write(sub('"Std": null', '"Std": -Infinity',
                                              paste0("[", good, "}]")), "inf.json")),
                      class = "predictivebench_error_json")
  expect_equal(c(err$row, err$field), c("1", "Std"))
})

test_that("the real FutureX file with Infinity in a Std names the item and field", {
  skip_if_no_python()
  source <- skip_if_no_reference("futurex", "250915.json")
  lines <- readLines(source, encoding = "UTF-8", warn = FALSE)
  at <- grep('"Std": [0-9]', lines)[[1]]
  lines[[at]] <- sub('"Std": [0-9.]+', '"Std": Infinity', lines[[at]])
  path <- file.path(withr::local_tempdir(), "250915.json")
  writeLines(lines, path, useBytes = TRUE)
  items <- jsonlite::fromJSON(source, simplifyVector = FALSE)
  row <- which(vapply(items, function(x) !is.null(x$Std), TRUE))[[1]]
  err <- expect_error(futurex_score(path, duplicate_ids = "suffix"),
                      class = "predictivebench_error_json")
  expect_equal(c(err$row, err$field, err$file), c(as.character(row), "Std", path))
  expect_match(conditionMessage(err), paste0("line ", at))
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
  # the judge that gave no values is named, with its count
  expect_warning(
    scored <- futurex_score(numeric, scorer_chat = fake_chat(server),
                            settings = request_settings(cache = FALSE)),
    paste("fake-model gave no readable verdict in", nrow(numeric) - 1L, "of", nrow(numeric)),
    class = "predictivebench_warning_unreadable_verdicts"
  )
  sales <- scored$items[scored$items$id == "fx-l4-sales", ]
  expect_equal(sales$score, 1 - (70 / 100)^2)
  expect_equal(c(sales$pred_value, sales$truth_value), c(1180, 1250))
  temp <- scored$items[scored$items$id == "fx-l3-temp", ]
  # fallback to the reference parse: 1 vs 12.5 with Std 2; a note, not a failed request
  expect_equal(temp$score, 0)
  expect_equal(temp$normalization, "fallback")
  expect_true(is.na(temp$judge_error))
  expect_match(temp$judge_note, "no GROUND_TRUTH_VALUE and PREDICTION_VALUE")
  expect_true(is.na(sales$judge_note))
  body <- server$requests()[[1]]
  expect_equal(body$temperature, 0.2)
  expect_equal(body$messages[[1]]$content, "You are a precise number normalization assistant.")
  expect_match(last_user_text(body), "Now normalize:\n$")
})

test_that("the scorer's normalization judge takes batch = TRUE", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5")
  dataset <- futurex_dataset(version = "sample")
  dataset <- dataset[dataset$id == "fx-l3-temp", ]
  cache <- withr::local_tempdir()
  tsk <- futurex_task(dataset = dataset, solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      scorer = futurex_scorer(settings = request_settings(cache = cache, batch = TRUE)),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{99}"),
           scorer_chat = fake_responses_chat(server), view = FALSE)
  expect_equal(tsk$get_samples()$score, 1)
  expect_equal(server$uploads(), 1)
})

test_that("a panel of judges: each judge's values give a score, the item's is their mean, each judge's own kept", {
  server <- local_fake_openai(function(body, n) {
    switch(body$model,
      "judge-a" = "GROUND_TRUTH_VALUE: 100\nPREDICTION_VALUE: 100",
      "judge-b" = "GROUND_TRUTH_VALUE: 100\nPREDICTION_VALUE: 100",
      "judge-c" = "I am not sure")                        # the plain parse scores its item
  })
  path <- system.file("extdata", "futurex-sample.parquet", package = "predictivebench")
  table <- read_task_table(path)
  table$answer <- "\\boxed{1,180 thousand units}"
  table$has_answer <- TRUE
  numeric <- table[!is.na(table$std), ]
  cache <- withr::local_tempdir()
  panel <- list(fake_chat(server, "judge-a"), fake_chat(server, "judge-b"),
                fake_chat(server, "judge-c"))
  # the panel's judge without values is named, the others not
  said <- expect_warning(
    scored <- futurex_score(numeric, scorer_chat = panel,
                            settings = request_settings(cache = cache)),
    paste0("judge-c gave no readable verdict in ", nrow(numeric), " of ", nrow(numeric),
           " numeric item"),
    class = "predictivebench_warning_unreadable_verdicts"
  )
  expect_equal(said$unreadable, c(`judge-c` = nrow(numeric)))
  expect_equal(server$count(), 3 * nrow(numeric))
  alone <- suppressWarnings(futurex_score(numeric, scorer_chat = panel[[3]],
                                          settings = request_settings(cache = cache)))
  expect_equal(server$count(), 3 * nrow(numeric))  # a member's requests are its own: cached
  # judges a and b: values 100 vs 100 (score 1); judge c: the plain parse, as alone
  expect_equal(scored$items$score, (1 + 1 + alone$items$score) / 3)
  expect_true(all(scored$items$normalization == "mixed"))
  each <- panel_judges(scored$items$judges)
  expect_equal(nrow(each), 3 * nrow(numeric))
  expect_identical(each$judge[each$sample == 1], c("judge-a", "judge-b", "judge-c"))
  expect_equal(each$score[each$judge == "judge-c"], alone$items$score)
  expect_identical(unique(each$normalization[each$judge == "judge-c"]), "fallback")
  expect_match(scored$items$judge_note, "^judge-c: The judge's reply has no")
  # a list of one judge is that judge
  one <- suppressWarnings(futurex_score(numeric, scorer_chat = panel[3],
                                        settings = request_settings(cache = cache)))
  expect_identical(one$items, alone$items)
})

test_that("a FutureX task with a panel logs each judge's values; its rerun sends nothing; the preview counts every judge", {
  server <- local_fake_openai(function(body, n) {
    if (!grepl("normalization", body$messages[[1]]$content %||% "")) return("\\boxed{12}")
    if (identical(body$model, "judge-b")) return(list(status = 400))
    "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12"
  })
  cache <- withr::local_tempdir()
  settings <- request_settings(cache = cache, retry = list(max_tries = 1))
  built <- futurex_panel_task(server, settings)
  data <- built$data
  judged <- built$judged
  tsk <- built$task
  preview <- estimate_cost(tsk, fake_chat(server), cache = cache)
  expect_equal(preview$requests, nrow(data) + 2 * judged)
  suppressWarnings(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)))
  expect_equal(server$count(), nrow(data) + 2 * judged)
  samples <- tsk$get_samples()
  meta <- Filter(function(m) identical(m$kind, "numeric"), samples$scorer_metadata)
  expect_length(meta, judged)
  # judge-b failed: the failure is the sample's (named), and its score is the plain parse's
  expect_match(meta[[1]]$judge_error, "^judge-b: ")
  each <- panel_judges(meta[[1]]$judges)
  expect_identical(each$normalization, c("llm", "fallback"))
  log <- jsonlite::read_json(tsk$log_path)
  logged <- Filter(function(s) identical(s$scores[[1]]$metadata$kind, "numeric"), log$samples)
  expect_match(logged[[1]]$scores[[1]]$metadata$judges, "\"judge\":\"judge-b\"", fixed = TRUE)
  expect_match(logged[[1]]$scores[[1]]$explanation, "a panel's mean score: judge-a: values")
  before <- server$count()
  suppressWarnings(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)))
  expect_equal(server$count() - before, judged)  # only judge-b's failed requests again
})

test_that("a questions table needs no prediction columns; a predictions table needs `answer`", {
  questions <- futurex_dataset(version = "sample")
  questions$answer <- NULL
  questions$has_answer <- NULL
  tsk <- futurex_task(questions, dir = withr::local_tempdir())
  expect_s3_class(tsk, "Task")
  err <- expect_error(futurex_score(questions), class = "predictivebench_error_schema")
  expect_equal(err$field, "answer")
  expect_match(conditionMessage(err), "has_answer.*optional")
  # `answer` alone: a row has an answer where it holds one
  questions$answer <- ifelse(seq_len(nrow(questions)) == 1, NA, "\\boxed{Yes}")
  both <- questions
  both$has_answer <- !is.na(both$answer)
  expect_equal(futurex_score(questions)$items$score, futurex_score(both)$items$score)
  expect_true(is.na(futurex_score(questions)$items$score[[1]]))
  # a missing column says what the table needs and what may be NA
  questions$level <- NULL
  err <- expect_error(futurex_task(questions), class = "predictivebench_error_schema")
  expect_match(conditionMessage(err), "Columns of a futurex task table")
  expect_match(conditionMessage(err), "May hold `NA`")
  expect_match(conditionMessage(err), "prepare_task_table()", fixed = TRUE)
})
