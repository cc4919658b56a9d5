# One contract for every benchmark family (issue 21): the same argument names, the same
# way to build a task from a dataset, scores that are doubles in [0, 1], and summaries in
# the standard rows.

# Every benchmark the package registers with a task: a new one is held to the contract
# without a line here.
benchmarks <- set_benchmark_names()

family <- function(b, verb) get(paste0(b, "_", verb), envir = asNamespace("predictivebench"))
args_of <- function(b, verb) names(formals(family(b, verb)))

summary_standard <- c("group", "metric", "estimate", "lower", "upper", "n")
request_fields <- c("max_active", "rpm", "max_tries", "backoff", "timeout", "cache", "batch",
                    "wait")

test_that("the contract reads the registry, which holds the package's benchmarks", {
  expect_gte(length(benchmarks), 1)
  expect_true(all(c("futurex", "arena") %in% benchmarks))
})

test_that("every *_dataset() starts with path, version, limit, shuffle", {
  for (b in benchmarks) {
    expect_identical(args_of(b, "dataset")[1:4], c("path", "version", "limit", "shuffle"),
                     label = b)
  }
})

test_that("every *_task() takes the core arguments first, options after name, no limit", {
  core <- c("dataset", "solver", "scorer", "epochs", "dir", "name")
  for (b in benchmarks) {
    args <- args_of(b, "task")
    expect_identical(args[seq_along(core)], core, label = b)
    expect_false("limit" %in% args, label = b)
    expect_identical(formals(family(b, "task"))$name, b, label = b)
  }
  # benchmark options configure the default solver or scorer
  expect_true("template" %in% args_of("processbench", "task"))
  expect_true(all(c("mode", "judge") %in% args_of("dsbench", "task")))
  expect_true("judge" %in% args_of("futurex", "task"))
  expect_true(all(c("judge", "answers") %in% args_of("arena", "task")))
})

test_that("solvers and scorers take request settings as one object, where they take any", {
  for (b in benchmarks) {
    for (verb in c("solver", "scorer")) {
      args <- args_of(b, verb)
      # No request setting is an argument of its own, and `settings` is the last argument
      # but for a grouped `options` object and the `...` that carries deprecated names.
      if (!"settings" %in% args) next
      expect_identical(utils::tail(setdiff(args, c("options", "...")), 1), "settings",
                       label = paste(b, verb))
      expect_length(intersect(args, request_fields), 0)
      if (verb == "solver") expect_false("params" %in% args && !"temperature" %in% args,
                                         label = paste(b, verb))
    }
  }
})

test_that("every *_summary() takes x first and a cluster argument", {
  for (b in benchmarks) {
    args <- args_of(b, "summary")
    expect_identical(args[[1]], "x", label = b)
    expect_identical(formals(family(b, "summary"))$cluster, "default", label = b)
  }
})

# Each benchmark's task on its bundled sample, built from its registration as eval_set()
# builds it, evaluated offline. An answer its scorer can read, and a judge for a task that
# takes one, where the benchmark needs them; any other benchmark gets "A" and no judge.
contract_run <- function(b, dir) {
  answer <- function(text) baseline_chat(function(prompt) text)
  text <- switch(b, futurex = "\\boxed{A}", processbench = "\\boxed{-1}",
                 deltabench = "Conclusion: yes\nError Section Number: 2\nExplanation: x",
                 dsbench = "The answer is C.", arena = "It depends.", "A")
  judge <- switch(b, dsbench = answer("True"), arena = arena_baseline_judge("longer"))
  entry <- registration(b)
  dataset <- benchmark_function(b, "dataset")(version = "sample")
  args <- c(list(dataset = dataset, dir = dir), if (!is.null(judge)) list(judge = judge))
  list(task = do.call(entry$task, args), chat = answer(text))
}

test_that("<b>_task(<b>_dataset()) is a Task whose scores are doubles in [0, 1] and whose summary has the standard rows", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  for (b in benchmarks) {
    run <- contract_run(b, withr::local_tempdir())
    expect_s3_class(run$task, "Task")
    suppressWarnings(suppressMessages(run$task$eval(solver_chat = run$chat, view = FALSE)))
    score <- run$task$get_samples()$score
    expect_type(score, "double")
    expect_true(all(is.na(score) | (score >= 0 & score <= 1)), label = b)
    expect_true(any(!is.na(score)), label = b)
    summary <- suppressMessages(family(b, "summary")(run$task))
    expect_s3_class(summary, "tbl_df")
    expect_identical(names(summary)[seq_along(summary_standard)], summary_standard, label = b)
    expect_type(summary$estimate, "double")
    expect_type(summary$n, "integer")
    expect_true(all(is.na(summary$estimate) | (summary$estimate >= 0 & summary$estimate <= 1)),
                label = b)
    # the same rows from the log the task wrote
    expect_identical(suppressMessages(family(b, "summary")(run$task$log_path)), summary,
                     label = b)
  }
})

test_that("every benchmark registers its *_summary() for logs and leaderboards", {
  for (b in benchmarks) {
    expect_identical(predictivebench:::the_benchmarks[[b]]$summary, paste0(b, "_summary"),
                     label = b)
  }
})

test_that("every benchmark's task and dataset are its registration's, run by name", {
  for (b in benchmarks) {
    expect_identical(registration(b)$task, family(b, "task"), label = b)
    expect_identical(registration(b)$dataset, family(b, "dataset"), label = b)
  }
})

test_that("prepare_*() name their input source, their output out, and skip with on_error", {
  for (b in benchmarks) {
    prepare <- registration(b)$prepare
    expect_true(is.function(prepare), label = b)
    args <- names(formals(prepare))
    expect_identical(args[1:2], c("source", "out"), label = b)
    expect_false(any(c("data_dir", "skip_broken") %in% args), label = b)
    expect_identical(eval(formals(prepare)$on_error), c("error", "skip"), label = b)
  }
})
