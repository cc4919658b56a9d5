# Peak RSS of a 10,000-sample FutureX-shaped $eval(), measured in a child R process: the
# child reports /proc/self/status VmHWM (its peak resident set) after loading the package and
# again after the eval, and the parent samples the child's RSS with ps while it runs.
#
# Run from the package root:  Rscript bench/memory.R  [n] [concurrency]
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 10000L
concurrency <- if (length(args) >= 2) as.integer(args[[2]]) else 50L
cat(machine_line(), "\n")

server <- fast_fake_server(latency = 0)
out <- tempfile(fileext = ".rds")
script <- tempfile(fileext = ".R")
writeLines(c(
  child_preamble(),
  sprintf("data <- futurex_shaped(%d)", n),
  sprintf("chat <- ellmer::chat_openai_compatible(base_url = %s, model = 'fake-model', credentials = function() 'k')",
          deparse(server$url)),
  "loaded <- hwm()",
  "log <- tempfile('log-')",
  sprintf("tsk <- futurex_task(dataset = data, solver = futurex_solver(settings = request_settings(cache = tempfile('cache-'), max_active = %d, rpm = 1e6)), dir = log)", concurrency),
  "t <- system.time(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE)))",
  "seconds <- t[['elapsed']]; cpu_seconds <- cpu(t)",
  "samples <- tsk$get_samples()",
  "log_mb <- sum(file.size(list.files(log, full.names = TRUE))) / 1024^2",
  sprintf("saveRDS(list(loaded = loaded, peak = hwm(), seconds = seconds, cpu = cpu_seconds, n = nrow(samples), failed = sum(is.na(samples$result)), log_mb = log_mb, sample_mb = as.numeric(object.size(samples)) / 1024^2), %s)", deparse(out))
), script)
child <- processx::process$new(file.path(R.home("bin"), "Rscript"), script,
                               stdout = tempfile(), stderr = tempfile(), wd = getwd())
sampled <- 0
while (child$is_alive()) {
  rss <- tryCatch(ps::ps_memory_info(child$as_ps_handle())[["rss"]] / 1024^2,
                  error = function(e) NA)
  sampled <- max(sampled, rss, na.rm = TRUE)
  Sys.sleep(0.5)
}
invisible(server$stop())
if (!file.exists(out)) stop("the child failed: ", paste(readLines(child$get_error_file()), collapse = "\n"))
r <- readRDS(out)
cat(sprintf(paste0(
  "n = %d samples (%d failed), concurrency %d, eval %.1f s wall, %.1f s CPU (%.2f ms a sample)\n",
  "child peak RSS (VmHWM): %.0f MB after loading packages and data, %.0f MB at the end of the eval ",
  "(+%.0f MB for the eval, %.1f KB per sample); largest RSS sampled by the parent: %.0f MB\n",
  "vitals log on disk: %.1f MB; samples tibble in memory: %.1f MB\n"),
  r$n, r$failed, concurrency, r$seconds, r$cpu, 1000 * r$cpu / r$n, r$loaded, r$peak, r$peak - r$loaded,
  1024 * (r$peak - r$loaded) / r$n, sampled, r$log_mb, r$sample_mb))
