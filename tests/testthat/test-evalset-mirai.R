test_that("without daemons, cells run in this process", {
  skip_if_not_installed("mirai")
  expect_false(daemons_running())
})

test_that("on daemons(2) a set gives the same results as in this process", {
  server <- local_set_server()
  chats <- set_chats(server, c("m1", "m2"))
  here <- quiet_set(set_benchmarks_sample, chats, log_dir = withr::local_tempdir(),
                    settings = set_settings(withr::local_tempdir()), limit = 3)
  sent_here <- server$count()
  local_daemons(2)
  expect_true(daemons_running())
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  there <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_equal(there[c("benchmark", "model", "cell_id", "status", "metric", "headline")],
               here[c("benchmark", "model", "cell_id", "status", "metric", "headline")])
  expect_equal(server$count() - sent_here, sent_here)
  expect_true(all(file.exists(there$log_path)))
  # the workers' logs are complete: a rerun (here, or on the daemons) sends nothing
  sent <- server$count()
  again <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = settings,
                     limit = 3)
  expect_true(all(again$reused))
  expect_equal(server$count(), sent)
})

test_that("on daemons, added models run only their cells", {
  server <- local_set_server()
  local_daemons(2)
  logs <- withr::local_tempdir()
  settings <- set_settings(withr::local_tempdir())
  quiet_set("futurex@sample", set_chats(server, "m1"), log_dir = logs,
            settings = settings, limit = 2)
  expect_equal(server$count(), 2)
  more <- quiet_set("futurex@sample", set_chats(server, c("m1", "m2", "m3")),
                    log_dir = logs, settings = settings, limit = 2)
  expect_equal(more$reused, c(TRUE, FALSE, FALSE))
  expect_equal(more$status, rep("done", 3))
  expect_equal(server$count(), 2 + 2 * 2)
})

test_that("on daemons, a cell that always fails is reported and the rest complete", {
  server <- local_set_server()
  local_daemons(2)
  set <- quiet_set("processbench@sample", set_chats(server, c("m1", "broken")),
                   log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2, retries = 1)
  expect_equal(set$status, c("done", "failed"))
  expect_equal(set$attempts, c(1L, 2L))
  expect_match(set$error[[2]], "failed")
})

test_that("a daemon killed mid-cell: the cell is tried again, the rest completes", {
  local_daemons(2)
  flag <- withr::local_tempfile()
  # the first answer kills the daemon that asks for it (SIGKILL: no clean-up at all)
  killer <- function(question) {
    if (!file.exists(flag)) {
      file.create(flag)
      tools::pskill(Sys.getpid(), tools::SIGKILL)
    }
    "\\boxed{A}"
  }
  environment(killer) <- list2env(list(flag = flag), parent = globalenv())
  models <- list(baseline_chat("\\boxed{B}", name = "steady"),
                 baseline_chat(killer, name = "killer"))
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  set <- quiet_set("futurex@sample", models, log_dir = withr::local_tempdir(), limit = 2,
                   retries = 1)
  expect_true(file.exists(flag))
  expect_equal(set$status, c("done", "done"))
  expect_equal(set$attempts, c(1L, 2L))
  expect_true(all(file.exists(set$log_path)))
})

