# In one process, the cells of a set overlap their requests instead of running one after
# another, each cell evaluated once, in one pass. A cell's engine call (run_requests()) hands
# its requests to the overlap (overlap_hand_over(), the collector of its request session),
# which adds them to its live pool (one per cache folder and answer format, holding every
# cell's requests by their cache keys) and sends them at once; then the cell waits for ITS
# requests while the pool turns (await_keys()). While it waits, the next cell not yet started
# is evaluated inside that wait (at most `max_nesting` deep), so its requests join the pool
# with the first's; a cell finished inside another's wait returns to it. What a nested cell
# signals (a failed step, warnings) stays its own.
#
# The pool's `max_active` is the sum of the models' own, each model one group of the pool
# with its own `max_active` as its limit. A request that failed in the pool (after its own
# retries) is not sent again in the same attempt: the cell gets its error as if it had sent
# it. A failed or partial cell is attempted again (while it has `retries` left), sending its
# failed requests again. When a pool stops as a whole (a refused key or a full disk; never
# inside the cell waiting, which only handed its requests over), the answers it had received
# are still handed to their cells, and the cells send the rest themselves.

# The collector of a cell's attempt (`attempt` names it: its requests that failed in an
# earlier attempt are sent again): `$take()` is called by run_requests() with what it is
# about to send (`requests$todo`, positions in `requests$prompts`) and `keep(i, value,
# stored)`, waits for them and returns those left for the cell to send itself (none while
# the pool takes them; those it could not answer once it has stopped).
overlap_hand_over <- function(overlap, attempt) {
  new_request_collector(function(requests, keep) {
    keys <- requests$keys
    dir <- requests$cache
    todo <- take_settled(overlap, keys, requests$todo, keep, attempt, dir)
    # (again: a request another cell sent again after it failed there is waited for, one
    # dropped from the overlap is added)
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

# Hands the cell (through `keep()`) what the overlap has settled of its requests `todo` (an
# answer, held or read back from the cache `dir`, or the error of a request that failed in
# this attempt), and returns the others. An answer stays known (another cell may wait for
# it) but, once cached, not in memory; an error is forgotten; a request that failed in
# another attempt is sent again.
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

# Turns the pools until every one of `keys` pending in the overlap is settled (or no pool is
# busy: a stopped pool settles nothing more), starting the next cell meanwhile
# (start_nested()). Each answer counts itself off its watchers as it arrives.
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

# Starts the next cell not yet started inside the wait of the cell being evaluated (at most
# `max_nesting` deep), and evaluates it to its end. TRUE when it ran one. A failed step, its
# warnings (given at the overlap's end) and messages never reach the cell it runs inside.
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

# Evaluates the cells in one pass (above); `attempt(cell, collector)` runs one, its
# requests handed over to the overlap (its request session's collector), and returns its
# outcome ("done", "partial" or "failed"). A failed or partial cell is attempted again while
# it has `retries` left, its failed requests sent again; each outcome's `attempts` counts them.
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

# A cell's requests join the overlap's live pool for their cache folder and answer format,
# and go out at once. FALSE when the overlap has stopped sending (the cell sends them itself).
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

# Runs `f(pool)` on a live pool, whose warnings are held back for the overlap's end. An error
# there (a refused key, a full disk) stops that pool, never the cell being evaluated: the
# pool is closed, and the cells send their requests themselves from now on.
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

# A live pool of the set's overlap (R/engine-pool.R's new_request_pool() on one growing
# transport), named `name` among the overlap's pools: `add(call, rows)` queues a cell's
# requests (those of `rows`, by the cache keys the cell computed), each answer stamped with
# the set's run and cached as it arrives, and filed with every outcome in the overlap's
# requests (take_settled() hands them to the cell); `busy()` says whether anything is queued
# or in flight. Its settings (rpm, tries, deadline) are the first cell's, as one call of
# run_requests() has one settings object.
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
    # (kept first: an error writing it, a full disk, stops the pool, and the answer's cell
    # writes it again)
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
      # as run_requests() does: ellmer logs what it sends itself, the curl fast path's usage
      # here
      for (j in seq_along(calls)) {
        call <- calls[[j]]
        log_fast_path_usage(call$chats, call$chat_index, seq_along(call$prompts), used[[j]],
                            settings)
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
