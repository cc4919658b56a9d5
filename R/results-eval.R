# A ResultsTask's `$eval()`, a chunk of samples at a time: each chunk is solved, scored,
# translated into the log's samples and appended to the log (log_writer_add()), then leaves
# memory but for a compact row per sample (its dataset row, result, metadata and score, no
# ellmer chat). The metrics and the header come at the end, from the compact rows. Memory is
# bounded by a chunk, not by the run; a killed run leaves only a hidden part file, and its
# rerun finds every answer that arrived in the response cache.
#
# What stays as vitals' `Task$eval()` has it: the arguments (named, each to the solver and/or
# scorer whose formals take it, vitals' split), `epochs`, the "Solving" and "Scoring" steps
# (one pair per chunk when there are several), the solver's and scorer's records in the
# task (`$get_samples()`, `$get_cost()`, `vitals_bind()`, the metrics), `$log_path`.

# Samples per chunk: enough to keep the request pool full (20 requests a slot), and at least
# 1,000, so that a chunk's fixed costs are small beside its samples'. A `max_active` of no
# limit (`Inf`, 1e9) is the whole run in one chunk, not a count past R's integers.
chunk_rows_default <- function(dots) {
  max_active <- dots$max_active
  if (!is.numeric(max_active) || length(max_active) != 1 || is.na(max_active)) {
    max_active <- request_settings()$max_active
  }
  as.integer(min(.Machine$integer.max, max(1000, 20 * max_active)))
}

# Samples translated into the log's form at a time.
log_slice_rows <- 100L

