# From a fresh R session pointed at local stand-ins for GitHub and Hugging Face, every task
# runs its default version with no data argument. The fixtures are the package's own raw
# sample files (and a data.zip the test builds), pinned with their own checksums through
# the option predictivebench.versions; the real pins are checked in test-datasets-versions.R.

e2e_pins <- function(zip) {
  ext <- function(...) system.file("extdata", ..., package = "predictivebench")
  probsem <- c("inputs/weather.txt" = ext("probsem", "weather.txt"),
               "inputs/weather_choice.json" = ext("probsem", "weather_choice.json"),
               "inputs/weather_truth.json" = ext("probsem", "weather_truth.json"))
  rbind(
    fixture_pins("futurex", "fx", "github", "LanLanLan-Ian/Prediction",
                 c("dataset/fx.json" = ext("futurex-questions.json"))),
    fixture_pins("processbench", "pb", "hf", "Qwen/ProcessBench",
                 c("gsm8k.json" = ext("processbench-sample.json")), role = "split"),
    fixture_pins("deltabench", "db", "hf", "OpenStellarTeam/DeltaBench",
                 c("Deltabench_v1.jsonl" = ext("deltabench-sample.jsonl"))),
    fixture_pins("dsbench", "ds", "hf", "liqiang888/DSBench",
                 c("data_analysis/data.zip" = zip), role = "zip", sha256 = FALSE),
    fixture_pins("dsbench", "ds", "github", "LiqiangJing/DSBench",
                 c("data_analysis/data.json" = ext("dsbench", "data.json")), role = "answers"),
    fixture_pins("arena", "aq", "github", "v-xchen-v/EloBench",
                 c("data/aq/questions.csv" = ext("arena", "data", "sample", "questions.csv"))),
    fixture_pins("probsem", "ps", "github", "benlipkin/probsem", probsem,
                 role = c("prompt", "suite", "suite"))
  )
}

run_every_task <- function(pins, datasets, hf, gh, pkg) {
  # the package as a user has it: without the test helpers (which turn the network off)
  suppressMessages(pkgload::load_all(pkg, quiet = TRUE, helpers = FALSE))
  Sys.setenv(HF_ENDPOINT = hf, PREDICTIVEBENCH_GITHUB_URL = gh)
  options(predictivebench.versions = pins, predictivebench.datasets_dir = datasets)
  logs <- tempfile()
  run <- function(tsk, chat) {
    tsk$eval(solver_chat = chat, view = FALSE)
    s <- tsk$get_samples()
    c(n = nrow(s), scored = sum(!is.na(s$score)))
  }
  out <- suppressMessages(list(
    futurex = run(futurex_task(solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = logs),
                  baseline_random(c("A", "B", "Yes", "No"), "\\boxed{%s}")),
    processbench = run(processbench_task(solver = processbench_solver(settings = request_settings(cache = FALSE)), dir = logs),
                       baseline_random(c("-1", "0", "1", "2"), "\\boxed{%s}")),
    deltabench = run(deltabench_task(solver = deltabench_solver(settings = request_settings(cache = FALSE)), dir = logs),
                     baseline_constant("Conclusion: yes\nError Section Number: 2\nExplanation: x")),
    dsbench = run(dsbench_task(solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                               scorer = dsbench_scorer_exact(), dir = logs),
                  baseline_constant("The answer is C.")),
    probsem = run(probsem_task(solver = probsem_solver(settings = list(cache = FALSE)),
                               dir = logs),
                  baseline_constant("")),
    arena_questions = c(n = nrow(arena_dataset()), scored = NA)
  ))
  # the default version's questions, copied into an EloBench folder from the datasets cache
  elobench <- tempfile()
  models <- list(long = baseline_chat(function(q) paste("A long answer to", q), "long"),
                 short = baseline_chat(function(q) "Ok.", "short"))
  arena <- suppressMessages(suppressWarnings(
    arena_run(models, arena_baseline_judge("longer"), version = "aq", elobench = elobench,
              dir = logs,
              options = arena_options(experiment = "e2e", n = 1,
                                      ratings = rating_options(method = "elo", bootstrap = 10)))
  ))
  out$arena_run <- c(n = nrow(arena$ratings), scored = nrow(arena$records),
                     questions = length(arena_read_questions(
                       file.path(elobench, "data", "aq", "questions.csv"))),
                     log = file.exists(arena$paths$log))
  out
}

