# Token and cost accounting per sample, so that logs count every request exactly once.

#' Sum a sample's requests into usage metadata
#'
#' A benchmark that sends several requests for one sample (votes, a judge call per answer,
#' one log-probability request per query) stores their sum in the sample's metadata with
#' `usage_metadata()`; `ResultsTask` logs model usage from these fields, so the log counts
#' every request, and a cached request costs nothing (as in `generate_responses()`).
#' `set_chat_usage()` puts such a sum on a chat's last assistant turn, so the chat vitals
#' logs for the sample carries the sample's whole usage.
#'
#' @param responses A tibble from `generate_responses()` (`cached`, `input_tokens`,
#'   `output_tokens`, `cost`).
#' @param rows The rows of `responses` that belong to the sample.
#' @returns `usage_metadata()`: a list with `cached` (every request came from the cache),
#'   `input_tokens`, `output_tokens` and `cost`, to include in `solver_metadata` or
#'   `scorer_metadata`. `set_chat_usage()`: a clone of `chat`.
#' @noRd
usage_metadata <- function(responses, rows = seq_len(nrow(responses))) {
  needed <- c("cached", "input_tokens", "output_tokens", "cost")
  if (!is.data.frame(responses) || !all(needed %in% names(responses))) {
    abort_pb("{.arg responses} must come from {.fn generate_responses}.", "argument")
  }
  list(
    cached = all(responses$cached[rows]),
    input_tokens = sum(responses$input_tokens[rows], na.rm = TRUE),
    output_tokens = sum(responses$output_tokens[rows], na.rm = TRUE),
    cost = sum(responses$cost[rows])
  )
}

#' @param chat An ellmer chat with at least one assistant turn.
#' @param input_tokens,output_tokens,cost The sample's totals.
#' @noRd
set_chat_usage <- function(chat, input_tokens, output_tokens, cost = NA_real_) {
  turns <- chat$get_turns()
  assistant <- which(vapply(turns, function(t) identical(t@role, "assistant"), TRUE))
  if (!length(assistant)) return(chat)
  last <- assistant[[length(assistant)]]
  others <- turn_usage(turns[setdiff(assistant, last)])
  t <- turns[[last]]
  turns[[last]] <- ellmer::AssistantTurn(
    contents = t@contents, json = t@json,
    tokens = c(max(0, input_tokens - others[[1]]), max(0, output_tokens - others[[2]]), 0),
    cost = if (is.na(cost)) NA_real_ else max(0, cost - others[[3]]),
    duration = t@duration, finish_reason = t@finish_reason
  )
  chat$clone()$set_turns(turns)
}

# Tokens and cost summed over assistant turns. A paid turn (with tokens) at no known price
# makes the sum NA, never 0, as the engine's; a turn without tokens (replayed) cost nothing.
turn_usage <- function(turns) {
  if (!length(turns)) return(c(0, 0, 0))
  rowSums(vapply(turns, function(t) {
    tokens <- zero_na(t@tokens[1:2])
    cost <- as.double(t@cost)
    if (is.na(cost) && sum(tokens) == 0) cost <- 0
    c(tokens, cost)
  }, c(1, 1, 1)))
}

chat_usage <- function(chat) {
  turns <- Filter(function(t) identical(t@role, "assistant"), chat$get_turns())
  turn_usage(turns)
}

# Per-sample usage from metadata, or from the chat when it has no token counts (`from_meta`).
sample_usage <- function(meta, chats) {
  n <- length(chats)
  out <- matrix(0, n, 3)
  from_meta <- rep(FALSE, n)
  for (i in seq_len(n)) {
    m <- meta[[i]]
    if (is.list(m) && any(c("input_tokens", "output_tokens") %in% names(m))) {
      out[i, ] <- c(zero_na(c(m$input_tokens %||% 0, m$output_tokens %||% 0)),
                    as.double(m$cost %||% NA))
      from_meta[[i]] <- TRUE
    } else if (!is.null(chats[[i]])) {
      out[i, ] <- chat_usage(chats[[i]])
    } else {
      # no request and no chat (a scorer without a judge): no tokens, and no price to add
      out[i, 3] <- NA_real_
    }
  }
  list(usage = out, from_meta = from_meta)
}

