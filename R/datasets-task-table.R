# Task tables: one row per sample, a fixed schema per benchmark, stored as parquet.

schema_types <- c("string", "integer", "double", "logical",
                  "list<string>", "list<integer>", "list<double>")

#' Task-table schemas
#'
#' Each benchmark's task table has one documented schema: column names, types and whether a
#' column may hold missing values. The Python flatteners check the same schema (a test keeps
#' the two copies equal). Types are `string`, `integer`, `double`, `logical` and the list
#' types `list<string>`, `list<integer>`, `list<double>`. A column marked `optional` came
#' after the schema's first tables (ProcessBench's `split`): a table without it is still
#' valid, and reads with the column all missing.
#'
#' @param benchmark A benchmark name, such as `"futurex"`. `NULL` lists the names.
#' @returns A tibble with columns `name`, `type`, `nullable` and `optional`, or (for `NULL`)
#'   a character vector of benchmark names.
#' @noRd
task_table_schema <- function(benchmark = NULL) {
  dir <- system.file("python", "predictivebench", "schemas", package = "predictivebench")
  if (is.null(benchmark)) {
    return(sort(sub("\\.json$", "", list.files(dir, pattern = "\\.json$"))))
  }
  check_string(benchmark)
  own <- benchmark_named(benchmark)$data$schema
  if (is.data.frame(own)) return(own)
  if (rlang::is_string(own)) benchmark <- own
  path <- file.path(dir, paste0(benchmark, ".json"))
  if (!file.exists(path)) {
    abort_pb(
      c("Unknown benchmark {.val {benchmark}}.",
        i = "Known: {.val {task_table_schema()}}."),
      "argument"
    )
  }
  columns <- jsonlite::read_json(path)$columns
  tibble::tibble(
    name = vapply(columns, `[[`, "", "name"),
    type = vapply(columns, `[[`, "", "type"),
    nullable = vapply(columns, function(x) isTRUE(x$nullable), TRUE),
    optional = vapply(columns, function(x) isTRUE(x$optional), TRUE)
  )
}

# A column the schema marks optional came later: older tables (and hand-made data frames)
# lack it, and read it as all missing.
add_optional_columns <- function(x, schema) {
  for (name in schema$name[schema$optional & !schema$name %in% names(x)]) {
    type <- schema$type[schema$name == name]
    x[[name]] <- if (startsWith(type, "list<")) rep(list(NULL), nrow(x)) else
      rep(json_column(list(NULL), type), nrow(x))
  }
  x
}

#' Read, write and validate task tables
#'
#' `read_task_table()` reads a parquet task table (made by [prepare_task_table()] or by
#' `python -m predictivebench prepare`) and checks it against its benchmark's schema: column
#' names and types, as the Python flattener writes them. A list column that is empty (or
#' missing) in every row, which nanoparquet can't write as a list, is stored as missing with
#' a note in the file's metadata, and read back as the same empty vectors.
#'
#' @param path A parquet file.
#' @param benchmark The benchmark whose schema applies. `NULL` (the default) takes it from
#'   the file's metadata.
#' @returns A tibble.
#' @family data
#' @export
#' @examples
#' path <- system.file("extdata", "futurex-sample.parquet", package = "predictivebench")
#' read_task_table(path)
read_task_table <- function(path, benchmark = NULL) {
  check_string(path)
  check_string(benchmark, allow_null = TRUE)
  if (!file.exists(path)) {
    abort_pb("Task table does not exist.", "missing_file", file = path)
  }
  check_parquet_file(path, benchmark)
  table <- tryCatch(
    nanoparquet::read_parquet(path),
    error = function(e) {
      abort_pb(c("Can't read the task table as parquet.", x = conditionMessage(e)),
               "parquet", file = path)
    }
  )
  meta <- task_table_metadata(path)
  table <- restore_empty_lists(table, meta)
  check_table_benchmark(meta[["predictivebench.benchmark"]], benchmark, path)
  benchmark <- benchmark %||% meta[["predictivebench.benchmark"]]
  if (is.null(benchmark)) {
    abort_pb(
      c("The task table does not say which benchmark it belongs to.",
        i = "Pass {.arg benchmark}."),
      "schema", file = path
    )
  }
  validate_task_table(table, benchmark, file = path)
}

