# Canaries: one per reach past vitals' exported API (R/results-compat-vitals.R). Each fails with a
# message naming what vitals changed, so an upgrade of vitals shows what to fix.

scored_arith_task <- function() {
  tsk <- vitals::Task$new(dataset = arith_dataset(), solver = generate_solver(settings = request_settings(cache = FALSE)),
                          scorer = arith_scorer(), dir = withr::local_tempdir(.local_envir = parent.frame()))
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  tsk
}

test_that("canary: a Task keeps its state in the private fields the log reads", {
  tsk <- scored_arith_task()
  private <- tsk$.__enclos_env__$private
  expect(is.environment(private), "vitals changed: a Task has no R6 private environment")
  for (field in c("samples", "scores", "timestamps", "metric_results", "run_id", "solutions",
                  "dataset_name", "metric_fns")) {
    expect(exists(field, envir = private, inherits = FALSE),
           sprintf("vitals changed: Task has no private field `%s` (see vitals_log_state())", field))
  }
  state <- vitals_log_state(tsk)
  expect(is.character(state$scores$name) && is.character(state$solver_name),
         "vitals changed: private `scores$name`/`solutions$name` are no longer names")
  expect(inherits(state$timestamps$solve$started_at, "POSIXct") &&
           inherits(state$timestamps$score$completed_at, "POSIXct"),
         "vitals changed: private `timestamps` no longer has solve/score start and end times")
  expect(is.numeric(state$metric_results[[1]]$value),
         "vitals changed: private `metric_results` entries have no numeric `value`")
})

test_that("canary: $measure() applies the metric functions set in private `metric_fns`", {
  tsk <- scored_arith_task()
  vitals_set_metric_fns(tsk, list(seven = function(scores) 7))
  tsk$measure()
  expect(identical(unname(tsk$metrics), 7),
         "vitals changed: $measure() no longer applies private `metric_fns`")
})

test_that("canary: $eval() opens its steps in its own frame and calls $solve()/$score() there", {
  body <- paste(deparse(body(vitals::Task$public_methods$eval)), collapse = "\n")
  solving <- regexpr('cli_progress_step("Solving")', body, fixed = TRUE)
  solve <- regexpr("do.call(self$solve", body, fixed = TRUE)
  scoring <- regexpr('cli_progress_step("Scoring")', body, fixed = TRUE)
  score <- regexpr("do.call(self$score", body, fixed = TRUE)
  expect(all(c(solving, solve, scoring, score) > 0) && solving < solve && solve < scoring &&
           scoring < score,
         "vitals changed: $eval() no longer opens 'Solving'/'Scoring' before calling $solve()/$score() from its frame (see vitals_fail_step())")
})

test_that("canary: scores live in private `samples$score`", {
  tsk <- scored_arith_task()
  vitals_set_scores(tsk, rep(0.25, 4))
  expect(identical(tsk$get_samples()$score, rep(0.25, 4)),
         "vitals changed: $get_samples() no longer returns private `samples`")
  expect_error(vitals_set_scores(tsk, 1), class = "predictivebench_error_dependency")
})

test_that("canary: vitals' logged() and apply_metrics() are those the fast step records stand in for", {
  expect(vitals_logged_known(), paste(
    "vitals changed logged() or Task's private apply_metrics(): ResultsTask now keeps vitals'",
    "own step records (correct, ~40 ms slower a task); compare them with fast_logged() and",
    "vitals_apply_metrics() in R/results-compat-vitals.R"
  ))
})

test_that("the fast step records are vitals' own, field for field", {
  settings <- request_settings(cache = FALSE)
  make <- function() {
    vitals::Task$new(dataset = arith_dataset(), solver = generate_solver(settings = settings),
                     scorer = arith_scorer(), dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                     metrics = list(share = function(scores) mean(scores == "C"),
                                    n = function(scores) length(scores)))
  }
  chat <- baseline_constant("4")
  slow <- make()
  fast <- make()
  expect_true(vitals_fast_steps(fast))
  for (tsk in list(slow, fast)) suppressMessages(tsk$eval(solver_chat = chat, view = FALSE))
  state <- function(tsk) vitals_private(tsk)
  for (part in c("solutions", "scores")) {
    expect_identical(state(fast)[[part]]$name, state(slow)[[part]]$name)
    expect_identical(state(fast)[[part]]$arguments, state(slow)[[part]]$arguments)
  }
  expect_match(unlist(state(slow)$solutions$arguments)[[1]], "get_samples")
  measured <- state(slow)$metric_results
  vitals_apply_metrics(slow)
  expect_identical(state(slow)$metric_results, measured)
  expect_equal(names(measured), c("share", "n"))
})

test_that("deparse_step_argument() is rlang's deparse, remembered for plain expressions", {
  exprs <- list(quote(self$get_samples()$score), quote(x[, 1]), quote(f(a = 1L, b = "q\"\n")),
                quote(solver_chat), 1.5, NA, quote(-x), quote(function(y) y + 1),
                rlang::expr(g(!!list(a = 1, b = "two"))), rlang::expr(h(!!new.env())))
  for (e in exprs) {
    expect_identical(deparse_step_argument(e), rlang::expr_deparse(e))
    expect_identical(deparse_step_argument(e), rlang::expr_deparse(e))  # from memory
  }
  expect_true(is_plain_language(quote(x[, 1])))
  expect_false(is_plain_language(rlang::expr(g(!!list(a = 1)))))
  expect_false(is_plain_language(rlang::expr(g(!!c(1, 2)))))
})

test_that("a ResultsTask records its steps with fast_logged()", {
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir())
  private <- vitals_private(tsk)
  for (step in c("solver", "scorer")) {
    expect_identical(code_text(body(private[[step]])), code_text(body(fast_logged(identity, "x"))))
  }
  suppressMessages(tsk$eval(solver_chat = baseline_constant("\\boxed{A}"), view = FALSE))
  expect_identical(unname(private$metric_results[[1]]$arguments), list("self$get_samples()$score"))
  expect_identical(private$solutions$name, "futurex_solver")
})

test_that("canary: the state a chunked $eval() leaves is the state vitals' $eval() leaves", {
  tsk <- scored_arith_task()
  private <- tsk$.__enclos_env__$private
  for (field in c("solved", "scored", "epochs", "solver_token_usage", "scorer_token_usage")) {
    expect(exists(field, envir = private, inherits = FALSE),
           sprintf("vitals changed: Task has no private field `%s` (see vitals_finish_eval())", field))
  }
  expect(isTRUE(private$solved) && isTRUE(private$scored),
         "vitals changed: private `solved`/`scored` no longer say a Task was evaluated")
  expect(is.function(private$stash_last_task),
         "vitals changed: Task has no private method `stash_last_task()`")
  step <- vitals_step(tsk, "solver")
  expect(is.function(step$fn) && is.character(step$name),
         "vitals changed: a Task's steps no longer keep `fn` and `fn_name` (logged())")
  # $get_cost() reads the two usage tables vitals_finish_eval() sets
  private$solver_token_usage <- token_table(data.frame(provider = "P", model = "m", input = 3,
                                                       output = 1, price = NA_real_))
  private$scorer_token_usage <- token_table(NULL)
  cost <- tsk$get_cost()
  expect(identical(cost$source, "solver") && identical(cost$input, 3),
         "vitals changed: $get_cost() no longer binds private `solver_token_usage` and `scorer_token_usage`")
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
