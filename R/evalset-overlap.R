# In one process, a set's cells overlap their requests: a cell's run_requests() hands them to a
# live pool (one per cache folder and answer format), then waits for its own (await_keys());
# meanwhile the next cell is evaluated inside that wait (at most `max_nesting` deep) so its
# requests join the pool. What a nested cell signals stays its own. A request that failed in
# the pool is not sent again in the same attempt; a failed or partial cell is attempted again
# while it has `retries` left. When a pool stops (a refused key, a full disk), its answers are
# still handed over and the cells send the rest themselves.

# The collector of a cell's attempt: run_requests() calls `$take()` with what it would send;
# it returns those left for the cell to send itself (none while the pool takes them).
overlap_hand_over <- function(overlap, attempt) {
  new_request_collector(function(requests, keep) {
    keys <- requests$keys
    dir <- requests$cache
    todo <- take_settled(overlap, keys, requests$todo, keep, attempt, dir)
    # (again: requests another cell resent are waited for, ones dropped are added)
    repeat {
      if (!length(todo)) return(todo)
      new <- todo[vapply(keys[todo], function(k) is.null(overlap$requests[[k]]), TRUE)]
      if (length(new)) {
        added <- hand_to_overlap(overlap, attempt, list(
          chats = requests$chats, extras = requests$extras,
          chat_index = requests$chat_index[new], prompts = requests$prompts[new],
          epoch = requests$epoch[new], keys = keys[new], settings = requests$settings,
          keep_json = requests$keep_json, cache = requests$cache
        ))
        if (!added) return(take_settled(overlap, keys, todo, keep, attempt, dir))
      }
      await_keys(overlap, keys[todo])
      left <- take_settled(overlap, keys, todo, keep, attempt, dir)
      # nothing settled and nothing more to come (the pool stopped): the cell sends the rest
      if (length(left) == length(todo) && !overlap_busy(overlap)) return(left)
      todo <- left
    }
  })
}

# Hands the cell what the overlap has settled of `todo` and returns the others. An answer stays
# known (another cell may wait for it) but, once cached, not in memory; an error is forgotten.
take_settled <- function(overlap, keys, todo, keep, attempt, dir) {
  left <- rep(TRUE, length(todo))
  for (j in seq_along(todo)) {
    request <- overlap$requests[[keys[[todo[[j]]]]]]
    if (is.null(request) || request$state == "pending") next
    if (request$state == "failed" && !identical(request$attempt, attempt)) {
      rm(list = keys[[todo[[j]]]], envir = overlap$requests)
      next
    }
    key <- keys[[todo[[j]]]]
    if (request$state == "answered") {
      value <- request$value %||% cache_get_many(dir, key)[[1]]
      if (is.null(value)) {  # (gone from the cache since: sent again)
        rm(list = key, envir = overlap$requests)
        next
      }
      keep(todo[[j]], value, stored = isTRUE(request$stored))
      if (isTRUE(request$stored)) overlap$requests[[key]]$value <- NULL
    } else {
      keep(todo[[j]], simpleError(request$value))
      rm(list = key, envir = overlap$requests)
    }
    left[[j]] <- FALSE
  }
  todo[left]
}

# Turns the pools until every pending one of `keys` is settled (or no pool is busy), starting
# the next cell meanwhile (start_nested()).
await_keys <- function(overlap, keys) {
  pending <- unique(keys[vapply(keys, function(k) {
    identical(overlap$requests[[k]]$state, "pending")
  }, TRUE)])
  if (!length(pending)) return(invisible())
  watcher <- new.env(parent = emptyenv())
  watcher$keys <- new.env(parent = emptyenv())
  for (k in pending) watcher$keys[[k]] <- TRUE
  watcher$n <- length(pending)
  overlap$watchers <- c(overlap$watchers, list(watcher))
  step_overlap_pools(overlap)  # (a request just added needs a second turn to go out)
  on.exit(overlap$watchers <- Filter(function(w) !identical(w, watcher), overlap$watchers),
          add = TRUE)
  while (watcher$n > 0L && overlap_busy(overlap)) {
    if (!start_nested(overlap)) turn_overlap_pools(overlap)
  }
  invisible()
}

# Starts and finishes the next cell inside the current cell's wait; TRUE when it ran one. Its
# failures, warnings and messages never reach the cell it runs inside.
start_nested <- function(overlap, max_nesting = 8L) {
  if (is.null(overlap$start) || !length(overlap$queue) || overlap$depth >= max_nesting) {
    return(FALSE)
  }
  overlap$depth <- overlap$depth + 1L
  on.exit(overlap$depth <- overlap$depth - 1L, add = TRUE)
  withCallingHandlers(
    overlap$start(),
    predictivebench_step_failed = function(c) tryInvokeRestart("rlang_muffle"),
    warning = function(w) {
      message <- conditionMessage(w)
      if (!message %in% names(overlap$warnings)) overlap$warnings[[message]] <- w
      tryInvokeRestart("muffleWarning")
    },
    message = function(m) tryInvokeRestart("muffleMessage")
  )
  TRUE
}

