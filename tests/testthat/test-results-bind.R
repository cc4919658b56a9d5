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
