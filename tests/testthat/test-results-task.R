test_that("the log header shows the summary's headline numbers exactly, not x100", {
  local_arith_benchmark()
  dir <- withr::local_tempdir()
  tsk <- arith_task(dir = dir)
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  live <- arith_summary(tsk)
  log <- log_json(tsk$log_path)
  metrics <- log$results$scores[[1]]$metrics
  expect_named(metrics, c("weighted", "level 1"))
  # 1/4 * mean(1, 1/3) + 3/4 * 1/3: not the plain mean of the scores
  expect_identical(metrics$weighted$value, live$estimate[live$group == "weighted"])
  expect_identical(metrics$`level 1`$value, live$estimate[live$group == "level 1"])
  expect_false(isTRUE(all.equal(metrics$weighted$value, mean(tsk$get_samples()$score))))
  expect_identical(unname(tsk$metrics[["weighted"]]), metrics$weighted$value)
  # the scorer and solver carry the benchmark's names
  expect_equal(log$results$scores[[1]]$name, "arith_score")
  expect_match(log$plan$steps[[1]]$solver, "^arith_solver")
  expect_equal(log$eval$metadata$benchmark, "arith")
})

test_that("scores are logged exactly and metadata as key-value fields", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_constant("4"), view = FALSE)
  text <- readLines(tsk$log_path)
  expect_false(any(grepl("List of|\\$ :|@@pb:", text)))
  log <- log_json(tsk$log_path)
  first <- log$samples[[1]]
  expect_identical(first$scores[[1]]$value, 1 / 3)
  meta <- first$metadata
  expect_true(all(lengths(meta) <= 1))
  expect_equal(meta$level, 1L)
  expect_identical(meta$cached, FALSE)
  expect_equal(jsonlite::fromJSON(meta$answers), rep("4", 3))
  score_meta <- first$scores[[1]]$metadata
  expect_equal(score_meta$extracted, "4")
  expect_equal(score_meta$target, "2")
})

test_that("the summary of the log file equals the live one", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_random(c("2", "4", "6"), seed = 3), view = FALSE)
  from_log <- log_samples(tsk$log_path)
  expect_identical(arith_summary(from_log), arith_summary(tsk))
  expect_identical(from_log$score, tsk$get_samples()$score)
  expect_identical(from_log$level, tsk$get_samples()$level)
  expect_equal(from_log$solver_metadata[[2]]$answers, tsk$get_samples()$solver_metadata[[2]]$answers)
})