overlap_busy <- function(overlap) {
  any(vapply(overlap$pools, function(pool) pool$busy(), TRUE))
}

new_overlap <- function() {
  overlap <- new.env(parent = emptyenv())
  overlap$off <- FALSE
  # each request handed over, by cache key: its `state` ("pending", "answered", "failed"),
  # `value` (the record, or the error message), `pool` and the `attempt` that handed it over
  overlap$requests <- new.env(parent = emptyenv())
  overlap$watchers <- list()  # the keys each cell being evaluated waits for (await_keys())
  overlap$queue <- integer()  # the cells not yet started
  overlap$start <- NULL  # starts the first of them and evaluates it to its end
  overlap$depth <- 0L  # cells evaluated inside another's wait
  overlap$pools <- list()  # the live pools (overlap_pool()) by cache folder and answer format
  overlap$warnings <- list()  # the pools' warnings, each given once when the overlap ends
  overlap
}

# Evaluates the cells in one pass; `attempt(cell, collector)` runs one and returns "done",
# "partial" or "failed".
run_overlapping <- function(cells, retries, attempt) {
  overlap <- new_overlap()
  outcomes <- vector("list", length(cells))
  failures <- integer(length(cells))
  pending <- seq_along(cells)
  generation <- 0L
  on.exit(close_overlap_pools(overlap), add = TRUE)  # nothing left in flight, even on error
  while (length(pending)) {
    generation <- generation + 1L
    ids <- paste(vapply(cells[pending], `[[`, "", "id"), generation)
    overlap$queue <- seq_along(pending)
    overlap$start <- function() {
      k <- overlap$queue[[1]]
      overlap$queue <- overlap$queue[-1]
      outcomes[[pending[[k]]]] <<- tryCatch(
        attempt(cells[[pending[[k]]]], overlap_hand_over(overlap, ids[[k]])),
        error = function(e) new_outcome("failed", error = conditionMessage(e))
      )
      step_overlap_pools(overlap)
    }
    while (length(overlap$queue)) overlap$start()
    overlap$start <- NULL
    status <- vapply(outcomes[pending], `[[`, "", "status")
    failed <- pending[status %in% c("failed", "partial")]
    failures[failed] <- failures[failed] + 1L
    final <- vapply(outcomes[failed], function(o) isTRUE(o$final), TRUE)
    for (w in overlap$warnings) warning(w)
    overlap$warnings <- list()
    pending <- failed[failures[failed] <= retries & !final]
  }
  for (i in seq_along(outcomes)) outcomes[[i]]$attempts <- failures[[i]] +
    as.integer(outcomes[[i]]$status == "done")
  outcomes
}

# A cell's requests join the overlap's live pool and go out at once; FALSE once it stopped.
hand_to_overlap <- function(overlap, attempt, call) {
  if (overlap$off) return(FALSE)
  key <- paste(call$cache %||% "<none>", call$keep_json)
  if (is.null(overlap$pools[[key]])) {
    # (an unwritable cache folder stops the overlap's sending as a refused key does)
    pool <- tryCatch(overlap_pool(overlap, key, call$settings, call$cache, call$keep_json),
                     error = function(e) NULL)
    if (is.null(pool)) {
      overlap$off <- TRUE
      return(FALSE)
    }
    overlap$pools[[key]] <- pool
  }
  fresh <- !duplicated(call$keys)
  for (k in call$keys[fresh]) {
    overlap$requests[[k]] <- list(state = "pending", value = NULL, pool = key, attempt = attempt)
  }
  # (added first, so that the step knows whether ellmer's path is in the pool)
  in_overlap_pool(overlap, key, function(pool) pool$add(call, fresh)) &&
    in_overlap_pool(overlap, key, function(pool) pool$step(0))
}

step_overlap_pools <- function(overlap) {
  for (key in names(overlap$pools)) in_overlap_pool(overlap, key, function(pool) pool$step(0))
}

# One turn of the live pools: waiting for news on the only busy one, or briefly on each (a
# pool with nothing to do is stepped too: a stop, a refused key, surfaces there).
turn_overlap_pools <- function(overlap) {
  busy <- vapply(overlap$pools, function(pool) pool$busy(), TRUE)
  wait <- if (sum(busy) > 1L) 0.05 else Inf
  for (key in names(overlap$pools)) {
    in_overlap_pool(overlap, key, function(pool) pool$step(if (busy[[key]]) wait else 0))
  }
  invisible()
}

close_overlap_pools <- function(overlap) {
  for (key in names(overlap$pools)) close_overlap_pool(overlap, key)
}

close_overlap_pool <- function(overlap, key) {
  pool <- overlap$pools[[key]]
  overlap$pools[[key]] <- NULL
  if (!is.null(pool)) pool$close()
}

