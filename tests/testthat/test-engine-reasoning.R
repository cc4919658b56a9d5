test_that("the answer is the text after the thinking, which is kept apart", {
  parts <- answer_parts("<think>First guess \\boxed{X}</think>\n\\boxed{Y}")
  expect_equal(parts$answer, "\\boxed{Y}")
  expect_equal(parts$reasoning, "First guess \\boxed{X}")
  expect_false(parts$unfinished)
  # a server whose chat template opened the block in the prompt returns only its end
  parts <- answer_parts("Let me see... \\boxed{X}\n</think>\n\nThe answer: \\boxed{Y}")
  expect_equal(parts$answer, "The answer: \\boxed{Y}")
  expect_equal(parts$reasoning, "Let me see... \\boxed{X}")
  # two blocks, and <thinking> as some models write it
  parts <- answer_parts("<thinking>a</thinking>B <think>c</think> D")
  expect_equal(parts$answer, "B  D")
  expect_equal(parts$reasoning, "a\n\nc")
})

test_that("an answer only inside unfinished thinking is no answer", {
  parts <- answer_parts("<think>I think \\boxed{Y} but let me check")
  expect_equal(parts$answer, "")
  expect_equal(parts$reasoning, "I think \\boxed{Y} but let me check")
  expect_true(parts$unfinished)
  answer <- entry_answer(list(text = "<think>\\boxed{Y}", finish_reason = "length"))
  expect_equal(answer$answer, "")
  expect_true(answer$truncated)
})

test_that("text without thinking is left exactly as it is", {
  text <- "  \\boxed{A}\n"
  expect_identical(answer_parts(text)$answer, text)
  expect_true(is.na(answer_parts(text)$reasoning))
  expect_identical(answer_parts(NA_character_)$answer, NA_character_)
  # a provider's separate reasoning field is kept as the reasoning
  answer <- entry_answer(list(text = "\\boxed{B}", reasoning = "hmm", finish_reason = "stop"))
  expect_equal(answer[c("answer", "reasoning")], list(answer = "\\boxed{B}", reasoning = "hmm"))
  expect_false(answer$truncated)
  # an answer stopped at the token limit is truncated, whatever its text
  expect_true(entry_answer(list(text = "\\boxed{B", finish_reason = "length"))$truncated)
  # as ellmer normalises a server's "length"
  expect_true(entry_answer(list(text = "\\boxed{B", finish_reason = "max_tokens"))$truncated)
  # records cached before these fields were kept read as finished answers
  expect_false(entry_answer(list(text = "x"))$truncated)
  expect_true(is.na(entry_answer(NULL)$truncated))
})

test_that("a turn keeps its reasoning as ellmer's thinking content, apart from the answer", {
  turn <- ellmer::AssistantTurn(contents = list(ellmer::ContentText("<think>r</think>A")),
                                tokens = c(1, 2, 0), cost = 0.5)
  parts <- answer_parts(turn@text)
  kept <- turn_with_reasoning(turn, parts$answer, parts$reasoning)
  expect_true(S7::S7_inherits(kept@contents[[1]], ellmer::ContentThinking))
  expect_equal(kept@contents[[1]]@thinking, "r")
  expect_equal(kept@contents[[2]]@text, "A")
  expect_equal(kept@tokens, turn@tokens)
  expect_identical(turn_with_reasoning(turn, "A", NA_character_), turn)
})
