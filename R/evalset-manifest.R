# What an evaluation set has done: one small record per finished cell in
# `<log_dir>/.eval-set/<cell id>.json`, written atomically after the cell's log, so a record
# exists only for a cell whose log is complete. A cell is done when its record is there and
# the log it names is a complete log (status "success"); anything else (no record, a record
# whose log was deleted or cut short) runs again. One file per cell: workers on other
# machines finish cells at the same time without sharing a file.

manifest_dir <- function(log_dir) file.path(log_dir, ".eval-set")

manifest_path <- function(log_dir, id) {
  file.path(manifest_dir(log_dir), portable_file_name(id, ext = ".json"))
}

write_manifest <- function(log_dir, cell, outcome) {
  record <- list(
    cell_id = cell$id, benchmark = cell$benchmark$label, version = cell$benchmark$version,
    model = cell$label, epochs = cell$epochs %||% NA_integer_,
    log = basename(outcome$log_path), metric = outcome$metric, headline = outcome$headline,
    cost = outcome$cost, completed_at = log_timestamp()
  )
  json <- jsonlite::toJSON(record, auto_unbox = TRUE, digits = NA, na = "null", null = "null",
                           pretty = TRUE)
  write_atomic(manifest_path(log_dir, cell$id), function(tmp) writeLines(json, tmp))
}

# The finished cell's outcome from its record, or NULL when the cell is not done.
read_manifest <- function(log_dir, id) {
  path <- manifest_path(log_dir, id)
  if (!file.exists(path)) return(NULL)
  record <- tryCatch(jsonlite::fromJSON(path, simplifyVector = TRUE), error = function(e) NULL)
  if (!is.list(record) || !rlang::is_string(record$log)) return(NULL)
  log_path <- path_inside(log_dir, record$log)
  if (is.null(log_path) || !complete_log(log_path)) return(NULL)
  new_outcome("done", log_path = log_path, metric = record$metric %||% NA_character_,
              headline = as.double(record$headline %||% NA), cost = as.double(record$cost %||% NA),
              reused = TRUE)
}

complete_log <- function(path) {
  if (!file.exists(path)) return(FALSE)
  header <- tryCatch(read_log_header(path), error = function(e) NULL)
  identical(header$status, "success")
}

new_outcome <- function(status, log_path = NA_character_, metric = NA_character_,
                        headline = NA_real_, cost = NA_real_, error = NA_character_,
                        attempts = 0L, reused = FALSE) {
  list(status = status, log_path = log_path, metric = metric, headline = headline, cost = cost,
       error = error, attempts = attempts, reused = reused)
}
