# Running one cell, in this process or in a mirai worker: build the chat from its spec and the
# task, evaluate, then record the outcome (the benchmark's registered headline, the cost)
# beside the log. An error, or a step whose every request failed, is a failed attempt; a run
# with samples whose requests failed for good (past their tries) is a partial one. Neither
# writes a record, so the cell is not done: it is tried again, and its answered requests
# come from the cache, its failed ones are sent again. Its `error` is the requests' own
# error (the provider's message), the most common one first.

run_cell <- function(cell, log_dir, settings, collector = NULL) {
  local_request_session(collector = collector)  # its requests go to the set's overlap
  # Its messages are not shown (suppressMessages() below): cli does not format them either
  # (vitals' progress steps cost ~30 ms of CPU a cell).
  withr::local_options(cli.progress_show_after = Inf, cli.default_handler = function(msg) NULL)
  failed_step <- FALSE
  task <- NULL
  error <- tryCatch({
    chat <- cell$chat %||% chat_from_spec(cell$model)
    task <- cell_task(cell, log_dir)
    # its log names the model as the set's table does (two chats of one model apart), and
    # the cell (an attempt's log and the next one's are one cell's: report_failures())
    if (inherits(task, "ResultsTask")) {
      task$model_label <- cell$label
      task$log_eval$metadata$cell_id <- cell$id
    }
    args <- c(list(solver_chat = chat, epochs = cell$epochs, view = FALSE),
              if (takes_request_settings(task)) {
                changed_settings(settings)
              })
    withCallingHandlers(
      suppressMessages(do.call(task$eval, args)),
      predictivebench_step_failed = function(c) failed_step <<- TRUE,
      # (the set says which samples failed, and that eval_set() asks them again, not $eval())
      predictivebench_warning_failed_requests = function(w) tryInvokeRestart("muffleWarning")
    )
    NULL
  }, predictivebench_cell_waits = function(c) c, error = function(e) e)
  if (inherits(error, "predictivebench_cell_waits")) return(new_outcome("waiting"))
  if (!is.null(error)) {
    out <- new_outcome("failed", error = conditionMessage(error))
    out$final <- inherits(error, final_error_classes)
    if (out$final) out$bullets <- error_bullets(error)
    return(out)
  }
  errors <- sample_errors(task)
  if (failed_step) {
    return(new_outcome("failed", log_path = task$log_path %||% NA_character_,
                       failed_samples = sum(!is.na(errors)),
                       error = failure_cause(errors) %|NA|% "Every request of a step failed."))
  }
  outcome <- cell_outcome(task)
  outcome$failed_samples <- sum(!is.na(errors))
  if (outcome$failed_samples > 0L) {
    outcome$status <- "partial"
    outcome$error <- failure_cause(errors)
    return(outcome)
  }
  # A task that says nowhere which log it wrote (a plain vitals Task) has no record to check
  # its log against: its cell is done in this call, and runs again, from the cache, the next.
  if (is.na(outcome$log_path)) return(outcome)
  recorded <- tryCatch(write_cell_record(log_dir, cell, outcome), error = function(e) e)
  if (inherits(recorded, "error")) {
    return(new_outcome("failed", log_path = outcome$log_path,
                       error = conditionMessage(recorded)))
  }
  outcome
}

# Errors that another attempt in the same call would only meet again, at a price: a server
# that can't give the log-probabilities asked for, or gives ones that can't be a model's; a
# chat with no key for its host; arguments that are wrong. The cell fails at once; the next
# call tries it again (the user may have changed what was wrong).
final_error_classes <- c("predictivebench_error_logprobs_unsupported",
                         "predictivebench_error_logprobs_broken",
                         "predictivebench_error_credentials", "predictivebench_error_argument")

# A cli error's lines as cli bullets again (its message and body, each with its bullet), to
# be said as they were, not flattened into one line; their text is not read as cli markup.
error_bullets <- function(error) {
  lines <- c(error$message, error$body)
  if (!is.character(lines) || !length(lines)) lines <- conditionMessage(error)
  names(lines) <- rlang::names2(lines)
  gsub("}", "}}", gsub("{", "{{", lines, fixed = TRUE), fixed = TRUE)
}

