# A continuous request pool: `max_active` requests in flight until the work is done.

# Sends requests `todo` (integers) through `transport` (R/engine-transport.R) and hands every final
# outcome to `deliver(i, value)` the moment it is known: `value` is a record or an error.
# * As soon as one request finishes, the next one starts, so a slow request never holds up
#   the others (there are no rounds or chunks).
# * At most `rpm` requests start per minute: a token bucket holding up to `max_active`
#   starts, refilled at `rpm / 60` per second.
# * Every request has one deadline (`deadline` seconds, all its tool-call rounds included),
#   enforced here, whatever the transport does: past it, the request is cancelled and fails
#   with a `predictivebench_error_deadline`, which counts as transient; a request that had
#   already been paid for tool-call rounds fails with `predictivebench_error_sample_deadline`
#   instead, carrying their usage, and is not sent again (that would pay them again).
# * A transient failure (HTTP 429 or 5xx, a deadline, a dropped connection) goes back into
#   the queue, to be sent again after `retry-after` or `backoff * 2^(k - 1)` seconds (k-th
#   retry) while the other requests go on; after `max_tries` attempts it is delivered as
#   failed ("Gave up after ... tries"), so a provider answering 429 forever cannot hang a run.
# * A 401 or 403 (the credentials are refused) stops the pool: nothing more is sent, the
#   requests in flight are awaited (their answers delivered), then a
#   `predictivebench_pool_halted` condition is raised with the refusal (`error`), the request
#   (`i`) and how many requests were `sent` and `unsent`.
# * With `group` (one name per request, indexed as `todo`) and `group_max_active` (a limit
#   named by group), each group also has at most its own limit in flight, within the pool's
#   `max_active`: an evaluation set's models share one pool, each within its own max_active.
#   A request whose group is full waits while others start.
#
# request_pool() sends `todo` and returns when every request is settled. new_request_pool() is
# the same pool as an object whose loop the caller turns (an evaluation set's overlap adds each
# cell's requests the moment it hands them over, and sends them while the next cell is
# evaluated): `$add(todo, group)` queues requests (`group`: one name per element of `todo`),
# `$limit(max_active, group_max_active)` raises the limits, `$step(wait)` is one turn of the
# loop (start what may start, enforce deadlines, drive the transport at most `wait`
# seconds), `$busy()` says whether a turn has anything to do, `$run()` turns until the work is
# done, and `$close()` closes the transport. A step or run raises the pool's fatal error or
# its `predictivebench_pool_halted` once the pool has stopped.
request_pool <- function(todo, transport, deliver, max_active = 10, rpm = 500,
                         max_tries = 3, backoff = 1, deadline = request_deadline(),
                         group = NULL, group_max_active = NULL) {
  todo <- as.integer(todo)
  if (!is.null(group)) check_pool_groups(group, group_max_active, todo)
  pool <- new_request_pool(transport, deliver, max_active, rpm, max_tries, backoff, deadline,
                           if (!is.null(group)) group_max_active)
  on.exit(pool$close(), add = TRUE)
  pool$add(todo, if (!is.null(group)) as.character(group)[todo])
  pool$run()
}