test_that("every task runs its default version from a fresh session, then from the cache", {
  skip_if_no_python()
  skip_if_not_installed("callr")
  skip_if(!nzchar(Sys.which("zip")), "no zip program to build the archive")
  zip <- file.path(withr::local_tempdir(), "data.zip")
  withr::with_dir(system.file("extdata", "dsbench", package = "predictivebench"),
                  utils::zip(zip, "data", flags = "-qr"))
  pins <- e2e_pins(zip)
  servers <- local_pinned_servers(pins)
  args <- list(pins, datasets_dir(), servers$hf$url, servers$gh$url, skip_if_no_source_tree())
  out <- callr::r(run_every_task, args = args)
  n <- vapply(out, function(x) unname(x[["n"]]), 1)
  expect_equal(n[["futurex"]], nrow(futurex_dataset(version = "sample")))
  expect_equal(n[["processbench"]], nrow(prepare_processbench(pins$local[pins$benchmark == "processbench"])))
  expect_equal(n[["deltabench"]], nrow(deltabench_dataset(version = "sample")))
  expect_equal(n[["dsbench"]], nrow(dsbench_dataset(version = "sample")))
  expect_equal(n[["probsem"]], nrow(probsem_dataset(version = "sample")))
  expect_equal(n[["arena_questions"]], nrow(arena_dataset(version = "sample")))
  expect_equal(n[["arena_run"]], 2)
  expect_gt(out$arena_run[["scored"]], 0)
  expect_equal(out$arena_run[["questions"]], nrow(arena_dataset(version = "sample")))
  expect_equal(out$arena_run[["log"]], 1)
  expect_true(all(vapply(out[1:4], function(x) x[["scored"]] > 0, TRUE)))
  requests <- nrow(servers$gh$log()) + nrow(servers$hf$log())
  expect_equal(requests, nrow(pins))
  expect_true(all(benchmark_versions()$cached))

  # A second fresh session makes no request at all.
  out2 <- callr::r(run_every_task, args = args)
  expect_equal(out2[names(out2) != "arena_run"], out[names(out) != "arena_run"])
  expect_equal(nrow(servers$gh$log()) + nrow(servers$hf$log()), requests)
})

# ProcessBench's real default: four splits, 3,400 samples, one task table with a `split`
# column. The reference holds gsm8k (400); the other three splits are made here in the same
# schema from its records, 1,000 each, with their own ids.
synthetic_split <- function(records, split, n, dir) {
  rows <- rep_len(seq_along(records), n)
  out <- lapply(seq_len(n), function(i) {
    r <- records[[rows[[i]]]]
    r$id <- sprintf("%s-%d", split, i - 1L)
    r
  })
  path <- file.path(dir, paste0(split, ".json"))
  jsonlite::write_json(out, path, auto_unbox = TRUE)
  path
}

test_that("processbench_task() runs all 3,400 samples of its four splits", {
  skip_if_no_python()
  gsm8k <- skip_if_no_reference("processbench", "gsm8k.json")
  dir <- withr::local_tempdir()
  records <- jsonlite::read_json(gsm8k)
  files <- c("gsm8k.json" = gsm8k,
             vapply(c(math = "math", olympiadbench = "olympiadbench", omnimath = "omnimath"),
                    function(s) synthetic_split(records, s, 1000, dir), ""))
  names(files) <- c("gsm8k.json", "math.json", "olympiadbench.json", "omnimath.json")
  pins <- fixture_pins("processbench", "hf", "hf", "Qwen/ProcessBench", files, role = "split",
                       items = 3400)
  local_pinned_servers(pins)
  # one vote a sample keeps the 3,400 samples quick; the votes are tested elsewhere
  tsk <- suppressMessages(processbench_task(solver = processbench_solver(n_votes = 1,
                                                                         settings = request_settings(cache = FALSE)),
                                            dir = withr::local_tempdir()))
  tsk$eval(solver_chat = baseline_random(c("-1", "0", "1", "2"), "\\boxed{%s}"), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), 3400)
  expect_false(anyNA(samples$score))
  split <- suppressMessages(processbench_dataset())$split
  expect_equal(as.vector(table(split)[c("gsm8k", "math", "olympiadbench", "omnimath")]),
               c(400, 1000, 1000, 1000))
})
