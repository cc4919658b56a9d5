# The arena's part of judge_audit() (R/judges-audit.R): an arena_run() is audited through
# its log, whose battles keep both verdicts (`winner_ab`, and `winner_ba` in AB's terms when
# the run swapped positions); where a run judged one order only, the swapped order is judged
# now through the engine and the response cache, as `position_swap = TRUE` would have sent it.

#' @export
judged_runs.arena_run <- function(x) {
  if (is.null(x$paths$log)) {
    abort_pb("The arena run judged no battle: there is no judge to audit.", "argument")
  }
  judged_runs(x$paths$log)
}

#' @export
benchmark_audit.arena_ratings_benchmark <- function(benchmark, run, opts) {
  battles <- arena_audit_battles(run)
  battles <- judge_missing_orders(battles, run, opts)
  own <- arena_own_contestants(unique(c(battles$model_a, battles$model_b)), run$label,
                               opts$self)
  rbind(pairwise_audit_rows(run, battles, own, opts),
        unreadable_audit_rows(run, battles, opts))
}

# Each judge's share of unreadable verdicts (a reply the prompt's format can't read) among
# those it gave (failed requests left out), in every order judged: the run's judge (or
# panel), then each member of a panel (its own verdicts, as the log keeps them). A fair
# judge gives none.
unreadable_audit_rows <- function(run, battles, opts) {
  question <- c(battles$question, battles$question)
  share <- function(verdicts) ifelse(is.na(verdicts), NA_real_, as.double(verdicts == "invalid"))
  rows <- list(proportion_audit_row(run, "unreadable_verdicts",
                                    share(c(battles$winner_ab, battles$winner_ba)), question,
                                    0, opts))
  ab <- panel_matrix(run$samples, "winner_ab")
  ba <- panel_matrix(run$samples, "winner_ba")
  for (member in colnames(ab)) {
    one <- run
    one$label <- member
    swapped <- if (member %in% colnames(ba)) ba[, member] else rep(NA_character_, nrow(ab))
    rows <- c(rows, list(proportion_audit_row(one, "unreadable_verdicts",
                                              share(c(ab[, member], swapped)), question, 0,
                                              opts)))
  }
  do.call(rbind, rows)
}

# Verdicts for agreement: an unreadable one (`invalid`) is no label, left out as a failed
# request's is.
#' @export
benchmark_panel_verdicts.arena_ratings_benchmark <- function(benchmark, run) {
  verdicts <- panel_matrix(run$samples, "winner_ab")
  if (!is.null(verdicts)) verdicts[failed_judgement(verdicts)] <- NA_character_
  verdicts
}

#' @export
benchmark_verdicts.arena_ratings_benchmark <- function(benchmark, run) {
  battles <- arena_audit_battles(run)
  samples <- run$samples
  verdict <- ifelse(failed_judgement(battles$winner_ab), NA_character_, battles$winner_ab)
  verdicts_table(samples$id, samples[["epoch"]] %||% rep(1L, nrow(samples)),
                 verdict, key = battle_key(battles), cluster = battles$question)
}

# A battle the same in any run: its question and its models in order.
battle_key <- function(battles) {
  paste(battles$question, battles$model_a, battles$model_b, sep = "\r")
}

# The battles of an arena run's log: models, question, answers, and each order's verdict
# (`winner_ba` told in AB's terms, NA where that order was not judged).
arena_audit_battles <- function(run) {
  samples <- battle_parts(run$samples)
  meta <- samples$solver_metadata
  # a run judged in one order logs its verdict as `winner` alone (arena_log_samples())
  winner_ab <- metadata_field(meta, "winner_ab")
  one_order <- is.na(winner_ab)
  winner_ab[one_order] <- metadata_field(meta, "winner")[one_order]
  tibble::tibble(
    question = samples$question, model_a = samples$model_a, model_b = samples$model_b,
    answer_a = samples$answer_a, answer_b = samples$answer_b,
    winner_ab = winner_ab,
    winner_ba = metadata_field(meta, "winner_ba")
  )
}

