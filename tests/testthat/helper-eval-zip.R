# `.eval` files made by the tests, as Inspect AI lays them out: a zip of JSON entries, each
# compressed with zstd (method 93, current Inspect) or deflate (older Inspect). libarchive
# 3.6 writes no zstd zip entry, so the zstd zip is put together here around zstd frames made
# by archive's filter; deflate zips come from zip::zip().

# `entries`: a named list of entry name -> JSON text.
write_eval_zip <- function(path, entries, method = c("zstd", "deflate")) {
  method <- match.arg(method)
  if (method == "deflate") {
    dir <- tempfile("eval-")
    on.exit(unlink(dir, recursive = TRUE))
    for (name in names(entries)) {
      dir.create(dirname(file.path(dir, name)), recursive = TRUE, showWarnings = FALSE)
      writeBin(charToRaw(enc2utf8(entries[[name]])), file.path(dir, name))
    }
    zip::zip(path, names(entries), root = dir)
    return(invisible(path))
  }
  con <- file(path, open = "wb")
  on.exit(close(con))
  u16 <- function(x) writeBin(as.integer(x), con, size = 2, endian = "little")
  u32 <- function(x) writeBin(as.integer(x), con, size = 4, endian = "little")
  central <- list()
  offset <- 0L
  # version 6.3, no flags, method 93, 1980-01-01 00:00, crc, sizes, name length, no extra
  fields <- function(e) {
    u16(63); u16(0); u16(93); u16(0); u16(33); writeBin(e$crc, con)
    u32(e$packed); u32(e$size); u16(nchar(e$name, "bytes")); u16(0)
  }
  for (name in names(entries)) {
    data <- charToRaw(enc2utf8(entries[[name]]))
    packed <- zstd_frame(data)
    crc <- digest::digest(data, algo = "crc32", serialize = FALSE)
    crc <- as.raw(strtoi(substring(sprintf("%08s", crc), c(7, 5, 3, 1), c(8, 6, 4, 2)), 16L))
    e <- list(name = name, crc = crc, packed = length(packed), size = length(data),
              offset = offset)
    u32(0x04034b50); fields(e); writeBin(charToRaw(name), con); writeBin(packed, con)
    central[[name]] <- e
    offset <- offset + 30L + nchar(name, "bytes") + length(packed)
  }
  start <- offset
  for (e in central) {
    u32(0x02014b50); u16(63); fields(e)
    u16(0); u16(0); u16(0); u32(0); u32(e$offset); writeBin(charToRaw(e$name), con)
  }
  size <- sum(46L + nchar(names(central), "bytes"))
  u32(0x06054b50); u16(0); u16(0); u16(length(central)); u16(length(central))
  u32(size); u32(start); u16(0)
  invisible(path)
}

zstd_frame <- function(data) {
  file <- tempfile()
  on.exit(unlink(file))
  con <- archive::file_write(file, filter = "zstd")
  writeBin(data, con)
  close(con)
  readBin(file, "raw", file.size(file) + 16L)
}

# An Inspect-made log of a task the package does not know: `values` are its samples' score
# values ("C"/"I"), `accuracy` the metric its header's results give.
inspect_eval_entries <- function(task, values, accuracy, finished = TRUE) {
  ids <- sprintf("s%d", seq_along(values))
  eval <- list(eval_id = paste0(task, "-e"), run_id = paste0(task, "-r"),
               created = "2026-12-07T11:25:17+00:00", task = task, task_id = paste0(task, "-t"),
               dataset = list(name = task, samples = length(values), sample_ids = ids),
               model = "openai/m", config = list(epochs = 1L),
               packages = list(inspect_ai = "0.3.260"))
  results <- list(total_samples = length(values), completed_samples = length(values),
                  scores = list(list(name = "includes", scorer = "includes",
                                     scored_samples = length(values),
                                     metrics = list(accuracy = list(name = "accuracy",
                                                                    value = accuracy),
                                                    stderr = list(name = "stderr",
                                                                  value = 0.25)))))
  json <- function(x) as.character(jsonlite::toJSON(x, auto_unbox = TRUE, digits = NA))
  samples <- lapply(seq_along(values), function(i) {
    json(list(id = ids[[i]], epoch = 1L, input = paste("Question", i), target = "A",
              output = list(model = "m", completion = "\\boxed{A}"),
              scores = list(includes = list(value = values[[i]], answer = "A")),
              metadata = setNames(list(), character())))
  })
  names(samples) <- sprintf("samples/%s_epoch_1.json", ids)
  c(list(`_journal/start.json` = json(list(version = 2L, eval = eval))), samples,
    if (finished) list(`header.json` = json(list(version = 2L, status = "success",
                                                 eval = eval, results = results,
                                                 stats = list(model_usage = list())))))
}

# A package JSON log (log_writer()'s layout: the header, then one sample a line) as an
# `.eval` holding the same header and samples, their JSON text unchanged, and its start.
json_log_as_eval <- function(json_path, eval_path, method = "zstd") {
  lines <- readLines(json_path, encoding = "UTF-8")
  at <- match('  "samples": [', lines)
  end <- match("  ]", lines)
  header <- c(lines[seq_len(at - 1L)], "}")
  header[[at - 1L]] <- sub(",$", "", header[[at - 1L]])
  samples <- sub(",$", "", lines[seq(at + 1L, end - 1L)])
  parsed <- lapply(samples, jsonlite::parse_json)
  names(samples) <- vapply(parsed, function(s) sprintf("samples/%s_epoch_%d.json", s$id,
                                                       as.integer(s$epoch)), "")
  header <- paste(header, collapse = "\n")
  start <- jsonlite::toJSON(list(version = 2L, eval = jsonlite::parse_json(header)$eval),
                            auto_unbox = TRUE, digits = NA)
  write_eval_zip(eval_path, c(list(`_journal/start.json` = as.character(start)),
                              as.list(samples), list(header.json = header)), method)
}
