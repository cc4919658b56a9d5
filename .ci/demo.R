# The README's main job: a full offline FutureX evaluation of a baseline chat on the bundled
# sample. Prints the FutureX summary and writes a vitals log to ./logs.
pkgload::load_all(quiet = TRUE)
log_dir <- file.path(getwd(), "logs")
dir.create(log_dir, showWarnings = FALSE)
tsk <- futurex_task(solver = futurex_solver(cache = FALSE), dir = log_dir)
baseline <- baseline_random(c("A", "B", "C", "D", "Yes", "No"), template = "\\boxed{%s}")
tsk$eval(solver_chat = baseline, view = FALSE)
cat("\nFutureX summary for", baseline$get_model(), "on", nrow(tsk$get_samples()), "questions:\n")
print(futurex_summary(tsk))
cat("\nvitals log written to", log_dir, "- browse it with vitals::vitals_view(\"logs\")\n")
