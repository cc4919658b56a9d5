# probsem as one benchmark object: what the shared layers know about it.

probsem_citation <- "Lipkin, Wong, Grand and Tenenbaum (2023). Evaluating statistical language models as pragmatic reasoners. CogSci 2023."

probsem_versions <- function() {
  pinned_file("probsem", "cogsci2023", TRUE,
      c(host = "github", repo = "benlipkin/probsem",
        commit = "5d0c92c495c7d181722d10f1e952b34deac82f66"),
      list(path = c("inputs/tug-of-war.txt", "inputs/tug-of-war_AV-1a.json",
        "inputs/tug-of-war_AV-1b.json", "inputs/tug-of-war-mix.txt",
        "inputs/tug-of-war-mix_AV-2a.json", "inputs/tug-of-war-mix_AV-2b.json",
        "inputs/tug-of-war-mix_AV-2c.json", "paper/tug-of-war_AV-1_human_results.csv",
        "paper/tug-of-war-mix_AV-2_human_results.csv"),
      size = c(1039, 1423, 1422, 1211, 1337, 1315, 1401, 3734, 4455),
      sha256 = c("bdc45a35cb0cc72d3bfea938ea59396fc7acba22fb9df52c340fa14479c7c31d",
        "79d9a1e09ed23966788b0d1a4b4c509bdbfcc2308a059ea935fac3b35b923d26",
        "4768e2b2eb99e9ae1aa10fe97b30f62dbdbf2acb353d40c78d6d152da8d8dc39",
        "9fd14be78e0678e905c1a1ebf20e6cc330714b7e79614244698d4473f6b32505",
        "5c2b1e58d040f94669bb48c4d7f23514fb748628806b36fa3936906a6d51a3bf",
        "a514fe7b333d517f0600d536ed10745d3e223e56ae421d2fbbd4f8f2ad48b038",
        "64826f8465daeda7f39060b35b74fb033338437053b777a8b31c6e17ffe2a70d",
        "b26cf98c63c6dd934bd563c87c5bf090489732b7945ba0a246eedb070bf8794d",
        "75330871080415d6d0b1004bb5be18fc992202c1a28d0ba3f9f9b6659818279b")),
      list(licence = "MIT", citation = probsem_citation, items = 36),
      role = c("prompt", rep("suite", 2), "prompt", rep("suite", 3), rep("humans", 2)))
}

# Each prompt file with its own suites (`<prompt>_*.json`, found by the flattener).
prepare_probsem_version <- function(rows, files) {
  prompts <- files[rows$role == "prompt"]
  tables <- lapply(prompts, prepare_probsem)
  tibble::as_tibble(do.call(rbind, tables))
}

probsem_benchmark <- function() {
  new_benchmark(
    "probsem", task = probsem_task,
    summary = list(fn = "probsem_summary", headline = NULL, by = "suite",
                   interval = c(normal = mean_ci_interval("normal"),
                                bootstrap = mean_ci_interval("bootstrap")),
                   lower_is_better = "js_distance"),
    data = list(dataset = probsem_dataset,
                sample = list(table = "extdata/probsem-sample.parquet", items = 6L),
                versions = probsem_versions(), prepare = prepare_probsem,
                prepare_pinned = prepare_probsem_version, flattener = "probsem")
  )
}
