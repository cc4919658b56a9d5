# The log's JSON: exact numbers, flat metadata, yyjson's text, Inspect's timestamps.

#' Flatten metadata into the key-value fields the viewer shows
#'
#' vitals writes a sample's `solver_metadata` and `scorer_metadata` as lines of R's `str()`
#' output when they are nested lists. `flat_metadata()` turns one sample's metadata into
#' flat named scalars instead: numbers, strings and logicals stay as they are (factors and
#' dates become strings), `NULL` becomes `NA`, and anything longer than one value (a vector
#' of votes, a list) becomes a JSON string. The names of the JSON fields are kept in the
#' `"json"` attribute, so `restore_metadata()` can turn them back into R values.
#' `ResultsTask` does this for every sample when it writes its log.
#'
#' @param x A named list (one sample's metadata). `NULL` gives an empty list.
#' @returns A named list of length-one values, with attribute `json` (the names of the
#'   fields that hold JSON text).
#' @noRd
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
    # "Inf", "-Inf" and "NaN" need no escaping; jsonlite reads them back as numbers
    text[odd] <- paste0("\"", as.character(value[odd]), "\"")
    return(paste0("[", paste(text, collapse = ","), "]"))
  }
  as.character(jsonlite::toJSON(value, digits = NA, na = "null", null = "null"))
}

#' @param flat A list from `flat_metadata()` (or read from a log).
#' @param json Names of the fields holding JSON text; by default the `json` attribute.
#' @noRd
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

# Numbers as JSON text that reads back as the same double: 15 significant digits when that
# is exact, 17 otherwise; NA is null. jsonlite's `digits = NA` stops at 15 digits (1/3 would
# read back as another double), so numbers whose value matters to the last digit (scores,
# headline metrics, numeric metadata) are handed to the serializer as this text, marked as JSON
# for its `json_verbatim` option.
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

exact_json <- function(x) structure(exact_number_json(x), class = "json")

# A metric's value for the log: exact, and the string "NaN" when undefined, so the metric
# keeps its place (the viewer shows the first metric as the log's number) with no number.
# Why a string and not the literal `NaN` Inspect writes: vitals_view()'s server parses log
# headers with jsonlite, which can't read `NaN`; one such log blanks the log list of the whole
# folder (model, score, status of every log), and vitals_log_read() fails on it. The string
# is read by jsonlite, shown as "-" in the log list, and read by Inspect's reader as NaN
# (pydantic takes a number's text for a float field); only vitals' log page (which calls
# toFixed() on every metric) fails on it, so it is written for the headline only. Not
# `null`: Inspect rejects a null metric.
metric_json <- function(x) {
  text <- exact_number_json(x)
  text[is.na(x)] <- "\"NaN\""
  structure(text, class = "json")
}

# A metric's `"value": NaN` as Inspect itself writes it (a log from Inspect AI in a folder).
nan_metric <- "\"value\": NaN"

# Log text parsed with jsonlite, which can't read `NaN`: a metric's `"value": NaN` (an
# Inspect AI log's) is read as the string "NaN" (as.double() gives NaN). A `"value": NaN`
# inside a string can't match: a quote inside a JSON string is escaped.
parse_log_json <- function(text, ...) {
  if (grepl(nan_metric, text, fixed = TRUE)) {
    text <- gsub(nan_metric, "\"value\": \"NaN\"", text, fixed = TRUE)
  }
  jsonlite::parse_json(text, ...)
}

# A flat metadata list (see flat_metadata()) ready for the log: every double that 15 digits
# would not give back exactly becomes exact JSON text; an empty list stays a JSON object.
exact_fields <- function(flat) {
  attr(flat, "json") <- NULL
  if (!length(flat)) return(empty_object())
  doubles <- vapply(flat, is.double, TRUE)
  for (k in which(doubles)) {
    value <- flat[[k]]
    if (is.finite(value) && as.double(sprintf("%.15g", value)) != value) {
      flat[[k]] <- exact_json(value)
    }
  }
  flat
}

empty_object <- function() structure(list(), names = character())

# yyjson's JSON text of `x`, marked as the UTF-8 it is. (yyjsonr returns its bytes unmarked:
# enc2utf8() would then read them in the session's encoding, and in a C locale, as in a
# container or a cron job without LANG, write "<e3><80><81>" for each "\u3001".)
json_text <- function(x, opts) {
  json <- yyjsonr::write_json_str(x, opts = opts)
  Encoding(json) <- "UTF-8"
  json
}

log_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE)
}

# A NULL inside the log becomes an empty object, as jsonlite (and so vitals) writes it: the
# fields vitals leaves NULL (a sample's `store`, a message's `metadata`) are objects in
# Inspect's schema, and yyjson would write null.
nulls_as_objects <- function(x) {
  if (!is.list(x) || is.data.frame(x) || !length(x)) return(x)
  # (a loop over the elements that have a length: twice as fast as vapply() over all of
  # them, and this walks every sample of a log)
  len <- lengths(x, use.names = FALSE)
  for (k in which(len == 0L)) if (is.null(x[[k]])) x[k] <- list(empty_object())
  for (k in which(len > 0L)) {
    value <- x[[k]]
    if (is.list(value) && !is.data.frame(value)) x[[k]] <- nulls_as_objects(value)
  }
  x
}

# A time as Inspect writes it: ISO 8601 to the microsecond, the offset as +hh:mm. To the
# second only (as vitals writes it), a run under a second started and completed at the same
# time: the viewer, which takes a log's duration from `stats.started_at` and
# `stats.completed_at`, showed 0.0 s for every set cell (issue 36).
log_timestamp <- function(time = Sys.time()) {
  stamp <- format(time, "%Y-%m-%dT%H:%M:%OS6%z")
  sub("([+-][0-9]{2})([0-9]{2})$", "\\1:\\2", stamp)
}
