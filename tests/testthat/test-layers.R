# Each layer of R/ calls only the layers below it (ARCHITECTURE.md, "What each layer may
# call"), read from the parse tree: every function the package defines, and every name a file
# calls or passes on. The shared layers form a line, bottom to top; each benchmark (a file
# prefix that is not a shared layer's) is a room of its own between the skeleton and the
# evaluation sets, which calls the shared layers and other benchmarks' exported functions
# only.

# The shared layers, bottom to top: a layer may call only layers before it in the line (and
# `layer_rules` narrows that), so no two shared layers call each other. `benchmark` stands
# for every benchmark's room.
layer_line <- c("utils", "engine", "registry", "datasets", "logprobs", "log",
                "results", "stats", "judges", "skeleton", "benchmark", "evalset", "package")

layer_of <- function(file) {
  name <- sub("[.]R$", "", basename(file))
  prefix <- sub("-.*$", "", name)
  fixed <- c(`benchmark-index` = "registry", `benchmark-object` = "registry",
             `benchmark-accessors` = "registry",
             `benchmark-skeleton` = "skeleton",
             zzz = "package",
             `predictivebench-package` = "package", evalset = "evalset")
  if (name %in% names(fixed)) return(fixed[[name]])
  # any other prefix is a benchmark's: its layer is its own name
  prefix
}

is_benchmark_layer <- function(layer) !layer %in% layer_line

# Who may call whom (each layer may call itself). A benchmark may call another benchmark's
# exported functions too, and the evaluation sets any benchmark's functions.
layer_rules <- list(
  utils = character(),
  engine = "utils",
  registry = "utils",
  datasets = c("registry", "utils"),
  logprobs = c("engine", "utils"),
  log = "utils",
  results = c("registry", "log", "engine", "utils"),
  stats = c("registry", "results", "log", "engine", "utils"),
  judges = c("registry", "results", "log", "stats", "engine", "utils"),
  skeleton = c("registry", "datasets", "results", "log", "stats", "judges", "engine",
               "logprobs", "utils"),
  benchmark = c("skeleton", "judges", "registry", "datasets", "results", "log", "stats",
                "engine", "logprobs", "utils"),
  evalset = c("benchmark", "skeleton", "judges", "registry", "datasets", "results",
              "log", "stats", "engine", "logprobs", "utils"),
  package = c("registry", "engine", "utils")
)

# The rules, read against the line: each names only layers below its own, so they cannot
# hold a cycle. The pairs that break it, as "caller -> callee".
rules_off_the_line <- function(rules = layer_rules, line = layer_line) {
  out <- character()
  for (from in names(rules)) {
    up <- rules[[from]][match(rules[[from]], line) >= match(from, line)]
    if (length(up)) out <- c(out, paste(from, "->", up))
  }
  out
}

# The names a piece of code calls or refers to (not `pkg::f`, nor a field after `$` or `@`).
referenced_names <- function(exprs) {
  out <- character()
  walk <- function(x) {
    if (is.call(x)) {
      head <- x[[1]]
      if (identical(head, as.name("::")) || identical(head, as.name(":::"))) return()
      if (identical(head, as.name("$")) || identical(head, as.name("@"))) return(walk(x[[2]]))
      if (is.name(head)) out <<- c(out, as.character(head))
      for (i in seq_along(x)) if (!identical(x[[i]], quote(expr = ))) walk(x[[i]])
    } else if (is.name(x)) {
      out <<- c(out, as.character(x))
    }
  }
  for (e in exprs) walk(e)
  unique(out)
}

# The top-level functions each file defines, by name.
defined_functions <- function(files) {
  defs <- character()
  for (f in files) {
    for (e in parse(f, keep.source = FALSE)) {
      if (is.call(e) && identical(e[[1]], as.name("<-")) && is.name(e[[2]]) &&
          is.call(e[[3]]) && identical(e[[3]][[1]], as.name("function"))) {
        defs[[as.character(e[[2]])]] <- f
      }
    }
  }
  defs
}

# Every call from one layer into another: `from`, `to`, the function `name` and the files.
layer_calls <- function(files) {
  defs <- defined_functions(files)
  rows <- lapply(files, function(f) {
    used <- intersect(referenced_names(parse(f, keep.source = FALSE)), names(defs))
    to <- vapply(defs[used], layer_of, "")
    keep <- to != layer_of(f)
    data.frame(from = rep(layer_of(f), sum(keep)), to = unname(to[keep]), name = used[keep],
               file = rep(basename(f), sum(keep)), def = basename(unname(defs[used][keep])))
  })
  do.call(rbind, c(list(data.frame(from = character(), to = character(), name = character(),
                                   file = character(), def = character())), rows))
}

