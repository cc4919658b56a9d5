# What predictivebench adds to the log vitals writes: flat metadata, exact numbers, true
# usage, and a reader that gives the samples back.
#
# How vitals (0.4.0) writes a log, and what that means here:
# * `Task$log()` builds one list and writes it with `jsonlite::write_json(auto_unbox = TRUE,
#   pretty = TRUE)`, whose default `digits = 4` rounds every number: a score of 0.8333333 is
#   logged as 0.8333 and a header metric of 0.1666667 as 0.1667. Scores and metrics are
#   therefore written here as exact numbers after vitals has written the file.
# * Sample metadata is `as_metadata(sample["solver_metadata"])` and score metadata
#   `as_metadata(sample["scorer_metadata"])`: one key, `solver_metadata`, whose value is
#   `capture.output(str(<the list>))` ("List of 6", " $ kind: chr ..."), the lines the issue
#   saw in the viewer. There is no way to hand vitals a key-value object, so the log is
#   written with a short placeholder in that column, and the placeholder is then replaced
#   by the flat key-value pairs of `flat_metadata()`. Skipping `str()` also makes `$log()`
#   cheaper (bench/log-cost.R).
# * Model usage: the header's `stats.model_usage` is the sum of `chat$get_tokens()` over the
#   *solver* chats only, under the first solver chat's model; scorer chats (judges) are never
#   counted, and a solver that made 8 requests for a sample but returns one conversation
#   logs one request's tokens. A sample's own `model_usage` is its solver chat's tokens. Here
#   the solver chat's last assistant turn carries the sample's summed tokens while the log
#   is written, and the header is rebuilt per model from the solver's and the scorer's
#   metadata (`input_tokens`, `output_tokens`, `cost`), as `Task$get_cost()` counts them.
# * `vitals_log_read()` returns `id`, `epoch`, `input`, `target`, `result`, `score` and the
#   chats, but no metadata: the dataset's own columns (a FutureX item's level) are lost.
#   `log_samples()` reads them back from the flat metadata.

#' Flatten metadata into the key-value fields the viewer shows
#'
#' vitals writes a sample's `solver_metadata` and `scorer_metadata` as lines of R's `str()`
#' output when they are nested lists. `flat_metadata()` turns one sample's metadata into
#' flat named scalars instead: numbers, strings and logicals stay as they are (factors and
#' dates become strings), `NULL` becomes `NA`, and anything longer than one value (a vector
#' of votes, a list) becomes a JSON string. The names of the JSON fields are kept in the
#' `"json"` attribute, so [restore_metadata()] can turn them back into R values.
#' [ResultsTask] does this for every sample when it writes its log.
#'
#' @param x A named list (one sample's metadata). `NULL` gives an empty list.
#' @returns A named list of length-one values, with attribute `json` (the names of the
#'   fields that hold JSON text).
#' @export
#' @examples
#' flat <- flat_metadata(list(kind = "numeric", votes = c(2L, 2L, 3L), judge = NULL))
#' str(flat)
#' restore_metadata(flat)
flat_metadata <- function(x) {
  if (is.null(x)) x <- list()
  if (!is.list(x) || (length(x) && is.null(names(x)))) {
    abort_pb("{.arg x} must be a named list.", "argument")
  }
  json <- character()
  out <- lapply(names(x), function(name) {
    value <- x[[name]]
    if (is.null(value)) return(NA)
    if (is.factor(value)) value <- as.character(value)
    if (inherits(value, c("Date", "POSIXt"))) value <- format(value)
    if (is.atomic(value) && length(value) == 1 && is.null(dim(value))) {
      return(unclass(value))
    }
    json <<- c(json, name)
    metadata_json(value)
  })
  names(out) <- names(x)
  attr(out, "json") <- json
  out
}

# JSON text of a metadata value that reads back as the same R value: numbers exactly (see
# exact_number_json()), Inf, -Inf and NaN as the strings jsonlite reads back as numbers, NA
# as null. jsonlite's toJSON(digits = NA) keeps 15 significant digits and writes -Inf as null.
metadata_json <- function(value) {
  if (is.numeric(value) && is.null(dim(value)) && !is.object(value)) {
    text <- exact_number_json(value)
    odd <- is.infinite(value) | is.nan(value)
    text[odd] <- json_string(as.character(value[odd]))
    return(paste0("[", paste(text, collapse = ","), "]"))
  }
  as.character(jsonlite::toJSON(value, digits = NA, na = "null", null = "null"))
}