new_request_pool <- function(transport, deliver, max_active = 10, rpm = 500, max_tries = 3,
                             backoff = 1, deadline = request_deadline(),
                             group_max_active = NULL) {
  queue <- integer()
  ready_at <- double()
  groups <- pool_groups(group_max_active)
  tries <- integer()
  started <- double()  # of the attempt in flight; NA when none
  live <- integer()  # the requests in flight (at most max_active: cheap to scan per turn)
  sent <- 0L
  active <- 0L
  capacity <- min(rpm, max_active)
  tokens <- capacity
  refilled <- now_seconds()
  fatal <- NULL
  halt <- NULL
  # Tool-call rounds request i was paid for in its attempt in flight (a transport whose
  # requests have no rounds has no `progress`).
  rounds_of <- function(i) {
    if (is.null(transport$progress)) 0 else as.double(transport$progress(i))
  }

  finish <- function(i, value) {
    if (is.na(started[[i]])) return(invisible())  # cancelled at its deadline
    started[[i]] <<- NA_real_
    live <<- live[live != i]
    active <<- active - 1L
    groups$release(i)
    if (inherits(value, "error") && is_auth_error(value) && is.null(halt)) {
      halt <<- list(i = i, error = value)
    }
    transient <- inherits(value, "error") && is_transient_error(value)
    if (transient && is.null(halt) && tries[[i]] < max_tries) {
      queue <<- c(queue, i)
      ready_at <<- c(ready_at, now_seconds() + retry_delay(value, tries[[i]], backoff))
      return(invisible())
    }
    if (transient && tries[[i]] >= max_tries) value <- gave_up_error(value, tries[[i]])
    # An error while keeping the answer (a full disk) stops the run, after the turn.
    tryCatch(deliver(i, value), error = function(e) fatal <<- e)
  }

  # Requests past their deadline are cancelled and fail. The deadline runs from the
  # attempt's start, whatever it does meanwhile: tool-call rounds do not renew it.
  enforce_deadlines <- function(now) {
    for (i in live[now - started[live] >= deadline]) {
      rounds <- rounds_of(i)
      usage <- if (rounds > 0 && !is.null(transport$usage)) transport$usage(i)
      transport$cancel(i)
      finish(i, if (rounds > 0) sample_deadline_error(deadline, rounds, usage) else
        deadline_error(deadline))
    }
  }

  # The requests that may start now leave the queue together, in queue order, so that a
  # chunk's thousands of queued requests are scanned once per turn rather than once per start
  # (~0.1 ms a request at 8,000 queued). With groups, one at a time: each start changes a
  # group's room. A request that did not start (the pool halted meanwhile: a start may
  # finish another at once) goes back to the front of the queue.
  start_ready <- function(now) {
    while (is.null(halt) && active < max_active && tokens >= 1 && length(queue)) {
      ready <- which(ready_at <= now & groups$room(queue))
      if (!length(ready)) break
      n <- if (groups$limited()) 1L else min(length(ready), max_active - active, floor(tokens))
      take <- ready[seq_len(n)]
      batch <- queue[take]
      batch_ready_at <- ready_at[take]
      queue <<- queue[-take]
      ready_at <<- ready_at[-take]
      for (k in seq_along(batch)) {
        if (!is.null(halt) || active >= max_active || tokens < 1) {
          rest <- k:length(batch)
          queue <<- c(batch[rest], queue)
          ready_at <<- c(batch_ready_at[rest], ready_at)
          return(invisible())
        }
        i <- batch[[k]]
        groups$take(i)
        tries[[i]] <<- tries[[i]] + 1L
        active <<- active + 1L
        sent <<- sent + 1L
        tokens <<- tokens - 1
        started[[i]] <<- now
        live <<- c(live, i)
        transport$start(i, finish)
      }
    }
  }

  # Wait for an answer, or (with a free slot) for the next retry or rpm token, whichever
  # comes first, and never past the next deadline nor `wait`. With every slot taken only an
  # answer or a deadline can free one: no busy polling.
  wait_for_news <- function(now, wait) {
    wake <- Inf
    waiting <- ready_at[groups$room(queue)]  # a full group waits for an answer
    if (is.null(halt) && length(waiting) && active < max_active) {
      wake <- max(0, min(waiting) - now)
      if (tokens < 1) wake <- max(wake, (1 - tokens) * 60 / rpm)
    }
    if (active > 0L) {
      next_deadline <- min(started[live]) + deadline - now
      transport$drive(max(0, min(wake, 1, next_deadline, wait)))
    } else if (is.finite(wake)) {
      Sys.sleep(min(wake, 1, wait))
    }
  }

  # Stopped: a fatal error, or refused credentials once nothing is in flight any more.
  stopped <- function() !is.null(fatal) || (!is.null(halt) && active == 0L)
  busy <- function() !stopped() && (length(queue) > 0L || active > 0L)
  settle <- function() {
    if (!is.null(fatal)) stop(fatal)
    if (!is.null(halt) && active == 0L) {
      unsent <- sum(tries[unique(queue)] == 0L)
      stop(structure(class = c("predictivebench_pool_halted", "error", "condition"), list(
        message = conditionMessage(halt$error), call = NULL, error = halt$error, i = halt$i,
        sent = sent, unsent = unsent
      )))
    }
    invisible()
  }

  step <- function(wait = Inf) {
    if (busy()) {
      now <- now_seconds()
      enforce_deadlines(now)
      # (rpm = Inf: no limit; Inf * 0 would be NaN)
      tokens <<- if (is.infinite(rpm)) capacity else
        min(capacity, tokens + (now - refilled) * rpm / 60)
      refilled <<- now
      start_ready(now)
      if (!stopped()) wait_for_news(now, wait)
    }
    settle()
    invisible(busy())
  }

  list(
    add = function(todo, group = NULL) {
      todo <- as.integer(todo)
      groups$add(todo, group)
      grow <- max(c(0L, todo)) - length(tries)
      if (grow > 0L) {
        tries <<- c(tries, integer(grow))
        started <<- c(started, rep(NA_real_, grow))
      }
      queue <<- c(queue, todo)
      ready_at <<- c(ready_at, rep(0, length(todo)))
      invisible()
    },
    limit = function(max_active, group_max_active = NULL) {
      max_active <<- max_active
      capacity <<- min(rpm, max_active)
      groups$limit(group_max_active)
      invisible()
    },
    step = step,
    busy = busy,
    run = function() {
      while (busy()) step(Inf)
      settle()
    },
    close = function() transport$close()
  )
}

