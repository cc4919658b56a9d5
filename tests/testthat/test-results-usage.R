test_that("usage_metadata() sums a sample's requests; cached ones cost nothing", {
  res <- tibble::tibble(cached = c(TRUE, FALSE, FALSE), input_tokens = c(0, 10, 12),
                        output_tokens = c(0, 3, NA), cost = c(0, 0.5, 0.25))
  expect_equal(usage_metadata(res, 2:3),
               list(cached = FALSE, input_tokens = 22, output_tokens = 3, cost = 0.75))
  expect_true(usage_metadata(res, 1)$cached)
  expect_error(usage_metadata(data.frame(x = 1)), class = "predictivebench_error_argument")
})

test_that("set_chat_usage() puts a total on the last assistant turn, counting earlier ones", {
  chat <- baseline_constant("x")
  chat$set_turns(list(
    user_turn_of("q"),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("tool?")), tokens = c(5, 1, 0),
                          cost = 0.1),
    user_turn_of("result"),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText("done")), tokens = c(6, 2, 0),
                          cost = 0.1)
  ))
  updated <- set_chat_usage(chat, input_tokens = 40, output_tokens = 9, cost = 1)
  tokens <- updated$get_tokens()
  expect_equal(sum(tokens$input), 40)
  expect_equal(sum(tokens$output), 9)
  expect_equal(updated$last_turn()@text, "done")
  expect_equal(sum(chat$get_tokens()$input), 11)  # the original is unchanged
})

test_that("a request paid at no known price costs NA in the log, never 0", {
  # ellmer's cost is NA for a model it has no price for; a turn without tokens cost nothing
  paid <- ellmer::AssistantTurn(contents = list(ellmer::ContentText("a")),
                                tokens = c(10, 2, 0), cost = NA_real_)
  free <- ellmer::AssistantTurn(contents = list(ellmer::ContentText("b")),
                                tokens = c(0, 0, 0), cost = NA_real_)
  expect_equal(turn_usage(list(free)), c(0, 0, 0))
  expect_equal(turn_usage(list(paid, free))[1:2], c(10, 2))
  expect_true(is.na(turn_usage(list(paid, free))[[3]]))
  # a model's total: unknown when one of its paid requests has no price, though others were
  # cached (0); rows without tokens or cost (a scorer that sent nothing) change nothing
  usage <- rbind(c(10, 2, NA), c(0, 0, 0), c(0, 0, NA))
  expect_null(usage_entries(usage, rep("m", 3))$m$total_cost)
  expect_equal(usage_entries(usage[2:3, ], rep("m", 2))$m$total_cost, 0)
  expect_equal(usage_entries(rbind(c(10, 2, 0.5), c(0, 0, NA)), c("m", "m"))$m$total_cost,
               0.5)
})

test_that("a solver of the user's that sends its own requests logs NA for a model without a price", {
  server <- local_fake_openai(function(body, n) {
    list(text = "4", usage = list(prompt_tokens = 5, completion_tokens = 1))
  })
  # what vitals::generate() does, outside vitals: the package leaves it as it is
  solver <- function(inputs, ..., solver_chat) {
    chats <- ellmer::parallel_chat(solver_chat$clone(), as.list(inputs))
    list(result = vapply(chats, function(ch) ch$last_turn()@text, ""), solver_chat = chats)
  }
  tsk <- arith_task(solver = solver, dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_equal(server$count(), 4)
  usage <- log_usage(tsk$log_path)
  expect_equal(usage$input_tokens, 20)
  expect_true(is.na(usage$total_cost))
})
