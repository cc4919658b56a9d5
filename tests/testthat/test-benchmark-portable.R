# A registration that travels to mirai daemons (R/benchmark-portable.R), and the vignette's
# `toy`, registered with library(predictivebench) only, run by name on mirai::daemons(2).

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

test_that("a worker installs the registrations its cells bring, and puts back its own", {
  toy <- data.frame(id = "a", input = "x", target = "y")
  schema <- data.frame(name = c("id", "input", "target"), type = "string")
  new_benchmark("pbt-ship", identity, sample = toy, schema = schema)
  shipped <- portable_registration("pbt-ship")
  unregister_benchmark("pbt-ship")
  replaced <- portable_registration("futurex")
  replaced$headline <- "level 1"
  run <- function() {
    local_registrations(list(shipped, replaced, shipped, NULL))
    c(registration("pbt-ship")$name, registration("futurex")$headline)
  }
  expect_equal(run(), c("pbt-ship", "level 1"))
  expect_null(registration("pbt-ship"))
  expect_equal(registration("futurex")$headline[[1]], "overall")
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
    utils::capture.output(suppressMessages(eval(parse(text = code), envir = globalenv())))
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
    utils::capture.output(suppressMessages(eval(parse(text = code), envir = globalenv())))
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
