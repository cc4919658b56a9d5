test_that("prepare_processbench() prepares through Python", {
  skip_if_no_python()
  pb <- prepare_processbench(
    system.file("extdata", "processbench-sample.json", package = "predictivebench")
  )
  expect_equal(unique(pb$task_l1), "processbench-sample")
  expect_equal(sum(pb$label == -1), 3)
})

test_that("reference files convert with the expected labels", {
  skip_if_no_python()
  delta <- skip_if_no_reference("deltabench", "Deltabench_v1_examples.jsonl")
  gsm8k <- skip_if_no_reference("processbench", "gsm8k.json")
  d <- prepare_deltabench(delta)
  expect_equal(d$label, c(6L, 6L, 13L, 1L, 15L, 1L, 1L, 3L, 8L))
  g <- prepare_processbench(gsm8k)
  expect_equal(c(sum(g$label != -1), sum(g$label == -1)), c(207L, 193L))
  expect_equal(unique(g$task_l1), "gsm8k")
})

# ProcessBench's files, one per split, made up: ids <split>-<k>, labels 1 then -1.
pb_split_files <- function(dir, sizes) {
  vapply(names(sizes), function(split) {
    records <- lapply(seq_len(sizes[[split]]) - 1L, function(k) list(
      id = paste0(split, "-", k), generator = "m", problem = paste("Problem", split, k),
      steps = list("2 + 2 = 4.", "So 4."), final_answer_correct = k %% 2 == 1,
      label = if (k %% 2 == 0) 1L else -1L
    ))
    path <- file.path(dir, paste0(split, ".json"))
    jsonlite::write_json(records, path, auto_unbox = TRUE)
    path
  }, "", USE.NAMES = FALSE)
}

test_that("several split files make one table with a split column, read back from parquet", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  files <- pb_split_files(dir, c(gsm8k = 2, math = 3, olympiadbench = 1, omnimath = 2))
  out <- file.path(dir, "processbench.parquet")
  prepare_processbench(files, out = out)
  table <- processbench_dataset(out)
  expect_equal(table$split, rep(c("gsm8k", "math", "olympiadbench", "omnimath"),
                                c(2, 3, 1, 2)))
  expect_equal(table$task_l1, table$split)
  expect_equal(table$id[3], "math-0")
  expect_equal(prepare_processbench(files[[2]])$split, rep("math", 3))
  expect_equal(unique(prepare_processbench(files[1:2], split = c("a", "b"))$split),
               c("a", "b"))
  expect_error(prepare_processbench(files, split = "a"), class = "predictivebench_error_argument")
  expect_error(prepare_processbench(character()), class = "predictivebench_error_argument")
  expect_error(prepare_futurex(files[1:2]), class = "predictivebench_error_argument")
  # A repeated id across two files names the later file.
  jsonlite::write_json(list(list(id = "gsm8k-0", problem = "p", steps = list("a"),
                                 label = -1L)), files[[4]], auto_unbox = TRUE)
  err <- expect_error(prepare_processbench(files), class = "predictivebench_error_duplicate_id")
  expect_equal(err$file, files[[4]])
})

test_that("a table without the split column (an older one, or one made by hand) still reads", {
  old <- pb_table()
  expect_false("split" %in% names(old))
  checked <- validate_task_table(old, "processbench")
  expect_identical(checked$split, rep(NA_character_, 3))
  path <- withr::local_tempfile(fileext = ".parquet")
  nanoparquet::write_parquet(as.data.frame(old[setdiff(names(old), "steps")]), path,
                             metadata = c(predictivebench.benchmark = "processbench"))
  expect_error(read_task_table(path), class = "predictivebench_error_schema")
  write_task_table(old, path, "processbench")
  expect_identical(read_task_table(path)$split, rep(NA_character_, 3))
})

test_that("the splits are summarized one by one and averaged, from a log too", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  files <- pb_split_files(dir, c(gsm8k = 2, math = 4))
  table <- prepare_processbench(files)
  tsk <- processbench_task(table, dir = file.path(dir, "logs"),
                           solver = processbench_solver(n_votes = 1,
                                                        settings = request_settings(cache = FALSE)))
  # Always "1": right on every label-1 item, wrong on every label -1 one.
  tsk$eval(solver_chat = baseline_constant("\\boxed{1}"), view = FALSE)
  for (s in list(suppressMessages(processbench_summary(tsk, by = "split")),
                 suppressMessages(processbench_summary(tsk$log_path, by = "split")))) {
    expect_equal(pb_value(s, "gsm8k", "error_acc"), 1)
    expect_equal(pb_value(s, "math", "correct_acc"), 0)
    expect_equal(unique(s$group), c("overall", "gsm8k", "math", "mean of groups"))
    expect_equal(pb_value(s, "mean of groups", "f1"),
                 mean(c(pb_value(s, "gsm8k", "f1"), pb_value(s, "math", "f1"))))
    expect_equal(s$n[s$group == "math" & s$metric == "f1"], 4L)
  }
})