#' @rdname flat_metadata
#' @param flat A list from `flat_metadata()` (or read from a log).
#' @param json Names of the fields holding JSON text; by default the `json` attribute.
#' @export
restore_metadata <- function(flat, json = attr(flat, "json")) {
  out <- lapply(names(flat), function(name) {
    value <- flat[[name]]
    if (name %in% json && is.character(value) && !is.na(value)) {
      return(jsonlite::fromJSON(value, simplifyVector = TRUE))
    }
    if (is.null(value)) NA else value
  })
  names(out) <- names(flat)
  out
}

# The JSON text of many flat metadata lists, one string of `"key": value` pairs per list.
# The values are scalars, so they are encoded here as vectors over all samples at once: a
# jsonlite call per sample would cost more than a twentieth of vitals' whole sample.
metadata_pairs <- function(flats) {
  pairs <- rep("", length(flats))
  sizes <- lengths(flats)
  if (!sum(sizes)) return(pairs)
  owner <- rep(seq_along(flats), sizes)
  keys <- unlist(lapply(flats, names), use.names = FALSE)
  values <- unlist(lapply(flats, unclass), recursive = FALSE, use.names = FALSE)
  text <- rep("null", length(values))
  type <- vapply(values, typeof, "")
  missing <- vapply(values, is.na, TRUE)
  strings <- type == "character" & !missing
  text[strings] <- json_string(unlist(values[strings]))
  numbers <- type %in% c("double", "integer") & !missing
  text[numbers] <- exact_number_json(unlist(values[numbers]))
  flags <- type == "logical" & !missing
  text[flags] <- ifelse(unlist(values[flags]), "true", "false")
  joined <- vapply(split(paste0(json_string(keys), ": ", text), owner), paste, "",
                   collapse = ", ")
  pairs[as.integer(names(joined))] <- joined
  pairs
}

# Strings as JSON string literals.
json_string <- function(x) {
  x <- enc2utf8(as.character(x))
  x <- gsub("\\", "\\\\", x, fixed = TRUE)
  x <- gsub("\"", "\\\"", x, fixed = TRUE)
  x <- gsub("\n", "\\n", x, fixed = TRUE)
  x <- gsub("\r", "\\r", x, fixed = TRUE)
  x <- gsub("\t", "\\t", x, fixed = TRUE)
  control <- grepl("[\001-\037]", x, useBytes = TRUE)
  if (any(control)) {
    x[control] <- vapply(x[control], function(s) {
      chars <- strsplit(s, "")[[1]]
      codes <- vapply(chars, utf8ToInt, 1L)
      chars[codes < 32] <- sprintf("\\u%04x", codes[codes < 32])
      paste(chars, collapse = "")
    }, "", USE.NAMES = FALSE)
  }
  paste0("\"", x, "\"")
}

# Numbers as JSON text that reads back as the same double: 15 significant digits when that
# is exact, 17 otherwise; NA is null.
exact_number_json <- function(x) {
  x <- as.double(x)
  out <- rep("null", length(x))
  finite <- is.finite(x)
  short <- sprintf("%.15g", x[finite])
  inexact <- as.double(short) != x[finite]
  short[inexact] <- sprintf("%.17g", x[finite][inexact])
  out[finite] <- short
  out
}

# Placeholders written through vitals and replaced afterwards. The nonce keeps a
# placeholder from ever matching text that a model wrote.
placeholder <- function(kind, i, nonce) sprintf("@@pb:%s:%d:%s@@", kind, i, nonce)

# Replaces every `"@@pb:<kind>:<i>:<nonce>@@"` in `text`: metadata placeholders (kinds `s`
# and `m`, the value of a `solver_metadata`/`scorer_metadata` key) by that sample's pairs,
# number placeholders (kind `v`) by the exact number. `explanations` (one per sample, `NA`
# to keep what vitals wrote) replace the `explanation` of each sample's score, which vitals
# writes right after its value (a `v` placeholder) and answer.
fill_placeholders <- function(text, nonce, solver_pairs, scorer_pairs, values,
                              explanations = NULL) {
  if (!is.null(explanations)) text <- fill_explanations(text, nonce, explanations)
  meta <- paste0("(,\\s*)?\"(?:solver|scorer)_metadata\": \"@@pb:([sm]):(\\d+):", nonce, "@@\"")
  m <- gregexpr(meta, text, perl = TRUE)
  found <- regmatches(text, m)[[1]]
  if (length(found)) {
    parts <- regmatches(found, regexec(meta, found, perl = TRUE))
    regmatches(text, m) <- list(vapply(parts, function(p) {
      pairs <- if (p[[3]] == "s") solver_pairs[[as.integer(p[[4]])]] else
        scorer_pairs[[as.integer(p[[4]])]]
      if (!nzchar(pairs)) "" else paste0(p[[2]], pairs)
    }, ""))
  }
  number <- paste0("\"@@pb:v:(\\d+):", nonce, "@@\"")
  m <- gregexpr(number, text, perl = TRUE)
  found <- regmatches(text, m)[[1]]
  if (length(found)) {
    index <- as.integer(sub(number, "\\1", found, perl = TRUE))
    regmatches(text, m) <- list(values[index])
  }
  text
}