test_that("on daemons, a chat primed with few-shot turns is its own cell and sends them", {
  server <- local_set_server()
  local_daemons(2)
  set <- quiet_set("futurex@sample",
                   list(fake_chat(server, model = "m1"), primed_chat(server, model = "m1")),
                   log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(set$status, c("done", "done"))
  expect_false(set$cell_id[[1]] == set$cell_id[[2]])
  expect_equal(server$count(), 4)
  expect_equal(sum(vapply(server$requests(), has_few_shot, TRUE)), 2)
})

test_that("on daemons, a chat's own key goes to its host, never the worker's", {
  server <- local_set_server()
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)
  key <- "sk-chat-OWN-key-4242"
  chats <- function(key) {
    list(ellmer::chat_openai_compatible(base_url = server$url, model = "m1",
                                        credentials = function() key),
         ellmer::chat_openai(base_url = server$url, model = "m2",
                             credentials = function() key))
  }
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  set <- quiet_set("futurex@sample", chats(key), log_dir = logs, settings = set_settings(cache),
                   limit = 2)
  expect_equal(set$status, c("done", "done"))
  expect_equal(server$auths(), rep(paste("Bearer", key), 4))
  # the key is in no file of the set: not in a log, a record or the cache
  expect_length(files_holding(key, c(logs, cache)), 0)
  # another key for the same models is the same cells
  again <- quiet_set("futurex@sample", chats("sk-another-key"), log_dir = logs,
                     settings = set_settings(cache), limit = 2)
  expect_equal(again$cell_id, set$cell_id)
  expect_equal(again$reused, c(TRUE, TRUE))
  expect_equal(server$count(), 4)
  expect_false(any(grepl(decoy, server$auths(), fixed = TRUE)))
})

# A server that answers only the key it is given, as a provider does: any other
# Authorization header gets a 401.
local_keyed_server <- function(key, .local_envir = parent.frame()) {
  reply <- function(body, n) {
    if (!identical(attr(body, "auth"), paste("Bearer", key))) {
      return(list(status = 401, json = list(error = list(
        message = "Incorrect API key provided.", type = "invalid_request_error"))))
    }
    "\\boxed{A}"
  }
  environment(reply) <- list2env(list(key = key), parent = globalenv())
  local_fake_openai(reply, .local_envir = .local_envir)
}

board_of <- function(logs) {
  board <- suppressMessages(suppressWarnings(leaderboard(logs)))
  # (which run wrote it, when and where: not the board)
  tibble::as_tibble(board)[order(board$benchmark, board$model, board$metric),
                           setdiff(names(board), c("run", "created", "source"))]
}

test_that("a chat with its constructor's default key does on daemons what it does here", {
  key <- "sk-HERE-calling-process-7777"
  server <- local_keyed_server(key)
  withr::local_envvar(OPENAI_API_KEY = key)
  # no `credentials`: ellmer's default, this process's OPENAI_API_KEY, wherever it points
  chats <- lapply(c("m1", "m2"), function(m) {
    ellmer::chat_openai_compatible(base_url = server$url, model = m)
  })
  cols <- c("benchmark", "model", "cell_id", "status", "failed_samples", "metric", "headline")
  logs_here <- withr::local_tempdir()
  cache_here <- withr::local_tempdir()
  here <- quiet_set(set_benchmarks_sample, chats, log_dir = logs_here,
                    settings = set_settings(cache_here))
  expect_equal(here$status, rep("done", 4))
  sent_here <- server$count()
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)  # the workers' own OPENAI_API_KEY, never to be sent
  logs <- withr::local_tempdir()
  cache <- withr::local_tempdir()
  there <- quiet_set(set_benchmarks_sample, chats, log_dir = logs, settings = set_settings(cache))
  expect_equal(there[cols], here[cols])
  expect_equal(board_of(logs), board_of(logs_here))
  expect_equal(server$count(), 2 * sent_here)
  expect_equal(unique(server$auths()), paste("Bearer", key))
  # the key is in no file of either run: no log, record or cache entry
  expect_length(files_holding(key, c(logs_here, logs, cache_here, cache)), 0)
})

