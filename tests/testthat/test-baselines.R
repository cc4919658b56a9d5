test_that("baseline chats answer offline, deterministically, as ellmer Chats", {
  chat <- baseline_random(c("A", "B", "C"), template = "\\boxed{%s}", seed = 2)
  expect_s3_class(chat, "Chat")
  first <- chat$chat("Which?")
  expect_match(first, "^\\\\boxed\\{[ABC]\\}$")
  expect_equal(baseline_random(c("A", "B", "C"), "\\boxed{%s}", seed = 2)$chat("Which?"), first)
  answers <- generate_responses(baseline_random(LETTERS[1:4]), paste("q", 1:40),
                                cache = FALSE)$result
  expect_gt(length(unique(answers)), 1)
  expect_equal(baseline_constant("42")$chat("x"), "42")
})

test_that("baseline_echo answers from a column; bad arguments are classed errors", {
  oracle <- baseline_echo(data.frame(input = c("a", "b"), target = c("1", "2")))
  expect_equal(generate_responses(oracle, c("b", "a", "zzz"), cache = FALSE)$result,
               c("2", "1", ""))
  expect_error(baseline_echo(data.frame(x = 1)), class = "predictivebench_error_argument")
  expect_error(baseline_chat("nope"), class = "predictivebench_error_argument")
  bad <- baseline_chat(function(text) 1)
  res <- generate_responses(bad, "q", cache = FALSE)
  expect_true(is.na(res$result))
  expect_match(res$error, "one string")
})

test_that("baselines are never cached, so two that share a name keep their own answers", {
  cache <- withr::local_tempdir()
  first <- generate_responses(baseline_constant("yes"), c("q1", "q2"), cache = cache)
  second <- generate_responses(baseline_constant("no"), c("q1", "q2"), cache = cache)
  expect_equal(first$result, c("yes", "yes"))
  expect_equal(second$result, c("no", "no"))
  expect_false(any(second$cached))
  expect_length(list.files(cache, recursive = TRUE), 0)
})