# The calls the rules refuse: up the line, across it, or into another benchmark's internals
# (a function it does not export).
layer_violations <- function(files, exported = character()) {
  calls <- layer_calls(files)
  out <- character()
  for (i in seq_len(nrow(calls))) {
    from <- calls$from[[i]]
    to <- calls$to[[i]]
    rule <- if (is_benchmark_layer(from)) "benchmark" else from
    allowed <- if (is_benchmark_layer(to)) {
      from == "evalset" || (rule == "benchmark" && calls$name[[i]] %in% exported)
    } else {
      to %in% layer_rules[[rule]]
    }
    if (!allowed) {
      what <- if (is_benchmark_layer(to) && rule == "benchmark") ", not exported" else ""
      out <- c(out, sprintf("%s (%s) -> %s() of %s (%s%s)", calls$file[[i]], from,
                            calls$name[[i]], calls$def[[i]], to, what))
    }
  }
  out
}

# Shared layers that call each other, directly or through others, whatever the rules say:
# each such pair once, as "a <-> b".
layer_cycles <- function(files) {
  calls <- layer_calls(files)
  calls <- calls[!is_benchmark_layer(calls$from) & !is_benchmark_layer(calls$to), ]
  layers <- unique(c(calls$from, calls$to))
  reach <- function(a) {
    seen <- character()
    todo <- a
    while (length(todo)) {
      nxt <- setdiff(unique(calls$to[calls$from %in% todo]), seen)
      seen <- c(seen, nxt)
      todo <- nxt
    }
    seen
  }
  reached <- lapply(stats::setNames(layers, layers), reach)
  out <- character()
  for (a in sort(layers)) for (b in sort(layers)) {
    if (a < b && b %in% reached[[a]] && a %in% reached[[b]]) out <- c(out, paste(a, "<->", b))
  }
  out
}

package_exports <- function(root) {
  sub("^export\\((.*)\\)$", "\\1",
      grep("^export\\(", readLines(file.path(root, "NAMESPACE")), value = TRUE))
}

test_that("each layer of R/ calls only the layers below it, each benchmark a room of its own", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)
  expect_equal(layer_violations(files, package_exports(root)), character())
  expect_equal(layer_cycles(files), character())
  # the check sees calls: the engine's own, and a benchmark's into the skeleton
  defs <- defined_functions(files)
  expect_true("generate_responses" %in%
                referenced_names(parse(file.path(root, "R", "engine-solver.R"))))
  expect_equal(layer_of(defs[["benchmark_task"]]), "skeleton")
  # each benchmark is its own layer, and reaches another only through its exports
  expect_equal(layer_of(defs[["processbench_task"]]), "processbench")
  expect_equal(layer_of(defs[["deltabench_task"]]), "deltabench")
  calls <- layer_calls(files)
  across <- calls[is_benchmark_layer(calls$from) & is_benchmark_layer(calls$to), ]
  expect_true(all(across$name %in% package_exports(root)))
})

test_that("the shared layers form a line: the rules name only layers below each", {
  expect_equal(rules_off_the_line(), character())
  expect_setequal(names(layer_rules), layer_line)
  # a rule up the line (stats and results calling each other) is refused
  rules <- layer_rules
  rules$results <- c(rules$results, "stats")
  expect_equal(rules_off_the_line(rules), "results -> stats")
})

test_that("the layer check fails on a call up the house", {
  dir <- withr::local_tempdir()
  writeLines("run_requests <- function() set_result()", file.path(dir, "engine-generate.R"))
  writeLines("set_result <- function() run_requests()", file.path(dir, "evalset.R"))
  writeLines("toy_task <- function() run_requests()", file.path(dir, "toy-task.R"))
  files <- list.files(dir, full.names = TRUE)
  expect_equal(layer_violations(files),
               "engine-generate.R (engine) -> set_result() of evalset.R (evalset)")
})

test_that("the layer check fails on a call into another benchmark's internals", {
  dir <- withr::local_tempdir()
  writeLines(c("other_task <- function() check_other_rows()",
               "check_other_rows <- function() NULL"), file.path(dir, "other-task.R"))
  writeLines("toy_task <- function() { other_task(); check_other_rows() }",
             file.path(dir, "toy-task.R"))
  writeLines("set_run <- function() check_other_rows()", file.path(dir, "evalset.R"))
  files <- list.files(dir, full.names = TRUE)
  # other_task() is exported: a benchmark may call it; the evaluation sets may call anything
  expect_equal(layer_violations(files, exported = "other_task"),
               "toy-task.R (toy) -> check_other_rows() of other-task.R (other, not exported)")
  expect_length(layer_violations(files, exported = c("other_task", "check_other_rows")), 0)
  # a shared layer never calls a benchmark, exported or not
  writeLines("judge_all <- function() other_task()", file.path(dir, "judges-panel.R"))
  files <- list.files(dir, full.names = TRUE)
  expect_equal(layer_violations(files, exported = "other_task"),
               c("judges-panel.R (judges) -> other_task() of other-task.R (other)",
                 "toy-task.R (toy) -> check_other_rows() of other-task.R (other, not exported)"))
})