chunked_eval <- function(task, state, dots, epochs, call = rlang::caller_env()) {
  if (!is.null(epochs)) check_count(epochs, call = call)
  check_eval_dots(dots, call = call)
  dots <- local_log_format(dots, call = call)
  # before anything is paid: a folder the log can't go in fails now, not after the run
  check_log_dir(task$dir, call = call)
  steps <- split_eval_args(dots, task$steps()$solver$fn, task$steps()$scorer$fn, call = call)
  withr::local_envvar(IN_VITALS_EVAL = "true")
  dataset <- task$dataset()
  epochs <- as.integer(epochs %||% task$default_epochs() %||% 1L)
  solver <- task$steps()$solver
  scorer <- task$steps()$scorer
  check_run_chats(scorer$fn, steps, call = call)
  size <- task$chunk_size %||% chunk_rows_default(dots)
  # A cell of an evaluation set runs in chunks too (R/evalset-overlap.R): its first pass
  # hands over the first chunk's requests and stops; evaluated once to its end, each later
  # chunk's requests wait in the set's shared pool as the first chunk's did.
  chunks <- eval_chunks(dataset, attr(scorer$fn, "predictivebench_chunk_by"),
                        max(1L, size %/% epochs), call = call)
  run_id <- unique_id()
  state$run_id <- run_id
  state$solver_args <- describe_arguments(steps$solver)
  # write_log = FALSE (a step of a larger run, arena_run()'s rounds): no log, so the samples
  # keep their chats
  logging <- isTRUE(task$write_log)
  state$compact <- logging && length(chunks) > 1
  created <- log_timestamp()

  writer <- NULL
  on.exit(if (!is.null(writer)) log_writer_abandon(writer), add = TRUE)
  parts <- vector("list", length(chunks))
  usage <- list()
  json <- list(solver = character(), scorer = character())
  json_from <- list(solver = list(), scorer = list())  # see json_turned()
  tokens <- list(solver = NULL, scorer = NULL)
  times <- list()
  light <- list()
  task_id <- NULL
  for (k in seq_along(chunks)) {
    rows <- epoch_rows(dataset, chunks[[k]], epochs)
    label <- if (length(chunks) > 1) {
      sprintf(" (chunk %d of %d, %d samples)", k, length(chunks), nrow(rows))
    } else {
      ""
    }
    # ---- solve (a solver that sends nothing, rescore()'s, names its step itself)
    cli::cli_progress_step(paste0(attr(solver$fn, "predictivebench_step") %||% "Solving",
                                  label))
    started <- Sys.time()
    before <- session_tokens()
    solve <- solve_rows(solver, rows, chunks[[k]], epochs, steps$solver, call)
    if (solve$failed) cli::cli_progress_done(result = "failed")
    after <- session_tokens()
    tokens$solver <- add_tokens(tokens$solver, before, after)
    solved <- Sys.time()
    # ---- score
    cli::cli_progress_step(paste0("Scoring", label))
    score <- score_rows(scorer, solve$rows, steps$scorer, call)
    if (score$failed) cli::cli_progress_done(result = "failed")
    tokens$scorer <- add_tokens(tokens$scorer, after, session_tokens())
    rows <- score$rows
    chunk_times <- list(solve = list(started_at = started, completed_at = solved),
                        score = list(started_at = solved, completed_at = Sys.time()))
    times <- list(solve = list(started_at = times$solve$started_at %||% started,
                               completed_at = solved),
                  score = list(started_at = times$score$started_at %||% solved,
                               completed_at = chunk_times$score$completed_at))
    # ---- log
    state$solutions <- solve$record
    state$scores <- score$record
    state$timestamps <- chunk_times
    if (logging && is.null(writer)) {
      task_id <- log_task_id(run_log_state(task), rows$solver_chat[[1]]$get_model(), run_id)
      # a crashed run of this task and model left its part file: this run supersedes it
      writer <- log_writer(task$dir, task_id, created = created, stale = "remove")
    }
    # translated and written a slice at a time (a translated sample is several times the
    # size of its row), a field JSON text in any sample of the chunk JSON in all of them
    if (logging) {
      before <- json
      json <- list(solver = union(json$solver, json_fields(rows[["solver_metadata"]])),
                   scorer = union(json$scorer, json_fields(rows[["scorer_metadata"]])))
      json_from <- json_turned(json_from, before, json, writer$n + 1L)
      for (slice in split(seq_len(nrow(rows)), ceiling(seq_len(nrow(rows)) / log_slice_rows))) {
        part <- results_log_chunk(task, rows[slice, , drop = FALSE], state$fields, json)
        json_from <- json_turned(json_from, json, part$json, writer$n + 1L)
        log_writer_add(writer, part$samples)
        usage <- add_usage(usage, part$usage)
        json <- part$json
        rm(part)
      }
    }
    if (state$compact) {
      light$solver <- light$solver %||% light_chat(rows$solver_chat[[1]])
      rows$solver_chat <- rep(list(light$solver), nrow(rows))
      if ("scorer_chat" %in% names(rows)) {
        light$scorer <- light$scorer %||% light_chat(rows$scorer_chat[[1]])
        rows$scorer_chat <- rep(list(light$scorer), nrow(rows))
      }
    }
    rows$.order <- (rep(chunks[[k]], each = epochs) - 1L) * epochs + seq_len(epochs)
    parts[[k]] <- lapply(rows[setdiff(names(rows), names(dataset))], pack_metadata)
    rm(rows, solve, score)
    # a finished chunk's chats and log samples are garbage now: collected here, the next
    # chunk reuses their memory, where R would grow its heap (peak RSS would grow with the
    # number of chunks, issue 37)
    if (length(chunks) > 1) invisible(gc(verbose = FALSE))
  }

  state$samples <- compact_samples(dataset, parts, epochs)
  state$timestamps <- times
  state$tokens <- tokens
  task$measure()
  if (!logging) {
    vitals_stash_task(task)
    cli::cli_progress_done()
    return(invisible(NULL))
  }
  samples <- state$samples
  header <- results_log_header(task, samples, state$fields, run_id, usage, json,
                               created = created, task_id = task_id)
  header$eval$metadata$headline <- headline_metadata(state$metrics)
  for (step in c("solver", "scorer")) {
    if (length(json_from[[step]])) {
      header$eval$metadata[[paste0(step, "_json_from")]] <- json_from[[step]]
    }
  }
  flags <- run_flags(state$metrics)  # answers cut off, ties (the board's columns)
  header$eval$metadata[names(flags)] <- flags
  header$eval <- add_log_eval(header$eval, task$log_eval)
  path <- log_writer_finish(writer, header)
  writer <- NULL
  task$log_path <- path
  vitals_stash_task(task)
  cli::cli_progress_done()
  invisible(path)
}

