# What a run is, apart from what its user tunes: the `run` paying for its requests (stamped on
# each answer) and the `collector` sending them (a set's overlap). Scoped to a frame as httr2's
# local_mocked_responses() is, so nothing a set installs outlives it.
the_session <- new.env(parent = emptyenv())

new_request_session <- function(run = NULL, collector = NULL) {
  if (!is.null(run) && !inherits(run, "predictivebench_run")) {
    cli::cli_abort("Internal error: a session's {.arg run} is made by {.fn new_run}.")
  }
  if (!is.null(collector) && !inherits(collector, "predictivebench_collector")) {
    cli::cli_abort("Internal error: a session's {.arg collector} is made by
                    {.fn new_request_collector}.")
  }
  structure(list(run = run, collector = collector), class = "predictivebench_session")
}

# A collector takes over sending a call's requests: `take(requests, keep)` keeps what it answers
# through `keep(i, value, stored)` and returns the positions left for the call to send.
new_request_collector <- function(take) {
  structure(list(take = take), class = "predictivebench_collector")
}

current_request_session <- function() the_session$current %||% new_request_session()

# A field not given is the enclosing session's; `collector = NULL` takes it away.
local_request_session <- function(run = current_request_session()$run,
                                  collector = current_request_session()$collector,
                                  .env = parent.frame()) {
  session <- new_request_session(run, collector)
  before <- the_session$current
  the_session$current <- session
  withr::defer(the_session$current <- before, envir = .env)
  invisible(session)
}

with_request_session <- function(session, code) {
  local_request_session(session$run, session$collector)
  code
}
