# request_settings(): one object for how requests are sent, threaded through every solver,
# judge and the engine, and overridden by $eval()'s named arguments.

test_that("request_settings() groups retries in `retry` and batch waiting in `batch`", {
  s <- request_settings(retry = list(max_tries = 5, backoff = 0), batch = "submit")
  expect_equal(c(s$max_tries, s$backoff), c(5, 0))
  expect_true(s$batch)
  expect_false(s$wait)
  expect_equal(request_settings(retry = list(backoff = 0))$max_tries, 3)
  expect_true(request_settings(batch = TRUE)$wait)
  expect_false(request_settings()$batch)
  expect_error(request_settings(retry = list(tries = 2)), "max_tries",
               class = "predictivebench_error_argument")
  expect_error(request_settings(retry = list(max_tries = 0)), "max_tries",
               class = "predictivebench_error_argument")
  expect_error(request_settings(batch = "later"), class = "predictivebench_error_argument")
  expect_lte(length(formals(request_settings)), 8)
  # the old names keep working for one release, with the package's deprecation warning
  expect_warning(old <- request_settings(max_tries = 2, backoff = 0, batch = TRUE, wait = FALSE),
                 "retry", class = "predictivebench_warning_deprecated")
  expect_equal(unclass(old), unclass(request_settings(retry = list(max_tries = 2, backoff = 0),
                                                      batch = "submit")))
  expect_error(request_settings(tries = 2), "tries", class = "predictivebench_error_argument")
  # the engine's fields stay what $eval() and a list of fields name
  expect_equal(as_request_settings(list(max_tries = 1, wait = FALSE))$max_tries, 1)
})

test_that("request_settings() checks its fields; settings_with_dots() merges overrides", {
  s <- request_settings(max_active = 50, rpm = Inf)
  expect_s3_class(s, "predictivebench_settings")
  expect_equal(s$max_active, 50)
  expect_equal(s$rpm, Inf)
  expect_error(request_settings(rpm = 0), class = "predictivebench_error_argument")
  expect_error(request_settings(timeout = -1), class = "predictivebench_error_argument")
  expect_error(request_settings(cache = NA), class = "predictivebench_error_argument")
  merged <- settings_with_dots(s, max_tries = 1)
  expect_equal(c(merged$max_active, merged$max_tries), c(50, 1))
  expect_equal(s$max_tries, 3)  # a new object: the validated one is never changed
  # one rule for names in `...`: a setting, or refused with the name (never dropped)
  expect_error(settings_with_dots(s, max_tries = 1, solver_chat = "not a setting"),
               "solver_chat", class = "predictivebench_error_argument")
  expect_error(settings_with_dots(s, max_tries = 0), class = "predictivebench_error_argument")
  # what a run is (its run, a set's overlap, estimate_cost()'s dry run) is its request
  # session's, not a setting: the object holds what a user tunes and nothing else
  expect_setequal(names(s), request_setting_names())
  expect_setequal(names(settings_with_dots(s, rpm = 1)), request_setting_names())
  expect_error(settings_with_dots(s, dry_run = new_dry_run()), "dry_run",
               class = "predictivebench_error_argument")
  expect_error(settings_with_dots(s, run = new_run()), class = "predictivebench_error_argument")
  expect_error(settings_with_dots(s, hand_over = function(requests, keep) requests$todo),
               class = "predictivebench_error_argument")
  # downstream functions take the object only
  expect_error(run_requests(list(baseline_constant("a")), 1L, list("q"), list(cache = FALSE)),
               "Internal error")
  # a list of fields is accepted; other names are refused
  expect_equal(as_request_settings(list(cache = FALSE))$cache, FALSE)
  expect_error(as_request_settings(list(chache = FALSE)), class = "predictivebench_error_argument")
  expect_equal(settings_deadline(request_settings(timeout = 7)), 7)
  withr::local_options(ellmer_timeout_s = 9)
  expect_equal(settings_deadline(request_settings()), 9)
})

test_that("generate_responses() takes settings, and refuses a misspelt one in ...", {
  server <- local_fake_openai(function(body, n) list(status = 500))
  res <- generate_responses(fake_chat(server), "q",
                            request_settings(cache = FALSE, retry = list(max_tries = 2, backoff = 0)))
  expect_equal(server$count(), 2)
  expect_match(res$error, "Gave up after 2 tries")
  # `...` overrides the object
  generate_responses(fake_chat(server), "q", request_settings(cache = FALSE, retry = list(backoff = 0)),
                     max_tries = 1)
  expect_equal(server$count(), 3)
  expect_error(generate_responses(fake_chat(server), "q", max_activ = 2),
               class = "predictivebench_error_argument")
  expect_equal(server$count(), 3)
})

test_that("a misspelt setting in $eval() is refused, naming it, before any request", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(),
                      solver = futurex_solver(settings = request_settings(cache = FALSE)))
  expect_error(suppressMessages(tsk$eval(solver_chat = fake_chat(server), max_activ = 5,
                                         view = FALSE)),
               "max_activ")
  expect_equal(server$count(), 0)
})

test_that("the timeout setting is the pool's deadline", {
  skip_on_cran()
  server <- local_fake_openai(function(body, n) list(text = "late", delay = 5))
  res <- generate_responses(fake_chat(server), "q",
                            request_settings(cache = FALSE, timeout = 0.5, retry = list(max_tries = 1)))
  expect_true(is.na(res$result))
  expect_match(res$error, "deadline of 0.5 s")
})

