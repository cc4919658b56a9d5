test_that("max_cost refuses a set whose preview is above it, or can't be bounded", {
  preview <- tibble::tibble(benchmark = c("futurex", "dsbench"), model = "m/x",
                            to_send = c(2, 3), cost_max = c(0.5, 0.75))
  expect_error(check_max_cost(preview, 1), class = "predictivebench_error_cost")
  expect_identical(check_max_cost(preview, 2), preview)
  # a cell with nothing to send costs nothing, even unpriced
  done <- tibble::tibble(benchmark = "futurex", model = "m/x", to_send = 0, cost_max = NA_real_)
  expect_identical(check_max_cost(rbind(preview, done), 2), rbind(preview, done))
  unpriced <- preview
  unpriced$cost_max[[2]] <- NA
  expect_error(check_max_cost(unpriced, 100), "unknown", class = "predictivebench_error_cost")
})

test_that("the preview prices each role at its own model: a cheap solver, an expensive judge", {
  server <- local_fake_openai(function(body, n) "A")
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  priced <- function(model, max_tokens) {
    ellmer::chat_openai(model = model, base_url = server$url, credentials = function() "sk-test",
                        params = ellmer::params(max_tokens = max_tokens))
  }
  solver <- priced("gpt-4.1-nano", 50)
  judge <- priced("o1", 20)
  cheap <- model_price(solver)
  dear <- model_price(judge)
  skip_if(is.null(cheap) || is.null(dear), "ellmer has no price for gpt-4.1-nano or o1")
  skip_if_not_installed("rtiktoken")
  questions <- c("What is 2 + 2?", "Name a prime number.", "Spell cat backwards.")
  judge_prompt <- function(answer) paste("Is this answer right?", answer)
  # a judge inside the task's scorer, as a benchmark's judge is
  scorer <- function(samples, ...) {
    verdicts <- generate_responses(judge, judge_prompt(samples$result), ...)
    list(score = factor(ifelse(verdicts$result == "A", "C", "I"), levels = c("I", "C"),
                        ordered = TRUE))
  }
  task <- vitals::Task$new(dataset = tibble::tibble(input = questions, target = "A"),
                           solver = generate_solver(), scorer = scorer, dir = logs)
  # by hand: each message's tokens plus 3, plus 3 to start the reply; the judge sees the
  # dry run's empty answer; each request's output bound is its chat's max_tokens
  tokens <- function(text, model) rtiktoken::get_token_count(text, tiktoken_encoding(model))
  solver_in <- sum(tokens(questions, "gpt-4.1-nano")) + 6 * 3
  judge_in <- 3 * (tokens(judge_prompt(""), "o1") + 6)
  right <- (solver_in * cheap$input + 3 * 50 * cheap$output +
              judge_in * dear$input + 3 * 20 * dear$output) / 1e6
  wrong <- ((solver_in + judge_in) * cheap$input + 3 * (50 + 20) * cheap$output) / 1e6

  preview <- eval_set(list(qa = task), list(solver), log_dir = logs, settings = settings,
                      dry_run = TRUE)
  expect_equal(preview$to_send, 6L)
  expect_equal(preview$input_tokens, solver_in + judge_in)
  expect_equal(preview$cost_max, right)
  expect_equal(server$count(), 0)
  # a budget between the judge priced as the solver and the true bound: refused, unpaid
  expect_error(quiet_set(list(qa = task), list(solver), log_dir = logs, settings = settings,
                         max_cost = (wrong + right) / 2),
               class = "predictivebench_error_cost")
  expect_equal(server$count(), 0)
  set <- quiet_set(list(qa = task), list(solver), log_dir = logs, settings = settings,
                   max_cost = right * 1.01)
  expect_equal(set$status, "done")
  expect_equal(server$count(), 6)
})
