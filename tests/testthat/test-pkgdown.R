# The reference index (_pkgdown.yml) against the exports and the help topics, as
# pkgdown::check_pkgdown() would check it. Both files are in the source tree only.

source_file <- function(...) {
  path <- file.path(skip_if_no_source_tree(), ...)
  if (!file.exists(path)) skip(paste(file.path(...), "is not in the source tree"))
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

# The cap on exports. A benchmark's family (`_task`, `_dataset`, `_solver`, `_scorer`,
# `_summary`) is one idea learned once: its five names follow one pattern, so a benchmark
# added to the package adds them without making the package harder to learn. Every other
# export is a name a user learns on its own; those stay at most 30: vitals, which users of
# this package know first, exports 18, and this package adds three layers vitals leaves out
# (pinned data, the request engine, statistics of comparison), each a reference section of
# a handful of names. 0.1.0 has 27 (the 20 of 0.1.0's first cut and the 7 of "Adding a
# benchmark"); the 3 left are the budget for a new idea, to be argued when spent.
# 31: log_convert(), converting logs is a new idea users need for Inspect interop (issue 46).
# 32: registering is an explicit verb, register_benchmark(), no more new_benchmark()'s side effect
other_exports_cap <- 32

# An options object belongs to the function it configures, as ellmer's `params()` to its chats:
# `<x>_options()` counts as part of `<x>()` when an exported function takes it as the default of
# its `options` argument, so grouping a long signature costs no name of the cap.
options_exports <- function(exports) {
  ns <- asNamespace("predictivebench")
  candidates <- grep("_options$", exports, value = TRUE)
  defaults <- unlist(lapply(setdiff(exports, candidates), function(name) {
    fun <- get(name, ns)
    if (!is.function(fun) || !"options" %in% names(formals(fun))) return(NULL)
    default <- formals(fun)$options
    if (is.call(default) && is.name(default[[1]])) as.character(default[[1]])
  }))
  intersect(candidates, defaults)
}

test_that("the NAMESPACE stays a surface a user can learn: families, plus at most 30 names", {
  exports <- namespace_exports()
  benchmarks <- set_benchmark_names()
  families <- unlist(lapply(benchmarks, paste0,
                            c("_task", "_dataset", "_solver", "_scorer", "_summary")))
  # each benchmark's family is complete
  expect_equal(setdiff(families, exports), character())
  expect_lte(length(setdiff(exports, c(families, options_exports(exports)))), other_exports_cap)
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

# Functions called anywhere in parsed code (call heads, `pkg::fun` included as `fun`).
called_functions <- function(exprs) {
  found <- character()
  # an empty argument (`x[, 1]`) is the missing symbol: not walked
  walk_parts <- function(e) {
    parts <- as.list(e)
    for (i in seq_along(parts)) if (!identical(parts[[i]], quote(expr = ))) walk(parts[[i]])
  }
  walk <- function(e) {
    if (is.call(e)) {
      head <- e[[1]]
      if (is.name(head)) found <<- c(found, as.character(head))
      if (is.call(head) && identical(head[[1]], as.name("::")) &&
          identical(as.character(head[[2]]), "predictivebench")) {
        found <<- c(found, as.character(head[[3]]))
      }
      walk_parts(e)
    } else if (is.expression(e) || is.list(e)) {
      walk_parts(e)
    }
  }
  walk(exprs)
  unique(found)
}

internal_functions <- function() {
  ns <- asNamespace("predictivebench")
  funs <- Filter(function(n) is.function(get(n, ns)), ls(ns, all.names = TRUE))
  setdiff(funs, namespace_exports())
}

test_that("examples of exported topics call exported functions only", {
  files <- list.files(source_file("man"), pattern = "\\.Rd$", full.names = TRUE)
  internal <- internal_functions()
  offenders <- character()
  for (f in files) {
    rd <- tools::parse_Rd(f)
    ex <- withr::local_tempfile(fileext = ".R")
    tools::Rd2ex(rd, ex)
    if (!file.exists(ex)) next
    bad <- intersect(called_functions(parse(ex, keep.source = FALSE)), internal)
    if (length(bad)) offenders <- c(offenders, paste0(basename(f), ": ", bad))
  }
  expect_equal(offenders, character())
})

# The R code of a Markdown file: its ```{r ...} chunks (and README's ```r blocks).
markdown_code <- function(path) {
  lines <- readLines(path, warn = FALSE)
  inside <- FALSE
  code <- character()
  for (line in lines) {
    if (!inside && grepl("^\\s*```\\s*(\\{r[ ,}].*|\\{r\\}|r)\\s*$", line)) {
      inside <- TRUE
    } else if (inside && grepl("^\\s*```\\s*$", line)) {
      inside <- FALSE
    } else if (inside) {
      code <- c(code, line)
    }
  }
  code
}

test_that("vignettes, the README and the demo call exported functions only", {
  internal <- internal_functions()
  files <- c(list.files(source_file("vignettes"), pattern = "\\.Rmd$", full.names = TRUE),
             source_file("README.md"))
  offenders <- character()
  for (f in files) {
    code <- parse(text = markdown_code(f), keep.source = FALSE)
    bad <- intersect(called_functions(code), internal)
    if (length(bad)) offenders <- c(offenders, paste0(basename(f), ": ", bad))
  }
  demo <- source_file(".ci", "demo.R")
  bad <- intersect(called_functions(parse(demo, keep.source = FALSE)), internal)
  if (length(bad)) offenders <- c(offenders, paste0("demo.R: ", bad))
  expect_equal(offenders, character())
  # the check sees code at all: the FutureX vignette calls futurex_task()
  futurex <- markdown_code(source_file("vignettes", "futurex.Rmd"))
  expect_true("futurex_task" %in% called_functions(parse(text = futurex)))
})

# pkgdown::check_pkgdown() checks the site's address (pkgdown's check_urls(): the `url` of
# _pkgdown.yml must be one of DESCRIPTION's URLs), then the reference and article indexes
# (the tests above). pkgdown is not a dependency (its graphics dependencies take long to
# build, and a test calling it would have to declare it), so its address rule is checked here,
# with BugReports.
test_that("pkgdown::check_pkgdown()'s address check holds: the site url is in DESCRIPTION's URL", {
  skip_if_not_installed("yaml")
  fields <- read.dcf(source_file("DESCRIPTION"), c("URL", "BugReports"))
  expect_false(anyNA(fields))
  urls <- sub("/$", "", strsplit(trimws(fields[1, "URL"]), "[,[:space:]]+")[[1]])
  well_formed <- "^https://[A-Za-z0-9.-]+\\.[a-z]+(/[A-Za-z0-9._-]+)*$"
  expect_true(all(grepl(well_formed, urls)), info = paste(urls, collapse = " "))
  site <- yaml::read_yaml(source_file("_pkgdown.yml"))$url
  expect_true(rlang::is_string(site))
  expect_true(sub("/$", "", site) %in% urls)
  # BugReports is the issue tracker of the repository that URL names
  bugs <- fields[1, "BugReports"]
  expect_match(bugs, "^https://github\\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+/issues$")
  expect_true(sub("/issues$", "", bugs) %in% urls)
})

# Every \link of an Rd file to a topic of this package, as c(from = <file>, to = <topic>):
# \link{topic}, \link[=topic]{text} and \link[predictivebench:topic]{text}; links to other
# packages' topics (\link[pkg]{...}, \link[pkg:topic]{...}) are theirs to keep.
rd_links <- function(file) {
  found <- character()
  walk <- function(x) {
    if (identical(attr(x, "Rd_tag"), "\\link")) {
      option <- attr(x, "Rd_option")
      target <- paste(unlist(lapply(x, as.character)), collapse = "")
      if (!is.null(option)) {
        option <- paste(as.character(option), collapse = "")
        own <- sub("^predictivebench:", "=", option)
        if (!startsWith(own, "=")) return()
        target <- sub("^=", "", own)
      }
      found <<- c(found, target)
      return()
    }
    if (is.list(x)) for (part in x) walk(part)
  }
  walk(tools::parse_Rd(file))
  unique(found)
}

# A help page a user is sent to documents an exported name (or is a public page of them);
# internal helpers have no page (`@noRd`), so that no public page can point at one. The few
# internal pages left are parameter templates (`@inheritParams`) that no page links to.
test_that("public help pages link only to exported topics (or to other packages')", {
  files <- list.files(source_file("man"), pattern = "\\.Rd$", full.names = TRUE)
  exports <- namespace_exports()
  pages <- lapply(files, function(f) {
    rd <- tools::parse_Rd(f)
    tags <- vapply(rd, attr, "", "Rd_tag")
    field <- function(tag) unlist(lapply(rd[tags == tag], as.character))
    topics <- unique(c(field("\\name"), field("\\alias")))
    list(topics = topics,
         public = !"internal" %in% field("\\keyword") || any(topics %in% exports))
  })
  public <- vapply(pages, `[[`, TRUE, "public")
  reachable <- union(exports, unlist(lapply(pages[public], `[[`, "topics")))
  offenders <- as.character(unlist(lapply(files[public], function(f) {
    bad <- setdiff(rd_links(f), reachable)
    if (length(bad)) paste0(basename(f), " -> ", bad)
  })))
  expect_equal(offenders, character())
  # nor does a public page document an internal function beside its exports (an `@rdname`
  # that would put it in the usage a user reads)
  methods <- grep("^S3method\\(", readLines(source_file("NAMESPACE")), value = TRUE)
  methods <- sub("^S3method\\((?:[^,]+::)?([^,]+),\\s*([^,)]+).*$", "\\1.\\2", methods,
                 perl = TRUE)
  internal <- setdiff(intersect(unlist(lapply(pages[public], `[[`, "topics")),
                                internal_functions()), methods)
  expect_equal(internal, character())
  # the check sees links: eval_set()'s page links to request_settings()'s
  expect_true("request_settings" %in% rd_links(source_file("man", "eval_set.Rd")))
})

# A help page "pub" of these lines after its name, alias and title, in a scratch folder.
scratch_rd <- function(lines, env = parent.frame()) {
  path <- file.path(withr::local_tempdir(.local_envir = env), "pub.Rd")
  writeLines(c("\\name{pub}", "\\alias{pub}", "\\title{Pub}", lines), path)
  path
}

test_that("the link check fails on a public page that links to an internal topic", {
  page <- scratch_rd(c("\\description{Use \\code{\\link[=helper]{helper()}}, \\link{other},",
                       "\\link[vitals]{Task} and \\link[vitals:Task]{a task}.}"))
  expect_equal(rd_links(page), c("helper", "other"))
})

# The functions an Rd file names in plain code, `name()` in its text (\code{name(...)}), as
# a user reads them: outside its links (checked above), usage and examples (the examples'
# calls are checked above). A call after `$`, `@` or `::` is another object's or package's.
rd_code_calls <- function(file) {
  found <- character()
  walk <- function(x, in_code = FALSE) {
    tag <- attr(x, "Rd_tag") %||% ""
    if (tag %in% c("\\link", "\\usage", "\\examples", "\\name", "\\alias")) return()
    if (tag %in% c("\\code", "\\verb", "\\preformatted")) in_code <- TRUE
    if (in_code && tag %in% c("TEXT", "RCODE", "VERB")) {
      text <- paste(as.character(x), collapse = "")
      calls <- gregexpr("(?<![$@:A-Za-z0-9._])[A-Za-z.][A-Za-z0-9._]*(?=\\()", text,
                        perl = TRUE)
      found <<- c(found, regmatches(text, calls)[[1]])
      return()
    }
    if (is.list(x)) for (part in x) walk(part, in_code)
  }
  walk(tools::parse_Rd(file))
  unique(found)
}

# A public page's text names only what a user can call: an internal helper named in plain
# code (`helper()`) sends the reader to a function they can't call or look up.
test_that("public help pages name no internal function in plain code", {
  files <- list.files(source_file("man"), pattern = "\\.Rd$", full.names = TRUE)
  internal <- internal_functions()
  offenders <- character()
  for (f in files) {
    rd <- tools::parse_Rd(f)
    tags <- vapply(rd, attr, "", "Rd_tag")
    if ("internal" %in% unlist(lapply(rd[tags == "\\keyword"], as.character))) next
    bad <- intersect(rd_code_calls(f), internal)
    if (length(bad)) offenders <- c(offenders, paste0(basename(f), ": ", bad))
  }
  expect_equal(offenders, character())
  # the check sees plain code: compare_models()'s page writes `sd(d) / sqrt(n)`
  expect_true("sd" %in% rd_code_calls(source_file("man", "compare_models.Rd")))
})

test_that("the plain-code check finds calls in code, not in links, examples or other objects", {
  page <- scratch_rd(c("\\description{See \\code{helper(x)} and \\code{\\link[=other]{other()}},",
                       "\\code{tsk$eval()}, \\code{vitals::vitals_view()}, \\code{a + inner(1)}.}",
                       "\\examples{hidden()}"))
  expect_equal(rd_code_calls(page), c("helper", "inner"))
})