test_that("model usage counts every vote and judge call, per model, as get_cost() does", {
  local_arith_benchmark()
  server <- local_fake_openai(function(body, n) {
    if (grepl("^Judge", last_user_text(body))) {
      list(text = "fine", usage = list(prompt_tokens = 7L, completion_tokens = 2L))
    } else {
      list(text = "4", usage = list(prompt_tokens = 11L, completion_tokens = 3L))
    }
  })
  judge <- fake_chat(server, model = "judge-model")
  tsk <- arith_task(solver = arith_solver(votes = 3), scorer = arith_scorer(judge),
                    dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  logged <- log_usage(tsk$log_path)
  logged <- logged[order(logged$model), ]
  expected <- tibble::tibble(model = c("openai_compatible/fake-model",
                                       "openai_compatible/judge-model"),
                             input_tokens = c(4 * 3 * 11, 4 * 7),
                             output_tokens = c(4 * 3 * 3, 4 * 2))
  expect_equal(logged[c("model", "input_tokens", "output_tokens")], expected)
  spent <- task_usage(tsk)
  spent <- spent[order(spent$model), ]
  expect_equal(logged[c("model", "input_tokens", "output_tokens")],
               spent[c("model", "input_tokens", "output_tokens")])
  # a sample's own usage is its three votes
  first <- log_json(tsk$log_path)$samples[[1]]
  sample_usage <- first$model_usage[[1]]
  expect_equal(c(sample_usage$input_tokens, sample_usage$output_tokens), c(33, 9))
  # the scorer's explanation, not the judge's reply ("fine") that vitals would log
  expect_equal(vapply(log_json(tsk$log_path)$samples, function(s) s$scores[[1]]$explanation, ""),
               paste("extracted 4 vs", c("2", "4", "6", "8")))
  expect_equal(first$scores[[1]]$metadata$grading[[2]]$content[[1]]$text, "fine")
  expect_equal(log_samples(tsk$log_path)$scorer_explanation[[1]], "extracted 4 vs 2")
})

test_that("a cached re-run costs nothing, says so, and gets its own task id", {
  local_arith_benchmark()
  server <- local_fake_openai(function(body, n) "4")
  cache <- withr::local_tempdir()
  dir <- withr::local_tempdir()
  make <- function() arith_task(solver = arith_solver(votes = 2, cache = cache), dir = dir)
  set.seed(1)
  first <- make()
  first$eval(solver_chat = fake_chat(server), view = FALSE)
  set.seed(1)
  second <- make()
  second$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(server$count(), 8)
  expect_equal(nrow(task_usage(second)), 0)
  usage <- log_usage(second$log_path)
  expect_equal(sum(usage$input_tokens + usage$output_tokens), 0)
  expect_true(all(vapply(log_json(second$log_path)$samples, function(s) s$metadata$cached, TRUE)))
  ids <- vapply(c(first$log_path, second$log_path), function(p) log_json(p)$eval$task_id, "")
  runs <- vapply(c(first$log_path, second$log_path), function(p) log_json(p)$eval$run_id, "")
  expect_false(ids[[1]] == ids[[2]])
  expect_false(runs[[1]] == runs[[2]])
  expect_length(list.files(dir, pattern = "\\.json$"), 2)
})

test_that("vitals_bind() combines tasks whose scorers used different score types", {
  local_arith_benchmark()
  numeric <- arith_task(dir = withr::local_tempdir())
  numeric$eval(solver_chat = baseline_constant("4"), view = FALSE)
  factor_scorer <- function(samples, ...) {
    list(score = factor(ifelse(samples$result == samples$target, "C", "I"),
                        levels = c("I", "C"), ordered = TRUE))
  }
  graded <- ResultsTask$new(
    dataset = tibble::tibble(input = c("x", "y"), target = c("4", "5")),
    solver = generate_solver(settings = request_settings(cache = FALSE)), scorer = factor_scorer, benchmark = "graded",
    dir = withr::local_tempdir()
  )
  graded$eval(solver_chat = baseline_constant("4"), view = FALSE)
  both <- vitals::vitals_bind(arith = numeric, graded = graded)
  expect_type(both$score, "double")
  expect_equal(both$score[both$task == "graded"], c(1, 0))
  expect_equal(both$id[both$task == "graded"], c("1", "2"))
})

test_that("a run whose requests all failed is logged with NA results", {
  local_arith_benchmark()
  server <- local_fake_openai(function(body, n) list(status = 400))
  tsk <- arith_task(solver = arith_solver(votes = 1), dir = withr::local_tempdir())
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_all_failed")
  expect_true(all(is.na(tsk$get_samples()$result)))
  expect_true(file.exists(tsk$log_path))
})

test_that("epochs are logged and read back sample by sample", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir(), epochs = 2)
  tsk$eval(solver_chat = baseline_random(c("2", "4"), seed = 2), view = FALSE)
  back <- log_samples(tsk$log_path)
  expect_equal(nrow(back), 8)
  live <- tsk$get_samples()
  expect_identical(back$epoch, as.integer(live$epoch))
  expect_identical(back$score, live$score)
  expect_identical(arith_summary(back), arith_summary(tsk))
})

