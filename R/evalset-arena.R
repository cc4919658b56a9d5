# The closing arena of an evaluation set: one arena_run() among the set's models, checked before
# the set's first request, and never losing the set's (paid) table when it fails.

# The closing arena's arguments, checked as arena_run() checks them; no `models` (the set's
# labels are the competitors, so they must be arena model names).
check_set_arena <- function(arena, specs, judge, log_dir, call = rlang::caller_env()) {
  if (is.null(arena)) return(invisible())
  if (!is.list(arena) || !rlang::is_named(arena)) {
    abort_pb("{.arg arena} must be {.code NULL} or a named list of {.fn arena_run} arguments.",
             "argument", call = call)
  }
  allowed <- c(setdiff(names(formals(arena_run)), c("models", "...")), old_arena_arguments)
  unknown <- setdiff(names(arena), allowed)
  if (length(unknown)) {
    abort_pb(c("{.arg arena} has {cli::qty(length(unknown))}{?an/} unknown argument{?s}:
                {.val {unknown}}.",
               i = if ("models" %in% unknown) "The closing arena's models are the set's
                      {.arg models}.",
               i = "{.fn arena_run} takes {.val {allowed}}."),
             "argument", field = unknown[[1]], call = call)
  }
  if (is.null(arena$judge %||% judge)) {
    abort_pb("The closing arena needs a judge: give {.arg judge}.", "argument",
             field = "judge", call = call)
  }
  check_arena_options(arena[intersect(names(arena), old_arena_arguments)], arg = "arena$",
                      call = call)
  if (!is.null(arena$options)) arena_options_with(arena$options, list())
  check_set_competitors(vapply(specs, spec_label, ""), call)
  check_arena_dir(arena$dir %||% log_dir, arg = if (is.null(arena$dir)) "log_dir" else "arena$dir",
                  call = call)
  if (!is.null(arena$elobench)) check_arena_dir(arena$elobench, arg = "arena$elobench", call = call)
  check_arena_questions(arena$elobench, arena$version, arena$dataset, call = call)
  if (!is.null(arena$settings)) as_request_settings(arena$settings, call = call)
  invisible(arena)
}

# The competitors are named by the set's labels (as the cells' logs name them); each must be
# a name the arena's files can take, and two models must not share one.
check_set_competitors <- function(labels, call) {
  tryCatch(check_model_names(labels), predictivebench_error_argument = function(e) {
    twice <- unique(labels[duplicated(labels)])
    abort_pb(c("The closing arena can't name its models: {conditionMessage(e)}",
               i = if (length(twice)) "{.val {twice}} is the label of more than one model.",
               i = "Its models are the set's, named by their labels (the table's
                    {.field model} column)."),
             "argument", field = "models", call = call)
  })
  invisible(labels)
}

