# Judging through the response cache, the one store of verdicts: a verdict is found by its
# request's cache key, never recovered from the judge's text. Records keep EloBench's columns
# with the key in `gpt_4_response` (`request_sha256`) for the exported files.

# Judge battles: judge_verdicts()' table plus a chat per battle (vitals takes one per sample).
judge_battles <- function(battles, chat, version = "231225", position_swap = FALSE,
                          temperature = 0, params = NULL, system_prompt = NULL,
                          settings = NULL) {
  judge <- configured_judge(chat, version, temperature, params, system_prompt)
  out <- judge_verdicts(battles, judge, version, position_swap, settings)
  prompts <- battles$input
  out$chat <- lapply(seq_len(nrow(out)), function(i) {
    text <- out$gpt_4_response_text[[i]]
    assistant <- if (is.na(text)) empty_turn() else
      ellmer::AssistantTurn(contents = list(ellmer::ContentText(text)))
    # (a panel's conversation is its first judge's, holding every judge's reply)
    judge_members(judge)[[1]]$clone()$set_turns(list(user_turn_of(prompts[[i]]), assistant))
  })
  out$usage <- lapply(seq_len(nrow(out)), function(i) {
    list(cached = out$cached[[i]], input_tokens = out$input_tokens[[i]],
         output_tokens = out$output_tokens[[i]], cost = out$cost[[i]])
  })
  out
}

# The verdicts of `battles` by `judge` (or a panel) as a table of vectors, one row a battle, so
# arena_run() keeps its rounds at any size: no chat per answer (`chat_per`). `usage` is none
# for a verdict read from the cache.
judge_verdicts <- function(battles, judge, version = "231225", position_swap = FALSE,
                           settings = NULL) {
  settings <- settings %||% request_settings()
  tables <- member_verdicts(battles, judge_members(judge), version, position_swap, settings)
  if (!is_judge_panel(judge)) return(tables[[1]])
  panel_battle_verdicts(tables, judge_models(judge), judge_label(judge), version, judge)
}

# Each judge's own verdicts, in one pool, each keyed as that judge's alone so a judge's
# verdicts are shared by every panel it sits on.
member_verdicts <- function(battles, judges, version, position_swap, settings) {
  n <- nrow(battles)
  k <- length(judges)
  req <- judge_requests(battles, version, swapped = FALSE)
  if (position_swap && n) req <- rbind(req, judge_requests(battles, version, swapped = TRUE))
  # Identical requests (the same battle twice) are sent once, counted on the first. No
  # battle: no request, and no rows (not NULL, which can't be indexed as a table).
  first <- match(req$input, req$input)
  todo <- which(first == seq_along(first))
  m <- length(todo)
  all <- run_requests(judges, rep(seq_len(k), each = m), rep(as.list(req$input[todo]), k),
                      settings, epoch = 1L, key_extra = judge_key_extra(version),
                      chat_per = rep(1L, k * m))
  all$chat <- NULL
  labels <- judge_member_labels(judges)
  lapply(seq_len(k), function(j) {
    res <- all[(j - 1L) * m + seq_len(m), ]
    out <- one_judge_verdicts(battles, req, res[match(first, todo), ], first, judges[[j]],
                              version, position_swap)
    # a reply the prompt's format can't read: the judge named, for counts and notes
    out$unreadable <- ifelse(out$winner %in% "invalid", labels[[j]], NA_character_)
    out
  })
}

one_judge_verdicts <- function(battles, req, res, first, judge, version, position_swap) {
  n <- nrow(battles)
  copy <- first != seq_along(first)
  res[copy, c("input_tokens", "output_tokens", "cost")] <- 0
  keys <- verdict_keys(judge, req$input, version)
  rec <- verdict_records(req, res, judge$get_model(), version, keys)
  ab <- seq_len(n)
  winner_ab <- rec$winner[ab]
  winner_ba <- rep(NA_character_, n)
  winner <- winner_ab
  both <- if (position_swap && n) n + ab else integer()
  if (length(both)) {
    winner_ba <- swap_winner(rec$winner[both])
    winner <- combine_swapped(winner_ab, winner_ba)
  }
  # summed over both orders as usage_metadata() sums a battle's requests: tokens without NA
  usage <- function(column, na_rm = TRUE) {
    value <- res[[column]]
    if (na_rm) value[is.na(value)] <- 0
    if (length(both)) value[ab] + value[both] else value[ab]
  }
  tibble::tibble(
    question = battles$question, model_a = battles$model_a, model_b = battles$model_b,
    winner = winner, winner_ab = winner_ab, winner_ba = winner_ba, judger = judge$get_model(),
    tstamp = rec$tstamp[ab], answer_a = battles$answer_a, answer_b = battles$answer_b,
    gpt_4_response = rec$gpt_4_response[ab], gpt_4_response_text = res$result[ab],
    gpt_4_score = rec$gpt_4_score[ab], is_valid = !is.na(winner),
    cached = if (length(both)) res$cached[ab] & res$cached[both] else res$cached[ab],
    error = res$error[ab], request_sha256 = keys[ab],
    input_tokens = usage("input_tokens"), output_tokens = usage("output_tokens"),
    cost = usage("cost", na_rm = FALSE)
  )
}

