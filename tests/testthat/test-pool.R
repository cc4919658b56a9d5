# R/pool.R: the continuous request pool, driven by a scripted transport (no HTTP).

test_that("a transient failure re-enters the pool while slow requests are still in flight", {
  # A scripted transport, no HTTP: item 2 is slow (it answers only when nothing else is in
  # flight); item 1 fails with a 503 on its first try. Rounds would resend item 1 only after
  # item 2 answered; the pool resends it at once.
  active <- integer(0)
  starts <- list()
  tries <- integer(4)
  callbacks <- list()
  transport <- list(
    start = function(i, finish) {
      tries[[i]] <<- tries[[i]] + 1L
      starts[[length(starts) + 1]] <<- list(i = i, try = tries[[i]], active = active)
      active <<- c(active, i)
      callbacks[[as.character(i)]] <<- finish
    },
    drive = function(timeout) {
      # a short wait (for the next rpm token) passes without an answer, as on a network
      if (timeout < 0.01) return(Sys.sleep(timeout))
      ready <- setdiff(active, if (length(active) > 1) 2L)
      i <- ready[[1]]
      active <<- setdiff(active, i)
      value <- if (i == 1L && tries[[1]] == 1L) {
        structure(class = c("error", "condition"), list(message = "HTTP 503", status = 503L))
      } else paste("answer", i)
      callbacks[[as.character(i)]](i, value)
    },
    close = function() NULL
  )
  delivered <- list()
  request_pool(1:4, transport, function(i, value) delivered[[as.character(i)]] <<- value,
               max_active = 2, rpm = 1e6, max_tries = 3, backoff = 0)
  expect_equal(unname(unlist(delivered[as.character(1:4)])), paste("answer", 1:4))
  retry <- Filter(function(s) s$i == 1L && s$try == 2L, starts)
  expect_length(retry, 1)
  expect_true(2L %in% retry[[1]]$active)  # item 2 was still in flight
  expect_equal(tries, c(2L, 1L, 1L, 1L))
})

test_that("a request failing transiently every time is given up after max_tries", {
  tries <- 0L
  transport <- list(
    start = function(i, finish) {
      tries <<- tries + 1L
      finish(i, structure(class = c("error", "condition"),
                          list(message = "HTTP 429", status = 429L, retry_after = "0")))
    },
    drive = function(timeout) NULL,
    close = function() NULL
  )
  out <- NULL
  request_pool(1L, transport, function(i, value) out <<- value, max_active = 1, rpm = 1e6,
               max_tries = 3, backoff = 0)
  expect_equal(tries, 3L)
  expect_s3_class(out, "predictivebench_gave_up")
  expect_match(conditionMessage(out), "Gave up after 3 tries.*429")
})
