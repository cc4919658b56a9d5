ratings_battles <- function() {
  data.frame(model_a = c("a", "a", "b", "c", "a", "b"), model_b = c("b", "c", "c", "a", "b", "a"),
             winner = c("model_a", "tie", "model_b", "model_b", "model_a", "model_a"),
             question = c("q1", "q1", "q2", "q2", "q3", "q3"))
}

test_that("arena_ratings() takes its options as one rating_options() object", {
  battles <- ratings_battles()
  elo <- arena_ratings(battles, rating_options(method = "elo", bootstrap = 0,
                                               constants = list(k = 32)))
  expect_equal(attr(elo, "method"), "elo")
  online <- predictivebench:::elo_online(battles, k = 32)
  expect_equal(elo$rating, unname(online[elo$model]))
  anchored <- arena_ratings(battles, rating_options(bootstrap = 0, anchor = c(b = 1500)))
  expect_equal(anchored$rating[anchored$model == "b"], 1500)
  expect_equal(arena_ratings(battles, rating_options(bootstrap = 0, anchor = "b"))$rating,
               anchored$rating - 500)
})

test_that("the old argument names still work for one release, with a deprecation warning", {
  battles <- ratings_battles()
  new <- arena_ratings(battles, rating_options(method = "elo", bootstrap = 20, seed = 3,
                                               by = "questions",
                                               anchor = c(a = 1200),
                                               constants = list(k = 8, initial = 1500)))
  expect_warning(
    old <- arena_ratings(battles, method = "elo", bootstrap = 20, seed = 3, by = "questions",
                         anchor = "a", anchor_rating = 1200, k = 8, initial = 1500),
    "deprecated as of predictivebench 0.2.0.*options = rating_options\\(\\)",
    class = "predictivebench_warning_deprecated"
  )
  expect_identical(old, new)
  # with `options` too, the old names win
  expect_warning(both <- arena_ratings(battles, rating_options(method = "elo", seed = 3),
                                       bootstrap = 0),
                 class = "predictivebench_warning_deprecated")
  expect_identical(both, arena_ratings(battles, rating_options(method = "elo", bootstrap = 0,
                                                               seed = 3)))
  expect_error(arena_ratings(battles, bootsrap = 0), class = "predictivebench_error_argument")
})

test_that("rating_options() refuses a bad option once, naming its field", {
  field_of <- function(expr) {
    tryCatch(expr, predictivebench_error_argument = function(e) e$field)
  }
  expect_equal(field_of(rating_options(method = "elo", style_control = TRUE)), "style_control")
  expect_equal(field_of(rating_options(constants = list(kk = 1))), "kk")
  expect_equal(field_of(rating_options(constants = list(scale = "x"))), "scale")
  expect_equal(field_of(rating_options(anchor = 3)), "anchor")
  expect_error(rating_options(bootstrap = -1), class = "predictivebench_error_argument")
  expect_error(rating_options(method = "glicko"))
  # a method given where the options go is no options object
  expect_equal(field_of(arena_ratings(ratings_battles(), "elo")), "options")
  expect_equal(field_of(predictivebench:::arena_compare(ratings_battles(), "a", "b",
                                                         rating_options(method = "elo"))),
               "method")
})
