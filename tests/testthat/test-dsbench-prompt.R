test_that("the judge prompt is the original's, byte for byte", {
  prompt <- dsbench_judge_prompt("Q?\n", "{'Q': 1}", "It is 1")
  expect_identical(prompt, paste0(
    "Please judge whether the generated answer is right or wrong. We require that the correct ",
    "answer to the prediction gives a clear answer, not just a calculation process or a ",
    "disassembly of ideas. The question is Q?\n. The true answer is \n {'Q': 1}. \n The ",
    "predicted answer is \n It is 1.\n If the predicted answer is right, please output True. ",
    "Otherwise output Flase. Don't output any other text content. You only can output True ",
    "or False."
  ))
})

test_that("the files mode names the workbooks and the tools instead of showing them", {
  row <- tibble::tibble(workbook_files = list(c("a.xlsx", "b.xlsx")), introduction = "Intro.",
                        question = "Q?")
  expect_identical(dsbench_files_prompt(row), paste0(
    "The workbook files are: a.xlsx, b.xlsx. They are not shown here: use the tools ",
    "list_workbooks, list_sheets and read_range to read them. \n",
    "The introduction is detailed as follows. \n Intro. \n",
    "The questions are detailed as follows. \n Q?"
  ))
  row$workbook_files <- list(character())
  expect_match(dsbench_files_prompt(row), "^The introduction is detailed")
  # the request with an image carries one more trailing space, as the original's
  expect_identical(dsbench_system_prompt_image, paste0(dsbench_system_prompt_text, " "))
})
