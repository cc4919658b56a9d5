test_that("the paired difference and its standard error, worked by hand", {
  x <- data.frame(id = 1:5, score = c(1, 1, 1, 0, 1))
  y <- data.frame(id = 1:5, score = c(1, 0, 0, 0, 1))
  out <- compare_models(x, y)
  # d = 0, 1, 1, 0, 0: mean 0.4; sd^2 = (3 * 0.16 + 2 * 0.36) / 4 = 0.3; se = sqrt(0.3 / 5)
  expect_equal(out$difference, 0.4)
  expect_equal(out$se, sqrt(0.06))
  # the score interval of u = (0.4 + 1) / 2 = 0.7, se_u = se / 2, worth m = 0.21 / 0.015 =
  # 14 items, mapped back by 2u - 1
  z <- stats::qnorm(0.975)
  m <- 0.7 * 0.3 / (sqrt(0.06) / 2)^2
  centre <- (0.7 + z^2 / (2 * m)) / (1 + z^2 / m)
  half <- z / (1 + z^2 / m) * sqrt(0.21 / m + z^2 / (4 * m^2))
  expect_equal(m, 14)
  expect_equal(c(out$lower, out$upper), 2 * c(centre - half, centre + half) - 1)
  expect_equal(out$p_value, 2 * stats::pnorm(-0.2 / (0.5 / sqrt(m))))
  expect_equal(c(out$x, out$y), c(0.8, 0.4))
  # unpaired: x has sd^2 0.2, y 0.3: sqrt(0.2 / 5 + 0.3 / 5) = sqrt(0.1)
  expect_equal(out$se_unpaired, sqrt(0.1))
  expect_equal(out$method, "paired differences")
})

test_that("clustered paired differences, worked by hand", {
  x <- data.frame(id = 1:8, score = c(1, 1, 1, 0, 1, 1, 0, 1), cluster = rep(1:4, each = 2))
  y <- data.frame(id = 1:8, score = c(1, 0, 1, 0, 0, 1, 0, 1), cluster = rep(1:4, each = 2))
  out <- compare_models(x, y)
  # d = 0 1 | 0 0 | 1 0 | 0 0, mean 0.25; cluster sums 0.5, -0.5, 0.5, -0.5;
  # se = sqrt(4 / 3 * 1) / 8
  expect_equal(out$se, sqrt(4 / 3) / 8)
  expect_equal(out$n_clusters, 4L)
  naive <- compare_models(x, y, options = comparison_options(cluster = NULL))
  expect_equal(naive$n_clusters, 8L)
  expect_equal(naive$se, stats::sd(c(0, 1, 0, 0, 1, 0, 0, 0)) / sqrt(8))
})

test_that("FutureX and ProcessBench headlines use a paired bootstrap", {
  x <- data.frame(id = 1:8, level = rep(1:4, 2), score = c(1, 1, 1, 1, 0, 0, 1, 1))
  y <- data.frame(id = 1:8, level = rep(1:4, 2), score = c(1, 0, 0, 1, 0, 0, 0, 1))
  out <- compare_models(x, y, benchmark = "futurex", options = comparison_options(times = 300))
  # level means x: 0.5, 0.5, 1, 1 -> 0.05 + 0.1 + 0.3 + 0.4 = 0.85;
  # y: 0.5, 0, 0, 1 -> 0.05 + 0.4 = 0.45
  expect_equal(c(out$x, out$y, out$difference), c(0.85, 0.45, 0.4))
  expect_equal(out$method, "paired bootstrap")
  expect_true(out$lower <= 0.4 && out$upper >= 0.4 && out$se > 0)
  pb_x <- data.frame(id = 1:6, label = c(2, 3, 1, -1, -1, -1), score = c(1, 1, 0, 1, 1, 0))
  pb_y <- data.frame(id = 1:6, label = c(2, 3, 1, -1, -1, -1), score = c(1, 0, 0, 1, 1, 1))
  out <- compare_models(pb_x, pb_y, benchmark = "processbench",
                        options = comparison_options(times = 300))
  # x: error_acc 2/3, correct_acc 2/3, F1 2/3; y: 1/3 and 1, F1 = 2 * 1/3 / (4/3) = 0.5
  expect_equal(out$difference, 2 / 3 - 0.5)
  expect_error(compare_models(pb_x, pb_y, benchmark = "processbench",
                              options = comparison_options(method = "paired")),
               class = "predictivebench_error_argument")
  expect_error(compare_models(x[-2], y[-2], benchmark = "futurex"),
               class = "predictivebench_error_argument")
})

