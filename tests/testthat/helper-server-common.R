# What the fake local servers share (helper-server-vllm.R, -llamacpp.R, -ollama.R,
# -openai-legacy.R): each is a fake_openai() whose reply function dispatches on the path
# asked (attr(body, "path")) and answers in that server's own wire format. The reply runs in
# the server's process, so it carries its options and functions with it (server_reply()).
#
# The tokenizer of every fake server is echo_tokenize()'s: "\n" alone, words with one
# leading space (" the", as GPT-2-style BPE vocabularies have), runs of spaces. A prompt
# token's log-probability is `logprobs(tokens, text)` (by default -nchar(token) / 2), the
# first token has none, as a real server's.
#
# Each also serves what its real counterpart serves besides (fake_openai()'s `static`: the
# model list, health, ...), answers any other path as that server does (`not_found`), and
# logs every request that arrives ($log()).
#
# Chat replies are scripted by `chat`: a string (the answer) or a function(body, n) giving a
# string or a list with any of
#   text           the answer (the message's `content`)
#   reasoning      the thinking before it: in the server's reasoning field (vLLM's
#                  `reasoning_content`, Ollama's `reasoning`), or, with `reasoning_field =
#                  NULL` (a server without a reasoning parser), inline as
#                  "<think>...</think>\n\n" before the answer
#   finish_reason  "stop", "length", ...; by default "length" when the reasoning and answer
#                  tokens exceed the request's `max_tokens` / `max_completion_tokens` (both
#                  are then cut there, the reasoning first; an answer that was never reached
#                  is `null`, and unfinished inline thinking has no "</think>"), else "stop".
#                  A reply scripted "length" with reasoning and no text was cut inside its
#                  thinking, the same way
#   alternatives   a named numeric vector: the first answer token's top alternatives and
#                  their log-probabilities (sent when the request asks for `logprobs`)
#   status, json   an HTTP error status and its body, as fake_openai() takes them
#   usage          list(prompt_tokens =, completion_tokens =)
#   or a list of such replies, one choice each (a request with `n`).
# A `chat` function runs in the server's process: it sees its arguments, the helpers here
# (last_user_text(), server_tokens(), `%||%`) and its own variables (a closure's, the test's),
# which are sent to the server's process with it.

# `reply` with its own environment, holding `values` (options and functions, the functions'
# environments set to it too) and whose parent is the global environment: nothing of the
# test's environment is sent to the server's process but the `chat` script's own.
server_reply <- function(reply, values) {
  env <- new.env(parent = globalenv())
  values <- c(values, list(`%||%` = function(x, y) if (is.null(x)) y else x,
                           last_user_text = last_user_text,
                           server_tokens = server_tokens, server_token_id = server_token_id,
                           server_chat_body = server_chat_body,
                           server_chat_choice = server_chat_choice,
                           server_chat_logprobs = server_chat_logprobs,
                           server_legacy_logprobs = server_legacy_logprobs,
                           server_error = server_error, server_prompt = server_prompt,
                           server_generated = server_generated,
                           server_chat = server_chat))
  for (name in setdiff(names(values), "chat")) {
    value <- values[[name]]
    if (is.function(value) && !is.primitive(value)) environment(value) <- env
    assign(name, value, envir = env)
  }
  chat <- values$chat
  if (is.function(chat)) {
    # the script keeps its own variables, and sees the helpers before them
    helpers <- new.env(parent = environment(chat))
    for (name in ls(env, all.names = TRUE)) {
      if (is.function(env[[name]])) assign(name, env[[name]], envir = helpers)
    }
    environment(chat) <- helpers
  }
  env$chat <- chat
  environment(reply) <- env
  reply
}

# What a local server's GET /v1/models lists: its one model.
server_models <- function(model, owned_by) {
  list(object = "list", data = list(list(id = model, object = "model", created = 1700000000L,
                                         owned_by = owned_by)))
}

server_tokens <- function(text, pattern = "\n| ?[^ \n]+| +") {
  if (!nzchar(text)) return(character())
  regmatches(text, gregexpr(pattern, text))[[1]]
}

# A token's id in the fake vocabulary: the same token, the same id.
server_token_id <- function(token) {
  codes <- utf8ToInt(token)
  as.integer(sum(codes * seq_along(codes)) %% 150000L + 3L)
}

# The prompt of a completions request: a string, or a list of one string (a batch of one).
server_prompt <- function(body) {
  prompt <- body$prompt
  if (is.list(prompt)) prompt <- prompt[[1]]
  as.character(prompt %||% "")
}

# The tokens a completions request generates: `k` of " and so on", repeated.
server_generated <- function(k) {
  if (is.null(k) || k <= 0) return(character())
  rep_len(c(" and", " so", " on"), k)
}

# An error in the OpenAI shape, which vLLM, llama.cpp and Ollama also use.
server_error <- function(status, message, type = "invalid_request_error") {
  list(status = as.integer(status),
       json = list(error = list(message = message, type = type, param = NULL,
                                code = as.integer(status))))
}