# A raw benchmark file where a parquet task table belongs (parquet starts with "PAR1"): say
# which prepare_*() makes the table.
check_parquet_file <- function(path, benchmark, call = rlang::caller_env()) {
  if (dir.exists(path)) {
    kind <- "a folder"
  } else {
    con <- file(path, "rb")
    head <- readBin(con, "raw", 512L)
    close(con)
    if (length(head) >= 4 && identical(rawToChar(head[1:4]), "PAR1")) return(invisible())
    kind <- raw_file_kind(path, head)
    if (is.null(kind)) return(invisible())
  }
  prepare <- prepare_call(benchmark %||% "<benchmark>", path)
  abort_pb(
    c("{.file {basename(path)}} is {kind}, not a parquet task table.",
      i = if (is.null(benchmark)) {
        "Make a task table from it with {.fn prepare_task_table}, e.g. {.code {prepare}}."
      } else {
        "Make a task table from it first: {.code {prepare}}, then read that."
      },
      same_schema_hint(benchmark, path)),
    "parquet", file = path, call = call
  )
}

raw_file_kind <- function(path, head) {
  ext <- tolower(tools::file_ext(path))
  bom <- as.raw(c(0xef, 0xbb, 0xbf))
  if (length(head) >= 3 && identical(head[1:3], bom)) head <- head[-(1:3)]
  visible <- head[!head %in% as.raw(c(0x00, 0x09, 0x0a, 0x0d, 0x20))]
  first <- if (length(visible)) rawToChar(visible[1]) else ""
  if (ext == "jsonl" || (first == "{" && ext != "json")) return("a raw JSON Lines file")
  if (ext == "json" || first %in% c("[", "{")) return("a raw JSON file")
  if (ext %in% c("csv", "tsv")) return("a raw CSV file")
  if (ext %in% c("xlsx", "xlsb", "xls")) return("an Excel workbook")
  if (ext == "txt") return("a raw text file")
  NULL
}

# The call that makes a benchmark's task table, for messages; named after the schema
# (DeltaBench's raw files make ProcessBench-schema tables).
prepare_call <- function(benchmark, path) {
  schema <- benchmark_named(benchmark)$data$schema
  sprintf('prepare_task_table("%s", "%s", "%s.parquet")', benchmark, path,
          if (rlang::is_string(schema)) schema else benchmark)
}

same_schema_hint <- function(benchmark, path) {
  if (is.null(benchmark)) return(NULL)
  others <- Filter(function(b) identical(b$data$schema, benchmark) && b$name != benchmark &&
                     !is.null(b$data$prepare), indexed_benchmarks())
  vapply(names(others), function(other) {
    call <- gsub("}", "}}", gsub("{", "{{", prepare_call(other, path), fixed = TRUE), fixed = TRUE)
    paste0("From ", other, "'s files, {.code ", call, "} makes the same kind of table.")
  }, "", USE.NAMES = FALSE) |> rlang::set_names("i")
}

check_table_benchmark <- function(found, benchmark, path, call = rlang::caller_env()) {
  if (is.null(found) || is.null(benchmark) || identical(found, benchmark)) return(invisible())
  abort_pb(
    c("{.file {basename(path)}} is a {.val {found}} task table, not a {.val {benchmark}} one.",
      i = "Use it with the {found} functions, e.g. {.code {found}_dataset(\"{path}\")}; make a {benchmark} table with {.fn prepare_task_table}."),
    "benchmark", file = path, call = call
  )
}

task_table_metadata <- function(path) {
  meta <- nanoparquet::read_parquet_metadata(path)$file_meta_data$key_value_metadata[[1]]
  as.list(rlang::set_names(meta$value, meta$key))
}

# nanoparquet (0.5.2) infers a list column's type from its first non-empty element: an
# all-empty column can't be written, and one of character(0) crashes R when read back. So it
# is written as all missing, with its type and a row mask in the metadata ("integer:10").
empty_list_key <- function(name) paste0("predictivebench.empty_rows.", name)

stash_empty_lists <- function(x) {
  meta <- character()
  for (name in names(x)) {
    col <- x[[name]]
    if (!is.list(col) || !length(col) || any(lengths(col) > 0)) next
    empty <- !vapply(col, is.null, TRUE)
    if (!any(empty)) next
    type <- typeof(col[[which(empty)[[1]]]])
    meta[[empty_list_key(name)]] <- paste0(type, ":", paste(ifelse(empty, "1", "0"),
                                                            collapse = ""))
    x[[name]] <- rep(list(NULL), length(col))
  }
  list(data = x, metadata = meta)
}

restore_empty_lists <- function(table, meta) {
  for (name in names(table)) {
    value <- meta[[empty_list_key(name)]]
    if (is.null(value)) next
    type <- sub(":.*", "", value)
    mask <- sub("^[^:]*:", "", value)
    if (nchar(mask) != nrow(table) ||
        !type %in% c("character", "integer", "double", "logical")) next
    empty <- strsplit(mask, "", fixed = TRUE)[[1]] == "1"
    table[[name]] <- lapply(empty, function(e) if (e) vector(type) else NULL)
  }
  table
}

