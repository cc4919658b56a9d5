test_that("answers: only missing ones are generated, and failures stay 'not generated'", {
  dir <- withr::local_tempdir()
  counter <- new.env()
  counter$n <- 0
  flaky <- baseline_chat(function(q) {
    counter$n <- counter$n + 1
    if (grepl("fail", q)) stop("boom")
    paste("A:", q)
  }, name = "flaky")
  models <- list(flaky = flaky, cached_only = NULL)
  questions <- c("one", "two", "please fail")
  answers <- arena_answers(questions, models, dir, settings = request_settings(cache = FALSE))
  expect_equal(answers$flaky, c("A: one", "A: two", NA))
  expect_true(all(is.na(answers$cached_only)))
  expect_equal(counter$n, 3)
  on_disk <- arena_read_answers(file.path(dir, "q_and_as.csv"))
  expect_equal(on_disk$flaky, answers$flaky)
  expect_match(paste(readLines(file.path(dir, "q_and_as.csv")), collapse = "\n"), "NaN")
  counter$n <- 0
  again <- arena_answers(c(questions, "three"), models, dir,
                         settings = request_settings(cache = FALSE))
  expect_equal(counter$n, 2) # the failed one and the new one
  expect_equal(again$flaky[[4]], "A: three")
})

test_that("a real empty answer is kept, and one model is enough to generate answers", {
  dir <- withr::local_tempdir()
  writeLines(c('"","question","solo"', '"0","q1",""', '"1","q2","NaN"'),
             file.path(dir, "q_and_as.csv"))
  counter <- new.env()
  counter$n <- 0
  solo <- baseline_chat(function(q) {
    counter$n <- counter$n + 1
    paste("A:", q)
  }, name = "solo")
  answers <- arena_answers(c("q1", "q2"), list(solo = solo), dir,
                           settings = request_settings(cache = FALSE))
  expect_equal(counter$n, 1) # only the NaN one
  expect_equal(answers$solo, c("", "A: q2"))
  expect_equal(arena_read_answers(file.path(dir, "q_and_as.csv"))$solo, c("", "A: q2"))
  arena_answers(c("q1", "q2"), list(solo = solo), dir, settings = request_settings(cache = FALSE))
  expect_equal(counter$n, 1)
  # Battles still need two models.
  expect_error(arena_arrange("q1", "solo"), class = "predictivebench_error_argument")
})

test_that("battles name a model without answers", {
  answers <- tibble::tibble(question = "q1", m1 = "a", m2 = "b")
  expect_error(arena_battles(tibble::tibble(question = "q1", model_a = "m1", model_b = "m9"),
                             answers),
               class = "predictivebench_error_model")
  expect_snapshot(
    arena_battles(tibble::tibble(question = "q1", model_a = "m1", model_b = "m9"), answers),
    error = TRUE
  )
})

test_that("answers are reused only by the same request: same model name at another server answers again", {
  first <- local_fake_openai(function(body, n) paste("first says", last_user_text(body)))
  second <- local_fake_openai(function(body, n) paste("second says", last_user_text(body)))
  dir <- withr::local_tempdir()
  settings <- request_settings(cache = FALSE, rpm = Inf)
  questions <- c("q1", "q2")
  a1 <- arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), dir, settings)
  expect_equal(a1$gpt, c("first says q1", "first says q2"))
  again <- arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), dir, settings)
  expect_equal(first$count(), 2)
  expect_equal(again$gpt, a1$gpt)
  a2 <- arena_answers(questions, list(gpt = fake_chat(second, model = "gpt")), dir, settings)
  expect_equal(second$count(), 2)
  expect_equal(a2$gpt, c("second says q1", "second says q2"))
  # EloBench's layout is kept; the sources file names each answer's request by a hash
  on_disk <- arena_read_answers(file.path(dir, "q_and_as.csv"))
  expect_named(on_disk, c("question", "gpt"))
  expect_equal(on_disk$gpt, a2$gpt)
  sources <- read_answer_sources(file.path(dir, "q_and_as.csv"))
  expect_equal(nrow(sources), 2)
  expect_equal(unique(sources$identity), answer_identity(fake_chat(second, model = "gpt")))
  # the first server's chat now answers again too (its answers were replaced)
  arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), dir, settings)
  expect_equal(first$count(), 4)
})
