test_that("winners in FastChat's and the failed spellings read as EloBench's", {
  winner <- normalize_winner(c("model_a", "tie (bothbad)", "tie(bothbad)", "NaN", "", NA,
                               "invalid"))
  expect_equal(winner, c("model_a", "tie(all bad)", "tie(all bad)", NA, NA, NA, "invalid"))
  expect_equal(winner_points(winner), c(1, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5))
  expect_equal(failed_judgement(winner), c(FALSE, FALSE, FALSE, TRUE, TRUE, TRUE, TRUE))
  err <- tryCatch(normalize_winner(c("tie", "won")), error = identity)
  expect_s3_class(err, "predictivebench_error_winner")
  expect_equal(err$row, 2)
})

test_that("a battle's text in the log reads back into its question and answers", {
  # an answer may hold what looks like the next model's header: lengths tell them apart
  question <- "Why?\nSay."
  answer_a <- "Because:\n\nAnswer of m2 (model_b):\n"
  input <- arena_battle_text(question, "m1", answer_a, "m2", NA)
  meta <- list(list(question_chars = nchar(question), answer_a_chars = nchar(answer_a)))
  parts <- battle_parts(tibble::tibble(input = input, model_a = "m1", model_b = "m2",
                                       solver_metadata = meta))
  expect_equal(parts$question, "Why?\nSay.")
  expect_equal(parts$answer_a, "Because:\n\nAnswer of m2 (model_b):\n")
  expect_equal(parts$answer_b, "")
  expect_equal(battle_outcome_text(c("a", "a"), c("b", "b"), c("model_b", NA)),
               c("a loses to b", "no verdict (failed) for a against b"))
})

test_that("an arrangement naming an unregistered model is refused by its row", {
  arrangement <- data.frame(question = c("q", "q"), model_a = c("a", "a"),
                            model_b = c("b", "z"))
  err <- tryCatch(check_registered(arrangement, c("a", "b"), file = "x.csv"),
                  error = identity)
  expect_s3_class(err, "predictivebench_error_model")
  expect_equal(err$row, 2)
  expect_equal(err$file, "x.csv")
})
