test_that("the normalization prompt puts the ground truth and the prediction first", {
  prompt <- futurex_normalize_prompt("10362 millions yuan", "10362000000")
  expect_true(startsWith(prompt, " \nGround Truth: 10362 millions yuan\nPrediction: 10362000000\n\n"))
  expect_true(endsWith(prompt, "Now normalize:\n"))
  expect_match(prompt, "GROUND_TRUTH_VALUE: [number]", fixed = TRUE)
  # vectorised over items
  expect_length(futurex_normalize_prompt(c("1", "2"), c("3", "4")), 2)
})
