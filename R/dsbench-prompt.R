# DSBench's prompts, as the original notebooks build them: the solver's system prompt, the
# files mode's user message, and the judge's prompt.

dsbench_system_prompt_text <- paste0(
  "You are a data analyst. I will give  you a background introduction and data analysis ",
  "question. You must answer the question. "
)

# The original's request with an image has one more trailing space in its system prompt.
dsbench_system_prompt_image <- paste0(dsbench_system_prompt_text, " ")

dsbench_files_prompt <- function(row) {
  files <- row$workbook_files[[1]]
  note <- if (length(files)) {
    paste0(
      "The workbook files are: ", paste(files, collapse = ", "), ". They are not shown ",
      "here: use the tools list_workbooks, list_sheets and read_range to read them. \n"
    )
  } else ""
  paste0(note, "The introduction is detailed as follows. \n ", row$introduction, " \n",
         "The questions are detailed as follows. \n ", row$question)
}

dsbench_judge_template <- paste0(
  "Please judge whether the generated answer is right or wrong. We require that the correct ",
  "answer to the prediction gives a clear answer, not just a calculation process or a ",
  "disassembly of ideas. The question is %s. The true answer is \n %s. \n The predicted ",
  "answer is \n %s.\n If the predicted answer is right, please output True. Otherwise output ",
  "Flase. Don't output any other text content. You only can output True or False."
)

#' The DSBench judge prompt and decision rule
#'
#' `dsbench_judge_prompt()` builds the original judge prompt; `dsbench_judge_correct()` is
#' its decision rule: correct when the lower-cased reply contains `"true"` (so `"True"`,
#' `"true."` and `"Not true"` are correct, `"False"`, `"Flase"`, an empty reply and a
#' failed judgement are not). Both are used by [dsbench_scorer()].
#'
#' @param question The question text (the question file only).
#' @param answer The true answer, as the Python `str()` of the `data.json` value (the task
#'   table's `target`).
#' @param prediction The model's whole response.
#' @param reply The judge's reply; `NA` for a failed judgement.
#' @returns A character vector of prompts; a logical vector.
#' @noRd
dsbench_judge_prompt <- function(question, answer, prediction) {
  sprintf(dsbench_judge_template, question, answer, prediction)
}
