test_that("epochs are averaged within an item, and one-sided items are left out", {
  x <- data.frame(id = c(1, 1, 2, 3, 4), score = c(1, 0, 1, 1, 1))
  y <- data.frame(id = c(1, 2, 3, 5), score = c(0, 1, 0, 1))
  expect_message(out <- compare_models(x, y), class = "predictivebench_message_unpaired")
  # item 1: x = 0.5 (two epochs), y = 0; d = 0.5, 0, 1
  expect_equal(out$difference, 0.5)
  expect_equal(out$n, 3L)
  expect_equal(c(out$n_only_x, out$n_only_y), c(1L, 1L))
  expect_equal(attr(out, "unpaired"), list(x = "4", y = "5", changed = character()))
  # a missing score counts as not answered
  y$score[[2]] <- NA
  out <- suppressMessages(compare_models(x, y))
  expect_equal(out$n_only_x, 2L)
})

test_that("items pair only where their inputs and targets agree; the rest is said", {
  # two versions of a table: ids 1-11, but 7 of them name other questions in the second
  v1 <- data.frame(id = 1:11, input = paste("question", 1:11), target = "A",
                   score = rep(c(1, 0), length.out = 11))
  v2 <- v1
  v2$input[5:11] <- paste("question", 105:111)
  v2$score <- 1 - v1$score
  expect_message(out <- compare_models(v1, v2), class = "predictivebench_message_unpaired")
  expect_message(compare_models(v1, v2), "7 of 11 shared ids ask another question")
  expect_equal(out$n, 4L)
  expect_equal(out$n_changed, 7L)
  expect_equal(attr(out, "unpaired")$changed, as.character(5:11))
  expect_equal(c(out$x, out$y), c(mean(v1$score[1:4]), mean(v2$score[1:4])))
  # a changed target counts too; runs without input or target pair by id alone
  v3 <- v1
  v3$target[[2]] <- "B"
  expect_equal(suppressMessages(compare_models(v1, v3))$n_changed, 1L)
  plain <- compare_models(v1[c("id", "score")], v2[c("id", "score")])
  expect_equal(c(plain$n, plain$n_changed), c(11L, 0L))
  # the same question in both runs: no message
  expect_silent(compare_models(v1, v1))
})
