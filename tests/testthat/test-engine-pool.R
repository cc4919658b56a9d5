# R/engine-pool.R: the continuous request pool, driven by a scripted transport (no HTTP).

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

# A scripted transport whose requests never answer unless `answers` (or, later,
# `env$answers`) says so; records what the pool started and cancelled, and each drive's
# timeout. `rounds[i]` is how many times request i reports progress.
silent_transport <- function(answers = list(), rounds = integer()) {
  env <- new.env()
  env$answers <- answers
  env$waits <- double()
  env$started <- integer()
  env$cancelled <- integer()
  env$polls <- integer()
  env$finish <- list()
  env$transport <- list(
    start = function(i, finish) {
      env$started <- c(env$started, i)
      env$finish[[as.character(i)]] <- finish
    },
    drive = function(timeout) {
      env$waits <- c(env$waits, timeout)
      Sys.sleep(min(timeout, 0.05))
      for (key in names(env$answers)) {
        finish <- env$finish[[key]]
        if (!is.null(finish)) {
          env$finish[[key]] <- NULL
          finish(as.integer(key), env$answers[[key]])
        }
      }
    },
    cancel = function(i) {
      env$cancelled <- c(env$cancelled, i)
      env$finish[[as.character(i)]] <- NULL
    },
    progress = function(i) {
      env$polls[i] <- (if (is.na(env$polls[i])) 0L else env$polls[i]) + 1L
      min(env$polls[i], rounds[i] %|NA|% 0L)
    },
    close = function() NULL
  )
  env
}

test_that("a request that never answers is cancelled at its deadline and fails with its class", {
  script <- silent_transport(answers = list(`2` = "answer 2"))
  delivered <- list()
  request_pool(1:2, script$transport, function(i, value) delivered[[i]] <<- value,
               max_active = 2, rpm = 1e6, max_tries = 2, backoff = 0, deadline = 0.2)
  expect_equal(delivered[[2]], "answer 2")
  expect_s3_class(delivered[[1]], "predictivebench_gave_up")
  expect_s3_class(delivered[[1]]$parent, "predictivebench_error_deadline")
  expect_match(conditionMessage(delivered[[1]]), "deadline of 0.2 s")
  # each attempt was cancelled (and so sent again), not left running
  expect_equal(script$started, c(1L, 2L, 1L))
  expect_equal(script$cancelled, c(1L, 1L))
})

test_that("a request's tool rounds do not renew its deadline; past it, it is not resent", {
  # Request 1 reports progress (tool-call rounds) at every check, so it has been paid for
  # rounds when its one deadline passes; request 2 never progresses.
  script <- silent_transport(rounds = c(1000L, 0L))
  delivered <- list()
  request_pool(1:2, script$transport, function(i, value) delivered[[i]] <<- value,
               max_active = 2, rpm = 1e6, max_tries = 3, backoff = 0, deadline = 0.2)
  expect_s3_class(delivered[[1]], "predictivebench_error_sample_deadline")
  expect_match(conditionMessage(delivered[[1]]), "took longer than its deadline of 0.2 s")
  # the one without rounds is retried as before, then given up
  expect_s3_class(delivered[[2]], "predictivebench_gave_up")
  expect_equal(sum(script$started == 1L), 1L)
  expect_equal(sum(script$started == 2L), 3L)
})

test_that("a refused key (401/403) stops the pool; what is in flight is delivered", {
  for (status in c(401L, 403L)) {
    refusal <- structure(class = c("error", "condition"),
                         list(message = paste("HTTP", status), status = status))
    # request 1 is refused; 2 and 3 (in flight with it) answer; 4 to 10 are never sent
    script <- silent_transport(answers = list(`1` = refusal, `2` = "answer 2",
                                              `3` = "answer 3"))
    delivered <- list()
    halted <- tryCatch(
      request_pool(1:10, script$transport, function(i, value) delivered[[i]] <<- value,
                   max_active = 3, rpm = 1e6, max_tries = 3, backoff = 0),
      predictivebench_pool_halted = identity
    )
    expect_s3_class(halted, "predictivebench_pool_halted")
    expect_equal(halted$i, 1L)
    expect_identical(halted$error, refusal)
    expect_equal(c(halted$sent, halted$unsent), c(3L, 7L))
    expect_equal(script$started, 1:3)
    expect_equal(delivered[2:3], list("answer 2", "answer 3"))
  }
})

