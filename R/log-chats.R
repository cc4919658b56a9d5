# Chats into log samples: the one translator, to Inspect's EvalSample condensed as
# condense_sample() leaves vitals'. Ids come from message_ids(), so writing a log never draws
# from R's random stream.

# The samples of `rows` (scored, with `solver_chat`, maybe `scorer_chat`).
log_samples_of <- function(rows, scorer, timestamps) {
  chats <- rows$solver_chat
  models <- chat_models(chats)
  ids <- id_counter()
  stamps <- list(solve = log_timestamp(timestamps$solve$started_at),
                 score = log_timestamp(timestamps$score$started_at %||% Sys.time()))
  judged <- "scorer_chat" %in% names(rows)
  has_epoch <- "epoch" %in% names(rows)
  has_explanation <- "scorer_explanation" %in% names(rows)
  start <- 0
  lapply(seq_along(chats), function(i) {
    attachments <- attachment_pool()
    refer <- attachments$refer
    chat <- chats[[i]]
    model <- models$model[[i]]
    turns <- chat$get_turns()
    messages <- chat_messages(chat, turns, model, refer, ids)
    solved <- model_events(turns, models, i, stamps$solve, start, refer)
    start <<- solved$end
    scorer_name <- scorer
    explanation <- if (has_explanation) rows$scorer_explanation[[i]] %||% scorer else scorer
    metadata <- list()
    scored <- list()
    if (judged) {
      judge <- rows$scorer_chat[[i]]
      scorer_name <- paste0(scorer, " (", judge$get_model(), ")")
      judge_turns <- judge$get_turns()
      explanation <- turn_text(judge_turns[[length(judge_turns)]])
      metadata <- list(grading = lapply(judge_turns, grading_message, ids = ids))
    }
    score <- list(value = rows$score[[i]], answer = as.character(rows$result[[i]]),
                  explanation = explanation, metadata = metadata)
    if (judged) {
      scored <- judge_events(judge, judge_turns, stamps$score, solved$end, refer,
                             list(score = score, target = as.character(rows$target[[i]])))
    }
    # (no NULL anywhere: the sample is written without nulls_as_objects(), see sample_json())
    structure(list(
      id = rows$id[[i]], epoch = if (has_epoch) as.integer(rows$epoch[[i]]) else 1L,
      input = sample_input(turns[[1]], refer), target = as.character(rows$target[[i]]),
      messages = messages,
      scores = stats::setNames(list(score), scorer_name), metadata = empty_object(),
      store = empty_object(), events = c(solved$events, scored),
      model_usage = empty_object(), attachments = sorted_attachments(attachments$texts())
    ), predictivebench_direct = TRUE)
  })
}

id_counter <- function() {
  stem <- substr(unique_id(), 1, 13)
  n <- 0L
  function() {
    n <<- n + 1L
    sprintf("%s%09d", stem, n)
  }
}

sample_input <- function(turn, refer) {
  content <- user_content(turn, refer = identity)
  if (is.character(content)) return(content)
  list(list(content = lapply(content, refer_block, refer = refer), source = "input",
            role = "user"))
}

# The chat's messages as Inspect's ChatMessage list (a turn of tool results: one `tool`
# message per result).
chat_messages <- function(chat, turns, model, refer, ids) {
  system <- chat$get_system_prompt()
  out <- if (!is.null(system)) list(list(id = ids(), content = refer(system), role = "system"))
  for (turn in turns) out <- c(out, turn_messages(turn, model, refer, ids))
  out
}

turn_messages <- function(turn, model, refer, ids) {
  role <- S7::prop(turn, "role")
  if (role == "assistant") {
    message <- list(id = ids(), content = assistant_content(turn, refer), source = "generate")
    calls <- tool_calls_of(turn)
    if (length(calls)) message$tool_calls <- calls
    return(list(c(message, list(model = model, role = "assistant"))))
  }
  results <- tool_results_of(turn)
  if (length(results) && length(results) == length(S7::prop(turn, "contents"))) {
    return(lapply(results, tool_message, refer = refer, ids = ids))
  }
  list(list(id = ids(), content = user_content(turn, refer), source = "input", role = role))
}

user_content <- function(turn, refer) {
  contents <- S7::prop(turn, "contents")
  if (!length(contents) || all(vapply(contents, is_text_content, TRUE))) {
    return(refer(turn_text(turn)))
  }
  lapply(contents, function(content) refer_block(content_block(content), refer))
}