test_that("a paired bootstrap of the mean agrees with the paired formula", {
  set.seed(3)
  skill <- stats::rnorm(200)
  x <- data.frame(id = 1:200, score = as.double(skill + stats::rnorm(200, 0, 0.5) > 0))
  y <- data.frame(id = 1:200, score = as.double(skill + stats::rnorm(200, 0, 0.5) > 0.3))
  formula <- compare_models(x, y)
  boot <- compare_models(x, y, options = comparison_options(method = "bootstrap", times = 2000))
  expect_equal(boot$difference, formula$difference)
  expect_equal(boot$se, formula$se, tolerance = 0.1)
})

test_that("compare_models() reads evaluated tasks", {
  run <- function(answer) {
    tsk <- futurex_task(futurex_dataset(version = "sample"), dir = tempfile())
    tsk$eval(solver_chat = baseline_constant(answer), view = FALSE)
    tsk
  }
  a <- run("\\boxed{A}")
  b <- run("\\boxed{B}")
  out <- compare_models(a, b, options = comparison_options(times = 100))
  expect_equal(out$benchmark, "futurex")
  expect_equal(out$difference, futurex_summary(a)$estimate[[1]] - futurex_summary(b)$estimate[[1]])
})

test_that("bad input is refused", {
  expect_error(compare_models(data.frame(a = 1), data.frame(id = 1, score = 1)),
               class = "predictivebench_error_argument")
  expect_error(compare_models(data.frame(id = 1, score = 1), data.frame(id = 2, score = 1)),
               class = "predictivebench_error_argument")
})

test_that("simulation: paired intervals are narrower than unpaired ones when scores correlate", {
  # items of varying difficulty that both models feel (bench/stats-coverage.R: coverage of
  # the paired interval about 0.95 with a clearly smaller width)
  runs <- withr::with_seed(5, replicate(100, {
    difficulty <- stats::rnorm(200, 0, 2)
    p_x <- stats::plogis(difficulty + 0.1)
    p_y <- stats::plogis(difficulty - 0.1)
    x <- data.frame(id = 1:200, score = as.double(stats::runif(200) < p_x))
    y <- data.frame(id = 1:200, score = as.double(stats::runif(200) < p_y))
    out <- compare_models(x, y)
    c(out$se / out$se_unpaired,
      abs(out$difference - mean(p_x - p_y)) <= stats::qnorm(0.975) * out$se)
  }))
  expect_true(all(runs[1, ] < 1))
  expect_lt(mean(runs[1, ]), 0.8)
  expect_gt(mean(runs[2, ]), 0.88)
})

test_that("DeltaBench's headline is the macro F1 over solutions with an error", {
  x <- tibble::tibble(id = 1:4, score = c(1, 0.5, 1, 0),
                      error_sections = list(2L, c(1L, 3L), integer(), 4L))
  y <- x
  y$score <- c(0.5, 0.5, 0, 0)
  out <- compare_models(x, y, benchmark = "deltabench", options = comparison_options(times = 100))
  # x: mean(1, 0.5, 0) = 0.5; y: mean(0.5, 0.5, 0) = 1/3 (item 3 has no error)
  expect_equal(c(out$x, out$y), c(0.5, 1 / 3))
  expect_equal(out$metric, "overall f1_macro")
})

