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

test_that("max_cost's refusal shows money rounded: cents from a dollar up, 4 digits below", {
  preview <- tibble::tibble(benchmark = c("futurex", "processbench"), model = "m/x",
                            to_send = c(11, 64), cost_max = c(0.0181148, 0.1073536))
  err <- expect_error(check_max_cost(preview, sum(preview$cost_max) / 2),
                      class = "predictivebench_error_cost")
  said <- cli::ansi_strip(conditionMessage(err))
  expect_match(said, "up to $0.1255, above `max_cost` = $0.06273", fixed = TRUE)
  expect_no_match(said, "0627342", fixed = TRUE)
  expect_equal(format_dollars(c(0.5, 0.99999, 12.345678, 1234.5, 0)),
               c("$0.5", "$1.00", "$12.35", "$1,234.50", "$0.00"))
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
  dataset <- futurex_dataset(version = "sample", limit = 3)
  questions <- dataset$input
  judge_prompt <- function(answer) paste("Is this answer right?", answer)
  # a judge inside the task's scorer, as a benchmark's judge is
  scorer <- function(samples, ...) {
    verdicts <- generate_responses(judge, judge_prompt(samples$result), ...)
    list(score = as.double(verdicts$result %in% "A"))
  }
  task <- futurex_task(dataset, scorer = scorer, dir = logs)
  # by hand: each message's tokens plus 3, plus 3 to start the reply; the judge sees the
  # dry run's empty answer; each request's output bound is its chat's max_tokens
  tokens <- function(text, model) rtiktoken::get_token_count(text, tiktoken_encoding(model))
  solver_in <- sum(tokens(questions, "gpt-4.1-nano")) + 6 * 3
  judge_in <- 3 * (tokens(judge_prompt(""), "o1") + 6)
  right <- (solver_in * cheap$input + 3 * 50 * cheap$output +
              judge_in * dear$input + 3 * 20 * dear$output) / 1e6
  wrong <- ((solver_in + judge_in) * cheap$input + 3 * (50 + 20) * cheap$output) / 1e6

  preview <- eval_set(list(qa = task), list(solver), log_dir = logs, settings = settings, options = set_options(dry_run = TRUE))
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

# A server that reports, as a provider would, the tokens OpenAI's tokenizer counts in each
# request (each message's text, plus 3 per message and 3 to start the reply) and an answer
# as long as the request's bound allows: the usage the estimate's bound assumes.
local_counting_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    messages <- body$input %||% body$messages
    texts <- vapply(messages, function(m) {
      leaves <- unlist(m$content)
      names <- names(leaves) %||% rep("", length(leaves))
      paste(leaves[names %in% c("", "text")], collapse = "")
    }, "")
    tokens <- sum(rtiktoken::get_token_count(texts, "o200k_base")) + 3 * length(texts) + 3
    list(text = "\\boxed{A}", usage = list(
      prompt_tokens = as.integer(tokens),
      completion_tokens = as.integer(body$max_output_tokens %||% body$max_tokens %||% 5L)
    ))
  }, .local_envir = .local_envir)
}

test_that("a set's cost column, its logs' model usage and the estimate agree; a rerun costs 0", {
  skip_if_not_installed("rtiktoken")
  server <- local_counting_server()
  cache <- withr::local_tempdir()
  settings <- set_settings(cache)
  chat <- ellmer::chat_openai(model = "gpt-4.1-nano", base_url = server$url,
                              credentials = function() "sk-test",
                              params = ellmer::params(max_tokens = 40))
  skip_if(is.null(model_price(chat)), "ellmer has no price for gpt-4.1-nano")
  logs <- withr::local_tempdir()
  preview <- eval_set("futurex@sample", list(chat), log_dir = logs, settings = settings, options = set_options(limit = 3, dry_run = TRUE))
  expect_equal(preview$to_send, 3L)
  set <- quiet_set("futurex@sample", list(chat), log_dir = logs, settings = settings, limit = 3)
  expect_equal(server$count(), 3)
  expect_gt(set$cost, 0)
  expect_equal(set$cost, preview$cost_max)
  usage <- log_usage(set$log_path)
  expect_equal(sum(usage$total_cost), set$cost)
  expect_equal(sum(usage$input_tokens), preview$input_tokens)
  expect_equal(sum(usage$output_tokens), preview$output_tokens_max)

  # the same cell in another folder, every answer cached: nothing to pay, and nothing paid
  again_logs <- withr::local_tempdir()
  warm <- eval_set("futurex@sample", list(chat), log_dir = again_logs, settings = settings, options = set_options(limit = 3, dry_run = TRUE))
  expect_equal(c(warm$to_send, warm$cached, warm$cost_max), c(0, 3, 0))
  again <- quiet_set("futurex@sample", list(chat), log_dir = again_logs, settings = settings,
                     limit = 3)
  expect_equal(server$count(), 3)
  expect_equal(again$status, "done")
  expect_equal(again$cost, 0)
  expect_equal(sum(log_usage(again$log_path)$total_cost %|NA|% 0), 0)
})