# The former bypasses (DSBench's request groups, arena answers and arena judging in chunks of
# 20) now go through one pool with one retry policy. The fake server answers each request
# `delay` seconds after it arrives, with its arrival time as the text; request 1 first gets a
# 429. Requests that arrived within `delay` of one another were in flight at the same time,
# so more of them than one group (or chunk) holds shows that the groups share one pool.
arrival_reply <- function(delay, verdict = FALSE) {
  force(delay)
  force(verdict)
  function(body, n) {
    if (n == 1) return(list(status = 429, headers = list(`retry-after` = "0")))
    now <- sprintf("%.3f", as.numeric(Sys.time()))
    list(text = if (verdict) paste0('{"winner": 1, "explanation": "', now, '"}') else now,
         delay = delay)
  }
}

max_in_flight <- function(arrivals, delay) {
  arrivals <- as.numeric(arrivals)
  max(vapply(arrivals, function(t) sum(arrivals >= t & arrivals < t + delay), 1))
}

test_that("DSBench's request groups (system prompts, images) share one pool and its retries", {
  skip_on_cran()
  delay <- 1.5
  server <- local_fake_openai(arrival_reply(delay))
  data <- dsbench_dataset(version = "sample")
  with_image <- !is.na(data$image_used)
  expect_true(any(with_image) && any(!with_image))  # two groups: with and without an image
  tsk <- dsbench_task(data, dir = withr::local_tempdir(), scorer = dsbench_scorer_exact(),
                      solver = dsbench_solver(options = dsbench_options(count_tokens = function(x) nchar(x) %/% 4),
                                              settings = request_settings(cache = FALSE,
                                                                          rpm = Inf, retry = list(backoff = 0))))
  suppressWarnings(tsk$eval(solver_chat = fake_chat(server, model = "gpt-4o"), view = FALSE))
  result <- tsk$get_samples()$result
  expect_false(anyNA(result))
  expect_equal(server$count(), nrow(data) + 1)  # the 429 was retried
  expect_gt(max_in_flight(result, delay), max(sum(with_image), sum(!with_image)))
  # the groups kept their own system prompts
  systems <- vapply(server$requests()[-1], function(b) b$messages[[1]]$content, "")
  expect_setequal(unique(systems), c(dsbench_system_prompt_text, dsbench_system_prompt_image))
})

test_that("arena answers of every model go into one pool, not chunks of 20, with its retries", {
  skip_on_cran()
  delay <- 2
  server <- local_fake_openai(arrival_reply(delay))
  questions <- paste("Question", 1:15)
  models <- list(m1 = fake_chat(server, model = "m1"), m2 = fake_chat(server, model = "m2"))
  answers <- arena_answers(questions, models,
                           request_settings(cache = FALSE, max_active = 40, rpm = Inf, retry = list(backoff = 0)))
  expect_equal(names(answers), c("question", "m1", "m2"))
  expect_equal(answers$question, questions)
  expect_false(anyNA(c(answers$m1, answers$m2)))
  expect_equal(server$count(), 2 * length(questions) + 1)
  # more in flight at once than one chunk of 20, and than one model's questions
  expect_gt(max_in_flight(c(answers$m1, answers$m2), delay), 20)
})

test_that("arena judging sends every battle in one pool, not chunks of 20, with its retries", {
  skip_on_cran()
  delay <- 2
  server <- local_fake_openai(arrival_reply(delay, verdict = TRUE))
  battles <- sample_battles(8) # 24 battles
  tsk <- arena_judge_task(battles,
                          solver = arena_judge_solver(settings = request_settings(cache = FALSE,
                                                                                  max_active = 40,
                                                                                  rpm = Inf, retry = list(backoff = 0))),
                          dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server, model = "judge-lm"), view = FALSE)
  samples <- tsk$get_samples()
  expect_true(all(metadata_field(samples$solver_metadata, "winner") == "model_a"))
  expect_equal(server$count(), nrow(battles) + 1)
  arrivals <- vapply(samples$result, function(r) jsonlite::parse_json(r)$explanation, "")
  expect_gt(max_in_flight(arrivals, delay), 20)
  expect_equal(nrow(samples), nrow(battles))
})

