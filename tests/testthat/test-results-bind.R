# One results layer: the tasks of every benchmark bind into one tibble (issue 12).

test_that("vitals_bind() combines the tasks of all five benchmarks", {
  dir <- withr::local_tempdir()
  fx <- futurex_run("\\boxed{A}", dir)
  pb <- processbench_task(processbench_dataset(version = "sample"), dir = dir, solver = processbench_solver(n_votes = 3,
                                                                                                            settings = request_settings(cache = FALSE)))
  pb$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
  db <- deltabench_task(deltabench_dataset(version = "sample"), dir = dir, solver = deltabench_solver(settings = request_settings(cache = FALSE)))
  db$eval(solver_chat = baseline_constant("Conclusion: no error"), view = FALSE)
  ds <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver(settings = request_settings(cache = FALSE)), scorer = dsbench_scorer_exact(),
                     dir = dir)
  ds$eval(solver_chat = baseline_constant("The answer is C."), view = FALSE)
  ps <- probsem_task(probsem_dataset(version = "sample"), dir = dir)
  ps$eval(solver_chat = baseline_constant("A"), view = FALSE)
  ar <- arena_task(arena_dataset(version = "sample"),
                   solver = arena_solver(settings = request_settings(cache = FALSE)),
                   judge = arena_baseline_judge("longer"), dir = dir)
  ar$eval(solver_chat = baseline_chat(function(q) "It depends."), view = FALSE)
  tasks <- list(futurex = fx, processbench = pb, deltabench = db, dsbench = ds, probsem = ps,
                arena = ar)
  all <- do.call(vitals::vitals_bind, tasks)
  expect_type(all$score, "double")
  expect_type(all$id, "character")
  expect_equal(as.vector(table(all$task)[names(tasks)]),
               vapply(tasks, function(t) nrow(t$get_samples()), 1L, USE.NAMES = FALSE))
  expect_true(all(is.na(all$score) | (all$score >= 0 & all$score <= 1)))
})

test_that("oracle: an evaluated ResultsTask's samples, cost and vitals_bind() are a plain vitals Task's", {
  local_arith_benchmark()
  server <- local_fake_openai(function(body, n) "4")
  solver <- generate_solver(settings = request_settings(cache = FALSE))
  scorer <- arith_scorer()
  run <- function(tsk) {
    ellmer::token_usage()  # each task's cost is the difference its own run makes
    suppressMessages(tsk$eval(solver_chat = fake_responses_chat(server), view = FALSE))
    tsk
  }
  plain <- run(vitals::Task$new(dataset = arith_dataset(), solver = solver, scorer = scorer,
                                dir = withr::local_tempdir()))
  ours <- run(ResultsTask$new(dataset = arith_dataset(), solver = solver, scorer = scorer,
                              benchmark = "arith", dir = withr::local_tempdir()))
  # a request's seconds are the clock's
  timeless <- function(samples) {
    samples$solver_metadata <- lapply(samples$solver_metadata, function(m) {
      m$seconds <- NULL
      m
    })
    samples
  }
  theirs <- timeless(plain$get_samples())
  mine <- timeless(ours$get_samples())
  expect_identical(names(mine), names(theirs))
  # the same but for the chats (other objects) and the scorer's name (named steps, by design)
  same <- setdiff(names(theirs), c("solver_chat", "scorer"))
  expect_equal(mine[same], theirs[same])
  last_text <- function(chats) vapply(chats, function(chat) chat$last_turn()@text, "")
  expect_identical(last_text(mine$solver_chat), last_text(theirs$solver_chat))
  expect_identical(unique(mine$scorer), "arith_score")

  expect_identical(names(ours$get_cost()), names(plain$get_cost()))
  expect_equal(as.data.frame(ours$get_cost()), as.data.frame(plain$get_cost()))
  expect_gt(sum(ours$get_cost()$input), 0)

  bound <- list(mine = vitals::vitals_bind(run = ours), theirs = vitals::vitals_bind(run = plain))
  expect_identical(bound$mine[c("task", "id", "score")], bound$theirs[c("task", "id", "score")])
  metadata <- lapply(bound, function(b) {
    timeless(do.call(rbind, b$metadata))[setdiff(names(b$metadata[[1]]), c("solver_chat", "scorer"))]
  })
  expect_equal(metadata$mine, metadata$theirs)

  # print() as vitals prints an evaluated Task (but for the task's name: the benchmark's)
  printed <- lapply(list(mine = ours, theirs = plain), function(tsk) {
    cli::ansi_strip(utils::capture.output(print(tsk)))
  })
  expect_length(printed$mine, 2)
  expect_identical(printed$mine[[2]], printed$theirs[[2]])
  expect_identical(printed$mine[[1]], "An evaluation task arith.")
  expect_identical(sub("task \\S+[.]$", "task arith.", printed$theirs[[1]]), printed$mine[[1]])
})