test_that("a model without a price: the estimate and the set's cost are NA, not 0", {
  skip_if_not_installed("rtiktoken")
  server <- local_counting_server()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, "unpriced-model")
  logs <- withr::local_tempdir()
  preview <- eval_set("futurex@sample", chats, log_dir = logs, settings = settings, options = set_options(limit = 2, dry_run = TRUE))
  expect_true(is.na(preview$cost_max))
  set <- quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 2)
  expect_equal(set$status, "done")
  expect_true(is.na(set$cost))
})

test_that("the closing arena is in the preview and under max_cost: its most requests, priced", {
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "o1")) '{"winner": 1, "explanation": "first"}' else "An answer."
  })
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  priced <- function(model, max_tokens) {
    ellmer::chat_openai(model = model, base_url = server$url, credentials = function() "sk-test",
                        params = ellmer::params(max_tokens = max_tokens))
  }
  models <- list(priced("gpt-4.1-nano", 50), priced("gpt-4.1-mini", 50))
  judge <- priced("o1", 20)
  skip_if(is.null(model_price(judge)) || is.null(model_price(models[[1]])),
          "ellmer has no price for o1 or gpt-4.1-nano")
  questions <- data.frame(question = c("Name a fruit.", "Name a colour.", "Say hello."))
  arena <- list(dataset = questions, n = 1, max_rounds = 2, times = 0)
  preview <- eval_set("futurex@sample", models, log_dir = logs, settings = settings,
                      judge = judge, arena = arena, options = set_options(limit = 1, dry_run = TRUE))
  expect_equal(server$count(), 0)
  row <- preview[preview$benchmark == "arena_run", ]
  expect_equal(nrow(row), 1L)
  # no placeholder verdict is decisive, so the two rounds run in full: one pair, a new
  # question a round, each answered by both models (4 answers) and judged (2 verdicts)
  expect_equal(row$to_send, 6L)
  expect_gt(row$cost_max, 0)
  expect_gt(row$output_tokens_max, 0)
  # each answer's bound is its model's (50); the arena's judge is asked for at most 800
  # tokens, EloBench's, whatever its chat says
  expect_equal(row$output_tokens_max, 4 * 50 + 2 * 800)
  # each verdict's input holds two answers of the longest a model may give (50 tokens each)
  expect_gte(row$input_tokens, 2 * 2 * 50)
  terse <- list(priced("gpt-4.1-nano", 10), priced("gpt-4.1-mini", 10))
  shorter <- eval_set("futurex@sample", terse, log_dir = logs, settings = settings,
                      judge = judge, arena = arena, options = set_options(limit = 1, dry_run = TRUE))
  expect_equal(row$input_tokens - shorter$input_tokens[shorter$benchmark == "arena_run"],
               2 * 2 * (50 - 10))
  cells <- sum(preview$cost_max[preview$benchmark != "arena_run"])
  # a budget that covers the cells but not the arena refuses the set before any request
  expect_error(quiet_set("futurex@sample", models, log_dir = logs, limit = 1,
                         settings = settings, judge = judge, arena = arena,
                         max_cost = cells + row$cost_max / 2),
               class = "predictivebench_error_cost")
  expect_equal(server$count(), 0)
  set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1, settings = settings,
                   judge = judge, arena = arena, max_cost = (cells + row$cost_max) * 1.01)
  run <- attr(set, "arena_run")
  expect_s3_class(run, "arena_run")
  # the real run (decisive verdicts: one round) sends no more than the preview counted
  expect_lte(nrow(run$records) + sum(!is.na(unlist(run$answers[-1]))), row$to_send)
})

test_that("a set's preview gives each column one type: cells done, cached or to send alike", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  chats <- set_chats(server, "m1")
  quiet_set("futurex@sample", chats, log_dir = logs, settings = settings, limit = 2)
  # one cell done, one whose answers are all cached (another folder), one to send
  mixed <- quiet_set(c("futurex@sample", "processbench@sample"), chats, log_dir = logs,
                     settings = settings, limit = 2, dry_run = TRUE)
  cached <- quiet_set("futurex@sample", chats, log_dir = withr::local_tempdir(),
                      settings = settings, limit = 2, dry_run = TRUE)
  expect_equal(mixed$status, c("done", "to run"))
  expect_equal(cached$to_send, 0L)
  types <- function(x) vapply(x, typeof, "")
  expect_equal(types(cached), types(mixed))
  expect_equal(unname(types(mixed)[c("requests", "cached", "to_send", "input_tokens",
                                     "output_tokens_max", "cost_max")]),
               c(rep("integer", 3), rep("double", 3)))
  expect_equal(server$count(), 2)
})
