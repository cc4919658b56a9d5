# The reference index (_pkgdown.yml) against the exports and the help topics, as
# pkgdown::check_pkgdown() would check it. Both files are in the source tree only.

source_file <- function(...) {
  path <- testthat::test_path("..", "..", ...)
  if (!file.exists(path)) skip(paste(file.path(...), "is not in this tree (an installed package)"))
  path
}

namespace_exports <- function() {
  lines <- readLines(source_file("NAMESPACE"))
  sub("^export\\((.*)\\)$", "\\1", grep("^export\\(", lines, value = TRUE))
}

reference_entries <- function() {
  skip_if_not_installed("yaml")
  config <- yaml::read_yaml(source_file("_pkgdown.yml"))
  unlist(lapply(config$reference, function(section) section$contents))
}

# Non-internal help topics: name and aliases of each Rd file.
public_topics <- function() {
  files <- list.files(source_file("man"), pattern = "\\.Rd$", full.names = TRUE)
  topics <- lapply(files, function(f) {
    rd <- tools::parse_Rd(f)
    tags <- vapply(rd, attr, "", "Rd_tag")
    field <- function(tag) unlist(lapply(rd[tags == tag], as.character))
    if ("internal" %in% field("\\keyword")) return(NULL)
    unique(c(field("\\name"), field("\\alias")))
  })
  Filter(Negate(is.null), topics)
}

test_that("the NAMESPACE stays a surface a user can learn: at most 50 exports", {
  exports <- namespace_exports()
  expect_lte(length(exports), 50)
  # each benchmark's family is complete
  for (b in c("futurex", "processbench", "deltabench", "probsem", "dsbench", "arena")) {
    family <- paste0(b, c("_task", "_dataset", "_solver", "_scorer", "_summary"))
    expect_equal(setdiff(family, exports), character())
  }
  # steps of one benchmark and the old helpers are gone
  expect_false(any(c("prepare_futurex", "baseline_constant", "autoplot_summary",
                     "generate_responses", "elo_online", "python_available") %in% exports))
})

test_that("_pkgdown.yml lists every export exactly once, and nothing that is not a topic", {
  exports <- namespace_exports()
  entries <- reference_entries()
  listed <- entries[entries %in% exports]
  expect_setequal(listed, exports)
  expect_equal(listed[duplicated(listed)], character())
  aliases <- unlist(public_topics())
  expect_equal(setdiff(entries, c(exports, aliases)), character())
})

test_that("every public help topic is reachable from the reference index", {
  entries <- reference_entries()
  unlisted <- Filter(function(topic) !any(topic %in% entries), public_topics())
  expect_equal(vapply(unlisted, `[[`, "", 1), character())
})