# An assistant turn's content (tool requests are its `tool_calls`), one text as the text
# itself, as Inspect writes a plain reply.
assistant_content <- function(turn, refer) {
  blocks <- list()
  for (content in S7::prop(turn, "contents")) {
    if (inherits(content, "ellmer::ContentToolRequest")) next
    block <- if (inherits(content, "ellmer::ContentThinking")) {
      thinking <- list(type = "reasoning", reasoning = S7::prop(content, "thinking"))
      thinking$signature <- S7::prop(content, "extra")$signature
      thinking
    } else {
      content_block(content)
    }
    blocks <- c(blocks, list(refer_block(block, refer)))
  }
  if (!any(vapply(blocks, function(b) identical(b$type, "text"), TRUE))) {
    blocks <- c(blocks, list(list(type = "text", text = refer(turn_text(turn)))))
  }
  one_text(blocks)
}

# One content as Inspect's block: text, an image (as a data URI), else ellmer's printed text.
content_block <- function(content) {
  if (is_text_content(content)) return(list(type = "text", text = S7::prop(content, "text")))
  if (inherits(content, "ellmer::ContentImageInline")) {
    type <- S7::prop(content, "type") %||% "image/png"
    return(list(type = "image",
                image = paste0("data:", type, ";base64,", S7::prop(content, "data"))))
  }
  if (inherits(content, "ellmer::ContentImageRemote")) {
    return(list(type = "image", image = S7::prop(content, "url")))
  }
  list(type = "text", text = paste(utils::capture.output(print(content)), collapse = "\n"))
}

refer_block <- function(block, refer) {
  for (field in intersect(names(block), c("text", "reasoning", "image"))) {
    block[[field]] <- refer(block[[field]])
  }
  block
}

is_text_content <- function(content) inherits(content, "ellmer::ContentText") &&
  !inherits(content, "ellmer::ContentThinking")

turn_text <- function(turn) S7::prop(turn, "text")

tool_results_of <- function(turn) {
  Filter(function(x) inherits(x, "ellmer::ContentToolResult"), S7::prop(turn, "contents"))
}

tool_calls_of <- function(turn) {
  requests <- Filter(function(x) inherits(x, "ellmer::ContentToolRequest"),
                     S7::prop(turn, "contents"))
  lapply(requests, function(request) {
    list(id = S7::prop(request, "id"), `function` = S7::prop(request, "name"),
         arguments = tool_arguments(request))
  })
}

tool_arguments <- function(request) {
  arguments <- S7::prop(request, "arguments")
  if (length(arguments)) arguments else empty_object()
}

tool_message <- function(result, refer, ids) {
  request <- S7::prop(result, "request")
  message <- list(id = ids(), content = refer(tool_result_text(result)), role = "tool",
                  tool_call_id = S7::prop(request, "id"),
                  `function` = S7::prop(request, "name"))
  error <- S7::prop(result, "error")
  if (!is.null(error)) message$error <- list(type = "unknown", message = as.character(error))
  message
}

tool_result_text <- function(result) {
  error <- S7::prop(result, "error")
  if (!is.null(error)) return(as.character(error))
  value <- S7::prop(result, "value")
  if (is.atomic(value)) return(paste0(value, collapse = "\n"))
  paste(utils::capture.output(print(value)), collapse = "\n")
}

# A model event per assistant turn of the solver's chat and a tool event per tool result;
# `start` is where the chunk's earlier answers ended (vitals' working times).
model_events <- function(turns, models, i, stamp, start, refer) {
  events <- list()
  before <- list()
  for (turn in turns) {
    role <- S7::prop(turn, "role")
    if (role == "assistant") {
      took <- turn_seconds(turn)
      events <- c(events, list(model_event(turn, before, models$label[[i]], models$model[[i]],
                                           models$config[[i]], stamp, start, took, refer)))
      start <- start + took
    }
    for (result in tool_results_of(turn)) {
      request <- S7::prop(result, "request")
      events <- c(events, list(list(
        timestamp = stamp, working_start = start, event = "tool", type = "function",
        id = S7::prop(request, "id"), `function` = S7::prop(request, "name"),
        arguments = tool_arguments(request), result = refer(tool_result_text(result)),
        events = list(), working_time = 0
      )))
    }
    before <- c(before, lapply(turn_messages(turn, NULL, refer, function() NULL),
                               event_message))
  }
  list(events = events, end = start)
}

