# Runs every test, Python then R, and ends with one line `all: N passed, N failed, N skipped`.
`%||%` <- function(x, y) if (is.null(x)) y else x
python <- Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3")
cat("== Python tests (pytest)\n")
py_out <- system2(python, c("-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"),
                  stdout = TRUE, stderr = TRUE)
py_status <- attr(py_out, "status") %||% 0L
writeLines(py_out)
count <- function(lines, word) {
  m <- regmatches(lines, regexpr(paste0("[0-9]+ ", word), lines))
  if (length(m)) sum(as.integer(sub(" .*", "", m))) else 0L
}
summary_line <- tail(grep("passed|failed|error", py_out, value = TRUE), 1)
py <- c(passed = count(summary_line, "passed"),
        failed = count(summary_line, "failed") + count(summary_line, "error"),
        skipped = count(summary_line, "skipped"))
if (py_status != 0 && py[["failed"]] == 0) py[["failed"]] <- 1L

cat("\n== R tests (testthat)\n")
results <- as.data.frame(testthat::test_local(".", stop_on_failure = FALSE,
                                              reporter = testthat::ProgressReporter$new(show_praise = FALSE)))
r <- c(passed = sum(results$passed), failed = sum(results$failed) + sum(results$error),
       skipped = sum(results$skipped))
cat(sprintf("\npython: %d passed, %d failed, %d skipped\n", py[["passed"]], py[["failed"]], py[["skipped"]]))
cat(sprintf("R: %d passed, %d failed, %d skipped\n", r[["passed"]], r[["failed"]], r[["skipped"]]))
total <- py + r
cat(sprintf("all: %d passed, %d failed, %d skipped\n", total[["passed"]], total[["failed"]], total[["skipped"]]))
quit(status = if (total[["failed"]] > 0) 1L else 0L)