test_that("the layer check fails on a cycle between shared layers", {
  dir <- withr::local_tempdir()
  writeLines("summary_fields <- function() benchmark_cluster()", file.path(dir, "results-task.R"))
  writeLines(c("benchmark_cluster <- function() folder_runs()",
               "folder_runs <- function() read_log_header()"), file.path(dir, "stats-compare.R"))
  writeLines("read_log_header <- function() NULL", file.path(dir, "results-log.R"))
  files <- list.files(dir, full.names = TRUE)
  expect_equal(layer_cycles(files), "results <-> stats")
  expect_equal(layer_violations(files),
               "results-task.R (results) -> benchmark_cluster() of stats-compare.R (stats)")
  # the judges layer sits above both, below the skeleton
  writeLines("rescore <- function() { folder_runs(); read_log_header() }",
             file.path(dir, "judges-rescore.R"))
  writeLines("benchmark_task <- function() rescore()", file.path(dir, "benchmark-skeleton.R"))
  files <- list.files(dir, full.names = TRUE)
  expect_equal(layer_cycles(files), "results <-> stats")
  expect_length(setdiff(layer_violations(files),
                        "results-task.R (results) -> benchmark_cluster() of stats-compare.R (stats)"),
                0)
})

# ARCHITECTURE.md's drawings, read back: the layer a file pattern of its drawings names.
drawn_layer <- function(pattern) {
  fixed <- c(`evalset*.R` = "evalset", `<bench>-*.R` = "benchmark",
             `benchmark-skeleton.R` = "skeleton", `benchmark-index.R` = "registry",
             `benchmark-skeleton` = "skeleton", `benchmark-index` = "registry")
  if (pattern %in% names(fixed)) return(fixed[[pattern]])
  sub("-[*][.]R$", "", pattern)
}

# "What each layer may call": each drawn layer and the layers it names (up to a `;` or a
# parenthesis), as a list.
drawn_rules <- function(lines) {
  start <- grep("^[*][*]What each layer may call[*][*]", lines)
  rest <- lines[(start + 1):length(lines)]
  fences <- grep("^```", rest)
  block <- rest[(fences[[1]] + 1):(fences[[2]] - 1)]
  entry <- cumsum(grepl("^\\S", block))
  rules <- list()
  for (k in unique(entry)) {
    part <- block[entry == k]
    layer <- drawn_layer(sub("\\s.*$", "", part[[1]]))
    said <- paste(c(sub("^\\S+\\s+-> ", "", part[[1]]), trimws(part[-1])), collapse = " ")
    words <- trimws(strsplit(sub("[;(].*$", "", said), ",")[[1]])
    words <- words[grepl("^[a-z-]+$", words)]
    rules[[layer]] <- vapply(words, drawn_layer, "", USE.NAMES = FALSE)
  }
  rules
}

test_that("ARCHITECTURE.md draws the line and the rules that test-layers.R holds, of files that exist", {
  root <- skip_if_no_source_tree()
  lines <- readLines(file.path(root, "ARCHITECTURE.md"), warn = FALSE)
  drawn <- drawn_rules(lines)
  for (layer in setdiff(names(layer_rules), c("evalset", "package"))) {
    expect_setequal(drawn[[layer]], layer_rules[[layer]])
  }
  # `ls R/` by layer: the shared layers from the top down, as the line
  start <- grep("^the shared layers, a line from the top down", lines)
  listed <- character()
  for (line in lines[(start + 1):length(lines)]) {
    if (grepl("^```", line)) break
    listed <- c(listed, drawn_layer(sub("\\s.*$", "", line)))
  }
  expect_equal(listed, rev(setdiff(layer_line, c("benchmark", "evalset", "package"))))
  # every R file it names by its full name is in R/ (and every test file in tests/testthat)
  named <- unique(unlist(regmatches(lines, gregexpr("(?<![-\\w])[a-z]+(-[a-z0-9]+)+[.]R\\b",
                                                    lines, perl = TRUE))))
  tests <- grepl("^(test|helper)-", named)
  expect_equal(named[!tests & !file.exists(file.path(root, "R", named))], character())
  expect_equal(named[tests & !file.exists(file.path(root, "tests", "testthat", named))],
               character())
})

