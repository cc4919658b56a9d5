test_that("ProcessBench registers its pins, F1 of the two accuracies, and the problem cluster", {
  expect_equal(registration("processbench")$sample_items,
               nrow(processbench_dataset(version = "sample")))
  expect_true(all(nchar(processbench_versions()$commit) == 40))
  # worked by hand: error accuracy 1/2, correct accuracy 1 -> F1 = 2 * 0.5 / 1.5
  items <- data.frame(label = c(2, 0, -1, -1), score = c(1, 0, 1, 1))
  expect_equal(processbench_f1(items), 2 / 3)
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"), problem = c("p", "p"))), "problem")
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"), problem = c("p", "q"))), "id")
  expect_equal(registration("processbench")$cluster(data.frame(id = c("a", "b"))), "id")
})

test_that("the help page's account of the samples holds: DeltaBench's as the sample, ProcessBench's own beside it", {
  sample <- processbench_dataset(version = "sample")
  delta <- deltabench_dataset(version = "sample")
  expect_identical(sample$id, delta$id)
  expect_setequal(sample$task_l1, c("math", "code", "physics"))
  own <- processbench_dataset(system.file("extdata", "processbench-sample.parquet",
                                          package = "predictivebench"))
  expect_equal(nrow(own), 6L)
  expect_equal(unique(own$task_l1), "sample")
  expect_true(all(c("generator", "final_answer_correct") %in% names(own)))
  # the rendered help says so, in its own section
  source_rd <- test_path("..", "..", "man", "processbench_task.Rd")
  rd <- if (file.exists(source_rd)) tools::parse_Rd(source_rd) else
    tools::Rd_db("predictivebench")[["processbench_task.Rd"]]
  text <- paste(utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
                collapse = "\n")
  text <- gsub("\\s+", " ", text)
  expect_match(text, "The sample:", fixed = TRUE)
  expect_match(text, "is DeltaBench's sample", fixed = TRUE)
  expect_match(text, "processbench-sample.parquet", fixed = TRUE)
})
