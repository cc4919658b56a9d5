# The log a ResultsTask writes, in Inspect AI's EvalLog shape. Its rooms are R/log-json.R,
# R/log-samples.R, R/log-write.R (log_writer(), write_log()) and R/log-read.R
# (read_log_header(), log_samples(), log_usage()). What stays here: the samples written
# straight from their chats (direct_samples() reaches vitals' internals through
# vitals_internal(), R/results-compat-vitals.R) and the model labels.
#
# What differs from the log vitals (0.4.0) writes, and why:
# * Numbers: exact (exact_json()); vitals writes 4 digits (0.8333333 as 0.8333).
# * Metadata: flat key-value pairs (flat_metadata()), read back by log_samples(); vitals
#   writes `str()` lines.
# * Usage: every request of a sample per model (votes, judge calls, log-probability
#   requests), the header's their sum (run_usage()); vitals counts the solver chats only.
# * Inspect's reader: the samples' own ids (vitals: 1..n); the headline metric first, "NaN"
#   when undefined (metric_json()), other undefined metrics left out, all named in
#   `eval.metadata.not_computed`; a sample scored `NA` has no `scores` (Inspect's
#   "unscored"), its answer and explanation in its metadata field `unscored_score`.
# * Size: samples one compact line each, each long text once in its attachments
#   (condense_sample()): ~2.1 KB a FutureX-shaped sample instead of 8.3 KB.
# * Translation: a prompt and a text answer are written straight from the two turns
#   (direct_samples()), other chats through vitals' translators.
# * Times: to the microsecond, as Inspect writes them (vitals: to the second).

#' A task's cost by model, as logged
#'
#' `task_usage()` sums a task's `$get_cost()` per model (solver and scorer together), naming
#' models as the log does (`"<provider>/<model>"`), so it can be compared with `log_usage()`.
#'
#' @param task An evaluated [vitals::Task].
#' @returns A tibble: `model`, `input_tokens`, `output_tokens`, `total_cost`.
#' @noRd
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

# ---- a log's samples straight from their chats (issue 37) -----------------------------------
# vitals' translators (vitals_translate_samples()) cost ~2 ms a sample: they walk each chat's
# turns several times, build events the log then drops (the sample's init, the solver's
# steps, the provider's `call`) and draw every id from R's random stream. Most samples are a
# prompt and one text answer; for a chunk of those, direct_samples() writes the sample the
# condensed translation gives (condense_sample(): the same fields in the same order, each
# text of more than 100 characters an attachment) in one pass over each chat's two turns.
# Any other chunk (tools, reasoning, images, several turns, a scorer's chat) goes through
# vitals' translators. test-results-log.R compares both on the same samples.

# The samples of `rows` (a chunk of scored samples whose `solver_chat` carries the logged
# usage), or NULL when a chat is other than a prompt and a text answer. `scorer` is the
# scorer's name, `timestamps` the chunk's (vitals_log_state()).
direct_samples <- function(rows, scorer, timestamps) {
  if ("scorer_chat" %in% names(rows)) return(NULL)
  chats <- rows$solver_chat
  turns <- lapply(chats, function(chat) chat$get_turns())
  if (!all(vapply(turns, is_prompt_and_answer, TRUE))) return(NULL)
  n <- length(chats)
  ids <- message_ids(4L * n + sum(vapply(chats, has_system_prompt, TRUE)))
  next_id <- 0L
  id <- function() {
    next_id <<- next_id + 1L
    ids[[next_id]]
  }
  stamp <- log_timestamp(timestamps$solve$started_at)
  stop_reason <- vitals_internal("turn_stop_reason")
  models <- direct_models(chats)
  has_epoch <- "epoch" %in% names(rows)
  has_explanation <- "scorer_explanation" %in% names(rows)
  start <- 0
  lapply(seq_len(n), function(i) {
    attachments <- attachment_pool()
    refer <- attachments$refer
    chat <- chats[[i]]
    model <- models$model[[i]]
    prompt <- turns[[i]][[1]]
    answer <- turns[[i]][[2]]
    question <- refer(S7::prop(prompt, "text"))
    blocks <- lapply(S7::prop(answer, "contents"), function(content) {
      list(type = "text", text = refer(S7::prop(content, "text")))
    })
    if (!length(blocks)) blocks <- list(list(type = "text", text = refer(S7::prop(answer, "text"))))
    # one text is written as the message's content itself, as Inspect writes a plain reply
    if (length(blocks) == 1) blocks <- blocks[[1]]$text
    system <- chat$get_system_prompt()
    messages <- list(
      list(id = id(), content = question, source = "input", role = "user"),
      list(id = id(), content = blocks, source = "generate", model = model, role = "assistant")
    )
    if (!is.null(system)) {
      messages <- c(list(list(id = id(), content = refer(system), role = "system")), messages)
    }
    # vitals' working times: each answer's duration, started where the chunk's answers
    # before it ended
    took <- S7::prop(answer, "duration")
    took <- if (length(took) == 1 && !is.na(took)) took else 0
    event <- list(
      timestamp = stamp, working_start = start, event = "model",
      model = models$label[[i]],
      # the event's messages are the sample's again: content and role only (ids, sources
      # and the model are optional in Inspect's schema and said by the messages above)
      input = list(list(content = question, role = "user")),
      tools = list(), tool_choice = "none", config = models$config[[i]],
      output = list(
        model = model,
        choices = list(list(
          message = list(content = blocks, role = "assistant"),
          stop_reason = stop_reason(answer)
        )),
        usage = event_usage(S7::prop(answer, "tokens")), time = microseconds(took)
      ),
      working_time = microseconds(took)
    )
    start <<- start + took
    score <- list(
      value = rows$score[[i]], answer = as.character(rows$result[[i]]),
      explanation = if (has_explanation) rows$scorer_explanation[[i]] %||% scorer else scorer,
      metadata = list()
    )
    # (no NULL anywhere: the sample is written without nulls_as_objects(), see sample_json())
    structure(list(
      id = rows$id[[i]], epoch = if (has_epoch) as.integer(rows$epoch[[i]]) else 1L,
      input = S7::prop(prompt, "text"), target = as.character(rows$target[[i]]),
      messages = messages,
      scores = stats::setNames(list(score), scorer), metadata = empty_object(),
      store = empty_object(), events = list(event), model_usage = empty_object(),
      attachments = sorted_attachments(attachments$texts())
    ), predictivebench_direct = TRUE)
  })
}

# Each chat's model, its label as vitals writes it ("<provider>/<model>") and the model
# event's `config` (the request's max_tokens, when set), worked out once per provider and model.
direct_models <- function(chats) {
  model <- vapply(chats, function(chat) chat$get_model(), "")
  provider <- vapply(chats, function(chat) S7::prop(chat$get_provider(), "name"), "")
  key <- paste(provider, model, sep = "\r")
  first <- match(unique(key), key)
  params <- vitals_internal("chat_model_params")
  label <- vitals_internal("chat_provider_model")
  configs <- lapply(chats[first], function(chat) {
    max_tokens <- params(chat)$max_tokens
    if (is.null(max_tokens)) empty_object() else list(max_tokens = max_tokens)
  })
  labels <- vapply(chats[first], label, "")
  at <- match(key, unique(key))
  list(model = model, label = labels[at], config = configs[at])
}

# `n` message ids, unique within a log, drawn without touching R's random stream: Inspect's
# are 22 characters, as these (a run-wide random stem, then a counter).
message_ids <- function(n) {
  if (n == 0L) return(character())
  stem <- substr(unique_id(), 1, 13)
  sprintf("%s%09d", stem, seq_len(n))
}
