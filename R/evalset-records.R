# What an evaluation set has done: one record per finished cell in
# `<log_dir>/.eval-set/<cell id>.json` (one file per cell, so workers on other machines never
# share one), written atomically after its log. A cell is done when its record is there and the
# log it names is still that log (size, JSON to its end, "success", sample count: ~0.1 s for a
# 100 MB log with yyjson); anything else runs again, and an incomplete log is set aside, never
# deleted.

record_path <- function(log_dir, id) {
  file.path(records_dir(log_dir), portable_file_name(id, ext = ".json"))
}

write_cell_record <- function(log_dir, cell, outcome) {
  path <- outcome$log_path
  samples <- log_sample_count(path)
  if (is.na(samples)) {
    abort_pb("The cell's log can't be read back whole.", "json", file = path)
  }
  record <- list(
    cell_id = cell$id, benchmark = cell$benchmark$label, version = cell$benchmark$version,
    model = cell$label, epochs = cell$epochs %||% NA_integer_,
    log = basename(path), log_bytes = file.size(path), samples = samples,
    metric = outcome$metric, headline = outcome$headline,
    cost = outcome$cost, completed_at = log_timestamp()
  )
  write_record(record_path(log_dir, cell$id), record)
}

# A record of the set's folder (a finished cell's, the closing arena's), written atomically.
write_record <- function(path, record) {
  json <- jsonlite::toJSON(record, auto_unbox = TRUE, digits = NA, na = "null", null = "null",
                           pretty = TRUE)
  write_atomic(path, function(tmp) writeLines(json, tmp))
}

# The finished cell's outcome from its record, or NULL; `set_aside` renames an incomplete log away.
read_cell_record <- function(log_dir, id, set_aside = FALSE) {
  path <- record_path(log_dir, id)
  if (!file.exists(path)) return(NULL)
  record <- tryCatch(jsonlite::fromJSON(path, simplifyVector = TRUE), error = function(e) NULL)
  if (!is.list(record) || !rlang::is_string(record$log)) return(NULL)
  log_path <- path_inside(log_dir, record$log)
  if (is.null(log_path) || !file.exists(log_path)) return(NULL)
  if (!complete_log(log_path, bytes = record$log_bytes, samples = record$samples)) {
    if (set_aside) {
      set_aside_log(log_path, record)
      unlink(path)
    }
    return(NULL)
  }
  new_outcome("done", log_path = log_path, metric = record$metric %||% NA_character_,
              headline = as.double(record$headline %||% NA), cost = as.double(record$cost %||% NA),
              failed_samples = 0L, reused = TRUE)
}

# Whether `path` is a complete log, of `bytes` and `samples` when known (older records lack them).
complete_log <- function(path, bytes = NULL, samples = NULL) {
  if (!file.exists(path)) return(FALSE)
  if (is.numeric(bytes) && length(bytes) == 1 && file.size(path) != bytes) {
    return(FALSE)
  }
  if (!log_file_valid(path)) return(FALSE)
  header <- tryCatch(read_log_header(path), error = function(e) NULL)
  if (!identical(header$status, "success")) return(FALSE)
  logged <- header$results$total_samples
  !(is.numeric(samples) && length(samples) == 1 && is.numeric(logged) && logged != samples)
}

# The number of samples a whole log holds, else NA. The package's own logs are validated with
# yyjson and their sample lines counted, so a 20,000-sample log is never held in memory.
log_sample_count <- function(path) {
  if (!log_file_valid(path)) return(NA_integer_)
  header <- tryCatch(read_log_header(path), error = function(e) NULL)
  if (!identical(header$status, "success")) return(NA_integer_)
  n <- log_sample_line_count(path) %||% length(read_log_samples_whole(path))
  logged <- header$results$total_samples
  if (is.numeric(logged) && logged != n) return(NA_integer_)
  as.integer(n)
}

read_log_samples_whole <- function(path) {
  log <- tryCatch(
    yyjsonr::read_json_file(path, opts = yyjsonr::opts_read_json(
      obj_of_arrs_to_df = FALSE, arr_of_objs_to_df = FALSE, length1_array_asis = TRUE
    )),
    error = function(e) NULL
  )
  log$samples
}

# An incomplete log is kept, renamed to `<name>.partial-<time>` (no `.json` at the end:
# vitals' viewer, leaderboard() and report_failures() list only `*.json` files).
set_aside_log <- function(path, record = list()) {
  stamp <- format(Sys.time(), "%Y%m%dT%H%M%S")
  kept <- paste0(path, ".partial-", stamp)
  if (!file.rename(path, kept)) return(invisible(NULL))  # (another process moved it first)
  cli::cli_inform(c(
    "!" = "The log of cell {.val {paste(record$benchmark, 'x', record$model)}} is not complete
           (cut short or changed since it was written): it runs again from the cache.",
    "i" = "The incomplete log is kept as {.file {kept}}."
  ), class = "predictivebench_message_log_set_aside")
  invisible(kept)
}

new_outcome <- function(status, log_path = NA_character_, metric = NA_character_,
                        headline = NA_real_, cost = NA_real_, failed_samples = NA_integer_,
                        error = NA_character_, attempts = 0L, reused = FALSE) {
  list(status = status, log_path = log_path, metric = metric, headline = headline, cost = cost,
       failed_samples = failed_samples, error = error, attempts = attempts, reused = reused)
}