# Each sample's request error (its solver's or its scorer's: a request that failed for good,
# a vote, a judge call), NA for a sample whose requests were answered. An answer that was
# received but could not be scored is no error here: asking again would bring the same one
# from the cache.
sample_errors <- function(task) {
  samples <- tryCatch(task$get_samples(), error = function(e) NULL)
  n <- NROW(samples)
  if (!n) return(character())
  column <- function(name) if (name %in% names(samples)) samples[[name]]
  solve <- metadata_errors(column("solver_metadata"), n)
  score <- metadata_errors(column("scorer_metadata"), n)
  ifelse(is.na(solve), score, solve)
}

# What the `error` column says of failed samples: how many failed, and the requests' most
# common error (the provider's own message, such as "HTTP 404 Not Found: The model 'x' does
# not exist"). NA when no sample has an error.
failure_cause <- function(errors) {
  failed <- errors[!is.na(errors)]
  if (!length(failed)) return(NA_character_)
  counts <- table(factor(failed, levels = unique(failed)))
  paste0(length(failed), " of ", length(errors), " sample", if (length(errors) != 1) "s",
         " failed: ", names(counts)[[which.max(counts)]])
}

# The settings that differ from request_settings()'s defaults, as `$eval()` takes them: only
# those are named, so a task whose solver is not the package's (vitals::generate() in a
# plain vitals Task, which hands every other argument to the chat; benchmark_task() sends it
# through the engine) runs with the defaults and is not handed names it cannot take.
changed_settings <- function(settings) {
  if (is.null(settings)) return(list())
  given <- settings_fields(settings)
  defaults <- settings_fields(request_settings())
  changed <- given[!mapply(identical, given, defaults[names(given)])]
  contexts <- settings_context_args(settings)
  changed[names(contexts)] <- contexts
  changed
}

# Whether the task's solver and scorer are the package's (made by its functions), which take
# request settings by name. vitals hands `$eval()`'s other arguments to every step that has
# `...`, and vitals::generate() in a plain vitals Task would pass `max_active = ` on to the
# model as a parameter: a task with such a step runs with its own settings.
takes_request_settings <- function(task) {
  steps <- lapply(task_steps(task), `[[`, "fn")
  all(vapply(steps, function(f) {
    !is.function(f) || !"..." %in% names(formals(f)) ||
      identical(topenv(environment(f)), asNamespace("predictivebench"))
  }, TRUE))
}

# The evaluated task's log, headline (its registered summary's first headline row, as the
# log header and leaderboard() show it) and cost, as the log's model usage has it.
cell_outcome <- function(task) {
  headline <- cell_headline(task)
  log_path <- task$log_path %||% NA_character_
  new_outcome("done", log_path = log_path, metric = headline$key,
              headline = headline$estimate, cost = logged_cost(log_path))
}

# The dollars a log's model usage records: NA when a model that was sent requests has no
# known price, 0 when nothing was sent (every answer cached).
logged_cost <- function(log_path) {
  if (is.na(log_path)) return(NA_real_)
  usage <- log_usage(log_path)
  sent <- usage$input_tokens + usage$output_tokens > 0
  sum(ifelse(sent, usage$total_cost, 0))
}

# The headline as the task measured it for its log (the metrics ResultsTask computed from
# the registered summary; not computed again): the registered headline's first key, or for
# a benchmark whose groups depend on the data, its summary's first row (the log's first
# metric). Never another metric when the headline is undefined: its estimate is then NA.
cell_headline <- function(task) {
  values <- task$metrics %||% double()  # vitals' public field, set by `$measure()`
  if (!length(values)) return(list(key = NA_character_, estimate = NA_real_))
  name <- task$benchmark
  registered <- rlang::is_string(name) && !is.null(the_benchmarks[[name]])
  key <- if (registered) the_benchmarks[[name]]$headline[1] else NULL
  key <- key %||% names(values)[[1]]
  estimate <- if (key %in% names(values)) values[[key]] else NA_real_
  list(key = key, estimate = if (is.na(estimate)) NA_real_ else estimate)
}
