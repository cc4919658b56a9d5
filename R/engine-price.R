# The cost preview's one mechanism in the engine: a dry run (the request session's `price`)
# answers every request where it would be sent, without a request, a turn or a JSON body each,
# keeping only what its price needs (its chat's template and the prompt's text); what still
# reaches httr2 is answered by its mock. The requests are priced in bulk over distinct texts
# (bench/dry-run.R: ProcessBench's 27,200 requests), each at its own chat's model, folded into
# running totals a chunk at a time.

# The dry run's context, the request session's `price` (R/engine-session.R), never a setting.
# It collects `hits` (real cache hits), `templates`, `chunks` (requests answered here) and
# `answered` (their keys: a request asked again is a hit of this run, as in a real run).
# Requests the engine can't answer here (no ellmer internals; vitals' own solvers and scorers)
# go to httr2, where estimate_cost()'s mock answers and records them.
# `chats` price the requests (each at its own chat's model; the first for a request of no known
# model), at the batch price when `batch`.
new_dry_run <- function(answer = "", chats = list(), batch = FALSE) {
  context <- new.env(parent = emptyenv())
  context$answer <- answer
  context$chats <- chats
  context$batch_price <- batch
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

# The cost preview's one entry: `code` run inside a dry run whose every request answers
# `answer`, priced for `chats` (new_dry_run()): a row of price_row().
with_pricing <- function(chats, code, batch = FALSE, answer = "") {
  context <- new_dry_run(answer, chats, batch)
  with_dry_run_mock(context, code)
  dry_run_row(context)
}

# Evaluates `code` inside the dry run `context`: the request session's `price` (the engine
# answers its requests there, no collector takes them), and every HTTP request that still
# reaches httr2 answered by fake_response() and recorded, so nothing leaves the machine.
with_dry_run_mock <- function(context, code) {
  local_request_session(collector = NULL, price = context)
  mock <- function(req) {
    body <- tryCatch(httr2::req_get_body(req), error = function(e) NULL)
    context$requests[[length(context$requests) + 1]] <- list(url = req$url, body = body,
                                                              batch = context$batch)
    fake_response(req$url, body, context$answer)
  }
  httr2::with_mocked_responses(mock, suppressMessages(suppressWarnings(code)))
}

# What the dry run's requests cost over all of them, as a row of price_row(): priced at the
# batch price throughout when asked for, or when every request to send is a batch's (a solver
# with `batch = TRUE`).
dry_run_row <- function(context) {
  dry_run_fold(context)
  tally <- context$tally
  price_row(context$hits, tally$n, tally$input, tally$output, tally$cost,
            tokens = if (tally$n > 0 && tally$exact) "exact" else "estimate",
            batch = context$batch_price || (tally$n > 0 && tally$all_batch))
}

# The one row shape of a cost preview, one type per column however many requests there are:
# `requests` (`cached` of them answered in the cache, `to_send` the others), `input_tokens`,
# `output_tokens_max`, `cost_max` (NA when a price is unknown), `tokens` ("exact" or
# "estimate") and `batch`. A set's preview shows the counts (`price_count_names`) of each cell.
price_row <- function(cached = 0L, to_send = 0L, input_tokens = 0, output_tokens_max = 0,
                      cost_max = 0, tokens = "estimate", batch = FALSE) {
  tibble::tibble(requests = as.integer(cached + to_send), cached = as.integer(cached),
                 to_send = as.integer(to_send), input_tokens = as.double(input_tokens),
                 output_tokens_max = as.double(output_tokens_max),
                 cost_max = as.double(cost_max), tokens = tokens, batch = batch)
}

price_count_names <- c("requests", "cached", "to_send", "input_tokens", "output_tokens_max",
                       "cost_max")

# Prices the requests answered since the last fold and drops them, so a dry run holds one
# chunk's texts; their keys stay (`answered`): a request asked again the real run sends once.
dry_run_fold <- function(context) {
  tally <- context$tally %||% list(n = 0L, input = 0, output = 0, cost = 0, exact = TRUE,
                                   all_batch = TRUE)
  if (length(context$chunks) || length(context$requests)) {
    counts <- request_costs(context, context$chats, context$batch_price)
    tally <- list(n = tally$n + counts$n, input = tally$input + counts$input,
                  output = tally$output + counts$output, cost = tally$cost + counts$cost,
                  exact = tally$exact && counts$exact,
                  all_batch = tally$all_batch && counts$all_batch)
  }
  context$chunks <- list()
  context$requests <- list()
  context$tally <- tally
  invisible(context)
}

# Input tokens, output bound and price of the context's requests, each for its own chat's model
# (the mock's for their body's model, else the solver's), counted once per distinct text.
request_costs <- function(context, chats, batch) {
  models <- vapply(chats, function(ch) ch$get_model(), "")
  chat_of <- function(chat, model) {
    if (!is.null(chat)) return(chat)
    at <- match(model %||% NA_character_, models)
    chats[[if (is.na(at)) 1L else at]]
  }
  pricing <- function(chat) chat_pricing(context, chat, batch)
  chunks <- context$chunks
  templates <- lapply(context$templates, function(t) {
    c(t[c("fixed", "chat_style", "output")], pricing(chat_of(t$chat, t$model)))
  })
  engine <- lapply(chunks, function(chunk) {
    t <- templates[[chunk$template]]
    list(texts = chunk$texts, encoding = t$encoding, fixed = t$fixed,
         chat_style = t$chat_style, output = t$output,
         price = t[[if (chunk$batch) "batch" else "regular"]])
  })
  rows <- c(engine_request_costs(engine), lapply(context$requests, function(r) {
    p <- pricing(chat_of(NULL, r$body$model))
    one_request(r$body, p$encoding, p[[if (isTRUE(r$batch)) "batch" else "regular"]])
  }))
  pick <- function(field) unlist(lapply(rows, `[[`, field))
  flags <- c(unlist(lapply(chunks, function(x) rep(x$batch, length(x$texts)))),
             vapply(context$requests, function(r) isTRUE(r$batch), NA))
  list(n = length(pick("exact")), input = sum(pick("input")), output = sum(pick("output")),
       cost = sum(pick("cost")), exact = all(pick("exact")), all_batch = all(flags))
}

# A chat's tokenizer and prices, looked up once per provider and model in a dry run, not per fold.
chat_pricing <- function(context, chat, batch) {
  id <- paste(chat$get_provider()@name, chat$get_model(), sep = "\r")
  context$prices[[id]] <- context$prices[[id]] %||%
    list(encoding = openai_encoding(chat), regular = model_price(chat, batch = batch),
         batch = model_price(chat, batch = TRUE))
  context$prices[[id]]
}

# The engine's requests, one list per chunk: per request the counts one_request() gives its body.
engine_request_costs <- function(chunks) {
  texts <- unlist(lapply(chunks, function(x) unlist(x$texts)), use.names = FALSE)
  encodings <- unlist(lapply(chunks, function(x) {
    rep(x$encoding %||% NA_character_, sum(lengths(x$texts)))
  }), use.names = FALSE)
  counts <- bulk_token_counts(texts, encodings)
  start <- 0L
  lapply(chunks, function(x) {
    n <- lengths(x$texts)
    at <- start + seq_len(sum(n))
    start <<- start + sum(n)
    request <- factor(rep(seq_along(n), n), seq_along(n))
    exact <- !is.null(x$encoding)
    input <- if (exact) {
      fixed <- sum(bulk_token_counts(x$fixed, rep(x$encoding, length(x$fixed))))
      # chat messages: 3 tokens per message and 3 to start the reply
      sum_by(counts[at], request) + fixed +
        if (x$chat_style) 3 * (n + length(x$fixed)) + 3 else 0
    } else {
      ceiling((sum_by(nchar(texts[at]), request) + sum(nchar(x$fixed))) / 4)
    }
    output <- rep(x$output, length(n))
    cost <- if (is.null(x$price)) rep(NA_real_, length(n)) else
      (input * x$price$input + output * x$price$output) / 1e6
    list(input = input, output = output, cost = cost, exact = rep(exact, length(n)))
  })
}

sum_by <- function(x, group) {
  out <- as.vector(tapply(as.double(x), group, sum))
  out[is.na(out)] <- 0  # a request without texts
  out
}

# Tokens of each text for its encoding (NA: not counted), each distinct pair counted once.
bulk_token_counts <- function(texts, encodings) {
  out <- rep(NA_real_, length(texts))
  for (encoding in unique(encodings[!is.na(encodings)])) {
    at <- which(encodings == encoding)
    distinct <- unique(texts[at])
    counts <- vapply(distinct, function(t) {
      as.double(rtiktoken::get_token_count(enc2utf8(t), encoding))
    }, 1, USE.NAMES = FALSE)
    out[at] <- counts[match(texts[at], distinct)]
  }
  out
}

# `encoding`: tiktoken's encoding for the model (exact counts), or NULL (an estimate).
one_request <- function(body, encoding, price) {
  texts <- request_texts(body)
  input <- if (!is.null(encoding)) {
    counts <- vapply(texts, function(t) {
      as.double(rtiktoken::get_token_count(enc2utf8(t), encoding))
    }, 1)
    # chat: 3 tokens per message and 3 to start the reply; a completions prompt: its text alone
    if (is.null(body$prompt)) sum(counts) + 3 * length(texts) + 3 else sum(counts)
  } else {
    ceiling(sum(nchar(texts)) / 4)
  }
  output <- output_bound(body)
  cost <- if (is.null(price)) NA_real_ else (input * price$input + output * price$output) / 1e6
  list(input = input, output = output, cost = cost, exact = !is.null(encoding))
}

# The texts a request sends: messages (chat, Anthropic), input (Responses), system, or prompt.
request_texts <- function(body) {
  if (is.null(body)) return(character())
  if (!is.null(body$prompt)) return(as.character(body$prompt))
  messages <- c(if (!is.null(body$system)) list(list(content = body$system)),
                body$messages %||% body$input %||% list())
  vapply(messages, function(m) {
    content <- if (is.list(m) && !is.null(m$content)) m$content else m
    leaves <- unlist(content)
    names <- rlang::names2(leaves)
    text <- leaves[names %in% c("", "text", "content") | grepl("\\.text$", names)]
    paste(text, collapse = "")
  }, "")
}

# The tokenizer for an OpenAI model, or NULL (other providers' are not public: estimated).
openai_encoding <- function(chat) {
  openai <- chat$get_provider()@name == "OpenAI" ||
    grepl("^(gpt-|o[0-9]|chatgpt-|text-|davinci|babbage)", chat$get_model())
  if (openai) tiktoken_encoding(chat$get_model())
}

# ellmer's price per million tokens for the chat's provider and model, or NULL.
model_price <- function(chat, batch = FALSE) {
  table <- ellmer_prices()  # R/engine-compat-ellmer.R
  if (is.null(table)) return(NULL)
  provider <- chat$get_provider()@name
  model <- chat$get_model()
  at <- function(variant) {
    which(table$provider == provider & table$model == model & table$variant == variant)
  }
  row <- if (batch) at("batches")
  if (length(row)) return(list(input = table$input[[row[[1]]]], output = table$output[[row[[1]]]]))
  row <- at("")
  if (!length(row)) return(NULL)
  # no batch price listed: the providers' usual batch discount, half the price
  discount <- if (batch) 0.5 else 1
  list(input = discount * table$input[[row[[1]]]], output = discount * table$output[[row[[1]]]])
}