# The legacy completions `logprobs` object (OpenAI's, vLLM's echo): `tokens`,
# `token_logprobs` (`null` for a token without one, the first prompt token), `top_logprobs`
# (`null` there, else the token itself and its log-probability) and `text_offset`, each
# token's character offset in the text (BOS-like special tokens, `special`, take no room).
server_legacy_logprobs <- function(tokens, logprobs, special = character()) {
  widths <- ifelse(tokens %in% special, 0L, nchar(tokens))
  offsets <- c(0L, cumsum(widths))[seq_along(tokens)]
  list(
    tokens = as.list(tokens),
    token_logprobs = lapply(logprobs, function(x) if (is.na(x)) NULL else x),
    top_logprobs = lapply(seq_along(tokens), function(i) {
      if (is.na(logprobs[[i]])) NULL else stats::setNames(list(logprobs[[i]]), tokens[[i]])
    }),
    text_offset = as.list(as.integer(offsets))
  )
}

# The chat-completions `logprobs` object: one entry per answer token (token, logprob,
# bytes, top_logprobs); the first token's alternatives are `alternatives` when given.
server_chat_logprobs <- function(tokens, alternatives = NULL, top = 0L) {
  entry <- function(token, logprob) {
    list(token = token, logprob = logprob, bytes = as.list(as.integer(charToRaw(token))))
  }
  list(content = lapply(seq_along(tokens), function(i) {
    token <- tokens[[i]]
    own <- -nchar(token) / 2
    alts <- stats::setNames(own, token)
    if (i == 1L && length(alternatives)) {
      alts <- sort(alternatives, decreasing = TRUE)
      if (token %in% names(alternatives)) own <- alternatives[[token]]
    }
    alts <- utils::head(alts, top %||% 0L)
    c(entry(token, own), list(top_logprobs = unname(Map(entry, names(alts), unname(alts)))))
  }))
}

# A chat.completion body for `out` (the scripted reply, or a list of them, see above) to
# request `body`. `reasoning_field` names where the reasoning goes (NULL: inline <think>
# tags); `logprobs` whether the server gives log-probabilities at all; `message_extra` and
# `extra` are fields a server adds to the message and to the body.
server_chat_body <- function(body, out, n, model, reasoning_field = "reasoning_content",
                             logprobs = TRUE, message_extra = list(), extra = list()) {
  outs <- if (is.character(out) || !is.null(names(out))) list(out) else out
  choices <- lapply(seq_along(outs), function(i) {
    server_chat_choice(body, outs[[i]], i, reasoning_field, logprobs, message_extra)
  })
  usage <- list(prompt_tokens = 10L, completion_tokens = 0L)
  for (choice in choices) {
    usage$completion_tokens <- usage$completion_tokens + choice$tokens
  }
  if (length(outs) == 1L && !is.character(outs[[1]])) usage <- outs[[1]]$usage %||% usage
  usage$total_tokens <- usage$prompt_tokens + usage$completion_tokens
  c(list(id = paste0("chatcmpl-", n), object = "chat.completion", created = 1700000000L,
         model = model, choices = lapply(choices, `[[`, "choice"), usage = usage), extra)
}

# One choice of a chat.completion body (the `i`-th), and the tokens it generated.
server_chat_choice <- function(body, out, i, reasoning_field, logprobs, message_extra) {
  if (is.character(out)) out <- list(text = out)
  answer <- server_tokens(out$text %||% "")
  thinking <- if (!is.null(out$reasoning)) server_tokens(out$reasoning) else character()
  budget <- body$max_completion_tokens %||% body$max_tokens
  finish <- "stop"
  reached <- TRUE
  closed <- TRUE
  if (!is.null(budget) && length(thinking) + length(answer) > budget) {
    finish <- "length"
    keep <- min(length(thinking), budget)
    closed <- keep == length(thinking) && budget > keep
    thinking <- thinking[seq_len(keep)]
    answer <- answer[seq_len(max(0, budget - keep))]
    reached <- length(answer) > 0 || !length(server_tokens(out$text %||% ""))
  }
  finish <- out$finish_reason %||% finish
  if (identical(finish, "length") && !is.null(out$reasoning) && !length(answer)) {
    # cut inside the thinking: the answer was never reached
    reached <- FALSE
    closed <- FALSE
  }
  content <- if (reached) paste(answer, collapse = "") else NULL
  message <- list(role = "assistant")
  if (is.null(reasoning_field)) {
    if (!is.null(out$reasoning)) {
      think <- paste0("<think>", paste(thinking, collapse = ""),
                      if (closed) "</think>\n\n" else "")
      content <- paste0(think, content %||% "")
    }
    message["content"] <- list(content)
  } else {
    # `null` fields are sent as such, as the servers do
    message["content"] <- list(content)
    message[reasoning_field] <- list(if (!is.null(out$reasoning)) paste(thinking, collapse = ""))
  }
  message <- c(message, message_extra)
  choice <- list(index = i - 1L, message = message, logprobs = NULL, finish_reason = finish)
  if (logprobs && isTRUE(body$logprobs)) {
    choice$logprobs <- server_chat_logprobs(answer, out$alternatives,
                                            as.integer(body$top_logprobs %||% 0L))
  }
  list(choice = choice, tokens = length(thinking) + length(answer))
}

# The answer to a chat request: what the `chat` script says for it (see above), an error
# reply as it is, else its chat.completion body (server_chat_body(), given the rest).
server_chat <- function(chat, body, n, ...) {
  out <- if (is.function(chat)) chat(body, n) else chat
  if (is.list(out) && !is.null(out$status)) return(out)
  list(json = server_chat_body(body, out, n, ...))
}
