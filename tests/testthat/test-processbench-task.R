test_that("prepare_processbench() flattens through Python", {
  skip_if_no_python()
  pb <- prepare_processbench(
    system.file("extdata", "processbench-sample.json", package = "predictivebench")
  )
  expect_equal(unique(pb$task_l1), "processbench-sample")
  expect_equal(sum(pb$label == -1), 3)
})

test_that("reference files convert with the expected labels", {
  skip_if_no_python()
  delta <- skip_if_no_reference("deltabench", "Deltabench_v1_examples.jsonl")
  gsm8k <- skip_if_no_reference("processbench", "gsm8k.json")
  d <- prepare_deltabench(delta)
  expect_equal(d$label, c(6L, 6L, 13L, 1L, 15L, 1L, 1L, 3L, 8L))
  g <- prepare_processbench(gsm8k)
  expect_equal(c(sum(g$label != -1), sum(g$label == -1)), c(207L, 193L))
  expect_equal(unique(g$task_l1), "gsm8k")
})
