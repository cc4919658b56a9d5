test_that("a cell's identity holds the benchmark and model, not how requests are sent", {
  dir <- withr::local_tempdir()
  a <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE))
  b <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{Yes}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE,
                                 settings = request_settings(max_active = 2, rpm = 10)))
  expect_equal(a$cell_id, b$cell_id)
  c <- suppressMessages(eval_set("futurex@sample", list(baseline_chat("\\boxed{No}")),
                                 log_dir = dir, limit = 2, dry_run = TRUE))
  expect_false(identical(a$cell_id, c$cell_id))
  expect_error(eval_set("nonesuch", list(baseline_chat("x")), log_dir = dir),
               class = "predictivebench_error_argument")
})