# Runs `f(pool)` on a live pool, its warnings held for the overlap's end. An error there stops
# that pool, never the cell being evaluated: the cells then send their own requests.
in_overlap_pool <- function(overlap, key, f) {
  pool <- overlap$pools[[key]]
  if (is.null(pool)) return(FALSE)  # stopped earlier in this overlap
  ok <- tryCatch(
    withCallingHandlers(
      {
        if (pool$uses_later()) without_jit(f(pool)) else f(pool)  # R/engine-compat-ellmer.R
        TRUE
      },
      warning = function(w) {
        message <- conditionMessage(w)
        if (!message %in% names(overlap$warnings)) overlap$warnings[[message]] <- w
        tryInvokeRestart("muffleWarning")
      }
    ),
    error = function(e) FALSE
  )
  if (!ok) {
    overlap$off <- TRUE
    close_overlap_pool(overlap, key)
  }
  ok
}

# A live pool of the overlap on one growing transport: `add(call, rows)` queues a cell's
# requests by their cache keys, each answer cached as it arrives; `busy()` says whether anything
# is queued or in flight. Its settings are the first cell's (one run_requests() has one).
overlap_pool <- function(overlap, name, settings, dir, keep_json) {
  deadline <- settings_deadline(settings)
  run <- current_request_session()$run  # the set's (a cell's session adds only its collector)
  # (never a dry run: estimate_cost() sends nothing to hand over)
  cache_prepare(dir)
  transport <- request_transport(list(), integer(), list(), keep_json, settings$max_active,
                                 deadline, settings$max_turns)
  calls <- list()
  used <- list()  # by call: the usage of each answered request (for ellmer's session totals)
  call_of <- integer()  # by request id
  key_of <- character()  # by request id
  row_of <- integer()  # by request id: its row in its call
  deliver <- function(i, value) {
    key <- key_of[[i]]
    attempt <- overlap$requests[[key]]$attempt %||% NA_character_
    watched <- FALSE
    for (w in overlap$watchers) {
      if (is.null(w$keys[[key]])) next
      rm(list = key, envir = w$keys)
      w$n <- w$n - 1L
      watched <- TRUE
    }
    if (inherits(value, "error")) {
      overlap$requests[[key]] <- list(state = "failed", value = conditionMessage(value),
                                   pool = name, attempt = attempt)
      return(invisible())
    }
    value$run <- run
    used[[call_of[[i]]]][[row_of[[i]]]] <<- value[c("input_tokens", "output_tokens", "cost")]
    # (kept first: if writing it fails the pool stops, and the cell writes it again)
    overlap$requests[[key]] <- list(state = "answered", value = value, pool = name,
                                 attempt = attempt, stored = FALSE)
    cache_set(dir, key, value)
    # Once cached, an answer no cell waits for now is not held in memory: its cell reads it
    # from the cache (memory bounded by what is in flight and awaited, not by the answers).
    overlap$requests[[key]] <- list(state = "answered", value = if (watched || is.null(dir)) value,
                                 pool = name, attempt = attempt, stored = TRUE)
  }
  pool <- new_request_pool(transport, deliver, settings$max_active, settings$rpm,
                           settings$max_tries, settings$backoff, deadline)
  started <- now_seconds()
  list(
    add = function(call, rows) {
      call$chat_index <- call$chat_index[rows]
      call$prompts <- call$prompts[rows]
      call$keys <- call$keys[rows]
      calls[[length(calls) + 1L]] <<- call
      used[[length(calls)]] <<- vector("list", length(call$keys))
      limits <- model_max_active(calls)
      ids <- transport$extend(call$chats, call$chat_index, call$prompts,
                              max_active = sum(limits))
      call_of[ids] <<- length(calls)
      key_of[ids] <<- call$keys
      row_of[ids] <<- seq_along(ids)
      pool$limit(sum(limits), limits)
      pool$add(ids, vapply(call$chats, chat_model_label, "")[call$chat_index])
    },
    step = function(wait) pool$step(wait),
    busy = function() pool$busy(),
    uses_later = function() transport$uses_later(),
    close = function() {
      pool$close()
      # as run_requests() does: ellmer logs what it sends, the fast path's usage is logged here
      for (j in seq_along(calls)) {
        call <- calls[[j]]
        log_fast_path_usage(call$chats, call$chat_index, seq_along(call$prompts), used[[j]])
      }
      if (length(calls)) {
        note_rpm_pace(length(call_of), settings$rpm, sum(model_max_active(calls)),
                      now_seconds() - started,
                      unlist(lapply(calls, `[[`, "chats"), recursive = FALSE))
      }
    }
  )
}

# Each model's own max_active (the largest asked by its calls), named by model. A model is
# its chats' label ("provider/model"), so a judge's requests count against the judge model.
model_max_active <- function(calls) {
  model <- vapply(calls, function(x) chat_model_label(x$chats[[1]]), "")
  active <- vapply(calls, function(x) as.double(x$settings$max_active), 1)
  tapply(active, model, max)[unique(model)]
}
