# Evaluation sets (issue 26): 4 models x 2 benchmarks against the fast fake server.
# * each cell alone (its own fresh cache): the longest cell and the sum of the cells;
# * the whole set in this process (fresh cache): its time / the longest cell (target <= 1.3);
# * the same set on mirai::daemons(2) (fresh cache), if mirai is installed;
# * a rerun of the set: requests sent (target 0);
# * SIGKILL of the process running the set mid-way, then a rerun here: the cells done before
#   the kill are reused, and the requests paid twice (sent before the kill and again after)
#   against max_active per cell running at the kill. The killed set runs with max_active 4
#   per model, so that the kill falls mid-way through its requests.
#
# * CPU (issue 37): a set of 3 models x 3 benchmarks (FutureX and DSBench with a judge, so
#   their cells take two steps of requests; ProcessBench's 8 votes a sample) in this process:
#   its CPU beside the sum of its 9 cells run alone, one after another (target <= 1.1). Each
#   run has a fresh cache and log folder; the cells alone share one cache, as the set's
#   cells do (the judge's requests are the same for every model: each is sent once).
#
# Run from the package root:  Rscript bench/eval-set.R [latency] [max_active]
# Only the CPU section:       Rscript bench/eval-set.R cpu [latency] [repeats] [size]
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
cpu_only <- length(args) >= 1 && identical(args[[1]], "cpu")
if (cpu_only) args <- args[-1]
latency <- if (length(args) >= 1) as.double(args[[1]]) else 1
max_active <- if (length(args) >= 2) as.integer(args[[2]]) else 40L

# The set's CPU beside its cells' alone (this process's user + system time). `size`: each
# benchmark's bundled sample repeated that many times (ids made unique), as task objects.
set_cpu <- function(server, latency, repeats = 3L, size = 1L) {
  models <- lapply(paste0("model-", 1:3), function(m) fast_fake_chat(server, m))
  judge <- fast_fake_chat(server, "judge")
  # (each copy's question made its own: copies of one request would be one request, sent
  # once by a set's shared pool and read back from the cache)
  grown <- function(ds) {
    ds <- ds[rep(seq_len(nrow(ds)), size), ]
    copy <- rep(seq_len(size), each = nrow(ds) / size)
    ds$id <- paste0(ds$id, "-", copy)
    for (field in intersect(c("input", "problem", "question"), names(ds))) {
      ds[[field]] <- paste0(ds[[field]], " (copy ", copy, ")")
    }
    ds
  }
  benchmarks <- if (size == 1L) {
    c("futurex@sample", "processbench@sample", "dsbench@sample")
  } else {
    list(futurex = futurex_task(grown(futurex_dataset(version = "sample")), judge = judge,
                                dir = tempdir()),
         processbench = processbench_task(grown(processbench_dataset(version = "sample")),
                                          dir = tempdir()),
         dsbench = dsbench_task(grown(dsbench_dataset(version = "sample")), judge = judge,
                                dir = tempdir()))
  }
  label <- if (is.character(benchmarks)) paste(benchmarks, collapse = ", ") else
    paste0(paste(names(benchmarks), collapse = ", "), ": each sample x ", size)
  cpu_of <- function(benchmarks, models, cache) {
    server$reset()
    cpu <- proc.time()
    seconds <- wall(set <- suppressMessages(suppressWarnings(eval_set(
      benchmarks, models, log_dir = tempfile("logs-"), judge = judge,
      settings = request_settings(cache = cache, max_active = 40, rpm = Inf)
    ))))
    cpu <- proc.time() - cpu
    if (!all(set$status == "done")) stop("a cell is not done: ", paste(set$error, collapse = "; "))
    list(cpu = cpu[["user.self"]] + cpu[["sys.self"]], seconds = seconds,
         requests = server$count(), cells = nrow(set))
  }
  # warm-up: every path compiled (load_all() does not byte-compile)
  invisible(cpu_of(benchmarks, models[1:2], tempfile("cache-")))
  for (b in seq_along(benchmarks)) invisible(cpu_of(benchmarks[b], models[1], tempfile("cache-")))
  runs <- lapply(seq_len(repeats), function(r) {
    cache <- tempfile("cache-")
    alone <- lapply(seq_along(benchmarks), function(b) {
      lapply(models, function(m) cpu_of(benchmarks[b], list(m), cache))
    })
    alone <- unlist(alone, recursive = FALSE)
    set <- cpu_of(benchmarks, models, tempfile("cache-"))
    data.frame(run = r, alone_cpu = sum(vapply(alone, `[[`, 1, "cpu")),
               alone_seconds = sum(vapply(alone, `[[`, 1, "seconds")),
               alone_requests = sum(vapply(alone, `[[`, 1, "requests")),
               set_cpu = set$cpu, set_seconds = set$seconds, set_requests = set$requests)
  })
  out <- do.call(rbind, runs)
  out$ratio <- out$set_cpu / out$alone_cpu
  cat(sprintf("CPU of a set of 3 models x 3 benchmarks (%s; judge on FutureX and DSBench), latency %.0f ms:\n",
              label, latency * 1000))
  print(out, row.names = FALSE, digits = 3)
  cat(sprintf("median: set %.2f s of CPU, its 9 cells alone %.2f s; set / sum of cells = %.2f (target <= 1.1)\n",
              stats::median(out$set_cpu), stats::median(out$alone_cpu), stats::median(out$ratio)))
  invisible(out)
}

