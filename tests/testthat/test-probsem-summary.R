test_that("the summary's -1 rule and ties work on hand-made samples", {
  s <- probsem_example_samples()
  # "choice" has 3 contexts, one without ground truth: accuracy over the other two
  msg <- expect_message(probsem_summary(s), class = "predictivebench_message_no_truth")
  expect_match(conditionMessage(msg), "choice: 1 of 3")
  sm <- suppressMessages(probsem_summary(s))
  expect_equal(sm$estimate[sm$group == "choice"], 1)
  expect_equal(sm$n[sm$group == "choice"], 2L)
  expect_equal(sm$n_no_truth[sm$group == "choice"], 1L)
  # made wrong on one of its contexts with ground truth: 1 of 2
  wrong <- s
  wrong$solver_metadata[[2]]$prob <- rev(wrong$solver_metadata[[2]]$prob)
  expect_equal(suppressMessages(probsem_summary(wrong))$estimate[sm$group == "choice"], 0.5)
  # a suite with no context with ground truth has no accuracy
  none <- s[s$expected == -1, ]
  expect_true(is.na(suppressMessages(probsem_summary(none))$estimate))
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

test_that("a result in which every query of every context ties is flagged, with a note", {
  s <- probsem_example_samples()
  sm <- suppressMessages(probsem_summary(s))
  expect_false(any(sm$all_tied))
  expect_no_message(probsem_summary(s), class = "predictivebench_message_all_tied")
  s$solver_metadata <- lapply(s$solver_metadata, function(m) {
    m$prob <- rep(1 / length(m$queries), length(m$queries))
    m
  })
  msg <- expect_message(probsem_summary(s), class = "predictivebench_message_all_tied")
  expect_match(conditionMessage(msg), "can't tell the queries apart")
  sm <- suppressMessages(probsem_summary(s))
  expect_true(all(sm$all_tied))
  # one context that tells its queries apart is a model's result, ties elsewhere or not
  s$solver_metadata[[4]]$prob <- c(0.3, 0.7)
  expect_false(any(suppressMessages(probsem_summary(s))$all_tied))
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
  expect_equal(plot$labels$title, "probsem: accuracy by suite")
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

test_that("an oracle scores 1 on every suite of the sample, in the log, the set and the board", {
  data <- probsem_dataset(version = "sample")
  tsk <- probsem_task(data, dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_echo(data), view = FALSE))
  log <- log_json(tsk$log_path)
  metrics <- log$results$scores[[1]]$metrics
  # the sample's "choice" suite has a context without ground truth (expected = -1): its
  # accuracy counts the two that have one
  expect_equal(names(metrics), c("choice", "truth"))
  expect_equal(vapply(metrics, function(m) m$value, 1), c(choice = 1, truth = 1))
  expect_length(log$eval$metadata$not_computed, 0)
  headline <- log$eval$metadata$headline
  expect_equal(vapply(headline, function(r) r$n, 1), c(2, 3))
  # the set's table and the board show it
  logs <- withr::local_tempdir()
  set <- suppressMessages(eval_set("probsem@sample", list(oracle = baseline_echo(data)),
                                   log_dir = logs))
  expect_equal(set$headline, 1)
  expect_equal(set$metric, "choice")
  board <- suppressMessages(leaderboard(logs))
  expect_equal(board$estimate, c(1, 1))
})

# The paper's AV-1 suites as an evaluated task's samples, with code-davinci-002's published
# weights as the queries' log-probabilities and the human judgements each context carries.
paper_samples <- function(dir) {
  humans <- probsem_read_humans(file.path(dir, "tug-of-war_AV-1_human_results.csv"))
  rows <- lapply(c("AV-1a", "AV-1b"), function(suite) {
    results <- utils::read.csv(file.path(dir, paste0("tug-of-war_", suite,
                                                     "_code-davinci-002_results.csv")))
    texts <- unique(results$text)
    tibble::tibble(
      id = paste0(suite, "-", seq_along(texts) - 1L), prompt = "tug-of-war", suite = suite,
      context_index = seq_along(texts) - 1L, text = texts, expected = -1L,
      solver_metadata = lapply(texts, function(t) {
        r <- results[results$text == t, ]
        list(queries = r$program, logp = r$weights, prob = logprob_softmax(r$weights))
      }),
      human_judgements = lapply(texts, function(t) humans$value[humans$text == t])
    )
  })
  do.call(rbind, rows)
}

test_that("with human judgements the headline is the paper's mean JS distance, per sentence too", {
  dir <- skip_if_no_reference("probsem-cogsci2023")
  samples <- paper_samples(dir)
  published <- do.call(rbind, lapply(c("AV-1a", "AV-1b"), function(suite) {
    stats <- utils::read.csv(file.path(dir, paste0("tug-of-war_", suite,
                                                   "_code-davinci-002_stats.csv")))
    stats$suite <- suite
    stats
  }))
  s <- suppressMessages(probsem_summary(samples))
  js <- s[s$metric == "js_distance", ]
  expect_equal(js$group[[1]], "overall")
  expect_equal(js$estimate[[1]], mean(published$js_distance), tolerance = 1e-9)
  expect_equal(js$n[[1]], 18L)
  expect_true(js$lower[[1]] < js$estimate[[1]] && js$estimate[[1]] < js$upper[[1]])
  for (suite in c("AV-1a", "AV-1b")) {
    expect_equal(js$estimate[js$group == suite],
                 mean(published$js_distance[published$suite == suite]), tolerance = 1e-9)
  }
  sentences <- js[js$n == 1 & !js$group %in% c("overall", "AV-1a", "AV-1b"), ]
  expect_equal(sentences$group, paste0(published$suite, ": ", sub("^;; ", "", published$text)))
  expect_lt(max(abs(sentences$estimate - published$js_distance)), 1e-9)
  expect_true(all(sentences$temperature > 0))
  # the accuracy rows stay (no ground truth: NA), and say nothing about it
  acc <- s[s$metric == "accuracy", ]
  expect_equal(acc$group, c("AV-1a", "AV-1b"))
  expect_true(all(is.na(acc$estimate)))
  expect_no_message(probsem_summary(samples), class = "predictivebench_message_no_truth")
  # registered as lower-is-better
  entry <- registered_benchmarks()
  expect_equal(entry$lower_is_better[[match("probsem", entry$name)]], "js_distance")
  # the scorer gives each context its own distance
  scored <- probsem_scorer()(samples)
  expect_lt(max(abs(scored$score[match(published$text, samples$text)] -
                      published$js_distance)), 1e-9)
  expect_match(scored$explanation[[1]], "Jensen-Shannon distance to [0-9]+ people")
  # and probsem_compare_humans() reads the judgements the samples carry
  compared <- probsem_compare_humans(samples, permutations = 10)
  expect_lt(max(abs(compared$js_distance - published$js_distance)), 1e-9)
})

test_that("a suite without human judgements keeps accuracy as its only number", {
  samples <- probsem_example_samples()
  samples$human_judgements <- rep(list(double()), nrow(samples))
  expect_identical(suppressMessages(probsem_summary(samples)),
                   suppressMessages(probsem_summary(probsem_example_samples())))
})
