# DeltaBench as one benchmark object: its tables are ProcessBench-schema tables, prepared by
# the ProcessBench flattener.

deltabench_citation <- "He et al. (2025). Can Large Language Models Detect Errors in Long Chain-of-Thought Reasoning? arXiv:2502.19361."

deltabench_versions <- function() {
  pinned_file("deltabench", "v1", TRUE,
      c(host = "hf", repo = "OpenStellarTeam/DeltaBench",
        commit = "0952360c055990b828a8d27f6a4916f6a174dd67"),
      list(path = "Deltabench_v1.jsonl", size = 65296034,
           sha256 = "d8d36e95e37f2f0a4fd607ff2f47ab852cc70dc2306cecfc08af0378212b0648"),
      list(licence = "none declared (the dataset card names no licence)",
           citation = deltabench_citation, items = 1236))
}

# DeltaBench's macro F1: the mean score (each critique's F1) over solutions with an error.
deltabench_macro_f1 <- function(items) {
  mean(items$score[lengths(items$error_sections) > 0])
}

deltabench_benchmark <- function() {
  new_benchmark(
    "deltabench", task = deltabench_task,
    summary = list(fn = "deltabench_summary",
                   headline = c("overall f1_macro", "overall precision_macro",
                                "overall recall_macro", "overall accuracy"),
                   by = "task_l1", interval = deltabench_interval),
    data = list(schema = "processbench", dataset = deltabench_dataset,
                sample = list(table = "extdata/deltabench-sample.parquet", items = 8L),
                versions = deltabench_versions(), prepare = prepare_deltabench,
                flattener = "processbench"),
    comparison = list(statistic = deltabench_macro_f1, columns = "error_sections",
                      cluster = solution_cluster)
  )
}
