# What the engine says of requests that failed for good.

# Requests of one step that failed for good: a warning with their count and first error, and
# when all failed, fail_eval_step().
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

# Marks the running step as failed as a whole: a ResultsTask's `$solve()`/`$score()` catch it
# ("x Solving"); outside one nothing listens.
fail_eval_step <- function() {
  rlang::signal("Every request of this step failed.", class = "predictivebench_step_failed")
  invisible()
}
