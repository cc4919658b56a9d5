test_that("the baseline judge reads both answers from either prompt version", {
  verdict <- function(judge, a, b, version = "231225") {
    p <- arena_judge_prompt("Q?", a, b, version = version)
    arena_parse_verdict(judge$chat(p$user, echo = "none"))$winner
  }
  longer <- arena_baseline_judge("longer")
  expect_equal(verdict(longer, "a long answer", "short"), "model_a")
  expect_equal(verdict(longer, "short", "a long answer"), "model_b")
  expect_equal(verdict(longer, "same", "also"), "tie")
  expect_equal(verdict(longer, "", ""), "tie(all bad)")
  # Multi-line answers with code fences inside stay whole.
  expect_equal(verdict(longer, "x\n```\ny\n```", "short"), "model_a")
  for (v in c("231225", "231113")) {
    expect_equal(verdict(longer, "short", "a long answer", v), "model_b", info = v)
    expect_equal(verdict(longer, "", "", v), "tie(all bad)", info = v)
  }
  first <- arena_baseline_judge("first")
  expect_equal(verdict(first, "", "a long answer"), "model_a")
  expect_equal(verdict(first, "", "a long answer", "231113"), "model_a")
})

test_that("the random baseline judge depends only on the prompt and the seed", {
  prompts <- arena_judge_prompt(paste("Question", 1:30), "x", "y")$user
  judge_with <- function(seed) {
    judge <- arena_baseline_judge("random", seed = seed)
    vapply(prompts, function(p) judge$clone()$chat(p, echo = "none"), "", USE.NAMES = FALSE)
  }
  one <- arena_parse_verdict(judge_with(1))$winner
  expect_equal(one, arena_parse_verdict(judge_with(1))$winner)
  expect_setequal(unique(one), c("model_a", "model_b", "tie"))
  expect_false(identical(one, arena_parse_verdict(judge_with(2))$winner))
  expect_error(arena_baseline_judge("loudest"))
})
