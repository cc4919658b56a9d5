# The log of one arena_run(), written as the run goes: each round's judged battles become
# Inspect EvalSamples streamed a chunk at a time, built as plain lists (no Task or chat per
# battle) so cost and memory don't grow with the battles. A battle's texts are its sample's
# `input`; what the run shares (prompt version, rating options, judge) is in the header.
# A long run is written in parts (`arena_log_part_battles`, `arena_log_part_bytes`):
# vitals_view() sends a log over 100 MB without its samples and a browser parses a log whole.
# Each part's header lists every part (`eval.metadata.log_files`); the first part, the run's
# log, is finished last, so while it is missing so is the run.

# Bytes on disk after which a run's log goes on in a new part (see above).
arena_log_part_bytes <- 48 * 1024^2

# Battles a part holds at most: its header lists their ids, and vitals reads a log's header
# alone only when it is under 1 MB (read_log_header_json()'s cap; above it, its list of logs
# parses the whole file).
arena_log_part_battles <- 20000L

# Battles translated and written at a time: a part goes over its bound by at most this many.
arena_log_slice <- 500L

# A new run log (an environment); a run that judges no battle writes none.
arena_log_open <- function(run) {
  log <- new.env(parent = emptyenv())
  log$name <- paste0("arena-", run$experiment)
  log$competitors <- paste(run$model_names, collapse = " vs ")
  judge <- configured_judge(run$judge, run$prompt_version)
  log$run_id <- unique_id()
  log$task_id <- paste(log$name, log$competitors,
                       substr(digest::digest(list(log$name, log$competitors, log$run_id),
                                             algo = "sha256"), 1, 22), sep = "/")
  log$created <- log_timestamp()
  log$judge_label <- judge_model_label(judge)
  log$judger <- judge_label(judge)
  # each judge's battles without a readable verdict (the header's `unreadable_verdicts`)
  log$unreadable <- count_unreadable(character(), judge_models(judge))
  # where the judge was asked (never a key): judge_audit() rebuilds the judge from it
  log$judge_base_url <- logged_base_url(judge)
  log$scorer <- paste0("arena_ratings_score (", judge_label(judge), ")")
  log$position_swap <- run$position_swap
  log$started <- Sys.time()
  log$n <- 0L
  log$parts <- list()
  # battles judged in both orders, and those whose verdict survived the swap (judge_audit())
  log$swapped <- c(consistent = 0, both = 0)
  log$writer <- NULL  # the first part's writer: the run has a log once it is set
  log$battles <- character()  # each battle's identity (battle_identities())
  log$offline <- all(vapply(judge_members(judge), inherits, TRUE, what = "BaselineChat"))
  log$log_eval <- NULL  # a rescore's additions to the header (add_log_eval())
  log
}

# Streams judged battles as the log's next samples, a slice at a time, into the current part.
arena_log_add <- function(log, run, judged, rating, slice = arena_log_slice) {
  n <- nrow(judged)
  done <- 0L
  while (done < n) {
    part <- arena_log_part(log, run)
    take <- min(slice, n - done, arena_log_part_battles - part$n)
    rows <- done + seq_len(take)
    done <- done + take
    chunk <- judged[rows, ]
    # a panel's battles: each judge's tokens under its own model (R/judges-panel.R)
    members <- if ("judges_usage" %in% names(chunk)) {
      judges_usage_rows(as.character(chunk$judges_usage))
    }
    samples <- arena_log_samples(chunk, log$n + seq_len(take), log, rating, members)
    log_writer_add(part$writer, samples)
    log$n <- log$n + length(rows)
    part$n <- part$n + length(rows)
    part$unscored <- part$unscored +
      if (rating$invalid == "drop") sum(failed_judgement(chunk$winner)) else 0L
    # a verdict paid at no known price makes the part's cost unknown (known_cost())
    tokens <- chunk$input_tokens + chunk$output_tokens
    cost <- known_cost(c(part$usage[[3]], known_cost(chunk$cost, tokens)),
                       c(sum(part$usage[1:2]), sum(tokens)))
    part$usage <- c(part$usage[1:2] + c(sum(chunk$input_tokens), sum(chunk$output_tokens)),
                    cost = cost)
    if (!is.null(members)) {
      part$models <- add_usage(part$models, usage_entries(members$usage, members$models))
    }
  }
  log$swapped <- log$swapped + swap_consistency_counts(judged$winner_ab, judged$winner_ba)
  log$unreadable <- log$unreadable + count_unreadable(judged[["unreadable"]],
                                                      names(log$unreadable))
  log$battles <- c(log$battles, battle_identities(judged, keys = !log$offline))
  invisible(log)
}

