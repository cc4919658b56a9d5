test_that("dsbench_summary() reads the original's two accuracies", {
  samples <- tibble::tibble(
    competition_id = c("a", "a", "a", "b"),
    score = factor(c("C", "C", "I", "I"), levels = c("I", "C"), ordered = TRUE)
  )
  s <- dsbench_summary(samples, by_competition = TRUE)
  expect_equal(s$estimate[1:2], c(0.5, (2 / 3 + 0) / 2))
  expect_equal(s$estimate[3:4], c(2 / 3, 0))
  expect_true(all(s$metric == "accuracy"))
  expect_true(all(s$lower >= 0 & s$upper <= 1, na.rm = TRUE))
  expect_equal(s$n[1:2], c(4, 2))
  expect_equal(s$group, c("questions", "competitions", "a", "b"))
  expect_equal(names(s)[1:6], c("group", "metric", "estimate", "lower", "upper", "n"))
  expect_equal(s$judge_failures, c(NA_integer_, NA, NA, NA))
  expect_snapshot(dsbench_summary(list()), error = TRUE)
})

test_that("an offline DSBench log shows the summary's accuracies and reads back the same", {
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver(settings = request_settings(cache = FALSE)), scorer = dsbench_scorer_exact(),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("The answer is C."), view = FALSE)
  summ <- dsbench_summary(tsk)
  expect_true(summ$estimate[[1]] > 0 && summ$estimate[[1]] < 1)
  expect_s3_class(summ, "benchmark_summary")
  expect_equal(attr(summ, "by"), "competition")
  expect_log_metrics(tsk$log_path, summ)
  log <- expect_key_value_metadata(tsk$log_path)
  expect_equal(names(log[[1]]$scores), "dsbench_score")
  expect_equal(log[[1]]$metadata$competition_id, data$competition_id[[1]])
  expect_equal(log[[1]]$metadata$question_name, data$question_name[[1]])
  expect_null(log[[1]]$metadata$introduction)
  expect_match(log[[1]]$scores[[1]]$explanation, "extracted .* vs answer .*: (correct|incorrect)")
  expect_log_usage(tsk)
  expect_identical(dsbench_summary(tsk$log_path), summ)
  expect_identical(dsbench_summary(tsk$log_path, by_competition = TRUE),
                   dsbench_summary(tsk, by_competition = TRUE))
})

test_that("a DSBench log counts the judge's tokens; a cached re-run is marked and free", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (startsWith(text, "Please judge")) {
      return(list(text = if (grepl("\n 667.", text, fixed = TRUE)) "True" else "False",
                  usage = list(prompt_tokens = 30L, completion_tokens = 1L)))
    }
    list(text = "It is 667.", usage = list(prompt_tokens = 100L, completion_tokens = 4L))
  })
  cache <- withr::local_tempdir()
  data <- dsbench_dataset(version = "sample")
  make <- function() {
    dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver( images = FALSE,
                                                                              settings = request_settings(cache = cache)),
                 scorer = dsbench_scorer(settings = request_settings(cache = cache)), dir = withr::local_tempdir())
  }
  tsk <- make()
  tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
           view = FALSE)
  summ <- dsbench_summary(tsk)
  expect_log_metrics(tsk$log_path, summ)
  usage <- expect_log_usage(tsk)
  n <- nrow(data)
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/fake-model"], 100 * n)
  expect_equal(usage$input_tokens[usage$model == "openai_compatible/judge"], 30 * n)
  expect_equal(summ$input_tokens[[1]], 130 * n)
  samples <- expect_key_value_metadata(tsk$log_path)
  expect_match(samples[[1]]$scores[[1]]$explanation, "judge replied")
  expect_identical(dsbench_summary(tsk$log_path), summ)

  again <- make()
  again$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE)
  expect_equal(nrow(task_usage(again)), 0)
  expect_equal(sum(log_usage(again$log_path)$input_tokens), 0)
  cached <- log_samples(again$log_path)
  expect_true(all(vapply(cached$solver_metadata, function(m) m$cached, TRUE)))
  expect_true(all(vapply(cached$scorer_metadata, function(m) m$cached, TRUE)))
  expect_false(identical(jsonlite::fromJSON(again$log_path)$eval$task_id,
                         jsonlite::fromJSON(tsk$log_path)$eval$task_id))
})

test_that("dsbench_summary() plots by competition", {
  skip_if_not_installed("ggplot2")
  samples <- tibble::tibble(competition_id = c("a", "a", "b"), score = c(1, 0, 1))
  plot <- ggplot2::autoplot(dsbench_summary(samples, by_competition = TRUE))
  expect_s3_class(plot, "ggplot")
  expect_equal(plot$labels$y, "competition")
  expect_equal(plot$labels$title, "DSBench: accuracy by competition")
  expect_match(gsub("\n", " ", plot$labels$x), "normal \\(or Wilson\\) interval")
})

