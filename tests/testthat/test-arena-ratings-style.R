test_that("style features count length, headers, lists and bold outside code", {
  f <- arena_style_features(c(
    "Short.",
    "# Title\n## Sub\n- one\n* two\n1. three\n**a** and __b__",
    "```\n# not a header\n- not a list\n```\n**bold**",
    NA
  ))
  expect_equal(f$length, c(6, 51, 44, 0))
  expect_equal(f$headers, c(0, 2, 0, 0))
  expect_equal(f$lists, c(0, 3, 0, 0))
  expect_equal(f$bold, c(0, 2, 1, 0))
})

test_that("style covariates are relative differences, standardized", {
  cov <- style_covariates(c("aaa", "a", "aaaaaaa"), c("a", "aaa", "a"))
  # length ratios (3 - 1) / 5, (1 - 3) / 5, (7 - 1) / 9; markdown never differs: dropped
  ratio <- c(2 / 5, -2 / 5, 6 / 9)
  expect_equal(colnames(cov), "length")
  expect_equal(unname(cov[, 1]), (ratio - mean(ratio)) / stats::sd(ratio))
})

# Four equally strong models whose answers differ only in length (each model has its
# typical length, and lengths vary from answer to answer); the judge prefers the longer
# answer. Plain ratings reward length; style control removes the advantage.
simulate_length_battles <- function(n = 3000, effect = 1.2) {
  words <- c(terse = 40, short = 60, medium = 90, long = 140)
  pairs <- t(replicate(n, sample(names(words), 2)))
  len_a <- round(words[pairs[, 1]] * stats::rlnorm(n, 0, 0.6))
  len_b <- round(words[pairs[, 2]] * stats::rlnorm(n, 0, 0.6))
  answer <- function(len) strrep("word ", len)
  rel <- (len_a - len_b) / (len_a + len_b + 1)
  p <- stats::plogis(effect * rel / stats::sd(rel))
  data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
             winner = ifelse(stats::runif(n) < p, "model_a", "model_b"),
             answer_a = answer(len_a), answer_b = answer(len_b))
}

test_that("style control recovers a planted length effect (fixed seed)", {
  battles <- withr::with_seed(2, simulate_length_battles())
  r <- arena_ratings(battles, rating_options(bootstrap = 50, style_control = TRUE))
  plain <- stats::setNames(r$rating, r$model)
  styled <- stats::setNames(r$style_rating, r$model)
  # plain: the longest answers rank first, far apart
  expect_equal(r$model[[1]], "long")
  expect_gt(plain[["long"]] - plain[["terse"]], 150)
  expect_true(r$lower[[1]] > max(r$upper[-1]))
  # style-controlled: all four within a few points of each other, every interval covering
  # 1000 (the true, equal strength)
  expect_lt(max(abs(styled - 1000)), 15)
  expect_true(all(r$style_lower < 1000 & r$style_upper > 1000))
  # the length coefficient carries the planted effect (1.2 log-odds per sd)
  expect_equal(attr(r, "style_coefficients")[["length"]], 1.2, tolerance = 0.15)
})

test_that("without a style effect, style control leaves ratings close to the plain ones", {
  battles <- withr::with_seed(2, {
    strength <- c(a = 1, b = 0, c = -1)
    pairs <- t(replicate(1500, sample(names(strength), 2)))
    p <- stats::plogis(strength[pairs[, 1]] - strength[pairs[, 2]])
    data.frame(model_a = pairs[, 1], model_b = pairs[, 2],
               winner = ifelse(stats::runif(1500) < p, "model_a", "model_b"),
               answer_a = strrep("x", stats::rpois(1500, 50)),
               answer_b = strrep("x", stats::rpois(1500, 50)))
  })
  r <- arena_ratings(battles, rating_options(bootstrap = 0, style_control = TRUE))
  expect_equal(r$style_rating, r$rating, tolerance = 0.02)
})

test_that("style control needs answers and Bradley-Terry", {
  battles <- data.frame(model_a = c("a", "b"), model_b = c("b", "a"),
                        winner = c("model_a", "model_b"))
  expect_error(arena_ratings(battles, rating_options(bootstrap = 0, style_control = TRUE)),
               class = "predictivebench_error_argument")
  battles$answer_a <- battles$answer_b <- "x"
  expect_error(arena_ratings(battles, rating_options(method = "elo", style_control = TRUE)),
               class = "predictivebench_error_argument")
})
