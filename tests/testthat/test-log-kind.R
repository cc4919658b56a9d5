# log_kind(): what a log holds, from its header's field or, in logs written before it, from
# the benchmark's name.

test_that("a log's kind is its header's field, else read from an older log's benchmark", {
  header <- function(...) list(eval = list(metadata = list(...)))
  expect_identical(log_kind(header(benchmark = "arena_ratings", predictivebench_kind = "ratings")),
                   "ratings")
  expect_identical(log_kind(header(benchmark = "arena_ratings")), "ratings")
  expect_identical(log_kind(header(benchmark = "arena_battles")), "battles")
  expect_identical(log_kind(header(benchmark = "futurex")), "samples")
  expect_identical(log_kind(list(eval = list())), "samples")
})