# A panel's battles: the verdict of more than half the judges, a tie when all gave one and none
# has a majority, and no verdict (judged again next run) while a missing one could still decide
# (panel_majority()). Its `gpt_4_response` has a null `request_sha256`: a panel's verdict is no
# one request's answer, so it is never imported as one judge's (R/arena-elobench.R).
panel_battle_verdicts <- function(tables, models, label, version, judge) {
  column <- function(name) do.call(cbind, lapply(tables, `[[`, name))
  out <- tables[[1]]
  out$winner <- panel_majority(column("winner"), none = "tie")
  out$winner_ab <- panel_majority(column("winner_ab"), none = "tie")
  ba <- column("winner_ba")
  out$winner_ba <- if (all(is.na(ba))) NA_character_ else panel_majority(ba, none = "tie")
  out$judger <- rep(label, nrow(out))
  text <- column("gpt_4_response_text")
  error <- column("error")
  named <- function(values, empty) {
    if (!nrow(values)) return(character())
    apply(values, 1, function(v) {
      if (all(is.na(v))) empty else paste0(models, ": ", ifelse(is.na(v), "-", v),
                                           collapse = "\n\n")
    })
  }
  out$gpt_4_response_text <- named(text, NA_character_)
  out$error <- if (!nrow(error)) character() else apply(error, 1, function(e) {
    if (all(is.na(e))) NA_character_ else
      paste0(models[!is.na(e)], ": ", e[!is.na(e)], collapse = "; ")
  })
  unreadable <- column("unreadable")
  out$unreadable <- if (!nrow(unreadable)) character() else apply(unreadable, 1, function(v) {
    if (all(is.na(v))) NA_character_ else paste(v[!is.na(v)], collapse = ", ")
  })
  out$gpt_4_score <- rep(NA_character_, nrow(out))
  out$is_valid <- !is.na(out$winner)
  out$cached <- rowSums(!column("cached")) == 0
  out$request_sha256 <- rep(NA_character_, nrow(out))
  for (name in c("input_tokens", "output_tokens", "cost")) out[[name]] <- rowSums(column(name))
  # each judge's tokens under its own model, for the logs (R/judges-panel.R)
  out$judges_usage <- judges_usage_json(
    vapply(judge_members(judge), chat_model_label, "", USE.NAMES = FALSE),
    column("input_tokens"), column("output_tokens"), column("cost")
  )
  out$judges <- panel_json(models, list(
    winner = column("winner"), winner_ab = column("winner_ab"), winner_ba = ba,
    error = error, request_sha256 = column("request_sha256")
  ))
  out$gpt_4_response <- panel_response_json(out, version)
  out
}

# A panel's `gpt_4_response`: its judges' replies, no request key of its own, their verdicts.
panel_response_json <- function(out, version) {
  if (!nrow(out)) return(character())
  paste0(
    "{\"is_valid\":", ifelse(out$is_valid, "true", "false"),
    ",\"response\":", json_strings(ifelse(is.na(out$gpt_4_response_text), "",
                                           out$gpt_4_response_text)),
    ",\"prompt_version\":", json_strings(rep_len(version, nrow(out))),
    ",\"request_sha256\":null",
    ",\"judger\":", json_strings(out$judger),
    ",\"judges\":", out$judges, "}"
  )
}

# The judge as it is asked: EloBench's system prompt for `version`, temperature 0 and at most
# 800 tokens unless told otherwise.
configured_judge <- function(chat, version, temperature = 0, params = NULL,
                             system_prompt = NULL) {
  if (is_judge_panel(chat)) {
    return(new_judge_panel(lapply(judge_members(chat), configured_judge, version = version,
                                  temperature = temperature, params = params,
                                  system_prompt = system_prompt)))
  }
  prompt <- arena_judge_prompt("", "", "", version)
  configure_chat(chat, system_prompt %||% prompt$system,
                 utils::modifyList(list(temperature = temperature, max_tokens = 800),
                                   as.list(params)))
}

# Each judge request's key in the response cache: its verdict's identity.
verdict_keys <- function(judge, prompts, version) {
  response_keys(list(judge), rep(1L, length(prompts)), as.list(prompts), 1L,
                judge_key_extra(version))
}

