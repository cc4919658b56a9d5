# Conformance of probsem_compare_humans() and of the paper-era probsem texts with the
# CogSci 2023 paper's published files (read from ../shared/reference/probsem-cogsci2023,
# never copied). Run from the package root: Rscript bench/probsem-humans.R
pkgload::load_all(quiet = TRUE)
Sys.setenv(RETICULATE_PYTHON = Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3"))

dir <- file.path("..", "shared", "reference", "probsem-cogsci2023")
if (!dir.exists(dir)) {
  message("Reference files not found under ", dir, ": nothing to check.")
  quit(status = 0)
}
humans <- file.path(dir, "tug-of-war_AV-1_human_results.csv")
table <- if (python_available()) prepare_probsem(file.path(dir, "tug-of-war.txt"))

for (suite in c("AV-1a", "AV-1b")) {
  name <- file.path(dir, paste0("tug-of-war_", suite, "_code-davinci-002_"))
  results <- utils::read.csv(paste0(name, "results.csv"))
  published <- utils::read.csv(paste0(name, "stats.csv"))
  if (!is.null(table)) {
    rows <- table[table$suite == suite, ]
    texts <- rep(rows$text, lengths(rows$queries))
    cat(sprintf("%s: %d of %d scored texts equal the published results' texts\n", suite,
                sum(texts == results$text & unlist(rows$queries) == results$program),
                nrow(results)))
  }
  started <- proc.time()[["elapsed"]]
  out <- probsem_compare_humans(results, humans)
  seconds <- proc.time()[["elapsed"]] - started
  se <- sqrt(2 * pmax(published$pval * (1 - published$pval), 1e-4) / 10000)
  cat(sprintf(paste("%s: max |js_distance - published| = %.1e; p-values: max |difference|",
                    "= %.4f, max in standard errors = %.1f; %.1f s\n"),
              suite, max(abs(out$js_distance - published$js_distance)),
              max(abs(out$pval - published$pval)), max(abs(out$pval - published$pval) / se),
              seconds))
}
