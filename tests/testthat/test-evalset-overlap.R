test_that("in one process each cell's requests go out when it hands them over, before the next cell", {
  server <- local_set_server(latency = 0.05)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir(), max_active = 4)
  models <- c("m1", "m2", "m3")
  set <- quiet_set("futurex@sample", set_chats(server, models), log_dir = logs,
                   settings = settings, limit = 4)
  expect_equal(set$status, rep("done", 3))
  arrived <- vapply(server$requests(), `[[`, "", "model")
  expect_length(arrived, 3 * 4)
  # An overlap that sent only after every cell was attempted would interleave the models
  # (m1, m2, m3, m1, ...): m1's four went out the moment its cell handed them over, while
  # m2's cell was being evaluated.
  expect_equal(arrived[1:4], rep("m1", 4))
  expect_setequal(arrived, models)
})

test_that("a cell's requests arrive at the server while the overlap's later cells are evaluated", {
  # A slow server, and cells whose evaluation is one engine call of 4 prompts: the third
  # cell reads the server's count before its own call, waiting (up to 20 s, without turning
  # the pool) for the first two cells' 8 requests to arrive. Had the overlap held them until
  # every cell was attempted, none would have been sent yet.
  server <- local_set_server(latency = 1)
  settings <- set_settings(withr::local_tempdir(), max_active = 4)
  seen <- list()
  attempt <- function(cell, collector) {
    local_request_session(collector = collector)
    if (cell$id == "c3" && is.null(seen$c3)) {
      waited <- 0
      while (server$count() < 8 && waited < 20) {
        Sys.sleep(0.05)
        waited <- waited + 0.05
      }
      seen$c3 <<- server$count()
    }
    res <- generate_responses(fake_chat(server, cell$id), paste(cell$id, 1:4), settings,
                              progress = FALSE)
    seen[[paste0(cell$id, "_results")]] <<- res$result
    new_outcome("done")
  }
  cells <- lapply(c("c1", "c2", "c3"), function(id) list(id = id))
  out <- run_overlapping(cells, 0L, attempt)
  expect_equal(seen$c3, 8)
  expect_equal(vapply(out, `[[`, "", "status"), rep("done", 3))
  expect_equal(seen$c3_results, rep("\\boxed{A}", 4))
  expect_equal(server$count(), 12)
})

test_that("a key refused mid-overlap fails its own cell only; nothing escapes into the cell evaluated", {
  # the refusal arrives (after the latency) while the later cells are being evaluated
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "refused")) list(status = 401) else "\\boxed{A}"
  }, latency = 0.3)
  settings <- set_settings(withr::local_tempdir())
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "refused", "m3", "m4")),
                   log_dir = withr::local_tempdir(), settings = settings, limit = 3)
  expect_equal(set$status, c("done", "failed", "done", "done"))
  expect_match(set$error[[2]], "401|refused|credentials", ignore.case = TRUE)
  expect_true(all(is.na(set$error[-2])))
})

test_that("a cell with a judge goes on overlapping: solver answers first, then the judge's", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (grepl("GROUND_TRUTH_VALUE", paste(unlist(body$messages), collapse = " "))) {
      return("GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 1")
    }
    # each solver its own answer, so a judge request names the cell it belongs to
    if (identical(body$model, "m1")) "\\boxed{41}" else "\\boxed{42}"
  })
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  judge <- fake_chat(server, model = "judge")
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
                   judge = judge, settings = settings)
  expect_equal(set$status, c("done", "done"))
  requests <- server$requests()
  models <- vapply(requests, `[[`, "", "model")
  text <- vapply(requests, function(r) paste(unlist(r$messages), collapse = " "), "")
  expect_gt(sum(models == "judge"), 0)
  # each cell's judge requests came after every one of that cell's solver requests; the
  # other cell may still be answering then (a cell goes on as soon as its own answers are in)
  for (cell in list(c("m1", "41"), c("m2", "42"))) {
    judged <- which(models == "judge" & grepl(paste0("{", cell[[2]], "}"), text, fixed = TRUE))
    expect_gt(length(judged), 0)
    expect_true(all(judged > max(which(models == cell[[1]]))))
  }
  # and each request once: a second run sends none
  sent <- server$count()
  quiet_set("futurex@sample", set_chats(server, c("m1", "m2")), log_dir = logs,
            judge = judge, settings = settings)
  expect_equal(server$count(), sent)
})

