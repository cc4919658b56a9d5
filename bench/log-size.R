# Size of a log on disk, and the time its readers take (issue 37).
#
# 1. A FutureX-shaped `$eval()` of n samples (default 1,000) at the fast fake server (no
#    latency), so each sample is what a real chat gives (usage, ids, events). Its samples are
#    measured three ways, per sample:
#      before   the whole log as results_log() builds it, serialised pretty-printed in one
#               yyjsonr call (the writer before issue 37);
#      compact  the same samples, compact (one line each), nothing else changed;
#      written  the log file the task wrote (compact and condensed: see condense_sample()).
#    and extrapolated to 20,000 samples (the issue's 159 MB; target under 50 MB).
# 2. A 20,000-sample log, made by writing the run's samples again with new ids through
#    log_writer() (its CPU per sample: condensing and serialising), then the time
#    leaderboard() of its folder, read_log_header() and log_samples() take, beside the floor
#    of reading the file's bytes once.
#
# Run from the package root:  Rscript bench/log-size.R [n=1000] [big=20000]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 1000L
big <- if (length(args) >= 2) as.integer(args[[2]]) else 20000L
cat(machine_line(), "\n")
cat("load average at start:", readLines("/proc/loadavg"), "\n")

server <- fast_fake_server(latency = 0)
chat <- ellmer::chat_openai_compatible(base_url = server$url, model = "fake-model",
                                       credentials = function() "sk-bench-not-a-key")
dir <- tempfile("log-size-")
data <- futurex_shaped(n)
tsk <- futurex_task(data, dir = dir, solver = futurex_solver(
  settings = request_settings(cache = tempfile("cache-"), max_active = 50, rpm = 1e6)))
# one chunk: the "before" figure rebuilds the whole log from the samples the run kept
tsk$chunk_size <- n
suppressMessages(tsk$eval(solver_chat = chat, view = FALSE))
invisible(server$stop())

private <- tsk$.__enclos_env__$private
log <- results_log(tsk, private$pb_fields, private$pb_run_id)
pretty <- yyjsonr::write_json_str(nulls_as_objects(log), opts = log_json_options())
header_only <- log
header_only$samples <- list()
header_bytes <- nchar(yyjsonr::write_json_str(nulls_as_objects(header_only),
                                              opts = log_json_options()), type = "bytes")
compact <- sum(vapply(log$samples, function(s) {
  nchar(yyjsonr::write_json_str(nulls_as_objects(s), opts = sample_json_options()),
        type = "bytes") + 2
}, 1))
written <- file.size(tsk$log_path)
per <- c(before = (nchar(pretty, type = "bytes") - header_bytes) / n,
         compact = compact / n, written = (written - header_bytes) / n)
cat(sprintf("\n%d FutureX-shaped samples: bytes per sample, and a %s-sample log extrapolated\n",
            n, format(big, big.mark = ",")))
for (k in names(per)) {
  cat(sprintf("  %-8s %6.0f bytes/sample  %6.1f MB at %s  (%.2fx before)\n", k, per[[k]],
              (header_bytes + per[[k]] * big) / 1024^2, format(big, big.mark = ","),
              per[[k]] / per[["before"]]))
}
sample <- log_samples(tsk$log_path)
stopifnot(identical(sample$result, tsk$get_samples()$result))

# what one written sample holds, by field (bytes of its compact JSON)
one <- jsonlite::read_json(tsk$log_path)$samples[[1]]
sizes <- vapply(one, function(x) {
  nchar(yyjsonr::write_json_str(x, opts = sample_json_options()), type = "bytes")
}, 1)
cat("  one written sample by field (bytes):",
    paste(sprintf("%s %d", names(sizes), sizes), collapse = ", "), "\n")

# a big log from the run's samples, written again with new ids
big_dir <- tempfile("log-size-big-")
w <- log_writer(big_dir, log$eval$task_id, created = log$eval$created)
# the samples as results_log() hands them over (uncondensed), with new ids
add_cpu <- 0
for (from in seq(1, big, by = 1000)) {
  ids <- seq(from, min(big, from + 999))
  chunk <- lapply(ids, function(i) {
    s <- log$samples[[(i - 1) %% n + 1]]
    s$id <- sprintf("big-%06d", i)
    s
  })
  t <- system.time(log_writer_add(w, chunk))
  add_cpu <- add_cpu + t[["user.self"]] + t[["sys.self"]]
}
header <- read_log_header(tsk$log_path)
header$eval$dataset$samples <- big
header$results$total_samples <- header$results$completed_samples <- big
t <- system.time(big_path <- log_writer_finish(w, header))
cat(sprintf("\nA %s-sample log: %.1f MB (%.1f million bytes)\n", format(big, big.mark = ","),
            file.size(big_path) / 1024^2, file.size(big_path) / 1e6))
cat(sprintf("  log_writer_add(): %.0f us CPU a sample (condensed and serialised); finish: %.2f s CPU\n",
            1e6 * add_cpu / big, t[["user.self"]] + t[["sys.self"]]))
# wall time (the machine is shared: the CPU time of this process is printed beside it)
cpu <- list()
time <- function(expr) {
  gc()
  t <- system.time(force(expr))
  cpu[[length(cpu) + 1]] <<- t[["user.self"]] + t[["sys.self"]]
  t[["elapsed"]]
}
floor_s <- time(readBin(big_path, "raw", file.size(big_path)))
board_s <- time(board <- suppressWarnings(leaderboard(big_dir)))
stopifnot(nrow(board) >= 1)
header_s <- time(read_log_header(big_path))
samples_s <- time(back <- log_samples(big_path))
stopifnot(nrow(back) == big)
cat("load average now:", readLines("/proc/loadavg"), "\n")
cat(sprintf("  floor (read its bytes once)  %6.2f s wall, %5.2f s CPU\n", floor_s, cpu[[1]]))
cat(sprintf("  leaderboard(<its folder>)    %6.2f s wall, %5.2f s CPU  (target under 2 s)\n",
            board_s, cpu[[2]]))
cat(sprintf("  read_log_header()            %6.2f s wall, %5.2f s CPU\n", header_s, cpu[[3]]))
cat(sprintf("  log_samples()                %6.2f s wall, %5.2f s CPU  (%.0f us CPU a sample)\n",
            samples_s, cpu[[4]], 1e6 * cpu[[4]] / big))
