# Shared by the test-processbench-*.R files: a small ProcessBench table, one number of a
# summary, and the fields a ProcessBench log keeps.

pb_table <- function() {
  tibble::tibble(
    id = c("s-apples", "s-pen", "s-train"),
    problem = c("How many apples?", "What do a pen and a book cost?", "When does the train arrive?"),
    steps = list(c("3 * 4 = 12.", "12 - 2 = 10."), c("8 + 3 = 12.", "So 12."),
                 c("9:40 + 50 min = 10:30.", "So 10:30.", "Done.")),
    label = c(-1L, 0L, 1L), task_l1 = c("a", "a", "b"), task_l2 = NA_character_,
    origin = NA_character_, generator = NA_character_, final_answer_correct = NA,
    error_sections = list(NULL, NULL, NULL), unuseful_sections = list(NULL, NULL, NULL),
    sections_content = NA_character_
  )
}

# One number of a summary: the `column` of `group`'s `metric` row.
pb_value <- function(s, group, metric, column = "estimate") {
  s[[column]][s$group == group & s$metric %in% metric]
}

pb_fields <- c("label", "task_l1", "task_l2", "generator", "final_answer_correct")
