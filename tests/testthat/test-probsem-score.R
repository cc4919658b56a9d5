# probsem_scorer(): a context is correct when its expected query is the likeliest of its
# queries (a tie for the top counts, as the original's suite accuracy counts it).

probsem_samples <- function(prob, expected, queries = c("sunny", "rainy", "cloudy")) {
  tibble::tibble(
    input = paste("context", seq_along(prob)),
    expected = expected,
    solver_metadata = lapply(prob, function(p) list(queries = queries, prob = p))
  )
}

test_that("the expected query is correct when it is the likeliest, ties included", {
  samples <- probsem_samples(
    prob = list(c(0.2, 0.7, 0.1), c(0.6, 0.3, 0.1), c(0.45, 0.45, 0.1)),
    expected = c(1L, 1L, 0L)
  )
  out <- probsem_scorer()(samples)
  expect_identical(out$score, c(1, 0, 1))
  expect_equal(out$explanation[[1]], paste0(
    "Correct: expected \"rainy\" has p = 0.7; the likeliest is \"rainy\" (p = 0.7). ",
    "Distribution: \"sunny\" 0.2, \"rainy\" 0.7, \"cloudy\" 0.1."
  ))
  expect_match(out$explanation[[2]], "^Incorrect: expected \"rainy\" has p = 0.3; the likeliest is \"sunny\" \\(p = 0.6\\)")
  expect_match(out$explanation[[3]],
               "^Correct through a tie: .* the likeliest are \"sunny\" and \"rainy\" \\(p = 0.45\\)")
})

test_that("the metadata keeps the expected query, its probability and the top probability", {
  out <- probsem_scorer()(probsem_samples(list(c(0.25, 0.5, 0.25)), expected = 2L))
  expect_identical(out$scorer_metadata[[1]],
                   list(expected_query = "cloudy", expected_prob = 0.25, max_prob = 0.5))
  expect_identical(out$score, 0)
})

test_that("no ground truth (-1 or NA) and failed scoring leave the sample unscored", {
  samples <- probsem_samples(
    prob = list(c(0.2, 0.7, 0.1), c(0.2, 0.7, 0.1), c(0.5, NA, 0.5), numeric()),
    expected = c(-1L, NA, 0L, 0L)
  )
  out <- probsem_scorer()(samples)
  expect_identical(out$score, rep(NA_real_, 4))
  expect_match(out$explanation[[1]], "^No ground truth \\(expected = -1\\)\\. Distribution: ")
  expect_match(out$explanation[[2]], "^No ground truth")
  expect_equal(out$explanation[[3]], "Scoring failed for at least one query.")
  expect_equal(out$explanation[[4]], "Scoring failed for at least one query.")
  # the expected query is still named when its probability could not be computed
  expect_identical(out$scorer_metadata[[3]]$expected_query, "sunny")
  expect_identical(out$scorer_metadata[[1]]$expected_query, NA_character_)
})

test_that("scores are numbers the log and the summary read: accuracy is their mean", {
  samples <- probsem_samples(
    prob = list(c(0.2, 0.7, 0.1), c(0.6, 0.3, 0.1), c(0.1, 0.1, 0.8), c(0.3, 0.3, 0.4)),
    expected = c(1L, 1L, 2L, 0L)
  )
  out <- probsem_scorer()(samples)
  expect_type(out$score, "double")
  expect_equal(mean(out$score), 0.5)
  expect_length(out$scorer_metadata, nrow(samples))
  expect_length(out$explanation, nrow(samples))
})