test_that("on daemons, each key reaches only its own host", {
  here_key <- "sk-HERE-for-host-A-1111"
  own_key <- "sk-OWN-for-host-B-2222"
  a <- local_keyed_server(here_key)
  b <- local_keyed_server(own_key)
  withr::local_envvar(OPENAI_API_KEY = here_key)
  local_daemons(2)
  decoy <- set_daemon_decoy_key(2)
  models <- list(ellmer::chat_openai_compatible(base_url = a$url, model = "m1"),
                 ellmer::chat_openai_compatible(base_url = b$url, model = "m2",
                                                credentials = function() own_key),
                 ellmer::chat_openai(base_url = a$url, model = "m3"))
  set <- quiet_set("futurex@sample", models, log_dir = withr::local_tempdir(),
                   settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(set$status, rep("done", 3))
  expect_equal(a$auths(), rep(paste("Bearer", here_key), 4))
  expect_equal(b$auths(), rep(paste("Bearer", own_key), 2))
})

test_that("on daemons as here, a chat without its key stops the set in one line, sending nothing", {
  server <- local_set_server()
  local_daemons(2)
  set_daemon_decoy_key(2)
  # (ellmer skips a test instead of failing where TESTTHAT is "true")
  withr::local_envvar(OPENAI_API_KEY = NA, TESTTHAT = "false")
  keyless <- ellmer::chat_openai_compatible(base_url = server$url, model = "m1")
  err <- expect_error(quiet_set("futurex@sample", list(keyless), log_dir = withr::local_tempdir(),
                                settings = set_settings(withr::local_tempdir()), limit = 2),
                      class = "predictivebench_error_credentials")
  expect_match(conditionMessage(err), "OPENAI_API_KEY", fixed = TRUE)
  expect_equal(server$count(), 0)
})

test_that("when every daemon is killed, the waiting cells fail within a bound; done ones stay", {
  skip_if_not_installed("callr")
  server <- local_set_server(latency = 300)
  local_daemons(2)
  pids <- daemon_pids(2)
  expect_length(pids, 2)
  logs <- withr::local_tempdir()
  withr::local_options(predictivebench.daemons_grace_s = 2)
  # Outside this process (which waits in eval_set()): once the quick cell is done and the
  # slow one waits on the server, every daemon is killed (SIGKILL: nothing is cleaned up).
  killer <- callr::r_bg(function(count_url, records, pids) {
    repeat {
      n <- tryCatch(jsonlite::fromJSON(count_url)$n, error = function(e) 0)
      if (n >= 1 && length(list.files(records, pattern = "[.]json$")) >= 1) break  # (not a lock)
      Sys.sleep(0.2)
    }
    tools::pskill(pids, tools::SIGKILL)
  }, args = list(count_url = sub("/v1$", "/__count", server$url),
                 records = file.path(logs, ".eval-set"), pids = pids))
  withr::defer(killer$kill())
  # without the bound, the set would wait forever: stop it after 120 s
  setTimeLimit(elapsed = 120, transient = TRUE)
  withr::defer(setTimeLimit(elapsed = Inf))
  models <- list(baseline_chat("\\boxed{A}", name = "quick"), fake_chat(server, model = "slow"))
  start <- Sys.time()
  set <- quiet_set("futurex@sample", models, log_dir = logs, limit = 1, retries = 1,
                   settings = set_settings(withr::local_tempdir(), timeout = 900))
  expect_lt(as.double(difftime(Sys.time(), start, units = "secs")), 60)
  expect_false(killer$is_alive())
  expect_equal(set$status, c("done", "failed"))
  expect_match(set$error[[2]], "Every mirai daemon is gone", fixed = TRUE)
  expect_true(file.exists(set$log_path[[1]]))
  expect_equal(server$count(), 1)
})

test_that("on daemons, a panel judge's members travel with their own credentials and give the verdicts they give here", {
  server <- local_fake_openai(function(body, n) {
    switch(body$model, ja = , jb = "True", jc = "False", "\\boxed{A}")
  })
  judges <- list(fake_chat(server, "ja", key = "sk-judge-a"),
                 fake_chat(server, "jb", key = "sk-judge-b"),
                 fake_chat(server, "jc", key = "sk-judge-c"))
  here <- quiet_set("dsbench@sample", set_chats(server, "m1"),
                    log_dir = withr::local_tempdir(), judge = judges,
                    settings = set_settings(withr::local_tempdir()), limit = 2)
  sent_here <- server$count()
  local_daemons(2)
  logs <- withr::local_tempdir()
  there <- quiet_set("dsbench@sample", set_chats(server, "m1"), log_dir = logs,
                     judge = judges, settings = set_settings(withr::local_tempdir()), limit = 2)
  expect_equal(there$status, "done")
  expect_equal(there$headline, here$headline)
  expect_equal(server$count() - sent_here, sent_here)
  bodies <- server$requests()[-seq_len(sent_here)]
  auths <- server$auths()[-seq_len(sent_here)]
  models <- vapply(bodies, `[[`, "", "model")
  expect_setequal(auths[models == "jb"], "Bearer sk-judge-b")
  expect_setequal(auths[models == "jc"], "Bearer sk-judge-c")
  samples <- log_samples(there$log_path[[1]])
  each <- panel_judges(vapply(samples$scorer_metadata, `[[`, "", "judges"))
  expect_identical(each$judge, rep(c("ja", "jb", "jc"), 2))
})

# A benchmark that travels to mirai daemons (portable_benchmark()), and the vignette's `toy`,
# registered with library(predictivebench) only, run by name on mirai::daemons(2).

# Binds `value` to `name` in the global environment for the caller's duration.
local_global <- function(name, value, env = parent.frame()) {
  assign(name, value, envir = globalenv())
  withr::defer(if (exists(name, envir = globalenv(), inherits = FALSE)) {
    rm(list = name, envir = globalenv())
  }, envir = env)
}

test_that("a registration's functions carry the globals they use, through serialization", {
  local_global("pbt_answers", c(a = "one", b = "two"))
  lookup <- function(x) pbt_answers[[x]]
  environment(lookup) <- globalenv()
  local_global("pbt_lookup", lookup)
  # calls a global function, which reads a global table, and an attached package's function
  solve <- function(x, upper = FALSE) {
    out <- pbt_lookup(x)
    if (upper) toupper(out) else out
  }
  environment(solve) <- globalenv()
  moved <- portable_functions(list(solve = solve, summary = futurex_summary))
  # as a worker would see them: serialized, without the session's globals
  moved <- unserialize(serialize(moved, NULL))
  rm(list = c("pbt_answers", "pbt_lookup"), envir = globalenv())
  expect_equal(moved$solve("a"), "one")
  expect_equal(moved$solve("b", upper = TRUE), "TWO")
  # without the copy, the global is what the worker's global environment has
  expect_error(solve("a"))
  # a package's function travels as it is (a reference to its namespace)
  expect_identical(moved$summary, futurex_summary)
  expect_identical(environment(moved$summary), asNamespace("predictivebench"))
})

test_that("a worker indexes the benchmarks its cells bring, and puts back its own", {
  toy <- data.frame(id = "a", input = "x", target = "y")
  schema <- data.frame(name = c("id", "input", "target"), type = "string")
  shipped <- portable_benchmark(new_benchmark("pbt-ship", list(fn = identity),
                                              data = list(sample = toy, schema = schema)))
  own <- benchmark_named("futurex")
  replaced <- own
  replaced[["summary"]]$headline <- "level 1"
  run <- function() {
    local_benchmarks(list(shipped, replaced, shipped, NULL))
    c(registration("pbt-ship")$name, registration("futurex")$headline)
  }
  expect_equal(run(), c("pbt-ship", "level 1"))
  expect_null(registration("pbt-ship"))
  expect_identical(the_benchmarks[["futurex"]], own)
  # an unlisted one is put back unlisted
  inner <- new_benchmark("pbt-inner", list(fn = identity))
  index_benchmark(inner, internal = TRUE)
  withr::defer(unregister_benchmark("pbt-inner"))
  run_inner <- function() local_benchmarks(list(inner))
  run_inner()
  expect_true(registration("pbt-inner")$internal)
})

test_that("a set's cell carries its benchmark object to a worker, which runs it unregistered", {
  toy <- toy_set_benchmark()
  fours <- baseline_chat("4", name = "fours")
  # what eval_set() sends a daemon: the cells, their object indexed only while they are made
  ship <- function() {
    cells <- set_cells(set_benchmarks(list("toy@sample" = toy), NULL, NULL),
                       list(chat_spec(fours)), list(fours), NULL)
    unserialize(serialize(lapply(cells, portable_cell), NULL))
  }
  shipped <- ship()
  expect_null(benchmark_named("pbt-toyobj"))
  expect_equal(shipped[[1]]$benchmark$object$name, "pbt-toyobj")
  # what the daemon runs, here without the object indexed, as a worker has it
  dir <- withr::local_tempdir()
  out <- suppressMessages(run_cell_group(shipped, dir, request_settings(cache = FALSE)))
  expect_equal(out[[1]]$status, "done")
  log <- jsonlite::read_json(out[[1]]$log_path)
  expect_equal(log$results$scores[[1]]$metrics[[1]]$value, 0.5)
  expect_null(benchmark_named("pbt-toyobj"))
})

test_that("a benchmark object travels with the globals its functions read, through serialization", {
  local_global("pbt_table", data.frame(id = "a", input = "x", target = "y"))
  local_global("pbt_title", "toy rows")
  task <- function(dataset, dir) pbt_table
  summary <- function(x) paste(pbt_title, nrow(pbt_table))
  environment(task) <- environment(summary) <- globalenv()
  local_global("pbt_summary", summary)
  b <- new_benchmark("pbt-object", list(fn = "pbt_summary", headline = NULL), task = task,
                     data = list(sample = pbt_table))
  moved <- unserialize(serialize(portable_benchmark(b), NULL))
  rm(list = c("pbt_table", "pbt_title", "pbt_summary"), envir = globalenv())
  expect_s3_class(moved, "pbt-object_benchmark")
  expect_equal(moved$task(NULL, NULL)$target, "y")
  expect_equal(moved[["summary"]]$fn(NULL), "toy rows 1")
  # what is not a function is as it was; a package's function travels by reference
  expect_identical(moved$data, b$data)
  shipped <- portable_benchmark(benchmark_named("futurex"))
  expect_identical(shipped$task, futurex_task)
  expect_identical(shipped[["summary"]]$fn, futurex_summary)
  expect_null(portable_benchmark(NULL))
})

# ---- The vignette's toy, in a fresh R process, on two daemons ---------------------------

# The R code of the vignette section "Adding a benchmark", up to the next section.
adding_a_benchmark_code <- function(root) {
  lines <- readLines(file.path(root, "vignettes", "results.Rmd"), warn = FALSE)
  start <- grep("^## Adding a benchmark", lines)
  after <- grep("^## ", lines)
  end <- min(c(after[after > start], length(lines) + 1)) - 1
  section <- lines[start:end]
  code <- character()
  inside <- FALSE
  for (line in section) {
    if (!inside && grepl("^```\\{r", line)) inside <- TRUE
    else if (inside && grepl("^```\\s*$", line)) inside <- FALSE
    else if (inside) code <- c(code, line)
  }
  code
}

test_that("the vignette's toy, with library(predictivebench) only, runs by name on daemons(2) and is listed", {
  skip_on_cran()
  root <- skip_if_no_source_tree()
  skip_if_not_installed("callr")
  skip_if_not_installed("mirai")
  code <- adding_a_benchmark_code(root)
  expect_true(any(grepl("new_benchmark(", code, fixed = TRUE)))
  # the toy is an object, registered by the verb, the deprecated flat way nowhere
  expect_true(any(grepl("register_benchmark(toy)", code, fixed = TRUE)))
  expect_false(any(grepl("asNamespace|:::", code)))
  # The package as a user has it: installed (R CMD check, or a scratch library named in
  # PREDICTIVEBENCH_TEST_LIB), else this source tree's exports, as library() attaches them.
  lib <- Sys.getenv("PREDICTIVEBENCH_TEST_LIB")
  dev <- !nzchar(lib) && rlang::is_installed("pkgload") &&
    pkgload::is_dev_package("predictivebench")
  work <- withr::local_tempdir()
  out <- callr::r(function(code, root, dev, work) {
    # the daemons find the libraries this process has
    Sys.setenv(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep),
               R_USER_CACHE_DIR = file.path(work, "cache"),
               VITALS_LOG_DIR = file.path(work, "logs"))
    if (dev) {
      pkgload::load_all(root, export_all = FALSE, helpers = FALSE, quiet = TRUE)
    } else {
      library(predictivebench)
    }
    # the vignette's code, as a user runs it: at top level, in the global environment
    deprecated <- function(w) stop("the vignette's code is deprecated: ", conditionMessage(w))
    utils::capture.output(suppressMessages(withCallingHandlers(
      eval(parse(text = code), envir = globalenv()),
      predictivebench_warning_deprecated = deprecated)))
    here <- get("set", envir = globalenv())
    mirai::daemons(2)
    on.exit(mirai::daemons(0))
    if (dev) {
      mirai::everywhere(pkgload::load_all(root, export_all = FALSE, helpers = FALSE,
                                          quiet = TRUE), .args = list(root = root))[]
    }
    workers <- unlist(mirai::collect_mirai(mirai::mirai_map(1:4, function(i) {
      Sys.sleep(0.2)
      c(pid = Sys.getpid(), knows_toy = "toy" %in% predictivebench:::registered_benchmarks()$name)
    })))
    there <- suppressMessages(eval(bquote(
      eval_set("toy@sample", list(knows_all, no_colours), log_dir = .(file.path(work, "set")))
    ), envir = globalenv()))
    # the workers' logs read as the toy's: its board rows and its registered statistic
    board <- suppressMessages(leaderboard(file.path(work, "set")))
    cmp <- suppressMessages(compare_models(there$log_path[[1]], there$log_path[[2]],
                                           options = comparison_options(times = 50)))
    list(here = as.data.frame(here), there = as.data.frame(there), workers = workers,
         board = as.data.frame(board), cmp = as.data.frame(cmp),
         me = Sys.getpid(), versions = as.data.frame(benchmark_versions("toy")))
  }, args = list(code = code, root = root, dev = dev, work = work),
  libpath = c(if (nzchar(lib)) lib, .libPaths()))

  # the workers are other processes, and none knew the toy before its cells came
  expect_false(out$me %in% out$workers[names(out$workers) == "pid"])
  expect_true(all(out$workers[names(out$workers) == "knows_toy"] == 0))
  # in this process and on the daemons: the same cells, done, with the same headline
  expect_equal(out$here$status, c("done", "done"))
  expect_equal(out$there$status, c("done", "done"),
               info = paste(out$there$error, collapse = "; "))
  expect_equal(out$there$cell_id, out$here$cell_id)
  expect_equal(out$there$metric, c("overall", "overall"))
  expect_equal(out$there$headline, c(1, 4 / 6))
  expect_equal(out$there$headline, out$here$headline)
  expect_true(all(file.exists(out$there$log_path)))
  expect_equal(unique(out$board$benchmark), "toy")
  expect_setequal(out$board$metric, c("overall", "colours"))
  expect_equal(out$board$estimate[out$board$metric == "colours"][order(
    out$board$model[out$board$metric == "colours"])], c(1, 0))
  expect_equal(out$cmp$metric, "worst topic")
  expect_equal(c(out$cmp$x, out$cmp$y), c(1, 0))
  expect_equal(out$cmp$n_clusters, 3)
  # benchmark_versions() lists its sample
  expect_equal(out$versions$version, "sample")
  expect_equal(out$versions$items, 6L)
})

