# The ProcessBench solver: n_votes critiques per sample, as separate requests or one
# request with n, and reading the choices back.

#' @rdname processbench_task
#' @order 3
#' @export
processbench_solver <- function(n_votes = 8, n_per_request = FALSE, temperature = 0.7,
                                params = NULL, system_prompt = NULL, settings = NULL) {
  check_count(n_votes)
  check_number(temperature)
  check_flag(n_per_request)
  check_string(system_prompt, allow_null = TRUE)
  if (!is.null(params) && !is.list(params)) {
    abort_pb("{.arg params} must be a list or {.code NULL}.", "argument")
  }
  if (n_votes > 1 && temperature == 0) {
    cli::cli_warn("With {.code temperature = 0} the {n_votes} votes will be (nearly) identical.")
  }
  settings <- as_request_settings(settings)
  request_params <- utils::modifyList(list(temperature = temperature), params %||% list())
  dataset_solver(function(inputs, bound, ..., solver_chat = NULL) {
    solver_chat <- as_chat(solver_chat)
    run_settings <- settings_with_dots(settings, ...)
    if (n_per_request && n_votes > 1) check_provider_has_n(solver_chat)
    n <- length(inputs)
    seed <- request_params$seed %||% chat_seed(solver_chat)
    send <- function(prompts, vote, epoch = vote, api_args = NULL, keep_json = FALSE,
                     chat_per = NULL) {
      processbench_requests(configure_chat(solver_chat, system_prompt), request_params,
                            prompts, vote = vote, epoch = epoch, seed = seed,
                            api_args = api_args, settings = run_settings,
                            keep_json = keep_json, chat_per = chat_per)
    }
    # vitals epochs repeat inputs, so vote v of epoch k is vote (k - 1) * n_votes + v: its own
    # request, cache entry and seed offset.
    copy <- bound$.epoch
    first <- (copy - 1L) * n_votes
    if (n_per_request && n_votes > 1) {
      # One request per copy (epoch k) carrying the seed of its first vote.
      res <- send(inputs, vote = first + 1L, epoch = copy, api_args = list(n = n_votes),
                  keep_json = TRUE)
      owner <- seq_len(n)
      texts <- lapply(seq_len(n), function(i) {
        if (is.na(res$error[[i]])) processbench_choices(res$json[[i]], res$result[[i]]) else
          rep(NA_character_, n_votes)
      })
      cuts <- lapply(seq_len(n), function(i) {
        if (is.na(res$error[[i]])) processbench_choice_cuts(res$json[[i]], res$truncated[[i]])
        else rep(FALSE, n_votes)
      })
      errors <- lapply(seq_len(n), function(i) rep(res$error[[i]], length(texts[[i]])))
      got <- lengths(texts)
      short <- which(is.na(res$error) & got < n_votes)
      if (length(short)) {
        # The provider ignored `n`: the missing votes go out as separate requests, numbered
        # (epoch and seed) as in n_per_request = FALSE, so they share its cache entries.
        sample <- rep(short, n_votes - got[short])
        vote <- first[sample] + unlist(lapply(short, function(i) seq.int(got[[i]] + 1L, n_votes)))
        extra <- send(inputs[sample], vote = vote)
        for (i in short) {
          texts[[i]] <- c(texts[[i]], extra$result[sample == i])
          cuts[[i]] <- c(cuts[[i]], extra$truncated[sample == i] %in% TRUE)
          errors[[i]] <- c(errors[[i]], extra$error[sample == i])
        }
        res <- bind_requests(list(res, extra), list(seq_len(n), n + seq_along(sample)))
        owner <- c(owner, sample)
        cli::cli_inform(c(
          paste("{length(short)} response{?s} held fewer than {n_votes} choices:",
                "the provider ignored {.code n}."),
          i = paste0("The {length(sample)} missing vote{?s} {?was/were} requested separately",
                     if (is.null(cache_dir(run_settings$cache))) "." else ", cached."),
          i = "{.code n_per_request = FALSE} sends one request per vote from the start."
        ), class = "predictivebench_message_n_ignored")
      }
    } else {
      owner <- rep(seq_len(n), each = n_votes)
      # a sample keeps one vote's chat (below): only those are built
      res <- send(inputs[owner], vote = first[owner] + rep(seq_len(n_votes), times = n),
                  chat_per = owner)
      texts <- unname(split(res$result, owner))
      cuts <- unname(split(res$truncated %in% TRUE, owner))
      errors <- unname(split(res$error, owner))
    }
    report_failures(res$error, what = "vote request")  # one per request, not per vote
    metadata <- vector("list", n)
    result <- rep(NA_character_, n)
    # each sample's chat: its first answered vote's (the one run_requests() built)
    chats <- res$chat[chat_rows(res$error, owner)]
    for (i in seq_len(n)) {
      rows <- which(owner == i)
      vote <- processbench_vote(texts[[i]])
      if (!is.na(vote$prediction)) result[[i]] <- as.character(vote$prediction)
      # usage summed over every vote request of the sample, so the log counts them all
      metadata[[i]] <- c(
        list(prediction = vote$prediction, votes = vote$votes, n_valid = vote$n_valid,
             n_votes = n_votes, critiques = texts[[i]], errors = errors[[i]],
             # how many of its votes were cut off at the token limit (R/results-truncation.R)
             truncated = sum(cuts[[i]])),
        usage_metadata(res, rows), list(seconds = sum(res$seconds[rows]))
      )
    }
    list(result = result, solver_chat = chats, solver_metadata = metadata)
  })
}

