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

test_that("in a set's shared pool each model stays within its own max_active", {
  # "slow" answers after 0.4 s, "fast" at once: a pool capped only at the sum of the models'
  # max_active gives the slots fast frees to slow's waiting requests. The server notes when
  # each request arrives; a request of "arrivals" gets them back.
  server <- local_fake_openai(function(body, n) {
    seen <- parent.env(environment())
    if (identical(body$model, "arrivals")) {
      return(jsonlite::toJSON(seen$arrivals %||% list(), auto_unbox = TRUE, digits = NA))
    }
    seen$arrivals <- c(seen$arrivals, list(list(model = body$model,
                                                at = as.double(Sys.time()))))
    list(text = "\\boxed{A}", delay = if (identical(body$model, "slow")) 0.4 else 0)
  })
  settings <- set_settings(withr::local_tempdir(), max_active = 2)
  set <- quiet_set("futurex@sample", set_chats(server, c("fast", "slow")),
                   log_dir = withr::local_tempdir(), settings = settings, limit = 8)
  expect_equal(set$status, c("done", "done"))
  got <- generate_responses(fake_chat(server, "arrivals"), "?", set_settings(FALSE))$result
  arrivals <- jsonlite::fromJSON(got)
  slow <- sort(arrivals$at[arrivals$model == "slow"])
  expect_length(slow, 8)
  # a slow request is in flight at least 0.4 s from its arrival, so with at most 2 in
  # flight, no 3 slow requests arrive within 0.35 s of each other
  in_window <- vapply(seq_along(slow), function(k) sum(slow >= slow[[k]] & slow < slow[[k]] + 0.35), 1L)
  expect_lte(max(in_window), 2L)
})
