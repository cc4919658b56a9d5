# Judging battles through the battle cache (EloBench's battle records, arena-store.R). A
# verdict's identity is its request (verdict_key()), computed before it is sent and stored
# as `request_sha256` in the record's `gpt_4_response` JSON, so the file keeps EloBench's
# columns; it is read back as JSON, never recovered from the judge's text. EloBench's own
# records are reused by judge model name and prompt version, as the original did.

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
  req <- judge_requests(battles, version, swapped = FALSE)
  if (position_swap && n) req <- rbind(req, judge_requests(battles, version, swapped = TRUE))
  who <- verdict_judge(judge, version)
  key <- verdict_key(who$identity, req$question, req$model_a, req$model_b, req$answer_a,
                     req$answer_b)
  store <- if (!is.null(records) && file.exists(records)) read_battle_cache(records) else
    empty_records()
  store_key <- store_keys(store, who)
  usable <- !is.na(store$winner)
  hit <- match(key, store_key[usable], incomparables = NA)
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
      gpt_4_response = response_json(res, version, who$identity, key[todo]),
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
    if (write_records) store <- update_battle_cache(records, new, who)
  }
  if (write_records && !file.exists(records)) {
    store <- update_battle_cache(records, new = NULL, who)
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

# The judge's requests for `battles`, each in its own order or swapped (B's answer read
# first, the usual cure for a judge's preference for the first answer).
judge_requests <- function(battles, version, swapped) {
  first <- if (swapped) "b" else "a"
  second <- if (swapped) "a" else "b"
  req <- tibble::tibble(
    battle = seq_len(nrow(battles)), swapped = swapped, question = battles$question,
    model_a = battles[[paste0("model_", first)]], model_b = battles[[paste0("model_", second)]],
    answer_a = battles[[paste0("answer_", first)]], answer_b = battles[[paste0("answer_", second)]]
  )
  req$input <- if (swapped) battle_prompts(req, version) else battles$input
  req
}

# Battles without a verdict, told once with their errors.
report_verdict_failures <- function(judged, what) {
  failed <- ifelse(is.na(judged$error), "no verdict", judged$error)
  report_failures(ifelse(is.na(judged$winner), failed, NA), what = what)
}

# A verdict's identity is its request: the judge's request identity (the response cache's:
# provider, base URL, model, parameters, headers, system prompt, and the prompt version in
# its key_extra), the question, the two models and their answers in the judge's order, each
# hashed, then hashed together (no separator can make two requests alike). NA when a part
# is missing: such a verdict is never reused.
verdict_key <- function(identity, question, model_a, model_b, answer_a, answer_b) {
  parts <- lapply(list(question, model_a, model_b, answer_a, answer_b), text_sha256)
  n <- max(lengths(parts))
  parts <- c(list(rep_len(text_sha256(identity), n)), lapply(parts, rep_len, n))
  out <- text_sha256(do.call(paste0, parts))
  out[Reduce(`|`, lapply(parts, is.na))] <- NA_character_
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

# The judge a battle cache is read for: its request identity, model name (`judger`) and
# prompt version, which together say which of EloBench's own records count as its.
verdict_judge <- function(judge, version) {
  list(identity = judge_identity(judge, version), judger = judge$get_model(),
       version = version)
}

# Keys of recorded verdicts for `judge` (verdict_judge()): the request key stored in each
# record. EloBench's own records (no package JSON) have none; they count as this judge's
# when its model name and prompt version match (a user copies them in on purpose), keyed as
# this judge's request would be. A package record without a key is never reused.
store_keys <- function(records, judge) {
  fields <- record_fields(records$gpt_4_response)
  key <- fields$request_sha256
  mine <- !fields$package & records$judger %in% judge$judger &
    original_version(records$gpt_4_response) %in% judge$version
  key[mine] <- verdict_key(judge$identity, records$question[mine], records$model_a[mine],
                           records$model_b[mine], records$answer_a[mine],
                           records$answer_b[mine])
  key
}

# What this package wrote into each record's gpt_4_response (response_json()), read as
# JSON: whether it is the package's (a JSON object with a prompt version), the prompt
# version and the request key. Never read from the judge's text.
record_fields <- function(response) {
  parsed <- lapply(as.character(response), record_json)
  field <- function(name) {
    vapply(parsed, function(p) {
      value <- p[[name]]
      if (is.character(value) && length(value) == 1) value else NA_character_
    }, "")
  }
  version <- field("prompt_version")
  list(package = !is.na(version), prompt_version = version,
       request_sha256 = field("request_sha256"))
}

# The judge prompt version of the original's records, which carry none: told by the
# verdict's format, as the original's two prompts differ (scores: 231113, JSON winner: 231225).
original_version <- function(response) {
  response <- as.character(response)
  out <- rep(NA_character_, length(response))
  score <- grepl("Score (of|for) Model [12]:", response, perl = TRUE)
  json <- grepl("winner", response, fixed = TRUE)
  out[!is.na(response) & score] <- "231113"
  out[!is.na(response) & !score & json] <- "231225"
  out
}

empty_records <- function() {
  out <- tibble::as_tibble(stats::setNames(
    rep(list(character()), length(battle_record_columns)), battle_record_columns
  ))
  out$is_valid <- logical()
  out
}

response_json <- function(res, version, identity, key) {
  vapply(seq_len(nrow(res)), function(i) {
    as.character(jsonlite::toJSON(list(
      is_valid = !is.na(res$result[[i]]),
      response = res$result[[i]] %|NA|% "",
      prompt_version = version,
      judge_identity = identity,
      request_sha256 = key[[i]],
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
  parsed <- record_json(record)
  if (!is.null(parsed$response)) {
    if (isFALSE(parsed$is_valid) && !nzchar(parsed$response)) return(NA_character_)
    return(parsed$response)
  }
  start <- regexpr("['\"]response['\"]:\\s*", record, perl = TRUE)
  if (start < 0) return(record)
  python_string_literal(substr(record, start + attr(start, "match.length"), nchar(record))) %||%
    record
}

# A gpt_4_response as the JSON object this package writes (response_json()), or NULL (the
# original writes Python dicts).
record_json <- function(record) {
  if (is.na(record) || !jsonlite::validate(record)) return(NULL)
  parsed <- jsonlite::parse_json(record)
  if (is.list(parsed) && !is.null(names(parsed))) parsed
}
