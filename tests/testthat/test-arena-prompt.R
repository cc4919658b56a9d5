test_that("the judge prompt is EloBench's, filled and split as the original does", {
  p <- arena_judge_prompt("What is 2+2?", "4", "five")
  expect_equal(p$system,
               "You are a helpful assistant who can evaluate Large Language Model (LLM) responses.")
  expect_true(startsWith(p$user, "Task: \n\nEvaluate Large Language Model (LLM) Responses \n\n"))
  expect_true(endsWith(p$user, "Response of LLM-2: \n\n``` \n\nfive \n\n```"))
  expect_match(p$user, "User-submitted Question: \n\n``` \n\nWhat is 2+2? \n\n```", fixed = TRUE)
  expect_match(p$user, "`winner`: Use an integer (1 if LLM-1", fixed = TRUE)
  # Placeholders are replaced in order, as str.replace does: text in the question that looks
  # like a later placeholder is replaced too.
  odd <- arena_judge_prompt("Say {llm_response_1}", "A", "B")
  expect_match(odd$user, "Say A", fixed = TRUE)
  old <- arena_judge_prompt("Q", "x", "y", version = "231113")
  expect_equal(old$system, "You are a helpful assistant.")
  expect_true(startsWith(old$user, "Given two responses from different models"))
  expect_true(endsWith(old$user, "GPT-4's Evaluation and Scoring:"))
  expect_match(old$user, "Model 1's Answer:\nx\n\nModel 2's Answer:\ny\n\n", fixed = TRUE)
  expect_length(arena_judge_prompt(c("a", "b"), "x", "y")$user, 2)
})

test_that("verdicts map to the original winners", {
  v <- arena_parse_verdict(c(
    '{"winner": 1, "explanation": "x"}', '{"winner": 2}', '{"winner": 0}', '{"winner": -1}',
    '{"winner": 3}', '{"winner": "first"}', '{"winner": "2"}',
    '```json\n{"winner": 2, "explanation": "y"}\n```',
    "- Score of Model 1: 1\n- Score of Model 2: 0", "Score for Model 1: 0\nScore for Model 2: 1",
    "- Score of Model 1: 0.5\n- Score of Model 2: 0.5", "- Score of Model 1: 0\n- Score of Model 2: 0",
    "- Score of Model 1: 1\n- Score of Model 2: 1", "I cannot decide.", NA
  ))
  expect_equal(v$winner, c("model_a", "model_b", "tie", "tie(all bad)", "invalid", "invalid",
                           "invalid", "model_b", "model_a", "model_b", "tie", "tie(all bad)",
                           "invalid", "invalid", NA))
  expect_equal(v$gpt_4_score[[9]], "{'model_a': '1', 'model_b': '0'}")
  expect_equal(v$format[c(1, 7, 9, 14)], c("json", "json", "score", NA))
  # A JSON number written with a decimal point is still the number (as in Python).
  expect_equal(arena_parse_verdict('{"winner": 2.0}')$winner, "model_b")
})

test_that("judge prompts pasted between the template's pieces are the original's filling", {
  q <- c("What?", "  spaced  ", "with {llm_response_1} inside", "déjà ✓", "", "line\nbreak",
         "<|im_end|> marker", "tab\t", "{question}")
  a <- c("A", "", "  x ", "{user_submitted_question}", "b", "\n", "ok", "z", "{model1_answer}")
  b <- rev(a)
  for (version in c("231225", "231113")) {
    prompts <- arena_judge_prompt(q, a, b, version)
    one_by_one <- vapply(seq_along(q), function(i) {
      fill_judge_template(version, c(q[[i]], a[[i]], b[[i]]))$user
    }, "")
    expect_identical(prompts$user, one_by_one)
    expect_identical(prompts$system, fill_judge_template(version, c("", "", ""))$system)
    # a placeholder inside a value is filled in order, as the original's str.replace() does
    if (version == "231225") expect_match(prompts$user[[3]], "with   x  inside", fixed = TRUE)
  }
  expect_identical(arena_judge_prompt(character(), character(), character())$user, character())
})
