# arena_answers(questions, models, settings): every answer is a request through the response
# cache, the one store of answers. A real chat at a local fake server counts what is sent.

# A server answering "A: <question>" (the model's name with `named`), an empty answer to
# "empty" and HTTP 400 to a question containing "fail".
answer_server <- function(named = FALSE, .local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    q <- last_user_text(body)
    if (grepl("fail", q)) return(list(status = 400))
    if (identical(q, "empty")) return("")
    paste0(if (named) paste0(body$model, " ") else "", "A: ", q)
  }, .local_envir = .local_envir)
}

test_that("answers: failures stay NA and are asked again, answers are not", {
  server <- answer_server()
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf, retry = list(max_tries = 1))
  models <- list(flaky = fake_chat(server, model = "flaky"))
  questions <- c("one", "two", "please fail")
  answers <- suppressWarnings(arena_answers(questions, models, settings))
  expect_equal(names(answers), c("question", "flaky"))
  expect_equal(answers$question, questions)
  expect_equal(answers$flaky, c("A: one", "A: two", NA))
  expect_equal(server$count(), 3)
  # a second call: the failed one and the new one are sent, the answers are read back
  again <- suppressWarnings(arena_answers(c(questions, "three"), models, settings))
  expect_equal(server$count(), 3 + 2)
  expect_equal(again$flaky, c("A: one", "A: two", NA, "A: three"))
  # repeated questions are one request each
  twice <- suppressWarnings(arena_answers(c("one", "one", "three"), models, settings))
  expect_equal(twice$question, c("one", "three"))
  expect_equal(server$count(), 5)
})

test_that("a real empty answer is kept, and one model is enough to generate answers", {
  server <- answer_server()
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf, retry = list(max_tries = 1))
  solo <- list(solo = fake_chat(server, model = "solo"))
  answers <- arena_answers(c("empty", "q2"), solo, settings)
  expect_equal(answers$solo, c("", "A: q2"))  # "" is an answer, not NA
  expect_equal(server$count(), 2)
  again <- arena_answers(c("empty", "q2"), solo, settings)
  expect_equal(again$solo, c("", "A: q2"))
  expect_equal(server$count(), 2)  # the empty answer is not asked for again
  # no question: nothing is sent, the columns are there
  none <- arena_answers(character(), solo, settings)
  expect_equal(names(none), c("question", "solo"))
  expect_equal(nrow(none), 0)
  # Battles still need two models; answers need one.
  expect_error(arena_answers("q1", list(), settings), class = "predictivebench_error_argument")
  expect_error(arena_arrange("q1", "solo"), class = "predictivebench_error_argument")
})

test_that("baseline chats answer offline every time: they are never cached", {
  counter <- new.env()
  counter$n <- 0
  base <- baseline_chat(function(q) {
    counter$n <- counter$n + 1
    if (grepl("fail", q)) stop("boom")
    paste("B:", q)
  }, name = "base")
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  answers <- suppressWarnings(arena_answers(c("one", "please fail"), list(base = base),
                                            settings))
  expect_equal(answers$base, c("B: one", NA))
  suppressWarnings(arena_answers(c("one", "please fail"), list(base = base), settings))
  expect_equal(counter$n, 4)
  expect_length(list.files(settings$cache, recursive = TRUE, pattern = "[.]rds$"), 0)
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
  settings <- request_settings(cache = withr::local_tempdir(), rpm = Inf)
  questions <- c("q1", "q2")
  a1 <- arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), settings)
  expect_equal(a1$gpt, c("first says q1", "first says q2"))
  expect_equal(first$count(), 2)
  again <- arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), settings)
  expect_equal(first$count(), 2)
  expect_equal(again$gpt, a1$gpt)
  # the same model name at another base URL: every question is asked there
  a2 <- arena_answers(questions, list(gpt = fake_chat(second, model = "gpt")), settings)
  expect_equal(second$count(), 2)
  expect_equal(a2$gpt, c("second says q1", "second says q2"))
  # both are kept, each under its own request: the first server's answers are still reused
  back <- arena_answers(questions, list(gpt = fake_chat(first, model = "gpt")), settings)
  expect_equal(first$count(), 2)
  expect_equal(back$gpt, a1$gpt)
  # other parameters or a system prompt are other requests too
  arena_answers(questions, list(gpt = fake_chat(first, model = "gpt",
                                                params = ellmer::params(temperature = 0.5))),
                settings)
  arena_answers(questions, list(gpt = fake_chat(first, model = "gpt", system_prompt = "Brief.")),
                settings)
  expect_equal(first$count(), 6)
  # two models in one call: one pool, each model's own requests
  both <- arena_answers(c(questions, "q3"), list(a = fake_chat(first, model = "gpt"),
                                                 b = fake_chat(second, model = "gpt")),
                        settings)
  expect_equal(both$a, c(a1$gpt, "first says q3"))
  expect_equal(both$b, c(a2$gpt, "second says q3"))
  expect_equal(c(first$count(), second$count()), c(7, 3))
  # nothing is written beside the response cache: no EloBench file
  expect_length(list.files(settings$cache, pattern = "csv$", recursive = TRUE), 0)
})

test_that("answers already known are kept and not asked for again, also without a cache", {
  server <- local_fake_openai(function(body, n) paste("fresh answer of", body$model))
  models <- list(a = fake_chat(server, "a"), b = fake_chat(server, "b"))
  known <- tibble::tibble(question = c("q1", "q2"), a = c("old a1", NA), b = c("", "old b2"))
  answers <- arena_answers(c("q1", "q2", "q3"), models, request_settings(cache = FALSE),
                           known = known)
  expect_equal(answers$a, c("old a1", "fresh answer of a", "fresh answer of a"))
  expect_equal(answers$b, c("", "old b2", "fresh answer of b"))
  # only the three missing answers were asked for
  expect_equal(server$count(), 3)
})
