# In one process, the cells of a set overlap their requests instead of running one after
# another. vitals evaluates a task synchronously, so the set runs in rounds:
#
# 1. Each unfinished cell is evaluated. Its first engine call (run_requests()) that has
#    requests to send hands them to the round (defer_to_eval_set()) and stops the cell there.
#    The round adds them at once to its live pool (one per cache folder and answer format,
#    holding every cell's requests, with each request's own cache key) and turns the pool
#    without waiting (`step(0)`), so they go out while the next cells are evaluated; the pool
#    is turned again between cells. A cell whose every answer is cached runs to the end and
#    writes its log.
# 2. When every cell was attempted, the live pools run until all their requests are answered,
#    each answer cached as it arrives.
# 3. Next round: the cells are evaluated again from the start; what was sent is now read
#    from the cache, so each cell gets one step further (its solver's answers, then its
#    judge's), until every cell is done.
#
# Re-evaluating a cell re-reads cached answers, which costs CPU, not requests. The pool's
# `max_active` is the sum of the models' own `max_active`, and each model is one group of
# the pool with its own `max_active` as its limit, so no model ever has more in flight than
# it would alone. A request that failed in the round (after its own retries) is not sent
# again: the cell gets its error as if it had sent it, unless the cell is retried as a whole.
# When a round's pool stops as a whole (a refused key or a full disk stops it; never inside
# the cell being evaluated, which only handed its requests over), or after `max_rounds`, the
# cells send their requests themselves, one cell after another, as they would alone.

the_round_option <- "predictivebench.eval_set_round"

max_rounds <- 25L

# Called by run_requests() with what it is about to send (`todo`: positions in `prompts`).
# Inside a set's round, requests that already failed in a round get their error through
# `keep(i, error)`; the others are kept for the round and the cell stops. Returns the
# requests left to send here: all of them outside a round, none inside one.
defer_to_eval_set <- function(chats, chat_index, prompts, epoch, keys, todo, settings,
                              key_extra, chat_keys, keep_json, keep) {
  round <- getOption(the_round_option)
  if (is.null(round) || round$off || !is.null(settings$dry_run)) {
    return(todo)
  }
  failed <- todo[keys[todo] %in% names(round$failed)]
  for (i in failed) keep(i, simpleError(round$failed[[keys[[i]]]]))
  todo <- setdiff(todo, failed)
  if (!length(todo)) return(todo)
  extras <- lapply(seq_along(chats), function(k) {
    if (is.null(chat_keys)) key_extra else chat_keys[[k]]
  })
  hand_over(round, list(
    cell = round$cell, chats = chats, extras = extras, chat_index = chat_index[todo],
    prompts = prompts[todo], epoch = epoch[todo], keys = keys[todo], settings = settings,
    keep_json = keep_json, cache = cache_dir(settings$cache)
  ))
  rlang::signal("The cell waits for its requests.", class = "predictivebench_cell_waits")
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

# Evaluates the cells in rounds until none is waiting; `attempt(cell)` runs one and returns
# its outcome ("waiting", "done" or "failed"). A failed cell is attempted again in the next
# round while it has `retries` left, its failed requests sent again. Each outcome's
# `attempts` counts the cell's attempts (rounds spent waiting are not attempts).
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
      outcomes[[i]] <- withr::with_options(stats::setNames(list(round), the_round_option),
                                           attempt(cells[[i]]))
      step_round_pools(round)
    }
    status <- vapply(outcomes[pending], `[[`, "", "status")
    failed <- pending[status == "failed"]
    failures[failed] <- failures[failed] + 1L
    again <- failed[failures[failed] <= retries]
    forget_failures(round, vapply(cells[again], `[[`, "", "id"))
    finish_round_pools(round)
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
hand_over <- function(round, call) {
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
  in_round_pool(round, key, function(pool) {
    pool$add(call)
    pool$step(0)
  })
}

step_round_pools <- function(round) {
  for (key in names(round$pools)) in_round_pool(round, key, function(pool) pool$step(0))
}

# The round's end: every live pool runs until its requests are answered, and their
# failures are the round's.
finish_round_pools <- function(round) {
  for (key in names(round$pools)) {
    in_round_pool(round, key, function(pool) {
      pool$run()
      failed <- pool$failed()
      round$failed[names(failed$errors)] <- as.list(failed$errors)
      round$owner[names(failed$cells)] <- as.list(failed$cells)
    })
    close_round_pool(round, key)
  }
  for (w in round$warnings) warning(w)
  round$warnings <- list()
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
  invisible(ok)
}

# A live pool of the round (R/engine-pool.R's new_request_pool() on one growing transport):
# `add(call)` queues a cell's requests, sent by the cache keys the cell computed, each answer
# cached as it arrives (cache_keeper()); `failed()` gives the error messages of the requests
# that failed, and the cell each belonged to, by cache key. Its settings (rpm, tries, deadline)
# are the first cell's, as one call of run_requests() has one settings object.
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
  deliver <- function(i, value) kept[[call_of[[i]]]]$keep(row_of[[i]], value)
  pool <- new_request_pool(transport, deliver, settings$max_active, settings$rpm,
                           settings$max_tries, settings$backoff, deadline)
  started <- now_seconds()
  list(
    add = function(call) {
      calls[[length(calls) + 1L]] <<- call
      kept[[length(calls)]] <<- cache_keeper(dir, call$keys)
      limits <- model_max_active(calls)
      ids <- transport$extend(call$chats, call$chat_index, call$prompts,
                              max_active = sum(limits))
      call_of[ids] <<- length(calls)
      row_of[ids] <<- seq_along(ids)
      pool$limit(sum(limits), limits)
      pool$add(ids, vapply(call$chats, chat_model_label, "")[call$chat_index])
    },
    step = function(wait) pool$step(wait),
    run = function() pool$run(),
    uses_later = function() transport$uses_later(),
    failed = function() {
      errors <- character()
      cells <- character()
      for (j in seq_along(calls)) {
        failed <- which(!is.na(kept[[j]]$errors))
        keys <- calls[[j]]$keys[failed]
        errors[keys] <- kept[[j]]$errors[failed]
        cells[keys] <- rep(calls[[j]]$cell, length(failed))
      }
      list(errors = errors, cells = cells)
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
