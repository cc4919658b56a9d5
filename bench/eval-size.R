# Sizes of a chunked `$eval()` (issue 37): CPU time, peak RSS and log size, each run in a
# child R process of its own that reports its CPU time (user + system, not wall: the machine
# is shared) and its peak resident set (VmHWM in /proc/self/status), beside its floor
# measured in the same run: the same number of requests sent with plain curl multi to the
# same server (its CPU time in a child too), and the package loaded with the data.
#
#   Rscript bench/eval-size.R futurex 2000 20000   # FutureX-shaped $eval() at each size
#                                                  # (PREDICTIVEBENCH_BENCH_CURL=false: no curl floor)
#   Rscript bench/eval-size.R cpu 2000             # CPU a request: paid, cached, baseline
#                                                  # (baseline twice: first and second run)
#   Rscript bench/eval-size.R processbench 3400    # ProcessBench x 8 votes
#
# The fake server (bench/helper-fake-server.R) answers with no latency, 50 in flight.
#
# The children load the checkout installed into a scratch library, as users have the
# package. PREDICTIVEBENCH_BENCH_LOAD_ALL=true loads it with pkgload::load_all() instead: a
# developer's copy, compiled by R's JIT as it runs, with about twice the R heap (at 20,000
# samples R then grows its heap by ~80 MB at a random point of the run).
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
what <- if (length(args)) args[[1]] else "futurex"
sizes <- if (length(args) > 1) as.integer(args[-1]) else 2000L
concurrency <- 50L
cat(machine_line(), "\n")
load_all <- identical(Sys.getenv("PREDICTIVEBENCH_BENCH_LOAD_ALL"), "true")
load_line <- if (load_all) {
  "suppressMessages(pkgload::load_all('.', quiet = TRUE))"
} else {
  sprintf("suppressMessages(library(predictivebench, lib.loc = %s))", deparse(install_checkout()))
}
# PREDICTIVEBENCH_BENCH_CURL=false: futurex's memory alone, without the curl floor of its CPU
curl <- !identical(Sys.getenv("PREDICTIVEBENCH_BENCH_CURL"), "false")
cat("the package:", if (load_all) "load_all() of the checkout" else "the checkout, installed", "\n")

# Runs `lines` (R code; `chat`, `server_url` and `hwm()` defined) in a child R process with
# the package loaded; the code's last value, a list, is returned with `peak` (VmHWM, MB).
run_child <- function(lines, server) {
  out <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    child_preamble(load_line),
    sprintf("server_url <- %s", deparse(server$url)),
    "chat <- ellmer::chat_openai_compatible(base_url = server_url, model = 'fake-model', credentials = function() 'k')",
    run_cached_line,
    "result <- local({", lines, "})",
    "result$peak <- result$peak %||% hwm()",
    sprintf("saveRDS(result, %s)", deparse(out))
  ), script)
  errors <- tempfile()
  status <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = FALSE,
                    stderr = errors)
  if (!file.exists(out)) {
    stop("the child failed (status ", status, "):\n", paste(readLines(errors), collapse = "\n"))
  }
  readRDS(out)
}

# The floor: `n` requests with plain curl multi, in a child (its CPU time).
curl_floor <- function(server, n) {
  run_child(c(
    "server <- list(url = server_url)",
    "loaded <- hwm()",
    sprintf("t <- system.time(r <- server_ceiling(server, n = %d, concurrency = %d))", n,
            concurrency),
    "list(cpu = cpu(t), wall = t[['elapsed']], ok = r$ok, loaded = loaded)"
  ), server)
}