# Each judged battle's identity, hashed; an offline judge's request keys are left out
# (`keys = FALSE`): a baseline's key names its chat object, which differs each session.
battle_identities <- function(judged, keys = TRUE) {
  text <- paste(judged$model_a, judged$model_b, judged$question, judged$answer_a,
                judged$answer_b, judged$gpt_4_response_text, judged$winner, judged$winner_ab,
                judged$winner_ba, judged$error, sep = "\r")
  if (keys) {
    text <- paste(text, judged$request_sha256,
                  if ("judges" %in% names(judged)) judged$judges else "", sep = "\r")
  }
  vapply(text, rlang::hash, "", USE.NAMES = FALSE)
}

# The run's identity (`run_sha256`): the same log but for its times and run id.
arena_log_identity <- function(log, prompt_version, rating) {
  digest::digest(list(log$name, log$competitors, log$judger, log$judge_base_url,
                      isTRUE(log$position_swap), prompt_version, rating, log$log_eval,
                      log$battles), algo = "sha256")
}

# The log in `dir` of a run of this identity, or NULL: a rerun that sent nothing writes none.
arena_same_log <- function(dir, log, prompt_version, rating) {
  identity <- arena_log_identity(log, prompt_version, rating)
  files <- sort(list.files(dir, pattern = "[.](json|eval)$"), decreasing = TRUE)
  files <- files[same_task_log(sub("^[^_]*_", "", files), log$task_id)]
  for (file in file.path(dir, files)) {
    header <- tryCatch(read_log_header(file), predictivebench_error = function(e) NULL)
    meta <- header$eval$metadata
    if (!identical(meta$run_sha256, identity) || !(meta$log_part %||% 1L) %in% 1L) next
    paths <- tryCatch(log_part_paths(file, header), predictivebench_error = function(e) NULL)
    if (!is.null(paths)) return(paths)
  }
  NULL
}

# The part the next battles go to: the last, or a new one when full. The first part's writer
# removes a crashed run's part files of this arena (remove_crashed_log_parts()).
arena_log_part <- function(log, run) {
  k <- length(log$parts)
  if (k && log$parts[[k]]$n < arena_log_part_battles &&
      file.size(log$parts[[k]]$writer$part) < arena_log_part_bytes) {
    return(log$parts[[k]])
  }
  part <- new.env(parent = emptyenv())
  part$task_id <- if (k) paste0(log$task_id, "-part", k + 1L) else log$task_id
  if (!k) remove_crashed_log_parts(run$dir, part$task_id)
  part$writer <- log_writer(run$dir, part$task_id, created = log$created,
                            stale = if (k) "keep" else "remove")
  part$first <- log$n + 1L
  part$n <- 0L
  part$unscored <- 0L
  part$usage <- c(input = 0, output = 0, cost = NA)  # no cost known yet
  part$models <- list()  # a panel's usage per model (add_usage())
  log$parts[[k + 1L]] <- part
  if (!k) log$writer <- part$writer
  part
}

# A run stopped before its end (an error) leaves no log, finished or not.
arena_log_abandon <- function(log) {
  for (part in log$parts) log_writer_abandon(part$writer)
  invisible(log)
}