verdict_records <- function(req, res, judger, version, keys) {
  verdict <- arena_parse_verdict(res$result)
  tibble::tibble(
    model_a = req$model_a, model_b = req$model_b, winner = verdict$winner,
    judger = rep(judger, nrow(req)),
    tstamp = rep(format(Sys.time(), "%Y-%m-%d %H:%M:%OS6"), nrow(req)),
    question = req$question, answer_a = req$answer_a, answer_b = req$answer_b,
    gpt_4_response = response_json(res, version, keys), gpt_4_score = verdict$gpt_4_score,
    is_valid = !is.na(res$result)
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

# Battles without a verdict, told once with their errors, and the judges of unreadable ones.
report_verdict_failures <- function(judged, what) {
  failed <- ifelse(is.na(judged$error), "no verdict", judged$error)
  report_failures(ifelse(is.na(judged$winner), failed, NA), what = what)
  warn_unreadable_verdicts(count_unreadable(judged[["unreadable"]]), nrow(judged), what,
                           arena_unreadable_consequence)
}

# Each judge's count of battles without a readable verdict (`members`: zeros kept).
count_unreadable <- function(unreadable, members = NULL) {
  named <- unlist(strsplit(as.character(stats::na.omit(unreadable)), ", ", fixed = TRUE))
  members <- members %||% unique(named)
  stats::setNames(tabulate(match(named, members), length(members)), members)
}

# A battle's note for report_failures(): who gave no readable verdict.
unreadable_note <- function(unreadable) {
  ifelse(is.na(unreadable), NA_character_, paste(unreadable, "gave no readable verdict"))
}

# The same for a sample of several battles (arena_task()'s); NA for none.
unreadable_sample_note <- function(unreadable) {
  judges <- names(count_unreadable(unreadable))
  if (!length(judges)) NA_character_ else unreadable_note(paste(judges, collapse = ", "))
}

arena_unreadable_consequence <- paste(
  "An unreadable verdict counts as a tie ({.code invalid = \"tie\"}, the original's rule) or",
  "is left out ({.code invalid = \"drop\"}); a model rated on nothing else has no rating."
)

text_sha256 <- function(x) {
  x <- as.character(x)
  out <- rep(NA_character_, length(x))
  ok <- !is.na(x)
  out[ok] <- vapply(enc2utf8(x[ok]), digest::digest, "", algo = "sha256", serialize = FALSE,
                    USE.NAMES = FALSE)
  out
}

judge_key_extra <- function(version) paste0("arena-judge-", version)

# What this package wrote into a record's gpt_4_response: whether it is the package's, the
# prompt version and the request key. Never read from the judge's text.
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

# Each request's record as JSON text, all rows at once (read back by record_json()).
response_json <- function(res, version, key) {
  if (!nrow(res)) return(character())
  number <- function(x) exact_number_json(x)
  paste0(
    "{\"is_valid\":", ifelse(is.na(res$result), "false", "true"),
    ",\"response\":", json_strings(ifelse(is.na(res$result), "", res$result)),
    ",\"prompt_version\":", json_strings(rep_len(version, nrow(res))),
    ",\"request_sha256\":", json_strings(key),
    ",\"usage\":{\"completion_tokens\":", number(res$output_tokens),
    ",\"prompt_tokens\":", number(res$input_tokens), "}",
    ",\"error\":", json_strings(res$error), "}"
  )
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

# A gpt_4_response as the package's JSON object, or NULL (the original writes Python dicts).
record_json <- function(record) {
  if (is.na(record) || !jsonlite::validate(record)) return(NULL)
  parsed <- jsonlite::parse_json(record)
  if (is.list(parsed) && !is.null(names(parsed))) parsed
}

# The judge's records in the battles' own order, for EloBench's battle_records.csv: each
# names its request, so its winner is that request's verdict (`winner_ab`), not the swap's.
own_order_records <- function(records, winner_ab) {
  records$winner <- winner_ab
  records$is_valid <- !failed_judgement(records$winner)
  records
}

experiment_records <- function(samples, battles) {
  get <- function(field) metadata_field(samples$solver_metadata, field)
  tibble::tibble(
    model_a = samples$model_a, model_b = samples$model_b, winner = get("winner"),
    judger = get("judger"), tstamp = get("tstamp"), question = samples$question,
    answer_a = samples$answer_a, answer_b = samples$answer_b,
    gpt_4_response = get("gpt_4_response"),
    gpt_4_score = get("gpt_4_score"),
    is_valid = !failed_judgement(get("winner"))
  )
}

judged_records <- function(judged) {
  tibble::tibble(
    model_a = judged$model_a, model_b = judged$model_b, winner = judged$winner,
    judger = judged$judger, tstamp = judged$tstamp, question = judged$question,
    answer_a = judged$answer_a, answer_b = judged$answer_b,
    gpt_4_response = judged$gpt_4_response, gpt_4_score = judged$gpt_4_score,
    is_valid = !failed_judgement(judged$winner)
  )
}

# Requests a pool takes at once in arena_run(), so memory holds one chunk whatever the arena's
# size; a provider batch takes a round whole (each chunk would be a batch to wait for).
arena_chunk <- function(settings) if (isTRUE(settings$batch)) .Machine$integer.max else 8000L

# `n` rows in consecutive chunks of at most `size` (at least one row each).
arena_chunks <- function(n, size) {
  if (!n) return(list())
  size <- max(1L, min(n, size))
  split(seq_len(n), ceiling(seq_len(n) / size))
}
