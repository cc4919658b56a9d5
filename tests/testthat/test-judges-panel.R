test_that("a judge is a chat, a string or a list; a list of one is that chat", {
  yes <- baseline_chat("True", name = "yes")
  no <- baseline_chat("False", name = "no")
  expect_identical(check_judge(yes), yes)
  expect_identical(check_judge(list(yes)), yes)
  expect_null(check_judge(NULL, allow_null = TRUE))
  panel <- check_judge(list(yes, no))
  expect_true(is_judge_panel(panel))
  expect_identical(check_judge(panel), panel)
  expect_identical(judge_models(panel), c("yes", "no"))
  expect_identical(judge_label(panel), "panel(yes, no)")
  expect_identical(judge_label(yes), "yes")
  expect_identical(judge_members(yes), list(yes))
  expect_length(judge_members(panel), 2)
  expect_identical(judge_members(NULL), list())
})

test_that("bad judges are refused, naming the member", {
  yes <- baseline_chat("True", name = "yes")
  err <- expect_error(check_judge(list(yes, 3), arg = "judge"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "judge[[2]]", fixed = TRUE)
  expect_error(check_judge(list()), class = "predictivebench_error_argument")
  expect_error(check_judge(NULL), class = "predictivebench_error_argument")
  # the same judge twice would count one judge's cached verdicts twice
  err <- expect_error(check_judge(list(yes, yes), arg = "judge"),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "same judge")
})

test_that("two chats of one model with other parameters are two judges, named apart", {
  a <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                      credentials = function() "k")
  b <- ellmer::chat_openai_compatible(base_url = "http://127.0.0.1:9/v1", model = "m",
                                      params = ellmer::params(temperature = 1),
                                      credentials = function() "k")
  panel <- check_judge(list(a, b))
  expect_identical(judge_models(panel), c("m", "m#2"))
  expect_error(check_judge(list(a, a$clone())), class = "predictivebench_error_argument")
})

test_that("majority: more than half the judges; all spoke without one: the tie-break; a missing verdict that could decide: none", {
  votes <- cbind(c("a", "a", "a", NA, "b", NA, "x"),
                 c("a", "b", "b", "a", "c", NA, "x"),
                 c("b", "c", NA, "a", "a", "x", "y"))
  expect_identical(panel_majority(votes),
                   c("a", "tie", NA, "a", "tie", NA, "x"))
  expect_identical(panel_majority(votes, none = "none")[[2]], "none")
  # one judge: its verdicts as they are
  expect_identical(panel_majority(c("a", NA, "b")), c("a", NA, "b"))
  # an even split has no majority
  expect_identical(panel_majority(cbind("a", "b"), none = "false"), "false")
})

test_that("mean: each row's mean of the judges' scores", {
  expect_equal(panel_mean(cbind(c(1, 0, NA), c(0, 0, 1), c(1, 0.5, 1))),
               c(2 / 3, 0.5 / 3, NA))
  expect_equal(panel_mean(c(0.2, 1)), c(0.2, 1))
})

test_that("each judge's verdicts travel as JSON and are read back as a table", {
  json <- panel_json(c("m1", "m2"), list(
    winner = cbind(c("model_a", NA), c("b \"quoted\"\n", "tie")),
    score = cbind(c(1, 0.1), c(NA, 2)),
    correct = cbind(c(TRUE, NA), c(FALSE, TRUE))
  ))
  expect_length(json, 2)
  expect_true(all(vapply(json, jsonlite::validate, TRUE)))
  back <- panel_judges(c(json, NA))
  expect_identical(back$sample, c(1L, 1L, 2L, 2L))
  expect_identical(back$judge, c("m1", "m2", "m1", "m2"))
  expect_identical(back$winner, c("model_a", "b \"quoted\"\n", NA, "tie"))
  expect_identical(back$score, c(1, NA, 0.1, 2))
  expect_identical(back$correct, c(TRUE, FALSE, NA, TRUE))
  expect_identical(nrow(panel_judges(NA_character_)), 0L)
})

test_that("JSON strings are escaped as jsonlite escapes them", {
  x <- c("plain", "q\"uote", "back\\slash", "line\nbreak", "tab\t", "bell\a", NA)
  expect_identical(json_strings(x)[-7],
                   vapply(x[-7], function(s) as.character(jsonlite::toJSON(s, auto_unbox = TRUE)),
                          "", USE.NAMES = FALSE))
  expect_identical(json_strings(NA), "null")
})