test_that("arena answers interrupted mid-pool are resumed from the response cache", {
  # The run stops at the first refused request (a 401 halts the pool) with six answers in
  # the response cache, the arena's one store; the rerun sends only the missing ones.
  allow <- withr::local_tempfile()
  server <- local_fake_openai(function(body, n) {
    if (n > 6 && !file.exists(allow)) return(list(status = 401))
    paste("answer to", last_user_text(body))
  })
  cache <- withr::local_tempdir()
  questions <- paste("Question", 1:10)
  models <- list(m1 = fake_chat(server, model = "m1"))
  settings <- request_settings(cache = cache, max_active = 1, rpm = Inf)
  expect_error(arena_answers(questions, models, settings),
               class = "predictivebench_error_auth")
  expect_equal(server$count(), 7)
  writeLines("ok", allow)
  answers <- arena_answers(questions, models, settings)
  expect_equal(server$count() - 7, length(questions) - 6)
  expect_equal(answers$m1, paste("answer to", questions))
  # and a third run sends nothing
  again <- arena_answers(questions, models, settings)
  expect_equal(server$count() - 7, length(questions) - 6)
  expect_equal(again$m1, answers$m1)
})

test_that("no model request is sent outside the pool", {
  src <- file.path(skip_if_no_source_tree(), "R")
  senders <- "req_perform|req_retry|\\$chat\\(|chat_async|parallel_chat|batch_chat|curl_fetch|multi_run"
  files <- list.files(src, pattern = "[.]R$", full.names = TRUE)
  hits <- unlist(lapply(files, function(f) {
    lines <- readLines(f, warn = FALSE)
    code <- sub("#.*$", "", lines)
    at <- grep(senders, code)
    if (length(at)) paste0(basename(f), ":", at)
  }))
  # The engine's own transports and batch route send; dataset downloads are not model
  # requests.
  allowed <- grepl("^engine-", hits) | grepl("^datasets-(fetch|download)[.]R:", hits)
  expect_equal(hits[!allowed], character())
  expect_true(any(grepl("^engine-transport", hits)))  # the check does see the senders
})

test_that("with groups, each group stays within its own limit inside the pool's", {
  # A scripted transport: group "slow" answers only when nothing of "fast" is in flight, so
  # a pool capped only as a whole would fill its free slots with slow requests.
  group <- rep(c("fast", "slow"), each = 6)
  active <- integer(0)
  peak <- c(fast = 0L, slow = 0L, all = 0L)
  callbacks <- list()
  transport <- list(
    start = function(i, finish) {
      active <<- c(active, i)
      callbacks[[as.character(i)]] <<- finish
      for (g in c("fast", "slow")) peak[[g]] <<- max(peak[[g]], sum(group[active] == g))
      peak[["all"]] <<- max(peak[["all"]], length(active))
    },
    drive = function(timeout) {
      fast <- active[group[active] == "fast"]
      i <- if (length(fast)) fast[[1]] else active[[1]]
      active <<- setdiff(active, i)
      callbacks[[as.character(i)]](i, paste("answer", i))
    },
    close = function() NULL
  )
  delivered <- character()
  request_pool(12:1, transport, function(i, value) delivered[[i]] <<- value, max_active = 5,
               rpm = Inf, group = group, group_max_active = c(fast = 3, slow = 2))
  expect_equal(unname(delivered), paste("answer", 1:12))
  expect_equal(peak, c(fast = 3L, slow = 2L, all = 5L))

  # without groups the same pool lets the slow group take every slot
  active <- integer(0)
  peak[] <- 0L
  request_pool(12:1, transport, function(i, value) NULL, max_active = 5, rpm = Inf)
  expect_equal(peak[["slow"]], 5L)
})

test_that("groups without a limit for each are refused with a classed error", {
  transport <- list(start = function(i, finish) NULL, drive = function(t) NULL,
                    close = function() NULL)
  expect_error(
    request_pool(1:2, transport, function(i, v) NULL, group = c("a", "b"),
                 group_max_active = c(a = 1)),
    class = "predictivebench_error_argument"
  )
  expect_error(
    request_pool(1:2, transport, function(i, v) NULL, group = c("a", "b"),
                 group_max_active = c(a = 1, b = 0)),
    class = "predictivebench_error_argument"
  )
})

