test_that("failed judgements count as ties or are dropped", {
  battles <- data.frame(model_a = c("x", "x"), model_b = c("y", "y"),
                        winner = c("model_a", "invalid"))
  tie <- elo_online(battles)
  drop <- elo_online(battles, invalid = "drop")
  expect_equal(drop, c(x = 1002, y = 998))
  expect_lt(tie[["x"]], 1002)
})

test_that("bad battles are clear errors", {
  expect_error(elo_online(data.frame(model_a = "x", model_b = "y", winner = "A")),
               class = "predictivebench_error_winner")
  err <- tryCatch(elo_online(data.frame(model_a = c("x", "x"), model_b = "y",
                                        winner = c("tie", "won"))),
                  error = identity)
  expect_equal(err$row, 2)
  expect_match(conditionMessage(err), "won")
  expect_error(elo_online(data.frame(model_a = "x", winner = "tie")),
               class = "predictivebench_error_schema")
  expect_error(arena_ratings(data.frame(model_a = character(), model_b = character(),
                                        winner = character())),
               class = "predictivebench_error_argument")
})

test_that("ties are half wins, the anchor fixes one model, and perfect records stay finite", {
  ties <- data.frame(model_a = c("x", "y", "z"), model_b = c("y", "z", "x"), winner = "tie")
  expect_equal(arena_ratings(ties, rating_options(bootstrap = 0))$rating, c(1000, 1000, 1000))
  one_each <- data.frame(model_a = c("x", "y"), model_b = c("y", "x"),
                         winner = c("model_a", "model_a"))
  expect_equal(arena_ratings(one_each, rating_options(bootstrap = 0))$rating, c(1000, 1000))
  # A tie is half a win for each: 2 wins and a tie are 2.5 points of 3, as 5 wins of 6.
  tie1 <- data.frame(model_a = c("x", "x", "x"), model_b = c("y", "y", "y"),
                     winner = c("model_a", "model_a", "tie"))
  five_of_six <- data.frame(model_a = "x", model_b = "y",
                            winner = c(rep("model_a", 5), "model_b"))
  expect_equal(arena_ratings(tie1, rating_options(bootstrap = 0))$rating[[1]] - 1000,
               400 * log10(2.5 / 0.5) / 2, tolerance = 1e-4)
  expect_equal(arena_ratings(five_of_six, rating_options(bootstrap = 0))$rating,
               arena_ratings(tie1, rating_options(bootstrap = 0))$rating, tolerance = 1e-4)
  anchored <- arena_ratings(simulate_battles(500, c(a = 1100, b = 1000, c = 900)),
                            rating_options(bootstrap = 0, anchor = c(b = 1500)))
  expect_equal(anchored$rating[anchored$model == "b"], 1500)
  expect_error(arena_ratings(tie1, rating_options(anchor = "nobody")),
               class = "predictivebench_error_argument")
})

test_that("perfectly separated battles give finite ratings from a prior, with a warning", {
  # 5 of 5: the likelihood grows without bound as x pulls away from y
  sweep <- data.frame(model_a = rep("x", 5), model_b = rep("y", 5), winner = "model_a")
  w <- expect_warning(fit <- arena_ratings(sweep, rating_options(bootstrap = 50)),
                      class = "predictivebench_warning_separated")
  expect_equal(w$groups, list("x", "y"))
  r <- fit$rating
  # the prior's optimum: u = 5 ln10 (1 - plogis(2 ln10 u)) with u = (r_x - 1000) / 400
  u <- (r[[1]] - 1000) / 400
  expect_equal(u, 5 * log(10) * (1 - stats::plogis(2 * log(10) * u)), tolerance = 1e-6)
  expect_equal(mean(r), 1000)
  expect_true(r[[1]] > 1200 && r[[1]] < 1300)
  expect_true(all(is.finite(c(fit$lower, fit$upper))))
  expect_true(all(abs(c(fit$lower, fit$upper) - 1000) < 400))
  # a chain of groups: {a, b} (who beat each other) never lost to {c, d}; c beat d
  chain <- data.frame(model_a = c("a", "b", "a", "b", "c", "c"),
                      model_b = c("b", "a", "c", "d", "d", "d"), winner = "model_a")
  w <- expect_warning(fit <- arena_ratings(chain, rating_options(bootstrap = 0)),
                      class = "predictivebench_warning_separated")
  expect_equal(w$groups, list(c("a", "b"), "c", "d"))
  expect_match(conditionMessage(w), "{a, b} > {c} > {d}", fixed = TRUE)
  expect_true(all(abs(fit$rating - 1000) < 600))
  # groups that never met are not ordered (issue 36: the message put a group above another
  # it never played, against their ratings): each group is compared with those it met
  star <- data.frame(model_a = c("top", "top", "top", "mid", "mid"),
                     model_b = c("mid", "low1", "low2", "top", "low1"),
                     winner = "model_a")
  w <- expect_warning(fit <- arena_ratings(star, rating_options(bootstrap = 0)),
                      class = "predictivebench_warning_separated")
  expect_equal(w$groups, list(c("top", "mid"), "low1", "low2"))
  expect_match(conditionMessage(w), "{top, mid} > {low1}; {top, mid} > {low2}", fixed = TRUE)
  expect_no_match(conditionMessage(w), "{low1} > {low2}", fixed = TRUE)
  # one loss across the groups (d beats b) links them all: the maximum likelihood, no prior
  chain$winner[[4]] <- "model_b"
  expect_no_warning(fit <- arena_ratings(chain, rating_options(bootstrap = 0)))
  expect_equal(mean(fit$rating), 1000)
  # ties link both ways
  tied <- data.frame(model_a = c("x", "x"), model_b = c("y", "y"), winner = c("model_a", "tie"))
  expect_no_warning(arena_ratings(tied, rating_options(bootstrap = 0)))
})

