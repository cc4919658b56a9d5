# The vitals glue: generate_solver() inside a vitals Task.

test_that("generate_solver runs in a vitals Task and records failures per sample", {
  server <- local_fake_openai(echo_reply)
  ds <- tibble::tibble(input = c("a", "reject", "c"), target = "x")
  tsk <- vitals::Task$new(
    dataset = ds, solver = generate_solver(settings = request_settings(cache = FALSE, retry = list(backoff = 0))),
    scorer = function(samples, ...) {
      list(score = factor(ifelse(is.na(samples$result), "I", "C"), c("I", "C"), ordered = TRUE))
    },
    dir = withr::local_tempdir()
  )
  expect_warning(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                 class = "predictivebench_warning_failed_requests")
  samples <- tsk$get_samples()
  expect_equal(samples$result[c(1, 3)], c("answer to a", "answer to c"))
  expect_match(samples$solver_metadata[[2]]$error, "400")
  expect_equal(samples$solver_metadata[[1]]$input_tokens, 10)
  expect_length(list.files(tsk$dir, pattern = "\\.json$"), 1)
})
