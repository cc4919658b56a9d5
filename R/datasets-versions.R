# The real benchmarks: every named version pinned to an immutable commit, one row per file.
#
# Sizes and sha256 were computed from the bytes at the pinned commits (the GitHub files) or
# read from the Git LFS pointer (DeltaBench). An NA sha256 means the bytes were not available
# when the table was written: the pin is still the commit, the size and the server's
# X-Linked-Etag are checked when known, and the sha256 is recorded at the first download and
# verified on every later use (see fetch_version()).

futurex_citation <- "Zeng et al. (2025). FutureX: An Advanced Live Benchmark for LLM Agents in Future Prediction. arXiv:2508.11987."
processbench_citation <- "Zheng et al. (2024). ProcessBench: Identifying Process Errors in Mathematical Reasoning. arXiv:2412.06559."
deltabench_citation <- "He et al. (2025). Can Large Language Models Detect Errors in Long Chain-of-Thought Reasoning? arXiv:2502.19361."
dsbench_citation <- "Jing et al. (2024). DSBench: How Far Are Data Science Agents to Becoming Data Science Experts? arXiv:2409.07703."
elobench_citation <- "EloBench, https://github.com/v-xchen-v/EloBench (commit 8b4c130)."
probsem_citation <- "Lipkin, Wong, Grand and Tenenbaum (2023). Evaluating statistical language models as pragmatic reasoners. CogSci 2023."

no_licence <- function(repo) paste0("none declared (the ", repo, " repository has no licence)")

# One row per file. `host` is "github" (raw.githubusercontent.com) or "hf" (a Hugging Face
# dataset); `role` says what the preparer does with the file.
pinned_files <- function() {
  futurex <- "LanLanLan-Ian/Prediction"
  futurex_commit <- "8b20fc87116c5ebe14d90552ac894e2b6c25ec20"
  pb_hf_commit <- "3bdcd5371ed567559a78f559c01c13a6deee7604"
  pb_gh_commit <- "2f2fd8ae590aeb949f7be265478b05280f93db68"
  elo <- "v-xchen-v/EloBench"
  elo_commit <- "8b4c13097bb95b5c461df76fe3d4d0cd95a53c59"
  probsem <- "benlipkin/probsem"
  probsem_commit <- "5d0c92c495c7d181722d10f1e952b34deac82f66"
  splits <- c("gsm8k", "math", "olympiadbench", "omnimath")
  rows <- list(
    pin("futurex", "250915", TRUE, "github", futurex, futurex_commit, "dataset/250915.json",
        55723, "602ab824d07acef7b48d0137a8ff9ceb2b6e763b82172d3181c1bd8744298403",
        no_licence(futurex), futurex_citation, 53),
    pin("futurex", "sp500", FALSE, "github", futurex, futurex_commit, "dataset/25sp500.json",
        35820, "b7f29d1639d362d5b7699b528eebbbd07f6501c6912b8d781e399cf237c31288",
        no_licence(futurex), futurex_citation, 50),
    pin("processbench", "hf", TRUE, "hf", "Qwen/ProcessBench", pb_hf_commit,
        paste0(splits, ".json"), NA, NA, "apache-2.0", processbench_citation, 3400,
        role = "split"),
    pin("processbench", "2f2fd8ae", FALSE, "github", "QwenLM/ProcessBench", pb_gh_commit,
        paste0("dataset/", splits, ".json"), c(574343, 1938778, 2808955, 2842872),
        c("fb1c59dfd1e83e1c5a48dbe598db27e4bc0b8bc524a09445f2d4b69178f61349",
          "520ae64463d6ceb4bf13af31693389a5d5b14934cdad3468193dea4a5ceb0414",
          "e9d801c9f3c03f949adbfa08e90cb21ad85c0b9224bc5e98326f8215c218aa55",
          "e8d7cf4512c82168dae2fe48b1718069a3002e7910af1d180a27ee0d9948ba47"),
        paste(no_licence("QwenLM/ProcessBench"), "at this commit; its Hugging Face copy is apache-2.0"),
        processbench_citation, 3400, role = "split"),
    pin("deltabench", "v1", TRUE, "hf", "OpenStellarTeam/DeltaBench",
        "0952360c055990b828a8d27f6a4916f6a174dd67", "Deltabench_v1.jsonl", 65296034,
        "d8d36e95e37f2f0a4fd607ff2f47ab852cc70dc2306cecfc08af0378212b0648",
        "none declared (the dataset card names no licence)", deltabench_citation, 1236),
    pin("dsbench", "v1", TRUE, "hf", "liqiang888/DSBench",
        "1196d6553ec200e1262841efc89cda5954ffe89f", "data_analysis/data.zip", NA, NA,
        "non-commercial use only", dsbench_citation, 466, role = "zip"),
    pin("dsbench", "v1", TRUE, "github", "LiqiangJing/DSBench",
        "ba786096137a5108af11c016ad3f09cdb97beefd", "data_analysis/data.json", 19407,
        "ff822b69d46e08b384fa9b93ff39762c33b9887d315a5653bb536aeaba7572ea",
        "non-commercial use only", dsbench_citation, 466, role = "answers"),
    pin("arena", "rwq", TRUE, "github", elo, elo_commit, "data/rwq/questions.csv", 4022374,
        "c71be292f2ed6cf27ca79d9267e351c3ca192a5bb290c36b4d8b093d6a4f461d", no_licence(elo),
        elobench_citation, 20772),
    pin("arena", "rwq_200", FALSE, "github", elo, elo_commit, "data/rwq_200/questions.csv",
        35650, "d1d304bf43adcb18e8d7f06b970793d0444f56d0bb9f121889cccc26383abf8e",
        no_licence(elo), elobench_citation, 200),
    pin("arena", "quora_100", FALSE, "github", elo, elo_commit,
        "data/quora_100/questions.csv", 8846,
        "692119fbe31b297ccb74a6894ed3cd905fdb20728b769cd149c6b58397946edb", no_licence(elo),
        elobench_citation, 99),
    pin("probsem", "cogsci2023", TRUE, "github", probsem, probsem_commit,
        c("inputs/tug-of-war.txt", "inputs/tug-of-war_AV-1a.json",
          "inputs/tug-of-war_AV-1b.json", "inputs/tug-of-war-mix.txt",
          "inputs/tug-of-war-mix_AV-2a.json", "inputs/tug-of-war-mix_AV-2b.json",
          "inputs/tug-of-war-mix_AV-2c.json", "paper/tug-of-war_AV-1_human_results.csv",
          "paper/tug-of-war-mix_AV-2_human_results.csv"),
        c(1039, 1423, 1422, 1211, 1337, 1315, 1401, 3734, 4455),
        c("bdc45a35cb0cc72d3bfea938ea59396fc7acba22fb9df52c340fa14479c7c31d",
          "79d9a1e09ed23966788b0d1a4b4c509bdbfcc2308a059ea935fac3b35b923d26",
          "4768e2b2eb99e9ae1aa10fe97b30f62dbdbf2acb353d40c78d6d152da8d8dc39",
          "9fd14be78e0678e905c1a1ebf20e6cc330714b7e79614244698d4473f6b32505",
          "5c2b1e58d040f94669bb48c4d7f23514fb748628806b36fa3936906a6d51a3bf",
          "a514fe7b333d517f0600d536ed10745d3e223e56ae421d2fbbd4f8f2ad48b038",
          "64826f8465daeda7f39060b35b74fb033338437053b777a8b31c6e17ffe2a70d",
          "b26cf98c63c6dd934bd563c87c5bf090489732b7945ba0a246eedb070bf8794d",
          "75330871080415d6d0b1004bb5be18fc992202c1a28d0ba3f9f9b6659818279b"),
        "MIT", probsem_citation, 36,
        role = c("prompt", rep("suite", 2), "prompt", rep("suite", 3), rep("humans", 2)))
  )
  do.call(rbind, rows)
}

