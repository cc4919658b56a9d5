# A real benchmark's task table: fetched, prepared once, and cached next to its raw files,
# keyed by the files' checksums and the flattener's source.

# Prepared under the version's lock: a process that waited reads the table the first cached.
real_task_table <- function(benchmark, version = NULL, call = rlang::caller_env()) {
  rows <- version_files(benchmark, version, call = call)
  schema <- dataset_schema(benchmark)
  if (!file.exists(prepared_table_path(rows))) {
    limits <- download_limits(call)
    with_version_lock(rows, limits, {
      if (!file.exists(prepared_table_path(rows))) {
        prepare_real_table(benchmark, rows, schema, limits, call)
      }
    })
  }
  read_task_table(prepared_table_path(rows), schema)
}

prepare_real_table <- function(benchmark, rows, schema, limits, call) {
  files <- fetch_files(rows, limits, call = call)
  cli::cli_inform(c(i = "Preparing {benchmark} version {.val {rows$version[[1]]}} (once)."))
  table <- prepare_accepted(benchmark, rows, files)
  # the sha256 recorded for a file pinned without one is part of the key
  path <- prepared_table_path(rows)
  partial <- partial_path(path)
  on.exit(unlink(partial), add = TRUE)
  write_task_table(table, partial, schema)
  if (!file.rename(partial, path)) {
    abort_pb("Can't move the prepared table into place.", "cache", file = path, call = call)
  }
  invisible(path)
}

# The flattener is the check of a file pinned without a sha256: once it accepted the file,
# its sha256 is recorded; if it refused it (anything but a missing dependency), the file and
# what was unpacked from it are deleted, so the next call downloads it again.
prepare_accepted <- function(benchmark, rows, files) {
  unverified <- which(is.na(vapply(seq_len(nrow(rows)), function(i) expected_sha256(rows[i, ]), "")))
  table <- withCallingHandlers(
    benchmark_prepare(require_benchmark(benchmark), rows, files),
    error = function(e) {
      if (length(unverified) && !inherits(e, "predictivebench_error_dependency")) {
        unpacked <- require_benchmark(rows$benchmark[[1]])$data$unpacked
        unlink(c(files[unverified], if (!is.null(unpacked)) unpacked(rows)), recursive = TRUE)
      }
    }
  )
  for (i in unverified) record_sha256(rows[i, ], files[[i]])
  table
}

dataset_schema <- function(benchmark) {
  schema <- benchmark_named(benchmark)$data$schema
  if (rlang::is_string(schema)) schema else benchmark
}

prepared_table_path <- function(rows) {
  key <- digest::digest(list(
    files = paste(rows$path, vapply(seq_len(nrow(rows)), function(i) expected_sha256(rows[i, ]), "")),
    flattener = flattener_source(rows$benchmark[[1]])
  ), algo = "sha256")
  file.path(version_dir(rows$benchmark[[1]], rows$version[[1]]),
            paste0("table-", substr(key, 1, 16), ".parquet"))
}

# What the table depends on besides the raw files: the package version and flattener source.
flattener_source <- function(benchmark) {
  version <- as.character(utils::packageVersion("predictivebench"))
  module <- benchmark_named(benchmark)$data$flattener
  dir <- tryCatch(file.path(python_module_path(), "predictivebench"), error = function(e) NULL)
  if (is.null(dir) || is.null(module)) return(version)
  files <- file.path(dir, c(paste0(module, ".py"), "tables.py", "readers.py"))
  c(version, vapply(files[file.exists(files)], function(f) digest::digest(file = f), ""))
}

# A zip's entries all land inside `exdir`: absolute names and `..` are refused before
# anything is written.
unzip_safely <- function(zip, exdir) {
  entries <- utils::unzip(zip, list = TRUE)$Name
  parts <- strsplit(entries, "[/\\\\]")
  bad <- grepl("^([/\\\\]|[A-Za-z]:)", entries) | vapply(parts, function(p) ".." %in% p, TRUE)
  if (any(bad)) {
    abort_pb("The archive has an entry outside its folder: {.file {entries[bad][[1]]}}.",
             "path", file = zip, field = entries[bad][[1]])
  }
  utils::unzip(zip, exdir = exdir)
  # An archive holding one folder that is not the competitions' `data/` is unwrapped.
  top <- unique(vapply(parts, `[[`, "", 1))
  top <- top[!top %in% c("__MACOSX", "")]
  if (length(top) == 1 && top != "data" && dir.exists(file.path(exdir, top))) {
    inner <- file.path(exdir, top)
    for (f in list.files(inner, all.files = TRUE, no.. = TRUE)) {
      file.rename(file.path(inner, f), file.path(exdir, f))
    }
    unlink(inner, recursive = TRUE)
  }
  invisible(exdir)
}

write_atomic_dir <- function(dir, writer) {
  dir.create(dirname(dir), recursive = TRUE, showWarnings = FALSE)
  tmp <- partial_path(dir)
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  dir.create(tmp)
  writer(tmp)
  if (!file.rename(tmp, dir)) {
    abort_pb("Can't move the finished folder into place.", "cache", file = dir)
  }
  invisible(dir)
}