# request_pool()'s check of its `group` and `group_max_active` arguments.
check_pool_groups <- function(group, group_max_active, todo) {
  group <- as.character(group)
  names_ok <- rlang::is_named(group_max_active) && is.numeric(group_max_active) &&
    !anyNA(group_max_active) && all(group_max_active >= 1)
  if (length(group) < max(c(0L, todo)) || anyNA(group[todo]) || !names_ok ||
      !all(group[todo] %in% names(group_max_active))) {
    abort_pb(c("{.arg group} must name a group for every request, and {.arg group_max_active}
                give a limit of at least 1 to each group by name.",
               i = "Groups: {.val {unique(group[todo])}}; limits for {.val {names(group_max_active)}}."),
             "argument")
  }
}

# The per-group limits of a request pool, by group name (`limit` may be NULL: no groups).
# `add(todo, group)` names each new request's group, `limit(more)` adds or changes limits,
# `room(requests)` says which may start now, `take(i)` and `release(i)` count request i in
# and out of its group. Without groups, always room.
pool_groups <- function(limit = NULL) {
  of <- character()  # group of each request, by request
  in_flight <- stats::setNames(integer(length(limit)), names(limit))
  list(
    add = function(todo, group) {
      if (is.null(limit) && is.null(group)) return(invisible())
      check_pool_groups(rep_len(as.character(group), length(todo)), limit,
                        seq_along(todo))
      if (length(todo)) of[todo] <<- as.character(group)
      invisible()
    },
    limit = function(more) {
      if (is.null(more)) return(invisible())
      new <- setdiff(names(more), names(limit))
      in_flight[new] <<- 0L
      limit[names(more)] <<- more
      invisible()
    },
    limited = function() !is.null(limit),
    room = function(q) {
      if (is.null(limit)) return(rep(TRUE, length(q)))
      in_flight[of[q]] < limit[of[q]]
    },
    take = function(i) {
      if (!is.null(limit)) in_flight[[of[[i]]]] <<- in_flight[[of[[i]]]] + 1L
    },
    release = function(i) {
      if (!is.null(limit)) in_flight[[of[[i]]]] <<- in_flight[[of[[i]]]] - 1L
    }
  )
}

# Seconds before retry number `tries` of a request that failed with `error`: the provider's
# `retry-after` when it gave one (at most a minute), otherwise exponential backoff.
retry_delay <- function(error, tries, backoff) {
  after <- suppressWarnings(as.double(error_retry_after(error)))
  if (length(after) == 1 && !is.na(after) && after >= 0) return(min(after, retry_after_cap_s))
  backoff * 2^(tries - 1)
}

gave_up_error <- function(error, tries) {
  structure(class = c("predictivebench_gave_up", "error", "condition"), list(
    message = paste0("Gave up after ", tries, " tries (a transient error each time): ",
                     conditionMessage(error)),
    call = NULL, parent = error
  ))
}

error_retry_after <- function(e) {
  if (!is.null(e$retry_after)) return(e$retry_after)
  if (!is.null(e$resp)) {
    return(tryCatch(httr2::resp_header(e$resp, "retry-after"), error = function(e2) NULL))
  }
  NULL
}

# Transient, as the official OpenAI and Anthropic SDKs retry: 408 (request timeout), 409
# (conflict: both SDKs retry it, Anthropic documents `conflict_error` as retryable), 425
# (too early), 429, every 5xx (Anthropic's 529 overloaded too), timeouts and dropped or
# reset connections; and a 200 that held no answer unless it says why not for good
# (no_answer_error()). A sample past its own deadline or turn cap is not retried: its
# rounds were paid, and another attempt would pay them again.
transient_statuses <- c(408L, 409L, 425L, 429L)

is_transient_error <- function(e) {
  if (inherits(e, c("predictivebench_gave_up", "predictivebench_error_sample_deadline",
                    "predictivebench_error_max_turns"))) {
    return(FALSE)
  }
  if (inherits(e, "predictivebench_error_no_answer")) return(isTRUE(e$transient))
  status <- error_status(e)
  if (!is.na(status)) return(status %in% transient_statuses || status >= 500)
  inherits(e, c("httr2_failure", "curl_error", "httr2_timeout",
                "predictivebench_connection_error", "predictivebench_error_deadline")) ||
    grepl("timeout|timed out|connect|reset", conditionMessage(e), ignore.case = TRUE)
}