# `$solve()` and `$score()` by hand: every sample in one step, the run's state as
# `$eval()` leaves it.
solve_run <- function(task, state, args, epochs, call = rlang::caller_env()) {
  withr::local_envvar(IN_VITALS_EVAL = "true")
  dataset <- task$dataset()
  all <- seq_len(nrow(dataset))
  state$run_id <- unique_id()
  state$solver_args <- describe_arguments(args)
  started <- Sys.time()
  before <- session_tokens()
  solve <- solve_rows(task$steps()$solver, epoch_rows(dataset, all, epochs), all, epochs,
                      args, call)
  state$tokens$solver <- add_tokens(NULL, before, session_tokens())
  state$samples <- solve$rows
  state$solutions <- solve$record
  state$timestamps$solve <- list(started_at = started, completed_at = Sys.time())
  invisible(state)
}

score_run <- function(task, state, args, call = rlang::caller_env()) {
  withr::local_envvar(IN_VITALS_EVAL = "true")
  started <- Sys.time()
  before <- session_tokens()
  score <- score_rows(task$steps()$scorer, state$samples, args, call)
  state$tokens$scorer <- add_tokens(NULL, before, session_tokens())
  state$samples <- score$rows
  state$scores <- score$record
  state$timestamps$score <- list(started_at = started, completed_at = Sys.time())
  invisible(state)
}

# A chunk's rows solved (as vitals' `$solve()` does, the step's record its own): the rows
# with the solver's columns, the step's `record` (its name and arguments as text, for the
# log's plan and task id) and whether the solver said the step `failed` as a whole.
solve_rows <- function(solver, rows, chunk, epochs, args, call) {
  step <- fast_logged(chunk_solver(solver$fn, chunk, epochs), solver$name)
  solutions <- NULL
  failed <- catch_step_failure(
    solutions <- call_step(step, rows, quote(self$get_samples()$input), args, "solve")
  )
  check_solver_output(solutions$value, nrow(rows), call = call)
  rows$result <- solutions$value$result
  rows$solver_chat <- solutions$value$solver_chat
  if ("solver_metadata" %in% names(solutions$value)) {
    rows$solver_metadata <- solutions$value$solver_metadata
  }
  list(rows = rows, record = step_record(solutions), failed = failed)
}

# Solved rows scored (as vitals' `$score()` does), as solve_rows() returns them; a score
# of an earlier scoring goes.
score_rows <- function(scorer, rows, args, call) {
  rows[intersect(names(rows), scored_columns)] <- NULL
  rows$score <- NA
  scores <- NULL
  failed <- catch_step_failure(
    scores <- call_step(fast_logged(scorer$fn, scorer$name), rows,
                        quote(self$get_samples()), args, "score")
  )
  check_scorer_output(scores$value, nrow(rows), call = call)
  list(rows = bind_scores(rows, scores), record = step_record(scores), failed = failed)
}

scored_columns <- c("score", "scorer_chat", "scorer_metadata", "scorer_explanation", "scorer")

# A step's record without its value (the chunk's, kept in the rows).
step_record <- function(logged) list(name = logged$name, arguments = logged$arguments)

