# The log of one arena_run(), written as the run goes: each round's judged battles become
# samples in Inspect's EvalSample shape, streamed to the log writer (R/results-log.R) a chunk
# at a time, and the header (the run's ratings as headline) closes the file. Built here as
# plain lists from the round's table of verdicts, without a vitals Task or a chat per
# battle, so its cost and memory do not grow with the battles held.
#
# Each text is stored once in a sample: the battle (question and both answers) is the
# sample's `input`; the judge's reply is the assistant message, after the outcome; the
# metadata holds the models, the verdicts and the request's key (`request_sha256`, the
# verdict's identity in the response cache), and the lengths of the question and of model_a's
# answer (`question_chars`, `answer_a_chars`), from which arena_outcomes() reads the question
# and both answers back out of the input (battle_parts()). The judge's prompt is EloBench's
# template around these texts (arena_judge_prompt(), its version in the header).

# A new run log (an environment: its writer, what the header needs, the judge's usage so
# far). Its writer is opened with the first battles judged: a run that judges none writes
# no log.
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
  log$scorer <- paste0("arena_ratings_score (", judge_label(judge), ")")
  log$started <- Sys.time()
  log$n <- 0L
  log$unscored <- 0L
  log$usage <- c(input = 0, output = 0, cost = 0)
  log$priced <- FALSE
  # battles judged in both orders, and those whose verdict survived the swap (judge_audit())
  log$swapped <- c(consistent = 0, both = 0)
  log$writer <- NULL
  log
}

# Streams judged battles (a table from judge_verdicts()) as the log's next samples, a chunk
# at a time, the first opening its writer.
arena_log_add <- function(log, run, judged, rating, chunk = 2000L) {
  n <- nrow(judged)
  if (!n) return(invisible(log))
  if (is.null(log$writer)) {
    # a crashed run of this arena left its part file: this run supersedes it
    log$writer <- log_writer(run$dir, log$task_id, created = log$created, stale = "remove")
  }
  for (start in seq.int(1L, n, by = chunk)) {
    rows <- start:min(n, start + chunk - 1L)
    samples <- arena_log_samples(judged[rows, ], log$n + rows - start + 1L, log, rating,
                                 run$position_swap)
    log_writer_add(log$writer, samples)
    log$n <- log$n + length(rows)
  }
  log$unscored <- log$unscored +
    if (rating$invalid == "drop") sum(failed_judgement(judged$winner)) else 0L
  log$usage <- log$usage + c(sum(judged$input_tokens), sum(judged$output_tokens),
                             sum(judged$cost, na.rm = TRUE))
  log$priced <- log$priced || any(!is.na(judged$cost))
  log$swapped <- log$swapped + swap_consistency_counts(judged$winner_ab, judged$winner_ba)
  invisible(log)
}

# A run stopped before its end (an error) leaves no log, finished or not.
arena_log_abandon <- function(log) {
  if (!is.null(log$writer)) log_writer_abandon(log$writer)
  invisible(log)
}

