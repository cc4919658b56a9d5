test_that("a judge is a chat, a string or a list; a list of one is that chat", {
  yes <- baseline_chat("True", name = "yes")
  no <- baseline_chat("False", name = "no")
  expect_identical(check_judge(yes), yes)
  expect_identical(check_judge(list(yes)), yes)
  expect_null(check_judge(NULL, allow_null = TRUE))
  panel <- check_judge(list(yes, no))
  expect_true(is_judge_panel(panel))
  expect_identical(check_judge(panel), panel)
  expect_identical(judge_models(panel), c("yes", "no"))
  expect_identical(judge_label(panel), "panel(yes, no)")
  expect_identical(judge_label(yes), "yes")
  expect_identical(judge_members(yes), list(yes))
  expect_length(judge_members(panel), 2)
  expect_identical(judge_members(NULL), list())
})

test_that("bad judges are refused, naming the member", {
  yes <- baseline_chat("True", name = "yes")
  err <- expect_error(check_judge(list(yes, 3), arg = "judge"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "judge[[2]]", fixed = TRUE)
  expect_error(check_judge(list()), class = "predictivebench_error_argument")
  expect_error(check_judge(NULL), class = "predictivebench_error_argument")
  # the same judge twice would count one judge's cached verdicts twice
  err <- expect_error(check_judge(list(yes, yes), arg = "judge"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "same judge")
})

test_that("two chats of one model with other parameters are two judges, named apart", {
  a <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                      credentials = function() "k")
  b <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                      params = ellmer::params(temperature = 1),
                                      credentials = function() "k")
  panel <- check_judge(list(a, b))
  expect_identical(judge_models(panel), c("m", "m#2"))
  expect_error(check_judge(list(a, a$clone())), class = "predictivebench_error_argument")
})

test_that("majority: more than half the judges; all spoke without one: the tie-break; a missing verdict that could decide: none", {
  votes <- cbind(c("a", "a", "a", NA, "b", NA, "x"),
                 c("a", "b", "b", "a", "c", NA, "x"),
                 c("b", "c", NA, "a", "a", "x", "y"))
  expect_identical(panel_majority(votes),
                   c("a", "tie", NA, "a", "tie", NA, "x"))
  expect_identical(panel_majority(votes, none = "none")[[2]], "none")
  # one judge: its verdicts as they are
  expect_identical(panel_majority(c("a", NA, "b")), c("a", NA, "b"))
  # an even split has no majority
  expect_identical(panel_majority(cbind("a", "b"), none = "false"), "false")
})

test_that("mean: each row's mean of the judges' scores", {
  expect_equal(panel_mean(cbind(c(1, 0, NA), c(0, 0, 1), c(1, 0.5, 1))),
               c(2 / 3, 0.5 / 3, NA))
  expect_equal(panel_mean(c(0.2, 1)), c(0.2, 1))
})

test_that("each judge's verdicts travel as JSON and are read back as a table", {
  json <- panel_json(c("m1", "m2"), list(
    winner = cbind(c("model_a", NA), c("b \"quoted\"\n", "tie")),
    score = cbind(c(1, 0.1), c(NA, 2)),
    correct = cbind(c(TRUE, NA), c(FALSE, TRUE))
  ))
  expect_length(json, 2)
  expect_true(all(vapply(json, jsonlite::validate, TRUE)))
  back <- panel_judges(c(json, NA))
  expect_identical(back$sample, c(1L, 1L, 2L, 2L))
  expect_identical(back$judge, c("m1", "m2", "m1", "m2"))
  expect_identical(back$winner, c("model_a", "b \"quoted\"\n", NA, "tie"))
  expect_identical(back$score, c(1, NA, 0.1, 2))
  expect_identical(back$correct, c(TRUE, FALSE, NA, TRUE))
  expect_identical(nrow(panel_judges(NA_character_)), 0L)
})

test_that("JSON strings are escaped as jsonlite escapes them", {
  x <- c("plain", "q\"uote", "back\\slash", "line\nbreak", "tab\t", "bell\a", NA)
  expect_identical(json_strings(x)[-7],
                   vapply(x[-7], function(s) as.character(jsonlite::toJSON(s, auto_unbox = TRUE)),
                          "", USE.NAMES = FALSE))
  expect_identical(json_strings(NA), "null")
})