# The metadata fields flat_metadata() writes as JSON text in any of `metas` (one list per
# sample): those holding other than one value.
json_fields <- function(metas) {
  names <- lapply(metas, function(meta) {
    if (!is.list(meta) || !length(meta)) return(NULL)
    single <- vapply(meta, function(v) {
      is.null(v) || (is.atomic(v) && length(v) == 1 && is.null(dim(v)))
    }, TRUE)
    names(meta)[!single]
  })
  unique(unlist(names))
}

# A metadata field is written as JSON text in every sample of a chunk when any sample of the
# chunk needs it (a field of several values); the samples of earlier chunks are written
# already, that field plain. So the log's header records, for each field that turned JSON
# after the first sample, the position (in the log, from 1) of the first sample holding it
# as JSON text (`solver_json_from`, `scorer_json_from`), and log_samples() reads each sample
# by its own layout. `from` gains the fields of `after` not in `before`, at `position`.
json_turned <- function(from, before, after, position) {
  if (position <= 1L) return(from)
  for (step in c("solver", "scorer")) {
    for (field in setdiff(after[[step]], before[[step]])) from[[step]][[field]] <- position
  }
  from
}

# Before anything is sent (and before "Solving"), the refusals eval_set() gives before its
# first request: a scorer that can't score without a judge has one (its attribute
# `predictivebench_judge`, with_judge() in R/judges-panel.R, which gives the judge's chats),
# and the solver's chat and the judge's can read their credentials here. A dry run reads no
# key.
check_run_chats <- function(scorer, steps, call = rlang::caller_env()) {
  judge_of <- attr(scorer, "predictivebench_judge", exact = TRUE)
  judges <- if (is.function(judge_of)) rlang::exec(judge_of, !!!steps$scorer)
  if (!is.null(pricing_collector())) return(invisible())
  solver_chat <- steps$solver$solver_chat
  if (rlang::is_string(solver_chat)) solver_chat <- as_chat(solver_chat, call = call)
  for (chat in c(list(solver_chat), judges)) {
    if (inherits(chat, "Chat")) check_chat_credentials(chat, chat_model_label(chat), call)
  }
  invisible()
}

# vitals' check of `$eval()`'s arguments: every one named.
check_eval_dots <- function(dots, call = rlang::caller_env()) {
  if (length(dots) && (is.null(names(dots)) || any(!nzchar(names(dots))))) {
    abort_pb("All arguments in {.code ...} must be named.", "argument", call = call)
  }
  invisible(dots)
}

# The chunks of a run: the dataset's rows, a sample's epochs always together, and the rows
# sharing the values of the columns in `by` (what the scorer declares it reads across
# samples, its attribute `predictivebench_chunk_by`: probsem's suites) always together;
# `by = TRUE` is one chunk. Each chunk holds about `size` dataset rows, in dataset order.
eval_chunks <- function(dataset, by, size, call = rlang::caller_env()) {
  n <- nrow(dataset)
  if (isTRUE(by) || n <= size) return(list(seq_len(n)))
  if (length(by)) {
    if (!is.character(by) || !all(by %in% names(dataset))) {
      abort_pb("The scorer reads samples together by columns the dataset lacks.", "argument",
               field = setdiff(as.character(by), names(dataset))[1], call = call)
    }
    key <- do.call(paste, c(lapply(dataset[by], as.character), sep = "\r"))
  } else {
    key <- as.character(dataset$id)
  }
  groups <- split(seq_len(n), factor(key, levels = unique(key)))
  names(groups) <- NULL
  ends <- chunk_ends(lengths(groups), size)
  starts <- c(1L, utils::head(ends, -1L) + 1L)
  lapply(seq_along(ends), function(k) sort(unlist(groups[starts[[k]]:ends[[k]]])))
}

# The last group of each chunk: groups are added to a chunk until it holds `size` rows.
chunk_ends <- function(sizes, size) {
  ends <- integer()
  filled <- 0L
  for (g in seq_along(sizes)) {
    filled <- filled + sizes[[g]]
    if (filled >= size) {
      ends <- c(ends, g)
      filled <- 0L
    }
  }
  if (filled > 0L) ends <- c(ends, length(sizes))
  ends
}

