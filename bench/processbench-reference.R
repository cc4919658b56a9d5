# Conformance checks of the ProcessBench/DeltaBench flatteners and metrics on the original
# benchmarks' published files (read from ../shared/reference, never copied), with offline
# baselines. Run from the package root: Rscript bench/processbench-reference.R
pkgload::load_all(quiet = TRUE)
Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))

reference <- file.path("..", "shared", "reference")
delta_path <- file.path(reference, "deltabench", "Deltabench_v1_examples.jsonl")
gsm8k_path <- file.path(reference, "processbench", "gsm8k.json")
if (!file.exists(delta_path) || !file.exists(gsm8k_path)) {
  message("Reference files not found under ", reference, ": nothing to check.")
  quit(status = 0)
}

gsm8k <- prepare_processbench(gsm8k_path)
cat(sprintf("gsm8k: %d samples, %d with an error, %d without (expected 400, 207, 193)\n",
            nrow(gsm8k), sum(gsm8k$label != -1), sum(gsm8k$label == -1)))

# Constant "-1" (no error anywhere): error accuracy 0, correct accuracy 1, F1 0.
tsk <- processbench_task(gsm8k, template = "processbench", dir = tempfile(),
                         solver = processbench_solver(n_votes = 1, temperature = 0,
                                                      settings = request_settings(cache = FALSE)))
tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
print(suppressMessages(processbench_summary(tsk))[, c("group", "metric", "estimate", "n")])

delta <- prepare_deltabench(delta_path)
cat("DeltaBench examples: labels", paste(delta$label, collapse = " "), "\n")

# A critic that names every section of every solution, with and without clipping.
every <- baseline_chat(function(prompt) {
  answer <- sub("^.*- Robot's Answer: ", "", prompt)
  n <- max(as.integer(sub("section([0-9]+): ", "\\1",
                          regmatches(answer, gregexpr("section[0-9]+: ", answer))[[1]])))
  paste0("Conclusion: yes\n",
         paste0("Error Section Number: ", seq_len(n), "\nExplanation: -", collapse = "\n"))
}, name = "every-section")
dtsk <- deltabench_task(delta, dir = tempfile(), solver = deltabench_solver(settings = request_settings(cache = FALSE)))
dtsk$eval(solver_chat = every, view = FALSE)
metrics <- c("precision_macro", "recall_macro", "f1_macro", "f1_micro")
show <- function(s) print(s[s$metric %in% metrics, c("group", "metric", "estimate")])
cat("Every-section critic, clipped (the original's rule):\n")
show(deltabench_summary(dtsk, by = NULL))
cat("Every-section critic, clip_predictions = FALSE:\n")
show(deltabench_summary(dtsk, by = NULL, clip_predictions = FALSE))
