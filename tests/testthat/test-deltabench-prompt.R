test_that("the critic prompt is DeltaBench's, filled question first", {
  p <- deltabench_prompt("Q: {{model_output}}?", "section1: 1 + 1 = 3.")
  expect_match(p, "^I will provide you with a question and a robot\u2019s answer, divided")
  expect_match(p, "output in the following format:  \n    Conclusion: no error", fixed = TRUE)
  expect_match(p, "    \u2026 (repeat for each erroneous section)  \n\n\n**example:**", fixed = TRUE)
  expect_match(p, "inequality \\( x + y > 1 \\) is incorrect", fixed = TRUE)
  # as in the original, {{model_output}} inside the question is replaced too
  expect_true(endsWith(p, paste0(
    "**Input:**\n- Question: Q: section1: 1 + 1 = 3.?\n",
    "- Robot's Answer: section1: 1 + 1 = 3.\n- judge result: "
  )))
  expect_equal(nchar(deltabench_prompt("", "")), 3537 - nchar("{{question}}{{model_output}}"))
})

test_that("critiques parse as DeltaBench's script reads them", {
  out <- deltabench_parse(c(
    "Analysis...\nConclusion: yes\nError Section Number: 3\nExplanation: wrong.\nError Section Number: section 12 and 14\nExplanation: also.\nError Section Number: none\nExplanation: -",
    "Conclusion: no error",
    "Conclusion: Yes, there are errors",
    "Conclusion: YES\nError Section Number: 2",
    "Error Section Number: 4 but the conclusion comes later. Conclusion: yes",
    NA, ""
  ))
  expect_equal(out$judge, c(1L, 0L, 1L, 0L, 0L, NA, NA))
  expect_equal(out$sections[[1]], c(3L, 12L, -1L))
  expect_equal(out$sections[[3]], integer())
  expect_equal(out$sections[[4]], integer())
  expect_equal(out$conclusion[[2]], "no error")
})