# A chunk's rows as vitals' join_epochs() lays out the samples: each row `epochs` times in a
# row, with an `epoch` column when there is more than one.
epoch_rows <- function(dataset, rows, epochs) {
  out <- dataset[rep(rows, each = epochs), , drop = FALSE]
  if (epochs > 1) out$epoch <- rep(seq_len(epochs), times = length(rows))
  out
}

# A solver bound to its dataset (a benchmark's, see dataset_solver() in
# R/benchmark-skeleton.R) is given the rows behind the chunk's inputs by position, as it
# would be given the whole run's; any other solver is called as it is.
chunk_solver <- function(fn, rows, epochs) {
  solve <- attr(fn, "solve")
  dataset <- if (inherits(fn, "predictivebench_solver")) environment(fn)$dataset
  if (!is.function(solve) || !is.data.frame(dataset)) return(fn)
  bound <- tibble::as_tibble(dataset[rep(rows, each = epochs), , drop = FALSE])
  bound$.row <- rep(as.integer(rows), each = epochs)
  bound$.epoch <- rep(seq_len(epochs), times = length(rows))
  function(inputs, ..., solver_chat = NULL) solve(inputs, bound, ..., solver_chat = solver_chat)
}

# Calls a step as vitals' `$solve()` and `$score()` do, `step(self$get_samples()$input, ...)`
# with the task's arguments as variables, so that the step's record (its arguments as text,
# the log's plan and task id) is vitals' own.
call_step <- function(step, samples, first, args, name) {
  env <- list2env(args, parent = baseenv())
  env$self <- list(get_samples = function() samples)
  assign(name, step, envir = env)
  keys <- names(args)
  eval(as.call(c(list(as.name(name), first), stats::setNames(lapply(keys, as.name), keys))),
       env)
}

check_solver_output <- function(value, n, call = rlang::caller_env()) {
  if (!all(c("result", "solver_chat") %in% names(value))) {
    abort_pb("{.arg solver} must return slots {.field result} and {.field solver_chat}.",
             "argument", call = call)
  }
  if (length(value$result) != n || length(value$solver_chat) != n ||
      !inherits(value$solver_chat[[1]], "Chat")) {
    abort_pb("{.arg solver} must return one result and one ellmer Chat per input.",
             "argument", call = call)
  }
  invisible(value)
}

check_scorer_output <- function(value, n, call = rlang::caller_env()) {
  if (!"score" %in% names(value)) {
    abort_pb("{.arg scorer} must return a list with (at least) the slot {.field score}.",
             "argument", call = call)
  }
  if (length(value$score) != n) {
    abort_pb("{.arg scorer} must return one score per sample.", "argument", call = call)
  }
  if ("scorer_chat" %in% names(value) && !inherits(value$scorer_chat[[1]], "Chat")) {
    abort_pb("{.field scorer_chat} must hold ellmer Chats.", "argument", call = call)
  }
  invisible(value)
}

# vitals' cbind_scores(), the scores as numbers in [0, 1] (as ResultsTask$score() makes them).
bind_scores <- function(rows, scores) {
  value <- scores$value
  rows$score <- as_score(value$score)
  if ("scorer_chat" %in% names(value)) rows$scorer_chat <- value$scorer_chat
  if ("scorer_metadata" %in% names(value)) rows$scorer_metadata <- value$scorer_metadata
  if ("explanation" %in% names(value)) rows$scorer_explanation <- value$explanation
  rows$scorer <- scores$name
  rows
}

# The chat a finished sample keeps when a run has several chunks: the one its requests went
# through (model, provider, system prompt), without turns; one object for every sample. Its
# turns are in the log.
light_chat <- function(chat) {
  light <- chat$clone()
  light$set_turns(list())
  light
}