test_that("the engine reads no option that steers a run, only the user's configuration", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "^engine-.*[.]R$", full.names = TRUE)
  read <- unlist(lapply(files, function(f) {
    calls <- list()
    walk <- function(x) {
      if (is.call(x)) {
        if (identical(x[[1]], as.name("getOption"))) calls[[length(calls) + 1]] <<- x[[2]]
        for (i in seq_along(x)) if (!identical(x[[i]], quote(expr = ))) walk(x[[i]])
      }
    }
    for (e in parse(f, keep.source = FALSE)) walk(e)
    vapply(calls, function(x) if (is.character(x)) x else "<computed>", "")
  }))
  # where responses are cached, how often a batch is polled (documented settings of the user),
  # and ellmer's and httr2's own options
  configuration <- c("predictivebench.cache_dir", "predictivebench.batch_poll_seconds",
                     "ellmer_timeout_s", "httr2_mock")
  expect_true(length(read) > 0)
  expect_equal(setdiff(read, configuration), character())
})

test_that("request settings are validated at the doors only, then passed as the object", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)
  exported <- sub("^export\\((.*)\\)$", "\\1",
                  grep("^export\\(", readLines(file.path(root, "NAMESPACE")), value = TRUE))
  callers <- character()
  for (f in files) {
    for (e in parse(f, keep.source = FALSE)) {
      if (is.call(e) && identical(e[[1]], as.name("<-")) && is.name(e[[2]]) &&
          "as_request_settings" %in% referenced_names(list(e[[3]]))) {
        callers <- c(callers, as.character(e[[2]]))
      }
    }
  }
  # the user's doors: exported constructors and entry points, and the two helpers that are
  # arena_run()'s and eval_set(arena = )'s own door
  doors <- c(exported, "arena_settings", "check_set_arena", "as_request_settings")
  expect_true(length(callers) > 0)
  expect_equal(setdiff(callers, doors), character())
})

# The Task methods (vitals' and ResultsTask's: $solve(), $score(), $eval(), $get_samples()...)
# that `files` reach with `$`, called or passed on, as "<file>: $<method>".
task_method_uses <- function(files) {
  methods <- setdiff(c(names(vitals::Task$public_methods), names(ResultsTask$public_methods)),
                     c("initialize", "clone"))
  out <- character()
  for (f in files) {
    walk <- function(x) {
      if (!is.call(x)) return()
      if (identical(x[[1]], as.name("$")) && as.character(x[[3]]) %in% methods) {
        out <<- c(out, sprintf("%s: $%s", basename(f), as.character(x[[3]])))
      }
      for (i in seq_along(x)) if (!identical(x[[i]], quote(expr = ))) walk(x[[i]])
    }
    for (e in parse(f, keep.source = FALSE)) walk(e)
  }
  unique(out)
}

test_that("the engine calls no Task method: what runs a task is above it", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "^engine-.*[.]R$", full.names = TRUE)
  expect_equal(task_method_uses(files), character())
  # the check sees a task run, called or passed on
  dir <- withr::local_tempdir()
  writeLines(c("dry_run <- function(task, chat) {", "  do.call(task$solve, list(chat))",
               "  task$score()", "}"), file.path(dir, "engine-dry-run.R"))
  expect_equal(task_method_uses(file.path(dir, "engine-dry-run.R")),
               c("engine-dry-run.R: $solve", "engine-dry-run.R: $score"))
})

# The engine's files in circles of three or more (each file calling the next, round to the
# first), each circle as its sorted files joined by " -> "; two files calling each other are a
# pair, allowed.
engine_circles <- function(files) {
  defs <- defined_functions(files)
  edges <- lapply(stats::setNames(files, basename(files)), function(f) {
    used <- intersect(referenced_names(parse(f, keep.source = FALSE)), names(defs))
    setdiff(unique(basename(unname(defs[used]))), basename(f))
  })
  reach <- lapply(edges, function(to) {
    seen <- character()
    while (length(to)) {
      seen <- c(seen, to)
      to <- setdiff(unique(unlist(edges[to])), seen)
    }
    seen
  })
  circles <- lapply(names(edges), function(f) {
    sort(unique(c(f, Filter(function(g) f %in% reach[[g]], reach[[f]]))))
  })
  circles <- unique(Filter(function(x) length(x) >= 3, circles))
  vapply(circles, paste, "", collapse = " -> ")
}

test_that("the engine's files call one way: no circle of three or more", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "^engine-.*[.]R$", full.names = TRUE)
  expect_equal(engine_circles(files), character())
  # the check sees a circle through three files, not a pair
  dir <- withr::local_tempdir()
  writeLines("a <- function() b()", file.path(dir, "engine-a.R"))
  writeLines("b <- function() c()", file.path(dir, "engine-b.R"))
  writeLines("c <- function() a()", file.path(dir, "engine-c.R"))
  writeLines("d <- function() a()", file.path(dir, "engine-d.R"))
  expect_equal(engine_circles(list.files(dir, full.names = TRUE)),
               "engine-a.R -> engine-b.R -> engine-c.R")
  writeLines("c <- function() b()", file.path(dir, "engine-c.R"))
  expect_equal(engine_circles(list.files(dir, full.names = TRUE)), character())
})