arena_log_samples <- function(judged, numbers, log, rating, members = NULL) {
  winner <- judged$winner
  swapped <- isTRUE(log$position_swap)
  score <- winner_points(winner, failed = if (rating$invalid == "tie") 0.5 else NA_real_)
  outcome <- battle_outcome_text(judged$model_a, judged$model_b, winner)
  input <- arena_battle_text(judged$question, judged$model_a, judged$answer_a,
                             judged$model_b, judged$answer_b)
  reply <- na_as_empty(judged$gpt_4_response_text)
  explanation <- arena_explanation(
    list(solver_metadata = lapply(seq_along(winner), function(i) {
      list(winner = winner[[i]], winner_ab = judged$winner_ab[[i]],
           winner_ba = judged$winner_ba[[i]], position_swap = swapped)
    }), model_a = judged$model_a, model_b = judged$model_b),
    score
  )
  note <- unreadable_note(judged[["unreadable"]] %||% rep(NA_character_, length(winner)))
  question_chars <- nchar(judged$question)
  answer_a_chars <- nchar(na_as_empty(judged$answer_a))
  # a panel's: each battle's rows of its judges' usage (members_usage())
  own <- if (!is.null(members)) {
    split(seq_along(members$owner), factor(members$owner, seq_along(winner)))
  }
  lapply(seq_along(winner), function(i) {
    entry <- list(answer = outcome[[i]], explanation = explanation[[i]],
                  metadata = list(cached = judged$cached[[i]]))
    metadata <- list(
      model_a = judged$model_a[[i]], model_b = judged$model_b[[i]],
      question_chars = question_chars[[i]], answer_a_chars = answer_a_chars[[i]],
      winner = winner[[i]]
    )
    if (swapped) {
      metadata[c("winner_ab", "winner_ba", "position_swap")] <-
        list(judged$winner_ab[[i]], judged$winner_ba[[i]], TRUE)
    }
    if (!is.na(judged$error[[i]])) metadata$error <- judged$error[[i]]
    # a note, not a failure (report_failures()): asking again brings the same reply
    if (!is.na(note[[i]])) metadata$verdict_note <- note[[i]]
    metadata$request_sha256 <- judged$request_sha256[[i]]
    metadata$tstamp <- judged$tstamp[[i]]
    sample <- list(
      id = paste0("battle-", numbers[[i]]), epoch = 1L, input = input[[i]], target = "",
      messages = list(list(role = "assistant", source = "generate",
                           content = list(list(type = "text", text = reply[[i]])))),
      scores = NULL, metadata = metadata,
      store = empty_object(), events = list(),
      model_usage = if (is.null(own)) arena_sample_usage(judged, i, log$judge_label) else
        usage_entries(members$usage[own[[i]], , drop = FALSE], members$models[own[[i]]])
    )
    # a panel's: each judge's own verdicts (R/judges-panel.R)
    if ("judges" %in% names(judged)) sample$metadata$judges <- judged$judges[[i]]
    if (is.na(score[[i]])) {
      # Inspect takes no score without a number: kept in the metadata, as log_sample() does
      entry$scorer <- log$scorer
      sample$metadata[[unscored_field]] <- as.character(jsonlite::toJSON(
        entry, auto_unbox = TRUE, digits = NA, na = "null", json_verbatim = TRUE
      ))
    } else {
      entry <- c(list(value = exact_json(score[[i]])), entry)
      sample$scores <- stats::setNames(list(entry), log$scorer)
    }
    sample
  })
}

# A battle's usage: the judge's tokens (and cost, when priced) under the judge's label.
arena_sample_usage <- function(judged, i, label) {
  entry <- list(input_tokens = judged$input_tokens[[i]],
                output_tokens = judged$output_tokens[[i]],
                total_tokens = judged$input_tokens[[i]] + judged$output_tokens[[i]])
  if (!is.na(judged$cost[[i]])) entry$total_cost <- judged$cost[[i]]
  stats::setNames(list(entry), label)
}

# Closes the log, each part with its header, the first part last; returns the parts' paths.
arena_log_finish <- function(log, ratings, prompt_version, rating) {
  rows <- arena_rating_summary(ratings)
  keys <- summary_keys(rows)
  metrics <- lapply(seq_len(nrow(rows)), function(i) {
    list(name = keys[[i]], value = metric_json(rows$estimate[[i]]), params = empty_object())
  })
  names(metrics) <- keys
  number <- function(x) if (is.na(x)) NULL else exact_json(as.double(x))
  headline <- lapply(seq_len(nrow(rows)), function(i) {
    row <- list(key = keys[[i]], group = rows$group[[i]], metric = rows$metric[[i]],
                estimate = number(rows$estimate[[i]]), lower = number(rows$lower[[i]]),
                upper = number(rows$upper[[i]]), n = as.integer(rows$n[[i]]))
    row[!vapply(row, is.null, TRUE)]
  })
  files <- vapply(log$parts, function(part) basename(part$writer$path), "")
  paths <- character(length(files))
  for (k in rev(seq_along(log$parts))) {
    header <- arena_log_header(log, log$parts[[k]], metrics, headline, prompt_version, rating)
    if (length(files) > 1) {
      header$eval$metadata[c("log_part", "log_parts", "log_files")] <-
        list(k, length(files), as.list(files))
    }
    paths[[k]] <- log_writer_finish(log$parts[[k]]$writer, header)
  }
  paths
}

