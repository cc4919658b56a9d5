# A log's samples, condensed (R/log-samples.R): each long text where the viewer shows it
# and once in the attachments, the scorer's step kept.

test_that("a log stores each long text of a sample where the viewer shows it and once more", {
  dir <- withr::local_tempdir()
  answer <- paste("Weighing the forecasts of the week before and the season's records, rain",
                  "looks more likely than not. \\boxed{Yes}")
  tsk <- futurex_run(answer, dir)
  live <- tsk$get_samples()
  lines <- readLines(tsk$log_path, encoding = "UTF-8")
  lines <- lines[startsWith(lines, "{\"id\":")]
  expect_length(lines, nrow(live))
  count <- function(text, line) {
    lengths(regmatches(line, gregexpr(text, line, fixed = TRUE)))
  }
  for (i in seq_along(lines)) {
    sample <- jsonlite::parse_json(sub(",$", "", lines[[i]]))
    # the prompt and the answer as JSON writes them, each twice in the sample's line: plain
    # in `input` and the score's `answer` (the viewer's sample list and score panel show
    # them unresolved), and once in the attachments the messages and the event refer to
    expect_equal(count(substr(jsonlite::toJSON(live$input[[i]], auto_unbox = TRUE), 2, 200),
                       lines[[i]]), 2)
    expect_equal(count(substr(jsonlite::toJSON(answer, auto_unbox = TRUE), 2, 60),
                       lines[[i]]), 2)
    expect_identical(sample$input, live$input[[i]])
    expect_identical(sample$scores[[1]]$answer, answer)
    # every other text of more than 100 characters is in the attachments, once
    plain <- sample[setdiff(names(sample), c("attachments", "input", "scores"))]
    texts <- unlist(plain)
    texts <- texts[is.character(texts) & nchar(texts) > 100]
    expect_length(texts, 0)
    expect_false(anyDuplicated(unlist(sample$attachments)) > 0)
    expect_true(all(nchar(names(sample$attachments)) == 16))
  }
  read <- log_samples(tsk$log_path)
  expect_identical(read$input, live$input)
  expect_identical(read$result, live$result)
  theirs <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant(answer))
  expect_identical(theirs$input, live$input)
  expect_identical(theirs$result, live$result)
  expect_length(grep("^ok ", expect_inspect_valid(tsk$log_path)), 1)
})

test_that("a sample stores each long text twice at most, and every reader resolves it", {
  dir <- withr::local_tempdir()
  answer <- paste("My reasoning, at length:", strrep("the rain gauge says so; ", 8), "\\boxed{Yes}")
  tsk <- futurex_run(answer, dir)
  lines <- readLines(tsk$log_path, encoding = "UTF-8")
  first <- jsonlite::parse_json(sub(",$", "", lines[grep("^\\{\"id\":", lines)[[1]]]))
  prompt <- tsk$get_samples()$input[[1]]
  expect_gt(nchar(prompt), 100)
  line <- lines[grep("^\\{\"id\":", lines)[[1]]]
  count <- function(text) {
    lengths(regmatches(line, gregexpr(jsonlite::toJSON(text, auto_unbox = TRUE), line,
                                      fixed = TRUE)))
  }
  # each twice (issue 37; before, the prompt three times and the answer four: in the
  # messages, the sample's output and the model event's call): plain where the viewer shows
  # it unresolved (`input`, the score's `answer`), and once in the attachments
  expect_equal(count(prompt), 2)
  expect_equal(count(answer), 2)
  expect_identical(first$input, prompt)
  expect_identical(first$scores[[1]]$answer, answer)
  expect_length(first$attachments, 2)
  expect_null(first$output)
  kinds <- vapply(first$events, function(e) e$event, "")
  expect_false("sample_init" %in% kinds)
  expect_true("model" %in% kinds)
  expect_false(any(vapply(first$events, function(e) !is.null(e$call), TRUE)))
  # vitals' reader resolves the references: the chat's turns hold the texts
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant(answer))
  turns <- read$solver_chat[[1]]$get_turns()
  expect_equal(turns[[1]]@text, prompt)
  expect_equal(turns[[length(turns)]]@text, answer)
  expect_equal(read$input[[1]], prompt)
  # vitals_view()'s listing reads its header
  listed <- utils::getFromNamespace("get_log_files_metadata", "vitals")(dir)
  expect_length(listed, 1)
  expect_equal(listed[[1]]$task_id, read_log_header(tsk$log_path)$eval$task_id)
  # and so do ours, and Inspect's schema
  expect_identical(log_samples(tsk$log_path)$result, tsk$get_samples()$result)
  expect_inspect_valid(tsk$log_path)
})

test_that("a judged sample keeps the scorer's step: vitals' reader gives the solver's and the judge's chats apart", {
  reply <- "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5"
  server <- local_fake_openai(function(body, n) reply)
  dataset <- futurex_dataset(version = "sample")
  dataset <- dataset[dataset$id == "fx-l3-temp", ]
  tsk <- futurex_task(dataset = dataset,
                      solver = futurex_solver(settings = request_settings(cache = FALSE)),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("\\boxed{99}"), scorer_chat = fake_chat(server),
           view = FALSE)
  sample <- jsonlite::read_json(tsk$log_path)$samples[[1]]
  steps <- Filter(function(e) identical(e$event, "step"), sample$events)
  expect_true(any(vapply(steps, function(e) identical(e$type, "scorer"), TRUE)))
  expect_false(any(vapply(steps, function(e) identical(e$type, "solver"), TRUE)))
  read <- vitals::vitals_log_read(tsk$log_path, solver_chat = baseline_constant("\\boxed{99}"),
                                  scorer_chat = fake_chat(server))
  expect_equal(read$solver_chat[[1]]$last_turn()@text, "\\boxed{99}")
  expect_equal(read$scorer_chat[[1]]$last_turn()@text, reply)
  expect_inspect_valid(tsk$log_path)
})

test_that("as_score() maps every score type to [0, 1]", {
  expect_identical(as_score(factor(c("C", "I", "P", NA), levels = c("I", "P", "C"))),
                   c(1, 0, 0.5, NA))
  expect_identical(as_score(c(TRUE, FALSE, NA)), c(1, 0, NA))
  expect_identical(as_score(c(0L, 1L)), c(0, 1))
  expect_identical(as_score(c("C", "I")), c(1, 0))
  expect_error(as_score(c(0.5, 2)), "outside")
  expect_error(as_score(c("C", "maybe")), "maybe")
  expect_error(as_score(list(1)), class = "predictivebench_error_argument")
})

test_that("score_values() makes every scorer's scores: doubles in [0, 1], NA unscored", {
  expect_identical(score_values(c(TRUE, FALSE, NA)), c(1, 0, NA))
  expect_identical(score_values(c(0.25, 1L)), c(0.25, 1))
  expect_identical(score_values(c(TRUE, TRUE, FALSE), unscored = c(FALSE, TRUE, FALSE)),
                   c(1, NA, 0))
  expect_error(score_values(c(0, -0.1)), class = "predictivebench_error_argument")
  # a factor is what scorers made before; the helper refuses to make one again
  expect_error(score_values(factor("C")), class = "predictivebench_error_argument")
})

test_that("no scorer of the package builds an I/C factor", {
  src <- file.path(skip_if_no_source_tree(), "R")
  code <- unlist(lapply(list.files(src, "\\.R$", full.names = TRUE), readLines))
  code <- code[!grepl("^\\s*#", code)]
  expect_false(any(grepl("ordered = TRUE", code, fixed = TRUE)))
})
