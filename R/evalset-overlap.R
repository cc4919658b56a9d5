# In one process, the cells of a set overlap their requests instead of running one after
# another. vitals evaluates a task synchronously, so the set runs in rounds:
#
# 1. Each unfinished cell is evaluated. Its first engine call (run_requests()) that has
#    requests to send hands them to the round (round_hand_over(), the `hand_over` context
#    of the settings the cell's task is evaluated with) and stops the cell there.
#    The round adds them at once to its live pool (one per cache folder and answer format,
#    holding every cell's requests, with each request's own cache key) and turns the pool
#    without waiting (`step(0)`), so they go out while the next cells are evaluated; the pool
#    is turned again between cells. A cell whose every answer is cached runs to the end and
#    writes its log.
# 2. Next round: the cells are evaluated again from the start, each as soon as the requests
#    it handed over are answered (the live pools turn until then, while the later cells'
#    requests are still in flight); what was sent is now read from the cache, so each cell
#    gets one step further (its solver's answers, then its judge's), until every cell is
#    done. The pools live until the set ends, so requests of every round overlap the CPU
#    of evaluating cells.
#
# Re-evaluating a cell re-reads cached answers, which costs CPU, not requests. The pool's
# `max_active` is the sum of the models' own `max_active`, and each model is one group of
# the pool with its own `max_active` as its limit, so no model ever has more in flight than
# it would alone. A request that failed in the round (after its own retries) is not sent
# again: the cell gets its error as if it had sent it, unless the cell is retried as a whole.
# When a round's pool stops as a whole (a refused key or a full disk stops it; never inside
# the cell being evaluated, which only handed its requests over), or after `max_rounds`, the
# cells send their requests themselves, one cell after another, as they would alone.

max_rounds <- 25L

# What a round gives a cell's requests (settings$hand_over, called by run_requests() with
# what it is about to send: `requests$todo`, positions in `requests$prompts`). Requests that
# already failed in a round get their error through `keep(i, error)`; the others are handed
# to the round's live pool and the cell stops. Returns the requests left to send in the cell:
# all of them once the round is off (its sending stopped), none while it is on.
round_hand_over <- function(round) {
  function(requests, keep) {
    todo <- requests$todo
    if (round$off) return(todo)
    keys <- requests$keys
    failed <- todo[keys[todo] %in% names(round$failed)]
    for (i in failed) keep(i, simpleError(round$failed[[keys[[i]]]]))
    todo <- setdiff(todo, failed)
    if (!length(todo)) return(todo)
    hand_to_round(round, list(
      cell = round$cell, chats = requests$chats, extras = requests$extras,
      chat_index = requests$chat_index[todo], prompts = requests$prompts[todo],
      epoch = requests$epoch[todo], keys = keys[todo], settings = requests$settings,
      keep_json = requests$keep_json, cache = requests$cache
    ))
    rlang::signal("The cell waits for its requests.", class = "predictivebench_cell_waits")
  }
}

new_round <- function() {
  round <- new.env(parent = emptyenv())
  round$off <- FALSE
  round$failed <- list()  # error messages by cache key
  round$owner <- list()   # cell id by cache key of a failed request
  round$pools <- list()  # the live pools (round_pool()) by cache folder and answer format
  round$warnings <- list()  # the pools' warnings, each given once when the round ends
  round$cell <- NULL
  round$n <- 0L
  round
}

# Evaluates the cells in rounds until none is waiting; `attempt(cell, hand_over)` runs one,
# its requests handed over to the round (the settings' `hand_over` context), and returns
# its outcome ("waiting", "done", "partial" or "failed"). A failed or partial cell is
# attempted again in the next round while it has `retries` left, its failed requests sent
# again. Each outcome's `attempts` counts the cell's attempts (rounds spent waiting are not
# attempts).
run_in_rounds <- function(cells, retries, attempt) {
  round <- new_round()
  outcomes <- vector("list", length(cells))
  failures <- integer(length(cells))
  pending <- seq_along(cells)
  on.exit(close_round_pools(round), add = TRUE)  # nothing left in flight, even on error
  while (length(pending)) {
    round$n <- round$n + 1L
    round$off <- round$off || round$n > max_rounds
    for (i in pending) {
      round$cell <- cells[[i]]$id
      await_cell(round, round$cell)
      outcomes[[i]] <- attempt(cells[[i]], round_hand_over(round))
      step_round_pools(round)
    }
    status <- vapply(outcomes[pending], `[[`, "", "status")
    failed <- pending[status %in% c("failed", "partial")]
    failures[failed] <- failures[failed] + 1L
    final <- vapply(outcomes[failed], function(o) isTRUE(o$final), TRUE)
    again <- failed[failures[failed] <= retries & !final]
    forget_failures(round, vapply(cells[again], `[[`, "", "id"))
    for (w in round$warnings) warning(w)
    round$warnings <- list()
    pending <- c(pending[status == "waiting"], again)
  }
  for (i in seq_along(outcomes)) outcomes[[i]]$attempts <- failures[[i]] +
    as.integer(outcomes[[i]]$status == "done")
  outcomes
}

# A cell tried again sends its failed requests again.
forget_failures <- function(round, ids) {
  drop <- names(round$owner)[unlist(round$owner) %in% ids]
  round$failed[drop] <- NULL
  round$owner[drop] <- NULL
}

