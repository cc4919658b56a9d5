test_that("the arena registers its questions and its pins", {
  expect_equal(registration("arena")$sample_items, nrow(arena_dataset(version = "sample")))
  pins <- arena_versions()
  expect_true(all(nchar(pins$commit) == 40))
  expect_equal(pins$items[pins$version == "quora_100"], 99)
})

test_that("the arena carries its two kinds of log; the index holds neither", {
  arena <- benchmark_named("arena")
  expect_named(arena$kinds, c("battles", "ratings"))
  expect_false(any(c("arena_battles", "arena_ratings") %in% ls(the_benchmarks)))
  expect_false(any(c("arena_battles", "arena_ratings") %in% registered_benchmarks()$name))
  # a log's header names its kind's benchmark, which is the arena's part
  ratings <- benchmark_named("arena_ratings")
  expect_identical(ratings, arena$kinds$ratings)
  expect_identical(require_benchmark("arena_battles"), arena$kinds$battles)
  expect_equal(benchmark_by(ratings), "model")
  expect_equal(benchmark_elo_scale(ratings), "rating")
  expect_null(benchmark_headline(arena$kinds$battles))
  expect_identical(benchmark_summary_fn(arena$kinds$battles), arena_win_rates)
})

test_that("an arena run's log, as written today or before its kind and labels, reads the same", {
  logs <- withr::local_tempdir()
  models <- list(big = named_constant("big big big", "big"), small = named_constant("s", "small"))
  run <- suppressWarnings(arena_run(
    models, arena_baseline_judge("longer"), dataset = data.frame(question = paste("Q", 1:3)),
    dir = logs, options = arena_options(ratings = rating_options(method = "elo", bootstrap = 5))
  ))
  log <- jsonlite::read_json(run$paths$log)
  # an older writer's header: no kind field, no board labels beside its headline rows
  log$eval$metadata$predictivebench_kind <- NULL
  log$eval$metadata$headline <- lapply(log$eval$metadata$headline, function(row) {
    row[setdiff(names(row), c("interval", "better", "scale", "model"))]
  })
  old <- file.path(withr::local_tempdir(), "old.json")
  jsonlite::write_json(log, old, auto_unbox = TRUE, null = "null", digits = NA, pretty = TRUE)
  shown <- setdiff(names(leaderboard(run$paths$log)), "source")
  board <- leaderboard(old)
  expect_equal(board[shown], leaderboard(run$paths$log)[shown])
  expect_equal(unique(board$benchmark), "arena_ratings")
  expect_equal(unique(board$scale), "Elo")
  expect_setequal(board$model, c("big", "small"))
})

test_that("the arena's rescoring is its benchmark's S3 method, which rescore() reaches", {
  arena <- benchmark_named("arena")
  expect_null(arena$judging$scorer)
  judge <- baseline_chat(function(p) "[[A>B]]", name = "judge")
  scorer <- benchmark_rescore(arena, judge)
  expect_true(is.function(scorer))
  # the same scorer arena_scorer() makes with that judge, through the flat readers too
  expect_identical(step_identity(scorer), step_identity(arena_scorer(scorer_chat = judge)))
  expect_identical(step_identity(registration("arena")$judge_scorer(judge)),
                   step_identity(scorer))
  expect_true(registered_benchmarks()$judged[registered_benchmarks()$name == "arena"])
})