test_that("dsbench_summary() clusters questions by competition (worked two-cluster example)", {
  # competition a: 1, 1, 1, 0; competition b: 1, 0, 0, 0; mean 0.5.
  samples <- tibble::tibble(
    id = paste0("q", 1:8), competition_id = rep(c("a", "b"), each = 4),
    score = factor(c("C", "C", "C", "I", "C", "I", "I", "I"), levels = c("I", "C"),
                   ordered = TRUE)
  )
  z <- stats::qnorm(0.975)
  # clustered: residual sums per competition are +1 and -1, so
  # SE = sqrt(2 / 1 * (1^2 + 1^2)) / 8 = 0.25
  s <- dsbench_summary(samples, by_competition = TRUE)
  expect_equal(s$estimate[[1]], 0.5)
  expect_equal(c(s$lower[[1]], s$upper[[1]]), 0.5 + c(-1, 1) * z * 0.25)
  # naive: sd(x) / sqrt(8) = sqrt(8 / 7 * 0.25) / sqrt(8) = sqrt(1 / 28)
  naive <- dsbench_summary(samples, by_competition = TRUE, cluster = NULL)
  expect_equal(c(naive$lower[[1]], naive$upper[[1]]), 0.5 + c(-1, 1) * z * sqrt(1 / 28))
  expect_identical(dsbench_summary(samples, cluster = "competition_id"),
                   dsbench_summary(samples))
  # the competitions row and the per-competition rows don't change
  expect_identical(s[-1, ], naive[-1, ])
  expect_equal(s$group, c("questions", "competitions", "a", "b"))
  expect_error(dsbench_summary(samples, cluster = "nope"),
               class = "predictivebench_error_argument")
})

test_that("per-competition rows cluster only the epochs of a question", {
  # three epochs of q1 (right, right, wrong) and of q2 (all wrong), in one competition
  samples <- tibble::tibble(
    id = rep(c("q1", "q2"), each = 3), competition_id = "a",
    score = factor(c("C", "C", "I", "I", "I", "I"), levels = c("I", "C"), ordered = TRUE)
  )
  z <- stats::qnorm(0.975)
  s <- dsbench_summary(samples, by_competition = TRUE)
  # mean 1/3; residual sums per question +1 and -1: SE = sqrt(2 * 2) / 6 = 1/3
  expect_equal(s$upper[[3]], 1 / 3 + z / 3)
  # one competition is one cluster: the questions row can't be clustered by competition
  expect_true(is.na(s$upper[[1]]))
  # naive: sd / sqrt(6) = sqrt(4 / 15) / sqrt(6)
  naive <- dsbench_summary(samples, cluster = NULL)
  expect_equal(naive$upper[[1]], 1 / 3 + z * sqrt(4 / 15 / 6))
})

test_that("a run whose judge has no price costs NA, though its answers came from the cache", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (startsWith(text, "Please judge")) {
      return(list(text = "True", usage = list(prompt_tokens = 30L, completion_tokens = 1L)))
    }
    list(text = "It is 667.", usage = list(prompt_tokens = 100L, completion_tokens = 4L))
  })
  cache <- withr::local_tempdir()
  run <- function(judge) {
    settings <- request_settings(cache = cache)
    tsk <- dsbench_task(dsbench_dataset(version = "sample"),
                        solver = dsbench_solver(images = FALSE, settings = settings),
                        scorer = dsbench_scorer(scorer_chat = judge, settings = settings),
                        dir = withr::local_tempdir(.local_envir = parent.frame(2)))
    suppressWarnings(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk
  }
  run(fake_chat(server, "judge"))
  sent <- server$count()
  # the answers come from the cache (0 this run, known); the new judges are paid at no price
  for (judge in list(fake_chat(server, "judge-new"),
                     list(fake_chat(server, "judge-a"), fake_chat(server, "judge-b")))) {
    tsk <- run(judge)
    expect_gt(server$count(), sent)
    sent <- server$count()
    summ <- dsbench_summary(tsk)
    expect_gt(summ$input_tokens[[1]], 0)
    expect_true(is.na(summ$cost[[1]]))
    expect_identical(dsbench_summary(tsk$log_path)$cost, summ$cost)
    usage <- log_usage(tsk$log_path)
    expect_equal(usage$total_cost[usage$model == "openai_compatible/fake-model"], 0)
    expect_true(is.na(logged_cost(tsk$log_path)))
  }
})
