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
                                    dir = logs,
                                    options = arena_options(experiment = "exp1", n = 2,
                                                            ratings = rating_options(method = "elo", bootstrap = 50))))
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
  # the judge's reply as it came, once (one text block is written as the text): the outcome
  # is the score's answer
  expect_equal(first$messages[[1]]$content,
               '{"winner": 1, "explanation": "Baseline judge (longer)."}')
  # what every battle shares is the header's, not each sample's
  expect_equal(log$eval$metadata$judger, "toy-judge")
  expect_equal(jsonlite::fromJSON(log$eval$metadata$rating_options)$bootstrap, 50)
  expect_false(any(c("rating_options", "judger", "position_swap", "winner_ab") %in%
                     names(first$metadata)))
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
  run <- arena_run(models, arena_baseline_judge("longer"), dataset = questions, dir = logs,
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo",
                                                                    bootstrap = 20)))
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
    suppressWarnings(arena_ratings(x, rating_options(bootstrap = 10, style_control = TRUE)),
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
  expect_error(arena_run(models, arena_baseline_judge(),
                         dataset = data.frame(question = paste("Q", 1:3)), dir = logs,
                         options = arena_options(strategy = "all",
                                                 ratings = rating_options(method = "elo",
                                                                          bootstrap = 0))),
               "the machine went away")
  expect_equal(calls, 2)
  expect_length(list.files(logs, all.files = TRUE, no.. = TRUE), 0)
})

test_that("a run of many battles writes its log in parts, each a whole log, read as one run", {
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("big big big big", "big"),
                 small = named_constant("s", "small"), mid = named_constant("mid mid", "mid"))
  # parts of a few kilobytes (a full rwq arena's are ~48 MB), written 4 battles at a time
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  run <- arena_run(models, arena_baseline_judge("longer"),
                   dataset = data.frame(question = paste("Question", 1:8)), dir = logs,
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo",
                                                                    bootstrap = 20)))
  parts <- run$paths$log_parts
  expect_gt(length(parts), 2)
  expect_equal(parts[[1]], run$paths$log)
  expect_setequal(list.files(logs, pattern = "[.]json$", full.names = TRUE), parts)
  # each part: a whole Inspect log of some battles, headed by the run's ratings, naming all
  headers <- lapply(parts, read_log_header)
  expect_equal(vapply(headers, function(h) h$eval$run_id, ""),
               rep(headers[[1]]$eval$run_id, length(parts)))
  for (k in seq_along(parts)) {
    meta <- headers[[k]]$eval$metadata
    expect_equal(c(meta$log_part, meta$log_parts), c(k, length(parts)))
    expect_equal(unlist(meta$log_files), basename(parts))
    expect_equal(meta$headline, headers[[1]]$eval$metadata$headline)
    expect_lte(file.size(parts[[k]]), 3000 + 4 * 2000)
  }
  counts <- vapply(parts, function(p) nrow(log_samples(p)), 1L)
  expect_equal(sum(counts), nrow(run$records))
  expect_equal(vapply(headers, function(h) h$results$total_samples, 1L), counts,
               ignore_attr = TRUE)
  # the readers: every part reads back the run's battles, its ratings, and the board shows
  # the run once, from its first file
  for (path in parts[c(1, length(parts))]) {
    back <- arena_outcomes(path)
    for (column in c("model_a", "model_b", "winner", "question", "answer_a", "answer_b")) {
      expect_identical(back[[column]], run$records[[column]], label = column)
    }
    expect_equal(arena_rating_rows(path)$estimate, arena_rating_summary(run$ratings)$estimate)
  }
  board <- leaderboard(logs)
  expect_equal(nrow(board), 3)
  expect_equal(unique(board$source), run$paths$log)
  expect_equal(board$estimate[order(board$model)],
               run$ratings$rating[order(run$ratings$model)])
  # a part without the others is not the run
  unlink(parts[[2]])
  expect_error(arena_summary(parts[[1]]), class = "predictivebench_error_missing_file")
  expect_inspect_valid(parts[-2])
})

test_that("a part holds at most arena_log_part_battles battles, whatever their size", {
  logs <- withr::local_tempdir()
  models <- list(a = named_constant("aa", "a"), b = named_constant("b", "b"))
  local_replace_internal("arena_log_part_battles", 3L)
  run <- arena_run(models, arena_baseline_judge("longer"),
                   dataset = data.frame(question = paste("Question", 1:7)), dir = logs,
                   options = arena_options(strategy = "all",
                                           ratings = rating_options(method = "elo", bootstrap = 0)))
  counts <- vapply(run$paths$log_parts, function(p) read_log_header(p)$results$total_samples,
                   1L)
  expect_equal(unname(counts), c(3L, 3L, 1L))
  ids <- unlist(lapply(run$paths$log_parts, function(p) log_samples(p)$id))
  expect_equal(ids, paste0("battle-", 1:7))
})