# ---- The vignette's toy against a server: the cache, the cost, the board of a new session ---

test_that("the vignette's toy is answered from the cache in a set, and is on the board of a new session", {
  skip_on_cran()
  root <- skip_if_no_source_tree()
  skip_if_not_installed("callr")
  code <- adding_a_benchmark_code(root)
  server <- local_fake_openai(function(body, n) {
    list(text = "Paris", usage = list(prompt_tokens = 9, completion_tokens = 1))
  })
  lib <- Sys.getenv("PREDICTIVEBENCH_TEST_LIB")
  dev <- !nzchar(lib) && rlang::is_installed("pkgload") &&
    pkgload::is_dev_package("predictivebench")
  libpath <- c(if (nzchar(lib)) lib, .libPaths())
  work <- withr::local_tempdir()
  load_package <- function(root, dev) {
    if (dev) {
      pkgload::load_all(root, export_all = FALSE, helpers = FALSE, quiet = TRUE)
    } else {
      library(predictivebench)
    }
  }
  # A user's session: the vignette's code, then a set of the toy on a served model.
  user_session <- function(code, root, dev, work, url, log_dir, load_package) {
    Sys.setenv(PREDICTIVEBENCH_CACHE_DIR = file.path(work, "cache"),
               VITALS_LOG_DIR = file.path(work, "logs"))
    load_package(root, dev)
    deprecated <- function(w) stop("the vignette's code is deprecated: ", conditionMessage(w))
    utils::capture.output(suppressMessages(withCallingHandlers(
      eval(parse(text = code), envir = globalenv()),
      predictivebench_warning_deprecated = deprecated)))
    chat <- ellmer::chat_openai_compatible(base_url = url, model = "toy-model",
                                           credentials = function() "sk-test-FAKEKEY-0123")
    set <- suppressMessages(eval_set("toy@sample", list(chat), log_dir = log_dir))
    list(set = as.data.frame(set), board = as.data.frame(suppressMessages(leaderboard(log_dir))))
  }
  args <- list(code = code, root = root, dev = dev, work = work, url = server$url,
               load_package = load_package)
  first <- callr::r(user_session, args = c(args, log_dir = file.path(work, "set-1")),
                    libpath = libpath)
  expect_equal(first$set$status, "done", info = first$set$error)
  expect_equal(server$count(), 6)
  # the model has no price: what the set paid is unknown, not 0
  expect_true(is.na(first$set$cost))
  # another session, a new folder: every answer comes from the cache
  second <- callr::r(user_session, args = c(args, log_dir = file.path(work, "set-2")),
                     libpath = libpath)
  expect_equal(second$set$status, "done", info = second$set$error)
  expect_equal(server$count(), 6)
  expect_equal(second$set$headline, first$set$headline)
  expect_equal(second$set$cost, 0)

  # A new session that only loads the package: the toy is not registered there, and its
  # logs are on the board from what they hold.
  fresh <- callr::r(function(root, dev, dir, load_package) {
    load_package(root, dev)
    warned <- character()
    board <- withCallingHandlers(
      suppressMessages(leaderboard(dir)),
      warning = function(w) {
        warned <<- c(warned, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    )
    list(registered = registered_benchmarks()$name, board = as.data.frame(board),
         warned = warned)
  }, args = list(root = root, dev = dev, dir = file.path(work, "set-1"),
                 load_package = load_package), libpath = libpath)
  expect_false("toy" %in% fresh$registered)
  expect_length(fresh$warned, 0)
  columns <- c("benchmark", "model", "metric", "estimate", "lower", "upper", "n", "interval",
               "better", "scale", "run", "source")
  expect_equal(fresh$board[columns], first$board[columns])
  expect_equal(fresh$board$metric, c("overall", "colours"))
  expect_equal(fresh$board$estimate[[1]], 1 / 6)
})
