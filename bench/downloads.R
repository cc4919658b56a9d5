# The download limits, measured against a local server that misbehaves
# (tests/testthat/helper-pinned-server.R): a transfer that stalls, one slower than its
# deadline, a Retry-After past the cap, an endless body. Prints each limit, the time the
# transfer took to end and the ratio to the limit; a stalled transfer must end within its
# limit plus 1 s.
#
#   Rscript bench/downloads.R
suppressMessages(pkgload::load_all(".", quiet = TRUE))
source("tests/testthat/helper-pinned-server.R")

defaults <- withr::with_options(
  list(predictivebench.download_timeout = NULL, predictivebench.download_stall = NULL,
       predictivebench.download_max_bytes = NULL, predictivebench.download_tries = NULL),
  download_limits()
)
cap <- retry_delay(list(retry_after = Inf), 1L, 0)
cat(sprintf("defaults: deadline %g s per file, stall %g s below %g bytes/s, %g tries, unknown size at most %g GiB; Retry-After cap %g s (the engine's retry_delay())\n",
            defaults$timeout, defaults$stall, download_low_speed, defaults$tries,
            defaults$max_bytes / 1024^3, cap))

questions <- tempfile(fileext = ".csv")
writeLines(c(",question", sprintf("%d,Made-up question %d?", 0:199, 0:199)), questions)
pins <- fixture_pins("arena", "bench", "github", "v-xchen-v/EloBench",
                     c("data/bench/questions.csv" = questions), items = 200)

# One transfer of the questions file under `options`, against a server answering with
# the fault `kind`: seconds until download_to() (the transfer, its retries and redirects)
# ended, the class of its error and the error. (A first `<bench>_dataset()` call adds about
# a second before the transfer starts: loading and the flattener's checksum.)
time_fault <- function(kind, options, ...) {
  servers <- local_pinned_servers(pins)
  withr::local_options(options)
  servers$gh$fault(fixture_url_path(pins), kind, times = -1, ...)
  started <- proc.time()[["elapsed"]]
  err <- tryCatch(
    download_to(pinned_url(pins), tempfile(), size = pins$size, limits = download_limits(),
                label = pins$path),
    error = function(e) e
  )
  elapsed <- proc.time()[["elapsed"]] - started
  list(elapsed = elapsed, class = class(err)[[1]], error = err,
       requests = nrow(servers$gh$log()))
}

report <- function(name, limit, runs) {
  elapsed <- vapply(runs, `[[`, 0, "elapsed")
  cat(sprintf("%-40s limit %4.1f s  ended after %5.2f-%5.2f s  max ratio %.2f  max over %+.2f s  %s, %d request(s)\n",
              name, limit, min(elapsed), max(elapsed), max(elapsed) / limit,
              max(elapsed) - limit, runs[[1]]$class, runs[[1]]$requests))
}

repeat_fault <- function(...) lapply(1:3, function(i) time_fault(...))

for (stall in c(2, 5)) {
  runs <- repeat_fault("stall", list(predictivebench.download_stall = stall,
                                     predictivebench.download_tries = 1))
  report(sprintf("stall after half the file (stall %g s)", stall), stall, runs)
}
for (timeout in c(3, 6)) {
  runs <- repeat_fault("slow", list(predictivebench.download_timeout = timeout,
                                    predictivebench.download_stall = 60), delay = 1)
  report(sprintf("slow file, never a stall (deadline %g s)", timeout), timeout, runs)
}
runs <- repeat_fault("stall", list(predictivebench.download_stall = 2,
                                   predictivebench.download_tries = 5,
                                   predictivebench.download_timeout = 5))
report("stall retried, deadline 5 s (5 tries)", 5, runs)

run <- time_fault("429", list(), after = 86400)
cat(sprintf("Retry-After: 86400 -> %s after %.2f s, %d request(s)\n", run$class, run$elapsed,
            run$requests))

run <- time_fault("endless", list())
cat(sprintf("endless body, pinned size %s bytes -> %s after %.2f s, stopped at %s bytes\n",
            format(pins$size, big.mark = ","), run$class, run$elapsed,
            format(run$error$received, big.mark = ",")))
