# What a run is, apart from what its user tunes: the `run` paying for its requests (stamped on
# each answer), the `collector` sending them (a set's overlap), and `price`, the dry run that
# answers them here and prices them instead (estimate_cost(); R/engine-price.R). Scoped to a
# frame as httr2's local_mocked_responses() is, so nothing a set installs outlives it.
the_session <- new.env(parent = emptyenv())

new_request_session <- function(run = NULL, collector = NULL, price = NULL) {
  if (!is.null(run) && !inherits(run, "predictivebench_run")) {
    cli::cli_abort("Internal error: a session's {.arg run} is made by {.fn new_run}.")
  }
  if (!is.null(collector) && !inherits(collector, "predictivebench_collector")) {
    cli::cli_abort("Internal error: a session's {.arg collector} is made by
                    {.fn new_request_collector}.")
  }
  if (!is.null(price) && !inherits(price, "predictivebench_dry_run")) {
    cli::cli_abort("Internal error: a session's {.arg price} is made by {.fn new_dry_run}.")
  }
  structure(list(run = run, collector = collector, price = price),
            class = "predictivebench_session")
}

# A collector takes over sending a call's requests: `take(requests, keep)` keeps what it answers
# through `keep(i, value, stored)` and returns the positions left for the call to send.
new_request_collector <- function(take) {
  structure(list(take = take), class = "predictivebench_collector")
}

current_request_session <- function() the_session$current %||% new_request_session()

# The dry run pricing this run's requests, NULL when they are sent: the one reader of it.
pricing_collector <- function() current_request_session()$price

# A field not given is the enclosing session's; `collector = NULL` takes it away.
local_request_session <- function(run = current_request_session()$run,
                                  collector = current_request_session()$collector,
                                  price = current_request_session()$price,
                                  .env = parent.frame()) {
  session <- new_request_session(run, collector, price)
  before <- the_session$current
  the_session$current <- session
  withr::defer(the_session$current <- before, envir = .env)
  invisible(session)
}

with_request_session <- function(session, code) {
  local_request_session(session$run, session$collector, session$price)
  code
}