test_that("$eval()'s named settings reach the solver and the judge", {
  server <- local_fake_openai(function(body, n) list(status = 500))
  data <- futurex_dataset(version = "sample")
  tsk <- futurex_task(data, dir = withr::local_tempdir(),
                      solver = futurex_solver(settings = request_settings(cache = FALSE, retry = list(max_tries = 3, backoff = 0))))
  suppressWarnings(try(tsk$eval(solver_chat = fake_chat(server), max_tries = 1, view = FALSE),
                       silent = TRUE))
  expect_equal(server$count(), nrow(data))  # one try each, not three
  # a cache named in $eval() is the one the solver reads and writes
  ok <- local_fake_openai(function(body, n) "\\boxed{A}")
  dir <- withr::local_tempdir()
  tsk <- futurex_task(data, dir = withr::local_tempdir(), solver = futurex_solver())
  tsk$eval(solver_chat = fake_chat(ok), cache = dir, rpm = Inf, view = FALSE)
  expect_equal(length(list.files(dir, recursive = TRUE, pattern = "\\.rds$")), nrow(data))
  # and the judge of a scorer gets them too
  judge <- local_fake_openai(function(body, n) list(status = 503))
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), dir = withr::local_tempdir(),
                      solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                      scorer = dsbench_scorer(settings = request_settings(retry = list(max_tries = 3, backoff = 0))))
  suppressWarnings(try(tsk$eval(solver_chat = baseline_constant("42"),
                                scorer_chat = fake_chat(judge), max_tries = 1, cache = FALSE,
                                view = FALSE), silent = TRUE))
  expect_equal(judge$count(), nrow(dsbench_dataset(version = "sample")))
})

test_that("no solver or judge constructor takes request settings one by one", {
  old <- c("cache", "max_active", "rpm", "max_tries", "backoff", "batch", "wait", "timeout",
           "chunk_size", "answer_chunk_size", "judge_chunk_size")
  constructors <- list(generate_solver, futurex_solver, futurex_scorer, futurex_score,
                       processbench_solver, deltabench_solver, dsbench_solver, dsbench_scorer,
                       arena_solver, arena_scorer, arena_judge_solver, arena_answers, arena_run,
                       judge_battles, probsem_solver, query_logprobs)
  for (f in constructors) {
    expect_length(intersect(names(formals(f)), old), 0)
    expect_true("settings" %in% names(formals(f)))
  }
  # temperature is `temperature =` in every solver, with the original's default
  expect_equal(formals(dsbench_solver)$temperature, 0)
  expect_equal(formals(processbench_solver)$temperature, 0.7)
  expect_equal(formals(deltabench_solver)$temperature, 1)
  expect_equal(formals(arena_judge_solver)$temperature, 0)  # the judge's, EloBench's 0
  expect_null(formals(arena_solver)$temperature)  # the evaluated model keeps its own
  expect_true("temperature" %in% names(formals(futurex_solver)))
  # the same sampling arguments, in the same order, before settings (then only a grouped
  # options object and its deprecated names' dots)
  for (f in list(futurex_solver, processbench_solver, deltabench_solver, dsbench_solver,
                 arena_solver)) {
    args <- setdiff(names(formals(f)), c("options", "..."))
    expect_equal(utils::tail(args, 4), c("temperature", "params", "system_prompt", "settings"))
  }
})

test_that("dsbench_solver() sends temperature = 0 unless told otherwise", {
  server <- local_fake_openai(function(body, n) "42")
  data <- dsbench_dataset(version = "sample", limit = 2)
  run <- function(solver) {
    tsk <- dsbench_task(data, dir = withr::local_tempdir(), scorer = dsbench_scorer_exact(),
                        solver = solver)
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  }
  run(dsbench_solver(images = FALSE, settings = request_settings(cache = FALSE)))
  run(dsbench_solver(images = FALSE, temperature = 0.5,
                     settings = request_settings(cache = FALSE)))
  temps <- vapply(server$requests(), function(b) b$temperature, 1)
  expect_equal(temps, c(0, 0, 0.5, 0.5))
})

test_that("system_prompt and params of the ProcessBench, DeltaBench and arena solvers are sent", {
  server <- local_fake_openai(function(body, n) '{"winner": 1}')
  offline <- request_settings(cache = FALSE)
  data <- processbench_dataset(version = "sample", limit = 1)
  tsk <- processbench_task(data, dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 1, system_prompt = "PB.",
                                                        settings = offline))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  tsk <- deltabench_task(deltabench_dataset(version = "sample", limit = 1),
                         dir = withr::local_tempdir(),
                         solver = deltabench_solver(system_prompt = "DB.", settings = offline))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  tsk <- arena_judge_task(sample_battles(1)[1, ], dir = withr::local_tempdir(),
                    solver = arena_judge_solver(system_prompt = "AR.", params = list(seed = 3),
                                          settings = offline))
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  bodies <- server$requests()
  expect_equal(vapply(bodies, function(b) b$messages[[1]]$content, ""), c("PB.", "DB.", "AR."))
  expect_equal(c(bodies[[3]]$temperature, bodies[[3]]$seed), c(0, 3))
  expect_equal(bodies[[3]]$max_tokens %||% bodies[[3]]$max_completion_tokens, 800)
})

test_that("request_deadline() is option ellmer_timeout_s, refused unless a positive number", {
  withr::local_options(ellmer_timeout_s = 7)
  expect_equal(request_deadline(), 7)
  withr::local_options(ellmer_timeout_s = -1)
  expect_error(request_deadline(), class = "predictivebench_error_argument")
})