test_that("a steppable pool: step(0) starts what was added without waiting, more can be added", {
  script <- silent_transport()
  delivered <- character()
  pool <- new_request_pool(script$transport, function(i, value) delivered[[i]] <<- value,
                           max_active = 3, rpm = Inf, max_tries = 1, backoff = 0)
  expect_false(pool$busy())
  pool$add(1:2)
  expect_true(pool$busy())
  pool$step(0)
  # both went out at once, and the turn waited for nothing
  expect_equal(script$started, 1:2)
  expect_equal(script$waits, 0)
  expect_length(delivered, 0)
  # added while the first are in flight: started at the next turn, within max_active
  pool$add(3:5)
  pool$step(0)
  expect_equal(script$started, 1:3)
  script$answers <- stats::setNames(as.list(paste("answer", 1:5)), 1:5)
  pool$run()
  expect_false(pool$busy())
  expect_equal(unname(delivered), paste("answer", 1:5))
  expect_equal(script$started, 1:5)
  pool$close()
})

test_that("a steppable pool's groups: limits raised or added later hold per group", {
  script <- silent_transport()
  pool <- new_request_pool(script$transport, function(i, value) NULL, max_active = 2,
                           rpm = Inf, max_tries = 1, backoff = 0,
                           group_max_active = c(a = 1))
  pool$add(1:2, c("a", "a"))
  pool$step(0)
  expect_equal(script$started, 1L)  # a holds 1
  # a second group joins, and the pool's total grows with it
  pool$limit(3, c(a = 1, b = 2))
  pool$add(3:5, c("b", "b", "b"))
  pool$step(0)
  expect_equal(script$started, c(1L, 3L, 4L))
  # a request of a group without a limit is refused
  expect_error(pool$add(6L, "c"), class = "predictivebench_error_argument")
  pool$close()
})

test_that("a step raises a refused key once nothing is in flight, as request_pool() does", {
  refused <- structure(class = c("error", "condition"),
                       list(message = "HTTP 401 Unauthorized", status = 401L))
  script <- silent_transport(answers = list(`1` = refused, `2` = "ok", `3` = "ok", `4` = "ok"))
  pool <- new_request_pool(script$transport, function(i, value) NULL, max_active = 2,
                           rpm = Inf, max_tries = 1, backoff = 0)
  pool$add(1:4)
  halt <- tryCatch(pool$step(0), predictivebench_pool_halted = identity)
  expect_s3_class(halt, "predictivebench_pool_halted")
  expect_equal(halt$i, 1L)
  expect_equal(c(halt$sent, halt$unsent), c(2L, 2L))
  expect_false(pool$busy())
  expect_error(pool$run(), class = "predictivebench_pool_halted")
})

test_that("a refusal while starting stops the other starts of the turn; they stay unsent", {
  # the pool takes every request that may start from the queue at once: request 1 is refused
  # inside its start (as a sender failing before it sends does), so 2 and 3, taken in the same
  # turn, must not start and count as unsent
  refused <- structure(class = c("error", "condition"),
                       list(message = "HTTP 401 Unauthorized", status = 401L))
  started <- integer()
  transport <- list(
    start = function(i, finish) {
      started <<- c(started, i)
      if (i == 1L) finish(i, refused)
    },
    drive = function(timeout) NULL,
    close = function() NULL
  )
  halt <- tryCatch(request_pool(1:6, transport, function(i, value) NULL, max_active = 3,
                                rpm = Inf, max_tries = 1, backoff = 0),
                   predictivebench_pool_halted = identity)
  expect_s3_class(halt, "predictivebench_pool_halted")
  expect_equal(started, 1L)
  expect_equal(c(halt$sent, halt$unsent), c(1L, 5L))
})

test_that("requests start in queue order, as many at once as slots and tokens allow", {
  script <- silent_transport()
  pool <- new_request_pool(script$transport, function(i, value) NULL, max_active = 4,
                           rpm = Inf, max_tries = 1, backoff = 0)
  pool$add(c(5L, 2L, 9L, 1L, 7L, 3L))
  pool$step(0)
  expect_equal(script$started, c(5L, 2L, 9L, 1L))
})
