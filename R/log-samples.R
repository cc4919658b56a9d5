# A log's samples: one line of JSON each, condensed (each long text once, in the sample's
# attachments), translated from their chats by log_samples_of(); test-log-samples.R lists
# what differs from vitals' log.

# One sample as one line of compact JSON, condensed (unless log_samples_of() condensed it).
sample_json <- function(sample, opts = sample_json_options()) {
  if (!isTRUE(attr(sample, "predictivebench_direct"))) {
    sample <- nulls_as_objects(condense_sample(sample))
  } else if (length(sample$model_usage)) {
    sample$model_usage <- lapply(sample$model_usage, lean_usage)
  }
  json_text(sample, opts = opts)
}

# A sample without the texts and events it holds twice (issue 37): a message text over 100
# characters becomes an `attachment://<key>` with vitals' key (rlang::hash()), so vitals'
# events refer to the same attachment; model events lose `call` (vitals' made-up request);
# `output`, `sample_init` and the solver's steps go (restated elsewhere), the scorer's step
# stays (vitals' reader splits the chats there); zero usage counts and a `completed` equal
# to the `timestamp` go.
condense_sample <- function(sample) {
  attachments <- attachment_pool(sample$attachments, referred = TRUE)
  refer <- attachments$refer
  # `input` and a score's `answer` stay plain: the viewer shows them in its sample list and
  # score panel without resolving attachments
  if (length(sample$messages)) {
    sample$messages <- lapply(sample$messages, condense_message, refer = refer)
  }
  sample$output <- NULL
  if (length(sample$events)) sample$events <- condense_events(sample$events)
  # vitals' events refer to its own (longer) keys of the same texts
  pool <- attachments$texts()
  if (length(pool)) {
    names(pool) <- substr(names(pool), 1, attachment_key_chars)
    pool <- pool[!duplicated(names(pool))]
  }
  sample$events <- shorter_keys(sample$events)
  if (length(sample$model_usage)) sample$model_usage <- lapply(sample$model_usage, lean_usage)
  if (is.double(sample$epoch) && length(sample$epoch) == 1 && isTRUE(sample$epoch %% 1 == 0)) {
    sample$epoch <- as.integer(sample$epoch)
  }
  if (length(pool)) sample$attachments <- sorted_attachments(pool)
  sample
}

condense_message <- function(message, refer) {
  content <- message$content
  if (is.character(content)) {
    message$content <- refer(content)
  } else if (is.list(content)) {
    message$content <- one_text(lapply(content, function(block) {
      if (!is.list(block)) return(block)
      if (identical(block$type, "text")) block$text <- refer(block$text)
      if (identical(block$type, "reasoning")) block$reasoning <- refer(block$reasoning)
      block
    }))
  }
  message
}

# A content of one text block is written as the text itself, as Inspect writes a plain reply.
one_text <- function(content) {
  if (length(content) == 1 && is.list(content[[1]]) &&
      identical(names(content[[1]]), c("type", "text")) &&
      identical(content[[1]]$type, "text")) {
    return(content[[1]]$text)
  }
  content
}

# A model event's messages repeat the sample's: their ids, sources and model are said once.
event_message <- function(message) {
  if (!is.list(message)) return(message)
  message$id <- NULL
  message$source <- NULL
  message$model <- NULL
  if (is.list(message$content)) message$content <- one_text(message$content)
  message
}

shorter_keys <- function(x) {
  if (is.character(x) && length(x) == 1 && !is.na(x) && startsWith(x, "attachment://")) {
    return(substr(x, 1, nchar("attachment://") + attachment_key_chars))
  }
  if (!is.list(x)) return(x)
  out <- lapply(x, shorter_keys)
  names(out) <- names(x)
  out
}

condense_events <- function(events) {
  kind <- vapply(events, function(e) as.character(e$event %||% ""), "")
  name <- vapply(events, function(e) as.character(e$name %||% "")[1], "")
  type <- vapply(events, function(e) as.character(e$type %||% "")[1], "")
  events <- events[!(kind == "sample_init" | (kind == "step" & (name == "init" | type == "solver")))]
  lapply(events, function(e) {
    if (!identical(e$event, "model")) return(e)
    e$call <- NULL
    if (is.list(e$input)) e$input <- lapply(e$input, event_message)
    if (is.list(e$output) && is.list(e$output$choices)) {
      e$output$choices <- lapply(e$output$choices, function(choice) {
        if (is.list(choice)) choice$message <- event_message(choice$message)
        choice
      })
    }
    # vitals makes `completed` the event's own timestamp (its duration is `working_time`)
    if (identical(e$completed, e$timestamp)) e$completed <- NULL
    e$working_time <- microseconds(e$working_time)
    if (is.list(e$output)) {
      e$output$time <- microseconds(e$output$time)
      if (is.list(e$output$usage)) e$output$usage <- lean_usage(e$output$usage)
    }
    e
  })
}

