# arena_summary(): the evaluated model's win rate overall and against each reference model,
# read from the battles the scorer recorded in each sample's metadata.

# Samples as an evaluated arena_task() leaves them: the scorer's battles as JSON metadata.
arena_samples <- function() {
  battles <- function(opponent, winner) {
    list(model = "m", battles = jsonlite::toJSON(list(opponent = opponent, winner = winner)))
  }
  tibble::tibble(
    id = c("a", "a", "b"),  # question a was asked twice (two epochs)
    input = c("q1", "q1", "q2"),
    result = c("r1", "r1 again", "r2"),
    scorer_metadata = list(battles(c("x", "y"), c("model_a", "invalid")),
                           battles(c("x", "y"), c("model_b", "model_a")),
                           battles("x", "tie"))
  )
}

test_that("win rates are the mean points over the battles, failed verdicts as ties", {
  s <- arena_summary(arena_samples())
  expect_named(s, c("group", "metric", "estimate", "lower", "upper", "n", "n_missing"))
  expect_equal(s$group, c("overall", "vs x", "vs y"))
  expect_equal(unique(s$metric), "win_rate")
  # samples: (1 + 0.5) / 2, (0 + 1) / 2, 0.5; against x: 1, 0, 0.5; against y: 0.5, 1
  expect_equal(s$estimate, c(mean(c(0.75, 0.5, 0.5)), 0.5, 0.75))
  expect_equal(s$n, c(3L, 3L, 2L))
  expect_equal(s$n_missing, c(0L, 0L, 0L))
})

test_that("invalid = \"drop\" leaves failed verdicts out and counts them missing", {
  s <- arena_summary(arena_samples(), invalid = "drop")
  expect_equal(s$estimate, c(mean(c(1, 0.5, 0.5)), 0.5, 1))
  expect_equal(s$n[s$group == "vs y"], 1L)
  expect_equal(s$n_missing[s$group == "vs y"], 1L)
})

test_that("a question's epochs are one cluster by default", {
  clustered <- arena_summary(arena_samples())
  naive <- arena_summary(arena_samples(), cluster = NULL)
  expect_equal(clustered$estimate, naive$estimate)
  # against x, both questions average 0.5: no spread between clusters, a zero-width
  # interval; taken one battle at a time (1, 0, 0.5) it is wide
  vs_x <- function(s) unlist(s[s$group == "vs x", c("lower", "upper")])
  expect_equal(unname(vs_x(clustered)), c(0.5, 0.5))
  expect_gt(diff(vs_x(naive)), 0.5)
  expect_false(isTRUE(all.equal(clustered$lower[[1]], naive$lower[[1]])))
})

test_that("bootstrap intervals are reproducible by seed and stay in [0, 1]", {
  one <- arena_summary(arena_samples(), method = "bootstrap", times = 200, seed = 7)
  again <- arena_summary(arena_samples(), method = "bootstrap", times = 200, seed = 7)
  expect_identical(one, again)
  expect_true(all(one$lower >= 0 & one$upper <= 1, na.rm = TRUE))
  expect_equal(one$estimate, arena_summary(arena_samples())$estimate)
})

test_that("what is neither an arena task's samples nor battles is refused", {
  expect_error(arena_summary(tibble::tibble(input = "q", score = 1)),
               class = "predictivebench_error_argument")
  expect_error(arena_summary(arena_samples(), invalid = "ignore"))
})

test_that("battles give each model's win rate: two models' rates add up to one", {
  battles <- tibble::tibble(model_a = c("p", "p", "q", "p"), model_b = c("q", "q", "p", "q"),
                            winner = c("model_a", "tie", "model_a", "model_b"))
  s <- arena_summary(battles)
  rate <- stats::setNames(s$estimate, s$group)
  expect_setequal(names(rate), c("p", "q"))
  # p: 1 + 0.5 + 0 + 0 = 1.5 of 4; q: 0 + 0.5 + 1 + 1 = 2.5 of 4
  expect_equal(rate[["p"]], 1.5 / 4)
  expect_equal(rate[["p"]] + rate[["q"]], 1)
})

test_that("an arena_run()'s result is summarised as its log is: each model's win rate", {
  models <- list(big = named_constant("big big big", "big"), small = named_constant("s", "small"),
                 mid = named_constant("mid mid", "mid"))
  run <- arena_run(models, arena_baseline_judge("longer"),
                   dataset = data.frame(question = paste("Q", 1:4)), dir = withr::local_tempdir(),
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  s <- arena_summary(run, times = 50)
  expect_s3_class(s, "benchmark_summary")
  expect_setequal(s$group, names(models))
  expect_equal(s, arena_summary(run$paths$log, times = 50))
  expect_equal(s$estimate[s$group == "big"], 1)
})

test_that("the plots of the arena's summaries say what they show, never an internal name", {
  skip_if_not_installed("ggplot2")
  battles <- data.frame(model_a = c("p", "p", "q", "q", "r"), model_b = c("q", "r", "r", "p", "p"),
                        winner = c("model_a", "tie", "model_b", "model_a", "model_a"))
  titles <- c(
    task = ggplot2::autoplot(arena_summary(arena_samples()))$labels$title,
    battles = ggplot2::autoplot(arena_summary(battles, times = 20))$labels$title,
    ratings = ggplot2::autoplot(arena_rating_rows(battles))$labels$title
  )
  expect_equal(unname(titles), c("Arena: win rate by opponent", "Arena: win rate by model",
                                 "Arena: rating by model"))
  expect_false(any(grepl("arena_", titles, fixed = TRUE)))
  # a summary without a title of its own (a user's benchmark) keeps "<benchmark> by <by>",
  # its groups in words
  rows <- summary_rows("overall", "accuracy", mean_ci(c(0, 1)))
  plain <- benchmark_summary(rows[summary_columns], "futurex")
  expect_equal(ggplot2::autoplot(plain)$labels$title, "futurex by level")
  named <- benchmark_summary(rows[summary_columns], "mine", by = "task_family")
  expect_equal(ggplot2::autoplot(named)$labels$title, "mine by task family")
  expect_equal(ggplot2::autoplot(named)$labels$y, "task family")
})