# The swapped order of battles judged in one order only, judged now by `opts$judge` (or the
# run's judge rebuilt from its label), through the response cache: the requests are those
# `position_swap = TRUE` sends (the same prompt, judge and prompt version), so they are paid
# for once.
judge_missing_orders <- function(battles, run, opts) {
  need <- which(!failed_judgement(battles$winner_ab) & is.na(battles$winner_ba))
  if (!length(need)) return(battles)
  version <- run$header$eval$metadata$judge_prompt_version %||% "231225"
  chat <- opts$judge %||% rebuilt_judge(run$label, run$header$eval$metadata$judge_base_url)
  said <- judge_model_label(chat)
  if (!identical(said, run$label) && !identical(judge_label(chat), run$label) &&
      !identical(judge_label(chat), sub("^[^/]*/", "", run$label))) {
    cli::cli_warn(c("The swapped orders are judged by {.val {said}}, not the run's judge
                     {.val {run$label}}.",
                    i = "Position consistency then compares two judges."),
                  class = "predictivebench_warning_audit_judge")
  }
  swapped <- battles[need, ]
  swapped <- tibble::tibble(question = swapped$question, model_a = swapped$model_b,
                            model_b = swapped$model_a, answer_a = swapped$answer_b,
                            answer_b = swapped$answer_a)
  judge <- configured_judge(chat, version)
  # a chunk at a time, as arena_run() judges its rounds: memory holds one chunk's requests
  for (part in arena_chunks(length(need), arena_chunk(opts$settings))) {
    chunk <- swapped[part, ]
    chunk$input <- battle_prompts(chunk, version)
    judged <- judge_verdicts(chunk, judge, version, FALSE, opts$settings)
    battles$winner_ba[need[part]] <- swap_winner(judged$winner)
  }
  battles
}

# The run's judge from its label ("provider/model") and the base URL its log keeps
# (logged_base_url()), rebuilt only where it ran. A log is data, and the user's key goes only
# to its own provider's host: at the provider's own host the judge has the provider's default
# credentials (ellmer's: its key from the user's environment); at any other host the log
# names, it is asked with no key (a local server needs none; one that does is given as
# `judge =`). A judge the log keeps no URL for (one that held a user, a password, a query or
# a key, or an older log) could have run anywhere: it is asked for, never rebuilt at the
# provider's default host. So are a baseline chat and a panel (its members' URLs aren't kept).
rebuilt_judge <- function(label, base_url = NULL, call = rlang::caller_env()) {
  cant <- function(why, parent = NULL) {
    abort_pb(c("The run judged one order only, and its judge {.val {label}} can't be rebuilt
                from its log to judge the swapped order: {why}",
               i = "Give the run's judge as {.code judge =}; nothing was sent."),
             "argument", parent = parent, call = call)
  }
  if (startsWith(label, "panel(")) {
    cant("A panel's judges are not rebuilt from its log. Give the panel again (the list of
          chats the run was given).")
  }
  if (startsWith(label, "predictivebench_baseline/") || !grepl("/", label, fixed = TRUE)) {
    cant("it answers offline or names no provider.")
  }
  if (!rlang::is_string(base_url) || !keepable_url(base_url)) {
    cant("its log keeps no base URL (a URL holding a user, a password, a query or a key is
          never logged), so where it ran is not known, and it is not rebuilt at another
          host.")
  }
  own <- tryCatch(ellmer::chat(label)$get_provider()@base_url, error = function(e) NULL)
  tryCatch(
    if (same_host(own, base_url)) {
      ellmer::chat(label, base_url = base_url)
    } else {
      ellmer::chat(label, base_url = base_url, credentials = function() "")
    },
    error = function(e) cant("ellmer can't make it.", e)
  )
}