# A score with a scorer chat is logged by vitals with the judge's last reply as its
# explanation, whatever the scorer explained; this puts the scorer's explanation back.
fill_explanations <- function(text, nonce, explanations) {
  json <- "(?:null|\"(?:[^\"\\\\]|\\\\.)*\")"
  score <- paste0("(\"@@pb:v:(\\d+):", nonce, "@@\",\\s*\"answer\":\\s*", json,
                  ",\\s*\"explanation\":\\s*)", json)
  m <- gregexpr(score, text, perl = TRUE)
  found <- regmatches(text, m)[[1]]
  if (!length(found)) return(text)
  parts <- regmatches(found, regexec(score, found, perl = TRUE))
  regmatches(text, m) <- list(vapply(parts, function(p) {
    explanation <- explanations[[as.integer(p[[3]])]]
    if (is.na(explanation)) p[[1]] else paste0(p[[2]], json_string(explanation))
  }, ""))
  text
}

read_text <- function(path) {
  text <- readChar(path, file.size(path), useBytes = TRUE)
  Encoding(text) <- "UTF-8"
  text
}

# The log's header (everything before the top-level "samples" key, which vitals' own header
# reader also relies on) and the rest.
split_log_text <- function(text, path) {
  at <- regexpr("\n  \"samples\": ", text, fixed = TRUE)
  if (at < 0) {
    abort_pb("This is not a vitals log: it has no {.field samples}.", "json", file = path)
  }
  list(header = paste0(sub(",\\s*$", "", substr(text, 1, at - 1)), "\n}"),
       rest = substr(text, at, nchar(text)))
}

join_log_text <- function(header, rest) {
  header <- as.character(jsonlite::toJSON(header, auto_unbox = TRUE, pretty = TRUE,
                                          digits = NA, na = "null", null = "null"))
  paste0(sub("\n}\\s*$", ",", header), rest)
}

# Completes a log vitals wrote with placeholders: the header gets predictivebench's
# metadata (the benchmark, which fields are dataset columns and which hold JSON), one
# `eval.scorers` metric per headline metric, exact metric values and the model usage of
# every request; every placeholder is filled; the file is replaced atomically.
finish_log <- function(path, nonce, solver_pairs, scorer_pairs, metric_results, model_usage,
                       scores, metadata, explanations = NULL) {
  parts <- split_log_text(read_text(path), path)
  header <- jsonlite::parse_json(parts$header)
  header$eval$metadata <- c(
    list(benchmark = metadata$benchmark,
         predictivebench = as.character(utils::packageVersion("predictivebench"))),
    lapply(metadata[c("dataset_fields", "solver_json", "scorer_json")], as.list)
  )
  names <- names(metric_results)
  header$eval$scorers[[1]]$metrics <- lapply(names, function(name) {
    list(name = name, options = structure(list(), names = character()))
  })
  n <- length(scores)
  for (k in seq_along(names)) {
    header$results$scores[[1]]$metrics[[names[[k]]]]$value <- placeholder("v", n + k, nonce)
  }
  header$stats$model_usage <- model_usage
  values <- vapply(metric_results, function(m) as.double(m$value)[1], 1)
  text <- fill_placeholders(join_log_text(header, parts$rest), nonce, solver_pairs,
                            scorer_pairs, exact_number_json(c(scores, values)), explanations)
  write_atomic(path, function(tmp) writeChar(text, tmp, eos = NULL, useBytes = TRUE))
}

