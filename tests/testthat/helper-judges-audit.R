# A FutureX task judged offline, and a judged run's verdicts: for the audit's tests.

futurex_judged <- function(reply, name, dir) {
  tsk <- futurex_task(futurex_dataset(version = "sample"), judge = baseline_chat(reply, name),
                      dir = dir)
  tsk$eval(solver_chat = baseline_chat("\\boxed{3}", "three"), view = FALSE)
  tsk
}

verdicts_of <- function(x) judged_verdicts(judged_runs(x)[[1]])$verdict
