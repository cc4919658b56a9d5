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

# JSON text of a metadata value that reads back as the same R value (jsonlite's toJSON(digits
# = NA) keeps 15 digits and writes -Inf as null): Inf, -Inf and NaN as strings, NA as null.
metadata_json <- function(value) {
  if (is.numeric(value) && is.null(dim(value)) && !is.object(value)) {
    text <- exact_number_json(value)
    odd <- is.infinite(value) | is.nan(value)
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

# Numbers as JSON text that reads back as the same double (15 significant digits when exact,
# else 17; jsonlite's 15 would read 1/3 back as another double); NA is null.
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

# A metric's value for the log, "NaN" (a string) when undefined so the metric keeps its place.
# Not Inspect's literal `NaN`: vitals_view()'s server parses headers with jsonlite, which can't
# read it, and one such log blanks the whole folder's log list. Not `null`: Inspect rejects it.
metric_json <- function(x) {
  text <- exact_number_json(x)
  text[is.na(x)] <- "\"NaN\""
  structure(text, class = "json")
}

nan_metric <- "\"value\": NaN"

# Log text parsed with jsonlite, which can't read `NaN`: an Inspect log's `"value": NaN` is
# read as the string "NaN" (inside a JSON string the quote would be escaped, so no false match).
parse_log_json <- function(text, ...) {
  if (grepl(nan_metric, text, fixed = TRUE)) {
    text <- gsub(nan_metric, "\"value\": \"NaN\"", text, fixed = TRUE)
  }
  jsonlite::parse_json(text, ...)
}

# Flat metadata for the log: doubles that 15 digits would not give back become exact JSON text.
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

# yyjson's JSON text marked as UTF-8: yyjsonr returns its bytes unmarked, and enc2utf8() in a C
# locale would write "<e3><80><81>" for "\u3001".
json_text <- function(x, opts) {
  json <- yyjsonr::write_json_str(x, opts = opts)
  Encoding(json) <- "UTF-8"
  json
}

log_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, pretty = TRUE, json_verbatim = TRUE)
}

# NULL becomes an empty object, as jsonlite (and so vitals) writes it: Inspect's schema wants
# objects for the fields vitals leaves NULL, and yyjson would write null.
nulls_as_objects <- function(x) {
  if (!is.list(x) || is.data.frame(x) || !length(x)) return(x)
  # (a loop over the elements with a length: twice as fast as vapply() over all of them)
  len <- lengths(x, use.names = FALSE)
  for (k in which(len == 0L)) if (is.null(x[[k]])) x[k] <- list(empty_object())
  for (k in which(len > 0L)) {
    value <- x[[k]]
    if (is.list(value) && !is.data.frame(value)) x[[k]] <- nulls_as_objects(value)
  }
  x
}

# A time as Inspect writes it, to the microsecond: to the second only (as vitals writes it),
# the viewer showed 0.0 s for every set cell run under a second (issue 36).
log_timestamp <- function(time = Sys.time()) {
  stamp <- format(time, "%Y-%m-%dT%H:%M:%OS6%z")
  sub("([+-][0-9]{2})([0-9]{2})$", "\\1:\\2", stamp)
}
