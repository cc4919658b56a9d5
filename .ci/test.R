# Runs every test, Python then R, and ends with one line `all: N passed, N failed, N skipped`.
# `Rscript .ci/test.R` (make test) runs the R tests with testthat::test_local().
# `Rscript .ci/test.R --r-from-check <pkg>.Rcheck` (.ci/run) runs only pytest: the R tests
# already ran once, inside `R CMD check` on the installed tarball (.ci/check.sh), and their
# counts (with the reasons of every skip) are read from the check's tests/testthat.Rout.
`%||%` <- function(x, y) if (is.null(x)) y else x
args <- commandArgs(trailingOnly = TRUE)
check_dir <- if (length(args) == 2 && args[[1]] == "--r-from-check") args[[2]]
if (length(args) && is.null(check_dir)) stop("Usage: test.R [--r-from-check <pkg>.Rcheck]")
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

# The counts of testthat's check reporter, "[ FAIL 1 | WARN 0 | SKIP 2 | PASS 3 ]", the last in
# the check's output; a run that never got there counts as one failure.
check_counts <- function(check_dir) {
  out <- file.path(check_dir, "tests", c("testthat.Rout", "testthat.Rout.fail"))
  out <- out[file.exists(out)]
  lines <- if (length(out)) readLines(out[[1]], warn = FALSE) else character()
  pattern <- "\\[ FAIL ([0-9]+) \\| WARN [0-9]+ \\| SKIP ([0-9]+) \\| PASS ([0-9]+) \\]"
  totals <- grep(pattern, lines, value = TRUE)
  if (!length(totals)) {
    cat("No test counts in", check_dir, "(the check did not run the tests to the end)\n")
    return(c(passed = 0L, failed = 1L, skipped = 0L))
  }
  # what the check reporter says after the tests: the skips with their reasons, the failures
  from <- grep("Skipped tests|Failed tests", lines)
  if (length(from)) {
    report <- lines[from[[1]]:length(lines)]
    cat(report[nzchar(trimws(report)) & !startsWith(report, ">")], sep = "\n")
  }
  n <- as.integer(regmatches(tail(totals, 1), regexec(pattern, tail(totals, 1)))[[1]][-1])
  c(passed = n[[3]], failed = n[[1]], skipped = n[[2]])
}

if (is.null(check_dir)) {
  cat("\n== R tests (testthat)\n")
  results <- as.data.frame(testthat::test_local(".", stop_on_failure = FALSE,
                                                reporter = testthat::ProgressReporter$new(show_praise = FALSE)))
  r <- c(passed = sum(results$passed), failed = sum(results$failed) + sum(results$error),
         skipped = sum(results$skipped))
} else {
  cat("\n== R tests (testthat, run by R CMD check on the installed tarball)\n")
  r <- check_counts(check_dir)
}
cat(sprintf("\npython: %d passed, %d failed, %d skipped\n", py[["passed"]], py[["failed"]], py[["skipped"]]))
cat(sprintf("R: %d passed, %d failed, %d skipped\n", r[["passed"]], r[["failed"]], r[["skipped"]]))
total <- py + r
cat(sprintf("all: %d passed, %d failed, %d skipped\n", total[["passed"]], total[["failed"]], total[["skipped"]]))
quit(status = if (total[["failed"]] > 0) 1L else 0L)
