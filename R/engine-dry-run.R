# estimate_cost()'s dry run inside the engine: requests are answered where they would be sent,
# without a request, a turn or a JSON body each. A request keeps only what its price needs (its
# chat's template and the prompt's text); tokens are counted at the end in bulk over distinct
# texts (bench/dry-run.R: ProcessBench's 27,200 requests).

# The dry run's context, the request session's `price` (R/engine-session.R), never a setting.
# It collects `hits` (real cache hits), `templates`, `chunks` (requests answered here) and
# `answered` (their keys: a request asked again is a hit of this run, as in a real run).
# Requests the engine can't answer here (no ellmer internals; vitals' own solvers and scorers)
# go to httr2, where estimate_cost()'s mock answers and records them.
new_dry_run <- function(answer = "") {
  context <- new.env(parent = emptyenv())
  context$answer <- answer
  context$hits <- 0L
  context$templates <- list()
  context$chunks <- list()
  context$answered <- character()
  context$requests <- list()  # bodies seen by the httr2 mock
  context$batch <- FALSE
  class(context) <- "predictivebench_dry_run"
  context
}

# Inside a dry run (`context`) a batch becomes requests sent one by one (the mock answers),
# marked for the batch price until the caller returns; outside, `batch` unchanged.
dry_run_batch <- function(batch, context, frame = parent.frame()) {
  if (!batch || is.null(context)) return(batch)
  context$batch <- TRUE
  withr::defer(context$batch <- FALSE, envir = frame)
  FALSE
}

# run_requests()'s hook: outside a dry run `todo` unchanged. Inside, gives every request its
# chat's placeholder record and returns those it could not answer (sent on, to the mock).
# Records are set a chat's rows at a time: one at a time copies the list (27,200 requests: ~6 s).
dry_run_answer <- function(context, state, chats, chat_index, prompts, keys, todo, hits) {
  if (is.null(context)) return(todo)
  context$hits <- context$hits + as.integer(hits)
  again <- todo[keys[todo] %in% context$answered]
  todo <- setdiff(todo, again)
  left <- integer()
  for (k in unique(chat_index[c(again, todo)])) {
    at <- dry_run_template_at(context, chats[[k]])
    rows <- todo[chat_index[todo] == k]
    if (is.na(at)) {
      left <- c(left, rows)
      rows <- integer()
    }
    if (length(rows)) {
      texts <- lapply(prompts[rows], varying_texts, template = context$templates[[at]],
                      chat = chats[[k]])
      dry_run_record_requests(context, at, texts, keys[rows])
    }
    answered <- c(rows, again[chat_index[again] == k])
    record <- if (is.na(at)) dry_run_unanswerable() else context$templates[[at]]$record
    if (inherits(record, "error")) {
      state$errors[answered] <- conditionMessage(record)
    } else {
      state$records[answered] <- list(record)
    }
  }
  sort(left)
}

# echo_texts()'s hook, as dry_run_answer() is run_requests()'s; `read(body)` reads a mock body.
dry_run_completions <- function(context, endpoint, texts, keys, todo, hits, keep, max_tokens,
                                read) {
  if (is.null(context)) return(todo)
  context$hits <- context$hits + as.integer(hits)
  again <- todo[keys[todo] %in% context$answered]
  todo <- setdiff(todo, again)
  if (length(todo)) {
    template <- list(chat = NULL, model = endpoint$model, fixed = character(), chat_style = FALSE,
                     output = as.double(max_tokens))
    context$templates[[length(context$templates) + 1]] <- template
    dry_run_record_requests(context, length(context$templates), as.list(texts[todo]),
                            keys[todo])
  }
  for (i in c(again, todo)) {
    keep(i, read(fake_json("/completions", list(prompt = texts[[i]]), context$answer)))
  }
  integer()
}

dry_run_record_requests <- function(context, at, texts, keys) {
  context$chunks[[length(context$chunks) + 1]] <- list(template = at, texts = texts,
                                                         batch = context$batch)
  context$answered <- c(context$answered, keys)
}

# The index of `chat`'s template (made once per chat object); NA when ellmer can't build offline.
dry_run_template_at <- function(context, chat) {
  for (at in seq_along(context$templates)) {
    if (identical(context$templates[[at]]$chat, chat)) return(at)
  }
  if (!ellmer_fast_path_available()) return(NA_integer_)
  context$templates[[length(context$templates) + 1]] <- dry_run_template(chat, context$answer)
  length(context$templates)
}

dry_run_placeholder <- "predictivebench-dry-run-prompt-f3a9c71e"