test_that("a solver without metadata (vitals' generate()) is logged from its chats", {
  server <- local_fake_openai(function(body, n) "4")
  tsk <- ResultsTask$new(dataset = arith_dataset(), solver = vitals::generate(),
                         scorer = arith_scorer(), benchmark = "plain",
                         dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  expect_equal(log_usage(tsk$log_path)[c("model", "input_tokens", "output_tokens")],
               task_usage(tsk)[c("model", "input_tokens", "output_tokens")])
  meta <- log_json(tsk$log_path)$samples[[1]]$metadata
  expect_equal(meta, list(level = 1L))
  expect_named(tsk$metrics, "mean")
  expect_equal(log_samples(tsk$log_path)$level, arith_dataset()$level)
})

test_that("a benchmark without a fixed headline logs every summary row, read back alike", {
  summary <- function(x) arith_summary(benchmark_samples(x, c("score", "level"), "a task."))
  local_benchmarks(list(new_benchmark("arith", list(fn = summary, headline = NULL,
                                                   by = "level"))))
  tsk <- arith_task(dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_random(c("2", "4", "6"), seed = 3), view = FALSE)
  log <- expect_results_log(tsk, summary, "level")
  expect_named(log$results$scores[[1]]$metrics, c("weighted", "overall", "level 1", "level 2"))
})

test_that("call_with_names() passes arguments by name, whatever they are called", {
  f <- function(fn = NULL, .fn = NULL, args = NULL, ..., epochs = NULL) {
    list(fn = fn, .fn = .fn, args = args, dots = list(...), epochs = epochs,
         exprs = vapply(as.list(sys.call())[-1], function(e) paste(deparse(e), collapse = ""), ""))
  }
  out <- call_with_names(f, list(fn = 1, .fn = 2, args = 3, 4, big = 1:10, .arg4 = 6),
                         epochs = 5)
  expect_identical(out[c("fn", ".fn", "args", "epochs")],
                   list(fn = 1, .fn = 2, args = 3, epochs = 5))
  expect_identical(out$dots, list(4, big = 1:10, .arg4 = 6))
  # each value reaches the function as a variable, never inlined (what vitals deparses)
  expect_identical(unname(out$exprs[1:5]), c("fn", ".fn", "args", ".arg4", "big"))
})

test_that("call_with_names() with no arguments calls the function with the extra ones only", {
  expect_identical(call_with_names(function(...) list(...), list(), epochs = NULL),
                   list(epochs = NULL))
})

test_that("an error inside $eval() names no internal function of the package", {
  tsk <- futurex_task(futurex_dataset(version = "sample", limit = 2),
                      dir = withr::local_tempdir())
  e <- tryCatch(suppressMessages(tsk$eval(solver_chat = 1, view = FALSE)),
                predictivebench_error = identity)
  expect_s3_class(e, "predictivebench_error_argument")
  named <- if (is.null(e$call)) NULL else call_name(e$call)
  exported <- getNamespaceExports("predictivebench")
  expect_true(is.null(named) || named %in% exported, label = paste("the call", named))
  expect_no_match(format(e, backtrace = FALSE), "catch_step_failure|call_with_names")
  # a user's direct call is still named
  e2 <- tryCatch(futurex_summary(data.frame(x = 1)), predictivebench_error = identity)
  expect_equal(call_name(e2$call), "futurex_summary")
})

test_that("a log written in chunks has no known cost when one chunk paid at no known price", {
  priced <- usage_entries(rbind(c(10, 2, 0.5)), "m")
  unpriced <- usage_entries(rbind(c(10, 2, NA)), "m")
  cached <- usage_entries(rbind(c(0, 0, 0)), "m")
  nothing <- usage_entries(rbind(c(0, 0, NA)), "m")
  expect_null(add_usage(priced, unpriced)$m$total_cost)
  expect_null(add_usage(unpriced, cached)$m$total_cost)
  expect_equal(add_usage(add_usage(priced, cached), nothing)$m$total_cost, 0.5)
  expect_equal(add_usage(priced, unpriced)$m$input_tokens, 20)
  # as the entries of all the samples at once
  expect_identical(add_usage(priced, unpriced),
                   usage_entries(rbind(c(10, 2, 0.5), c(10, 2, NA)), c("m", "m")))
})

test_that("library() in a new session says where the logs are, and vitals_view() finds them", {
  skip_if_not_installed("callr")
  user_data <- withr::local_tempdir()
  out <- withr::with_envvar(c(VITALS_LOG_DIR = NA, R_USER_DATA_DIR = user_data), callr::r(
    function(root) {
      messages <- list()
      withCallingHandlers({
        if (is.null(root)) library(predictivebench) else pkgload::load_all(root, quiet = TRUE)
      }, message = function(m) messages[[length(messages) + 1L]] <<- m)
      list(log_dir = vitals::vitals_log_dir(), classes = lapply(messages, class),
           text = vapply(messages, conditionMessage, ""))
    }, list(root = source_tree())))
  expected <- file.path(normalizePath(user_data), "R", "predictivebench", "logs")
  expect_equal(normalizePath(out$log_dir, mustWork = FALSE), expected)
  said <- vapply(out$classes, function(cl) "predictivebench_message_log_dir" %in% cl, TRUE)
  expect_equal(sum(said), 1L)
  expect_true("packageStartupMessage" %in% out$classes[[which(said)]])
  expect_match(out$text[[which(said)]], "vitals_view()", fixed = TRUE)
  expect_true(grepl(expected, gsub("\\s+", "", out$text[[which(said)]]), fixed = TRUE))
})

test_that("a ResultsTask keeps its dataset, steps and epochs in its own fields", {
  local_arith_benchmark()
  solver <- arith_solver(votes = 1)
  scorer <- arith_scorer()
  tsk <- arith_task(solver = solver, scorer = scorer, dir = withr::local_tempdir(), epochs = 2)
  expect_identical(tsk$dataset(), arith_dataset())
  expect_identical(tsk$steps()$solver, list(fn = solver, name = "arith_solver"))
  expect_identical(tsk$steps()$scorer, list(fn = scorer, name = "arith_score"))
  expect_identical(tsk$default_epochs(), 2)
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  expect_identical(tsk$dataset(), arith_dataset())
  expect_equal(nrow(tsk$get_samples()), 8)
})

test_that("$set_solver() and $set_scorer() change the steps $eval() runs and logs", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  always_four <- function(inputs, ..., solver_chat) {
    chats <- lapply(inputs, function(input) {
      chat <- solver_chat$clone()
      chat$chat(input, echo = "none")
      chat
    })
    list(result = rep("4", length(inputs)), solver_chat = chats)
  }
  all_right <- function(samples, ...) list(score = rep(1, nrow(samples)))
  tsk$set_solver(always_four)
  tsk$set_scorer(all_right)
  expect_identical(tsk$steps()$solver, list(fn = always_four, name = "always_four"))
  suppressMessages(tsk$eval(solver_chat = baseline_constant("7"), view = FALSE))
  expect_identical(tsk$get_samples()$result, rep("4", 4))
  expect_identical(tsk$get_samples()$score, rep(1, 4))
  header <- read_log_header(tsk$log_path)
  expect_match(header$plan$steps[[1]]$solver, "^always_four ")
  expect_identical(header$results$scores[[1]]$name, "all_right")
})

