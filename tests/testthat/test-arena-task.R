test_that("the bundled sample and the question table", {
  ds <- arena_dataset()
  expect_equal(validate_task_table(ds, "arena")$input, ds$input)
  judge <- arena_baseline_judge("longer")
  tsk <- arena_task(solver = arena_solver(cache = FALSE), dir = withr::local_tempdir())
  tsk$eval(solver_chat = judge, view = FALSE)
  ratings <- arena_summary(tsk, bootstrap = 20)
  expect_equal(ratings$model[[1]], "wordy-model")
  old <- arena_read_battles(file.path(predictivebench:::arena_sample_dir(), "tempcache",
                                      "sample", "battle_records.csv"))
  expect_true(all(predictivebench:::record_version(old$gpt_4_response) == "231113"))
  texts <- vapply(old$gpt_4_response, arena_response_text, "", USE.NAMES = FALSE)
  expect_equal(arena_parse_verdict(texts)$winner, old$winner)
})

test_that("prepare_arena() writes the question table as parquet, without Python", {
  src <- file.path(predictivebench:::arena_sample_dir(), "data", "sample", "questions.csv")
  out <- withr::local_tempfile(fileext = ".parquet")
  prepare_arena(src, out)
  table <- arena_dataset(out)
  expect_equal(table, arena_dataset(src))
  # Blank lines, quoted commas and a field spanning lines, as pandas writes them.
  odd <- withr::local_tempfile(fileext = ".csv")
  writeLines(c(',question', '0,"b, with comma"', '', '1,a', '2,"b, with comma"',
               '3,"multi', 'line"', '4,""'), odd)
  expect_equal(prepare_arena(odd)$input, c("b, with comma", "a", "multi\nline", ""))
  expect_equal(arena_dataset(odd)$occurrences, c(2L, 1L, 1L, 1L))
  expect_equal(arena_dataset(odd)$first_row, c(1L, 2L, 4L, 5L))
})

test_that("two battles with the same prompt keep their own models and records over epochs", {
  # m2 and m3 answer alike, so m1-vs-m2 and m1-vs-m3 send the judge the same prompt.
  answers <- tibble::tibble(question = "Same question?", m1 = "short", m2 = "a longer answer",
                            m3 = "a longer answer")
  arrangement <- tibble::tibble(question = "Same question?", model_a = "m1",
                                model_b = c("m2", "m3"))
  battles <- arena_battles(arrangement, answers)
  expect_identical(battles$input[[1]], battles$input[[2]])
  records <- file.path(withr::local_tempdir(), "battle_records.csv")
  counter <- new.env()
  counter$n <- 0
  tsk <- arena_task(battles,
                    solver = arena_solver(records = records, cache = FALSE),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = counting_judge(counter, name = "epoch-judge"), epochs = 2,
           view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(nrow(samples), 4)
  meta <- samples$solver_metadata
  expect_equal(vapply(meta, `[[`, "", "model_b"), samples$model_b)
  expect_equal(sort(vapply(meta, `[[`, "", "model_b")), c("m2", "m2", "m3", "m3"))
  expect_true(all(vapply(meta, `[[`, "", "winner") == "model_b"))
  saved <- arena_read_battles(records)
  expect_equal(nrow(saved), 2)
  expect_setequal(saved$model_b, c("m2", "m3"))
  expect_equal(counter$n, 2) # one request per battle, none per epoch
  # Each epoch of a battle reuses its one record; a second eval asks for nothing.
  before <- counter$n
  tsk$eval(solver_chat = counting_judge(counter, name = "epoch-judge"), epochs = 2,
           view = FALSE)
  expect_equal(counter$n, before)
  expect_true(all(vapply(tsk$get_samples()$solver_metadata, `[[`, TRUE, "cached")))
  # The positional rule itself is solver_rows()'s, tested in test-benchmark.R.
})

test_that("arena_dataset() and arena_task() take part of the table like every benchmark", {
  ds <- arena_dataset()
  expect_equal(arena_dataset(limit = 3), ds[1:3, ])
  shuffled <- arena_dataset(shuffle = 2)
  expect_setequal(shuffled$input, ds$input)
  expect_equal(arena_dataset(limit = 2, shuffle = 2), shuffled[1:2, ])
  battles <- predictivebench:::arena_sample_battles()
  tsk <- arena_task(battles, arena_solver(cache = FALSE), limit = 2,
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = arena_baseline_judge("longer"), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(samples$model_b, battles$model_b[1:2])
  expect_equal(vapply(samples$solver_metadata, `[[`, "", "model_b"), battles$model_b[1:2])
})

test_that("the judging solver needs its battles, and arena_summary() its samples", {
  solver <- arena_solver(cache = FALSE)
  expect_snapshot(solver("prompt", solver_chat = arena_baseline_judge("longer")), error = TRUE)
  expect_snapshot(arena_task(data.frame(input = "x")), error = TRUE)
  expect_snapshot(arena_summary(list()), error = TRUE)
})
