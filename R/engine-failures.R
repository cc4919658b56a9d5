# What the engine says of requests that failed for good.

# Requests of one step that failed for good: a warning that says how many and the first
# error, and, when every request failed, the signal that the step failed as a whole
# (fail_eval_step()). What report_failures() says of a vector of errors; the engine's solver
# says it of its own requests.
warn_failed_requests <- function(errors, what = "request", hint = NULL) {
  check_string(what)
  check_string(hint, allow_null = TRUE)
  errors <- as.character(unlist(errors))
  n <- length(errors)
  failed <- sum(!is.na(errors))
  if (!failed) return(invisible(0L))
  first <- errors[!is.na(errors)][[1]]
  what <- paste0(what, ifelse(n == 1, "", "s"))
  if (failed == n) {
    fail_eval_step()
    cli::cli_warn(c(
      "All {n} {what} failed: every result is {.code NA}.",
      x = "First error: {first}",
      i = hint %||% "Check the model name, the API key and the endpoint, then run {.code $eval()} again."
    ), class = c("predictivebench_warning_all_failed", "predictivebench_warning_failed_requests"))
  } else {
    cli::cli_warn(c(
      "{failed} of {n} {what} failed; {?its/their} result{?s} {?is/are} {.code NA}.",
      i = "First error: {first}",
      i = "Run {.code $eval()} again to retry them: the answered ones come from the cache."
    ), class = "predictivebench_warning_failed_requests")
  }
  invisible(failed)
}

# Says that the step running (a solve or a score) failed as a whole: a ResultsTask's
# `$solve()`/`$score()` catch this condition and mark `$eval()`'s step as failed ("x Solving",
# see vitals_fail_step()). Outside a ResultsTask nothing listens, and nothing happens.
fail_eval_step <- function() {
  rlang::signal("Every request of this step failed.", class = "predictivebench_step_failed")
  invisible()
}
