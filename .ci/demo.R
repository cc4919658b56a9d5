# The README's main job: a full offline FutureX evaluation of a baseline chat on the bundled
# sample. Prints the FutureX summary and writes a vitals log to ./logs. A second, oracle
# baseline (it echoes each ground truth) shows the other end of the scale.
pkgload::load_all(Sys.getenv("PREDICTIVEBENCH_ROOT", "."), quiet = TRUE)
log_dir <- file.path(getwd(), "logs")
dir.create(log_dir, showWarnings = FALSE)
run <- function(chat) {
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = log_dir)
  tsk$eval(solver_chat = chat, view = FALSE)
  tsk
}
baseline <- baseline_chat(choices = c("A", "B", "C", "D", "Yes", "No"), template = "\\boxed{%s}")
tsk <- run(baseline)
cat("\nFutureX summary for", baseline$get_model(), "on", nrow(tsk$get_samples()), "questions:\n")
print(futurex_summary(tsk))

gold <- futurex_dataset(version = "sample")
oracle <- run(baseline_chat(function(prompt) gold$target[match(prompt, gold$input)], name = "oracle"))
board <- leaderboard(tsk, oracle)
cat("\nOverall scores, chance against an oracle (leaderboard()):\n")
print(board[board$metric == "overall", c("model", "estimate", "lower", "upper", "n")])
cat("\nvitals logs written to", log_dir, "- browse them with vitals::vitals_view(\"logs\")\n")