if (cpu_only) {
  cat(machine_line(), "\n")
  # (a reply the FutureX judge reads, so that main's rounds, before issue 36, finish too)
  server <- fast_fake_server(latency = latency,
                             reply = "\\boxed{A} GROUND_TRUTH_VALUE: 1 PREDICTION_VALUE: 1")
  set_cpu(server, latency, repeats = if (length(args) >= 2) as.integer(args[[2]]) else 3L,
          size = if (length(args) >= 3) as.integer(args[[3]]) else 1L)
  invisible(server$stop())
  quit(save = "no")
}

cat(machine_line(), "\n")
load_line <- function() paste("load average", paste(readLines("/proc/loadavg", warn = FALSE), collapse = " "))
cat(load_line(), "\n")
server <- fast_fake_server(latency = latency)
Sys.setenv(OPENAI_API_KEY = "sk-bench-not-a-key")  # what the daemons' rebuilt chats read
model_names <- paste0("model-", 1:4)
models <- lapply(model_names, function(m) fast_fake_chat(server, m))
# each model's requests of both cells fit in its max_active: futurex 8, processbench 4 x 8 votes
benchmarks <- c("futurex@sample", "processbench@sample")
limits <- c(8L, 4L)
settings_in <- function(cache) request_settings(cache = cache, max_active = max_active, rpm = Inf)
run_set <- function(benchmarks, models, limit = NULL, log_dir = tempfile("logs-"),
                    cache = tempfile("cache-")) {
  server$reset()
  cpu <- proc.time()
  seconds <- wall(set <- suppressMessages(eval_set(benchmarks, models, log_dir = log_dir,
                                                   settings = settings_in(cache), options = set_options(limit = limit))))
  cpu <- proc.time() - cpu  # this process's own CPU (not the server's, nor daemons')
  list(seconds = seconds, requests = server$count(), set = set,
       cpu = cpu[["user.self"]] + cpu[["sys.self"]])
}
# the named sample versions with a limit each: tasks built once, passed as objects
tasks <- list(
  "futurex@sample" = futurex_task(futurex_dataset(version = "sample", limit = limits[[1]]),
                                  dir = tempdir()),
  "processbench@sample" = processbench_task(processbench_dataset(version = "sample",
                                                                  limit = limits[[2]]),
                                            dir = tempdir())
)
# warm-up (load_all() does not byte-compile: the JIT compiles each function on its first
# calls, ~1 s of CPU an installed package does not pay): both benchmarks' paths, alone and
# in a set's rounds, so that no timed run pays it
invisible(suppressMessages(eval_set(tasks, models[1:2], log_dir = tempfile(),
                                    settings = settings_in(tempfile()))))
