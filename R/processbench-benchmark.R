# ProcessBench as one benchmark object: what the shared layers know about it.

processbench_citation <- "Zheng et al. (2024). ProcessBench: Identifying Process Errors in Mathematical Reasoning. arXiv:2412.06559."

processbench_versions <- function() {
  splits <- c("gsm8k", "math", "olympiadbench", "omnimath")
  rbind(
    pinned_file("processbench", "hf", TRUE,
        c(host = "hf", repo = "Qwen/ProcessBench",
          commit = "3bdcd5371ed567559a78f559c01c13a6deee7604"),
        list(path = paste0(splits, ".json"), size = NA, sha256 = NA),
        list(licence = "apache-2.0", citation = processbench_citation, items = 3400),
        role = "split"),
    pinned_file("processbench", "2f2fd8ae", FALSE,
        c(host = "github", repo = "QwenLM/ProcessBench",
          commit = "2f2fd8ae590aeb949f7be265478b05280f93db68"),
        list(path = paste0("dataset/", splits, ".json"),
             size = c(574343, 1938778, 2808955, 2842872),
             sha256 = c("fb1c59dfd1e83e1c5a48dbe598db27e4bc0b8bc524a09445f2d4b69178f61349",
          "520ae64463d6ceb4bf13af31693389a5d5b14934cdad3468193dea4a5ceb0414",
          "e9d801c9f3c03f949adbfa08e90cb21ad85c0b9224bc5e98326f8215c218aa55",
          "e8d7cf4512c82168dae2fe48b1718069a3002e7910af1d180a27ee0d9948ba47")),
        list(licence = paste(no_licence("QwenLM/ProcessBench"),
                             "at this commit; its Hugging Face copy is apache-2.0"),
             citation = processbench_citation, items = 3400),
        role = "split")
  )
}

# ProcessBench's F1: of the accuracy on solutions with an error and on those without.
processbench_f1 <- function(items) {
  f1_score(mean(items$score[items$label != -1]), mean(items$score[items$label == -1]))
}

processbench_benchmark <- function() {
  new_benchmark(
    "processbench", task = processbench_task,
    summary = list(fn = "processbench_summary",
                   headline = c("overall f1", "overall error_acc", "overall correct_acc"),
                   # the column of its split (gsm8k, math, ...), which the original reports by
                   by = "task_l1", interval = processbench_interval),
    data = list(dataset = processbench_dataset,
                sample = list(table = "extdata/deltabench-sample.parquet", items = 8L),
                versions = processbench_versions(), prepare = prepare_processbench,
                prepare_pinned = function(rows, files) prepare_processbench(unname(files)),
                flattener = "processbench"),
    comparison = list(statistic = processbench_f1, columns = "label",
                      cluster = solution_cluster)
  )
}