# The solver chats to log, each sample's model usage and the header's (the sum over samples),
# so Inspect's per-sample and per-log totals agree.
run_usage <- function(samples, solver_meta, scorer_meta) {
  chats <- samples$solver_chat
  n <- length(chats)
  solver <- sample_usage(solver_meta, chats)
  for (i in which(solver$from_meta)) {
    # most chats hold one answer whose tokens already are the sample's: leave those as they are
    turn <- last_turn_of(chats[[i]])
    last <- zero_na(S7::prop(turn, "tokens")[1:2])
    if (!identical(last, solver$usage[i, 1:2])) {
      chats[[i]] <- set_chat_usage(chats[[i]], solver$usage[i, 1], solver$usage[i, 2],
                                   solver$usage[i, 3])
    }
  }
  models <- vapply(chats, chat_model_label, "")
  usage <- solver$usage
  owner <- seq_len(n)
  scorer_chats <- if ("scorer_chat" %in% names(samples)) samples$scorer_chat
  if (!is.null(scorer_meta) || !is.null(scorer_chats)) {
    scorer_chats <- scorer_chats %||% vector("list", n)
    scorer_meta <- scorer_meta %||% vector("list", n)
    scorer <- sample_usage(scorer_meta, scorer_chats)
    scorer_models <- vapply(seq_along(scorer_chats), function(i) {
      if (is.null(scorer_chats[[i]])) models[[i]] else chat_model_label(scorer_chats[[i]])
    }, "")
    members <- members_usage(scorer_meta)
    alone <- setdiff(seq_len(n), members$owner)
    models <- c(models, scorer_models[alone], members$models)
    usage <- rbind(usage, scorer$usage[alone, , drop = FALSE], members$usage)
    owner <- c(owner, alone, members$owner)
  }
  rows_of <- split(seq_along(owner), factor(owner, levels = seq_len(n)))
  per_sample <- lapply(rows_of, function(rows) {
    usage_entries(usage[rows, , drop = FALSE], models[rows])
  })
  names(per_sample) <- NULL
  list(solver_chats = chats, samples = per_sample, header = usage_entries(usage, models))
}

# A panel's samples' usage, each judge's under its own model (`judges_usage`): one row per
# sample and model, with its sample (`owner`); their JSON texts are read in one parse.
members_usage <- function(meta) {
  judges_usage_rows(vapply(meta, function(m) {
    text <- if (is.list(m)) m$judges_usage
    if (rlang::is_string(text)) text else NA_character_
  }, ""))
}

judges_usage_rows <- function(texts) {
  at <- which(!is.na(texts))
  empty <- list(owner = integer(), models = character(), usage = matrix(0, 0, 3))
  if (!length(at)) return(empty)
  parsed <- jsonlite::parse_json(paste0("[", paste(texts[at], collapse = ","), "]"))
  owner <- rep(at, lengths(parsed))
  entries <- unlist(parsed, recursive = FALSE, use.names = FALSE)
  number <- function(x) if (is.null(x)) NA_real_ else as.double(x)
  usage <- vapply(entries, function(e) {
    c(number(e$input_tokens), number(e$output_tokens), number(e$cost))
  }, c(1, 1, 1))
  list(owner = owner, models = unlist(lapply(parsed, names), use.names = FALSE),
       usage = matrix(t(usage), ncol = 3))
}

# The scorer's judge as the header names it: a panel's label, else the scorer chat's model.
scorer_judge_name <- function(samples) {
  if (!"scorer_chat" %in% names(samples) || is.null(samples$scorer_chat[[1]])) return(NULL)
  meta <- if ("scorer_metadata" %in% names(samples)) samples$scorer_metadata[[1]]
  if (is.list(meta) && rlang::is_string(meta$judge)) return(meta$judge)
  samples$scorer_chat[[1]]$get_model()
}

# Inspect's ModelUsage per model, from rows of (input, output, cost); the total cost is left
# out when a request with tokens has no known cost (see known_cost()).
usage_entries <- function(usage, models) {
  keys <- unique(models)
  out <- lapply(keys, function(k) {
    rows <- usage[models == k, , drop = FALSE]
    entry <- list(input_tokens = sum(rows[, 1]), output_tokens = sum(rows[, 2]),
                  total_tokens = sum(rows[, 1:2]), input_tokens_cache_write = 0,
                  input_tokens_cache_read = 0)
    entry$total_cost <- na_null(known_cost(rows[, 3], rowSums(rows[, 1:2, drop = FALSE])))
    entry
  })
  names(out) <- keys
  out
}

# Every total of cost is this one: NA when a request was paid (has tokens) at no known price,
# or when none has a price; else the sum.
known_cost <- function(cost, tokens) {
  cost <- as.double(cost)
  if (any(is.na(cost) & zero_na(tokens) > 0) || (length(cost) && all(is.na(cost)))) {
    return(NA_real_)
  }
  sum(cost, na.rm = TRUE)
}

na_null <- function(x) if (is.na(x)) NULL else x

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