test_that("a copy of a task runs on its own state, not the task's", {
  local_arith_benchmark()
  tsk <- arith_task(dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  run_id <- tsk$run_state()$run_id
  for (copy in list(tsk$clone(), tsk$clone(deep = TRUE))) {
    suppressMessages(copy$eval(solver_chat = baseline_constant("5"), view = FALSE))
    expect_false(identical(copy$run_state()$run_id, run_id))
    expect_identical(tsk$run_state()$run_id, run_id)
  }
  expect_identical(read_log_header(tsk$log_path)$eval$run_id, run_id)
})

test_that("ResultsTask$new() takes at most 10 arguments, the steps' log names as one", {
  local_arith_benchmark()
  expect_lte(length(formals(ResultsTask$public_methods$initialize)), 10)
  tsk <- arith_task(dir = withr::local_tempdir(),
                    step_names = c(solver = "my_solver", scorer = "my_score"))
  expect_identical(tsk$steps()$solver$name, "my_solver")
  expect_identical(tsk$steps()$scorer$name, "my_score")
  suppressMessages(tsk$eval(solver_chat = baseline_constant("4"), view = FALSE))
  header <- read_log_header(tsk$log_path)
  expect_match(header$plan$steps[[1]]$solver, "^my_solver ")
  expect_identical(header$results$scores[[1]]$name, "my_score")
  expect_error(arith_task(dir = withr::local_tempdir(), step_names = c(solver = "s")),
               class = "predictivebench_error_argument")
})
