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

test_that("a closing arena's bad arguments are refused before the first request", {
  server <- local_set_server()
  logs <- file.path(withr::local_tempdir(), "set")
  settings <- set_settings(withr::local_tempdir())
  models <- set_chats(server, c("m1", "m2"))
  judge <- arena_baseline_judge("longer")
  a_file <- withr::local_tempfile(lines = "not a folder")
  refused <- function(arena, class = "predictivebench_error_argument", judge_chat = judge,
                      regexp = NULL) {
    expect_error(eval_set("futurex@sample", models, log_dir = logs,
                          settings = settings, judge = judge_chat, arena = arena, options = set_options(limit = 1)),
                 class = class, regexp = regexp)
  }
  ok <- list(version = "sample")
  refused(c(ok, list(rounds = 3)))                          # not an arena_run() argument
  refused(c(ok, list(models = c("a", "b"))))                # the set's models are the arena's
  refused(list(n = 1), regexp = "needs questions")         # neither version nor dataset
  refused(list(experiment = "x"), regexp = "needs questions")
  refused(ok, judge_chat = NULL)                            # no judge
  refused(c(ok, list(n = 0)))
  refused(c(ok, list(strategy = "best")))
  refused(c(ok, list(times = -1)))
  refused(c(ok, list(bootstrap = 10)))                      # arena_run()'s old name: times
  refused(c(ok, list(position_swap = "yes")))
  refused(c(ok, list(experiment = "a/b")), "predictivebench_error_path")
  refused(list(version = "nowhere"), "predictivebench_error_path")
  # with an EloBench folder, a version is one of its data/<version>/ folders or a pinned one
  refused(list(version = "nowhere", elobench = withr::local_tempdir()),
          "predictivebench_error_path")
  refused(c(ok, list(dir = a_file)), "predictivebench_error_path")
  refused(c(ok, list(dir = file.path(a_file, "arena"))), "predictivebench_error_path")
  refused(c(ok, list(elobench = a_file)), "predictivebench_error_path")
  refused(c(ok, list(elobench = file.path(a_file, "elobench"))), "predictivebench_error_path")
  refused(list(dataset = data.frame(x = 1)))
  expect_equal(server$count(), 0)
  expect_false(file.exists(logs))
})

test_that("the closing arena's competitors must have names the arena can take, checked up front", {
  specs <- list(new_chat_spec("baseline", "a", label = "same"),
                new_chat_spec("baseline", "b", label = "same"))
  expect_error(check_set_arena(list(version = "sample", experiment = "x"), specs,
                               arena_baseline_judge("longer"), withr::local_tempdir()),
               class = "predictivebench_error_argument", regexp = "same")
  specs[[2]]$label <- "question"
  expect_error(check_set_arena(list(version = "sample", experiment = "x"), specs,
                               arena_baseline_judge("longer"), withr::local_tempdir()),
               class = "predictivebench_error_argument")
  specs[[2]]$label <- "other"
  # questions are all it needs (the experiment is arena_run()'s default, "run")
  expect_silent(check_set_arena(list(version = "sample"), specs,
                                arena_baseline_judge("longer"), withr::local_tempdir()))
  # In a set: two chats that get one label (as long as labels can coincide) cost nothing.
  server <- local_set_server()
  logs <- file.path(withr::local_tempdir(), "set")
  twins <- list(fake_chat(server, model = "m1"),
                fake_chat(server, model = "m1", params = ellmer::params(temperature = 0.5)))
  labels <- vapply(lapply(twins, chat_spec), spec_label, "")
  skip_if(!anyDuplicated(labels), "labels are unique: the closing arena has nothing to refuse")
  expect_error(eval_set("futurex@sample", twins, log_dir = logs,
                        settings = set_settings(withr::local_tempdir()),
                        judge = arena_baseline_judge("longer"),
                        arena = list(version = "sample", experiment = "x"), options = set_options(limit = 1)),
               class = "predictivebench_error_argument")
  expect_equal(server$count(), 0)
})

