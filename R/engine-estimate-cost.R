# The request side of estimate_cost()'s dry run: the mock answering what still reaches httr2,
# and the pricing of the engine's answered requests (tokens counted in bulk over distinct texts,
# each priced at its own chat's model, folded into running totals per chunk).

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

# What the dry run's requests cost over all of them: `n`, `input` tokens, the `output` bound,
# `cost` (NA when a price is unknown), `how` ("exact" or not) and `all_batch`.
dry_run_costs <- function(context, chats, batch) {
  dry_run_fold(context, chats, batch)
  tally <- context$tally
  list(n = tally$n, input = tally$input, output = tally$output, cost = tally$cost,
       how = if (tally$n > 0 && tally$exact) "exact" else "estimate",
       all_batch = tally$all_batch)
}

# Prices the requests answered since the last fold and drops them, so a dry run holds one
# chunk's texts; their keys stay (`answered`): a request asked again the real run sends once.
dry_run_fold <- function(context, chats, batch) {
  tally <- context$tally %||% list(n = 0L, input = 0, output = 0, cost = 0, exact = TRUE,
                                   all_batch = TRUE)
  if (length(context$chunks) || length(context$requests)) {
    counts <- request_costs(context, chats, batch)
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