#' Read a log's samples back, with their metadata
#'
#' `log_samples()` reads a log written by a [ResultsTask] (or any vitals log) into a tibble
#' shaped like the task's `$get_samples()`: `id`, `epoch`, `input`, `target`, the dataset
#' columns the task logged (such as FutureX's `level`), `result`, `solver_metadata`,
#' `score`, `scorer`, `scorer_explanation` and `scorer_metadata`, with metadata restored from
#' its flat form (see [flat_metadata()]). A benchmark's summary gives the same numbers on it
#' as on the live task.
#'
#' [vitals::vitals_log_read()] returns no metadata. Its output is accepted when it already
#' has the columns a summary needs; `dataset` adds the task table's columns by `id`, which
#' is enough for summaries that need only the scores and dataset columns. Scorer metadata
#' can only come from the file.
#'
#' @param x A log file, or a data frame from [vitals::vitals_log_read()].
#' @param dataset For a data frame: the task table whose columns to add by `id`.
#' @returns A tibble with one row per sample and epoch.
#' @export
#' @examples
#' tsk <- ResultsTask$new(
#'   dataset = tibble::tibble(input = c("1+1?", "2+2?"), target = c("2", "4"),
#'                            level = c(1L, 2L)),
#'   solver = generate_solver(cache = FALSE),
#'   scorer = function(samples, ...) list(score = as.double(samples$result == samples$target)),
#'   benchmark = "arithmetic", dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
#' log_samples(tsk$log_path)
log_samples <- function(x, dataset = NULL) {
  if (is.data.frame(x)) return(log_samples_frame(x, dataset))
  check_string(x)
  if (!file.exists(x)) abort_pb("Can't find the log.", "missing_file", file = x)
  log <- jsonlite::fromJSON(x, simplifyVector = FALSE)
  if (!length(log$samples)) return(tibble::tibble())
  layout <- log$eval$metadata %||% list()
  layout <- lapply(layout[c("dataset_fields", "solver_json", "scorer_json")],
                   function(x) as.character(unlist(x)))
  rows <- lapply(log$samples, log_sample_fields, layout = layout)
  out <- tibble::tibble(
    id = vapply(rows, function(r) r$id, ""),
    epoch = vapply(rows, function(r) r$epoch, 1L),
    input = vapply(rows, function(r) r$input, ""),
    target = vapply(rows, function(r) r$target, "")
  )
  fields <- unique(unlist(lapply(rows, function(r) names(r$dataset))))
  for (field in fields) {
    values <- lapply(rows, function(r) r$dataset[[field]] %||% NA)
    # a list column of the dataset (logged as JSON) stays a list column
    list_column <- field %in% layout$solver_json || any(lengths(values) != 1)
    out[[field]] <- if (list_column) values else unlist(values)
  }
  out$result <- vapply(rows, function(r) r$result, "")
  out$solver_metadata <- lapply(rows, function(r) r$solver)
  out$score <- as_score(unlist(lapply(rows, function(r) r$score %||% NA)))
  out$scorer <- vapply(rows, function(r) r$scorer, "")
  out$scorer_explanation <- vapply(rows, function(r) r$explanation, "")
  out$scorer_metadata <- lapply(rows, function(r) r$scorer_metadata)
  attr(out, "log") <- log[c("eval", "results", "stats")]
  out
}

log_sample_fields <- function(sample, layout) {
  meta <- restore_metadata(sample$metadata %||% list(), json = layout$solver_json)
  dataset <- meta[intersect(layout$dataset_fields, names(meta))]
  solver <- meta[setdiff(names(meta), names(dataset))]
  score <- if (length(sample$scores)) sample$scores[[1]] else list()
  scorer_meta <- score$metadata %||% list()
  scorer_meta$grading <- NULL
  list(
    id = as.character(sample$id), epoch = as.integer(sample$epoch %||% 1L),
    input = log_text(sample$input), target = paste(unlist(sample$target), collapse = "\n"),
    dataset = dataset, solver = solver,
    result = as.character(score$answer %||% NA_character_),
    score = score$value,
    scorer = names(sample$scores)[1] %||% NA_character_,
    explanation = as.character(score$explanation %||% NA_character_),
    scorer_metadata = restore_metadata(scorer_meta, json = layout$scorer_json)
  )
}

# A sample's input is a string, or a list of messages whose content is a string or blocks.
log_text <- function(input) {
  if (is.character(input)) return(paste(input, collapse = "\n"))
  texts <- unlist(lapply(input, function(message) {
    content <- message$content
    if (is.character(content)) return(content)
    vapply(Filter(function(b) identical(b$type, "text"), content), function(b) b$text, "")
  }))
  paste(texts, collapse = "\n")
}

# vitals::vitals_log_read() output: a sample's columns without vitals' `scorer` column, which
# every scored task's $get_samples() and log_samples() of a file have.
is_log_read <- function(x) {
  all(c("id", "epoch", "input", "target", "result", "score", "solver_chat") %in% names(x)) &&
    !"scorer" %in% names(x)
}

