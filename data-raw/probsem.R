# Builds the probsem example shipped in inst/extdata/ from a prompt and test suites written
# for this package (a fictional town's weather notes, so no benchmark data is redistributed):
#   probsem/weather.txt              the prompt (general context), with a trailing newline
#   probsem/weather_truth.json       a True/False suite; every context has an expected query
#   probsem/weather_choice.json      a multiple-choice suite; one context has expected = -1
#                                    (no ground truth), one has a multi-line context
#   probsem-sample.parquet           both suites as a task table (via the Python flattener)
# Run from the package root: Rscript data-raw/probsem.R

pkgload::load_all(quiet = TRUE)

dir <- "inst/extdata/probsem"
dir.create(dir, showWarnings = FALSE, recursive = TRUE)

prompt <- paste0(
  "Weather notes from the town of Exampleton, kept by the harbour master.\n",
  "\n",
  "Monday: heavy rain all day; the ferry stayed in port.\n",
  "Tuesday: clear skies and a light westerly wind; the ferry ran on time.\n",
  "Wednesday: fog until noon, then sunshine.\n",
  "\n",
  "Answer the questions about these notes.\n"
)
writeBin(charToRaw(prompt), file.path(dir, "weather.txt"))

truth <- list(
  pretext = "Say whether the statement is True or False.",
  context = list(
    list(text = "The ferry ran on time on Tuesday.", expected = 0L),
    list(text = "It was sunny all day on Monday.", expected = 1L),
    list(text = "There was fog on Wednesday morning.", expected = 0L)
  ),
  posttext = "Answer:",
  queries = list("True", "False")
)

choice <- list(
  pretext = "Pick the best option.",
  context = list(
    list(text = "Which day was the ferry kept in port?\nA) Monday\nB) Tuesday\nC) Wednesday",
         expected = 0L),
    list(text = "Which day had fog?\nA) Monday\nB) Tuesday\nC) Wednesday", expected = 2L),
    list(text = "Which day would you rather sail?\nA) Monday\nB) Tuesday\nC) Wednesday",
         expected = -1L)
  ),
  posttext = "The answer is:",
  queries = list("A", "B", "C")
)

write_suite <- function(x, path) {
  json <- jsonlite::toJSON(x, auto_unbox = TRUE, pretty = TRUE)
  writeLines(enc2utf8(as.character(json)), path, useBytes = TRUE)
}
write_suite(truth, file.path(dir, "weather_truth.json"))
write_suite(choice, file.path(dir, "weather_choice.json"))

Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))
prepare_probsem(file.path(dir, "weather.txt"), out = "inst/extdata/probsem-sample.parquet")