test_that("futurex_score() results are compared on FutureX's level-weighted overall", {
  skip_if_no_python()
  path <- system.file("extdata", "futurex-predictions.json", package = "predictivebench")
  scored <- suppressMessages(futurex_score(path))
  items <- scored$items
  other <- data.frame(id = items$id, level = items$level,
                      score = as.double(seq_len(nrow(items)) %% 2 == 0))
  out <- compare_models(scored, other, options = comparison_options(times = 200))
  expect_equal(out$benchmark, "futurex")
  expect_equal(out$metric, "overall")
  # the x side is futurex_summary()'s overall on the same (scored) items
  expect_equal(out$x, scored$summary$estimate[scored$summary$group == "overall"])
  kept <- !is.na(items$score)
  plain <- mean(items$score[kept])
  weighted <- futurex_weighted_score(tibble::tibble(level = items$level[kept],
                                                    score = items$score[kept]))
  expect_equal(out$x, weighted)
  expect_false(isTRUE(all.equal(out$x, plain)))
  # a scored file on either side, and two scored files
  expect_equal(compare_models(other, scored,
                              options = comparison_options(times = 50))$benchmark, "futurex")
  expect_equal(compare_models(scored, scored,
                              options = comparison_options(times = 50))$difference, 0)
})

test_that("a log file names its benchmark; runs of two benchmarks are refused", {
  tsk <- futurex_task(futurex_dataset(version = "sample"),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE)
  expect_equal(task_benchmark(tsk$log_path), "futurex")
  out <- compare_models(tsk$log_path, tsk, options = comparison_options(times = 50))
  expect_equal(out$metric, "overall")
  expect_error(runs_benchmark("futurex", "probsem"), class = "predictivebench_error_argument")
  expect_equal(runs_benchmark(NULL, "probsem"), "probsem")
  expect_null(task_benchmark(data.frame(id = 1, score = 1)))
})

test_that("plain samples with a FutureX level column are compared on the mean, with a hint", {
  x <- data.frame(id = 1:8, level = rep(1:4, 2), score = c(1, 1, 1, 1, 0, 0, 1, 1))
  y <- data.frame(id = 1:8, level = rep(1:4, 2), score = c(1, 0, 0, 1, 0, 0, 0, 1))
  msg <- expect_message(out <- compare_models(x, y), class = "predictivebench_message_benchmark")
  expect_match(conditionMessage(msg), "benchmark = \"futurex\"", fixed = TRUE)
  expect_equal(out$metric, "mean score")
  expect_no_message(compare_models(x, y, benchmark = "futurex",
                                   options = comparison_options(times = 50)),
                    class = "predictivebench_message_benchmark")
  expect_no_message(compare_models(x[c("id", "score")], y[c("id", "score")]),
                    class = "predictivebench_message_benchmark")
})

test_that("compare_models(<folder>) compares every two models of each benchmark, as leaderboard() reads it", {
  logs <- withr::local_tempdir()
  chats <- list(yes = baseline_chat("\\boxed{Yes}", name = "yes"),
                no = baseline_chat("\\boxed{No}", name = "no"),
                guess = baseline_chat(choices = c("Yes", "No"), template = "\\boxed{%s}"))
  set <- suppressMessages(eval_set("futurex@sample", chats, log_dir = logs))
  out <- suppressMessages(compare_models(logs, options = comparison_options(times = 50)))
  expect_s3_class(out, "model_comparison")
  expect_equal(nrow(out), 3L)
  expect_equal(names(out)[1:4], c("benchmark", "model_x", "model_y", "metric"))
  expect_equal(unique(out$benchmark), "futurex")
  expect_equal(out$metric, rep("overall", 3))
  # the same numbers as comparing the two logs
  row <- out[1, ]
  direct <- suppressMessages(compare_models(row$log_x, row$log_y,
                                            options = comparison_options(times = 50)))
  expect_equal(row$difference, direct$difference)
  expect_equal(row$lower, direct$lower)
  labels <- c(out$model_x, out$model_y)
  expect_setequal(unique(labels), paste0("predictivebench_baseline/",
                                         c("yes", "no", "baseline-random-1")))
  expect_output(print(out), "futurex: .*\\(x\\) vs")
  # a log from elsewhere in the folder is skipped with a warning
  dir.create(file.path(logs, "more"))
  writeLines('{"version": 2, "eval": {"task": "x", "model": "m"}}',
             file.path(logs, "more", "other.json"))
  few <- comparison_options(times = 50)
  expect_warning(again <- suppressMessages(compare_models(logs, options = few)),
                 class = "predictivebench_warning_skipped_logs")
  expect_equal(again$difference, out$difference)
  expect_error(compare_models(data.frame(id = 1, score = 1)),
               class = "predictivebench_error_argument")
})

