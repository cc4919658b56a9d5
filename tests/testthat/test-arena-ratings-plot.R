test_that("win rates and plots", {
  battles <- data.frame(model_a = c("a", "a", "b", "b"), model_b = c("b", "b", "a", "c"),
                        winner = c("model_a", "tie", "model_b", "model_b"))
  # c never lost to a or b: separated, rated with the prior
  expect_warning(fit <- arena_ratings(battles, rating_options(bootstrap = 20)),
                 class = "predictivebench_warning_separated")
  wr <- predictivebench:::win_rate_matrix(attr(fit, "battles"), fit$model)
  cell <- function(m, o) wr$win_rate[as.character(wr$model) == m & as.character(wr$opponent) == o]
  expect_equal(cell("a", "b"), (1 + 0.5 + 1) / 3)
  expect_equal(cell("b", "a"), 0.5 / 3)
  expect_equal(cell("c", "b"), 1)
  expect_true(is.na(cell("a", "c")))
  skip_if_not_installed("ggplot2")
  p1 <- ggplot2::autoplot(fit)
  p2 <- ggplot2::autoplot(fit, type = "winrate")
  expect_s3_class(p1, "ggplot")
  expect_s3_class(p2, "ggplot")
  path <- withr::local_tempfile(fileext = ".png")
  grDevices::png(path)
  out <- plot(fit, type = "winrate")
  grDevices::dev.off()
  expect_s3_class(out, "ggplot")
  expect_true(file.size(path) > 0)
  expect_output(print(fit), "Arena ratings")
})
