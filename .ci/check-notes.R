# Reads an R CMD check log (00check.log) and fails (status 1) on any ERROR or WARNING, and on
# any NOTE that is not one of the few below. Each allowed NOTE is caused by the machine CI runs
# on, never by the package, and only with exactly these details: a NOTE with any other line
# fails, so a package problem that shares a check with an allowed note is not hidden. (With
# _R_CHECK_CRAN_INCOMING_REMOTE_=false, as .ci/check.sh runs it, the incoming check reports
# "Note_to_CRAN_maintainers" with the maintainer line, which is no NOTE; the rule below is
# for a check run with a network.)
# Usage: Rscript --vanilla .ci/check-notes.R <pkg>.Rcheck/00check.log

allowed_notes <- list(
  list(
    check = "CRAN incoming feasibility",
    why = paste("a package not yet on CRAN: the maintainer line and 'New submission' are",
                "printed for every first submission"),
    details = c("^Maintainer: ", "^New submission$")
  ),
  list(
    check = "for future file timestamps",
    why = "the check asks a time server for the current time; CI has no network",
    details = "^unable to verify current time$"
  ),
  list(
    check = "examples",
    why = paste("examples over 5 s elapsed but under 5 s of CPU each: the time went to waiting",
                "on the shared machine, not to the package (a CPU time over 5 s fails)"),
    details = c("^Examples with CPU \\(user \\+ system\\) or elapsed time > 5s$",
                "^user +system +elapsed$"),
    rows = function(row) {
      fields <- strsplit(row, " +")[[1]]
      length(fields) == 4 && sum(as.double(fields[2:3])) < 5
    }
  ),
  list(
    check = "HTML version of manual",
    why = "HTML Tidy or the V8 package is not installed on the machine",
    details = c("^Skipping checking HTML validation: no command .tidy. found",
                "^Skipping checking math rendering: package .V8. unavailable")
  )
)

# One block per "* checking ..." line: its title, result and the lines under it.
check_blocks <- function(lines) {
  starts <- grep("^\\* ", lines)
  ends <- c(starts[-1] - 1L, length(lines))
  lapply(seq_along(starts), function(i) {
    head <- lines[[starts[[i]]]]
    body <- if (ends[[i]] > starts[[i]]) lines[(starts[[i]] + 1L):ends[[i]]] else character()
    body <- trimws(body[nzchar(trimws(body)) & !grepl("^Status:", body)])
    # The result ends the title line, or (checks that print progress, like the tests) stands
    # on a line of its own below it.
    result <- regmatches(head, regexpr("(OK|NOTE|WARNING|ERROR)$", head))
    own_line <- grep("^(OK|NOTE|WARNING|ERROR)$", body)
    if (!length(result) && length(own_line)) {
      result <- body[[own_line[[1]]]]
      body <- body[-own_line[[1]]]
    }
    list(head = head, result = if (length(result)) result else "", details = body)
  })
}

note_allowance <- function(block) {
  for (rule in allowed_notes) {
    if (!grepl(paste0("checking ", rule$check, " ..."), block$head, fixed = TRUE)) next
    matched <- vapply(block$details, function(d) {
      any(vapply(rule$details, grepl, TRUE, d)) || (!is.null(rule$rows) && rule$rows(d))
    }, TRUE)
    if (all(matched)) return(rule$why)
  }
  NULL
}

main <- function(log) {
  if (!file.exists(log)) {
    cat("No check log at", log, "(the check did not run)\n")
    return(1L)
  }
  lines <- readLines(log, warn = FALSE, encoding = "UTF-8")
  failed <- FALSE
  for (block in check_blocks(lines)) {
    if (!block$result %in% c("NOTE", "WARNING", "ERROR")) next
    why <- if (block$result == "NOTE") note_allowance(block)
    cat(block$head, "\n", paste0("    ", block$details, "\n"), sep = "")
    if (is.null(why)) {
      cat("  -> NOT ALLOWED\n")
      failed <- TRUE
    } else {
      cat("  -> allowed (environment):", why, "\n")
    }
  }
  status <- grep("^Status:", lines, value = TRUE)
  if (!length(status)) {
    cat("The check log has no Status line: the check stopped early.\n")
    return(1L)
  }
  cat(status, "\n")
  if (failed || grepl("ERROR|WARNING", status[[1]])) 1L else 0L
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1) stop("Usage: check-notes.R <pkg>.Rcheck/00check.log")
quit(status = main(args[[1]]))