test_that("killed while closing: a run killed between its log's files leaves no run, and its rerun (0 paid) is the one run on the board", {
  skip_if_not_installed("callr")
  skip_on_cran()
  skip_on_os("windows")
  root <- skip_if_no_source_tree()
  server <- arena_parts_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  # A child runs the arena with its log in parts of a few kilobytes, and is killed (SIGKILL)
  # the moment its first closed file is in place: its later files are finished before its
  # first, so it leaves finished later files and its first still unfinished.
  # (the same run as the rerun's below: the function travels, found on the search path)
  run_arena <- arena_parts_run
  environment(run_arena) <- globalenv()
  child <- callr::r_bg(function(root, run_arena, url, logs, cache) {
    pkgload::load_all(root, quiet = TRUE)
    ns <- asNamespace("predictivebench")
    replace <- function(name, value) {
      unlockBinding(name, ns)
      assign(name, value, envir = ns)
    }
    replace("arena_log_part_bytes", 3000)
    replace("arena_log_slice", 4L)
    finish <- get("log_writer_finish", envir = ns)
    replace("log_writer_finish", function(w, header) {
      path <- finish(w, header)
      tools::pskill(Sys.getpid(), tools::SIGKILL)
      path
    })
    run_arena(url, logs, cache)
  }, args = list(root, run_arena = run_arena, url = server$url, logs = logs, cache = cache))
  child$wait(120000)
  expect_false(child$is_alive())
  expect_equal(child$get_exit_status(), -tools::SIGKILL,
               info = paste(child$read_all_error(), collapse = "\n"))
  left <- list.files(logs, pattern = "[.]json$", full.names = TRUE)
  expect_length(left, 1)
  expect_match(basename(left), "-part[0-9]+[.]json$")
  paid <- server$count()
  # no run to any reader: its first file is missing
  expect_warning(board <- leaderboard(logs), "missing",
                 class = "predictivebench_warning_skipped_logs")
  expect_equal(nrow(board), 0)
  err <- expect_error(report_failures(left), class = "predictivebench_error_missing_file")
  expect_match(conditionMessage(err), "run it again", fixed = TRUE)
  expect_error(arena_summary(left), class = "predictivebench_error_missing_file")
  # the rerun: every answer and verdict from the cache, the crashed run's files replaced
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  run <- arena_parts_run(server$url, logs, cache)
  expect_equal(server$count(), paid)
  expect_gt(length(run$paths$log_parts), 1)
  expect_setequal(list.files(logs, pattern = "[.]json$", full.names = TRUE), run$paths$log_parts)
  expect_length(list.files(logs, pattern = "^[.]", all.files = TRUE, no.. = TRUE), 0)
  expect_no_warning(board <- leaderboard(logs))
  expect_setequal(board$model, c("m1", "m2", "m3"))
  expect_equal(nrow(board), 3)
  expect_equal(unique(board$source), run$paths$log)
})

test_that("an identical rerun that sends nothing writes nothing: the board shows the run once", {
  server <- arena_parts_server()
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  first <- arena_parts_run(server$url, logs, cache)
  sent <- server$count()
  expect_gt(sent, 0)
  expect_message(again <- arena_parts_run(server$url, logs, cache),
                 class = "predictivebench_message_same_run")
  expect_equal(server$count(), sent)
  expect_equal(list.files(logs, pattern = "[.]json$", full.names = TRUE), first$paths$log)
  expect_equal(again$paths$log, first$paths$log)
  expect_equal(again$ratings, first$ratings)
  board <- leaderboard(logs)
  expect_equal(nrow(board), 3)
  # what sends, or is another run, writes its log: without the cache, and with new questions
  settings_run <- function(cache_setting, questions = paste("Q", 1:6)) {
    chats <- lapply(stats::setNames(nm = c("m1", "m2", "m3")), function(m) fake_chat(server, m))
    arena_run(chats, fake_chat(server, "judge-lm"), dir = logs,
              dataset = data.frame(question = questions),
              settings = request_settings(cache = cache_setting, rpm = Inf),
              options = arena_options(strategy = "all",
                                      ratings = rating_options(method = "elo", bootstrap = 0)))
  }
  expect_no_message(paid <- settings_run(FALSE), class = "predictivebench_message_same_run")
  expect_gt(server$count(), sent)
  expect_false(paid$paths$log == first$paths$log)
  other <- settings_run(cache, questions = paste("Q", 1:5))
  expect_length(list.files(logs, pattern = "[.]json$"), 3)
  paid_total <- server$count()
  # an offline run sends nothing: its identical rerun writes nothing either
  offline <- withr::local_tempdir()
  models <- list(a = named_constant("aaa", "a"), b = named_constant("b", "b"))
  one <- arena_run(models, arena_baseline_judge(), version = "sample", dir = offline,
                   options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0)))
  two <- suppressMessages(arena_run(models, arena_baseline_judge(), version = "sample",
                                    dir = offline,
                                    options = arena_options(ratings = rating_options(method = "elo", bootstrap = 0))))
  expect_equal(two$paths$log, one$paths$log)
  expect_length(list.files(offline, pattern = "[.]json$"), 1)
  # a run in parts: its files are the rerun's
  local_replace_internal("arena_log_part_bytes", 3000)
  local_replace_internal("arena_log_slice", 4L)
  parted_logs <- withr::local_tempdir()
  parted <- arena_parts_run(server$url, parted_logs, cache)
  expect_gt(length(parted$paths$log_parts), 1)
  expect_message(rerun <- arena_parts_run(server$url, parted_logs, cache),
                 class = "predictivebench_message_same_run")
  expect_equal(rerun$paths$log_parts, parted$paths$log_parts)
  expect_setequal(list.files(parted_logs, pattern = "[.]json$", full.names = TRUE),
                  parted$paths$log_parts)
  expect_equal(server$count(), paid_total)
})