# One part's header: the run's (its ratings, judge, options), with the part's battles.
arena_log_header <- function(log, part, metrics, headline, prompt_version, rating) {
  n <- part$n
  usage <- list(input_tokens = part$usage[[1]], output_tokens = part$usage[[2]],
                total_tokens = part$usage[[1]] + part$usage[[2]])
  usage$total_cost <- na_null(part$usage[[3]])
  version <- as.character(utils::packageVersion("predictivebench"))
  keys <- names(metrics)
  header <- list(
    version = 2L, status = "success",
    eval = list(
      run_id = log$run_id, created = log$created, task = part$task_id, task_id = part$task_id,
      task_version = 0L, task_file = "", task_attribs = empty_object(),
      task_args = empty_object(),
      dataset = list(name = log$name, samples = n,
                     sample_ids = as.list(paste0("battle-", part$first - 1L + seq_len(n))),
                     shuffled = FALSE),
      model = log$competitors, model_args = empty_object(), config = list(epochs = 1L),
      revision = list(type = "git", origin = "https://github.com/UKGovernmentBEIS/inspect_ai.git",
                      commit = "9140d8a2"),
      packages = list(inspect_ai = "0.3.63",
                      vitals = as.character(utils::packageVersion("vitals")),
                      predictivebench = version),
      metadata = list(
        benchmark = "arena_ratings", predictivebench_kind = "ratings",
        predictivebench = version,
        dataset_fields = list("model_a", "model_b"),
        solver_json = list(), scorer_json = list(), not_computed = list(),
        judge_prompt_version = prompt_version, judger = log$judger,
        position_swap = isTRUE(log$position_swap),
        rating_options = as.character(jsonlite::toJSON(rating, auto_unbox = TRUE)),
        run_sha256 = arena_log_identity(log, prompt_version, rating),
        headline = headline
      ),
      scorers = list(list(
        name = log$scorer, options = empty_object(),
        metrics = lapply(keys, function(k) list(name = k, options = empty_object())),
        metadata = empty_object()
      ))
    ),
    plan = list(name = "plan", steps = list(list(
      solver = paste0("arena_ratings_solver (", log$competitors, ")"), params = empty_object()
    )), config = empty_object()),
    results = list(
      total_samples = n, completed_samples = n,
      scores = list(list(name = log$scorer, scorer = log$scorer, params = empty_object(),
                         metrics = if (length(metrics)) metrics else empty_object(),
                         scored_samples = n - part$unscored,
                         unscored_samples = part$unscored))
    ),
    stats = list(
      started_at = log_timestamp(log$started), completed_at = log_timestamp(),
      # a panel's tokens per judge's model; one judge's under its label
      model_usage = if (length(part$models)) part$models else
        stats::setNames(list(usage), log$judge_label)
    )
  )
  if (!is.null(log$judge_base_url)) header$eval$metadata$judge_base_url <- log$judge_base_url
  # a rescore's: what it was rescored from and with what (R/arena-rescore.R)
  header$eval <- add_log_eval(header$eval, log$log_eval)
  if (any(log$unreadable > 0)) {
    # each judge's battles without a readable verdict, over the whole run
    header$eval$metadata$unreadable_verdicts <- as.list(log$unreadable[log$unreadable > 0])
  }
  if (log$swapped[["both"]] > 0) {
    # the judge's position consistency, shown by leaderboard() beside the ratings
    header$eval$metadata$judge_consistency <- as.list(log$swapped)
  }
  header
}

# The run's ratings as its log's headline summary rows (as arena_rating_rows() reads them).
arena_rating_summary <- function(ratings) {
  summary_rows(ratings$model, "rating",
               list(mean = ratings$rating, lower = ratings$lower, upper = ratings$upper,
                    n = ratings$battles))
}
