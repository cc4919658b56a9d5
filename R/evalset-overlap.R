# In one process, the cells of a set overlap their requests instead of running one after
# another. vitals evaluates a task synchronously, so the set runs in rounds:
#
# 1. Each unfinished cell is evaluated. Its first engine call (run_requests()) that has
#    requests to send hands them to the round (defer_to_eval_set()) and stops the cell there:
#    nothing is sent yet. A cell whose every answer is cached runs to the end and writes its
#    log.
# 2. The requests handed over by all the cells are sent together, through one pool
#    (run_requests() again, with each request's own cache key), and cached as they arrive.
# 3. Next round: the cells are evaluated again from the start; what was sent is now read
#    from the cache, so each cell gets one step further (its solver's answers, then its
#    judge's), until every cell is done.
#
# Re-evaluating a cell re-reads cached answers, which costs CPU, not requests. The pool's
# `max_active` is the sum of the models' own `max_active`, and each model is one group of
# the pool with its own `max_active` as its limit, so no model ever has more in flight than
# it would alone. A request that failed in the round (after its own retries) is not sent
# again: the cell gets its error as if it had sent it, unless the cell is retried as a whole.
# When a round's pool stops as a whole (a refused key stops it), or after `max_rounds`, the
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
  round$calls[[length(round$calls) + 1L]] <- list(
    cell = round$cell, chats = chats, extras = extras, chat_index = chat_index[todo],
    prompts = prompts[todo], epoch = epoch[todo], keys = keys[todo], settings = settings,
    keep_json = keep_json, cache = cache_dir(settings$cache)
  )
  rlang::signal("The cell waits for its requests.", class = "predictivebench_cell_waits")
}

new_round <- function() {
  round <- new.env(parent = emptyenv())
  round$off <- FALSE
  round$failed <- list()  # error messages by cache key
  round$owner <- list()   # cell id by cache key of a failed request
  round$calls <- list()
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
  while (length(pending)) {
    round$calls <- list()
    round$n <- round$n + 1L
    round$off <- round$off || round$n > max_rounds
    for (i in pending) {
      round$cell <- cells[[i]]$id
      outcomes[[i]] <- withr::with_options(stats::setNames(list(round), the_round_option),
                                           attempt(cells[[i]]))
    }
    status <- vapply(outcomes[pending], `[[`, "", "status")
    failed <- pending[status == "failed"]
    failures[failed] <- failures[failed] + 1L
    again <- failed[failures[failed] <= retries]
    forget_failures(round, vapply(cells[again], `[[`, "", "id"))
    if (length(round$calls)) send_round(round)
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

# Sends the round's requests: one pool per cache folder and answer format, holding every
# cell's requests.
send_round <- function(round) {
  calls <- round$calls
  groups <- split(seq_along(calls), vapply(calls, function(x) {
    paste(x$cache %||% "<none>", x$keep_json)
  }, ""))
  for (group in groups) send_merged(round, calls[group])
}

send_merged <- function(round, calls) {
  offsets <- cumsum(c(0L, vapply(calls, function(x) length(x$chats), 1L)))
  chats <- unlist(lapply(calls, `[[`, "chats"), recursive = FALSE)
  rows <- do.call(rbind, lapply(seq_along(calls), function(j) {
    data.frame(call = j, item = seq_along(calls[[j]]$prompts))
  }))
  rows <- rows[order(rows$item, rows$call), , drop = FALSE]  # one cell's, the next's, ...
  pick <- function(field) lapply(seq_len(nrow(rows)), function(r) {
    calls[[rows$call[[r]]]][[field]][[rows$item[[r]]]]
  })
  settings <- calls[[1]]$settings
  limits <- model_max_active(calls)
  settings$max_active <- as.integer(sum(limits))
  keys <- unlist(pick("keys"))
  errors <- tryCatch(
    send_keyed(chats, unlist(pick("chat_index")) + offsets[rows$call], pick("prompts"), keys,
               settings, calls[[1]]$keep_json, calls[[1]]$cache, limits),
    # A refused key or a full disk stops the pool: each cell then meets it itself.
    error = function(e) {
      round$off <- TRUE
      NULL
    }
  )
  if (is.null(errors)) return(invisible())
  failed <- which(!is.na(errors))
  round$failed[keys[failed]] <- as.list(errors[failed])
  round$owner[keys[failed]] <- lapply(rows$call[failed], function(j) calls[[j]]$cell)
  invisible()
}

# Sends requests whose cache keys the cells computed already, caching each answer as it
# arrives, and returns each request's error message (NA when answered). What the cells do
# with the answers is theirs, when they read them back from the cache: no tibble of
# responses is built here, nor are the keys computed a second time (a third of the round's
# CPU when it went through run_requests()).
send_keyed <- function(chats, chat_index, prompts, keys, settings, keep_json, dir, limits) {
  n <- length(prompts)
  # (never a dry run: estimate_cost() turns the rounds off)
  kept <- cache_keeper(dir, keys)
  cache_prepare(dir)
  # as run_requests() does: ellmer logs what it sends itself, the curl fast path's usage here
  on.exit(log_fast_path_usage(chats, chat_index, seq_len(n), kept$records, settings), add = TRUE)
  send_pool(chats, chat_index, prompts, seq_len(n), kept$keep, settings, keep_json,
            progress = FALSE, cached = !is.null(dir),
            group = vapply(chats, chat_model_label, "")[chat_index], group_max_active = limits)
  kept$errors
}

# Each model's own max_active (the largest asked by its calls), named by model. A model is
# its chats' label ("provider/model"), so a judge's requests count against the judge model.
model_max_active <- function(calls) {
  model <- vapply(calls, function(x) chat_model_label(x$chats[[1]]), "")
  active <- vapply(calls, function(x) as.double(x$settings$max_active), 1)
  tapply(active, model, max)[unique(model)]
}