test_that("a panel's tokens count under each judge's own model: the log's header, each sample, $get_cost() and the board agree, and name the panel", {
  solver_server <- local_fake_openai(function(body, n) {
    list(text = "ANSWER-C", usage = list(prompt_tokens = 3L, completion_tokens = 1L))
  })
  # each judge at its own server, each with its own token counts and verdicts
  judge_server <- function(said, input, output) {
    local_fake_openai(function(body, n) {
      list(text = said, usage = list(prompt_tokens = input, completion_tokens = output))
    }, .local_envir = parent.frame())
  }
  servers <- list(a = judge_server("True", 7L, 1L), b = judge_server("False", 11L, 2L),
                  c = judge_server("True", 13L, 3L))
  judges <- list(fake_chat(servers$a, "judge-a"), fake_chat(servers$b, "judge-b"),
                 fake_chat(servers$c, "judge-c"))
  settings <- request_settings(cache = withr::local_tempdir())
  data <- dsbench_dataset(version = "sample")
  dir <- withr::local_tempdir()
  tsk <- dsbench_task(data, solver = dsbench_solver(settings = settings),
                      scorer = dsbench_scorer(scorer_chat = judges, settings = settings),
                      dir = dir)
  suppressMessages(tsk$eval(solver_chat = fake_chat(solver_server, "solver-model"),
                            view = FALSE))
  counts <- vapply(servers, function(s) s$count(), 1)
  expect_equal(unname(counts), rep(nrow(data), 3))
  header <- read_log_header(tsk$log_path)
  usage <- header$stats$model_usage
  labels <- vapply(judges, chat_model_label, "")
  expect_setequal(names(usage), c(chat_model_label(fake_chat(solver_server, "solver-model")),
                                  labels))
  tokens <- list(c(7, 1), c(11, 2), c(13, 3))
  for (j in 1:3) {
    expect_equal(usage[[labels[[j]]]]$input_tokens, counts[[j]] * tokens[[j]][[1]])
    expect_equal(usage[[labels[[j]]]]$output_tokens, counts[[j]] * tokens[[j]][[2]])
  }
  # each sample's usage names every judge, and adds up to the header's
  log <- jsonlite::read_json(tsk$log_path)
  expect_setequal(names(log$samples[[1]]$model_usage), names(usage))
  expect_equal(sum(vapply(log$samples, function(s) s$model_usage[[labels[[2]]]]$input_tokens, 1)),
               usage[[labels[[2]]]]$input_tokens)
  # the task's $get_cost() counts the same per model
  from_task <- task_usage(tsk)
  from_log <- log_usage(tsk$log_path)
  expect_equal(from_task$input_tokens[match(labels, from_task$model)],
               from_log$input_tokens[match(labels, from_log$model)])
  expect_equal(from_task$output_tokens[match(labels, from_task$model)],
               from_log$output_tokens[match(labels, from_log$model)])
  # the scorer and the board name the whole panel
  panel <- "panel(judge-a, judge-b, judge-c)"
  expect_identical(header$results$scores[[1]]$name, paste0("dsbench_score (", panel, ")"))
  expect_identical(header$eval$scorers[[1]]$name, paste0("dsbench_score (", panel, ")"))
  # each sample's score under that name too (the viewer matches them by it)
  expect_identical(unique(unlist(lapply(log$samples, function(s) names(s$scores)))),
                   paste0("dsbench_score (", panel, ")"))
  board <- leaderboard(dir)
  expect_identical(unique(board$judge), panel)
})

test_that("a FutureX panel's judges are counted apart too, one judge's log as before", {
  server <- local_fake_openai(function(body, n) {
    if (!grepl("normalization", body$messages[[1]]$content %||% "")) return("\\boxed{12}")
    usage <- if (identical(body$model, "judge-a")) list(prompt_tokens = 5L, completion_tokens = 1L) else
      list(prompt_tokens = 9L, completion_tokens = 4L)
    list(text = "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12", usage = usage)
  })
  settings <- request_settings(cache = withr::local_tempdir())
  built <- futurex_panel_task(server, settings)
  data <- built$data
  judged <- built$judged
  tsk <- built$task
  panel <- built$panel
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  usage <- read_log_header(tsk$log_path)$stats$model_usage
  a <- chat_model_label(panel[[1]])
  b <- chat_model_label(panel[[2]])
  expect_equal(c(usage[[a]]$input_tokens, usage[[a]]$output_tokens), c(5, 1) * judged)
  expect_equal(c(usage[[b]]$input_tokens, usage[[b]]$output_tokens), c(9, 4) * judged)
  expect_equal(usage[[chat_model_label(fake_chat(server))]]$input_tokens, 10 * nrow(data))
  expect_match(read_log_header(tsk$log_path)$results$scores[[1]]$name,
               "(panel(judge-a, judge-b))", fixed = TRUE)
  # one judge: named by its model, no panel fields in its samples' metadata
  single <- futurex_task(data, solver = futurex_solver(settings = settings),
                         scorer = futurex_scorer(scorer_chat = panel[[2]], settings = settings),
                         dir = withr::local_tempdir())
  suppressMessages(single$eval(solver_chat = fake_chat(server), view = FALSE))
  header <- read_log_header(single$log_path)
  expect_identical(header$results$scores[[1]]$name, "futurex_score (judge-b)")
  expect_false(any(vapply(single$get_samples()$scorer_metadata,
                          function(m) "judges_usage" %in% names(m), TRUE)))
})

test_that("panel_usage_fields() sums a panel's members of one model and keeps an unknown cost unknown", {
  server <- list(url = "http://127.0.0.1:9")
  judge <- check_judge(list(fake_chat(server, "m1"), fake_chat(server, "m2"),
                            fake_chat(server, "m1", params = ellmer::params(temperature = 1))))
  fields <- panel_usage_fields(judge, rbind(c(1, 2, 4), c(0, 0, 0)), rbind(c(1, 1, 1), c(0, 0, 0)),
                               rbind(c(0.5, NA, 0.25), c(0, 0, 0)))
  expect_length(fields, 2)
  expect_identical(fields[[1]]$judge, "panel(m1, m2, m1#2)")
  parsed <- jsonlite::fromJSON(fields[[1]]$judges_usage)
  expect_named(parsed, unname(vapply(judge_members(judge)[1:2], chat_model_label, "")))
  expect_equal(parsed[[1]], list(input_tokens = 5, output_tokens = 2, cost = 0.75))
  expect_null(parsed[[2]]$cost)
  expect_equal(members_usage(list(fields[[1]], list(input_tokens = 3), fields[[2]]))$owner,
               c(1L, 1L, 3L, 3L))
})
