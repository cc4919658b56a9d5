# Provider batch APIs: prompts not in the cache go through ellmer::batch_chat().

# Sends `prompts` as one provider batch through ellmer::batch_chat(), its state file in the cache
# named from the keys, so the same call after quitting R resumes the batch instead of paying for a
# new one. Values: a record, an error, or NULL while running (`wait = FALSE`). Once ended they
# carry the state file as attribute "done": the caller deletes it after caching, so failed items
# go into a new batch next time.
batch_requests <- function(chat, prompts, keys, dir, wait, keep_json) {
  path <- batch_state_path(dir, keys)
  # Redirects are followed on no route: the batch API's requests carry the key too.
  chat <- chat_without_redirects(chat$clone())
  # what the provider says is delivered without the key (some gateways repeat it)
  secrets <- chat_credentials(chat)
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  read_batch_state(path, length(prompts))
  # ellmer checks once per call and the waiting is here, so a batch that ends without completing
  # (an expired OpenAI batch, which ellmer 0.5.0 would poll forever) ends the wait with an error.
  repeat {
    chats <- tryCatch(
      ellmer::batch_chat(chat, prompts, path = path, wait = FALSE),
      error = function(e) abort_batch(redact_error(e, secrets), path)
    )
    if (!is.null(chats)) break
    state <- read_batch_state(path)
    if (openai_batch_expired(chat, state)) {
      values <- openai_expired_results(chat, state, length(prompts), keep_json)
      return(structure(redact_values(values, secrets), done = path))
    }
    check_batch_not_ended(state, path, secrets)
    if (!wait) {
      batch_pending_message(path, state, length(prompts))
      return(vector("list", length(prompts)))
    }
    Sys.sleep(getOption("predictivebench.batch_poll_seconds", 2))
  }
  results <- read_batch_state(path)$results
  batch_id <- read_batch_state(path)$batch$id %||% NA_character_
  values <- lapply(seq_along(chats), function(j) {
    if (is.null(chats[[j]])) return(batch_item_error(results[[j]], batch_id))
    turn <- last_turn_of(chats[[j]])
    entry_from_turn(turn, NA_real_, keep_json)
  })
  structure(redact_values(values, secrets), done = path)
}

# The errors among a batch's values, without the credentials in `secrets`.
redact_values <- function(values, secrets) {
  lapply(values, function(v) if (inherits(v, "error")) redact_error(v, secrets) else v)
}

batch_state_path <- function(dir, keys) {
  file.path(dir, "batches", paste0("batch-", substr(cache_key(keys), 1, 24), ".json"))
}

# The state ellmer keeps, or NULL before submission. A file that is not JSON is an error naming
# it: deleting it submits (and bills) the batch again, so that is left to the user.
read_batch_state <- function(path, n = NULL, call = rlang::caller_env()) {
  if (!file.exists(path)) return(NULL)
  state <- tryCatch(jsonlite::read_json(path), error = function(e) {
    abort_pb(c(
      "The batch state file is not valid JSON; the batch it recorded cannot be resumed.",
      i = "Delete it to submit the prompts again (a new batch, billed again)."
    ), "batch_state", file = path, parent = e, call = call)
  })
  check_batch_state(state, path, n, call = call)
}

# ellmer 0.5.0's BatchJob trusts the state it reads back: JSON of another shape fails on an
# unrelated line, so it is checked here, naming the field.
batch_stages <- c("submitting", "waiting", "retrieving", "done")

check_batch_state <- function(state, path, n = NULL, call = rlang::caller_env()) {
  malformed <- function(field, problem) {
    abort_pb(c(
      "The batch state file is malformed: {problem}.",
      i = "It was not written by {.fn ellmer::batch_chat}, or was changed since.",
      i = "Delete it to submit the prompts again (a new batch, billed again)."
    ), "batch_state", file = path, field = field, call = call)
  }
  if (!is.list(state) || is.null(names(state))) malformed(NULL, "it is not a JSON object")
  if (!rlang::is_string(state$stage) || !state$stage %in% batch_stages) {
    malformed("stage", paste("the stage is not one of", paste(batch_stages, collapse = ", ")))
  }
  if (!is.list(state$hash) || !length(state$hash) || is.null(names(state$hash))) {
    malformed("hash", "the hash of the chat and prompts is missing")
  }
  if (!is.numeric(state$started_at) || length(state$started_at) != 1) {
    malformed("started_at", "the start time is not a number")
  }
  if (state$stage != "submitting" &&
      !(is.list(state$batch) && rlang::is_string(state$batch$id) && nzchar(state$batch$id))) {
    malformed("batch", "it records no batch id")
  }
  if (!is.null(state$results) && !is.list(state$results)) {
    malformed("results", "the results are not a list")
  }
  if (!is.null(n) && state$stage == "done" && length(state$results) != n) {
    malformed("results", paste(length(state$results), "results for", n, "prompts"))
  }
  state
}

