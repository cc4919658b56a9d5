# A step's routing, call and record (R/results-steps.R), each against vitals' own.

test_that("the step records are those vitals' logged() makes, field for field", {
  steps <- list(solver = function(inputs, ..., solver_chat) inputs, metric = function(scores) 1)
  self <- list(get_samples = function() list(input = "q", score = 1))
  solver_chat <- "chat"
  expect_identical(fast_logged(steps$solver, "my_solver")(self$get_samples()$input, solver_chat = solver_chat),
                   vitals:::logged(steps$solver, "my_solver")(self$get_samples()$input, solver_chat = solver_chat))
  expect_identical(measure_metrics(list(n = steps$metric), 1),
                   list(n = vitals:::logged(steps$metric, "n")(self$get_samples()$score)))
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

test_that("oracle: $eval()'s arguments reach the solver and scorer as vitals' $eval() routes them", {
  got <- new.env()
  solver <- function(inputs, ..., solver_chat, a = "unset") {
    got$solver <- c(list(...), list(a = a))
    chats <- lapply(inputs, function(input) {
      chat <- solver_chat$clone()
      chat$chat(input, echo = "none")
      chat
    })
    list(result = rep("4", length(inputs)), solver_chat = chats)
  }
  scorer <- function(samples, ..., b = "unset") {
    got$scorer <- c(list(...), list(b = b))
    list(score = rep(1, nrow(samples)))
  }
  routed <- function(tsk, dots) {
    rm(list = ls(got), envir = got)
    suppressMessages(do.call(tsk$eval, c(dots, list(view = FALSE))))
    lapply(list(solver = got$solver, scorer = got$scorer), function(x) Filter(function(v) !identical(v, "unset"), x))
  }
  local_arith_benchmark()
  chat <- baseline_constant("4")
  dots <- list(solver_chat = chat, a = 1, b = "two", c = 3)
  plain <- routed(vitals::Task$new(dataset = arith_dataset(), solver = solver, scorer = scorer,
                                   dir = withr::local_tempdir()), dots)
  ours <- routed(arith_task(solver = solver, scorer = scorer, dir = withr::local_tempdir()), dots)
  sorted <- function(x) lapply(x, function(step) step[sort(names(step))])
  expect_identical(sorted(ours), sorted(plain))
  split <- split_eval_args(dots, solver, scorer)
  expect_identical(sorted(split[c("solver", "scorer")]),
                   sorted(list(solver = c(plain$solver, list(solver_chat = chat)), scorer = plain$scorer)))
  expect_identical(names(split$scorer), c("b", "c"))

  # an argument no step takes: refused by both, before anything is sent
  strict_solver <- function(inputs, solver_chat) solver(inputs, solver_chat = solver_chat)
  strict_scorer <- function(samples) scorer(samples)
  dots <- list(solver_chat = chat, d = 4)
  expect_error(suppressMessages(vitals::Task$new(dataset = arith_dataset(), solver = strict_solver,
                                                 scorer = strict_scorer, dir = withr::local_tempdir())$eval(!!!dots)),
               "does not match any parameter")
  expect_error(split_eval_args(dots, strict_solver, strict_scorer),
               "does not match any parameter", class = "predictivebench_error_argument")
})
