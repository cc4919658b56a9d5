# The README's main job: a full offline FutureX evaluation of a baseline chat on the bundled
# sample. Prints the FutureX summary and writes a vitals log to ./logs. The baseline is a
# naive forecaster, not a random guesser: on 11 questions a random pick among six answers
# scores 0 on every level, which shows nothing of the scorer; the naive one is right on some
# questions, partly right on others (a list with one right item, a number near the truth)
# and wrong on the rest. A second, oracle baseline (it echoes each ground truth) shows the
# other end of the scale.
pkgload::load_all(Sys.getenv("PREDICTIVEBENCH_ROOT", "."), quiet = TRUE)
log_dir <- file.path(getwd(), "logs")
dir.create(log_dir, showWarnings = FALSE)
run <- function(chat) {
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = log_dir)
  tsk$eval(solver_chat = chat, view = FALSE)
  tsk
}
# "Yes" to a yes/no question, the first two options where several may be correct, the first
# option of a choice, and 10 for anything else
naive <- function(prompt) {
  question <- sub("\n.*", "", prompt)
  answer <- if (grepl("Yes or No", question, fixed = TRUE)) "Yes" else
    if (grepl("several may be correct", question, fixed = TRUE)) "A, B" else
      if (grepl(" A. ", question, fixed = TRUE)) "A" else "10"
  sprintf("\\boxed{%s}", answer)
}
baseline <- baseline_chat(naive, name = "naive-forecaster")
tsk <- run(baseline)
cat("\nFutureX summary for", baseline$get_model(), "on", nrow(tsk$get_samples()), "questions:\n")
print(futurex_summary(tsk))

gold <- futurex_dataset(version = "sample")
oracle <- run(baseline_chat(function(prompt) gold$target[match(prompt, gold$input)], name = "oracle"))
board <- leaderboard(tsk, oracle)
cat("\nOverall scores, the naive forecaster against an oracle (leaderboard()):\n")
print(board[board$metric == "overall", c("model", "estimate", "lower", "upper", "n")])
cat("\nvitals logs written to", log_dir, "- browse them with vitals::vitals_view(\"logs\")\n")