test_that("an arena run's log in parts is compared as the run: the same numbers as in one file", {
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  arena <- function(rule, dir) {
    arena_run(models, arena_baseline_judge(rule), dir = dir,
              dataset = data.frame(question = paste("Question", 1:8)),
              options = arena_options(strategy = "all",
                                      ratings = rating_options(method = "elo", bootstrap = 0)))
  }
  whole <- list(longer = arena("longer", withr::local_tempdir()),
                first = arena("first", withr::local_tempdir()))
  one <- compare_models(whole$longer$paths$log, whole$first$paths$log,
                        options = comparison_options(times = 200))
  expect_equal(one$n, nrow(whole$longer$records))
  # the same runs in parts of a few kilobytes, 4 battles at a time
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  dir <- withr::local_tempdir()
  parted <- list(longer = arena("longer", dir), first = arena("first", dir))
  x <- parted$longer$paths$log_parts
  y <- parted$first$paths$log_parts
  expect_gt(min(length(x), length(y)), 2)
  for (pair in list(c(1, 1), c(length(x), 2))) {
    out <- compare_models(x[[pair[[1]]]], y[[pair[[2]]]], options = comparison_options(times = 200))
    expect_equal(out, one, ignore_attr = TRUE)
  }
})

test_that("compare_models() and power_analysis() reduce each item's epochs as the board does", {
  epochs <- function(scores) {
    data.frame(id = rep(sprintf("q%d", seq_len(length(scores) / 3)), each = 3),
               epoch = rep(1:3, length(scores) / 3), score = scores)
  }
  a <- epochs(c(1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0))
  b <- epochs(c(0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0))
  out <- compare_models(a, b, options = comparison_options(reducer = "pass_at_k", k = 2))
  # item q1 of a: n = 3, c = 1, pass@2 = 1 - C(2, 2) / C(3, 2) = 2/3; q2: c = 2, 1; q3: 0;
  # q4: 1; q5: 2/3; q6: 2/3
  expect_equal(out$x, mean(c(2 / 3, 1, 0, 1, 2 / 3, 2 / 3)))
  expect_equal(out$y, mean(reduce_epochs(b, "pass_at_k", k = 2)$score))
  expect_equal(out$metric, "mean score pass_at_2")
  plain <- compare_models(reduce_epochs(a, "pass_at_k", k = 2),
                          reduce_epochs(b, "pass_at_k", k = 2))
  expect_equal(out$difference, plain$difference)
  expect_equal(out$se, plain$se)
  # the mean over epochs stays the default
  expect_equal(compare_models(a, b)$x, mean(a$score))
  # FutureX's level-weighted headline on reduced items: the summary's number under the reducer
  fx <- futurex_dataset(version = "sample")
  runs <- lapply(c(2, 3), function(p) {
    rows <- fx[rep(seq_len(nrow(fx)), each = 3), c("id", "level")]
    rows$epoch <- rep(1:3, nrow(fx))
    rows$score <- as.double(seq_len(nrow(rows)) %% p == 0)
    rows
  })
  fx_out <- compare_models(runs[[1]], runs[[2]], benchmark = "futurex",
                           options = comparison_options(reducer = "max", times = 50))
  summary <- suppressMessages(futurex_summary(runs[[1]], reducer = "max"))
  expect_equal(fx_out$x, summary$estimate[summary$group == "overall"])
  expect_match(fx_out$metric, "max$")
  # a benchmark no reducer applies to is refused before anything is compared
  expect_error(compare_models(a, b, benchmark = "processbench",
                              options = comparison_options(reducer = "mode")),
               class = "predictivebench_error_reducer")
  expect_error(compare_models(a, b, options = comparison_options(k = 2)),
               class = "predictivebench_error_argument")
  # power from the pilot's reduced items
  power <- power_analysis(a, b, difference = 0.2, options = power_options(
    comparison = comparison_options(reducer = "pass_at_k", k = 2)))
  d <- reduce_epochs(a, "pass_at_k", k = 2)$score - reduce_epochs(b, "pass_at_k", k = 2)$score
  expect_equal(power$sd_diff, sd(d))
  expect_false(isTRUE(all.equal(power$sd_diff, power_analysis(a, b, difference = 0.2)$sd_diff)))
})

