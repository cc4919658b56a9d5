# One results layer: the tasks of every benchmark bind into one tibble (issue 12).
# DSBench, probsem and the arena join this test when they adopt the results layer.

test_that("vitals_bind() combines FutureX, ProcessBench and DeltaBench tasks", {
  dir <- withr::local_tempdir()
  fx <- futurex_run("\\boxed{A}", dir)
  pb <- processbench_task(dir = dir, solver = processbench_solver(n_votes = 3, cache = FALSE))
  pb$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
  db <- deltabench_task(dir = dir, solver = deltabench_solver(cache = FALSE))
  db$eval(solver_chat = baseline_constant("Conclusion: no error"), view = FALSE)
  both <- vitals::vitals_bind(futurex = fx, processbench = pb, deltabench = db)
  expect_type(both$score, "double")
  expect_type(both$id, "character")
  expect_equal(as.vector(table(both$task)[c("futurex", "processbench", "deltabench")]),
               c(nrow(fx$get_samples()), nrow(pb$get_samples()), nrow(db$get_samples())))
  expect_true(all(is.na(both$score) | (both$score >= 0 & both$score <= 1)))
})