model_event <- function(turn, input, label, model, config, stamp, start, took, refer) {
  message <- list(content = assistant_content(turn, refer))
  calls <- tool_calls_of(turn)
  if (length(calls)) message$tool_calls <- calls
  message$role <- "assistant"
  list(
    timestamp = stamp, working_start = start, event = "model", model = label,
    input = input, tools = list(), tool_choice = if (length(calls)) "auto" else "none",
    config = config,
    output = list(model = model,
                  choices = list(list(message = message, stop_reason = stop_reason(turn))),
                  usage = event_usage(S7::prop(turn, "tokens")), time = microseconds(took)),
    working_time = microseconds(took)
  )
}

# The judge's step, where vitals' reader splits a sample's chats.
judge_events <- function(judge, turns, stamp, start, refer, scored) {
  models <- chat_models(list(judge))
  last <- turns[[length(turns)]]
  input <- lapply(unlist(lapply(turns[-length(turns)], turn_messages, model = NULL,
                                refer = refer, ids = function() NULL), recursive = FALSE),
                  event_message)
  step <- function(action) {
    list(timestamp = stamp, working_start = start, event = "step", action = action,
         type = "scorer", name = "model_graded_qa")
  }
  list(step("begin"),
       model_event(last, input, models$label[[1]], models$model[[1]], models$config[[1]],
                   stamp, start, turn_seconds(last), refer),
       c(list(timestamp = stamp, working_start = start, event = "score"), scored,
         list(intermediate = FALSE)),
       step("end"))
}

# A judge's turn in the score's `grading` metadata, as vitals writes it.
grading_message <- function(turn, ids) {
  if (S7::prop(turn, "role") == "user") {
    return(list(id = ids(), content = turn_text(turn), role = "user"))
  }
  list(id = ids(), content = list(list(type = "text", text = turn_text(turn))),
       source = "generate", role = "assistant")
}

turn_seconds <- function(turn) {
  if (S7::prop(turn, "role") != "assistant") return(0)
  took <- S7::prop(turn, "duration")
  if (length(took) == 1 && !is.na(took)) took else 0
}

stop_reason <- function(turn) {
  reason <- S7::prop(turn, "finish_reason")
  if (length(reason) == 1 && !is.na(reason)) {
    known <- c(success = "stop", tool_use = "tool_calls", max_tokens = "max_tokens",
               stop_sequence = "stop", content_filter = "content_filter",
               context_window = "model_length")
    return(if (reason %in% names(known)) unname(known[[reason]]) else "unknown")
  }
  if (length(tool_calls_of(turn))) "tool_calls" else "stop"
}

# Each chat's model, label and event `config`, worked out once per provider and model.
chat_models <- function(chats) {
  model <- vapply(chats, function(chat) chat$get_model(), "")
  provider <- vapply(chats, function(chat) S7::prop(chat$get_provider(), "name"), "")
  key <- paste(provider, model, sep = "\r")
  first <- match(unique(key), key)
  configs <- lapply(chats[first], function(chat) {
    max_tokens <- S7::prop(chat$get_model_object(), "params")$max_tokens
    if (is.null(max_tokens)) empty_object() else list(max_tokens = max_tokens)
  })
  labels <- vapply(chats[first], chat_model_label, "")
  at <- match(key, unique(key))
  list(model = model, label = labels[at], config = configs[at])
}

# A model's name in a log, as vitals writes it: "<provider>/<model>".
chat_model_label <- function(chat) {
  paste0(provider_label(chat$get_provider()@name), "/", chat$get_model())
}

provider_label <- function(name) {
  prefix <- tolower(gsub("[^[:alnum:]]+", "_", name))
  prefix[prefix == "lm_studio"] <- "lmstudio"
  prefix[prefix == "portkeyai"] <- "portkey"
  prefix
}

# One id per call, unlike anything from R's random stream (which set.seed() repeats).
unique_id <- local({
  count <- 0L
  function() {
    count <<- count + 1L
    stamp <- list(format(Sys.time(), "%Y-%m-%d %H:%M:%OS6"), Sys.getpid(), count,
                  tempfile())
    substr(digest::digest(stamp, algo = "sha256"), 1, 22)
  }
})