test_that("outside a set's overlap the engine sends as it always did", {
  expect_null(current_request_session()$collector)
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

test_that("an error in the overlap's pool (a full disk) stops its sending, not the cell evaluated", {
  # The first answer kept fails as a full disk would. It arrives while the second cell hands
  # its requests over (each cell first takes 0.3 s, so the first cell's answers are back by
  # then): the pool stops there, and the second cell only waits; then every cell gets the
  # answers the pool had received (the one whose write failed is written again by its cell)
  # and sends the rest itself, as it would alone.
  server <- local_set_server()
  settings <- set_settings(withr::local_tempdir())
  writes <- 0L
  real_cache_set <- cache_set
  local_replace_internal("cache_set", function(...) {
    writes <<- writes + 1L
    if (writes == 1L) stop("No space left on device")
    real_cache_set(...)
  })
  attempt <- function(cell, collector) {
    local_request_session(collector = collector)
    Sys.sleep(0.3)
    tryCatch({
      generate_responses(fake_chat(server, cell$id), paste(cell$id, 1:2),
                         settings,
                         progress = FALSE)
      new_outcome("done")
    }, error = function(e) new_outcome("failed", error = conditionMessage(e)))
  }
  cells <- lapply(c("c1", "c2", "c3"), function(id) list(id = id))
  out <- run_overlapping(cells, 0L, attempt)
  expect_equal(vapply(out, `[[`, "", "status"), rep("done", 3))
  expect_equal(vapply(out, `[[`, 1L, "attempts"), rep(1L, 3))
  expect_gt(writes, 6L)  # the failed write, then every answer kept
})

test_that("a cell started inside another's wait ends there, while the other's requests are in flight", {
  # "slow" answers after 3 s, "fast" at once. The fast cell starts while the slow cell waits,
  # and ends (its answers cached) before the slow cell's answers are in.
  server <- local_fake_openai(function(body, n) {
    list(text = "\\boxed{A}", delay = if (identical(body$model, "slow")) 3 else 0)
  })
  cache <- withr::local_tempdir()
  settings <- set_settings(cache)
  entries <- function() length(list.files(cache, recursive = TRUE))
  seen <- NULL
  attempt <- function(cell, collector) {
    local_request_session(collector = collector)
    generate_responses(fake_chat(server, cell$id), paste(cell$id, 1:2), settings,
                       progress = FALSE)
    if (cell$id == "fast") seen <<- entries()
    new_outcome("done")
  }
  cells <- lapply(c("slow", "fast"), function(id) list(id = id))
  out <- run_overlapping(cells, 0L, attempt)
  expect_equal(vapply(out, `[[`, "", "status"), c("done", "done"))
  expect_equal(entries() - seen, 2)  # the slow cell's two answers came after
  expect_equal(server$count(), 4)
})

test_that("each cell is evaluated once: a later step waits for its own requests while others stay in flight", {
  # Each cell makes two engine calls: its answers, then its judge's (which need the answers
  # first). "slow" answers after 2 s, "fast" at once. The fast cell, started inside the slow
  # cell's wait, goes on to its end (its judge's requests sent and answered) while the slow
  # cell's answers are still in flight, and no cell is evaluated twice.
  server <- local_fake_openai(function(body, n) {
    list(text = "\\boxed{A}", delay = if (identical(body$model, "slow")) 2 else 0)
  })
  cache <- withr::local_tempdir()
  settings <- set_settings(cache)
  entries <- function() length(list.files(cache, recursive = TRUE))
  started <- c(fast = 0L, slow = 0L)
  read <- c(fast = 0L, slow = 0L)
  seen <- NULL
  attempt <- function(cell, collector) {
    local_request_session(collector = collector)
    started[[cell$id]] <<- started[[cell$id]] + 1L
    answers <- generate_responses(fake_chat(server, cell$id), paste(cell$id, 1:2), settings,
                                  progress = FALSE)
    read[[cell$id]] <<- read[[cell$id]] + 1L
    generate_responses(fake_chat(server, "judge"), paste("judge", answers$result, cell$id),
                       settings, progress = FALSE)
    if (cell$id == "fast") seen <<- entries()
    new_outcome("done")
  }
  cells <- lapply(c("slow", "fast"), function(id) list(id = id))
  out <- run_overlapping(cells, 0L, attempt)
  expect_equal(vapply(out, `[[`, "", "status"), c("done", "done"))
  expect_equal(vapply(out, `[[`, 1L, "attempts"), c(1L, 1L))
  expect_equal(started, c(fast = 1L, slow = 1L))
  expect_equal(read, c(fast = 1L, slow = 1L))
  # when the fast cell ended (its answers and its judge's cached), none of the slow cell's were
  expect_equal(entries() - seen, 4)
  expect_equal(server$count(), 8)
})

test_that("a retried cell sends again only its requests that failed, each cell evaluated once per attempt", {
  # "flaky" fails its first request for good (one try), then answers
  server <- local_fake_openai(function(body, n) {
    seen <- parent.env(environment())
    seen$flaky <- (seen$flaky %||% 0L) + identical(body$model, "flaky")
    if (identical(body$model, "flaky") && seen$flaky == 1L) list(status = 500) else "\\boxed{A}"
  })
  settings <- set_settings(withr::local_tempdir())
  evaluated <- c(ok = 0L, flaky = 0L)
  attempt <- function(cell, collector) {
    local_request_session(collector = collector)
    res <- generate_responses(fake_chat(server, cell$id), paste(cell$id, 1:3), settings,
                              progress = FALSE)
    evaluated[[cell$id]] <<- evaluated[[cell$id]] + 1L
    if (any(!is.na(res$error))) new_outcome("partial") else new_outcome("done")
  }
  cells <- lapply(c("ok", "flaky"), function(id) list(id = id))
  out <- run_overlapping(cells, 1L, attempt)
  expect_equal(vapply(out, `[[`, "", "status"), c("done", "done"))
  expect_equal(vapply(out, `[[`, 1L, "attempts"), c(1L, 2L))
  expect_equal(evaluated, c(ok = 1L, flaky = 2L))
  # 3 + 3 sent, then the one that failed once more
  expect_equal(server$count(), 7)
})

test_that("a cell starts inside another's wait: its requests go out while the other's are in flight", {
  # The first cell's answers take 8 s. While it waits for them, the second cell starts and
  # its requests arrive (whatever its own setup costs on a busy machine) before those 8 s.
  server <- local_fake_openai(function(body, n) {
    seen <- parent.env(environment())
    if (identical(body$model, "arrivals")) {
      return(jsonlite::toJSON(seen$arrivals %||% list(), auto_unbox = TRUE, digits = NA))
    }
    seen$arrivals <- c(seen$arrivals, list(list(model = body$model,
                                                at = as.double(Sys.time()))))
    list(text = "\\boxed{42}", delay = if (identical(body$model, "m1")) 8 else 0)
  })
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2")),
                   log_dir = withr::local_tempdir(), limit = 5,
                   settings = set_settings(withr::local_tempdir()))
  expect_equal(set$status, c("done", "done"))
  got <- generate_responses(fake_chat(server, "arrivals"), "?", set_settings(FALSE))$result
  arrivals <- jsonlite::fromJSON(got)
  first <- arrivals$at[arrivals$model == "m1"]
  second <- arrivals$at[arrivals$model == "m2"]
  expect_length(first, 5)
  expect_length(second, 5)
  expect_lt(max(second) - min(first), 7.5)
})

test_that("a cell that goes on inside another's wait keeps what it signals to itself", {
  # "broken" fails every request (one try): its cell fails as a whole (every request of its
  # step failed), inside the first cell's wait for its slow judge; the first cell is done.
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "broken")) return(list(status = 500))
    if (identical(body$model, "judge")) {
      return(list(text = "GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 1", delay = 1))
    }
    "\\boxed{12}"
  })
  settings <- set_settings(withr::local_tempdir())
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "broken")),
                   log_dir = withr::local_tempdir(), judge = fake_chat(server, "judge"),
                   settings = settings, retries = 0)
  expect_equal(set$status, c("done", "failed"))
  expect_true(is.na(set$error[[1]]))
  expect_match(set$error[[2]], "500")
})