test_that("a closing arena logs beside the cells, writes no EloBench file, and resumes from the response cache", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  closing <- function(arena) {
    quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs, limit = 1,
              settings = set_settings(cache), judge = arena_baseline_judge("longer"),
              arena = arena)
  }
  # the bundled sample's questions, nothing but `version`
  set <- closing(list(version = "sample", n = 1, times = 0))
  run <- attr(set, "arena_run")
  expect_s3_class(run, "arena_run")
  expect_null(attr(set, "arena_error"))
  expect_setequal(run$ratings$model, set$model)
  expect_true(file.exists(run$paths$log))
  expect_equal(normalizePath(dirname(run$paths$log)), normalizePath(logs))
  expect_equal(names(run$paths), "log")
  expect_false(any(c("arena", "data", "tempcache", "results") %in% list.files(logs)))
  expect_true(all(run$answers$question %in% arena_dataset(version = "sample")$input))
  expect_gt(nrow(run$records), 0)
  # the chats' answers are in the response cache: a second set (its cells done, the same
  # arena arranged the same) sends no request
  sent <- server$count()
  files <- list.files(logs, recursive = TRUE, all.files = TRUE)
  again <- closing(list(version = "sample", n = 1, times = 0))
  expect_true(all(again$reused))
  expect_equal(attr(again, "arena_run")$records$winner, run$records$winner)
  expect_equal(server$count(), sent)
  # the same arena run, nothing sent: no other log, and the recorded one is the run's
  expect_equal(list.files(logs, recursive = TRUE, all.files = TRUE), files)
  expect_equal(attr(again, "arena_run")$paths$log, run$paths$log)
  board <- suppressMessages(leaderboard(logs, attempts = FALSE))
  arena_rows <- board[board$benchmark == "arena_ratings", ]
  expect_setequal(arena_rows$model, set$model)
  expect_equal(unique(basename(arena_rows$source)), basename(run$paths$log))
  every <- suppressMessages(leaderboard(logs, attempts = TRUE))
  expect_length(unique(every$source[every$benchmark == "arena_ratings"]), 1L)
  # another arena (two battles a pair): a new run, its log recorded, the first an attempt
  other <- closing(list(version = "sample", n = 2, times = 0))
  expect_false(identical(attr(other, "arena_run")$paths$log, run$paths$log))
  expect_true(file.exists(attr(other, "arena_run")$paths$log))
  board <- suppressMessages(leaderboard(logs, attempts = FALSE))
  expect_equal(unique(basename(board$source[board$benchmark == "arena_ratings"])),
               basename(attr(other, "arena_run")$paths$log))
})

test_that("a closing arena with an EloBench folder exports to it; questions can be a table", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  folder <- file.path(withr::local_tempdir(), "elobench")
  settings <- set_settings(withr::local_tempdir())
  models <- set_chats(server, c("m1", "m2"))
  set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1, settings = settings,
                   judge = arena_baseline_judge("longer"),
                   arena = list(version = "sample", elobench = folder, experiment = "set",
                                n = 1, times = 0))
  run <- attr(set, "arena_run")
  expect_s3_class(run, "arena_run")
  expect_equal(arena_read_questions(file.path(folder, "data", "sample", "questions.csv")),
               arena_dataset(version = "sample")$input)
  expect_true(file.exists(file.path(folder, "results", "set", "elo_rating.csv")))
  exported <- arena_read_answers(file.path(folder, "tempcache", "sample", "q_and_as.csv"))
  expect_setequal(setdiff(names(exported), "question"), set$model)
  expect_equal(normalizePath(dirname(run$paths$log)), normalizePath(logs))
  expect_false(file.exists(file.path(folder, "tempcache", "sample", "q_and_as_sources.csv")))
  # questions given as a table: no EloBench folder needed, no version
  questions <- data.frame(question = c("Name a fruit.", "Say hello."))
  table_set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1,
                         settings = settings, judge = arena_baseline_judge("longer"),
                         arena = list(dataset = questions, experiment = "table", n = 1,
                                      times = 0))
  table_run <- attr(table_set, "arena_run")
  expect_null(attr(table_set, "arena_error"))
  expect_setequal(table_run$answers$question, questions$question)
  expect_setequal(table_run$records$question, questions$question)
})

