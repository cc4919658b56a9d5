# The pinned versions: the table, and the real bytes (from ../shared/reference) against it.

test_that("every benchmark has exactly one default version, pinned at a 40-hex commit", {
  pins <- pinned_files()
  # the benchmarks with pinned versions, from the registry
  pinned <- names(Filter(function(e) !is.null(e$versions), registrations()))
  expect_gte(length(pinned), 1)
  expect_setequal(unique(pins$benchmark), pinned)
  defaults <- unique(pins[pins$default, c("benchmark", "version")])
  expect_equal(anyDuplicated(defaults$benchmark), 0)
  expect_setequal(defaults$benchmark, pinned)
  expect_true(all(grepl("^[0-9a-f]{40}$", pins$commit)))
  expect_true(all(is.na(pins$sha256) | grepl("^[0-9a-f]{64}$", pins$sha256)))
  expect_false(anyNA(pins$licence))
})

test_that("benchmark_versions() lists URLs in the real layouts, under the two variables", {
  withr::local_envvar(HF_ENDPOINT = NA, PREDICTIVEBENCH_GITHUB_URL = NA)
  withr::local_options(predictivebench.datasets_dir = withr::local_tempdir())
  v <- benchmark_versions("processbench")
  expect_named(v, c("benchmark", "version", "default", "items", "licence", "file", "size",
                    "url", "sha256", "verified", "citation", "cached"))
  expect_equal(v$url[v$version == "hf"][[1]],
               "https://huggingface.co/datasets/Qwen/ProcessBench/resolve/3bdcd5371ed567559a78f559c01c13a6deee7604/gsm8k.json")
  expect_equal(v$url[v$version == "2f2fd8ae"][[1]],
               "https://raw.githubusercontent.com/QwenLM/ProcessBench/2f2fd8ae590aeb949f7be265478b05280f93db68/dataset/gsm8k.json")
  expect_false(any(v$cached[v$version != "sample"]))
  withr::local_envvar(HF_ENDPOINT = "http://mirror.test/", PREDICTIVEBENCH_GITHUB_URL = "http://gh.test")
  v <- benchmark_versions("processbench")
  expect_match(v$url[v$version == "hf"][[1]], "^http://mirror.test/datasets/Qwen/")
  expect_match(v$url[v$version == "2f2fd8ae"][[1]], "^http://gh.test/QwenLM/")
  expect_equal(sum(benchmark_versions("dsbench")$licence == "non-commercial use only"), 2)
  delta <- benchmark_versions("deltabench")
  expect_match(unique(delta$licence[delta$version != "sample"]), "none declared")
})

test_that("the real FutureX 250915.json matches its pin: 53 questions", {
  skip_if_no_python()
  pins <- reference_pins("futurex", "250915", c("dataset/250915.json" = "futurex/250915.json"))
  expect_equal(pins$sha256, digest::digest(file = pins$local, algo = "sha256"))
  expect_equal(pins$size, file.size(pins$local))
  local_pinned_servers(pins)
  fx <- suppressMessages(futurex_dataset())
  expect_equal(nrow(fx), 53)
  expect_equal(nrow(fx), pins$items)
  expect_equal(anyDuplicated(fx$id), 0)
})

test_that("the real ProcessBench gsm8k.json matches the 2f2fd8ae pin: 400 samples", {
  skip_if_no_python()
  pins <- reference_pins("processbench", "2f2fd8ae",
                         c("dataset/gsm8k.json" = "processbench/gsm8k.json"))
  expect_equal(pins$sha256, digest::digest(file = pins$local, algo = "sha256"))
  expect_equal(pins$size, file.size(pins$local))
  servers <- local_pinned_servers(pins)
  pb <- suppressMessages(processbench_dataset(version = "2f2fd8ae"))
  expect_equal(nrow(pb), 400)
  expect_equal(sum(pb$label != -1), 207)
  expect_equal(unique(pb$task_l1), "gsm8k")
  expect_equal(servers$gh$log()$path,
               "/QwenLM/ProcessBench/2f2fd8ae590aeb949f7be265478b05280f93db68/dataset/gsm8k.json")
})

test_that("the real EloBench rwq_200 questions match their pin: 200 questions", {
  pins <- reference_pins("arena", "rwq_200",
                         c("data/rwq_200/questions.csv" = "elobench/rwq_200_questions.csv"))
  expect_equal(pins$sha256, digest::digest(file = pins$local, algo = "sha256"))
  local_pinned_servers(pins)
  q <- suppressMessages(arena_dataset(version = "rwq_200"))
  expect_equal(sum(q$occurrences), 200)
  expect_equal(nrow(q), pins$items)
})

