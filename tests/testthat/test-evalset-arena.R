# The arena in an evaluation set: an arena_task()'s reference answers in its cell's identity,
# and the closing arena run (eval_set(arena = )): its bad arguments refused before the first
# request, and its errors never losing the set's table.

sample_answers_copy <- function(dir, name = "q_and_as.csv") {
  path <- file.path(dir, name)
  file.copy(file.path(arena_sample_dir(), "tempcache", "sample", "q_and_as.csv"), path)
  path
}

reference_task <- function(answers, logs, scorer = NULL) {
  judge <- arena_baseline_judge("longer")
  dataset <- arena_dataset(version = "sample", limit = 2)
  if (is.null(scorer)) return(arena_task(dataset, judge = judge, answers = answers, dir = logs))
  arena_task(dataset, scorer = scorer, dir = logs)
}

test_that("an arena_task()'s reference answers are part of its cell: their content, not their path", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  files <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  models <- set_chats(server, "m1")
  answers <- sample_answers_copy(files)
  first <- quiet_set(list(arena = reference_task(answers, logs)), models, log_dir = logs,
                     settings = settings)
  expect_equal(first$status, "done")
  # the same content at another path: the same cell, nothing runs
  elsewhere <- sample_answers_copy(files, "copy.csv")
  again <- quiet_set(list(arena = reference_task(elsewhere, logs)), models, log_dir = logs,
                     settings = settings)
  expect_true(again$reused)
  expect_equal(again$cell_id, first$cell_id)
  # also with the scorer given the file's path itself
  by_path <- function(path) {
    reference_task(NULL, logs, arena_scorer(answers = path,
                                            scorer_chat = arena_baseline_judge("longer")))
  }
  one <- quiet_set(list(arena = by_path(answers)), models, log_dir = logs, settings = settings)
  two <- quiet_set(list(arena = by_path(elsewhere)), models, log_dir = logs, settings = settings)
  expect_true(two$reused)
  expect_equal(two$cell_id, one$cell_id)
  # one reference answer changed in the file: a new cell, evaluated again
  table <- arena_read_answers(answers)
  table[[2]][[1]] <- "A changed reference answer, long enough to win its battles."
  write_answers(table, answers)
  changed <- quiet_set(list(arena = reference_task(answers, logs)), models, log_dir = logs,
                       settings = settings)
  expect_false(changed$reused)
  expect_false(identical(changed$cell_id, first$cell_id))
  expect_equal(changed$status, "done")
  changed_path <- quiet_set(list(arena = by_path(answers)), models, log_dir = logs,
                            settings = settings)
  expect_false(identical(changed_path$cell_id, one$cell_id))
})

test_that("an arena scorer declares its answers' content for the cell's identity", {
  answers <- arena_read_answers(sample_answers_copy(withr::local_tempdir()))
  changed <- answers
  changed[[3]][[2]] <- "Another answer."
  declared <- step_identity(arena_scorer(answers))
  expect_match(declared$answers, "^[0-9a-f]{64}$")
  expect_equal(step_identity(arena_scorer(as.data.frame(answers))), declared)
  expect_false(identical(step_identity(arena_scorer(changed)), declared))
  task <- reference_task(answers, withr::local_tempdir())
  entry <- set_benchmarks(list(task), NULL, NULL)[[1]]
  expect_equal(entry$identity$scorer_data, declared)
  # a task whose scorer declares nothing keeps the identity it had
  plain <- futurex_task(futurex_dataset(version = "sample", limit = 1), dir = tempdir())
  expect_false("scorer_data" %in% names(set_benchmarks(list(plain), NULL, NULL)[[1]]$identity))
})