# `first`: evaluate only the data's first rows (the floor's one chunk), `n` rows loaded.
futurex_eval_lines <- function(n, chat = "chat", cache = "tempfile('cache-')", rerun = FALSE,
                               first = n) {
  c(
    sprintf("data <- futurex_shaped(%d)", n),
    sprintf("evaluated <- data[seq_len(%d), ]", first),
    sprintf("cache <- %s", cache),
    "log <- tempfile('log-')",
    "loaded <- hwm()",
    sprintf("settings <- request_settings(cache = cache, max_active = %d, rpm = 1e6)", concurrency),
    "run <- function() { tsk <- futurex_task(dataset = evaluated, solver = futurex_solver(settings = settings), dir = log)",
    sprintf("  t <- system.time(suppressMessages(tsk$eval(solver_chat = %s, view = FALSE))); list(tsk = tsk, t = t) }", chat),
    if (rerun) "first <- run(); unlink(log, recursive = TRUE)",
    "r <- run()",
    # the run's peak, and its counts from the run's own state: $get_samples() would build
    # every sample's metadata lists, the read-back, not the run
    "peak <- hwm()",
    "state <- r$tsk$run_state()",
    "list(cpu = cpu(r$t), wall = r$t[['elapsed']], n = nrow(state$samples), loaded = loaded,",
    "     failed = sum(is.na(state$samples$result)), log_mb = file.size(r$tsk$log_path) / 1024^2,",
    "     cached = run_cached(state), peak = peak)"
  )
}

# The samples answered from the cache, counted in the run's state: its solver metadata
# packed (pack_metadata()), or lists.
run_cached_line <- paste(
  "run_cached <- function(state) { m <- state$packed$solver_metadata %||% state$samples$solver_metadata;",
  "if (inherits(m, 'predictivebench_packed')) return(sum(m$columns$cached %||% 0L));",
  "sum(vapply(m, function(x) isTRUE(x$cached), TRUE)) }"
)

# One chunk of samples (20 a request slot, at least 1,000: chunk_rows_default())
chunk_rows <- max(1000L, 20L * concurrency)

report <- function(label, r, requests) {
  cat(sprintf(paste0("%-34s n = %6d: CPU %7.1f s (%.2f ms a request), wall %6.1f s, ",
                     "peak RSS %5.0f MB (%4.0f MB loaded), log %5.1f MB%s\n"),
              label, r$n %||% requests, r$cpu, 1000 * r$cpu / requests, r$wall, r$peak,
              r$loaded, r$log_mb %||% 0,
              if (!is.null(r$failed)) sprintf(", %d failed", r$failed) else ""))
}

`%||%` <- function(x, y) if (is.null(x)) y else x

if (what == "futurex") {
  server <- fast_fake_server(latency = 0)
  peaks <- c()
  for (n in sizes) {
    if (curl) {
      floor <- curl_floor(server, n)
      report(sprintf("floor: plain curl, %d requests", n), floor, n)
    }
    # the memory floor: R, the package and the n rows loaded, one chunk in flight
    one <- min(n, chunk_rows)
    chunk <- run_child(futurex_eval_lines(n, first = one), server)
    report(sprintf("floor: $eval() of one chunk, %d", one), chunk, one)
    r <- run_child(futurex_eval_lines(n), server)
    report("FutureX-shaped $eval()", r, n)
    if (n > one) {
      cat(sprintf("  peak RSS %.0f MB beside its floor %.0f MB: %.2fx, %+.2f KB a sample past the chunk\n",
                  r$peak, chunk$peak, r$peak / chunk$peak, 1024 * (r$peak - chunk$peak) / (n - one)))
    }
    peaks[[as.character(n)]] <- r$peak
  }
  if (length(peaks) > 1) {
    cat(sprintf("peak RSS at %s samples / at %s: %.2f\n", names(peaks)[length(peaks)],
                names(peaks)[1], peaks[[length(peaks)]] / peaks[[1]]))
  }
  server$stop()
}

