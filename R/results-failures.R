# Saying plainly when requests failed, and not calling a failed solve a success.

#' Report failed requests of a solve
#'
#' @description
#' A solver calls `report_failures()` with the error of each request it sent (`NA` for a
#' request that was answered):
#'
#' * when **every** request failed, it warns loudly (class
#'   `predictivebench_warning_all_failed`) with the count and the first error, and, in a
#'   task made by a `<benchmark>_task()`, marks the `$eval()` step that is running as
#'   failed: vitals prints "✖ Solving" instead of "✔ Solving" (the task's `$solve()` hears
#'   of it through a condition of class `predictivebench_step_failed`; a plain
#'   [vitals::Task] only warns);
#' * when **some** failed, it warns with the count, the first error, and how to retry: run
#'   `$eval()` again, and the answered requests come from the cache.
#'
#' Both warnings also have the class `predictivebench_warning_failed_requests`.
#'
#' @param errors A character vector: one element per request, `NA` where it succeeded.
#' @param what What a request is, for the message (`"request"`, `"vote"`, `"judge call"`).
#' @param hint What to do when every request failed. `NULL` suggests checking the model name,
#'   the API key and the endpoint, right for errors of the request itself; a solver whose
#'   requests were answered but whose answers could not be used says what to change instead.
#' @returns The number of failed requests, invisibly.
#' @family results
#' @export
#' @examples
#' report_failures(c(NA, NA))
#' tryCatch(report_failures(c("HTTP 401 Unauthorized", NA)), warning = conditionMessage)
report_failures <- function(errors, what = "request", hint = NULL) {
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