test_that("compare_models(<folder>, reducer =) gives each model the board's number under the reducer", {
  logs <- withr::local_tempdir()
  data <- futurex_dataset(version = "sample")
  for (model in 1:2) {
    # answers that change from one epoch to the next, so that the mode is not the mean
    said <- 0
    chat <- baseline_chat(function(prompt) {
      said <<- said + 1
      sprintf("\\boxed{%s}", c("Yes", "No", "Yes", "No", "No")[(said + model) %% 5 + 1])
    }, name = paste0("cycle-", model))
    tsk <- futurex_task(data, dir = logs,
                        solver = futurex_solver(settings = request_settings(cache = FALSE)))
    suppressMessages(tsk$eval(solver_chat = chat, epochs = 3, view = FALSE))
  }
  out <- compare_models(logs, options = comparison_options(reducer = "mode", times = 50))
  expect_equal(nrow(out), 1)
  board <- leaderboard(logs, reducer = "mode")
  board <- board[board$metric == "overall mode", ]
  expect_equal(out$metric, "overall mode")
  expect_equal(c(out$x, out$y), board$estimate[match(c(out$model_x, out$model_y), board$model)])
  # (the reducing itself is checked on hand-worked items above)
  expect_equal(compare_models(logs, options = comparison_options(times = 50))$metric, "overall")
})

test_that("a paired difference's interval stays inside [-1, 1], and its coverage holds", {
  # five items, x right on all, y on one: d = 1 1 1 1 0, mean 0.8, se 0.2; the normal
  # interval reached 0.8 + 1.96 * 0.2 = 1.19, a difference two accuracies can't have
  x <- data.frame(id = 1:5, score = c(1, 1, 1, 1, 1))
  y <- data.frame(id = 1:5, score = c(0, 0, 0, 0, 1))
  out <- compare_models(x, y)
  expect_equal(out$difference, 0.8)
  expect_lte(out$upper, 1)
  expect_gt(out$upper, out$difference)
  expect_lt(out$lower, out$difference)
  # the p-value is the test the interval inverts: below 0.05 exactly when 0 is left out
  expect_identical(out$p_value < 0.05, out$lower > 0)
  # every item the same difference: an interval of what the data allow, not a point
  same <- compare_models(x, x)
  expect_equal(c(same$difference, same$p_value), c(0, 1))
  w <- stats::qnorm(0.975)^2 / (5 + stats::qnorm(0.975)^2)
  expect_equal(c(same$lower, same$upper), c(-w, w))
  all_ones <- compare_models(x, transform(y, score = 0))
  expect_equal(all_ones$upper, 1)
  expect_equal(all_ones$lower, 1 - 2 * w)
  # coverage by simulation at the edge (x near 1, y near 0, 10 items) and in the middle
  coverage <- withr::with_seed(9, vapply(list(c(0.95, 0.05), c(0.9, 0.3), c(0.6, 0.5)),
                                         function(p) {
    mean(replicate(200, {
      a <- data.frame(id = 1:10, score = as.double(stats::runif(10) < p[[1]]))
      b <- data.frame(id = 1:10, score = as.double(stats::runif(10) < p[[2]]))
      o <- compare_models(a, b)
      o$lower >= -1 && o$upper <= 1 && o$lower <= p[[1]] - p[[2]] && p[[1]] - p[[2]] <= o$upper
    }))
  }, 1))
  expect_true(all(coverage > 0.92), label = paste(coverage, collapse = " "))
})

