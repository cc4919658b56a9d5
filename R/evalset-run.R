# Running one cell, in this process or a mirai worker: build the chat, evaluate, record the
# outcome beside the log. An error or an all-failed step is a failed attempt, samples failed for
# good a partial one; neither writes a record, so the cell is tried again (answers from the
# cache). Its `error` is the requests' most common error.

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
  }, error = function(e) e)
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

# Errors another attempt in the same call would only meet again, at a price (no log-probs, no
# key, wrong arguments): the cell fails at once; the next call tries it again.
final_error_classes <- c("predictivebench_error_logprobs_unsupported",
                         "predictivebench_error_logprobs_broken",
                         "predictivebench_error_credentials", "predictivebench_error_argument")

# A cli error's lines as cli bullets again, said as they were (their text not read as markup).
error_bullets <- function(error) {
  lines <- c(error$message, error$body)
  if (!is.character(lines) || !length(lines)) lines <- conditionMessage(error)
  names(lines) <- rlang::names2(lines)
  gsub("}", "}}", gsub("{", "{{", lines, fixed = TRUE), fixed = TRUE)
}

# Each sample's request error, NA when answered. An answer that could not be scored is no error
# here: asking again would bring the same one from the cache.
sample_errors <- function(task) {
  samples <- tryCatch(task$get_samples(), error = function(e) NULL)
  n <- NROW(samples)
  if (!n) return(character())
  column <- function(name) if (name %in% names(samples)) samples[[name]]
  solve <- metadata_errors(column("solver_metadata"), n)
  score <- metadata_errors(column("scorer_metadata"), n)
  ifelse(is.na(solve), score, solve)
}

# The `error` column: how many samples failed, and the requests' most common error (the
# provider's own message). NA when none.
failure_cause <- function(errors) {
  failed <- errors[!is.na(errors)]
  if (!length(failed)) return(NA_character_)
  counts <- table(factor(failed, levels = unique(failed)))
  paste0(length(failed), " of ", length(errors), " sample", if (length(errors) != 1) "s",
         " failed: ", names(counts)[[which.max(counts)]])
}

# The settings that differ from request_settings()'s defaults: only those are named, so a plain
# vitals Task (vitals::generate() hands every argument to the chat) is not handed names it
# cannot take.
changed_settings <- function(settings) {
  if (is.null(settings)) return(list())
  given <- settings_fields(settings)
  defaults <- settings_fields(request_settings())
  given[!mapply(identical, given, defaults[names(given)])]
}

# Whether the task's solver and scorer are the package's: vitals hands `$eval()`'s other
# arguments to every step with `...`, and vitals::generate() would pass `max_active` to the
# model as a parameter.
takes_request_settings <- function(task) {
  steps <- lapply(task_steps(task), `[[`, "fn")
  all(vapply(steps, function(f) {
    !is.function(f) || !"..." %in% names(formals(f)) ||
      identical(topenv(environment(f)), asNamespace("predictivebench"))
  }, TRUE))
}

# The evaluated task's log, headline (as the log header and leaderboard() show it) and cost.
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

# The headline as the task measured it for its log (not computed again): the registered
# headline's first key, or the summary's first row. Never another metric when it is undefined.
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