# Sends prompts[i] with epoch[i]. With a seed, vote j is sent with seed + j - 1 (votes differ, a
# re-run draws the same): one chat per vote number, all in one request pool.
processbench_requests <- function(solver_chat, request_params, prompts, vote, epoch, seed,
                                  api_args = NULL, settings = NULL, keep_json = FALSE,
                                  chat_per = NULL) {
  prompts <- as_prompt_list(prompts)
  if (is.null(seed)) {
    chat <- configure_chat(solver_chat, params = request_params, api_args = api_args)
    return(run_requests(list(chat), rep(1L, length(prompts)), prompts, settings,
                        epoch = epoch, keep_json = keep_json, chat_per = chat_per))
  }
  votes <- sort(unique(vote))
  chats <- lapply(votes, function(v) {
    configure_chat(solver_chat,
                   params = utils::modifyList(request_params, list(seed = seed + v - 1)),
                   api_args = api_args)
  })
  run_requests(chats, match(vote, votes), prompts, settings, epoch = epoch,
               keep_json = keep_json, chat_per = chat_per)
}

# Only OpenAI-style chat completions take `n` (several choices in one request); OpenAI's
# Responses API, Anthropic and Gemini would drop it and bill every vote but the first twice.
check_provider_has_n <- function(chat) {
  no_n <- c("ellmer::ProviderOpenAI", "ellmer::ProviderAnthropic",
            "ellmer::ProviderGoogleGemini", "ellmer::ProviderAWSBedrock")
  provider <- chat$get_provider()
  if (inherits(provider, no_n)) {
    abort_pb(c(
      "{.code n_per_request = TRUE} needs a chat-completions API that takes {.field n}.",
      x = "{provider@name} ({.cls {class(provider)[[1]]}}) has no {.field n}.",
      i = "Use {.code n_per_request = FALSE} (one request per vote)."
    ), "argument")
  }
  invisible(chat)
}

# Row-binds generate_responses() tibbles; index[[k]] are the rows parts[[k]] answers.
bind_requests <- function(parts, index) {
  order <- order(unlist(index, use.names = FALSE))
  columns <- Reduce(intersect, lapply(parts, names))
  tibble::as_tibble(rlang::set_names(lapply(columns, function(column) {
    do.call(c, unname(lapply(parts, `[[`, column)))[order]
  }), columns))
}

# The answers of every choice in an OpenAI-style response, without reasoning (R/engine-reasoning.R),
# so a vote's thinking is never counted; NA for a failed request.
processbench_choices <- function(json, text) {
  choices <- json$choices
  if (!length(choices) && length(json$output)) return(responses_texts(json$output, text))
  if (!length(choices)) return(text)
  vapply(choices, function(ch) choice_answer(ch)$answer, "")
}

# Whether each choice of processbench_choices() was cut off at the token limit (or inside
# unfinished reasoning); `truncated` (the request's) when the response has no choices.
processbench_choice_cuts <- function(json, truncated) {
  choices <- json$choices
  if (!length(choices)) {
    n <- length(processbench_choices(json, NA_character_))
    return(rep(truncated %in% TRUE, n))
  }
  vapply(choices, function(ch) choice_answer(ch)$truncated, TRUE)
}

# One choice read as entry_answer() reads a request: text, reasoning in a field of its own
# (vLLM's `reasoning_content`, `reasoning`), finish reason.
choice_answer <- function(choice) {
  message <- choice$message
  content <- message$content
  reasoning <- message$reasoning_content %||% message$reasoning
  entry_answer(list(
    text = if (rlang::is_string(content)) content else NA_character_,
    reasoning = if (rlang::is_string(reasoning)) reasoning else NA_character_,
    finish_reason = if (rlang::is_string(choice$finish_reason)) choice$finish_reason
  ))
}

# The Responses API's shape: one vote per message item, its output_text parts joined.
responses_texts <- function(output, text) {
  messages <- Filter(function(item) identical(item$type, "message"), output)
  if (!length(messages)) return(text)
  vapply(messages, function(item) {
    parts <- Filter(function(part) identical(part$type, "output_text"), item$content)
    answer_parts(paste(vapply(parts, function(part) part$text %||% "", ""), collapse = ""))$answer
  }, "")
}
