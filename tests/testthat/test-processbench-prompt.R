test_that("votes: last box, nested braces, 02 and +2, majority, ties to the first seen", {
  v <- processbench_vote(c("\\boxed{1} no, \\boxed{2}", "\\boxed{02}", "\\boxed{+2}",
                           "\\boxed{-1}"))
  expect_equal(v$votes, c(2L, 2L, 2L, -1L))
  expect_equal(v$prediction, 2L)
  expect_equal(v$n_valid, 4L)
  nested <- processbench_vote(c("\\boxed{\\frac{1}{2}} then \\boxed{{3}}",
                                "\\boxed{\\text{3}}", "$\\boxed{ 3 }$"))
  expect_equal(nested$votes, c(3L, 3L, 3L))
  # a tie goes to the value seen first, whatever the values
  expect_equal(processbench_vote(c("\\boxed{4}", "\\boxed{1}", "\\boxed{1}", "\\boxed{4}"))$prediction, 4L)
  expect_equal(processbench_vote(c("\\boxed{1}", "\\boxed{4}", "\\boxed{4}", "\\boxed{1}"))$prediction, 1L)
  # invalid votes are dropped before counting: two valid 5s beat nothing else
  v <- processbench_vote(c("\\boxed{x}", "\\boxed{x}", "\\boxed{x}", "\\boxed{5}", "\\boxed{5}"))
  expect_equal(v$prediction, 5L)
  expect_equal(v$n_valid, 2L)
  # a last box cut off before its closing brace is skipped: the last complete box votes
  cut <- processbench_vote(c("\\boxed{2} On reflection, the answer is \\boxed{",
                             "\\boxed{-1} no, \\boxed{\\text{3",
                             "\\boxed{0} then \\boxed{1} and \\boxed{\\frac{1}{2}",
                             "only \\boxed{4"))
  expect_equal(cut$votes, c(2L, -1L, 1L, NA))
    none <- processbench_vote(c("\\boxed{two}", "no box at all", NA, "\\boxed{2.5}"))
  expect_true(is.na(none$prediction))
  expect_equal(none$n_valid, 0L)
  expect_equal(none$votes, rep(NA_integer_, 4))
})

test_that("prompts are ProcessBench's, with both wordings", {
  p <- processbench_prompt("What is 1+1?", list(c("1+1=3.", "So 3.")))
  expect_identical(p, paste0(
    "The following is a problem and a solution (split into paragraphs, enclosed with tags and indexed from 0):\n\n",
    "[Problem]\n\nWhat is 1+1?\n\n[Solution]\n\n",
    "<paragraph_0>\n1+1=3.\n</paragraph_0>\n\n<paragraph_1>\nSo 3.\n</paragraph_1>\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you identify an error in a paragraph, ",
    "return the index of the paragraph where the earliest error occurs. Otherwise, return the index of -1.\n\n",
    "Please put your final answer (i.e., the index) in \\boxed{}."
  ))
  q <- processbench_prompt("Q {tagged_response}", list("s"), template = "processbench")
  expect_match(q, "^The following is a math problem and a solution")
  expect_match(q, "[Math Problem]\n\nQ {tagged_response}\n\n[Solution]", fixed = TRUE)
  expect_match(q, "index of -1 (which typically denotes \"not found\").\n\nPlease", fixed = TRUE)
  expect_error(processbench_prompt("a", list()), class = "predictivebench_error_argument")
})
