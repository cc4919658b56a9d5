# rescore() of arena_run() logs at a fake OpenAI-compatible server, whose every request is
# counted by model: the contestants ("good", "bad", "mixed") answer, the judges judge.
# "longer" prefers the longer answer, "oracle" (fair) the right one, "gpt-4o" (priced) is
# the oracle under a model ellmer has a price for.
local_rescore_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    prompt <- last_user_text(body)
    model <- body$model
    if (model %in% c("good", "bad", "mixed")) {
      k <- as.integer(sub("\\D+", "", prompt))
      right <- switch(model, good = TRUE, bad = FALSE, mixed = k %% 2 == 1)
      pad <- strrep("x", sum(utf8ToInt(paste(prompt, model))) %% 37)
      return(paste(if (right) "RIGHT" else "WRONG", pad))
    }
    answers <- battle_answers(prompt)
    a <- answers$a
    b <- answers$b
    prefer <- function(x, y) if (x == y) 0L else if (x) 1L else 2L
    winner <- if (model == "longer") prefer(nchar(a) > nchar(b), nchar(b) > nchar(a)) else
      prefer(grepl("RIGHT", a), grepl("RIGHT", b))
    sprintf('{"winner": %d, "explanation": "Fake judge."}', winner)
  }, .local_envir = .local_envir)
}

rescore_contestants <- function(server) {
  list(good = fake_chat(server, "good"), bad = fake_chat(server, "bad"),
       mixed = fake_chat(server, "mixed"))
}

rescore_questions <- data.frame(question = paste("Question", 1:8))

# An arena run of every pair on every question (its battles don't depend on the judge).
rescore_arena <- function(server, judge, dir, position_swap = FALSE) {
  suppressWarnings(arena_run(rescore_contestants(server), judge, dataset = rescore_questions,
                             dir = dir, settings = request_settings(rpm = Inf),
                             options = arena_options(strategy = "all", position_swap = position_swap, seed = 7,
                                                     ratings = rating_options(method = "bt",
                                                                              bootstrap = 30, seed = 7))))
}

models_sent <- function(server, after = 0) {
  sent <- vapply(server$requests(), function(b) b$model, "")
  sent[seq_along(sent) > after]
}

headline_ratings <- function(path) {
  rows <- read_log_header(path)$eval$metadata$headline
  stats::setNames(vapply(rows, function(r) r$estimate, 1), vapply(rows, function(r) r$group, ""))
}

test_that("a run judged by a longer-answer judge, rescored by a fair one, rates as that judge's run", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  run <- rescore_arena(server, fake_chat(server, "longer"), dir)
  old <- run$paths$log
  before <- tools::md5sum(old)
  battles <- nrow(run$records)
  expect_equal(battles, 24)

  # the same battles judged by the fair judge directly, in a run of its own
  direct <- rescore_arena(server, fake_chat(server, "oracle"), withr::local_tempdir())

  # an empty cache: the answers can only come from the log
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  sent <- length(server$requests())
  out <- suppressMessages(rescore(old, judge = fake_chat(server, "oracle")))
  expect_equal(models_sent(server, sent), rep("oracle", battles))  # no answer request
  expect_equal(unname(tools::md5sum(old)), unname(before))
  expect_equal(dirname(out$log), dirname(old))
  expect_equal(out$benchmark, "arena_ratings")
  expect_equal(out$judge, "oracle")

  # the same ratings as the fair judge's own run: in the header and from the battles
  fair <- headline_ratings(out$log)
  expect_equal(fair[order(names(fair))],
               stats::setNames(direct$ratings$rating, direct$ratings$model)[sort(names(fair))])
  expect_equal(arena_rating_rows(out$log)$estimate, arena_rating_rows(direct$paths$log)$estimate)
  expect_false(isTRUE(all.equal(fair[order(names(fair))],
                                headline_ratings(old)[sort(names(fair))])))

  header <- expect_rescored_header(out$log, old, judge = "oracle")
  meta <- header$eval$metadata
  expect_equal(meta$rescored_with, "judge")
  expect_equal(meta$rating_options, read_log_header(old)$eval$metadata$rating_options)
  expect_equal(header$eval$model_roles$grader$model, "openai_compatible/oracle")
  expect_inspect_valid(out$log)

  # the board shows both runs, each competitor with its judge
  board <- leaderboard(dir)
  expect_setequal(unique(board$judge), c("longer", "oracle"))
  expect_equal(sum(board$judge == "oracle"), 3)
  # and its plot labels each competitor's two runs by their judges
  labels <- as.character(ggplot2::autoplot(board)$data$model)
  expect_setequal(labels, paste0(rep(c("bad", "good", "mixed"), each = 2), " (judge: ",
                                 c("longer", "oracle"), ")"))

  # a rerun of the same rescore is answered by the cache
  sent <- length(server$requests())
  again <- suppressMessages(rescore(old, judge = fake_chat(server, "oracle")))
  expect_equal(length(server$requests()), sent)
  expect_equal(headline_ratings(again$log), fair)
})