microseconds <- function(x) if (is.double(x)) round(x, 6) else x

lean_usage <- function(usage) {
  if (!is.list(usage)) return(usage)
  for (field in c("input_tokens_cache_write", "input_tokens_cache_read")) {
    value <- usage[[field]]
    if (is.numeric(value) && length(value) == 1 && !is.na(value) && value == 0) {
      usage[[field]] <- NULL
    }
  }
  usage
}

sample_json_options <- function() {
  yyjsonr::opts_write_json(auto_unbox = TRUE, pretty = FALSE, json_verbatim = TRUE)
}

# 64 bits of the text's hash are plenty within one sample, and each key is written 3+ times.
attachment_key <- function(text) substr(rlang::hash(text), 1, attachment_key_chars)

attachment_key_chars <- 16L

# A sample's attachments: `refer(text)` gives a text over 100 characters as an
# "attachment://<key>", anything else as it is; `texts()` is the pool. With `referred = TRUE`
# a reference already (vitals' events) stays one.
attachment_pool <- function(pool = NULL, referred = FALSE) {
  pool <- pool %||% list()
  refer <- function(text) {
    if (!is.character(text) || length(text) != 1 || is.na(text) || nchar(text) <= 100 ||
        (referred && startsWith(text, "attachment://"))) {
      return(text)
    }
    key <- attachment_key(text)
    pool[[key]] <<- text
    paste0("attachment://", key)
  }
  list(refer = refer, texts = function() pool)
}

# Attachments in key order: a log is the same text whatever order its texts were met in.
sorted_attachments <- function(pool) {
  if (length(pool)) pool[order(names(pool))] else empty_object()
}

# Inspect's ModelUsage of one answer (cache counts left out when 0, as lean_usage() does).
event_usage <- function(tokens) {
  tokens <- as.integer(zero_na(c(tokens, 0, 0, 0)[1:3]))
  usage <- list(input_tokens = tokens[[1]])
  if (tokens[[3]] != 0L) usage$input_tokens_cache_read <- tokens[[3]]
  usage$output_tokens <- tokens[[2]]
  usage
}

# One score convention for every benchmark: a number in [0, 1].

#' Scores as numbers in `[0, 1]`
#'
#' @description
#' Every predictivebench task stores its scores as doubles in `[0, 1]` (`NA` for a sample
#' that could not be scored), so [vitals::vitals_bind()] combines tasks of different
#' benchmarks (it fails on a double `score` next to an ordered factor) and a mean of scores
#' is an accuracy. Numbers rather than vitals' `I < P < C` factor because several
#' benchmarks score on a continuous scale (FutureX's squared-error and F1 scores, probsem's
#' probabilities) that a three-level factor would round away, while a factor is a number
#' without loss: `as_score()` maps `I` to 0, `P` to 0.5 and `C` to 1.
#'
#' Every scorer of the package makes its scores with one internal helper (`score_values()`),
#' so they are doubles from the start; `ResultsTask` still applies `as_score()` to whatever a
#' scorer returns, for scorers of your own (vitals' `model_graded_qa()` gives a factor) and
#' for logs written before scores were numbers.
#'
#' @param x Scores: numbers in `[0, 1]`, logicals, or a factor or character vector with
#'   values among `I`, `P`, `C`.
#' @returns A double vector as long as `x`.
#' @noRd
as_score <- function(x) {
  if (is.factor(x)) x <- as.character(x)
  if (is.logical(x)) return(as.double(x))
  if (is.character(x)) {
    known <- is.na(x) | x %in% c("I", "P", "C")
    if (!all(known)) {
      abort_pb("Score {.val {x[!known][1]}} is not a number, I, P or C.", "argument",
               row = which(!known)[1])
    }
    return(unname(c(I = 0, P = 0.5, C = 1)[x]))
  }
  if (!is.numeric(x)) {
    abort_pb("Scores must be numbers, logicals or I/P/C, not {.obj_type_friendly {x}}.",
             "argument")
  }
  score_values(x)
}

# The one way a scorer of the package makes its scores: TRUE/FALSE or a grade in [0, 1] becomes
# a double in [0, 1]; NA (or `unscored`) could not be scored; outside [0, 1] is a scorer's bug.
score_values <- function(x, unscored = NULL, call = rlang::caller_env()) {
  if (!is.logical(x) && !is.numeric(x)) {
    abort_pb("Scores must be numbers or logicals, not {.obj_type_friendly {x}}.", "argument",
             call = call)
  }
  x <- as.double(x)
  if (!is.null(unscored)) x[unscored] <- NA_real_
  outside <- !is.na(x) & (x < 0 | x > 1)
  if (any(outside)) {
    abort_pb("Score {x[outside][1]} is outside [0, 1].", "argument", row = which(outside)[1],
             call = call)
  }
  x
}
