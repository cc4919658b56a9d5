test_that("in one process the cells' requests overlap: models interleave on the server", {
  server <- local_set_server(latency = 0.05)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir(), max_active = 4)
  models <- c("m1", "m2", "m3")
  set <- quiet_set("futurex@sample", set_chats(server, models), log_dir = logs,
                   settings = settings, limit = 4)
  expect_equal(set$status, rep("done", 3))
  arrived <- vapply(server$requests(), `[[`, "", "model")
  expect_length(arrived, 3 * 4)
  # one cell after another sends m1 x4, then m2 x4, then m3 x4: each model's last request
  # before the next model's first. One shared pool has every model's first requests in flight
  # before any model's last.
  first <- vapply(models, function(m) min(which(arrived == m)), 1L)
  last <- vapply(models, function(m) max(which(arrived == m)), 1L)
  expect_lt(max(first), min(last))
})

test_that("a cell with a judge goes on in rounds: solver answers first, then the judge's", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("GROUND_TRUTH_VALUE", paste(unlist(body$messages), collapse = " "))) {
      return("GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 1")
    }
    "\\boxed{42}"
  })
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  judge <- fake_chat(server, model = "judge")
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
                   judge = judge, settings = settings)
  expect_equal(set$status, c("done", "done"))
  models <- vapply(server$requests(), `[[`, "", "model")
  n_judge <- sum(models == "judge")
  expect_gt(n_judge, 0)
  # the judge's requests came after every solver answer of both cells (one round each)
  expect_true(all(which(models == "judge") > max(which(models != "judge"))))
  # and each request once: a second run sends none
  sent <- server$count()
  quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
            judge = judge, settings = settings)
  expect_equal(server$count(), sent)
})

test_that("outside a set's round the engine sends as it always did", {
  expect_null(getOption("predictivebench.eval_set_round"))
  server <- local_set_server()
  res <- generate_responses(fake_chat(server), c("a", "b"), set_settings(FALSE))
  expect_equal(res$result, c("\\boxed{A}", "\\boxed{A}"))
})
