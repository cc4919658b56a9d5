test_that("the arena registers its questions, its pins and its two kinds of log", {
  expect_equal(registration("arena")$sample_items, nrow(arena_dataset(version = "sample")))
  pins <- arena_versions()
  expect_true(all(nchar(pins$commit) == 40))
  expect_equal(pins$items[pins$version == "quora_100"], 99)
  ratings <- registration("arena_ratings")
  expect_equal(ratings$by, "model")
  expect_equal(ratings$elo_scale, "rating")
  expect_null(registration("arena_battles")$headline)
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
