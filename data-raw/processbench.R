# Builds the DeltaBench and ProcessBench example files shipped in inst/extdata/ from made-up
# problems and solutions written for this package (no benchmark data is redistributed):
#   deltabench-sample.jsonl     records in DeltaBench's release format (sections, 1-based
#                               reason_error/unuseful section numbers, sections_content)
#   deltabench-sample.parquet   the same as a `processbench` task table
#   processbench-sample.json    a split in ProcessBench's format (steps, 0-based label)
#   processbench-sample.parquet the same as a task table (task_l1 = "sample")
# Run from the package root: Rscript data-raw/processbench.R

pkgload::load_all(quiet = TRUE)

delta <- function(id, task_l1, task_l2, question, sections, errors = integer(),
                  unuseful = integer(), final_correct = 0L) {
  list(
    id = id, origin = "predictivebench-made-up", task_l1 = task_l1, task_l2 = task_l2,
    question = question,
    sections = lapply(seq_along(sections), function(i) {
      list(start = i, end = i, description = paste("part", i), content = sections[[i]],
           section_type = "Reasoning")
    }),
    sections_content = paste0("section", seq_along(sections), ": ", sections,
                              collapse = "\n\n\n"),
    final_correct = final_correct,
    reason_unuseful_section_numbers = I(as.integer(unuseful)),
    reason_error_section_numbers = I(as.integer(errors))
  )
}

deltabench <- list(
  delta("db-sum", "math", "Arithmetic", "What is the sum of the first five positive integers?",
        c("We add 1 + 2 + 3 + 4 + 5.", "1 + 2 = 3 and 3 + 3 = 6.", "6 + 4 = 11.",
          "11 + 5 = 16, so the answer is \\boxed{16}."), errors = 3),
  delta("db-area", "math", "Geometry", "A rectangle is 4 cm by 6 cm. What is its area?",
        c("The area of a rectangle is length times width.", "4 times 6 is 24.",
          "So the area is \\boxed{24} square centimetres."), final_correct = 1),
  delta("db-prime", "math", "Number Theory", "Is 51 a prime number?",
        c("Let me check small divisors of 51.", "51 is odd, so 2 does not divide it.",
          "The digits sum to 6, so 3 divides 51? Wait, let me instead try 7: 7 * 7 = 49.",
          "No divisor up to 7 works, so 51 is prime: \\boxed{yes}."), errors = 4,
        unuseful = 3),
  delta("db-mean", "math", "Statistics", "What is the mean of 2, 4 and 9?",
        c("The mean is the sum divided by the count.", "The sum is 2 + 4 + 9 = 15.",
          "15 divided by 3 is 5.", "But 9 is large, so the mean should be 6.",
          "The mean is \\boxed{6}."), errors = c(4, 5)),
  delta("db-reverse", "code", "Strings", "Write a Python function that reverses a string.",
        c("We can use slicing with a negative step.",
          "def reverse(s):\n    return s[::-1]",
          "reverse('abc') gives 'cba', as expected."), final_correct = 1),
  delta("db-max", "code", "Lists", "Write a Python function that returns the largest number in a non-empty list.",
        c("Start with the first element as the best so far.",
          "def largest(xs):\n    best = 0\n    for x in xs:\n        if x > best:\n            best = x\n    return best",
          "largest([3, 7, 2]) returns 7, so the function is correct."), errors = 2),
  delta("db-even", "code", "Loops", "Count the even numbers from 1 to 10 in Python.",
        c("We loop over range(1, 10) and count numbers divisible by 2.",
          "The loop sees 2, 4, 6 and 8, so the count is 4.",
          "The answer is 4."), errors = 1),
  delta("db-speed", "physics", "Kinematics", "A car travels 120 km in 2 hours. What is its average speed?",
        c("Average speed is distance over time.", "120 km / 2 h = 60 km/h.",
          "Converting, 60 km/h is about 16.7 m/s, which is what the question asks.",
          "The answer is \\boxed{60} km/h."), errors = 3)
)

processbench <- list(
  list(id = "sample-0", generator = "made-up-model",
       problem = "Tom has 3 boxes with 4 apples each. He eats 2 apples. How many are left?",
       steps = I(c("Tom starts with 3 * 4 = 12 apples.", "After eating 2, he has 12 - 2 = 10.",
                   "The answer is \\boxed{10}.")), final_answer_correct = TRUE, label = -1L),
  list(id = "sample-1", generator = "made-up-model",
       problem = "A book costs $8 and a pen costs $3. What do 2 books and 1 pen cost?",
       steps = I(c("Two books cost 2 * 8 = 18 dollars.", "Adding the pen: 18 + 3 = 21.",
                   "The answer is \\boxed{21}.")), final_answer_correct = FALSE, label = 0L),
  list(id = "sample-2", generator = "made-up-model",
       problem = "Sara reads 15 pages a day. How many pages does she read in a week?",
       steps = I(c("A week has 7 days.", "15 * 7 = 105.", "The answer is \\boxed{105}.")),
       final_answer_correct = TRUE, label = -1L),
  list(id = "sample-3", generator = "made-up-model",
       problem = "A train leaves at 9:40 and the trip takes 50 minutes. When does it arrive?",
       steps = I(c("9:40 plus 20 minutes is 10:00.", "That leaves 30 more minutes.",
                   "10:00 plus 30 minutes is 10:20.", "The answer is \\boxed{10:20}.")),
       final_answer_correct = FALSE, label = 2L),
  list(id = "sample-4", generator = "made-up-model",
       problem = "There are 24 students split equally into 4 teams. How many per team?",
       steps = I(c("24 / 4 = 6.", "The answer is \\boxed{6}.")),
       final_answer_correct = TRUE, label = -1L),
  list(id = "sample-5", generator = "made-up-model",
       problem = "A shirt costs $20 and is 25% off. What is the sale price?",
       steps = I(c("25% of 20 is 5.", "20 - 5 = 15.", "So the price is 20 + 5 = 25.",
                   "The answer is \\boxed{25}.")), final_answer_correct = FALSE, label = 2L)
)

dir.create("inst/extdata", showWarnings = FALSE, recursive = TRUE)
lines <- vapply(deltabench, function(x) {
  as.character(jsonlite::toJSON(x, auto_unbox = TRUE, null = "null", digits = NA))
}, "")
writeLines(enc2utf8(lines), "inst/extdata/deltabench-sample.jsonl", useBytes = TRUE)
json <- jsonlite::toJSON(processbench, auto_unbox = TRUE, null = "null", pretty = TRUE,
                         digits = NA)
writeLines(enc2utf8(as.character(json)), "inst/extdata/processbench-sample.json",
           useBytes = TRUE)

Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))
prepare_deltabench("inst/extdata/deltabench-sample.jsonl",
                   out = "inst/extdata/deltabench-sample.parquet")
prepare_processbench("inst/extdata/processbench-sample.json", split = "sample",
                     out = "inst/extdata/processbench-sample.parquet")
