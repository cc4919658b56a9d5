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
  expect_equal(sm$group, c("overall", "overall_present_levels", paste("level", 1:4)))
  expect_true(all(sm$metric == "score"))
  expect_true(all(sm$lower >= 0 & sm$upper <= 1))
})

test_that("user-facing errors name the user's call", {
  expect_snapshot(futurex_summary(data.frame(x = 1)), error = TRUE)
  expect_snapshot(futurex_dataset(version = "sample", limit = -1), error = TRUE)
})

test_that("a FutureX log shows futurex_summary()'s numbers, offline", {
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_random(c("A", "B", "Yes", "No", "12"), "\\boxed{%s}",
                                         seed = 2), view = FALSE)
  log <- expect_results_log(tsk, futurex_summary, c("level", "std", "end_time"))
  expect_equal(log$results$scores[[1]]$name, "futurex_score")
  expect_named(log$results$scores[[1]]$metrics,
               c("overall", "overall_present_levels", paste("level", 1:4)))
  first <- log$samples[[1]]
  expect_equal(first$metadata$level, 1L)
  expect_match(first$scores[[1]]$explanation, "^single: extracted [A-Za-z0-9]+ vs Yes$")
  expect_equal(first$scores[[1]]$metadata$kind, "single")
  # vitals_log_read() output with the dataset's level added
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant("x"))
  expect_identical(suppressMessages(futurex_summary(log_samples(read, futurex_dataset(version = "sample")))),
                   suppressMessages(futurex_summary(tsk)))
  err <- expect_error(futurex_summary(read), "pass the log file itself")
  # the hint names only what a user can call
  expect_no_match(conditionMessage(err), "log_samples")
})

test_that("futurex_summary() plots a bar per level with its interval and n", {
  skip_if_not_installed("ggplot2")
  tsk <- futurex_run("\\boxed{A}", withr::local_tempdir())
  s <- suppressMessages(futurex_summary(tsk))
  expect_s3_class(s, "benchmark_summary")
  p <- ggplot2::autoplot(s)
  expect_equal(p$labels$title, "FutureX: score by level")
  expect_match(gsub("\n", " ", p$labels$x), "levels' standard errors combined")
  expect_true(paste0("n = ", s$n[[1]]) %in% unlist(lapply(ggplot2::ggplot_build(p)$data,
                                                           function(d) d$label)))
  boot <- suppressMessages(futurex_summary(tsk, method = "bootstrap", times = 50))
  expect_match(ggplot2::autoplot(boot)$labels$x, "bootstrap")
})

test_that("a subset without levels 3-4 keeps eval.py's overall, says so, and gives the overall over its levels", {
  # level 1: 1, 0 (mean 0.5); level 2: 1, 1, 0, 0 (mean 0.5); no level 3 or 4
  items <- tibble::tibble(id = paste0("q", 1:6), level = c(1, 1, 2, 2, 2, 2),
                          score = c(1, 0, 1, 1, 0, 0))
  expect_message(sm <- futurex_summary(items), "level 3.*level 4.*at most 0.3",
                 class = "predictivebench_message_missing_levels")
  overall <- sm[sm$group == "overall", ]
  present <- sm[sm$group == "overall_present_levels", ]
  # eval.py: 0.1 * 0.5 + 0.2 * 0.5 = 0.15 (absent levels weigh 0)
  expect_equal(overall$estimate, 0.15)
  expect_equal(overall$weight, 0.3)
  # over the levels present: 0.15 / 0.3 = 0.5, interval scaled alike
  expect_equal(present$estimate, 0.5)
  expect_equal(c(present$lower, present$upper), c(overall$lower, overall$upper) / 0.3)
  expect_equal(present$n, 6L)
  expect_equal(sm$group[1:2], c("overall", "overall_present_levels"))
  # every level present: both rows agree, and nothing is said
  full <- tibble::tibble(id = paste0("q", 1:8), level = rep(1:4, 2), score = c(1, 0, 1, 1, 0, 0, 1, 0))
  expect_no_message(fs <- futurex_summary(full), class = "predictivebench_message_missing_levels")
  expect_equal(fs$estimate[fs$group == "overall_present_levels"], fs$estimate[fs$group == "overall"])
})

test_that("a bootstrap overall of levels all right is an interval, not a point", {
  # every resample of all-correct levels is 1: the overall read "1 [1, 1]" beside levels'
  # Wilson intervals; it takes the levels' intervals combined, as the normal method does
  fx <- futurex_dataset(version = "sample")
  right <- data.frame(id = fx$id, level = fx$level, score = 1)
  boot <- suppressMessages(futurex_summary(right, method = "bootstrap"))
  normal <- suppressMessages(futurex_summary(right))
  top <- boot[boot$group == "overall", ]
  expect_equal(top$estimate, 1)
  expect_lt(top$lower, 1)
  expect_equal(top$lower, normal$lower[normal$group == "overall"])
})