test_that("two cells waiting for the same request at once get its one answer", {
  # Both models answer alike, so their cells' judge requests are the same requests (one cache
  # key each). The second cell goes on inside the first's wait and waits for them too: each
  # is sent once, and both cells get its answer.
  server <- local_fake_openai(function(body, n) {
    if (identical(body$model, "judge")) {
      return(list(text = "GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 1", delay = 1))
    }
    "\\boxed{12}"
  })
  settings <- set_settings(withr::local_tempdir())
  set <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2")),
                   log_dir = withr::local_tempdir(), judge = fake_chat(server, "judge"),
                   settings = settings)
  expect_equal(set$status, c("done", "done"))
  models <- vapply(server$requests(), `[[`, "", "model")
  ds <- futurex_dataset(version = "sample")
  expect_equal(sum(models == "judge"), sum(ds$level >= 3 & !is.na(ds$std)))
  expect_equal(sum(models != "judge"), 2 * nrow(ds))
})

test_that("a set's cell larger than its chunk runs in chunks: paid once, one chunk's headline, overlapping", {
  # A FutureX cell of 30 samples in chunks of 10, and a cell of 3 samples. The big cell
  # hands over its first chunk (10 requests), and the small cell, started inside its wait,
  # its 3; the big cell's later chunks follow. The same set in one chunk: the same
  # headlines, as many requests.
  server <- local_set_server(latency = 0.05)
  base <- futurex_dataset(version = "sample")
  big <- base[rep(seq_len(nrow(base)), length.out = 30), ]
  big$id <- paste0(big$id, "-", seq_len(30))
  big$input <- paste0("[big ", seq_len(30), "] ", big$input)
  small <- futurex_dataset(version = "sample", limit = 3)
  run <- function(chunk_size) {
    logs <- withr::local_tempdir(.local_envir = parent.frame())
    tasks <- list(big = futurex_task(big, dir = logs), small = futurex_task(small, dir = logs))
    tasks$big$chunk_size <- chunk_size
    before <- server$count()
    set <- quiet_set(tasks, set_chats(server, "m1"), log_dir = logs,
                     settings = set_settings(withr::local_tempdir(.local_envir = parent.frame())))
    bodies <- server$requests()
    list(set = set, sent = server$count() - before,
         bodies = bodies[seq_along(bodies) > before])
  }
  chunks <- list()
  evaluate_chunks <- local_replace_internal("eval_chunks", function(dataset, ...) {
    out <- evaluate_chunks(dataset, ...)
    chunks[[length(chunks) + 1]] <<- lengths(out)
    out
  })
  chunked <- run(10)
  expect_equal(chunked$set$status, c("done", "done"))
  # the big cell was evaluated once, in 3 chunks of 10
  expect_equal(sum(vapply(chunks, identical, TRUE, c(10L, 10L, 10L))), 1L)
  expect_false(any(vapply(chunks, function(x) identical(x, 30L), TRUE)))
  # paid once: one request a sample
  expect_equal(chunked$sent, 33)
  expect_equal(chunked$set$failed_samples, c(0L, 0L))
  # overlapping: the small cell's requests went out before the big cell's later chunks'
  is_big <- vapply(chunked$bodies, function(b) grepl("[big ", jsonlite::toJSON(b),
                                                     fixed = TRUE), TRUE)
  expect_equal(sum(is_big), 30)
  expect_lt(max(which(!is_big)), min(which(is_big)[11:30]))
  # the big cell's summary, read back from its log, is the one chunk's
  logged <- suppressMessages(futurex_summary(chunked$set$log_path[[1]]))
  chunks <- list()
  whole <- run(NULL)
  expect_true(any(vapply(chunks, function(x) identical(x, 30L), TRUE)))
  expect_equal(whole$sent, 33)
  expect_equal(chunked$set$headline, whole$set$headline)
  expect_equal(chunked$set$metric, whole$set$metric)
  expect_equal(logged, suppressMessages(futurex_summary(whole$set$log_path[[1]])))
})