if (what == "cpu") {
  server <- fast_fake_server(latency = 0)
  n <- sizes[[1]]
  floor <- curl_floor(server, n)
  report(sprintf("floor: plain curl, %d requests", n), floor, n)
  paid <- run_child(futurex_eval_lines(n), server)
  report("paid (fake server, no latency)", paid, n)
  cached <- run_child(futurex_eval_lines(n, rerun = TRUE), server)
  report("cached (every answer in the cache)", cached, n)
  base <- run_child(futurex_eval_lines(n, chat = "baseline_chat('\\\\boxed{A}')",
                                       cache = "FALSE"), server)
  report("baseline chat (offline)", base, n)
  # the same, measured on a second run in the process: the first pays R's JIT compiling the
  # package's functions (load_all() loads them uncompiled; an installed package is compiled),
  # as the cached run's first run does
  base2 <- run_child(futurex_eval_lines(n, chat = "baseline_chat('\\\\boxed{A}')",
                                        cache = "FALSE", rerun = TRUE), server)
  report("baseline chat, second run", base2, n)
  load <- run_child(c(sprintf("data <- futurex_shaped(%d)", n),
                      "list(cpu = cpu(proc.time()), wall = NA, loaded = hwm())"), server)
  cat(sprintf("(loading the package and the data: %.1f s CPU, %.0f MB)\n", load$cpu, load$peak))
  server$stop()
}

if (what == "processbench") {
  n <- sizes[[1]]
  votes <- 8L
  server <- fast_fake_server(latency = 0, reply = "The first error is here. \\boxed{-1}")
  floor <- curl_floor(server, n * votes)
  report(sprintf("floor: plain curl, %d requests", n * votes), floor, n * votes)
  reference <- "../shared/reference/processbench/gsm8k.json"
  r <- run_child(c(
    # rows shaped like ProcessBench's (the reference split's when it is there), recycled to n
    sprintf("ref <- %s", deparse(reference)),
    "rows <- if (file.exists(ref)) jsonlite::fromJSON(ref, simplifyVector = FALSE) else",
    "  lapply(1:400, function(i) list(id = paste0('p-', i), generator = 'g', problem = paste('Problem', i, strrep('text ', 60)),",
    "    steps = as.list(paste('Step', 1:6, strrep('work ', 40))), final_answer_correct = FALSE, label = (i %% 7) - 1L))",
    sprintf("at <- rep_len(seq_along(rows), %d)", n),
    "data <- tibble::tibble(id = sprintf('pb-%05d', seq_along(at)),",
    "  problem = vapply(rows[at], function(r) paste(r$problem, '(item', match(r$id, vapply(rows, `[[`, '', 'id')), ')'), ''),",
    "  steps = lapply(rows[at], function(r) unlist(r$steps)), label = vapply(rows[at], function(r) as.integer(r$label), 1L),",
    "  task_l1 = 'gsm8k', generator = vapply(rows[at], function(r) r$generator %||% NA_character_, ''),",
    "  final_answer_correct = vapply(rows[at], function(r) isTRUE(r$final_answer_correct), TRUE),",
    "  task_l2 = NA_character_, origin = NA_character_, error_sections = rep(list(NULL), length(at)),",
    "  unuseful_sections = rep(list(NULL), length(at)), sections_content = NA_character_)",
    "data$problem <- paste(data$problem, seq_len(nrow(data)))",
    "data <- processbench_dataset(data)",
    "loaded <- hwm()",
    sprintf("solver <- processbench_solver(n_votes = %d, settings = request_settings(cache = tempfile('cache-'), max_active = %d, rpm = 1e6))", votes, concurrency),
    "tsk <- processbench_task(data, solver = solver, dir = tempfile('log-'))",
    "t <- system.time(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))",
    "s <- suppressMessages(processbench_summary(tsk))",
    "list(cpu = cpu(t), wall = t[['elapsed']], n = nrow(tsk$get_samples()), loaded = loaded,",
    "     log_mb = file.size(tsk$log_path) / 1024^2, f1 = s$estimate[[1]])"
  ), server)
  cat(sprintf("requests sent: %d\n", server$count() - n * votes))
  report(sprintf("processbench_task() x %d votes", votes), r, n * votes)
  server$stop()
}
