test_that("an arena run's options take arena_options()' defaults and refuse bad values by name", {
  opts <- check_arena_options(list(version = "sample", experiment = "e1"))
  expect_equal(opts$strategy, eval(formals(arena_options)$strategy)[[1]])
  expect_equal(opts$n, eval(formals(arena_options)$n))
  err <- expect_error(check_arena_options(list(version = "sample", experiment = "e1",
                                               strategy = "nope"), arg = "arena$"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "strategy", fixed = TRUE)
  expect_error(check_arena_options(list(version = "sample", experiment = "e1", n = -1)),
               class = "predictivebench_error_argument")
  err <- expect_error(check_arena_options(list(version = "sample", experiment = "e1",
                                               times = -1, method = "bt")),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "times", fixed = TRUE)
  expect_equal(check_arena_options(list(version = "s", experiment = "e", method = "bt"))$method,
               "bt")
  expect_error(check_arena_options(list(version = "../x", experiment = "e1")),
               class = "predictivebench_error")
})

test_that("the arena folder must be a folder this process can make or write in", {
  dir <- withr::local_tempdir()
  expect_invisible(check_arena_dir(file.path(dir, "not", "yet")))
  file <- file.path(dir, "a-file")
  writeLines("x", file)
  expect_error(check_arena_dir(file), class = "predictivebench_error_path")
  expect_error(check_arena_dir(file.path(file, "below")), class = "predictivebench_error_path")
  err <- expect_error(check_arena_dir(file, arg = "elobench"),
                      class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "`elobench` must be a folder", fixed = TRUE)
})

test_that("an arena's questions come from dataset or version, or it is refused up front", {
  dir <- withr::local_tempdir()
  # a table: checked, and its questions returned
  expect_equal(check_arena_questions(NULL, NULL, data.frame(question = c("a", "b", "a"))),
               c("a", "b"))
  expect_error(check_arena_questions(NULL, NULL, data.frame(input = c("a", NA))),
               class = "predictivebench_error_argument")
  # neither
  err <- expect_error(check_arena_questions(NULL, NULL, NULL),
                      class = "predictivebench_error_argument")
  expect_identical(err$field, "dataset")
  # the bundled sample and pinned versions need no folder
  expect_null(check_arena_questions(NULL, "sample", NULL))
  expect_equal(check_arena_questions(dir, "sample", NULL),
               file.path(dir, "data", "sample", "questions.csv"))
  # any other version only with its questions in the EloBench folder
  expect_error(check_arena_questions(NULL, "toy", NULL), class = "predictivebench_error_path")
  err <- expect_error(check_arena_questions(dir, "toy", NULL),
                      class = "predictivebench_error_path")
  expect_equal(err$file, file.path(dir, "data", "toy", "questions.csv"))
  folder <- arena_folder("q1")
  expect_equal(check_arena_questions(folder, "toy", NULL),
               file.path(folder, "data", "toy", "questions.csv"))
})

test_that("a misspelt arena version is refused as every misspelt version is: what was meant, what there is", {
  models <- list(a = named_constant("x", "a"), b = named_constant("y", "b"))
  err <- expect_error(arena_run(models, arena_baseline_judge(), version = "rwq_2000",
                                dir = withr::local_tempdir()),
                      class = "predictivebench_error_path")
  message <- cli::ansi_strip(conditionMessage(err))
  expect_match(message, "Did you mean \"rwq_200\"?", fixed = TRUE)
  expect_match(message, "\"rwq\", \"rwq_200\", \"quora_100\", and \"sample\"", fixed = TRUE)
  expect_equal(err$suggestion, "rwq_200")
  # the same words as arena_dataset()'s refusal of it
  err <- expect_error(arena_dataset(version = "rwq_2000"), class = "predictivebench_error_argument")
  expect_match(cli::ansi_strip(conditionMessage(err)), "Did you mean \"rwq_200\"?", fixed = TRUE)
  # nothing near: the list alone
  err <- expect_error(check_arena_questions(NULL, "zzzzzzzzzz", NULL),
                      class = "predictivebench_error_path")
  expect_no_match(conditionMessage(err), "Did you mean")
  expect_match(cli::ansi_strip(conditionMessage(err)), "\"quora_100\"", fixed = TRUE)
})

test_that("the models of `answers` are named as chats are, and each must answer a question", {
  expect_equal(nrow(competitor_answers(NULL, c("a", "b"))), 0)
  table <- data.frame(question = c("q1", "q2"), ref = c("x", NA), none = NA)
  expect_named(competitor_answers(table, "chat"), c("question", "ref", "none"))
  expect_error(competitor_answers(table, "ref"), class = "predictivebench_error_argument")
  expect_error(competitor_answers(data.frame(question = "q1"), character()),
               class = "predictivebench_error_argument")
  models <- list(chat = baseline_constant("a"), ref = NULL, none = NULL)
  expect_invisible(check_cached_answers(models[1:2], table, c("q1", "q2")))
  err <- expect_error(check_cached_answers(models, table, c("q1", "q2"), file = "answers.csv"),
                      class = "predictivebench_error_answers")
  expect_identical(err$field, "none")
  expect_identical(err$file, "answers.csv")
  # answers to other questions only do not count
  err <- expect_error(check_cached_answers(models[1:2], table, "q2"),
                      class = "predictivebench_error_answers")
  expect_match(conditionMessage(err), "ref")
})

test_that("arena_run() takes arena_options(); the old names still work, with a warning", {
  models <- list(a = named_constant("aa", "a"), b = named_constant("b", "b"))
  questions <- data.frame(question = paste("Question", 1:3))
  new <- suppressWarnings(arena_run(models, arena_baseline_judge("longer"), dataset = questions,
                   dir = withr::local_tempdir(),
                   options = arena_options(strategy = "all", seed = 2,
                                           ratings = rating_options("bt", bootstrap = 20,
                                                                    seed = 2))),
                          class = "predictivebench_warning_separated")
  expect_warning(
    old <- arena_run(models, arena_baseline_judge("longer"), dataset = questions,
                     dir = withr::local_tempdir(), strategy = "all", method = "bt",
                     times = 20, seed = 2),
    "deprecated as of predictivebench 0.2.0.*options = arena_options\\(\\)",
    class = "predictivebench_warning_deprecated"
  )
  expect_identical(old$ratings, new$ratings)
  expect_identical(old$records$winner, new$records$winner)
  expect_error(suppressWarnings(arena_run(models, arena_baseline_judge(), dataset = questions,
                                          rounds = 2)),
               class = "predictivebench_error_argument")
})

test_that("arena_options() refuses a bad option once, naming it", {
  expect_error(arena_options(n = 0), "n", class = "predictivebench_error_argument")
  expect_error(arena_options(strategy = "some"), class = "predictivebench_error_argument")
  err <- tryCatch(arena_options(ratings = list(method = "elo")), error = identity)
  expect_equal(err$field, "ratings")
  err <- tryCatch(arena_run(list(), arena_baseline_judge(), options = list(n = 2)),
                  error = identity)
  expect_equal(err$field, "options")
})
