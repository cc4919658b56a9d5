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
  expect_equal(arena_reload_arrangement(path, questions, models), arr)
})

test_that("a reloaded arrangement must use registered models and questions", {
  dir <- withr::local_tempdir()
  arr <- file.path(dir, "battle_arrangement.csv")
  writeLines(c(",question,model_a,model_b", "0,q1,m1,m2", "1,q1,m1,ghost"), arr)
  expect_error(arena_reload_arrangement(arr, "q1", c("m1", "m2")),
               class = "predictivebench_error_model")
  expect_error(arena_reload_arrangement(arr, "q2", c("m1", "m2", "ghost")),
               class = "predictivebench_error_question")
})

test_that("models are chats or provider/model strings, named by their names, strings or models", {
  a <- named_constant("x", "chat-a")
  b <- named_constant("y", "chat-b")
  models <- as_arena_models(list(first = a, b))
  expect_named(models, c("first", "chat-b"))
  expect_identical(models$first, a)
  expect_named(as_arena_models(list(a, b)), c("chat-a", "chat-b"))
  expect_named(as_arena_models(a, min = 1), "chat-a")
  # a "provider/model" string becomes ellmer::chat(string), named by the string unless named
  strings <- as_arena_models(c("openai/gpt-4.1-nano", "anthropic/claude-3-5-haiku-latest"))
  expect_named(strings, c("openai/gpt-4.1-nano", "anthropic/claude-3-5-haiku-latest"))
  expect_true(all(vapply(strings, inherits, TRUE, what = "Chat")))
  expect_equal(strings[[1]]$get_model(), "gpt-4.1-nano")
  mixed <- as_arena_models(list(small = "openai/gpt-4.1-nano", a))
  expect_named(mixed, c("small", "chat-a"))
  expect_equal(mixed$small$get_model(), "gpt-4.1-nano")
  expect_named(as_arena_models(list(), min = 0), character())
  expect_named(as_arena_models(character(), min = 0), character())
  # a string that names no provider is refused by name
  err <- expect_error(as_arena_models(list(x = "no-such-provider/m", a)),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "models$x", fixed = TRUE)
})

test_that("registration errors say what a model must be", {
  a <- named_constant("x", "chat-a")
  expect_snapshot(arena_arrange("q1", "solo"), error = TRUE)
  expect_snapshot(as_arena_models(list(a = a, a = a)), error = TRUE)
  expect_snapshot(as_arena_models(list(a, named_constant("y", "chat-a"))), error = TRUE)
  expect_snapshot(as_arena_models(list(a = a, b = 42)), error = TRUE)
  expect_snapshot(as_arena_models(list(a)), error = TRUE)
  # a model known only by its answers is no longer a NULL entry: the error points to `answers`
  expect_snapshot(as_arena_models(list(a = a, ghost = NULL)), error = TRUE)
  err <- expect_error(as_arena_models(list(a = a, ghost = NULL)),
                      class = "predictivebench_error_argument")
  expect_identical(err$field, "ghost")
})

test_that("names the arena's files give another meaning are refused", {
  # `question` is the question column of EloBench's answer file: today's wrong message said
  # the arrangement named an unregistered model.
  expect_snapshot(arena_arrange("q1", c("question", "m2")), error = TRUE)
  err <- expect_error(
    arena_answers("q1", list(question = baseline_constant("a")),
                  settings = request_settings(cache = FALSE)),
    class = "predictivebench_error_argument"
  )
  expect_identical(err$field, "question")
  expect_error(as_arena_models(list(question = "openai/gpt-4.1-nano", named_constant("x", "b"))),
               class = "predictivebench_error_argument")
  # "\r" joins a pair's key; a line break would split a CSV line.
  for (name in c("a\rb", "a\nb", "tab\there")) {
    expect_error(arena_arrange("q1", c(name, "m2")), "control character",
                 class = "predictivebench_error_argument")
    expect_error(as_arena_models(stats::setNames(list(named_constant("x", "a"),
                                                      named_constant("y", "b")),
                                                 c(name, "b"))),
                 "control character", class = "predictivebench_error_argument")
  }
  expect_error(arena_arrange("q1", c(NA, "m2")), class = "predictivebench_error_argument")
})
