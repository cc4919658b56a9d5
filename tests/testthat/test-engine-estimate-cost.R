# The request side of the dry run (R/engine-estimate-cost.R): requests the engine answered in a
# dry-run context, priced and folded into running totals a chunk at a time. The task side is
# test-results-estimate-cost.R.

test_that("folding a dry run's requests chunk by chunk gives the totals of pricing them at once", {
  skip_if_not_installed("rtiktoken")
  chat <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "gpt-4.1",
                                         credentials = function() "unused")
  prompts <- sprintf("Question %d: what is %d + %d?", 1:6, 1:6, 6:1)
  send <- function(context, at) {
    with_dry_run_mock(context, generate_responses(chat, prompts[at],
                                                  settings = request_settings(cache = FALSE)))
  }
  once <- new_dry_run()
  send(once, 1:6)
  whole <- dry_run_costs(once, list(chat), FALSE)
  folded <- new_dry_run()
  send(folded, 1:3)
  dry_run_fold(folded, list(chat), FALSE)
  # a folded chunk's texts leave the context; what it cost stays in the totals
  expect_length(folded$chunks, 0)
  expect_equal(folded$tally$n, 3L)
  send(folded, c(4:6, 1))  # a request asked again in a later chunk is sent once
  expect_equal(dry_run_costs(folded, list(chat), FALSE), whole)
  expect_equal(whole$n, 6L)
  expect_equal(whole$how, "exact")
})