test_that("an error in the closing arena keeps the set's table, with the error", {
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "judge")) return(list(status = 401))
    "\\boxed{A}"
  })
  logs <- withr::local_tempdir()
  models <- set_chats(server, c("m1", "m2"))
  expect_warning(
    set <- suppressMessages(eval_set(
      "futurex@sample", models, log_dir = logs,
      settings = set_settings(withr::local_tempdir()), judge = fake_chat(server, model = "judge"),
      arena = list(version = "sample", experiment = "set", n = 1, times = 0), options = set_options(limit = 2))),
    class = "predictivebench_warning_arena"
  )
  expect_s3_class(set, "tbl_df")
  expect_equal(set$status, c("done", "done"))
  expect_true(all(file.exists(set$log_path)))
  expect_s3_class(attr(set, "arena_error"), "error")
  expect_null(attr(set, "arena_run"))
  # the cells are done: the next call sends none of their requests again
  sent <- server$count()
  again <- quiet_set("futurex@sample", models, log_dir = logs, limit = 2,
                     settings = set_settings(withr::local_tempdir()),
                     judge = fake_chat(server, model = "judge"))
  expect_true(all(again$reused))
  expect_equal(server$count(), sent)
})

test_that("a closing arena whose log is in parts moves and records every part: the board shows it once", {
  server <- local_set_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  # parts of a few kilobytes (R/arena-log.R), written 2 battles at a time
  local_replace_internal("arena_log_part_bytes", 2000)
  local_replace_internal("arena_log_slice", 2L)
  closing <- function() {
    quiet_set("futurex@sample", set_chats(server, c("m1", "m2", "m3")), log_dir = logs,
              limit = 1, settings = set_settings(cache), judge = arena_baseline_judge("longer"),
              arena = list(version = "sample", strategy = "all", times = 0))
  }
  set <- closing()
  run <- attr(set, "arena_run")
  parts <- run$paths$log_parts
  expect_gt(length(parts), 1)
  expect_equal(parts[[1]], run$paths$log)
  expect_true(all(file.exists(parts)))
  expect_equal(unique(normalizePath(dirname(parts))), normalizePath(logs))
  # every part is the set's completed run: none counted as an attempt
  expect_no_condition(board <- leaderboard(logs, attempts = FALSE),
                      class = "predictivebench_message_attempts")
  arena_rows <- board[board$benchmark == "arena_ratings", ]
  expect_setequal(arena_rows$model, set$model)
  expect_equal(unique(arena_rows$source), run$paths$log)
  # the same run again: the recorded parts stay the arena's log, no other is written
  files <- list.files(logs, recursive = TRUE, all.files = TRUE)
  again <- attr(closing(), "arena_run")
  expect_equal(again$paths$log_parts, parts)
  expect_equal(list.files(logs, recursive = TRUE, all.files = TRUE), files)
})

test_that("a closing arena judged by the set's panel: every judge counted in the preview, the majority's verdicts", {
  server <- local_fake_openai(function(body, n) {
    switch(body$model, ja = , jc = '{"winner": 1, "explanation": "first"}',
           jb = '{"winner": 2, "explanation": "second"}', "\\boxed{A}")
  })
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  judges <- list(fake_chat(server, "ja"), fake_chat(server, "jb"), fake_chat(server, "jc"))
  questions <- data.frame(question = c("Name a fruit.", "Name a colour.", "Say hello."))
  arena <- list(dataset = questions, n = 1, max_rounds = 2, times = 0)
  models <- set_chats(server, c("m1", "m2"))
  preview <- eval_set("futurex@sample", models, log_dir = logs,
                      settings = settings, judge = judges, arena = arena, options = set_options(limit = 1, dry_run = TRUE))
  # two rounds in full (no placeholder verdict is decisive): 4 answers, 2 battles x 3 judges
  expect_equal(preview$to_send[preview$benchmark == "arena_run"], 4L + 2L * 3L)
  expect_equal(server$count(), 0)
  set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1, settings = settings,
                   judge = judges, arena = arena)
  run <- attr(set, "arena_run")
  expect_s3_class(run, "arena_run")
  expect_true(all(run$records$winner == "model_a"))
  expect_true(all(run$records$judger == "panel(ja, jb, jc)"))
  asked <- vapply(server$requests(), `[[`, "", "model")
  expect_equal(sum(asked == "jb"), nrow(run$records))
})