# The set's table with the arena run as attribute `"arena_run"`; an error in the run is kept as
# `"arena_error"` with a warning: the cells' table is never lost.
run_set_arena <- function(result, arena, models, specs, judge, log_dir, settings) {
  run <- tryCatch(set_arena_run(arena, models, specs, judge, log_dir, settings),
                  error = function(e) e)
  if (!inherits(run, "error")) {
    attr(result, "arena_run") <- run
    return(result)
  }
  attr(result, "arena_error") <- run
  cli::cli_warn(
    c("The closing arena run failed; the set's table is returned without it.",
      x = "{conditionMessage(run)}",
      i = "The error is the table's attribute {.val arena_error}. Call {.fn eval_set} again
           to retry: its done cells send nothing, and the arena resumes from the response cache."),
    class = "predictivebench_warning_arena"
  )
  result
}

# The run writes its log in a hidden folder inside the records' folder, then moves it beside the
# cells', unless the recorded arena log already holds the same run (a rerun that sent nothing).
set_arena_run <- function(arena, models, specs, judge, log_dir, settings) {
  args <- set_arena_args(arena, models, specs, judge, log_dir, settings)
  dir <- args$dir
  experiment <- args$options$experiment
  staging <- tempfile("arena-", tmpdir = records_dir(dir))
  dir.create(staging, recursive = TRUE, showWarnings = FALSE)
  on.exit(unlink(staging, recursive = TRUE), add = TRUE)
  args$dir <- staging
  run <- do.call(arena_run, args)
  if (is.null(run$paths$log)) return(run)
  fingerprint <- arena_fingerprint(run)
  kept <- recorded_arena_log(dir, experiment, fingerprint)
  if (!is.null(kept)) {
    run$paths$log <- kept[[1]]
    run$paths$log_parts <- if (length(kept) > 1) kept
    return(run)
  }
  # a log in several files (R/arena-log.R) moves whole, its first file last
  logs <- run$paths$log_parts %||% run$paths$log
  placed <- file.path(dir, basename(logs))
  for (k in rev(seq_along(logs))) {
    if (!file.rename(logs[[k]], placed[[k]])) {
      abort_pb("Can't move the closing arena's log into its folder.", "path",
               file = placed[[k]])
    }
  }
  run$paths$log <- placed[[1]]
  if (length(placed) > 1) run$paths$log_parts <- placed
  record_arena_log(placed, experiment, fingerprint)
  run
}

# What makes two arena runs the same: battles, verdicts and ratings; not when a verdict was taken,
# its cost, nor its request key (an offline judge made again has a new one).
arena_fingerprint <- function(run) {
  records <- run$records
  if (is.data.frame(records)) {
    records <- records[setdiff(names(records), "tstamp")]
    if (is.character(records$gpt_4_response)) {
      verdict <- gsub('"request_sha256":"[0-9a-f]*",?', "", records$gpt_4_response)
      records$gpt_4_response <- gsub('"usage":[{][^}]*[}],?', "", verdict)
    }
  }
  rlang::hash(list(records = as.list(records), ratings = as.list(run$ratings)))
}

# The folder's recorded, whole log of arena `experiment` holding run `fingerprint`, else NULL.
recorded_arena_log <- function(dir, experiment, fingerprint) {
  path <- record_path(dir, paste0("arena-", experiment))
  if (!file.exists(path)) return(NULL)
  record <- tryCatch(jsonlite::fromJSON(path, simplifyVector = TRUE), error = function(e) NULL)
  if (!is.list(record) || !identical(record$fingerprint, fingerprint) ||
      !rlang::is_string(record$log)) {
    return(NULL)
  }
  log <- path_inside(dir, record$log)
  if (is.null(log) || !complete_log(log, bytes = record$log_bytes)) return(NULL)
  # a log in several files is whole when each of them is
  parts <- as.character(unlist(record$log_parts))
  for (part in setdiff(parts, record$log)) {
    path <- path_inside(dir, part)
    if (is.null(path) || !complete_log(path)) return(NULL)
    log <- c(log, path)
  }
  log
}

# The closing arena's arena_run() arguments; the arena's own replace the set's whole (a
# settings object is not merged).
set_arena_args <- function(arena, models, specs, judge, log_dir, settings) {
  chats <- lapply(seq_along(models), function(i) {
    if (inherits(models[[i]], "Chat")) models[[i]] else chat_from_spec(specs[[i]])
  })
  names(chats) <- vapply(specs, spec_label, "")
  args <- list(models = chats, judge = judge, dir = log_dir, settings = settings)
  args[names(arena)] <- arena
  # the set's arena list still takes arena_run()'s options by their old names
  old <- intersect(names(args), old_arena_arguments)
  args$options <- arena_options_with(args$options %||% arena_options(), args[old])
  args[old] <- NULL
  args
}

# The closing arena's row of the set's cost preview, run inside a dry run. The placeholder answer
# is no decisive verdict, so the rounds go as far as the run allows, and is as long as a model's
# `max_tokens`: an upper bound on requests and judge input. Nothing is written (questions read,
# not installed; the log in a temporary folder; caches only read).
arena_cost_preview <- function(arena, models, specs, judge, log_dir, settings) {
  dir <- tempfile("predictivebench-arena-preview-")
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  args <- set_arena_args(arena, models, specs, judge, dir, settings)
  args$dir <- dir
  args$dataset <- args$dataset %||% folder_questions(arena$elobench, arena$version)
  args$elobench <- NULL
  args$settings <- arena_settings(args$settings)
  chats <- c(unname(args$models), judge_members(check_judge(args$judge)))
  priced <- with_pricing(chats, do.call(arena_run, args), batch = isTRUE(args$settings$batch),
                         answer = longest_answer(args$models))
  tibble::tibble(
    benchmark = "arena_run", model = paste(names(args$models), collapse = " vs "),
    cell_id = paste0("arena-", arena$experiment %||% arena$options$experiment %||% "run"),
    status = "to run", priced[price_count_names]
  )
}

# A placeholder answer as long as the longest a model may give: one word (a token in OpenAI's
# tokenizers, 1.25 by the 4-characters estimate) per token of the largest `max_tokens`.
longest_answer <- function(chats) {
  bound <- vapply(chats, function(chat) {
    if (!inherits(chat, "Chat")) return(0)
    as.double(chat_params(chat)$max_tokens %||% 0)
  }, 0)
  paste(rep("word", max(c(0, bound), na.rm = TRUE)), collapse = " ")
}

# An EloBench folder's data/<version>/questions.csv as a table, or NULL when it has none.
folder_questions <- function(elobench, version) {
  if (is.null(elobench) || is.null(version)) return(NULL)
  path <- questions_path(elobench, version)
  if (file.exists(path)) tibble::tibble(question = arena_read_questions(path))
}

# The closing arena's log as a record beside the cells' (R/evalset-records.R), so leaderboard()
# counts it and an earlier arena log as an attempt.
record_arena_log <- function(log, experiment, fingerprint = NULL) {
  if (is.null(log)) return(invisible())
  # `log`: the run's log, or every file of a log in several, the run's log first
  record <- list(arena = experiment, benchmark = "arena_ratings", log = basename(log[[1]]),
                 log_bytes = file.size(log[[1]]), fingerprint = fingerprint,
                 completed_at = log_timestamp())
  if (length(log) > 1) record$log_parts <- as.list(basename(log))
  write_record(record_path(dirname(log[[1]]), paste0("arena-", experiment)), record)
}
