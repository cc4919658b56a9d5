test_that("arrangements: N distinct answerable questions per pair, seeded, A/B shuffled", {
  questions <- paste0("q", 1:10)
  models <- c("a", "b", "c", "d")
  arr <- arena_arrange(questions, models, n = 3, seed = 5)
  expect_equal(nrow(arr), 6 * 3)
  key <- paste(pmin(arr$model_a, arr$model_b), pmax(arr$model_a, arr$model_b))
  expect_true(all(table(key) == 3))
  expect_false(anyDuplicated(paste(key, arr$question)) > 0)
  expect_equal(arr, arena_arrange(questions, models, n = 3, seed = 5))
  expect_false(isTRUE(all.equal(arr, arena_arrange(questions, models, n = 3, seed = 6))))
  big <- arena_arrange(questions, models, n = 10, seed = 1)
  expect_true(any(big$model_a == "d") && any(big$model_b == "a"))
  expect_true(all(!arena_arrange(questions, models, n = 2, shuffle = FALSE)$model_a %in% "d"))
  # Only questions both models can answer; never a question the pair already met on.
  available <- matrix(TRUE, 10, 4, dimnames = list(NULL, models))
  available[1:8, "d"] <- FALSE
  arr2 <- arena_arrange(questions, models, n = 5, available = available, seed = 1)
  with_d <- arr2[arr2$model_a == "d" | arr2$model_b == "d", ]
  expect_true(all(with_d$question %in% c("q9", "q10")))
  expect_equal(nrow(with_d), 3 * 2)
  more <- arena_arrange(questions, models, n = 10, existing = arr, seed = 1)
  old <- paste(pmin(arr$model_a, arr$model_b), pmax(arr$model_a, arr$model_b), arr$question)
  new <- paste(pmin(more$model_a, more$model_b), pmax(more$model_a, more$model_b),
               more$question)
  expect_length(intersect(old, new), 0)
  expect_equal(nrow(more), 6 * 7)
  all <- arena_arrange(questions[1:3], models, strategy = "all")
  expect_equal(nrow(all), 3 * 6)
  path <- withr::local_tempfile(fileext = ".csv")
  predictivebench:::write_arena_csv(arr, path)
  expect_equal(arena_arrange(questions, models, strategy = "reload", path = path), arr)
})

test_that("a reloaded arrangement must use registered models and questions", {
  dir <- withr::local_tempdir()
  arr <- file.path(dir, "battle_arrangement.csv")
  writeLines(c(",question,model_a,model_b", "0,q1,m1,m2", "1,q1,m1,ghost"), arr)
  expect_error(arena_arrange("q1", c("m1", "m2"), strategy = "reload", path = arr),
               class = "predictivebench_error_model")
  expect_error(arena_arrange("q2", c("m1", "m2", "ghost"), strategy = "reload", path = arr),
               class = "predictivebench_error_question")
})

test_that("registration errors say what a model must be", {
  expect_snapshot(arena_arrange("q1", "solo"), error = TRUE)
  expect_snapshot(arena_arrange("q1", list(a = NULL, a = NULL)), error = TRUE)
  expect_snapshot(arena_arrange("q1", list(a = NULL, b = 42)), error = TRUE)
})

test_that("names the arena's files give another meaning are refused", {
  # `question` is the answer cache's question column: today's wrong message said the
  # arrangement named an unregistered model.
  expect_snapshot(arena_arrange("q1", c("question", "m2")), error = TRUE)
  err <- expect_error(
    arena_answers("q1", list(question = baseline_constant("a")), withr::local_tempdir(),
                  settings = request_settings(cache = FALSE)),
    class = "predictivebench_error_argument"
  )
  expect_identical(err$field, "question")
  # "\r" joins a pair's key; a line break would split a CSV line.
  for (name in c("a\rb", "a\nb", "tab\there")) {
    expect_error(arena_arrange("q1", c(name, "m2")), "control character",
                 class = "predictivebench_error_argument")
  }
  expect_error(arena_arrange("q1", c(NA, "m2")), class = "predictivebench_error_argument")
})
