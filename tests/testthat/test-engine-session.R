# The request session: what a run is (its run, its collector), scoped to a frame and read by
# the engine from the session, never from the settings.

test_that("a request session does not leak past its frame", {
  run <- new_run()
  inside <- function() {
    local_request_session(run = run)
    expect_identical(current_request_session()$run, run)
    nested <- function() {
      local_request_session(collector = new_request_collector(function(requests, keep) NULL))
      # a field not given is the enclosing session's
      expect_identical(current_request_session()$run, run)
      expect_s3_class(current_request_session()$collector, "predictivebench_collector")
    }
    nested()
    expect_null(current_request_session()$collector)
    expect_identical(current_request_session()$run, run)
  }
  inside()
  expect_null(current_request_session()$run)
  expect_null(current_request_session()$collector)
  # undone on an error too
  try(with_request_session(new_request_session(run = run), stop("boom")), silent = TRUE)
  expect_null(current_request_session()$run)
  expect_identical(with_request_session(new_request_session(run = run),
                                        current_request_session()$run), run)
  expect_error(new_request_session(run = "r1"), "Internal error")
  expect_error(new_request_session(collector = function(...) NULL), "Internal error")
})

test_that("run_requests() hands its requests to the session's collector and stamps its run", {
  server <- local_fake_openai()
  chat <- fake_chat(server)
  settings <- request_settings(cache = withr::local_tempdir())
  taken <- list()
  # it sends none of them: every one is left for the call to send itself
  collector <- new_request_collector(function(requests, keep) {
    taken[[length(taken) + 1]] <<- requests$todo
    requests$todo
  })
  run <- new_run()
  res <- with_request_session(new_request_session(run = run, collector = collector),
                              run_requests(list(chat), c(1L, 1L), list("a", "b"), settings))
  expect_equal(taken, list(1:2))
  expect_equal(res$result, rep("ok", 2))
  expect_equal(server$count(), 2)
  # paid by this run (stamped), so not counted as cached when read back inside it
  again <- with_request_session(new_request_session(run = run),
                                run_requests(list(chat), c(1L, 1L), list("a", "b"), settings))
  expect_false(any(again$cached))
  expect_true(all(run_requests(list(chat), c(1L, 1L), list("a", "b"), settings)$cached))
  # outside the session nothing is handed over, and the settings carry no session
  expect_length(taken, 1)
  expect_equal(server$count(), 2)
  expect_false(any(c("run", "hand_over", "collector") %in% names(settings)))
  expect_error(settings_with_dots(settings, run = run), "run",
               class = "predictivebench_error_argument")
  expect_error(settings_with_dots(settings, hand_over = function(...) NULL), "hand_over",
               class = "predictivebench_error_argument")
})

test_that("estimate_cost()'s dry run is the session's price: read in one place, never a setting", {
  server <- local_fake_openai()
  chat <- fake_chat(server)
  context <- new_dry_run()
  inside <- function() {
    nested <- function() {
      local_request_session(collector = NULL)  # a field not given is the enclosing session's
      pricing_collector()
    }
    list(price = pricing_collector(), nested = nested(),
         sent = run_requests(list(chat), 1L, list("a"), request_settings(cache = FALSE)))
  }
  got <- with_dry_run_mock(context, inside())
  expect_identical(got$price, context)
  expect_identical(got$nested, context)
  expect_equal(server$count(), 0)
  expect_length(context$chunks, 1)
  # gone with its frame: the same request is sent
  expect_null(pricing_collector())
  expect_equal(run_requests(list(chat), 1L, list("a"), request_settings(cache = FALSE))$result,
               "ok")
  expect_equal(server$count(), 1)
  expect_error(new_request_session(price = list()), "Internal error")
})