test_that("a paired bootstrap whose draws can't vary gives NA with a note, not a point", {
  # ProcessBench: x finds every error and passes every correct solution, y the opposite, so
  # every draw gives F1 1 - 0 = 1: the interval read "1 [1, 1]"
  a <- data.frame(id = 1:6, label = c(1, 2, 0, -1, -1, -1), score = 1)
  b <- transform(a, score = c(0, 0, 0, 1, 1, 1))
  expect_message(out <- compare_models(a, b, benchmark = "processbench",
                                       options = comparison_options(times = 200)),
                 class = "predictivebench_message_no_spread")
  expect_equal(out$difference, 1)
  expect_true(is.na(out$lower) && is.na(out$upper) && is.na(out$p_value))
})

# An Inspect-made `.eval` (helper-eval-zip.R) of `task` by `model`, its scorer and metric renamed.
inspect_log <- function(dir, file, task, values, model, scorer = "includes",
                        metric = "accuracy") {
  entries <- inspect_eval_entries(task, values, mean(values == "C"))
  entries <- lapply(entries, function(text) {
    text <- gsub('"openai/m"', deparse(model), text, fixed = TRUE)
    text <- gsub('"includes"', deparse(scorer), text, fixed = TRUE)
    gsub('"accuracy"', deparse(metric), text, fixed = TRUE)
  })
  write_eval_zip(file.path(dir, file), entries, "deflate")
}

test_that("compare_models(<folder>) compares Inspect tasks on their scorer's metric, never as a package benchmark", {
  dir <- withr::local_tempdir()
  a <- inspect_log(dir, "a.eval", "mytask", c("C", "I", "C", "C"), "openai/a")
  b <- inspect_log(dir, "b.eval", "mytask", c("C", "I", "I", "I"), "openai/b")
  # named like a package benchmark, but Inspect's (no package metadata): not futurex
  inspect_log(dir, "fa.eval", "futurex", c("C", "C", "I", "I"), "openai/a")
  inspect_log(dir, "fb.eval", "futurex", c("C", "I", "I", "I"), "openai/b")
  futurex_run("\\boxed{A}", dir)
  out <- suppressMessages(compare_models(dir))
  expect_equal(out$benchmark, c("futurex (Inspect)", "mytask"))
  expect_equal(out$metric, c("includes accuracy", "includes accuracy"))
  expect_equal(out$difference, c(0.25, 0.5))
  expect_equal(out$method, rep("paired differences", 2))
  expect_equal(out$log_x[[2]], a)
  # the same as the two runs alone
  expect_equal(suppressMessages(compare_models(a, b))$difference, 0.5)
  # a task's run on another scorer, or on a metric that is no mean, is refused, naming it
  other <- withr::local_tempdir()
  inspect_log(other, "a.eval", "mytask", c("C", "I", "C", "C"), "openai/a")
  c <- inspect_log(other, "c.eval", "mytask", c("C", "I", "I", "I"), "openai/c",
                   scorer = "match")
  err <- expect_error(compare_models(other), class = "predictivebench_error_incomparable")
  expect_equal(err$file, c)
  expect_match(conditionMessage(err), "includes accuracy", fixed = TRUE)
  f1 <- withr::local_tempdir()
  d <- inspect_log(f1, "d.eval", "mytask", c("C", "I"), "openai/d", metric = "f1")
  inspect_log(f1, "e.eval", "mytask", c("C", "C"), "openai/e", metric = "f1")
  err <- expect_error(compare_models(f1), class = "predictivebench_error_incomparable")
  expect_match(conditionMessage(err), "not a mean", fixed = TRUE)
})