# Checks `x` against the schema and writes it atomically, the benchmark in its metadata.
write_task_table <- function(x, path, benchmark) {
  check_string(path)
  write_parquet_table(validate_task_table(x, benchmark), path, benchmark)
}

# Writes a table already checked: by validate_task_table(), or by the Python flattener, which
# owns its tables' checks (one pass), so prepare_*() does not check them again.
write_parquet_table <- function(x, path, benchmark, metadata = character()) {
  stashed <- stash_empty_lists(as.data.frame(x))
  write_atomic(path, function(tmp) {
    tryCatch(
      nanoparquet::write_parquet(
        stashed$data, tmp,
        metadata = c(predictivebench.benchmark = benchmark, stashed$metadata, metadata)
      ),
      error = function(e) {
        abort_pb(c("Can't write the task table as parquet.", x = conditionMessage(e)),
                 "parquet", file = path)
      }
    )
  })
}

# The schema check alone (extra columns kept; a missing optional column added as missing).
validate_task_table <- function(x, benchmark, file = "<data frame>") {
  check_string(benchmark)
  if (!is.data.frame(x)) {
    abort_pb("A task table must be a data frame, not {.obj_type_friendly {x}}.", "schema",
             file = file)
  }
  schema <- task_table_schema(benchmark)
  x <- add_optional_columns(x, schema)
  missing <- setdiff(schema$name, names(x))
  if (length(missing)) {
    needed <- schema$name[!schema$optional]
    optional <- schema$name[schema$optional]
    may_be_na <- schema$name[schema$nullable]
    abort_pb(
      c("Missing column{?s} {.field {missing}}.",
        i = "Columns of a {benchmark} task table: {.field {needed}}.",
        i = if (length(optional)) "Optional (added as {.code NA} when absent): {.field {optional}}.",
        i = if (length(may_be_na)) "May hold {.code NA}: {.field {may_be_na}}.",
        i = "{.fn prepare_task_table} makes one from the original's files;
             {.code {benchmark}_dataset(version = \"sample\")} shows one."),
      "schema", file = file, field = missing[[1]]
    )
  }
  for (i in seq_len(nrow(schema))) {
    x[[schema$name[[i]]]] <- check_column(
      x[[schema$name[[i]]]], schema$type[[i]], schema$nullable[[i]],
      file = file, field = schema$name[[i]]
    )
  }
  x <- check_text(x, file)
  if ("id" %in% names(x)) {
    dup <- which(duplicated(x$id))
    if (length(dup)) {
      abort_pb("Duplicate id {.val {x$id[[dup[[1]]]]}}.", "duplicate_id", file = file,
               row = dup[[1]], field = "id")
    }
  }
  tibble::as_tibble(x[c(schema$name, setdiff(names(x), schema$name))])
}

check_column <- function(values, type, nullable, file, field) {
  fail <- function(row, problem) {
    abort_pb("Column {.field {field}} {problem}.", "schema", file = file, row = row,
             field = field, call = rlang::caller_env(2))
  }
  if (startsWith(type, "list<")) {
    element <- sub("^list<(.*)>$", "\\1", type)
    if (!is.list(values)) fail(NULL, paste("must be a list column of", element))
    values <- lapply(values, function(v) if (is.null(v)) v else coerce_scalar(v, element))
    for (row in seq_along(values)) {
      v <- values[[row]]
      if (is.null(v) && !nullable) fail(row, "is missing")
      if (!is.null(v) && !is_type(v, element)) fail(row, paste("must hold", element, "values"))
    }
    return(values)
  }
  values <- coerce_scalar(values, type)
  if (!is_type(values, type)) {
    fail(NULL, paste0("must be ", type, ", not ", class(values)[[1]]))
  }
  if (!nullable && anyNA(values)) fail(which(is.na(values))[[1]], "has a missing value")
  # JSON, Python's checks and the scorers know no infinite numbers (NaN is a missing value).
  if (type == "double" && any(is.infinite(values))) {
    fail(which(is.infinite(values))[[1]], "has an infinite value")
  }
  values
}

# Every text of the table as UTF-8: prompts and logs are JSON, and a non-UTF-8 byte in a
# question was sent and paid for, then failed the cell as its log was written. Latin-1 text
# is converted; other bad bytes are refused before anything is sent.
check_text <- function(x, file, call = rlang::caller_env()) {
  for (name in names(x)) {
    col <- x[[name]]
    if (is.character(col)) {
      x[[name]] <- utf8_text(col, seq_along(col), file, name, call)
    } else if (is.list(col)) {
      text <- which(vapply(col, is.character, TRUE))
      for (row in text) col[[row]] <- utf8_text(col[[row]], row, file, name, call)
      if (length(text)) x[[name]] <- col
    }
  }
  x
}

utf8_text <- function(values, rows, file, field, call) {
  latin1 <- Encoding(values) == "latin1"
  if (any(latin1)) values[latin1] <- enc2utf8(values[latin1])
  bad <- which(!is.na(values) & (Encoding(values) == "bytes" | !validUTF8(values)))
  if (!length(bad)) return(values)
  row <- rows[[min(bad[[1]], length(rows))]]
  shown <- iconv(values[[bad[[1]]]], "UTF-8", "UTF-8", sub = "byte")
  at <- regexpr("<[0-9a-f]{2}>", shown)
  excerpt <- substr(shown, max(1, at - 30), at + 33)
  byte <- substr(shown, at + 1, at + 2)
  abort_pb(
    c("Column {.field {field}} holds text that is not UTF-8 (byte 0x{byte}, shown as <{byte}>): {.val {excerpt}}.",
      i = "Nothing was sent. Save the file as UTF-8, or convert the text, e.g. {.code iconv(x, from = \"latin1\", to = \"UTF-8\")}, before making the task table."),
    "encoding", file = file, row = row, field = field, call = call
  )
}

coerce_scalar <- function(v, type) {
  # parquet writers differ on integer width, and an all-NA column has no type of its own.
  if (type == "integer" && is.double(v) && all(is.na(v) | v == round(v))) return(as.integer(v))
  if (type == "double" && is.integer(v)) return(as.double(v))
  if (is.logical(v) && all(is.na(v))) {
    return(switch(type, string = as.character(v), integer = as.integer(v),
                  double = as.double(v), v))
  }
  v
}

is_type <- function(v, type) {
  switch(type,
    string = is.character(v),
    integer = is.integer(v),
    double = is.double(v),
    logical = is.logical(v),
    FALSE
  )
}

table_from_columns <- function(json, benchmark) {
  parsed <- jsonlite::parse_json(json)
  schema <- task_table_schema(benchmark)
  columns <- parsed$columns
  present <- schema$name %in% names(columns)
  out <- lapply(which(present), function(i) {
    values <- columns[[schema$name[[i]]]]
    json_column(values, schema$type[[i]])
  })
  names(out) <- schema$name[present]
  out <- add_optional_columns(tibble::as_tibble(out), schema)[schema$name]
  # Python validated the table (tables.py); json_column() only gives each column its R type.
  tibble::as_tibble(out)
}

json_column <- function(values, type) {
  scalar <- function(v, element) {
    missing <- vapply(v, is.null, TRUE)
    v[missing] <- NA
    switch(element,
      string = as.character(unlist(v)),
      integer = as.integer(unlist(v)),
      double = as.double(unlist(v)),
      logical = as.logical(unlist(v))
    )
  }
  if (startsWith(type, "list<")) {
    element <- sub("^list<(.*)>$", "\\1", type)
    return(lapply(values, function(v) if (is.null(v)) NULL else scalar(v, element)))
  }
  if (length(values) == 0) return(scalar(list(), type))
  scalar(values, type)
}

# The row checks of a `processbench`-schema table (ProcessBench and DeltaBench) that bypassed
# the flattener: at least one step, none blank, a label in [-1, steps), and DeltaBench's
# section numbers within the steps.
check_solution_steps <- function(x, file = "<data frame>") {
  n_steps <- lengths(x$steps)
  for (row in seq_len(nrow(x))) {
    steps <- x$steps[[row]]
    if (!n_steps[[row]]) {
      abort_pb("The solution has no steps.", "field", file = file, row = row, field = "steps")
    }
    blank <- which(is.na(steps) | !grepl("[^\\h\\v]", steps, perl = TRUE))
    if (length(blank)) {
      abort_pb("Step {blank[[1]] - 1} is missing or empty.", "field", file = file, row = row,
               field = paste0("steps[", blank[[1]] - 1L, "]"))
    }
    label <- x$label[[row]]
    if (label < -1 || label >= n_steps[[row]]) {
      abort_pb("Label {label} is not a step: it must be -1 or 0 to {n_steps[[row]] - 1}.",
               "field", file = file, row = row, field = "label")
    }
    for (field in c("error_sections", "unuseful_sections")) {
      sections <- x[[field]][[row]]
      if (any(is.na(sections) | sections < 1 | sections > n_steps[[row]])) {
        abort_pb("Section numbers must be 1 to {n_steps[[row]]} (the steps, counted from 1).",
                 "field", file = file, row = row, field = field)
      }
    }
  }
  x
}