test_that("a run's log in parts is rescored whole, once, and its folder leaves rescores out", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  local_replace_internal("arena_log_part_battles", 10L)
  dir <- withr::local_tempdir()
  run <- rescore_arena(server, fake_chat(server, "longer"), dir, position_swap = TRUE)
  expect_length(run$paths$log_parts, 3)
  before <- tools::md5sum(run$paths$log_parts)
  sent <- length(server$requests())
  out <- suppressMessages(rescore(dir, judge = fake_chat(server, "oracle")))
  expect_equal(nrow(out), 1)  # the run once, from its first part
  expect_equal(out$source, run$paths$log)
  # every battle judged in both orders, as the run did
  expect_equal(models_sent(server, sent), rep("oracle", 2 * nrow(run$records)))
  expect_equal(unname(tools::md5sum(run$paths$log_parts)), unname(before))
  new_parts <- log_part_paths(out$log)
  expect_length(new_parts, 3)
  expect_equal(nrow(log_run_samples(out$log)), nrow(run$records))
  expect_true(read_log_header(out$log)$eval$metadata$position_swap)
  expect_inspect_valid(new_parts)
  # read from its parts in the run's order: the ratings of the fair judge's own run
  direct <- rescore_arena(server, fake_chat(server, "oracle"), withr::local_tempdir(),
                          position_swap = TRUE)
  expect_equal(headline_ratings(out$log), headline_ratings(direct$paths$log))
  # a folder's rescores are left out when it is rescored again
  again <- suppressMessages(rescore(dir, judge = fake_chat(server, "oracle")))
  expect_equal(again$source, run$paths$log)
})

test_that("a run's rescore over max_cost stops before any request", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  run <- rescore_arena(server, fake_chat(server, "longer"), dir)
  files <- list.files(dir)
  sent <- length(server$requests())
  judge <- ellmer::chat_openai(model = "gpt-4o", base_url = server$url,
                               credentials = function() "sk-test")
  skip_if(is.null(model_price(judge)), "ellmer has no price for gpt-4o")
  err <- expect_error(rescore(run$paths$log, judge = judge, max_cost = 1e-6),
                      class = "predictivebench_error_cost")
  expect_match(cli::ansi_strip(conditionMessage(err)), "nothing was sent", fixed = TRUE)
  expect_error(rescore(run$paths$log, judge = fake_chat(server, "unpriced"), max_cost = 100),
               class = "predictivebench_error_cost")
  expect_equal(length(server$requests()), sent)
  expect_equal(list.files(dir), files)
  # under the limit, it runs: the judge's requests only
  out <- suppressMessages(rescore(run$paths$log, judge = judge, max_cost = 1))
  expect_equal(models_sent(server, sent), rep("gpt-4o", nrow(run$records)))
  expect_equal(read_log_header(out$log)$eval$metadata$judge, "gpt-4o")
})

test_that("an arena log without readable battles is refused, naming the file", {
  dir <- withr::local_tempdir()
  path <- file.path(dir, "x.json")
  expect_error(arena_logged_battles(path), class = "predictivebench_error_missing_file")
  expect_equal(arena_logged_rating(NULL)$method, "elo")
  expect_equal(arena_logged_rating('{"method":"bt","bootstrap":5}')$bootstrap, 5)
})

