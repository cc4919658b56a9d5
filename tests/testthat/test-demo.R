# `make demo`, one of the README's two commands, runs .ci/demo.R: it must keep working as the
# summaries and the results layer change.
test_that("the README's demo runs and prints the summary and the leaderboard", {
  skip_on_cran()
  root <- skip_if_no_source_tree()
  demo <- file.path(root, ".ci", "demo.R")
  skip_if_not_installed("processx")
  work <- withr::local_tempdir()
  out <- processx::run(file.path(R.home("bin"), "Rscript"), c("--vanilla", demo), wd = work,
                       env = c("current", PREDICTIVEBENCH_ROOT = root), error_on_status = FALSE)
  expect_equal(out$status, 0, info = out$stderr)
  expect_match(out$stdout, "FutureX summary for naive-forecaster on 11 questions")
  # the baseline shows the scorer at work: levels scored above 0, and partly (not 0 or 1)
  levels <- regmatches(out$stdout, gregexpr("level [1-4] +score +[0-9.]+", out$stdout))[[1]]
  scores <- as.double(sub(".* ", "", levels))
  expect_length(scores, 4)
  expect_gte(sum(scores > 0), 3)
  expect_true(any(scores > 0 & scores < 1))
  expect_match(out$stdout, "oracle|echo")
  expect_length(list.files(file.path(work, "logs"), pattern = "\\.json$"), 2)
})