test_that("bootstrap intervals by battles and by questions, and ranks from them", {
  battles <- simulate_battles(3000, c(top = 1400, b = 1010, c = 1000, d = 990))
  fit <- arena_ratings(battles, rating_options(bootstrap = 200, seed = 2))
  expect_true(all(fit$lower <= fit$rating & fit$rating <= fit$upper))
  expect_equal(fit$model[[1]], "top")
  expect_equal(fit$rank[[1]], 1L)
  # The three close models overlap each other, and all are beaten by "top".
  expect_true(all(fit$rank[-1] == 2L))
  expect_equal(fit, arena_ratings(battles, rating_options(bootstrap = 200, seed = 2)))
  by_q <- arena_ratings(battles, rating_options(bootstrap = 200, by = "questions", seed = 2))
  expect_equal(by_q$rating, fit$rating)
  expect_false(isTRUE(all.equal(by_q$lower, fit$lower)))
  expect_error(arena_ratings(battles[c("model_a", "model_b", "winner")],
                             rating_options(by = "questions")),
               class = "predictivebench_error_argument")
  elo_fit <- arena_ratings(battles[1:400, ], rating_options(method = "elo", bootstrap = 30))
  expect_true(all(!is.na(elo_fit$lower)))
  med <- arena_ratings(battles[1:200, ], rating_options(method = "elo_median", bootstrap = 5,
                                                        constants = list(n_orders = 5)))
  expect_equal(nrow(med), 4)
})

test_that("a model absent from a bootstrap replicate gets NA there, not the initial rating", {
  # `c` plays only on q2 and wins every battle it plays; resampling the two questions leaves
  # q2 out of about a quarter of the replicates.
  battles <- data.frame(
    model_a = c("a", "a", "b", "c", "c", "c", "c"),
    model_b = c("b", "b", "a", "a", "b", "a", "b"),
    winner = c("model_a", "model_a", "model_b", "model_a", "model_a", "model_a", "model_a"),
    question = c("q1", "q1", "q1", "q2", "q2", "q2", "q2")
  )
  scores <- predictivebench:::battle_scores(battles)
  models <- predictivebench:::battle_models(scores)
  for (method in c("bt", "elo", "elo_median")) {
    options <- rating_options(method, constants = list(n_orders = 3))
    fitter <- predictivebench:::rating_fitter(scores, models, options)
    fitter$full()
    draws <- withr::with_seed(3, fitter$bootstrap(40, "questions"))
    colnames(draws) <- models
    absent <- is.na(draws[, "c"])
    expect_true(any(absent), info = method)
    expect_false(all(absent), info = method)
    # Only c can be absent (a and b play on both questions), and when c plays it is on top.
    expect_false(anyNA(draws[, c("a", "b")]), info = method)
    expect_true(all(draws[!absent, "c"] > 1000), info = method)
    # (c never lost: Bradley-Terry says the battles are separated)
    fit <- suppressWarnings(arena_ratings(battles, rating_options(
      method = method, bootstrap = 40, by = "questions", seed = 3,
      constants = list(n_orders = 3))),
                            classes = "predictivebench_warning_separated")
    # The interval comes from the replicates in which c played: all above 1000.
    expect_gt(fit$lower[fit$model == "c"], 1000)
    expect_true(all(!is.na(fit$lower) & !is.na(fit$upper)), info = method)
  }
})

test_that("the Elo methods resample by questions too", {
  battles <- simulate_battles(400, c(a = 1200, b = 1000, c = 800))
  by_b <- arena_ratings(battles, rating_options(method = "elo", bootstrap = 30, seed = 2))
  by_q <- arena_ratings(battles, rating_options(method = "elo", bootstrap = 30,
                                                by = "questions", seed = 2))
  expect_equal(by_q$rating, by_b$rating)
  expect_equal(by_q$model, c("a", "b", "c"))
  expect_true(all(by_q$lower <= by_q$upper))
  expect_false(isTRUE(all.equal(by_q$lower, by_b$lower)))
  expect_equal(by_q, arena_ratings(battles, rating_options(method = "elo", bootstrap = 30,
                                                           by = "questions", seed = 2)))
  med <- arena_ratings(battles[1:150, ], rating_options(
    method = "elo_median", bootstrap = 5, by = "questions", seed = 2,
    constants = list(n_orders = 5)))
  expect_true(all(!is.na(med$lower) & med$lower <= med$upper))
  expect_error(arena_ratings(battles[c("model_a", "model_b", "winner")],
                             rating_options(method = "elo", by = "questions")),
               class = "predictivebench_error_argument")
})

test_that("rating errors read well", {
  expect_snapshot(elo_online(data.frame(model_a = c("x", "x"), model_b = "y",
                                        winner = c("tie", "won"))), error = TRUE)
  expect_snapshot(elo_online(data.frame(model_a = "x", winner = "tie")), error = TRUE)
  expect_snapshot(arena_ratings(data.frame(model_a = character(), model_b = character(),
                                           winner = character())), error = TRUE)
  ties <- data.frame(model_a = "x", model_b = "y", winner = "tie")
  expect_snapshot(arena_ratings(ties, rating_options(anchor = "nobody")), error = TRUE)
  expect_snapshot(arena_ratings(ties, rating_options(by = "questions")), error = TRUE)
})