test_that("a run is rescored by a panel of judges, each judge's verdicts kept", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  run <- rescore_arena(server, fake_chat(server, "longer"), dir)
  sent <- length(server$requests())
  panel <- list(fake_chat(server, "oracle"), fake_chat(server, "longer"),
                fake_chat(server, "oracle-2"))
  out <- suppressMessages(rescore(run$paths$log, judge = panel))
  # the "longer" judge's verdicts are the run's own, in the cache: only the others are asked
  expect_equal(sort(models_sent(server, sent)),
               rep(c("oracle", "oracle-2"), each = nrow(run$records)))
  header <- read_log_header(out$log)
  expect_match(header$eval$metadata$judge, "^panel\\(")
  expect_equal(names(header$eval$model_roles), c("grader_1", "grader_2", "grader_3"))
  samples <- log_samples(out$log)
  expect_equal(panel_judges(samples$solver_metadata[[1]]$judges)$judge,
               c("oracle", "longer", "oracle-2"))
  # the two fair judges make the majority: the panel's ratings are the fair judge's
  fair <- suppressMessages(rescore(run$paths$log, judge = fake_chat(server, "oracle")))
  expect_equal(headline_ratings(out$log), headline_ratings(fair$log))
})

test_that("the arena's ratings log says how a whole run is rescored", {
  expect_identical(benchmark_named("arena_ratings")$judging$rescore_run, arena_rescore_run)
  expect_error(new_benchmark("toy-rescore", function(x) x, rescore_run = "no",
                             schema = "futurex"),
               class = "predictivebench_error_argument")
})

test_that("a run whose failed verdicts are dropped is priced and rescored without ratings", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  run <- suppressWarnings(arena_run(rescore_contestants(server), fake_chat(server, "longer"),
                                    dataset = rescore_questions[1:2, , drop = FALSE], dir = dir,
                                    settings = request_settings(rpm = Inf),
                                    options = arena_options(strategy = "all",
                                                            ratings = rating_options(method = "elo", bootstrap = 10, invalid = "drop"))))
  judge <- ellmer::chat_openai(model = "gpt-4o", base_url = server$url,
                               credentials = function() "sk-test")
  skip_if(is.null(model_price(judge)), "ellmer has no price for gpt-4o")
  sent <- length(server$requests())
  # the preview's placeholder verdicts are all failures, dropped: priced all the same
  expect_error(rescore(run$paths$log, judge = judge, max_cost = 1e-9),
               class = "predictivebench_error_cost")
  expect_equal(length(server$requests()), sent)
  # a judge whose every verdict fails: its battles logged, no rating
  bad <- baseline_chat("no verdict here", name = "mute-judge")
  out <- suppressWarnings(suppressMessages(rescore(run$paths$log, judge = bad)))
  expect_equal(nrow(log_run_samples(out$log)), nrow(run$records))
  expect_length(read_log_header(out$log)$eval$metadata$headline, 0)
  expect_inspect_valid(out$log)
})

test_that("rescore() takes an arena_run() result itself, as its log", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  local_replace_internal("arena_log_part_battles", 10L)
  run <- rescore_arena(server, fake_chat(server, "longer"), withr::local_tempdir())
  sent <- length(server$requests())
  out <- suppressMessages(rescore(run, judge = fake_chat(server, "oracle")))
  expect_equal(nrow(out), 1)
  expect_equal(out$source, run$paths$log)
  expect_equal(models_sent(server, sent), rep("oracle", nrow(run$records)))
  by_path <- suppressMessages(rescore(run$paths$log, judge = fake_chat(server, "oracle"),
                                      dir = withr::local_tempdir()))
  expect_equal(headline_ratings(out$log), headline_ratings(by_path$log))
  # a run whose log is gone is refused, saying so
  gone <- run
  gone$paths$log <- file.path(withr::local_tempdir(), "missing.json")
  expect_error(rescore(gone, judge = fake_chat(server, "oracle")), "no log",
               class = "predictivebench_error_argument")
})

