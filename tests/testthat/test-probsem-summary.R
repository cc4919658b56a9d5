test_that("the summary's -1 rule and ties work on hand-made samples", {
  s <- probsem_example_samples()
  expect_message(probsem_summary(s), "choice")
  sm <- suppressMessages(probsem_summary(s))
  expect_true(is.na(sm$estimate[sm$group == "choice"]))
  expect_equal(sm$estimate[sm$group == "truth"], 1)
  s$solver_metadata[[4]]$prob <- c(0.3, 0.7)
  s$solver_metadata[[5]]$prob <- c(0.5, 0.5)
  sm <- suppressMessages(probsem_summary(s))
  expect_equal(sm$estimate[sm$group == "truth"], 2 / 3)
  scored <- probsem_scorer()(s)
  expect_identical(scored$score, c(1, 1, NA, 0, 1, 1))
  expect_error(probsem_summary(data.frame(x = 1)), class = "predictivebench_error_argument")
})

test_that("a uniform guesser's 100% on tied suites is counted and said, ties kept correct", {
  s <- probsem_example_samples()
  s <- s[s$expected != -1, ]
  # Every query equally likely: each context is correct only through a tie.
  s$solver_metadata <- lapply(s$solver_metadata, function(m) {
    m$prob <- rep(1 / length(m$queries), length(m$queries))
    m
  })
  msg <- expect_message(probsem_summary(s), class = "predictivebench_message_ties")
  expect_match(conditionMessage(msg), "only through a tie")
  expect_match(conditionMessage(msg), "truth: 3 of 3")
  sm <- suppressMessages(probsem_summary(s))
  # Faithful to the original's suite accuracy: ties count as correct.
  expect_true(all(sm$estimate == 1))
  expect_equal(sm$n_tied, sm$n)
  expect_match(probsem_scorer()(s)$explanation[[1]], "^Correct through a tie")
  expect_s3_class(sm, "benchmark_summary")
  # A clear winner is no tie, and no message.
  s2 <- s[1, ]
  prob <- rep(0.1, length(s2$queries[[1]]))
  prob[[s2$expected[[1]] + 1]] <- 0.9
  s2$solver_metadata[[1]]$prob <- prob
  expect_no_message(sm2 <- probsem_summary(s2), class = "predictivebench_message_ties")
  expect_equal(sm2$n_tied, 0L)
})

test_that("an offline probsem log shows each suite's accuracy and reads back the same", {
  tsk <- probsem_task(probsem_dataset(version = "sample"), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("A"), view = FALSE)
  summ <- suppressMessages(probsem_summary(tsk))
  expect_s3_class(summ, "benchmark_summary")
  expect_true(any(!is.na(summ$estimate)))
  expect_log_metrics(tsk$log_path, summ)
  samples <- expect_key_value_metadata(tsk$log_path)
  expect_equal(names(samples[[1]]$scores), "probsem_score")
  expect_equal(samples[[1]]$metadata$suite, tsk$get_samples()$suite[[1]])
  expect_match(samples[[1]]$scores[[1]]$explanation, "expected \"A\" .*Distribution: \"A\" 1")
  expect_log_usage(tsk)
  expect_identical(probsem_accuracy(tsk$log_path), summ)
  expect_identical(suppressMessages(probsem_summary(tsk$log_path)), summ)
  # The distributions too: -Inf log-probabilities (queries the baseline does not name) must
  # survive the log's metadata.
  expect_identical(probsem_distributions(tsk$log_path), probsem_distributions(tsk))
})

test_that("suites of two prompts with the same name get one accuracy row each", {
  samples <- probsem_example_samples()
  other <- samples
  other$prompt <- "other"
  other$id <- paste0("other-", other$id)
  rows <- probsem_accuracy(rbind(samples, other))
  expect_equal(anyDuplicated(rows$group), 0)
  expect_true(all(startsWith(rows$group, paste0(rows$prompt, "_"))))
})

test_that("probsem_summary() plots the accuracy by suite", {
  skip_if_not_installed("ggplot2")
  plot <- ggplot2::autoplot(suppressMessages(probsem_summary(probsem_example_samples())))
  expect_s3_class(plot, "ggplot")
  expect_equal(plot$labels$y, "suite")
})

test_that("probsem_summary() clusters contexts within a suite when told how (worked example)", {
  # one suite of 8 contexts; scenes x (right, right, right, wrong) and y (right, wrong x 3)
  right <- c(TRUE, TRUE, TRUE, FALSE, TRUE, FALSE, FALSE, FALSE)
  samples <- tibble::tibble(
    id = paste0("s-", 0:7), prompt = "p", suite = "s", context_index = 0:7,
    text = paste("context", 0:7), expected = 0L, scene = rep(c("x", "y"), each = 4),
    solver_metadata = lapply(right, function(r) {
      p <- if (r) c(0.8, 0.2) else c(0.2, 0.8)
      list(queries = c("q0", "q1"), logp = log(p), prob = p)
    })
  )
  z <- stats::qnorm(0.975)
  naive <- probsem_summary(samples)
  # by default each context is its own cluster: the naive sd / sqrt(n) = sqrt(1 / 28)
  expect_equal(naive$upper - 0.5, z * sqrt(1 / 28))
  expect_identical(probsem_summary(samples, cluster = NULL), naive)
  # clustered by scene: residual sums +1 and -1, SE = sqrt(2 * 2) / 8 = 0.25
  by_scene <- probsem_summary(samples, cluster = "scene")
  expect_equal(by_scene$estimate, 0.5)
  expect_equal(c(by_scene$lower, by_scene$upper), 0.5 + c(-1, 1) * z * 0.25)
  expect_identical(probsem_accuracy(samples, cluster = "scene"), by_scene)
  # one suite is one cluster: its interval can't be clustered by suite
  expect_true(is.na(probsem_summary(samples, cluster = "suite")$lower))
})

test_that("the log lists a suite with an accuracy first, so the log list shows a number", {
  tsk <- probsem_task(probsem_dataset(version = "sample"), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_echo(probsem_dataset(version = "sample")), view = FALSE)
  log <- log_json(tsk$log_path)
  metrics <- log$results$scores[[1]]$metrics
  # the sample's "choice" suite has a context without ground truth: no accuracy, so it is
  # left out of the metrics (Inspect takes numbers only) and named as not computed
  expect_equal(names(metrics), "truth")
  expect_equal(unlist(log$eval$metadata$not_computed), "choice")
  expect_equal(metrics[[1]]$value, 1)
})
