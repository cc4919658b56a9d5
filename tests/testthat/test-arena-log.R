# The arena run's log (R/arena-log.R): written as battles are judged, closed with the ratings,
# each battle's texts stored once (in its input), and no log left by a run that stops.

test_that("one run writes one log: ratings as headline, competitors and judge, readable rows", {
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  counter <- new.env()
  counter$n <- 0
  judge <- counting_judge(counter, name = "toy-judge")
  # several rounds (n = 2 decisive battles per pair), one log
  run <- suppressWarnings(arena_run(models, judge,
                                    dataset = data.frame(question = paste("Question", 1:6)),
                                    experiment = "exp1", dir = logs, n = 2, times = 50))
  logs <- list.files(logs, pattern = "[.]json$", full.names = TRUE)
  expect_length(logs, 1)
  expect_equal(run$paths$log, logs)
  expect_match(basename(logs), "arena-exp1", fixed = TRUE)
  log <- log_json(logs)
  expect_equal(log$eval$metadata$benchmark, "arena_ratings")
  # the competitors are the model evaluated, the judge the scorer's model
  expect_match(log$eval$model, "big vs small vs mid", fixed = TRUE)
  expect_match(log$results$scores[[1]]$name, "toy-judge", fixed = TRUE)
  # rows: the question and both answers, then the verdict, told from model_a's side as
  # its score is
  expect_equal(length(log$samples), nrow(run$records))
  expect_equal(counter$n, nrow(run$records))
  first <- log$samples[[1]]
  expect_match(first$input, "^Question:\nQuestion")
  expect_match(first$input, paste0("Answer of ", first$metadata$model_a, " \\(model_a\\)"))
  expect_match(first$messages[[2]]$content[[1]]$text, "^Verdict: ")
  for (sample in log$samples) {
    a <- sample$metadata$model_a
    b <- sample$metadata$model_b
    said <- c(`1` = "wins against", `0` = "loses to", `0.5` = "ties with")
    expect_equal(sample$scores[[1]]$answer,
                 paste(a, said[[as.character(sample$scores[[1]]$value)]], b))
    expect_match(sample$scores[[1]]$explanation,
                 paste0("The score is ", a, "'s (model_a) points: ", sample$scores[[1]]$value),
                 fixed = TRUE)
  }
  expect_inspect_valid(logs)
})

test_that("a run's log stores each text once a battle: the input, read back exactly", {
  logs <- withr::local_tempdir()
  # answers that hold what the battle's text puts between them, and text outside ASCII
  models <- list(
    tricky = named_constant("Fine.\n\nAnswer of plain (model_b):\nnot really the end", "tricky"),
    plain = named_constant("Plain answer — déjà vu ✓", "plain"),
    empty = named_constant("", "empty")
  )
  questions <- data.frame(question = c("Unique question ALPHA?", "Question:\nBETA\n\n?"))
  run <- arena_run(models, arena_baseline_judge("longer"), dataset = questions,
                   strategy = "all", dir = logs, times = 20)
  lines <- readLines(run$paths$log, encoding = "UTF-8")
  samples <- lines[startsWith(lines, "{\"id\":\"battle-")]
  expect_length(samples, nrow(run$records))
  count <- function(text, pattern) lengths(regmatches(text, gregexpr(pattern, text, fixed = TRUE)))
  for (i in seq_along(samples)) {
    sample <- jsonlite::parse_json(sub(",$", "", samples[[i]]))
    record <- run$records[i, ]
    expect_equal(sample$input, arena_battle_text(record$question, record$model_a,
                                                 record$answer_a, record$model_b,
                                                 record$answer_b))
    # the question, each answer and the judge's reply once each in the sample's line
    expect_equal(count(samples[[i]], if (grepl("ALPHA", record$question)) "ALPHA" else "BETA"),
                 1L)
    expect_equal(count(samples[[i]], "not really the end"),
                 as.integer("tricky" %in% c(record$model_a, record$model_b)))
    expect_equal(count(samples[[i]], "déjà vu"),
                 as.integer("plain" %in% c(record$model_a, record$model_b)))
    expect_equal(count(samples[[i]], "Baseline judge (longer)."), 1L)
    expect_equal(sample$metadata$request_sha256,
                 jsonlite::fromJSON(record$gpt_4_response)$request_sha256)
  }
  # the battles read back from the log are the run's, answers included
  back <- arena_outcomes(run$paths$log)
  for (column in c("model_a", "model_b", "winner", "question", "answer_a", "answer_b")) {
    expect_identical(back[[column]], run$records[[column]], label = column)
  }
  rate <- function(x) {
    suppressWarnings(arena_ratings(x, style_control = TRUE, bootstrap = 10),
                     classes = "predictivebench_warning_separated")
  }
  expect_equal(rate(run$paths$log), rate(run$records), ignore_attr = TRUE)
  expect_inspect_valid(run$paths$log)
})

test_that("a run that stops on an error leaves no log in its folder, finished or not", {
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("big big big", "big"), small = named_constant("s", "small"))
  local_replace_internal("arena_chunk", function(settings) 1L)
  calls <- 0
  original <- judge_verdicts
  local_replace_internal("judge_verdicts", function(battles, ...) {
    calls <<- calls + 1
    if (calls == 2) stop("the machine went away")
    original(battles, ...)
  })
  expect_error(arena_run(models, arena_baseline_judge(), strategy = "all",
                         dataset = data.frame(question = paste("Q", 1:3)), dir = logs,
                         times = 0),
               "the machine went away")
  expect_equal(calls, 2)
  expect_length(list.files(logs, all.files = TRUE, no.. = TRUE), 0)
})
