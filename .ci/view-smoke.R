# What a user of the installed tarball sees in vitals' log viewer. Builds the tarball, installs
# it into a temporary library, and from a fresh `R --vanilla` with none of the project's
# variables (no PREDICTIVEBENCH_*, RETICULATE_*, NOT_CRAN, VITALS_LOG_DIR): prepares FutureX's
# sample questions with prepare_task_table(), evaluates futurex_task() with an offline
# baseline_chat(), serves the log folder with vitals::vitals_view() and screenshots the log list
# and the run with headless chromium (`apt-get install chromium`). Prints the samples' scores,
# what the viewer's API serves and the PNG paths: look at them.
# Usage (from the checkout): Rscript --vanilla .ci/view-smoke.R [<folder for the PNGs>]
# Not part of CI: it builds and installs the package and waits on a browser (3 min on a busy
# machine).
args <- commandArgs(trailingOnly = TRUE)
work <- tempfile("view-smoke-")
dir.create(work)
png_dir <- if (length(args)) args[[1]] else work
dir.create(png_dir, showWarnings = FALSE, recursive = TRUE)
r <- file.path(R.home("bin"), "R")
run <- function(...) {
  out <- processx::run(r, c(...), wd = work, error_on_status = FALSE, stderr_to_stdout = TRUE)
  if (out$status != 0) stop("R ", paste(c(...), collapse = " "), " failed:\n", out$stdout)
}
run("CMD", "build", "--no-build-vignettes", "--no-manual", normalizePath("."))
lib <- file.path(work, "lib")
dir.create(lib)
run("CMD", "INSTALL", paste0("--library=", lib),
    list.files(work, "^predictivebench_.*\\.tar\\.gz$", full.names = TRUE))

user_session <- function(lib, work, png_dir) {
  library(predictivebench, lib.loc = lib)
  src <- system.file("extdata", "futurex-questions.json", package = "predictivebench")
  parquet <- file.path(work, "futurex.parquet")
  prepare_task_table("futurex", src, out = parquet)
  logs <- file.path(work, "logs")
  tsk <- futurex_task(futurex_dataset(parquet), dir = logs)
  tsk$eval(solver_chat = baseline_chat("\\boxed{Yes}"), view = FALSE)
  samples <- tsk$get_samples()
  cat("samples:", nrow(samples), "\n")
  print(utils::head(as.data.frame(samples[intersect(c("id", "result", "score"), names(samples))])))

  port <- httpuv::randomPort()
  vitals::vitals_view(logs, port = port)
  url <- sprintf("http://127.0.0.1:%d/", port)
  log_file <- basename(list.files(logs, "\\.json$"))
  # The viewer's own reading of the folder, what its page lists. The server answers from this
  # session's event loop (as for every request below), so fetch without blocking and serve.
  api <- NULL
  curl::curl_fetch_multi(paste0(url, "api/logs"), done = function(res) api <<- res,
                         fail = function(msg) api <<- list(content = charToRaw(msg)))
  while (is.null(api)) {
    httpuv::service(50)
    curl::multi_run(timeout = 0.05)
  }
  cat("api/logs:", substr(rawToChar(api$content), 1, 600), "\n")
  pages <- c(list = url, run = paste0(url, "#/logs/", utils::URLencode(log_file, reserved = TRUE)))
  for (page in names(pages)) {
    png <- file.path(png_dir, paste0("view-", page, ".png"))
    # The page fetches the logs after it loads: the virtual time budget lets it finish (20 s
    # of it left an empty list on a busy machine). With one log in the folder, the list opens it.
    browser <- processx::process$new("chromium", c(
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
      paste0("--screenshot=", png), "--window-size=1400,900", "--virtual-time-budget=40000",
      pages[[page]]
    ), stdout = NULL, stderr = NULL)
    # The server answers from this session's event loop, so serve while the browser works.
    deadline <- Sys.time() + 180
    while (browser$is_alive() && Sys.time() < deadline) httpuv::service(100)
    browser$kill()
    if (!file.exists(png)) stop("No screenshot of ", pages[[page]])
    cat(page, pages[[page]], "->", png, "\n")
  }
}

env <- Sys.getenv()
drop <- grepl("^(PREDICTIVEBENCH_|RETICULATE_|R_LIBS)", names(env)) |
  names(env) %in% c("NOT_CRAN", "VITALS_LOG_DIR")
env <- c(env[!drop], R_LIBS = paste(c(lib, .libPaths()), collapse = .Platform$path.sep),
         R_USER_CACHE_DIR = file.path(work, "cache"))
script <- file.path(work, "user-session.R")
writeLines(c(
  paste("user_session <-", paste(deparse(user_session), collapse = "\n")),
  sprintf("user_session(%s, %s, %s)", deparse(lib), deparse(work), deparse(png_dir))
), script)
session <- processx::run(r, c("--vanilla", "--no-echo", "-f", script), env = env,
                         error_on_status = FALSE, stderr_to_stdout = TRUE,
                         echo = TRUE, timeout = 600)
quit(status = session$status)
