# The vignettes' prose says what the output beside it shows: a number read off an output is
# written as inline R (`r ...`), computed from the chunk's objects, so it cannot drift from
# the output when the package changes. A decimal number typed into prose is the usual sign
# of one that was copied instead.

# A vignette's prose: no YAML header, no code chunks or fenced blocks, no code spans or inline
# R (a span may run over a line break), no HTML comments. One string per vignette.
vignette_prose <- function(path) {
  lines <- readLines(path, encoding = "UTF-8", warn = FALSE)
  if (length(lines) && lines[[1]] == "---") {
    end <- which(lines == "---")
    if (length(end) > 1) lines <- lines[-seq_len(end[[2]])]
  }
  fence <- grepl("^\\s*```", lines)
  inside <- (cumsum(fence) %% 2 == 1) | fence
  prose <- paste(ifelse(inside, "", lines), collapse = "\n")
  prose <- gsub("<!--.*?-->", " ", prose, perl = TRUE)
  gsub("`[^`]*`", " ", prose)
}

# Decimal numbers (digits, a dot, digits) in prose, each with a little context.
prose_decimals <- function(prose) {
  at <- gregexpr("(?<![0-9A-Za-z.])[0-9]+[.][0-9]+(?![0-9A-Za-z]|[.][0-9])", prose, perl = TRUE)
  hits <- regmatches(prose, at)[[1]]
  starts <- at[[1]]
  if (starts[[1]] < 0) return(tibble::tibble(number = character(), context = character()))
  context <- substring(prose, pmax(1, starts - 30), starts + attr(at[[1]], "match.length") + 30)
  tibble::tibble(number = hits, context = gsub("\\s+", " ", context))
}

# Numbers that are definitions, not outputs: a benchmark's fixed weights and parameters, as
# the original fixes them, and the citation of a paper. Each is named with its vignette.
definitional <- list(
  futurex.Rmd = c("0.1", "0.2", "0.3", "0.4"),  # FutureX's level weights (eval.py)
  # ProcessBench's sampling temperature, DeltaBench's top-p
  processbench.Rmd = c("0.7", "0.8"),
  "many-models.Rmd" = "0.7",                      # ProcessBench's temperature, again
  arena.Rmd = "0.5",                              # a tie's points in EloBench's Elo
  judges.Rmd = "0.8",                             # Krippendorff's alpha asked of coders
  "comparing-models.Rmd" = "2411.00640"           # the arXiv number of Miller (2024)
)

test_that("the prose of the package's vignettes holds no decimal number copied from output", {
  root <- skip_if_no_source_tree()
  paths <- list.files(file.path(root, "vignettes"), pattern = "[.]Rmd$", full.names = TRUE)
  expect_gt(length(paths), 5)
  found <- do.call(rbind, lapply(paths, function(path) {
    hits <- prose_decimals(vignette_prose(path))
    hits <- hits[!hits$number %in% definitional[[basename(path)]], ]
    if (nrow(hits)) cbind(vignette = basename(path), hits) else NULL
  }))
  found <- found %||% data.frame()
  expect_equal(nrow(found), 0, info = paste(
    "Write these as inline R computed from the chunk's objects:",
    paste0(found$vignette, ": ", found$number, " in '", found$context, "'", collapse = "\n"),
    sep = "\n"
  ))
})

test_that("the prose check finds a copied decimal and nothing in code or inline R", {
  path <- withr::local_tempfile(fileext = ".Rmd")
  writeLines(c(
    "---", "title: \"x 1.5\"", "---", "",
    "```{r}", "x <- 0.25", "```", "",
    "The score is 0.75 here, `r round(x, 2)` there and `0.5` in code;",
    "version `1.2.3` and e.g. 3.14.15 are not decimals of an output,",
    "nor is `getOption(\"a\",", "2.5)` across a line. The end: 0.9.",
    "<!-- 0.33 in a comment -->"
  ), path)
  hits <- prose_decimals(vignette_prose(path))
  expect_equal(hits$number, c("0.75", "0.9"))
  expect_match(hits$context[[1]], "The score is 0.75 here")
})
