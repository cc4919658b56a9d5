# Builds the bundled arena sample in inst/extdata/arena/ from data written here (fictional
# questions, answers and verdicts; nothing is taken from EloBench's files).
# Run from the package root: Rscript data-raw/arena.R
pkgload::load_all(quiet = TRUE)

root <- file.path("inst", "extdata", "arena")
unlink(root, recursive = TRUE)

questions <- c(
  "Why do cats purr?",
  "How many legs does a spider have?",
  "What is the boiling point of water at sea level?",
  "Why do cats purr?",
  "Suggest a name for a pet goldfish.",
  "What causes the seasons on Earth?",
  "Is a tomato a fruit or a vegetable?",
  "How many legs does a spider have?",
  "Write a one-line poem about rain.",
  "What is the capital of Australia?"
)
dir.create(file.path(root, "data", "sample"), recursive = TRUE)
utils::write.csv(data.frame(question = questions),
                 file.path(root, "data", "sample", "questions.csv"), row.names = FALSE)

unique_q <- unique(questions)
answers <- tibble::tibble(question = unique_q)
answers[["careful-model"]] <- c(
  "Cats purr by vibrating the muscles of the larynx; they do it when content and also to soothe themselves.",
  "A spider has eight legs.",
  "Water boils at 100 degrees Celsius (212 F) at sea level.",
  "Bubbles, after the sound it makes when it swims.",
  "The tilt of Earth's axis (about 23.4 degrees) changes how directly sunlight hits each hemisphere over the year.",
  "Botanically a tomato is a fruit; in cooking it is used as a vegetable.",
  "Soft rain taps the window like a patient friend.",
  "Canberra is the capital of Australia."
)
answers[["quick-model"]] <- c(
  "Because they are happy.",
  "Eight.",
  "100 C.",
  "Goldie.",
  "The distance from the sun.",
  "A fruit.",
  "Rain rain go away.",
  "Sydney."
)
answers[["wordy-model"]] <- c(
  "Purring is a fascinating behaviour that has many explanations, and scientists have studied it for years.",
  "Spiders, which are arachnids rather than insects, have eight legs in total.",
  "It depends on many things, but usually it is said to be around one hundred degrees.",
  "There are many lovely names; you might consider Finn, Goldie or Captain Bubbles.",
  "Seasons are caused by several factors that scientists discuss at length.",
  "This is a classic debate with arguments on both sides.",
  "",
  "Many people think it is Sydney, but it is actually Canberra."
)
answers[["echo-model"]] <- c(unique_q[1:6], NA, unique_q[8])
cache <- file.path(root, "tempcache", "sample")
dir.create(cache, recursive = TRUE)
predictivebench:::write_answers(answers, file.path(cache, "q_and_as.csv"))

models <- c("careful-model", "quick-model", "wordy-model", "echo-model")
arrangement <- arena_arrange(unique_q, models, n = 2, seed = 7,
                             available = !is.na(as.matrix(answers[models])))
results <- file.path(root, "results", "sample")
dir.create(results, recursive = TRUE)
predictivebench:::write_arena_csv(arrangement, file.path(results, "battle_arrangement.csv"))

# A few verdicts in the original's older record format (Python dict text, score format),
# so the reader is exercised on that layout too.
py_dict <- function(text) {
  escaped <- gsub("'", "\\\\'", gsub("\n", "\\\\n", text, fixed = TRUE), fixed = TRUE)
  sprintf("{'is_valid': True, 'response': '%s', 'usage': {'completion_tokens': 20, 'prompt_tokens': 200, 'total_tokens': 220}}",
          escaped)
}
first <- arrangement[1:3, ]
row <- match(first$question, answers$question)
score_text <- c(
  "- Score of Model 1: 1\n- Score of Model 2: 0\n- Brief Explanation: Model 1's answer is right.",
  "- Score of Model 1: 0.5\n- Score of Model 2: 0.5\n- Brief Explanation: Both are fine.",
  "- Score of Model 1: 0\n- Score of Model 2: 1\n- Brief Explanation: Model 2 is more accurate."
)
records <- tibble::tibble(
  model_a = first$model_a, model_b = first$model_b,
  winner = c("model_a", "tie", "model_b"), judger = "sample-judge",
  tstamp = c("2024-01-02 10:00:00.000001", "2024-01-02 10:00:03.000002",
             "2024-01-02 10:00:05.000003"),
  question = first$question,
  answer_a = vapply(seq_len(3), function(i) answers[[first$model_a[[i]]]][[row[[i]]]], ""),
  answer_b = vapply(seq_len(3), function(i) answers[[first$model_b[[i]]]][[row[[i]]]], ""),
  gpt_4_response = py_dict(score_text),
  gpt_4_score = c("{'model_a': '1', 'model_b': '0'}", "{'model_a': '0.5', 'model_b': '0.5'}",
                  "{'model_a': '0', 'model_b': '1'}"),
  is_valid = TRUE
)
predictivebench:::write_arena_csv(records, file.path(cache, "battle_records.csv"))
cat("wrote", length(list.files(root, recursive = TRUE)), "files under", root, "\n")