# A cell's requests join the round's live pool for their cache folder and answer format,
# and go out at once.
hand_to_round <- function(round, call) {
  key <- paste(call$cache %||% "<none>", call$keep_json)
  if (is.null(round$pools[[key]])) {
    # (an unwritable cache folder stops the round's sending as a refused key does)
    pool <- tryCatch(round_pool(call$settings, call$cache, call$keep_json),
                     error = function(e) NULL)
    if (is.null(pool)) {
      round$off <- TRUE
      return(invisible(FALSE))
    }
    round$pools[[key]] <- pool
  }
  # (added first, so that the step knows whether ellmer's path is in the pool)
  in_round_pool(round, key, function(pool) pool$add(call)) &&
    in_round_pool(round, key, function(pool) pool$step(0))
}

step_round_pools <- function(round) {
  for (key in names(round$pools)) in_round_pool(round, key, function(pool) pool$step(0))
}

# Before a cell is evaluated again, the requests it handed over in the last round are
# answered (the live pools turn until then, while later cells' requests stay in flight), and
# those that failed are the round's failures.
await_cell <- function(round, cell) {
  for (key in names(round$pools)) {
    in_round_pool(round, key, function(pool) {
      while (pool$waits_for(cell)) pool$step(Inf)
      failed <- pool$collect(cell)
      round$failed[names(failed$errors)] <- as.list(failed$errors)
      round$owner[names(failed$errors)] <- as.list(rep(cell, length(failed$errors)))
    })
  }
}

close_round_pools <- function(round) {
  for (key in names(round$pools)) close_round_pool(round, key)
}

close_round_pool <- function(round, key) {
  pool <- round$pools[[key]]
  round$pools[[key]] <- NULL
  if (!is.null(pool)) pool$close()
}

# Runs `f(pool)` on a live pool, whose warnings are held back for the round's end. An error
# there (a refused key, a full disk) stops that pool, never the cell being evaluated: the
# pool is closed, and the cells send their requests themselves from now on.
in_round_pool <- function(round, key, f) {
  pool <- round$pools[[key]]
  if (is.null(pool)) return(FALSE)  # stopped earlier in this round
  ok <- tryCatch(
    withCallingHandlers(
      {
        if (pool$uses_later()) without_jit(f(pool)) else f(pool)  # R/engine-compat-ellmer.R
        TRUE
      },
      warning = function(w) {
        message <- conditionMessage(w)
        if (!message %in% names(round$warnings)) round$warnings[[message]] <- w
        tryInvokeRestart("muffleWarning")
      }
    ),
    error = function(e) FALSE
  )
  if (!ok) {
    round$off <- TRUE
    close_round_pool(round, key)
  }
  ok
}

# A live pool of the set's rounds (R/engine-pool.R's new_request_pool() on one growing
# transport): `add(call)` queues a cell's requests, sent by the cache keys the cell computed,
# each answer cached as it arrives (cache_keeper()); `waits_for(cell)` and `collect(cell)`
# say whether a cell's requests are still unanswered, and which of them failed. Its settings
# (rpm, tries, deadline) are the first cell's, as one call of run_requests() has one
# settings object.
round_pool <- function(settings, dir, keep_json) {
  deadline <- settings_deadline(settings)
  # (never a dry run: estimate_cost() turns the rounds off)
  cache_prepare(dir)
  transport <- request_transport(list(), integer(), list(), keep_json, settings$max_active,
                                 deadline, settings$max_turns)
  calls <- list()
  kept <- list()  # one cache_keeper() per call
  call_of <- integer()  # by request id
  row_of <- integer()  # by request id: its row in its call
  cell_of <- character()  # by call
  unsettled <- integer()  # by call: its requests not yet delivered
  collected <- logical()  # by call: its failures taken by collect()
  deliver <- function(i, value) {
    j <- call_of[[i]]
    unsettled[[j]] <<- unsettled[[j]] - 1L
    kept[[j]]$keep(row_of[[i]], value)
  }
  pool <- new_request_pool(transport, deliver, settings$max_active, settings$rpm,
                           settings$max_tries, settings$backoff, deadline)
  started <- now_seconds()
  list(
    add = function(call) {
      calls[[length(calls) + 1L]] <<- call
      kept[[length(calls)]] <<- cache_keeper(dir, call$keys, run = call$settings$run)
      cell_of[[length(calls)]] <<- call$cell
      unsettled[[length(calls)]] <<- length(call$keys)
      collected[[length(calls)]] <<- FALSE
      limits <- model_max_active(calls)
      ids <- transport$extend(call$chats, call$chat_index, call$prompts,
                              max_active = sum(limits))
      call_of[ids] <<- length(calls)
      row_of[ids] <<- seq_along(ids)
      pool$limit(sum(limits), limits)
      pool$add(ids, vapply(call$chats, chat_model_label, "")[call$chat_index])
    },
    step = function(wait) pool$step(wait),
    uses_later = function() transport$uses_later(),
    # Whether requests `cell` handed over are still unanswered (queued or in flight).
    waits_for = function(cell) any(unsettled[cell_of == cell & !collected] > 0L),
    # The error messages, by cache key, of the requests `cell` handed over that failed; each
    # call is collected once, when all its requests are settled.
    collect = function(cell) {
      mine <- which(cell_of == cell & !collected & unsettled == 0L)
      collected[mine] <<- TRUE
      errors <- character()
      for (j in mine) {
        failed <- which(!is.na(kept[[j]]$errors))
        errors[calls[[j]]$keys[failed]] <- kept[[j]]$errors[failed]
      }
      list(errors = errors)
    },
    close = function() {
      pool$close()
      # as run_requests() does: ellmer logs what it sends itself, the curl fast path's usage
      # here
      for (j in seq_along(calls)) {
        call <- calls[[j]]
        log_fast_path_usage(call$chats, call$chat_index, seq_along(call$prompts),
                            kept[[j]]$records, settings)
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