abort_batch <- function(e, path) {
  if (inherits(e, "predictivebench_error")) stop(e)
  state <- tryCatch(read_batch_state(path), error = function(e2) NULL)
  id <- state$batch$id
  if (grepl("match stored value", conditionMessage(e))) {
    abort_pb(c(
      "The batch state file belongs to another chat or other prompts (ellmer's hash check).",
      i = "Delete it, or use the chat and prompts it was made with."
    ), "batch_state", file = path, parent = e)
  }
  abort_pb(c(
    if (is.null(id)) "The provider did not accept the batch." else
      "Batch {.val {id}} failed: {conditionMessage(e)}",
    i = "Answers already in the cache are kept; run the call again to retry.",
    i = if (!is.null(id)) "Its state is in {.file {path}}."
  ), "batch", file = path, batch_id = id, parent = e)
}

# A batch that stopped without completing: OpenAI's "expired", "failed" or "cancelled".
check_batch_not_ended <- function(state, path, secrets = character()) {
  status <- state$batch$status
  if (!rlang::is_string(status) || !status %in% c("expired", "failed", "cancelled")) {
    return(invisible())
  }
  id <- state$batch$id
  reason <- state$batch$errors$data[[1]]$message
  if (!is.null(reason)) reason <- redact_text(reason, secrets)
  abort_pb(c(
    "Batch {.val {id}} ended {.val {status}} without completing.",
    i = if (!is.null(reason)) "The provider says: {reason}",
    i = "Answers already in the cache are kept; delete the state file to submit again."
  ), "batch", file = path, batch_id = id)
}

# An expired OpenAI batch: finished requests are in its output file, the rest in its error file.
openai_batch_expired <- function(chat, state) {
  identical(state$batch$status, "expired") &&
    inherits(chat$get_provider(), "ellmer::ProviderOpenAI") &&
    !is.null(ellmer_base_request(chat))  # R/engine-compat-ellmer.R
}

openai_expired_results <- function(chat, state, n, keep_json) {
  id <- state$batch$id
  values <- rep(list(batch_item_error(list(type = "expired"), id)), n)
  lines <- c(openai_batch_file(chat, state$batch$output_file_id),
             openai_batch_file(chat, state$batch$error_file_id))
  for (line in lines) {
    x <- jsonlite::parse_json(line)
    j <- suppressWarnings(as.integer(sub("^chat-", "", x$custom_id %||% "")))
    if (is.na(j) || j < 1 || j > n) next
    values[[j]] <- if (identical(as.integer(x$response$status_code), 200L)) {
      tryCatch(entry_from_turn(ellmer_turn(chat, x$response$body), NA_real_, keep_json),
               error = identity)
    } else {
      batch_item_error(x$response %||% x, id)
    }
  }
  values
}

openai_batch_file <- function(chat, file_id) {
  if (!rlang::is_string(file_id)) return(character())
  req <- httr2::req_url_path_append(ellmer_base_request(chat), "files", file_id, "content")
  lines <- strsplit(httr2::resp_body_string(httr2::req_perform(req)), "\n")[[1]]
  lines[nzchar(lines)]
}

batch_pending_message <- function(path, state, n) {
  id <- state$batch$id %||% "?"
  cli::cli_inform(c(
    "Batch {.val {id}} ({n} request{?s}) was submitted and is still running.",
    i = "Run the same call again (e.g. {.code $eval()}) to collect the answers when it ends.",
    i = "Its state is in {.file {path}}."
  ), class = "predictivebench_message_batch_pending")
}

# The provider's error for one failed item, in either batch shape: OpenAI (an HTTP status
# and body, or an error line with no response) and Anthropic (errored / expired / canceled).
batch_item_error <- function(result, batch_id) {
  message <- result$body$error$message %||% result$error$error$message %||%
    result$error$message %||%
    (if (!is.null(result$type)) paste("The request", result$type)) %||%
    (if (!is.null(result$status_code)) paste("HTTP", result$status_code)) %||%
    "No result"
  simpleError(paste0("Batch ", batch_id, ": ", message))
}
