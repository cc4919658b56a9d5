# Judging battles through the battle cache (battle_records.csv): keys by the judge's request
# identity and prompt version, atomic appends, and the judge's stored response.
#
# A verdict is reused only for the same judge request: its identity is the response cache's
# (request_identity(): provider, base URL, model, parameters, headers, system prompt),
# hashed, and written into the record's `gpt_4_response` JSON (`judge_identity`, beside
# `prompt_version`), so battle_records.csv keeps EloBench's columns. Another judge, another
# server or other parameters never reuse a verdict. Records of EloBench itself (no
# `prompt_version` tag: their response is the original's) are reused by judge model name,
# as the original did, since a user copies them in on purpose; records this package wrote
# before identities were recorded (a `prompt_version` but no `judge_identity`) are not.
#
# A verdict is also keyed by the two answers it judged, in the order the judge read them:
# new answers under a model's name (regenerated, or edited in q_and_as.csv) are judged
# again. The hashes come from the battle's own answer fields, never from the prompt text,
# and are written as `answers_sha256` in `gpt_4_response`; a record without that tag (the
# original's, or this package's before it) is known by the hashes of its `answer_a` and
# `answer_b` columns, so it is reused for the very answers it judged and for no others.

# Judge battles (a tibble from arena_battles()), using and extending the battle cache.
judge_battles <- function(battles, chat, records = NULL, version = "231225",
                          position_swap = FALSE, temperature = 0, params = NULL,
                          system_prompt = NULL, settings = NULL) {
  judger <- chat$get_model()
  # estimate_cost()'s dry run reads the battle cache but must not record its placeholder
  # verdicts in it.
  write_records <- !is.null(records) && is.null(settings$dry_run)
  prompt <- arena_judge_prompt("", "", "", version)
  judge <- configure_chat(chat, system_prompt %||% prompt$system,
                          utils::modifyList(list(temperature = temperature, max_tokens = 800),
                                            as.list(params)))
  n <- nrow(battles)
  # Requests: each battle in its own order, and swapped.
  req <- tibble::tibble(battle = seq_len(n), swapped = FALSE, question = battles$question,
                        model_a = battles$model_a, model_b = battles$model_b,
                        answer_a = battles$answer_a, answer_b = battles$answer_b,
                        input = battles$input)
  if (position_swap && n) {
    rev <- tibble::tibble(battle = seq_len(n), swapped = TRUE, question = battles$question,
                          model_a = battles$model_b, model_b = battles$model_a,
                          answer_a = battles$answer_b, answer_b = battles$answer_a,
                          input = arena_judge_prompt(battles$question, battles$answer_b,
                                                     battles$answer_a, version)$user)
    req <- rbind(req, rev)
  }
  identity <- judge_identity(judge, version)
  answers <- answers_sha256(req$answer_a, req$answer_b)
  key <- record_key(req$question, req$model_a, req$model_b, judger, version, identity,
                    answers)
  store <- if (!is.null(records) && file.exists(records)) read_battle_cache(records) else
    empty_records()
  store_key <- store_keys(store, identity)
  usable <- !is.na(store$winner)
  hit <- match(key, store_key[usable])
  cached <- !is.na(hit)
  rec <- store[usable, ][hit, ]
  rec$cached <- cached
  rec$error <- rep(NA_character_, nrow(rec))
  # What each request cost: nothing for a recorded verdict, a response-cache hit, or a
  # copy of a request sent once for several battles (counted on the first of them).
  usage <- tibble::tibble(cached = cached, input_tokens = rep(0, nrow(req)),
                          output_tokens = rep(0, nrow(req)), cost = rep(0, nrow(req)))
  todo <- which(!cached)
  # Identical requests (same battle twice) are judged once.
  todo <- todo[!duplicated(key[todo])]
  # Every request in one pool. The response cache keeps each verdict the moment it arrives,
  # so a killed run loses only those in flight; the battle file is written when it is done.
  if (length(todo)) {
    res <- generate_responses(judge, req$input[todo], settings, epoch = 1L,
                              key_extra = judge_key_extra(version))
    verdict <- arena_parse_verdict(res$result)
    now <- format(Sys.time(), "%Y-%m-%d %H:%M:%OS6")
    new <- tibble::tibble(
      model_a = req$model_a[todo], model_b = req$model_b[todo], winner = verdict$winner,
      judger = judger, tstamp = now, question = req$question[todo],
      answer_a = req$answer_a[todo], answer_b = req$answer_b[todo],
      gpt_4_response = response_json(res, version, identity, answers[todo]),
      gpt_4_score = verdict$gpt_4_score,
      is_valid = !is.na(res$result)
    )
    for (j in seq_along(todo)) {
      same <- which(key == key[[todo[[j]]]])
      rec[same, battle_record_columns] <- new[j, battle_record_columns]
      rec$error[same] <- res$error[[j]]
      usage$cached[same] <- res$cached[[j]]
      usage[todo[[j]], c("input_tokens", "output_tokens", "cost")] <-
        res[j, c("input_tokens", "output_tokens", "cost")]
    }
    if (write_records) store <- update_battle_cache(records, new, identity)
  }
  if (write_records && !file.exists(records)) {
    store <- update_battle_cache(records, new = NULL, identity)
  }
  text <- vapply(rec$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  ab <- seq_len(n)
  winner_ab <- rec$winner[ab]
  winner_ba <- rep(NA_character_, n)
  winner <- winner_ab
  if (position_swap && n) {
    winner_ba <- swap_winner(rec$winner[n + ab])
    winner <- combine_swapped(winner_ab, winner_ba)
  }
  chats <- lapply(ab, function(i) {
    assistant <- if (is.na(text[[i]])) empty_turn() else
      ellmer::AssistantTurn(contents = list(ellmer::ContentText(text[[i]])))
    judge$clone()$set_turns(list(user_turn_of(req$input[[i]]), assistant))
  })
  tibble::tibble(
    question = battles$question, model_a = battles$model_a, model_b = battles$model_b,
    winner = winner, winner_ab = winner_ab, winner_ba = winner_ba, judger = judger,
    tstamp = rec$tstamp[ab], answer_a = battles$answer_a, answer_b = battles$answer_b,
    gpt_4_response = rec$gpt_4_response[ab], gpt_4_response_text = text[ab],
    gpt_4_score = rec$gpt_4_score[ab], is_valid = !is.na(winner),
    cached = if (position_swap && n) rec$cached[ab] & rec$cached[n + ab] else rec$cached[ab],
    error = rec$error[ab], chat = chats,
    usage = lapply(ab, function(i) {
      usage_metadata(usage, if (position_swap) c(i, n + i) else i)
    })
  )
}

record_key <- function(question, model_a, model_b, judger, version, identity, answers) {
  paste(question, model_a, model_b, judger, version, identity, answers, sep = "\r")
}

# What a verdict judged: both answers, in the judge's order (A then B), as one hash of the
# two answers' own hashes (so no separator can make two pairs alike). NA for a missing one.
answers_sha256 <- function(answer_a, answer_b) {
  a <- text_sha256(answer_a)
  b <- text_sha256(answer_b)
  out <- text_sha256(paste0(a, b))
  out[is.na(a) | is.na(b)] <- NA_character_
  out
}

text_sha256 <- function(x) {
  x <- as.character(x)
  out <- rep(NA_character_, length(x))
  ok <- !is.na(x)
  out[ok] <- vapply(enc2utf8(x[ok]), digest::digest, "", algo = "sha256", serialize = FALSE,
                    USE.NAMES = FALSE)
  out
}

judge_key_extra <- function(version) paste0("arena-judge-", version)

judge_identity <- function(judge, version) arena_identity(judge, judge_key_extra(version))

# The hashed request identity of a (configured) chat: the response cache's, so it names no
# credential and fits a CSV cell. An offline baseline chat is known by its name and
# settings (each has an address of its own, which would make every one new), as the arena
# caches knew every judge before.
arena_identity <- function(chat, key_extra) {
  identity <- request_identity(chat, key_extra)
  if (inherits(chat, "BaselineChat")) identity$provider$base_url <- NULL
  cache_key(identity)
}

# Keys of recorded verdicts, for a judge of identity `identity`: a record's own identity;
# EloBench's records (untagged) count as this judge's when its model name matches.
store_keys <- function(records, identity) {
  response <- records$gpt_4_response
  recorded <- record_identity(response)
  original <- is.na(recorded) & !grepl('"prompt_version"', as.character(response), fixed = TRUE)
  recorded[original] <- identity
  record_key(records$question, records$model_a, records$model_b, records$judger,
             record_version(response), recorded, record_answers(records))
}

record_identity <- function(response) record_tag(response, "judge_identity")

# The answers a record judged: its `answers_sha256` tag, else (records written without it)
# the hashes of its answer columns.
record_answers <- function(records) {
  tagged <- record_tag(records$gpt_4_response, "answers_sha256")
  untagged <- is.na(tagged)
  tagged[untagged] <- answers_sha256(records$answer_a[untagged], records$answer_b[untagged])
  tagged
}

# A hexadecimal tag this package writes into `gpt_4_response` (see response_json()).
record_tag <- function(response, name) {
  response <- as.character(response)
  tagged <- regmatches(response,
                       regexec(paste0('"', name, '":\\s*"([0-9a-f]+)"'), response))
  vapply(tagged, function(m) if (length(m) == 2) m[[2]] else NA_character_, "")
}

# The judge prompt version of recorded verdicts: written into gpt_4_response here; for the
# original's records, told by the verdict's format (scores: 231113, JSON winner: 231225).
record_version <- function(response) {
  response <- as.character(response)
  out <- rep(NA_character_, length(response))
  tagged <- regmatches(response, regexec('"prompt_version":\\s*"([^"]+)"', response))
  out <- vapply(tagged, function(m) if (length(m) == 2) m[[2]] else NA_character_, "")
  untagged <- is.na(out) & !is.na(response)
  score <- grepl("Score (of|for) Model [12]:", response, perl = TRUE)
  json <- grepl("winner", response, fixed = TRUE)
  out[untagged & score] <- "231113"
  out[untagged & !score & json] <- "231225"
  out
}

empty_records <- function() {
  out <- tibble::as_tibble(stats::setNames(
    rep(list(character()), length(battle_record_columns)), battle_record_columns
  ))
  out$is_valid <- logical()
  out
}

response_json <- function(res, version, identity, answers) {
  vapply(seq_len(nrow(res)), function(i) {
    as.character(jsonlite::toJSON(list(
      is_valid = !is.na(res$result[[i]]),
      response = res$result[[i]] %|NA|% "",
      prompt_version = version,
      judge_identity = identity,
      answers_sha256 = answers[[i]],
      usage = list(completion_tokens = res$output_tokens[[i]],
                   prompt_tokens = res$input_tokens[[i]]),
      error = res$error[[i]]
    ), auto_unbox = TRUE, null = "null", na = "null"))
  }, "")
}

# The judge's text in a `gpt_4_response` value of `battle_records.csv`: JSON (as written
# here, see response_json()) or a Python dict (as written by the original); NA for none.
arena_response_text <- function(record) {
  if (length(record) != 1 || is.na(record) || !nzchar(record)) return(NA_character_)
  parsed <- tryCatch(jsonlite::parse_json(record), error = function(e) NULL)
  if (is.list(parsed) && !is.null(parsed$response)) {
    if (isFALSE(parsed$is_valid) && !nzchar(parsed$response)) return(NA_character_)
    return(parsed$response)
  }
  start <- regexpr("['\"]response['\"]:\\s*", record, perl = TRUE)
  if (start < 0) return(record)
  python_string_literal(substr(record, start + attr(start, "match.length"), nchar(record))) %||%
    record
}