# and a set of one cell per benchmark, as each cell alone runs below: otherwise the first cell
# timed alone pays the rest of the compile (~0.2 s), which made "the longest cell" longer
for (b in seq_along(tasks)) invisible(run_set(tasks[b], models[4]))

alone <- do.call(rbind, lapply(seq_along(tasks), function(b) {
  do.call(rbind, lapply(seq_along(models), function(m) {
    r <- run_set(tasks[b], models[m])
    data.frame(benchmark = names(tasks)[[b]], model = model_names[[m]], seconds = r$seconds,
               requests = r$requests)
  }))
}))
here <- run_set(tasks, models)
log_dir <- tempfile("logs-")
cache <- tempfile("cache-")
first <- run_set(tasks, models, log_dir = log_dir, cache = cache)
rerun <- run_set(tasks, models, log_dir = log_dir, cache = cache)
# The floor the set cannot go under in one process: every cell evaluated from a full cache
# (a fresh log folder, the cache of `first`): no request, only the cells' CPU (vitals'
# solve/score/measure, the summaries, the logs), once each, one after another.
from_cache <- run_set(tasks, models, cache = cache)
alone_cached <- vapply(seq_along(tasks), function(b) {
  max(vapply(seq_along(models), function(m) run_set(tasks[b], models[m], cache = cache)$seconds, 1))
}, 1)

# vitals' own floor, which the package does not own: vitals' $eval() (solve, score,
# measure, its log) of tasks with the cells' sample counts (8 for FutureX, 4 for
# ProcessBench) whose solver and scorer do nothing (a prepared chat per sample, score 1),
# with cli's progress silenced as in the set's cells; the 8 cells one after another, as one
# process must. Median of 3.
bare_vitals_cell <- function(n, dir) {
  proto <- ellmer::chat_openai_compatible(base_url = server$url, model = "m",
                                          credentials = function() "sk-bench-not-a-key")
  chats <- lapply(seq_len(n), function(i) {
    proto$clone()$set_turns(list(
      ellmer::UserTurn(list(ellmer::ContentText(paste("question", i)))),
      ellmer::AssistantTurn(list(ellmer::ContentText("\\boxed{A}")), tokens = c(10, 5, 0))
    ))
  })
  task <- vitals::Task$new(
    dataset = tibble::tibble(input = paste("question", seq_len(n)), target = "A"),
    solver = function(inputs, ...) list(result = rep("A", length(inputs)), solver_chat = chats),
    scorer = function(samples, ...) list(score = rep(1, nrow(samples))),
    metrics = list(mean = function(scores) mean(scores)), name = "bare", dir = dir
  )
  withr::with_options(list(cli.progress_show_after = Inf,
                           cli.default_handler = function(msg) NULL),
                      suppressMessages(task$eval(view = FALSE)))
}
bare_dir <- tempfile("bare-")
invisible(lapply(limits, bare_vitals_cell, dir = bare_dir))  # warm-up
cell_sizes <- rep(limits, each = length(models))
vitals_floor <- stats::median(replicate(3, wall(for (n in cell_sizes) bare_vitals_cell(n, bare_dir))))

on_daemons <- NULL
if (rlang::is_installed("mirai")) {
  mirai::daemons(2)
  mirai::everywhere({
    pkgload::load_all(path, quiet = TRUE)
    Sys.setenv(OPENAI_API_KEY = "sk-bench-not-a-key")
  }, .args = list(path = normalizePath(".")))[]
  # the same warm-up as in this process: each daemon's load_all() copy compiles the eval
  # path on its first calls, which an installed (byte-compiled) package does not pay
  invisible(suppressMessages(eval_set(tasks, models, log_dir = tempfile(),
                                      settings = settings_in(tempfile()))))
  on_daemons <- run_set(tasks, models)
  mirai::daemons(0)
}

