# FutureX as one benchmark object: what the shared layers know about it.

futurex_citation <- "Zeng et al. (2025). FutureX: An Advanced Live Benchmark for LLM Agents in Future Prediction. arXiv:2508.11987."

futurex_versions <- function() {
  repo <- "LanLanLan-Ian/Prediction"
  commit <- "8b20fc87116c5ebe14d90552ac894e2b6c25ec20"
  pin <- c(host = "github", repo = repo, commit = commit)
  about <- function(items) {
    list(licence = no_licence(repo), citation = futurex_citation, items = items)
  }
  rbind(
    pinned_file("futurex", "250915", TRUE, pin, list(path = "dataset/250915.json", size = 55723,
        sha256 = "602ab824d07acef7b48d0137a8ff9ceb2b6e763b82172d3181c1bd8744298403"), about(53)),
    pinned_file("futurex", "sp500", FALSE, pin, list(path = "dataset/25sp500.json", size = 35820,
        sha256 = "b7f29d1639d362d5b7699b528eebbbd07f6501c6912b8d781e399cf237c31288"), about(50))
  )
}

# FutureX's overall: sum of level means times their weights, over the levels present.
futurex_weighted_score <- function(items) {
  means <- tapply(items$score, items$level, mean)
  sum(means * futurex_weights[names(means)])
}

futurex_benchmark <- function() {
  new_benchmark(
    "futurex", task = futurex_task,
    summary = list(fn = "futurex_summary",
                   headline = c("overall", "overall_present_levels", paste("level", 1:4)),
                   by = "level", interval = futurex_interval),
    data = list(dataset = futurex_dataset,
                sample = list(table = "extdata/futurex-sample.parquet", items = 11L),
                versions = futurex_versions(), prepare = prepare_futurex, flattener = "futurex"),
    comparison = list(statistic = futurex_weighted_score, columns = "level"),
    # rescore(): the numeric judge (the level and std it reads are in every log)
    judging = list(scorer = function(judge) futurex_scorer(scorer_chat = judge))
  )
}
