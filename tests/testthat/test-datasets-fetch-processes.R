# Downloads across processes: child R sessions (callr) load this package and call
# arena_dataset() against the local servers of helper-pinned-server.R.

# A child R session that points at `servers` and the current datasets cache, waits for the
# file `go` (after creating `ready`) when given, then returns arena_dataset() as a data frame.
start_child_fetch <- function(pins, servers, ready = NULL, go = NULL) {
  callr::r_bg(
    function(root, pins, dir, gh, hf, ready, go) {
      # the checkout when there is one, else the installed package (R CMD check)
      if (is.null(root)) library(predictivebench) else
        suppressMessages(pkgload::load_all(root, quiet = TRUE, helpers = FALSE))
      options(predictivebench.versions = pins, predictivebench.datasets_dir = dir,
              predictivebench.download_backoff = 0)
      Sys.setenv(HF_ENDPOINT = hf, PREDICTIVEBENCH_GITHUB_URL = gh)
      Sys.unsetenv(c("HF_HUB_OFFLINE", "HF_TOKEN"))
      if (!is.null(ready)) {
        file.create(ready)
        while (!file.exists(go)) Sys.sleep(0.02)
      }
      as.data.frame(suppressMessages(arena_dataset()))
    },
    args = list(root = source_tree(), pins = pins,
                dir = datasets_dir(), gh = servers$gh$url, hf = servers$hf$url,
                ready = ready, go = go),
    supervise = TRUE
  )
}

# Waits until `condition()` holds; a guard against a hung child, not a timing assertion.
wait_until <- function(condition, what, limit = 180) {
  started <- Sys.time()
  while (!condition()) {
    if (difftime(Sys.time(), started, units = "secs") > limit) {
      stop("Gave up waiting for ", what)
    }
    Sys.sleep(0.05)
  }
}

test_that("a transfer killed with SIGKILL leaves a partial file that the next call removes", {
  skip_on_os("windows")
  pins <- arena_pins(arena_fixture(n = 2000))
  servers <- local_pinned_servers(pins)
  # 20 pieces a second apart: the child is killed mid-transfer
  servers$gh$fault(fixture_url_path(pins), "slow", times = 1, delay = 1)
  child <- start_child_fetch(pins, servers)
  withr::defer(child$kill())
  # bytes on disk: the transfer is under way
  wait_until(function() {
    partial <- partial_files()
    (length(partial) > 0 && isTRUE(file.size(partial[[1]]) > 0)) || !child$is_alive()
  }, "a partial file with bytes in it")
  expect_true(child$is_alive())
  child$signal(tools::SIGKILL)
  child$wait()
  left <- partial_files()
  expect_length(left, 1)
  # a name only the package makes
  expect_match(basename(left), "^[.]predictivebench-partial_")
  expect_false(file.exists(file.path(datasets_dir(), "arena", "tiny", "files", "data", "tiny",
                                     "questions.csv")))

  table <- suppressMessages(arena_dataset())
  expect_equal(nrow(table), 2000)
  expect_length(partial_files(), 0)
  expect_false(file.exists(left))
  expect_equal(nrow(servers$gh$log()), 2)
})

test_that("processes making the first call at once wait on one lock and read one table", {
  skip_on_os("windows")
  pins <- arena_pins(arena_fixture(n = 50))
  servers <- local_pinned_servers(pins)
  # a two-second transfer: the second process arrives while the first one downloads
  servers$gh$fault(fixture_url_path(pins), "slow", times = -1, delay = 0.1)
  sync <- withr::local_tempdir()
  go <- file.path(sync, "go")
  ready <- file.path(sync, c("ready-1", "ready-2"))
  children <- lapply(ready, function(r) start_child_fetch(pins, servers, ready = r, go = go))
  withr::defer(for (child in children) child$kill())
  wait_until(function() all(file.exists(ready)) || !all(vapply(children, function(p) p$is_alive(), TRUE)),
             "both children")
  file.create(go)
  for (child in children) child$wait(timeout = 180000)
  results <- lapply(children, function(p) p$get_result())
  expect_equal(results[[1]], results[[2]])
  expect_equal(nrow(results[[1]]), 50)
  expect_equal(results[[1]]$input[1:3], c("What is 2 + 2?", "Name a colour.", "Why is the sky blue?"))
  # one download, one prepared table, no partial file
  expect_equal(nrow(servers$gh$log()), 1)
  expect_length(Sys.glob(file.path(datasets_dir(), "arena", "tiny", "table-*.parquet")), 1)
  expect_length(partial_files(), 0)
  expect_equal(as.data.frame(arena_dataset()), results[[1]])
})
