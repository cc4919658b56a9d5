# ProcessBench results files: the {dataset}_{model}_votes{n} CSV written inside dir.

#' Write ProcessBench results files
#'
#' Writes what ProcessBench's evaluation script leaves behind, for comparison with other
#' runs: a JSON Lines file of per-sample results (`id`, `task_l1`, `label`, `prediction`,
#' `match`, `votes`, `critiques`, `errors`) and a CSV of [processbench_summary()], named
#' `{dataset}_{model}_votes{n}.jsonl` and `.csv`. Both are written atomically (a crash leaves
#' the old file or the new one, never half of one) inside `dir`; characters other than
#' letters, digits, `.`, `_` and `-` in the name parts become `-`, so a model name such as
#' `org/model` cannot write elsewhere.
#'
#' @param x An evaluated [processbench_task()] or its samples.
#' @param dir The directory to write into (created if needed).
#' @param dataset The dataset's name, such as `"deltabench"` or `"gsm8k"`.
#' @param model The model's name; `NULL` takes it from the first sample's chat.
#' @param n_votes Votes per sample; `NULL` takes it from the solver metadata (`n_votes`,
#'   recorded by [processbench_solver()] for every sample, so a sample whose requests failed
#'   does not change the count).
#' @inheritParams processbench_summary
#' @returns The two paths (named `results` and `summary`), invisibly.
#' @noRd
processbench_write_results <- function(x, dir, dataset, model = NULL, n_votes = NULL,
                                       by = "default") {
  by <- summary_by(by, "processbench")
  check_string(dir)
  check_string(dataset)
  check_string(model, allow_null = TRUE)
  samples <- processbench_samples(x)
  items <- processbench_items(samples, by = NULL)
  meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
    rep(list(NULL), nrow(samples))
  if (is.null(model)) {
    chat <- if ("solver_chat" %in% names(samples)) samples$solver_chat[[1]]
    model <- if (inherits(chat, "Chat")) chat$get_model() else "unknown"
  }
  # The solver records n_votes in every sample's metadata (failed votes included); older
  # metadata without it falls back to the longest list of votes.
  n_votes <- n_votes %||% processbench_meta_votes(meta)
  check_count(n_votes)
  stem <- paste0(safe_name(dataset), "_", safe_name(model), "_votes", n_votes)
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  paths <- c(results = file.path(dir, paste0(stem, ".jsonl")),
             summary = file.path(dir, paste0(stem, ".csv")))
  lines <- vapply(seq_len(nrow(samples)), function(i) {
    m <- meta[[i]] %||% list()
    record <- list(
      id = if ("id" %in% names(samples)) samples$id[[i]] else i,
      task_l1 = if ("task_l1" %in% names(samples)) samples$task_l1[[i]] else NA,
      label = samples$label[[i]], prediction = items$prediction[[i]],
      match = items$match[[i]], votes = I(m$votes %||% integer()),
      critiques = I(m$critiques %||% character()), errors = I(m$errors %||% character())
    )
    as.character(jsonlite::toJSON(record, auto_unbox = TRUE, null = "null", na = "null",
                                  digits = NA))
  }, "")
  summary <- suppressMessages(processbench_summary(samples, by = if (by %in% names(samples)) by))
  write_atomic(paths[["results"]], function(tmp) {
    con <- file(tmp, open = "w", encoding = "UTF-8")
    on.exit(close(con))
    writeLines(enc2utf8(lines), con, useBytes = TRUE)
  })
  write_atomic(paths[["summary"]], function(tmp) {
    utils::write.csv(summary, tmp, row.names = FALSE, na = "")
  })
  invisible(paths)
}

processbench_meta_votes <- function(meta) {
  recorded <- unlist(lapply(meta, function(m) m$n_votes))
  if (length(recorded)) return(max(recorded))
  max(c(1L, lengths(lapply(meta, function(m) m$votes))))
}

safe_name <- function(x) {
  x <- gsub("[^A-Za-z0-9._-]+", "-", x)
  x <- gsub("^[.-]+", "", x)
  if (!nzchar(x)) "unnamed" else x
}