# `items` is the number of rows `<bench>_dataset(version = )` returns (contexts for probsem,
# unique questions for the arena: EloBench's quora_100 asks one of its 100 questions twice),
# counted on the pinned bytes (tests/testthat/test-datasets-versions.R checks those in
# ../shared/reference).
pin <- function(benchmark, version, default, host, repo, commit, path, size, sha256, licence,
                citation, items, role = "data") {
  tibble::tibble(
    benchmark = benchmark, version = version, default = default, host = host, repo = repo,
    commit = commit, path = path, size = as.numeric(size), sha256 = as.character(sha256),
    licence = licence, citation = citation, items = as.integer(items), role = role
  )
}

# The table in use. The option `predictivebench.versions` replaces it (a data frame in the
# layout of pinned_files()): how tests point the whole flow at fixtures with their own
# checksums, and how a user can pin a version the package does not list.
versions_table <- function() {
  table <- getOption("predictivebench.versions")
  if (is.null(table)) return(pinned_files())
  needed <- names(pinned_files())
  if (!is.data.frame(table) || !all(needed %in% names(table))) {
    abort_pb(c("Option {.code predictivebench.versions} must be a data frame of pinned files.",
               i = "Columns: {.field {needed}}."), "argument")
  }
  tibble::as_tibble(table[needed])
}

# The rows of one benchmark's version (its default when `version` is NULL).
version_files <- function(benchmark, version = NULL, call = rlang::caller_env()) {
  table <- versions_table()
  table <- table[table$benchmark == benchmark, , drop = FALSE]
  known <- unique(table$version)
  version <- version %||% unique(table$version[table$default])[1]
  if (!rlang::is_string(version) || !version %in% known) {
    abort_pb(
      c("{.val {version}} is not a version of {benchmark}.",
        i = "Versions: {.val {c(known, 'sample')}}; see {.fn benchmark_versions}."),
      "argument", call = call
    )
  }
  table[table$version == version, , drop = FALSE]
}

