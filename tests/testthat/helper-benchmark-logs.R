# Checks of a benchmark's vitals log (issue 12), shared by the DSBench, probsem and arena
# tests: the header's metrics are the summary's estimates, the model usage is what
# $get_cost() counted, and sample metadata is key-value.

# Every header metric equals, to the last digit, the estimate of the summary row it names
# (a row's key is its group when groups are unique), and every row is in the header: as a
# metric (the first always, as "NaN" when its estimate is NA), or, when its estimate is NA,
# named in `eval.metadata.not_computed`.
expect_log_metrics <- function(path, rows) {
  log <- jsonlite::fromJSON(path, simplifyVector = FALSE)
  metrics <- log$results$scores[[1]]$metrics
  missing <- as.character(unlist(log$eval$metadata$not_computed))
  first <- names(metrics)[[1]]
  expect_setequal(setdiff(names(metrics), first), setdiff(rows$group[!is.na(rows$estimate)], first))
  expect_setequal(missing, rows$group[is.na(rows$estimate)])
  for (key in names(metrics)) {
    logged <- as.double(metrics[[key]]$value)
    expect_identical(logged, as.double(rows$estimate[rows$group == key]), label = key)
  }
  invisible(metrics)
}

# The log's model usage per model (models with any tokens) is the task's $get_cost().
expect_log_usage <- function(tsk) {
  logged <- log_usage(tsk$log_path)
  logged <- logged[logged$input_tokens + logged$output_tokens > 0, ]
  spent <- task_usage(tsk)
  expect_equal(as.data.frame(logged[order(logged$model), ]),
               as.data.frame(spent[order(spent$model), ]))
  invisible(logged)
}

# Each sample's metadata and score metadata are flat fields: one value each, no str() text.
expect_key_value_metadata <- function(path) {
  samples <- jsonlite::fromJSON(path, simplifyVector = FALSE)$samples
  flat <- function(fields) {
    all(vapply(fields, function(v) is.null(v) || (!is.list(v) && length(v) == 1), TRUE))
  }
  for (s in samples) {
    expect_true(flat(s$metadata))
    expect_false(any(grepl("^List of|^ \\$ ", unlist(s$metadata))))
    expect_true(flat(s$scores[[1]]$metadata[setdiff(names(s$scores[[1]]$metadata),
                                                    "grading")]))
  }
  invisible(samples)
}

# Validates logs against Inspect AI's published log schema (component EvalLog of
# ../shared/reference/inspect/inspect-openapi.json) with Python's jsonschema (Debian's
# python3-jsonschema), through tests/testthat/inspect/validate_log.py. Skips only when the
# reference folder is absent. Returns the validator's lines, one per log ("ok <path>").
# `script = "validate_eval.py"` checks `.eval` logs, entry by entry.
expect_inspect_valid <- function(paths, script = "validate_log.py") {
  schema <- skip_if_no_reference("inspect", "inspect-openapi.json")
  python <- if (file.exists("/usr/bin/python3")) "/usr/bin/python3" else "python3"
  script <- testthat::test_path("inspect", script)
  res <- processx::run(python, c(script, schema, paths), error_on_status = FALSE)
  testthat::expect(res$status == 0,
                   paste0("Inspect's schema rejects a log:\n", res$stdout, res$stderr))
  invisible(strsplit(res$stdout, "\n")[[1]])
}

# A rescore()'s log header names the log it rescored (its file, task and run), the judge
# and the judge's provider; returns the header.
expect_rescored_header <- function(path, old, judge, provider = "openai_compatible") {
  header <- read_log_header(path)
  before <- read_log_header(old)
  meta <- header$eval$metadata
  expect_equal(meta$rescored_from, basename(old))
  expect_equal(meta$rescored_from_task, before$eval$task_id)
  expect_equal(meta$rescored_from_run, before$eval$run_id)
  expect_equal(meta$judge, judge)
  expect_equal(meta$judge_provider, provider)
  invisible(header)
}
