# A small benchmark for the results layer: arithmetic questions in two levels, a solver that
# votes (several requests per sample), a scorer with an optional judge, and a summary whose
# headline ("weighted") is not the plain mean of the scores.

arith_dataset <- function() {
  tibble::tibble(
    id = c("a", "b", "c", "d"),
    input = c("1+1?", "2+2?", "3+3?", "4+4?"),
    target = c("2", "4", "6", "8"),
    level = c(1L, 1L, 2L, 2L)
  )
}

arith_summary <- function(x) {
  samples <- if (inherits(x, "Task")) x$get_samples() else x
  rows <- grouped_summary(samples$score, by = paste("level", samples$level), metric = "score",
                          limits = c(0, 1))
  by_level <- rows[rows$group != "overall", ]
  weighted <- sum(by_level$estimate * c(0.25, 0.75))
  rbind(tibble::tibble(group = "weighted", metric = "score", estimate = weighted,
                       lower = max(0, weighted - 0.1), upper = min(1, weighted + 0.1),
                       n = sum(by_level$n), n_missing = sum(by_level$n_missing)), rows)
}

local_arith_benchmark <- function(name = "arith", .env = parent.frame()) {
  local_benchmarks(list(new_benchmark(
    name, list(fn = arith_summary, headline = c("weighted", "level 1"), by = "level"))),
    env = .env)
  invisible(name)
}

# Sends every input `votes` times; the sample's result is the first answer, its metadata the
# summed usage of all votes.
arith_solver <- function(votes = 3, cache = FALSE) {
  function(inputs, ..., solver_chat) {
    owner <- rep(seq_along(inputs), each = votes)
    res <- generate_responses(solver_chat, inputs[owner], cache = cache)
    report_failures(res$error)
    rows <- split(seq_along(owner), owner)
    list(
      result = vapply(rows, function(r) res$result[[r[[1]]]], ""),
      solver_chat = lapply(rows, function(r) res$chat[[r[[1]]]]),
      solver_metadata = lapply(rows, function(r) {
        c(list(answers = res$result[r], errors = res$error[r]), usage_metadata(res, r))
      })
    )
  }
}

# Scores 1 for the right answer and 1/3 otherwise; with a judge chat, each sample is also
# sent to the judge once (its verdict is logged, its usage counted).
arith_scorer <- function(judge = NULL, cache = FALSE) {
  function(samples, ...) {
    score <- ifelse(!is.na(samples$result) & samples$result == samples$target, 1, 1 / 3)
    out <- list(score = score, explanation = paste("extracted", samples$result, "vs",
                                                   samples$target))
    meta <- lapply(seq_len(nrow(samples)), function(i) {
      list(extracted = samples$result[[i]], target = samples$target[[i]])
    })
    if (!is.null(judge)) {
      res <- generate_responses(judge, paste("Judge:", samples$result), cache = cache)
      out$scorer_chat <- res$chat
      meta <- lapply(seq_along(meta), function(i) {
        c(meta[[i]], list(verdict = res$result[[i]]), usage_metadata(res, i))
      })
    }
    out$scorer_metadata <- meta
    out
  }
}

arith_task <- function(solver = arith_solver(), scorer = arith_scorer(), dir, ...) {
  ResultsTask$new(dataset = arith_dataset(), solver = solver, scorer = scorer,
                  benchmark = "arith", dir = dir, ...)
}

log_json <- function(path) parse_log_json(read_text(path), simplifyVector = FALSE)

# One FutureX run with an offline chat (FutureX registers itself when the package loads).
futurex_run <- function(answer, dir) {
  tsk <- futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = request_settings(cache = FALSE)), dir = dir)
  suppressMessages(tsk$eval(solver_chat = baseline_constant(answer), view = FALSE))
  tsk
}

# What issue 12 asks of every benchmark's log, checked on an evaluated task: the header's
# metrics are the registered headline rows of `summary` to the last digit, the scorer is
# `<benchmark>_score`, every sample's score has an explanation, its metadata (and score
# metadata) is key-value with the dataset `fields`, the model usage is what get_cost()
# reports, and the summary of the log file is the live one. Returns the parsed log.
expect_results_log <- function(tsk, summary, fields) {
  live <- suppressMessages(summary(tsk))
  log <- log_json(tsk$log_path)
  entry <- registered_benchmarks()
  keys <- summary_keys(live)
  # a benchmark registered with headline = NULL reports every row of its summary
  headline <- entry$headline[[match(tsk$benchmark, entry$name)]]
  if (!length(headline)) headline <- keys
  metrics <- log$results$scores[[1]]$metrics
  # the first headline row always, as "NaN" when it has no estimate (never null); the others
  # when they have one; every row without one named as not computed
  missing <- as.character(unlist(log$eval$metadata$not_computed))
  testthat::expect_setequal(missing, keys[keys %in% headline & is.na(live$estimate)])
  headline <- headline[seq_along(headline) == 1L | !headline %in% missing]
  testthat::expect_named(metrics, headline)
  for (key in headline) {
    # JSON has no integer/double distinction: a logged 0 reads back as an integer
    value <- metrics[[key]]$value
    if (key %in% missing) testthat::expect_identical(value, "NaN", label = key)
    testthat::expect_identical(as.double(value), live$estimate[keys == key], label = key)
  }
  testthat::expect_match(log$results$scores[[1]]$name, paste0("^", tsk$benchmark, "_score"))
  text <- readLines(tsk$log_path)
  testthat::expect_false(any(grepl("List of|\\$ :|@@pb:", text)))
  for (sample in log$samples) {
    testthat::expect_true(all(lengths(sample$metadata) <= 1))
    testthat::expect_true(all(fields %in% names(sample$metadata)))
    # `grading` is vitals' record of a judge's conversation
    score_meta <- sample$scores[[1]]$metadata
    testthat::expect_true(all(lengths(score_meta[names(score_meta) != "grading"]) <= 1))
    testthat::expect_true(nzchar(sample$scores[[1]]$explanation %||% ""))
  }
  usage <- function(x) {
    x <- x[x$input_tokens + x$output_tokens > 0, ]
    x <- x[order(x$model), c("model", "input_tokens", "output_tokens")]
    tibble::as_tibble(x)
  }
  testthat::expect_equal(usage(log_usage(tsk$log_path)), usage(task_usage(tsk)))
  testthat::expect_identical(suppressMessages(summary(tsk$log_path)), live)
  invisible(log)
}

# Fake-server replies for a FutureX run with a normalization judge: the judge gives the values
# 12.5 and 12, the solver answers \boxed{12}; each with its own token counts.
futurex_judge_reply <- function(body, n) {
  if (grepl("normalization", body$messages[[1]]$content %||% "")) {
    list(text = "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12",
         usage = list(prompt_tokens = 40L, completion_tokens = 9L))
  } else {
    list(text = "\\boxed{12}", usage = list(prompt_tokens = 20L, completion_tokens = 4L))
  }
}
