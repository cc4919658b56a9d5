# DSBench as one benchmark object: what the shared layers know about it.

dsbench_citation <- "Jing et al. (2024). DSBench: How Far Are Data Science Agents to Becoming Data Science Experts? arXiv:2409.07703."

dsbench_versions <- function() {
  about <- list(licence = "non-commercial use only", citation = dsbench_citation, items = 466)
  rbind(
    pinned_file("dsbench", "v1", TRUE,
        c(host = "hf", repo = "liqiang888/DSBench",
          commit = "1196d6553ec200e1262841efc89cda5954ffe89f"),
        list(path = "data_analysis/data.zip", size = NA, sha256 = NA), about, role = "zip"),
    pinned_file("dsbench", "v1", TRUE,
        c(host = "github", repo = "LiqiangJing/DSBench",
          commit = "ba786096137a5108af11c016ad3f09cdb97beefd"),
        list(path = "data_analysis/data.json", size = 19407,
             sha256 = "ff822b69d46e08b384fa9b93ff39762c33b9887d315a5653bb536aeaba7572ea"),
        about, role = "answers")
  )
}

dsbench_benchmark <- function() {
  new_benchmark(
    "dsbench", task = dsbench_task,
    summary = list(fn = "dsbench_summary", headline = c("questions", "competitions"),
                   by = "competition",
                   interval = c(normal = mean_ci_interval("normal"),
                                bootstrap = mean_ci_interval("bootstrap"))),
    data = list(dataset = dsbench_dataset,
                # the sample's questions read their workbooks and images there
                sample = list(table = "extdata/dsbench-sample.parquet", items = 7L,
                              files = "extdata/dsbench"),
                versions = dsbench_versions(), prepare = prepare_dsbench,
                prepare_pinned = function(rows, files)
                  prepare_dsbench(dsbench_real_dir(rows, files)),
                flattener = "dsbench", unpacked = dsbench_real_dir),
    # questions of one competition share its workbooks
    comparison = list(cluster = "competition_id"),
    # the original's LLM judge: a set without one is refused before it pays
    judging = list(needs_judge = TRUE, scorer = function(judge) dsbench_rescorer(judge))
  )
}

# The original judge, for rescore(): a log holds each question's prompt, not its question
# file, which the judge reads; the prompt ends with it (dsbench_files_prompt() and the
# flattener's prompt both end "The questions are detailed as follows. \n <question>").
dsbench_rescorer <- function(judge) {
  scorer <- dsbench_scorer(scorer_chat = judge)
  function(samples, ...) {
    if (!"question" %in% names(samples)) samples$question <- dsbench_question_of(samples$input)
    scorer(samples, ...)
  }
}

dsbench_question_of <- function(input) {
  marker <- "The questions are detailed as follows. \n "
  at <- vapply(gregexpr(marker, input, fixed = TRUE), function(m) max(m), 1)
  ifelse(at > 0, substring(input, at + nchar(marker)), input)
}