# Whether two URLs name one host (scheme, host name and port), so that a key for one may go
# to the other.
same_host <- function(a, b) {
  parse <- function(url) {
    if (!rlang::is_string(url)) return(NULL)
    parts <- tryCatch(httr2::url_parse(url), error = function(e) NULL)
    if (is.null(parts$hostname)) return(NULL)
    port <- parts$port %||% switch(tolower(parts$scheme %||% ""), https = 443L, http = 80L, NA)
    list(tolower(parts$scheme %||% ""), tolower(parts$hostname), as.integer(port))
  }
  a <- parse(a)
  !is.null(a) && identical(a, parse(b))
}

# The contestants that are the judge's own: `self` when given, else those named as the
# judge's model ("gpt-4.1", "openai/gpt-4.1") or under the judge's provider ("openai/...").
arena_own_contestants <- function(models, label, self = NULL) {
  if (!is.null(self)) return(intersect(models, self))
  provider <- sub("/.*$", "", label)
  model <- sub("^[^/]*/", "", label)
  bare <- sub("^.*/", "", models)
  models[models == model | bare == model |
           (grepl("/", models, fixed = TRUE) & startsWith(models, paste0(provider, "/")))]
}

# Points of the answer on `side` ("model_a" or "model_b", one per verdict) from each verdict
# (in AB's terms): 1 for a win, 0 for a loss, 0.5 for a tie; NA for a failed judgement.
side_points <- function(winner, side) {
  side <- rep_len(side, length(winner))
  points <- ifelse(winner %in% c("model_a", "model_b"), as.double(winner == side), 0.5)
  points[failed_judgement(winner) | is.na(side)] <- NA_real_
  points
}

# Ties of either kind as one verdict, for consistency: a tie survives a swap as a tie.
tie_like <- function(winner) ifelse(winner %in% c("tie", "tie(all bad)"), "tie", winner)

# Of battles judged in both orders (verdicts in AB's terms), how many kept their verdict
# (`consistent`) out of those with both verdicts (`both`): what an arena run's log header
# keeps for leaderboard() (R/arena-log.R).
swap_consistency_counts <- function(winner_ab, winner_ba) {
  both <- !failed_judgement(winner_ab) & !failed_judgement(winner_ba)
  c(consistent = sum(both & tie_like(winner_ab) == tie_like(winner_ba)), both = sum(both))
}

# The pairwise statistics of battles with both orders' verdicts, as audit rows.
pairwise_audit_rows <- function(run, battles, own, opts) {
  ab <- battles$winner_ab
  ba <- battles$winner_ba
  both <- !failed_judgement(ab) & !failed_judgement(ba)
  consistent <- ifelse(both, tie_like(ab) == tie_like(ba), NA)
  # every verdict, in both orders: in AB the first shown is model_a, in BA model_b
  verdicts <- c(ab, ba)
  question <- c(battles$question, battles$question)
  first <- c(side_points(ab, "model_a"), side_points(ba, "model_b"))
  length_a <- nchar(na_as_empty(battles$answer_a))
  length_b <- nchar(na_as_empty(battles$answer_b))
  longer_side <- ifelse(length_a > length_b, "model_a",
                        ifelse(length_b > length_a, "model_b", NA_character_))
  longer <- side_points(verdicts, rep(longer_side, 2))
  rows <- list(
    proportion_audit_row(run, "position_consistency", as.double(consistent),
                         battles$question, 1, opts),
    proportion_audit_row(run, "first_position_win_rate", first, question, 0.5, opts),
    proportion_audit_row(run, "longer_answer_win_rate", longer, question, 0.5, opts)
  )
  own_a <- rep(battles$model_a %in% own, 2)
  own_b <- rep(battles$model_b %in% own, 2)
  mixed <- own_a != own_b
  if (any(mixed & !failed_judgement(verdicts))) {
    mine <- side_points(verdicts, ifelse(own_a, "model_a", "model_b"))
    mine[!mixed] <- NA_real_
    rows <- c(rows, list(proportion_audit_row(run, "self_preference", mine, question, 0.5,
                                              opts)))
  }
  do.call(rbind, rows)
}
