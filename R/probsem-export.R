# probsem results files: the original's per-suite CSVs, written as pandas writes them.

#' Write the original probsem results CSV files
#'
#' Writes one CSV per prompt and suite, named as the original's
#' `<prompt>_<suite>_<model>_results.csv` (with the original's file-name sanitizing: `/`,
#' `<`, `>`, `:`, `"`, `\`, `|`, `?`, `*` runs and a leading or trailing space or dot become
#' `-`, so `meta-llama/Llama-3` gives `meta-llama-Llama-3`). Columns are `text` (the context's
#' assembled pretext, context and posttext), `query`, `logp` (the score after normalization
#' and temperature) and `score` (the softmax probability), one row per context and query in
#' suite order. Numbers are written as pandas writes them (shortest round-trip form), missing
#' values as empty fields. Files are written atomically.
#'
#' The original's CSV names the third column `weights` in some versions; `logp` here.
#'
#' @param x An evaluated [probsem_task()] or its `$get_samples()` tibble.
#' @param dir The output folder (created if needed).
#' @param model The model name for file names; `NULL` takes it from the solver metadata.
#' @returns The paths written, invisibly.
#' @noRd
probsem_write_results <- function(x, dir = ".", model = NULL) {
  check_string(dir)
  check_string(model, allow_null = TRUE)
  samples <- probsem_samples(x)
  dist <- probsem_distributions(samples)
  if (is.null(model)) {
    models <- unique(vapply(samples$solver_metadata, function(m) m$model %||% NA_character_, ""))
    models <- models[!is.na(models)]
    if (length(models) != 1) {
      abort_pb("Can't tell the model name from the samples; pass {.arg model}.", "argument")
    }
    model <- models[[1]]
  }
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  groups <- unique(dist[c("prompt", "suite")])
  paths <- vapply(seq_len(nrow(groups)), function(g) {
    rows <- dist[dist$prompt == groups$prompt[[g]] & dist$suite == groups$suite[[g]], ]
    run_id <- probsem_sanitize(paste0(groups$prompt[[g]], "_", groups$suite[[g]], "_", model))
    path <- file.path(dir, paste0(run_id, "_results.csv"))
    lines <- c("text,query,logp,score",
               paste(csv_field(rows$text), csv_field(rows$query), py_float_repr(rows$logp),
                     py_float_repr(rows$prob), sep = ","))
    write_atomic(path, function(tmp) {
      con <- file(tmp, open = "wb")
      on.exit(close(con))
      writeBin(charToRaw(enc2utf8(paste0(paste(lines, collapse = "\n"), "\n"))), con)
    })
    path
  }, "")
  invisible(paths)
}

# The original's sanitize_filename(): re.sub(r'^[ .]|[/<>:"\\|?*]+|[ .]$', "-", text).
probsem_sanitize <- function(text) {
  gsub('^[ .]|[/<>:"\\\\|?*]+|[ .]$', "-", text, perl = TRUE)
}