test_that("benchmark_versions() counts the rows each sample dataset gives, for every benchmark", {
  v <- benchmark_versions()
  samples <- v[v$version == "sample", ]
  expect_setequal(samples$benchmark, unique(pinned_files()$benchmark))
  for (b in samples$benchmark) {
    data <- suppressMessages(get(paste0(b, "_dataset"))(version = "sample"))
    expect_equal(samples$items[samples$benchmark == b], nrow(data), label = b)
  }
  expect_true(all(file.exists(system.file(samples$file, package = "predictivebench"))))
  expect_true(all(is.na(samples$url)) && all(samples$cached) && !any(samples$default))
  # one row per pinned file besides
  expect_equal(sum(v$version != "sample"), nrow(pinned_files()))
})

test_that("the arena counts unique questions: quora_100 asks one question twice", {
  # EloBench's answer cache for quora_100 has one row per question the dataset holds
  answers <- arena_read_answers(skip_if_no_reference("elobench", "quora_100_q_and_as.csv"))
  quora <- benchmark_versions("arena")
  expect_equal(quora$items[quora$version == "quora_100"], length(unique(answers$question)))
  expect_equal(quora$items[quora$version == "quora_100"], 99)
})

test_that("the real DSBench data.json matches its pin: 38 competitions, 466 questions", {
  pins <- reference_pins("dsbench", "v1", c("data_analysis/data.json" = "dsbench/data.json"))
  local_pinned_servers(pins)
  files <- suppressMessages(fetch_benchmark("dsbench", "v1"))
  lines <- readLines(files[["data_analysis/data.json"]], warn = FALSE)
  lines <- lines[nzchar(trimws(lines))]
  questions <- vapply(lines, function(l) length(jsonlite::fromJSON(l)$questions), 1L)
  expect_equal(length(lines), 38)
  expect_equal(sum(questions), pins$items)
})

test_that("the real probsem CogSci 2023 files match their pins", {
  skip_if_no_python()
  ref <- c("inputs/tug-of-war.txt" = "probsem-cogsci2023/tug-of-war.txt",
           "inputs/tug-of-war_AV-1a.json" = "probsem-cogsci2023/tug-of-war_AV-1a.json",
           "inputs/tug-of-war_AV-1b.json" = "probsem-cogsci2023/tug-of-war_AV-1b.json",
           "paper/tug-of-war_AV-1_human_results.csv" = "probsem-cogsci2023/tug-of-war_AV-1_human_results.csv")
  pins <- reference_pins("probsem", "cogsci2023", ref)
  expect_equal(nrow(pins), 4)
  expect_equal(pins$sha256, unname(vapply(pins$local, digest::digest, "", file = TRUE, algo = "sha256")))
  local_pinned_servers(pins)
  ps <- suppressMessages(probsem_dataset())
  expect_setequal(unique(ps$suite), c("AV-1a", "AV-1b"))
  # one row per context of the suite files (the AV-2 suites make up the pinned 36)
  contexts <- vapply(pins$local[grepl("json$", pins$local)],
                     function(f) length(jsonlite::fromJSON(f, simplifyVector = FALSE)$context), 1L)
  expect_equal(nrow(ps), sum(contexts))
  expect_equal(benchmark_versions("probsem")$items[[1]], 36)
  # every context carries the paper's human judgements of its sentence
  expect_true(all(lengths(ps$human_judgements) > 0))
  humans <- utils::read.csv(pins$local[grepl("human", pins$local)], check.names = FALSE)
  jack <- ps$human_judgements[[match(";; Jack is strong.", ps$text)]]
  expect_equal(jack, humans[["jack is strong"]][!is.na(humans[["jack is strong"]])])
  expect_true(file.exists(file.path(datasets_dir(), "probsem", "cogsci2023", "files", "paper",
                                    "tug-of-war_AV-1_human_results.csv")))
})

test_that("a misspelt benchmark is an error saying which was meant, not an empty table", {
  err <- expect_error(benchmark_versions("futurx"), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "No benchmark \"futurx\" is registered", fixed = TRUE)
  expect_match(conditionMessage(err), "Did you mean \"futurex\"?", fixed = TRUE)
  expect_equal(err$suggestion, "futurex")
  err <- expect_error(fetch_benchmark("ProcessBench"), class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "Did you mean \"processbench\"?", fixed = TRUE)
  # nothing near: the list alone
  err <- expect_error(benchmark_versions("zzzzzzzzzz"), class = "predictivebench_error_argument")
  expect_no_match(conditionMessage(err), "Did you mean")
  # a registered benchmark without data has no versions, and says so with an empty table
  local_benchmarks(list(new_benchmark("nodata_bench", task = function(...) NULL,
                                      summary = list(fn = function(x, ...) NULL,
                                                     headline = "accuracy"))))
  expect_equal(nrow(benchmark_versions("nodata_bench")), 0)
})
