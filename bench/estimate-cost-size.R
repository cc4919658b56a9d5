# estimate_cost() of a FutureX-shaped task of `n` samples, a chunk at a time (the task's
# default `$chunk_size`, as `$eval()`) beside the whole task at once (`chunk_size = n`, the
# dry run before issue 37): each in a child R process, which reports its CPU and its peak RSS
# (/proc/self/status VmHWM) after loading the package and the data, and after the estimate.
# Nothing is sent (the chat's URL is never called).
#
# Run from the package root:  Rscript bench/estimate-cost-size.R  [n=20000]
source("bench/helper-fake-server.R")
args <- commandArgs(trailingOnly = TRUE)
n <- if (length(args) >= 1) as.integer(args[[1]]) else 20000L
cat(machine_line(), "\n")

child <- function(chunk) {
  out <- tempfile(fileext = ".rds")
  script <- tempfile(fileext = ".R")
  writeLines(c(
    child_preamble(),
    sprintf("data <- futurex_shaped(%d)", n),
    "chat <- ellmer::chat_openai_compatible(base_url = 'http://127.0.0.1:9/v1', model = 'gpt-4.1', credentials = function() 'k')",
    "tsk <- futurex_task(dataset = data, dir = tempfile('log-'), solver = futurex_solver(params = ellmer::params(max_tokens = 100)))",
    sprintf("tsk$chunk_size <- %s", if (is.null(chunk)) "NULL" else chunk),
    "loaded <- hwm()",
    "t <- system.time(est <- estimate_cost(tsk, chat, cache = tempfile('cache-')))",
    sprintf("saveRDS(list(loaded = loaded, peak = hwm(), cpu = cpu(t), est = est), %s)", deparse(out))
  ), script)
  res <- processx::run(file.path(R.home("bin"), "Rscript"), script, wd = getwd(),
                       error_on_status = FALSE)
  if (!file.exists(out)) stop("the child failed: ", res$stderr)
  readRDS(out)
}

rows <- list(chunks = child(NULL), whole = child(n))
for (name in names(rows)) {
  r <- rows[[name]]
  cat(sprintf("%-7s %d requests, %.1f s CPU (%.2f ms a request); peak RSS %.0f MB (+%.0f MB over %.0f MB loaded)\n",
              name, r$est$requests, r$cpu, 1000 * r$cpu / r$est$requests, r$peak,
              r$peak - r$loaded, r$loaded))
}
same <- identical(rows$chunks$est, rows$whole$est)
cat("the same estimate both ways:", same, "\n")