# The run's samples, as vitals' `$get_samples()` has them: the dataset's rows with their
# epochs, then each chunk's columns, in the run's order.
compact_samples <- function(dataset, parts, epochs) {
  samples <- epoch_rows(dataset, seq_len(nrow(dataset)), epochs)
  order <- unlist(lapply(parts, `[[`, ".order"))
  at <- match(seq_len(nrow(samples)), order)
  for (column in setdiff(names(parts[[1]]), ".order")) {
    values <- lapply(parts, function(part) unpack_metadata(part[[column]]))
    values <- if (is.list(values[[1]])) do.call(c, values) else unlist(values, use.names = FALSE)
    samples[[column]] <- values[at]
  }
  samples
}

# A list column of metadata (a list a sample) as a column of each field, when every sample's
# list has the same fields and each field one value of one type (a FutureX sample's solver
# and scorer metadata: 1.1 KB each as lists, 18 R objects, a few bytes as columns). Kept
# for every finished sample until the run ends, the lists grew the run's memory with its
# samples, and R's heap by a fifth more when they crossed its threshold (issue 37). Any
# other column is returned as it is.
pack_metadata <- function(values) {
  if (!is.list(values) || !length(values) || !is.list(values[[1]])) return(values)
  fields <- names(values[[1]])
  if (!length(fields) || anyDuplicated(fields) || !all(nzchar(fields))) return(values)
  same <- vapply(values, function(meta) {
    is.list(meta) && identical(names(meta), fields) && identical(names(attributes(meta)), "names")
  }, TRUE)
  if (!all(same)) return(values)
  columns <- lapply(seq_along(fields), function(j) {
    field <- lapply(values, .subset2, j)
    type <- typeof(field[[1]])
    scalar <- vapply(field, function(v) {
      is.atomic(v) && length(v) == 1L && is.null(attributes(v)) && typeof(v) == type
    }, TRUE)
    if (all(scalar)) unlist(field, use.names = FALSE)
  })
  if (any(vapply(columns, is.null, TRUE))) return(values)
  structure(list(columns = stats::setNames(columns, fields)), class = "predictivebench_packed")
}

# The lists pack_metadata() packed, as they were.
unpack_metadata <- function(values) {
  if (!inherits(values, "predictivebench_packed")) return(values)
  .mapply(list, values$columns, NULL)
}

# ellmer's session usage now (what vitals' `$get_cost()` is the difference of), a data frame
# with `provider`, `model`, `input`, `output` and `price`.
session_tokens <- function() suppressMessages(ellmer::token_usage())

# A step's usage (the session's usage after it, less before) added to `tally`, per provider
# and model; prices as numbers (NA: unknown).
add_tokens <- function(tally, before, after) {
  key <- function(x) paste(x$provider, x$model, sep = "\r")
  if (is.null(after) || !nrow(after)) return(tally)
  at <- match(key(after), key(before))
  was <- function(column) if (is.null(before)) 0 else zero_na(before[[column]][at])
  step <- data.frame(provider = after$provider, model = after$model,
                     input = after$input - was("input"), output = after$output - was("output"),
                     price = as.double(after$price) - was("price"), stringsAsFactors = FALSE)
  step <- step[step$input != 0 | step$output != 0, , drop = FALSE]
  if (is.null(tally)) return(step)
  for (i in seq_len(nrow(step))) {
    j <- match(key(step[i, ]), key(tally))
    if (is.na(j)) {
      tally <- rbind(tally, step[i, ])
    } else {
      tally[j, c("input", "output", "price")] <- tally[j, c("input", "output", "price")] +
        step[i, c("input", "output", "price")]
    }
  }
  tally
}


# Runs a solve or score step and says whether a solver or scorer reported that the step
# failed as a whole (report_failures() signals `predictivebench_step_failed` when every
# request failed); the warnings themselves go on to the user.
catch_step_failure <- function(expr) {
  failed <- FALSE
  withCallingHandlers(expr, predictivebench_step_failed = function(c) failed <<- TRUE)
  failed
}
