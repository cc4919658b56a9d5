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
  expect_error(baseline_chat(1), class = "predictivebench_error_argument")
  bad <- baseline_chat(function(text) 1)
  res <- generate_responses(bad, "q", cache = FALSE)
  expect_true(is.na(res$result))
  expect_match(res$error, "one string")
})

test_that("baseline_chat() with no argument answers every prompt with nothing", {
  empty <- baseline_chat()
  expect_s3_class(empty, "Chat")
  expect_equal(empty$get_model(), "baseline-empty")
  expect_equal(generate_responses(empty, c("a", "b"), cache = FALSE)$result, c("", ""))
  # a task runs end to end with it
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat(), view = FALSE)
  expect_equal(nrow(tsk$get_samples()), 3L)
  expect_true(file.exists(tsk$log_path))
})

test_that("baseline_chat() takes a string, a function or choices", {
  expect_equal(baseline_chat("42")$chat("anything"), "42")
  expect_equal(baseline_chat("42")$get_model(), "baseline-constant")
  gold <- data.frame(input = c("a", "b"), target = c("1", "2"))
  oracle <- baseline_chat(function(prompt) gold$target[match(prompt, gold$input)], "oracle")
  expect_equal(generate_responses(oracle, c("b", "a"), cache = FALSE)$result, c("2", "1"))
  expect_equal(oracle$get_model(), "oracle")
  guess <- baseline_chat(choices = c("A", "B"), template = "<%s>", seed = 3)
  expect_equal(guess$get_model(), "baseline-random-3")
  expect_equal(guess$chat("q7"),
               baseline_random(c("A", "B"), template = "<%s>", seed = 3)$chat("q7"))
  answers <- generate_responses(guess, paste("q", 1:40), cache = FALSE)$result
  expect_setequal(unique(answers), c("<A>", "<B>"))
  expect_error(baseline_chat(choices = character()), class = "predictivebench_error_argument")
  expect_error(baseline_chat("A", choices = c("A", "B")), "not both",
               class = "predictivebench_error_argument")
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

test_that("baselines answer inside vitals::generate() and ellmer::parallel_chat(), offline", {
  ds <- tibble::tibble(input = c("2+2?", "3+3?", "4+4?"), target = c("4", "6", "8"))
  tsk <- vitals::Task$new(dataset = ds, solver = vitals::generate(),
                          scorer = vitals::detect_exact(), dir = withr::local_tempdir())
  oracle <- baseline_echo(ds)
  # No network: any request that is not answered locally fails at once.
  withr::local_envvar(http_proxy = "http://127.0.0.1:9", https_proxy = "http://127.0.0.1:9")
  oracle$with_answers(tsk$eval(solver_chat = oracle, view = FALSE))
  samples <- tsk$get_samples()
  expect_equal(samples$result, c("4", "6", "8"))
  expect_true(all(samples$score == "C"))
  # vitals' model-graded scorer sends through the same path.
  judge <- baseline_constant("GRADE: C")
  graded <- vitals::Task$new(
    dataset = ds, solver = vitals::generate(), dir = withr::local_tempdir(),
    scorer = vitals::model_graded_qa(scorer_chat = judge)
  )
  judge$with_answers(oracle$with_answers(graded$eval(solver_chat = oracle, view = FALSE)))
  expect_true(all(graded$get_samples()$score == "C"))
  no <- baseline_constant("no")
  chats <- no$with_answers(ellmer::parallel_chat(no, list("a", "b")))
  expect_equal(vapply(chats, function(ch) ch$last_turn()@text, ""), c("no", "no"))
  # The answering mock is gone once with_answers() returns.
  expect_null(getOption("httr2_mock"))
})

test_that("a baseline's get_provider() is a getter: it leaves its caller's options alone", {
  chat <- baseline_chat("x")
  asked <- function() {
    provider <- chat$get_provider()
    list(provider = provider, mock = getOption("httr2_mock"))
  }
  got <- asked()
  expect_null(got$mock)
  expect_identical(got$provider@base_url, chat$base_url)
})

test_that("a task of the package answers its baselines for a solver of the user's own", {
  solver <- function(inputs, ..., solver_chat) {
    chats <- ellmer::parallel_chat(solver_chat$clone(), as.list(inputs))
    list(result = vapply(chats, function(ch) ch$last_turn()@text, ""), solver_chat = chats)
  }
  withr::local_envvar(http_proxy = "http://127.0.0.1:9", https_proxy = "http://127.0.0.1:9")
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2), solver = solver,
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE)
  expect_equal(tsk$get_samples()$result, rep("\\boxed{A}", 2))
  expect_null(getOption("httr2_mock"))
})

test_that("two baselines in one session keep their own answers; other requests pass", {
  yes <- baseline_constant("yes")
  no <- baseline_constant("no")
  expect_false(identical(yes$base_url, no$base_url))
  both <- function(code) yes$with_answers(no$with_answers(code))
  expect_equal(both(ellmer::parallel_chat_text(yes, list("q"))), "yes")
  expect_equal(both(ellmer::parallel_chat_text(no, list("q"))), "no")
  # The mock answers only its own address and hands other requests to the one before it.
  before <- function(req) httr2::response(status_code = 418)
  mock <- baseline_mock(yes, before)
  other <- httr2::request("http://example.invalid/v1/chat/completions")
  expect_equal(httr2::resp_status(mock(other)), 418)
  expect_null(baseline_mock(yes)(other))
})

test_that("a baseline responder's error comes back as a failed request", {
  bad <- baseline_chat(function(text) 1)
  expect_warning(
    res <- bad$with_answers(ellmer::parallel_chat(bad, list("q"), on_error = "return")),
    "errored"
  )
  expect_s3_class(res[[1]], "error")
  expect_match(conditionMessage(res[[1]]), "one string")
})