test_that("a traced set of 2 benchmarks x 2 models builds, reads and evaluates each cell's task once", {
  server <- local_set_server(latency = 0.05)
  counts <- list(initialize = character(), chunked_eval = 0L, dataset = character())
  real_dataset <- local_replace_internal("benchmark_dataset", function(name, ...) {
    counts$dataset <<- c(counts$dataset, name)
    real_dataset(name, ...)
  })
  real_eval <- local_replace_internal("chunked_eval", function(...) {
    counts$chunked_eval <<- counts$chunked_eval + 1L
    real_eval(...)
  })
  # (R6 gives a method the object's environment: the counter goes in as a function object)
  real_initialize <- ResultsTask$public_methods$initialize
  traced <- real_initialize
  note <- function(benchmark) counts$initialize <<- c(counts$initialize, benchmark)
  body(traced) <- bquote({
    .(note)(benchmark)
    .(body(real_initialize))
  })
  ResultsTask$set("public", "initialize", traced, overwrite = TRUE)
  withr::defer(ResultsTask$set("public", "initialize", real_initialize, overwrite = TRUE))
  set <- quiet_set(set_benchmarks_sample, set_chats(server, c("m1", "m2")),
                   log_dir = withr::local_tempdir(), limit = 3,
                   settings = set_settings(withr::local_tempdir()))
  expect_equal(set$status, rep("done", 4))
  twice_each <- c(futurex = 2L, processbench = 2L)
  expect_equal(c(table(counts$initialize)), twice_each)
  expect_equal(c(table(counts$dataset)), twice_each)
  expect_equal(counts$chunked_eval, 4L)
})
