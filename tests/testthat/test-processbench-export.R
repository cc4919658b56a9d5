test_that("results files are named {dataset}_{model}_votes{n} and written inside dir", {
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 2,
                                                        settings = request_settings(cache = FALSE)))
  tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
  dir <- withr::local_tempdir()
  paths <- processbench_write_results(tsk, dir, dataset = "my data", model = "../org/model:1")
  expect_equal(basename(paths[["results"]]), "my-data_org-model-1_votes2.jsonl")
  expect_equal(basename(paths[["summary"]]), "my-data_org-model-1_votes2.csv")
  expect_equal(normalizePath(dirname(paths)), rep(normalizePath(dir), 2))
  expect_setequal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(paths))
  lines <- readLines(paths[["results"]])
  expect_length(lines, 3)
  first <- jsonlite::fromJSON(lines[[1]], simplifyVector = FALSE)
  expect_equal(first$id, "s-apples")
  expect_equal(first$prediction, -1L)
  expect_true(first$match)
  expect_equal(unlist(first$votes), c(-1L, -1L))
  expect_length(first$critiques, 2)
  csv <- utils::read.csv(paths[["summary"]])
  expect_equal(unique(csv$group), c("overall", "a", "b", "mean of groups"))
  expect_equal(pb_value(csv, "overall", "correct_acc"), 1)
  # the model name defaults to the chat's, the vote count to the metadata's
  auto <- processbench_write_results(tsk, dir, dataset = "d")
  expect_equal(basename(auto[["results"]]), "d_baseline-constant_votes2.jsonl")
})

test_that("the results file counts the votes asked for, even when the first sample failed", {
  # every request for the first sample fails: with n, that leaves a single failed response
  server <- local_fake_openai(function(body, n) {
    if (grepl("apples", last_user_text(body))) return(list(status = 400L))
    list(choices = rep("\\boxed{0}", body$n %||% 1L))
  })
  tsk <- processbench_task(pb_table(), dir = withr::local_tempdir(),
                           solver = processbench_solver(n_votes = 8, n_per_request = TRUE,
                                                        settings = request_settings(cache = FALSE)))
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  s <- tsk$get_samples()
  expect_equal(s$solver_metadata[[1]]$n_votes, 8)
  expect_length(s$solver_metadata[[1]]$errors, 8)
  paths <- processbench_write_results(tsk, withr::local_tempdir(), dataset = "d", model = "m")
  expect_equal(basename(paths[["results"]]), "d_m_votes8.jsonl")
  # samples written by an older solver, without n_votes: the longest list of votes
  old <- s
  old$solver_metadata <- list(list(votes = NA_integer_), list(votes = c(0L, 0L, 1L)), NULL)
  paths <- processbench_write_results(old, withr::local_tempdir(), dataset = "d", model = "m")
  expect_equal(basename(paths[["results"]]), "d_m_votes3.jsonl")
})
