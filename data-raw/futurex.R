# Builds the FutureX example files shipped in inst/extdata/ from questions written for this
# package (fictional events, so no real benchmark data is redistributed):
#   futurex-questions.json     a question set in FutureX's format (levels 1-4)
#   futurex-predictions.json   the same items with an `answer`, as a model would submit them
#   futurex-sample.parquet     the question set as a task table (via the Python flattener)
# Run from the package root: Rscript data-raw/futurex.R

pkgload::load_all(quiet = TRUE)

prompt_for <- function(event) {
  paste0(
    "You are an agent that can predict future events. The event to be predicted: \"", event,
    "\"\n        IMPORTANT: Your final answer MUST end with this exact format:\n",
    "        \\boxed{YOUR_PREDICTION}\n",
    "        Do not use any other format. Do not refuse to make a prediction. ",
    "Do not say \"I cannot predict the future.\" You must make a clear prediction based on ",
    "the best data currently available, using the box format specified above."
  )
}

item <- function(id, event, level, truth, std = NULL, end_time = "12/1/26", answer = NULL) {
  out <- list(id = id, prompt = prompt_for(event), end_time = end_time, level = level,
              ground_truth = truth, Std = std, `additional values` = NULL,
              Description = NULL)
  if (!is.null(answer)) out$answer <- answer
  out
}

questions <- list(
  item("fx-l1-rain", "2026-12-01, Will Exampleton record more than 10 mm of rain? Answer Yes or No.",
       1, "Yes", answer = "\\boxed{Yes}"),
  item("fx-l1-vote", "2026-12-01, Which option wins the Exampleton park vote? A. Lake B. Forest C. Garden",
       1, "B", answer = "I think it is B. \\boxed{A}"),
  item("fx-l1-ferry", "2026-12-02, Will the Exampleton ferry run on schedule? Answer Yes or No.",
       1, "No", answer = "\\boxed{No}"),
  item("fx-l2-awards", "2026-12-03, Which films win at the Exampleton festival? A. Dawn B. Dusk C. Noon D. Night (several may be correct)",
       2, "A, C", answer = "\\boxed{A, B, C}"),
  item("fx-l2-stocks", "2026-12-03, Which fictional stocks close higher? A. ACME B. Globex C. Initech D. Umbrella",
       2, "B, D", answer = "\\boxed{D}"),
  item("fx-l3-chart", "2026-12-04, Which songs rank 1st to 3rd on the Exampleton chart?",
       3, "\\boxed{1. Blue River, 2. Paper Moon, 3. Quiet Town}",
       answer = "\\boxed{1. Blue River, 2. Quiet Town, 3. Paper Moon}"),
  item("fx-l3-temp", "2026-12-04, What will the high temperature in Exampleton be, in degrees Celsius?",
       3, "12.5", std = 2, answer = "\\boxed{11.5}"),
  item("fx-l4-sales", "2026-12-05, How many units will the Exampleton bakery sell (thousands)?",
       4, "1,250 thousand units", std = 100, answer = "\\boxed{1,180 thousand units}"),
  item("fx-l4-index", "2026-12-05, What will the fictional EXM index close at?",
       4, "-3.2", std = 1.5, answer = "\\boxed{-3.0}"),
  item("fx-l4-books", "2026-12-06, Which books rank 4th to 6th on the Exampleton list?",
       4, "Tide, Harbor, Lantern", answer = "\\boxed{Harbor, Tide, Lantern}"),
  item("fx-l4-exact", "2026-12-06, How many ferries will sail on 2026-12-06?",
       4, "7", std = 0, answer = "\\boxed{7}")
)

strip_answer <- function(x) {
  x$answer <- NULL
  x
}

write_json <- function(x, path) {
  json <- jsonlite::toJSON(x, auto_unbox = TRUE, null = "null", pretty = TRUE, digits = NA)
  writeLines(enc2utf8(as.character(json)), path, useBytes = TRUE)
}

dir.create("inst/extdata", showWarnings = FALSE, recursive = TRUE)
write_json(lapply(questions, strip_answer), "inst/extdata/futurex-questions.json")
# One item is left without an answer, as in real submissions; the scorer skips and counts it.
predictions <- questions
predictions[[11]]$answer <- NULL
write_json(predictions, "inst/extdata/futurex-predictions.json")

Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))
prepare_futurex("inst/extdata/futurex-questions.json", out = "inst/extdata/futurex-sample.parquet")