test_that("a panel's arena log counts each judge's tokens under its own model, and its task scorer too", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  local_replace_internal("arena_log_part_battles", 10L)
  run <- rescore_arena(server, fake_chat(server, "longer"), withr::local_tempdir())
  sent <- length(server$requests())
  panel <- list(fake_chat(server, "oracle"), fake_chat(server, "oracle-2"))
  out <- suppressMessages(rescore(run, judge = panel))
  asked <- table(models_sent(server, sent))
  labels <- vapply(panel, chat_model_label, "")
  parts <- log_part_paths(out$log)
  expect_gt(length(parts), 1)
  # every part's header: its battles' tokens, per judge (the fake server's 10 and 5 a
  # request); the parts together: the requests each judge was sent
  usage <- lapply(parts, function(p) read_log_header(p)$stats$model_usage)
  for (u in usage) expect_setequal(names(u), labels)
  total <- function(label, field) sum(vapply(usage, function(u) u[[label]][[field]], 1))
  expect_equal(total(labels[[1]], "input_tokens"), 10 * asked[["oracle"]])
  expect_equal(total(labels[[2]], "output_tokens"), 5 * asked[["oracle-2"]])
  samples <- jsonlite::read_json(parts[[1]])$samples
  expect_setequal(names(samples[[1]]$model_usage), labels)
  expect_equal(samples[[1]]$model_usage[[labels[[2]]]]$input_tokens, 10)
  expect_inspect_valid(parts)

  # arena_task()'s scorer, against reference answers: the task's log the same
  dataset <- arena_dataset(version = "sample", limit = 2)
  before <- length(server$requests())
  tsk <- arena_task(dataset, judge = list(fake_chat(server, "oracle"), fake_chat(server, "longer")),
                    dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_chat("An answer."), view = FALSE))
  asked <- table(models_sent(server, before))
  header <- read_log_header(tsk$log_path)
  expect_equal(header$stats$model_usage[[labels[[1]]]]$input_tokens, 10 * asked[["oracle"]])
  longer <- chat_model_label(fake_chat(server, "longer"))
  expect_equal(header$stats$model_usage[[longer]]$input_tokens, 10 * asked[["longer"]])
  expect_match(header$results$scores[[1]]$name, "(panel(oracle, longer))", fixed = TRUE)
})

test_that("a log's kind is its header's field; a log written before the field reads the same", {
  server <- local_rescore_server()
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  run <- rescore_arena(server, fake_chat(server, "longer"), dir)
  header <- read_log_header(run$paths$log)
  expect_identical(header$eval$metadata$predictivebench_kind, "ratings")
  expect_identical(log_kind(header), "ratings")
  # as main's writer wrote it: the kind only in the benchmark's name
  old_dir <- withr::local_tempdir()
  old <- file.path(old_dir, basename(run$paths$log))
  log <- jsonlite::read_json(run$paths$log)
  log$eval$metadata$predictivebench_kind <- NULL
  jsonlite::write_json(log, old, auto_unbox = TRUE, null = "null", digits = NA, pretty = TRUE)
  old_header <- read_log_header(old)
  expect_null(old_header$eval$metadata$predictivebench_kind)
  expect_identical(log_kind(old_header), "ratings")
  expect_identical(log_kind(list(eval = list(metadata = list(benchmark = "futurex")))),
                   "samples")
  # the rescore path reads the kind: the old log is judged again as a whole run
  out <- suppressMessages(rescore(old, judge = fake_chat(server, "oracle"), dir = old_dir))
  expect_identical(log_kind(read_log_header(out$log)), "ratings")
  expect_equal(out$benchmark, "arena_ratings")
  # and a folder's comparison leaves both kinds of arena log out, the old one too
  expect_equal(nrow(folder_runs(c(run$paths$log, old))), 0L)
})

test_that("an arena judging task's log says it holds battles", {
  tsk <- arena_judge_task(solver = arena_judge_solver(settings = request_settings(cache = FALSE)),
                          dir = withr::local_tempdir())
  tsk$eval(solver_chat = arena_baseline_judge("longer"), view = FALSE)
  expect_identical(log_kind(read_log_header(tsk$log_path)), "battles")
})