#' The pinned versions of the real benchmarks
#'
#' Every benchmark's real data comes in named versions, each pinned to a 40-hex commit of
#' the original repository on GitHub or Hugging Face. `benchmark_versions()` lists them, one
#' row per file, and says which are already in the local cache. `<bench>_dataset()` with no
#' data argument downloads and prepares the default version on first use (see
#' [fetch_benchmark()]); `version = "sample"` gives the small bundled sample instead.
#'
#' Sizes and sha256 come from the pinned bytes. Where the sha256 is `NA` (the Hugging Face
#' files of ProcessBench `hf` and DSBench's `data.zip`) the pin is still the commit: the
#' size and the server's `X-Linked-Etag` are checked when known, and the sha256 is recorded
#' at the first download and verified on every later use.
#'
#' @param benchmark `NULL` for all, or one of `"futurex"`, `"processbench"`,
#'   `"deltabench"`, `"dsbench"`, `"arena"`, `"probsem"`.
#' `items` is the number of rows `<bench>_dataset(version = )` returns: questions
#' (FutureX, DSBench), solutions (ProcessBench, DeltaBench), contexts (probsem) and unique
#' questions (the arena: EloBench's `quora_100` lists 100 questions, one of them twice, so it
#' has 99 items). Each benchmark's bundled sample is listed too, as version `"sample"`, with
#' its file inside the installed package and no URL.
#'
#' @returns A tibble: `benchmark`, `version`, `default`, `items` (rows of the version's
#'   dataset), `licence`, `file`, `size` (bytes), `url`, `sha256`, `citation` and `cached`
#'   (the file is in the cache; always `TRUE` for a sample).
#' @family data
#' @export
#' @examples
#' benchmark_versions("futurex")
#' subset(benchmark_versions(), default)[c("benchmark", "version", "items", "licence")]
benchmark_versions <- function(benchmark = NULL) {
  check_string(benchmark, allow_null = TRUE)
  table <- versions_table()
  samples <- sample_versions()
  if (!is.null(benchmark)) {
    table <- table[table$benchmark == benchmark, , drop = FALSE]
    samples <- samples[samples$benchmark == benchmark, , drop = FALSE]
  }
  pinned <- tibble::tibble(
    benchmark = table$benchmark, version = table$version, default = table$default,
    items = table$items, licence = table$licence, file = table$path, size = table$size,
    url = redact_url(pinned_url(table)), sha256 = table$sha256, citation = table$citation,
    cached = file.exists(raw_file_path(table))
  )
  bundled <- tibble::tibble(
    benchmark = samples$benchmark, version = rep("sample", nrow(samples)), default = FALSE,
    items = samples$items, licence = "MIT (made up for predictivebench)", file = samples$file,
    size = file.size(system.file(samples$file, package = "predictivebench")),
    url = NA_character_, sha256 = NA_character_, citation = NA_character_, cached = TRUE
  )
  out <- rbind(pinned, bundled)
  out[order(match(out$benchmark, unique(c(pinned$benchmark, bundled$benchmark)))), ]
}

# Each benchmark's bundled sample (`<bench>_dataset(version = "sample")`): its file inside
# the installed package and its rows (tests/testthat/test-datasets-versions.R counts them).
sample_versions <- function() {
  tibble::tibble(
    benchmark = c("futurex", "processbench", "deltabench", "dsbench", "arena", "probsem"),
    file = c("extdata/futurex-sample.parquet", "extdata/deltabench-sample.parquet",
             "extdata/deltabench-sample.parquet", "extdata/dsbench-sample.parquet",
             "extdata/arena/data/sample/questions.csv", "extdata/probsem-sample.parquet"),
    items = c(11L, 8L, 8L, 7L, 8L, 6L)
  )
}

# The download URL of each row: Hugging Face `/datasets/<id>/resolve/<commit>/<path>` under
# HF_ENDPOINT, GitHub `/<owner>/<repo>/<commit>/<path>` under PREDICTIVEBENCH_GITHUB_URL.
pinned_url <- function(rows) {
  hf <- sub("/+$", "", Sys.getenv("HF_ENDPOINT", "https://huggingface.co"))
  gh <- sub("/+$", "", Sys.getenv("PREDICTIVEBENCH_GITHUB_URL",
                                  "https://raw.githubusercontent.com"))
  ifelse(rows$host == "hf",
         paste0(hf, "/datasets/", rows$repo, "/resolve/", rows$commit, "/", rows$path),
         paste0(gh, "/", rows$repo, "/", rows$commit, "/", rows$path))
}
