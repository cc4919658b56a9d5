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
