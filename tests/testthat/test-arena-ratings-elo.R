test_that("online Elo reproduces EloBench on the published quora_100 battles", {
  dir <- elobench_reference()
  if (is.null(dir)) skip("The reference folder shared/reference/elobench is absent.")
  battles <- arena_read_battles(file.path(dir, "quora_100_battled_pairs.csv"))
  ratings <- elo_online(battles)
  expect_lte(abs(ratings[["gpt-4-turbo"]] - 1312.65), 0.01)
  expect_lte(abs(ratings[["chavinlo/alpaca-13b"]] - 589.69), 0.01)
  expect_lte(abs(ratings[["meta-llama/Llama-2-70b-chat-hf"]] - 1310.05), 0.01)
  # The same through arena_ratings(options = rating_options(method = "elo")).
  tbl <- arena_ratings(battles, rating_options(method = "elo", bootstrap = 0))
  expect_equal(tbl$model[[1]], "gpt-4-turbo")
  expect_lte(abs(tbl$rating[[1]] - 1312.65), 0.01)
  # Dropping the 72 failed judgements changes the figures.
  dropped <- elo_online(battles, invalid = "drop")
  expect_false(isTRUE(all.equal(dropped[["gpt-4-turbo"]], ratings[["gpt-4-turbo"]])))
})

test_that("one battle moves both ratings by K/2 from equal ratings", {
  r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = "model_a"))
  expect_equal(r, c(x = 1002, y = 998))
  r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = "model_b"), k = 32)
  expect_equal(r, c(x = 984, y = 1016))
  for (w in c("tie", "tie(all bad)", "tie (bothbad)", "invalid", "", NA)) {
    r <- elo_online(data.frame(model_a = "x", model_b = "y", winner = w))
    expect_equal(r, c(x = 1000, y = 1000), info = w)
  }
})

test_that("both ratings update from pre-battle values, in file order", {
  battles <- data.frame(model_a = c("x", "y"), model_b = c("y", "x"),
                        winner = c("model_a", "model_a"))
  r <- elo_online(battles)
  e <- 1 / (1 + 10^((1002 - 998) / 400))
  expect_equal(r[["y"]], 998 + 4 * (1 - e))
  expect_equal(r[["x"]], 1002 + 4 * (0 - (1 - e)))
  # Models are listed as the original lists them: model_a values first.
  three <- data.frame(model_a = c("b", "c"), model_b = c("a", "a"), winner = "tie")
  expect_named(elo_online(three), c("b", "c", "a"))
})

test_that("the median over orders is seeded and leaves the global stream alone", {
  battles <- simulate_battles(300, c(a = 1100, b = 1000, c = 900))
  set.seed(42)
  before <- stats::runif(1)
  set.seed(42)
  m1 <- elo_median(battles, n = 30, seed = 3)
  after <- stats::runif(1)
  expect_equal(before, after)
  expect_equal(m1, elo_median(battles, n = 30, seed = 3))
  expect_false(isTRUE(all.equal(m1, elo_median(battles, n = 30, seed = 4))))
  expect_gt(m1[["a"]], m1[["c"]])
})