# The samples of judged battles, numbered `numbers` ("battle-<number>").
arena_log_samples <- function(judged, numbers, log, rating, position_swap) {
  winner <- judged$winner
  score <- winner_points(winner, failed = if (rating$invalid == "tie") 0.5 else NA_real_)
  outcome <- battle_outcome_text(judged$model_a, judged$model_b, winner)
  input <- arena_battle_text(judged$question, judged$model_a, judged$answer_a,
                             judged$model_b, judged$answer_b)
  reply <- paste0("Verdict: ", outcome, "\n\n", na_as_empty(judged$gpt_4_response_text))
  explanation <- arena_explanation(
    list(solver_metadata = lapply(seq_along(winner), function(i) {
      list(winner = winner[[i]], winner_ab = judged$winner_ab[[i]],
           winner_ba = judged$winner_ba[[i]], position_swap = position_swap)
    }), model_a = judged$model_a, model_b = judged$model_b),
    score
  )
  options <- as.character(jsonlite::toJSON(rating, auto_unbox = TRUE))
  question_chars <- nchar(judged$question)
  answer_a_chars <- nchar(na_as_empty(judged$answer_a))
  usage <- lapply(seq_along(winner), function(i) {
    entry <- list(input_tokens = judged$input_tokens[[i]],
                  output_tokens = judged$output_tokens[[i]],
                  total_tokens = judged$input_tokens[[i]] + judged$output_tokens[[i]],
                  input_tokens_cache_write = 0, input_tokens_cache_read = 0)
    if (!is.na(judged$cost[[i]])) entry$total_cost <- judged$cost[[i]]
    stats::setNames(list(entry), log$judge_label)
  })
  lapply(seq_along(winner), function(i) {
    scorer_meta <- list(winner = winner[[i]], cached = judged$cached[[i]],
                        input_tokens = judged$input_tokens[[i]],
                        output_tokens = judged$output_tokens[[i]], cost = judged$cost[[i]])
    entry <- list(answer = outcome[[i]], explanation = explanation[[i]],
                  metadata = exact_fields(scorer_meta))
    sample <- list(
      id = paste0("battle-", numbers[[i]]), epoch = 1L, input = input[[i]], target = "",
      messages = list(
        list(role = "user", source = "input", content = arena_log_prompt),
        list(role = "assistant", source = "generate", model = log$competitors,
             content = list(list(type = "text", text = reply[[i]])))
      ),
      output = list(model = log$competitors, choices = list(), completion = outcome[[i]]),
      scores = NULL,
      metadata = list(
        model_a = judged$model_a[[i]], model_b = judged$model_b[[i]],
        rating_options = options, question_chars = question_chars[[i]],
        answer_a_chars = answer_a_chars[[i]], winner = winner[[i]],
        winner_ab = judged$winner_ab[[i]], winner_ba = judged$winner_ba[[i]],
        position_swap = position_swap, judger = judged$judger[[i]],
        error = judged$error[[i]], gpt_4_score = judged$gpt_4_score[[i]],
        request_sha256 = judged$request_sha256[[i]], tstamp = judged$tstamp[[i]]
      ),
      store = empty_object(), events = list(), model_usage = usage[[i]]
    )
    # a panel's: each judge's own verdicts (R/judges-panel.R)
    if ("judges" %in% names(judged)) sample$metadata$judges <- judged$judges[[i]]
    if (is.na(score[[i]])) {
      # Inspect takes no score without a number: kept in the metadata, as log_sample() does
      entry$scorer <- log$scorer
      sample$metadata[[unscored_field]] <- as.character(jsonlite::toJSON(
        entry, auto_unbox = TRUE, digits = NA, na = "null", json_verbatim = TRUE
      ))
      sample$scores <- NULL
    } else {
      entry <- c(list(value = exact_json(score[[i]])), entry)
      sample$scores <- stats::setNames(list(entry), log$scorer)
    }
    sample
  })
}

# The competitors' message of every sample: the battle is the sample's input, not repeated.
arena_log_prompt <- "Judge this battle: the question and both answers are the sample's input."

# Closes the log with its header: the run's ratings as the headline metrics (in the ratings'
# order), every battle's id, and the judge's usage summed over the samples. Returns the
# log's path.
arena_log_finish <- function(log, ratings, prompt_version) {
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
  n <- log$n
  usage <- list(input_tokens = log$usage[[1]], output_tokens = log$usage[[2]],
                total_tokens = log$usage[[1]] + log$usage[[2]], input_tokens_cache_write = 0,
                input_tokens_cache_read = 0)
  if (log$priced) usage$total_cost <- log$usage[[3]]
  version <- as.character(utils::packageVersion("predictivebench"))
  header <- list(
    version = 2L, status = "success",
    eval = list(
      run_id = log$run_id, created = log$created, task = log$task_id, task_id = log$task_id,
      task_version = 0L, task_file = "", task_attribs = empty_object(),
      task_args = empty_object(),
      dataset = list(name = log$name, samples = n,
                     sample_ids = as.list(paste0("battle-", seq_len(n))), shuffled = FALSE),
      model = log$competitors, model_args = empty_object(), config = list(epochs = 1L),
      revision = list(type = "git", origin = "https://github.com/UKGovernmentBEIS/inspect_ai.git",
                      commit = "9140d8a2"),
      packages = list(inspect_ai = "0.3.63",
                      vitals = as.character(utils::packageVersion("vitals")),
                      predictivebench = version),
      metadata = list(
        benchmark = "arena_ratings", predictivebench = version,
        dataset_fields = list("model_a", "model_b", "rating_options"),
        solver_json = list(), scorer_json = list(), not_computed = list(),
        judge_prompt_version = prompt_version, headline = headline
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
                         scored_samples = n - log$unscored,
                         unscored_samples = log$unscored))
    ),
    stats = list(
      started_at = log_timestamp(log$started), completed_at = log_timestamp(),
      model_usage = stats::setNames(list(usage), log$judge_label)
    )
  )
  if (log$swapped[["both"]] > 0) {
    # the judge's position consistency, shown by leaderboard() beside the ratings
    header$eval$metadata$judge_consistency <- as.list(log$swapped)
  }
  log_writer_finish(log$writer, header)
}

# The run's ratings as the summary rows of its log's headline (arena_rating_rows() computes
# the same from the log's battles).
arena_rating_summary <- function(ratings) {
  summary_rows(ratings$model, "rating",
               list(mean = ratings$rating, lower = ratings$lower, upper = ratings$upper,
                    n = ratings$battles))
}
