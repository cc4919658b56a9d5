# Canaries: one per reach past vitals' exported API (R/results-compat-vitals.R). Each fails with a
# message naming what vitals changed, so an upgrade of vitals shows what to fix.

scored_arith_task <- function() {
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = generate_solver(settings = request_settings(cache = FALSE)),
                          scorer = arith_scorer(), dir = withr::local_tempdir(.local_envir = parent.frame()))
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  tsk
}

test_that("a ResultsTask records its steps in its own run state", {
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE))
  state <- tsk$run_state()
  expect_identical(unname(state$metric_results[[1]]$arguments), list("self$get_samples()$score"))
  expect_identical(state$solutions$name, "futurex_solver")
  expect_identical(state$scores$name, "futurex_score")
})

test_that("canary: a plain Task keeps its steps, epochs and last-task stash where the compat file reads them", {
  tsk <- scored_arith_task()
  private <- tsk$.__enclos_env__$private
  expect(exists("epochs", envir = private, inherits = FALSE),
         "vitals changed: Task has no private field `epochs` (see vitals_epochs())")
  expect(is.function(private$stash_last_task),
         "vitals changed: Task has no private method `stash_last_task()` (see vitals_stash_task())")
  step <- vitals_step(tsk, "solver")
  expect(is.function(step$fn) && is.character(step$name),
         "vitals changed: a Task's steps no longer keep `fn` and `fn_name` (logged())")
  vitals_stash_task(tsk)
  expect(identical(get(".last_task", envir = as.environment("pkg:vitals")), tsk),
         "vitals changed: stash_last_task() no longer sets `.last_task`")
})

test_that("a ResultsTask's run writes nothing into vitals' private state, with or without a log", {
  local_arith_benchmark()
  for (write_log in c(TRUE, FALSE)) {
    tsk <- arith_task(dir = withr::local_tempdir())
    tsk$write_log <- write_log
    tsk$chunk_size <- 2
    private <- tsk$.__enclos_env__$private
    before <- private$samples
    msgs <- character()
    withCallingHandlers(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE),
                        message = function(m) {
                          msgs <<- c(msgs, conditionMessage(m))
                          invokeRestart("muffleMessage")
                        })
    expect_identical(private$samples, before)
    expect_false(private$solved)
    expect_null(private$metric_results)
    expect_equal(nrow(tsk$get_samples()), 4)
    expect_true(any(grepl("chunk 2 of 2", msgs)))  # one eval path: chunks also without a log
    expect_identical(is.null(tsk$log_path), !write_log)
  }
  expect_null(ResultsTask$private_methods$apply_metrics)
})

test_that("outside its compat file, nothing reaches into a vitals Task's private state", {
  root <- skip_if_no_source_tree()
  files <- setdiff(list.files(file.path(root, "R"), pattern = "[.]R$"),
                   c("results-compat-vitals.R", "engine-compat-ellmer.R"))
  reaching <- Filter(function(file) {
    code <- readLines(file.path(root, "R", file))
    any(grepl("vitals_private(", code, fixed = TRUE) | grepl(".__enclos_env__", code, fixed = TRUE))
  }, files)
  expect_identical(reaching, character())
})