log_samples_frame <- function(x, dataset) {
  if (!all(c("id", "score") %in% names(x))) {
    abort_pb("{.arg x} must be a log file or {.fn vitals::vitals_log_read} output.", "argument")
  }
  out <- tibble::as_tibble(x)
  out$id <- as.character(out$id)
  out$score <- as_score(out$score)
  if (is.null(dataset)) return(out)
  if (!is.data.frame(dataset) || !"id" %in% names(dataset)) {
    abort_pb("{.arg dataset} must be a task table with an {.field id} column.", "argument")
  }
  extra <- setdiff(names(dataset), names(out))
  rows <- match(out$id, as.character(dataset$id))
  if (anyNA(rows)) {
    abort_pb("Sample {.val {out$id[is.na(rows)][1]}} is not in {.arg dataset}.", "argument",
             field = "id")
  }
  for (column in extra) out[[column]] <- dataset[[column]][rows]
  out
}

#' Model usage recorded in a log
#'
#' The header's model usage of a log, one row per model: input and output tokens and, when
#' known, the cost in dollars. For a [ResultsTask] log it counts every request the solver and
#' the scorer made (all votes, judge calls and log-probability requests), and nothing for
#' cached answers, as `$get_cost()` does.
#'
#' @param path A log file.
#' @returns A tibble: `model`, `input_tokens`, `output_tokens`, `total_cost`.
#' @export
#' @examples
#' tsk <- ResultsTask$new(
#'   dataset = tibble::tibble(input = "1+1?", target = "2"),
#'   solver = generate_solver(cache = FALSE),
#'   scorer = function(samples, ...) list(score = as.double(samples$result == samples$target)),
#'   benchmark = "arithmetic", dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
#' log_usage(tsk$log_path)
log_usage <- function(path) {
  check_string(path)
  header <- jsonlite::parse_json(split_log_text(read_text(path), path)$header)
  usage <- header$stats$model_usage %||% list()
  tibble::tibble(
    model = names(usage) %||% character(),
    input_tokens = unname(vapply(usage, function(u) as.double(u$input_tokens %||% 0), 1)),
    output_tokens = unname(vapply(usage, function(u) as.double(u$output_tokens %||% 0), 1)),
    total_cost = unname(vapply(usage, function(u) as.double(u$total_cost %||% NA), 1))
  )
}

#' A task's cost by model, as logged
#'
#' `task_usage()` sums a task's `$get_cost()` per model (solver and scorer together), naming
#' models as the log does (`"<provider>/<model>"`), so it can be compared with [log_usage()].
#'
#' @param task An evaluated [vitals::Task].
#' @returns A tibble: `model`, `input_tokens`, `output_tokens`, `total_cost`.
#' @export
#' @examples
#' tsk <- ResultsTask$new(
#'   dataset = tibble::tibble(input = "1+1?", target = "2"),
#'   solver = generate_solver(cache = FALSE),
#'   scorer = function(samples, ...) list(score = as.double(samples$result == samples$target)),
#'   benchmark = "arithmetic", dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_constant("2"), view = FALSE)
#' task_usage(tsk)
task_usage <- function(task) {
  if (!inherits(task, "Task")) abort_pb("{.arg task} must be a vitals Task.", "argument")
  cost <- task$get_cost()
  if (is.null(cost) || !nrow(cost)) {
    return(tibble::tibble(model = character(), input_tokens = double(),
                          output_tokens = double(), total_cost = double()))
  }
  model <- paste0(provider_label(cost$provider), "/", cost$model)
  price <- if ("price" %in% names(cost)) {
    suppressWarnings(as.double(gsub("[$,]", "", cost$price)))
  } else {
    rep(NA_real_, nrow(cost))
  }
  keys <- unique(model)
  tibble::tibble(
    model = keys,
    input_tokens = vapply(keys, function(k) sum(cost$input[model == k]), 1, USE.NAMES = FALSE),
    output_tokens = vapply(keys, function(k) sum(cost$output[model == k]), 1, USE.NAMES = FALSE),
    total_cost = vapply(keys, function(k) sum(price[model == k]), 1, USE.NAMES = FALSE)
  )
}

# vitals names a model "<provider>/<model>" with the provider's name lower-cased and
# non-alphanumerics as "_" (chat_provider_model()); the same here.
provider_label <- function(name) {
  prefix <- tolower(gsub("[^[:alnum:]]+", "_", name))
  prefix[prefix == "lm_studio"] <- "lmstudio"
  prefix[prefix == "portkeyai"] <- "portkey"
  prefix
}

chat_model_label <- function(chat) {
  paste0(provider_label(chat$get_provider()@name), "/", chat$get_model())
}