# What ellmer would send for `chat`, built once (as request_template()): fixed messages, the text
# around the prompt, the output bound (times `n`), and the placeholder read by ellmer's parser.
dry_run_template <- function(chat, answer) {
  existing <- chat$get_turns(include_system_prompt = TRUE)
  offline <- chat_offline(chat)  # (nothing is sent: no key is read)
  req <- ellmer_request(offline, c(existing, list(user_turn_of(dry_run_placeholder))))
  body <- httr2::req_get_body(req, "reveal")
  url <- httr2::req_get_url(req)
  texts <- request_texts(body)
  at <- which(grepl(dry_run_placeholder, texts, fixed = TRUE))
  around <- if (length(at) == 1) {
    strsplit(paste0(texts[[at]], "\u0001"), dry_run_placeholder, fixed = TRUE)[[1]]
  }
  json <- fake_json(url, body, answer)
  record <- if (is.null(json)) dry_run_unanswerable() else {
    suppressWarnings(entry_from_turn(ellmer_turn(chat, json), 0, keep_json = TRUE))
  }
  list(chat = chat, offline = offline, model = body$model %||% chat$get_model(),
       fixed = if (length(around) == 2) texts[-at], chat_style = is.null(body$prompt),
       prefix = if (length(around) == 2) around[[1]],
       suffix = if (length(around) == 2) sub("\u0001$", "", around[[2]]),
       output = output_bound(body), record = record)
}

# The texts a request sends that vary with its prompt: the prompt's message, or (images, several
# parts) the messages after the template's fixed ones.
varying_texts <- function(prompt, template, chat) {
  if (rlang::is_string(prompt) && !is.null(template$prefix)) {
    return(paste0(template$prefix, prompt, template$suffix))
  }
  existing <- chat$get_turns(include_system_prompt = TRUE)
  texts <- request_texts(httr2::req_get_body(
    ellmer_request(template$offline %||% chat, c(existing, list(user_turn_of(prompt)))),
    "reveal"
  ))
  fixed <- seq_along(template$fixed)
  if (!length(fixed)) return(texts)
  if (!identical(texts[fixed], template$fixed)) {
    abort_pb("A request's fixed messages differ from its chat's template.", "internal")
  }
  texts[-fixed]
}

dry_run_unanswerable <- function() {
  simpleError("estimate_cost() can't answer this provider's API offline.")
}

# The bound a request body sets on output tokens (times its `n` choices), NA without one.
output_bound <- function(body) {
  limit <- body$max_completion_tokens %||% body$max_tokens %||% body$max_output_tokens
  if (is.null(limit)) NA_real_ else as.double(limit) * max(1, as.double(body$n %||% 1))
}

# A successful reply in the endpoint's API shape with the placeholder text; NULL for an unknown API.
fake_json <- function(url, body, answer) {
  n <- max(1L, as.integer(body$n %||% 1L))
  model <- body$model %||% "model"
  usage <- list(prompt_tokens = 1L, completion_tokens = 1L, total_tokens = 2L)
  if (grepl("/chat/completions$", url)) {
    choices <- lapply(seq_len(n), function(i) {
      list(index = i - 1L, message = list(role = "assistant", content = answer),
           finish_reason = "stop")
    })
    list(id = "estimate", object = "chat.completion", created = 1L, model = model,
         choices = choices, usage = usage)
  } else if (grepl("/completions$", url)) {
    tokens <- regmatches(body$prompt, gregexpr("\n| ?[^ \n]+| +", body$prompt))[[1]]
    list(id = "estimate", object = "text_completion", model = model,
         choices = list(list(index = 0L, text = body$prompt, finish_reason = "length",
                             logprobs = list(tokens = as.list(tokens),
                                             token_logprobs = as.list(rep(-1, length(tokens))),
                                             top_logprobs = NULL))),
         usage = list(prompt_tokens = length(tokens), completion_tokens = 0L,
                      total_tokens = length(tokens)))
  } else if (grepl("/messages$", url)) {
    list(id = "estimate", type = "message", role = "assistant", model = model,
         content = list(list(type = "text", text = answer)), stop_reason = "end_turn",
         usage = list(input_tokens = 1L, output_tokens = 1L))
  } else if (grepl("/responses$", url)) {
    list(id = "estimate", object = "response", model = model, status = "completed",
         output = list(list(type = "message", role = "assistant", id = "m",
                            content = list(list(type = "output_text", text = answer)))),
         usage = list(input_tokens = 1L, output_tokens = 1L, total_tokens = 2L))
  }
}

# The same as an httr2 response, for the mock (a 400 for an API it does not know).
fake_response <- function(url, body, answer) {
  json <- fake_json(url, body, answer)
  if (is.null(json)) return(httr2::response(status_code = 400L, url = url))
  httr2::response_json(status_code = 200L, url = url, body = json)
}
