# Each layer of R/ calls only the layers below it (ARCHITECTURE.md, "What each layer may
# call"), read from the parse tree: every function the package defines, and every name a file
# calls or passes on. A new benchmark's files (any prefix that is not a shared layer's) are the
# top of the house, below evaluation sets only.

layer_of <- function(file) {
  name <- sub("[.]R$", "", basename(file))
  prefix <- sub("-.*$", "", name)
  fixed <- c(`benchmark-registry` = "registry", `benchmark-skeleton` = "skeleton",
             `benchmark-portable` = "portable", zzz = "package",
             `predictivebench-package` = "package", evalset = "evalset")
  if (name %in% names(fixed)) return(fixed[[name]])
  shared <- c("engine", "datasets", "results", "stats", "logprobs", "utils", "evalset")
  if (prefix %in% shared) prefix else "benchmark"
}

# Who may call whom (each layer may call itself).
layer_rules <- list(
  utils = character(),
  engine = "utils",
  registry = "utils",
  portable = c("registry", "utils"),
  datasets = c("registry", "utils"),
  logprobs = c("engine", "utils"),
  stats = c("registry", "results", "engine", "utils"),
  results = c("registry", "stats", "engine", "utils"),
  skeleton = c("registry", "datasets", "results", "stats", "engine", "logprobs", "utils"),
  benchmark = c("skeleton", "registry", "datasets", "results", "stats", "engine", "logprobs",
                "utils"),
  evalset = c("benchmark", "skeleton", "portable", "registry", "datasets", "results", "stats",
              "engine", "logprobs", "utils"),
  package = c("registry", "engine", "utils")
)

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

layer_violations <- function(files) {
  defs <- defined_functions(files)
  out <- character()
  for (f in files) {
    from <- layer_of(f)
    used <- intersect(referenced_names(parse(f, keep.source = FALSE)), names(defs))
    for (name in used) {
      to <- layer_of(defs[[name]])
      if (to != from && !to %in% layer_rules[[from]]) {
        out <- c(out, sprintf("%s (%s) -> %s() of %s (%s)", basename(f), from, name,
                              basename(defs[[name]]), to))
      }
    }
  }
  out
}

test_that("each layer of R/ calls only the layers below it", {
  root <- skip_if_no_source_tree()
  files <- list.files(file.path(root, "R"), pattern = "[.]R$", full.names = TRUE)
  expect_equal(layer_violations(files), character())
  # the check sees calls: the engine's own, and a benchmark's into the skeleton
  defs <- defined_functions(files)
  expect_true("generate_responses" %in%
                referenced_names(parse(file.path(root, "R", "engine-solver.R"))))
  expect_equal(layer_of(defs[["benchmark_task"]]), "skeleton")
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