# SIGKILL mid-set: a child process runs the same set (its own log folder and cache) and is
# killed once half of the set's requests have arrived.
kill_active <- 4L
kill_dir <- tempfile("logs-killed-")
kill_cache <- tempfile("cache-killed-")
script <- tempfile(fileext = ".R")
writeLines(c(
  'suppressMessages(pkgload::load_all(".", quiet = TRUE))',
  'source("bench/helper-fake-server.R")',
  sprintf('models <- lapply(%s, function(m) ellmer::chat_openai_compatible(base_url = "%s", model = m, credentials = function() "sk-bench-not-a-key"))',
          paste(deparse(model_names), collapse = ""), server$url),
  sprintf('tasks <- list("futurex@sample" = futurex_task(futurex_dataset(version = "sample", limit = %dL), dir = tempdir()), "processbench@sample" = processbench_task(processbench_dataset(version = "sample", limit = %dL), dir = tempdir()))',
          limits[[1]], limits[[2]]),
  sprintf('eval_set(tasks, models, log_dir = "%s", settings = request_settings(cache = "%s", max_active = %dL, rpm = Inf))',
          kill_dir, kill_cache, kill_active)
), script)
server$reset()
child <- processx::process$new("Rscript", script, stdout = "|", stderr = "|")
while (child$is_alive() && server$count() < first$requests / 2) Sys.sleep(0.02)
child$kill()  # SIGKILL
before_kill <- server$count()
# (records only: the folder also holds the cells' locks)
done_at_kill <- length(list.files(file.path(kill_dir, ".eval-set"), pattern = "[.]json$"))
after <- run_set(tasks, models, log_dir = kill_dir, cache = kill_cache)
cpu_table <- set_cpu(server, latency)
invisible(server$stop())

longest <- max(alone$seconds)
total <- sum(alone$seconds)
cat(sprintf("latency %.0f ms, max_active %d per model; %d cells (%s x %d models)\n",
            latency * 1000, max_active, nrow(alone), paste(names(tasks), collapse = ", "),
            length(models)))
print(alone, row.names = FALSE, digits = 3)
cat(sprintf(paste0(
  "cells alone: longest %.2f s (median %.2f s), sum %.2f s\n",
  "set in this process: %.2f s (%.2f s of this process's CPU), %d requests; ",
  "set / longest cell = %.2f (target <= 1.3); set / sum of cells = %.2f\n"),
  longest, stats::median(alone$seconds), total, here$seconds, here$cpu, here$requests, here$seconds / longest,
  here$seconds / total))
cat(sprintf(paste0(
  "floor: the set from a full cache %.2f s (%d requests), the longest cell from it %.2f s; ",
  "(set from cache + latency) / longest cell = %.2f\n"),
  from_cache$seconds, from_cache$requests, max(alone_cached),
  (from_cache$seconds + latency) / longest))
cat(sprintf(paste0(
  "vitals' own floor: $eval() of %d do-nothing tasks of the cells' sizes, one after another, ",
  "%.2f s; (vitals' floor + latency) / longest cell = %.2f\n"),
  length(cell_sizes), vitals_floor, (vitals_floor + latency) / longest))
if (!is.null(on_daemons)) {
  cat(sprintf("set on daemons(2): %.2f s, %d requests; daemons / in-process = %.2f\n",
              on_daemons$seconds, on_daemons$requests, on_daemons$seconds / here$seconds))
}
cat(sprintf("rerun of the set: %.2f s, %d requests sent (target 0), %d of %d cells reused\n",
            rerun$seconds, rerun$requests, sum(rerun$set$reused), nrow(rerun$set)))
paid_twice <- before_kill + after$requests - first$requests
running <- nrow(alone) - done_at_kill
cat(sprintf(paste0(
  "SIGKILL after %d of %d requests (%d cells done): the rerun sent %d, reused %d cells; ",
  "paid twice %d <= max_active x cells running at the kill = %d x %d = %d: %s\n"),
  before_kill, first$requests, done_at_kill, after$requests, sum(after$set$reused),
  paid_twice, kill_active, running, kill_active * running, paid_twice <= kill_active * running))
cat(load_line(), "\n")
if (rerun$requests != 0) stop("the rerun sent requests")
