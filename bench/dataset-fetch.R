# Time of the first and second `<bench>_dataset()` call against local stand-ins for GitHub and
# Hugging Face (tests/testthat/helper-pinned-server.R): the first downloads, verifies,
# flattens and caches; the second must read the cache, make no request and take well under
# a second. Real files from ../shared/reference are served under their real pins where
# present; EloBench's full `rwq` size (20,772 questions) is made up to the same row count.
#
#   Rscript bench/dataset-fetch.R
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("tests/testthat/helper-pinned-server.R")
if (!nzchar(Sys.getenv("RETICULATE_PYTHON")) && file.exists("/usr/bin/python3")) {
  Sys.setenv(RETICULATE_PYTHON = "/usr/bin/python3")
}
ref <- function(...) file.path("..", "shared", "reference", ...)
real_pins <- function(benchmark, version, files) {
  pins <- pinned_files()
  rows <- pins[pins$benchmark == benchmark & pins$version == version & pins$path %in% names(files), ]
  rows$local <- unname(files[rows$path])
  rows
}

big_questions <- tempfile(fileext = ".csv")
utils::write.csv(data.frame(question = sprintf("Made-up question number %d: why is %d odd or even?",
                                               seq_len(20772), seq_len(20772))),
                 big_questions, row.names = FALSE)

cases <- list(
  list(name = "futurex 250915 (real file)", call = quote(futurex_dataset()),
       pins = function() real_pins("futurex", "250915", c("dataset/250915.json" = ref("futurex", "250915.json")))),
  list(name = "processbench 2f2fd8ae, gsm8k split (real file)",
       call = quote(processbench_dataset(version = "2f2fd8ae")),
       pins = function() real_pins("processbench", "2f2fd8ae", c("dataset/gsm8k.json" = ref("processbench", "gsm8k.json")))),
  list(name = "arena rwq_200 (real file)", call = quote(arena_dataset(version = "rwq_200")),
       pins = function() real_pins("arena", "rwq_200", c("data/rwq_200/questions.csv" = ref("elobench", "rwq_200_questions.csv")))),
  list(name = "arena, 20,772 made-up questions", call = quote(arena_dataset()),
       pins = function() fixture_pins("arena", "big", "github", "v-xchen-v/EloBench", c("data/big/questions.csv" = big_questions))),
  list(name = "probsem cogsci2023 AV-1 (real files)", call = quote(probsem_dataset()),
       pins = function() real_pins("probsem", "cogsci2023", c(
         "inputs/tug-of-war.txt" = ref("probsem-cogsci2023", "tug-of-war.txt"),
         "inputs/tug-of-war_AV-1a.json" = ref("probsem-cogsci2023", "tug-of-war_AV-1a.json"),
         "inputs/tug-of-war_AV-1b.json" = ref("probsem-cogsci2023", "tug-of-war_AV-1b.json"))))
)

time_case <- function(case) {
  pins <- case$pins()
  if (!all(file.exists(pins$local))) return(NULL)
  servers <- local_pinned_servers(pins)
  first <- system.time(a <- suppressMessages(eval(case$call)))[["elapsed"]]
  requests <- nrow(servers$gh$log()) + nrow(servers$hf$log())
  second <- system.time(b <- suppressMessages(eval(case$call)))[["elapsed"]]
  again <- nrow(servers$gh$log()) + nrow(servers$hf$log()) - requests
  data.frame(dataset = case$name, rows = nrow(b), bytes = sum(pins$size), first_s = first,
             second_s = second, ratio = round(first / second), requests_first = requests,
             requests_second = again)
}

# Python starts once, outside the timings, as in a session that already flattened something.
invisible(python_module())
rows <- do.call(rbind, lapply(cases, time_case))
print(rows, row.names = FALSE, digits = 3)
