# Downloads against local stand-ins for GitHub and Hugging Face (helper-pinned-server.R).

# After `times` faults of `kind`, the file still arrives; the server has seen `total` requests.
expect_recovers <- function(servers, pins, kind, times, total) {
  servers$gh$fault(fixture_url_path(pins), kind, times = times)
  expect_equal(nrow(suppressMessages(arena_dataset())), 3)
  expect_equal(nrow(servers$gh$log()), total)
}

test_that("the first call downloads and prepares, the second makes no request", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  expect_message(first <- arena_dataset(), "Licence: test licence")
  expect_equal(first$input, c("What is 2 + 2?", "Name a colour.", "Why is the sky blue?"))
  expect_equal(nrow(servers$gh$log()), 1)
  listed <- benchmark_versions("arena")
  expect_true(listed$cached[listed$version == "tiny"])
  expect_no_message(second <- arena_dataset())
  expect_equal(second, first)
  expect_equal(nrow(servers$gh$log()), 1)
  expect_equal(nrow(servers$hf$log()), 0)
  # the prepared table is cached beside the raw file
  expect_length(Sys.glob(file.path(datasets_dir(), "arena", "tiny", "table-*.parquet")), 1)
})

test_that("a corrupted byte is an error naming the file, and nothing is kept", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "corrupt")
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_checksum")
  expect_match(conditionMessage(err), "questions.csv")
  expect_match(conditionMessage(err), "sha256")
  expect_length(kept_files(), 0)
  # the next call downloads again and succeeds
  expect_equal(nrow(suppressMessages(arena_dataset())), 3)
})

test_that("a wrong size is refused before the checksum, and nothing is kept", {
  pins <- arena_pins(arena_fixture())
  pins$size <- pins$size + 1
  local_pinned_servers(pins)
  expect_error(suppressMessages(arena_dataset()), "bytes", class = "predictivebench_error_checksum")
  expect_length(kept_files(), 0)
})

test_that("an interrupted transfer leaves no partial file and is retried", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "truncate", times = -1)
  withr::local_options(predictivebench.download_tries = 2)
  expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_offline")
  expect_equal(nrow(servers$gh$log()), 2)
  expect_length(kept_files(), 0)
  # one broken transfer, then the whole file
  expect_recovers(servers, pins, "truncate", times = 1, total = 4)
})

test_that("429, 408, 500 and 503 are retried, waiting as Retry-After says", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  waits <- numeric()
  real_after <- download_retry_after
  local_replace_internal("download_retry_after", function(resp) {
    waits <<- c(waits, real_after(resp))
    utils::tail(waits, 1)
  })
  expect_recovers(servers, pins, "429", times = 1, total = 2)
  expect_equal(waits, 1)
  unlink(datasets_dir(), recursive = TRUE)
  expect_recovers(servers, pins, "500", times = 2, total = 5)
  unlink(datasets_dir(), recursive = TRUE)
  expect_recovers(servers, pins, "408", times = 1, total = 7)
  unlink(datasets_dir(), recursive = TRUE)
  expect_recovers(servers, pins, "503", times = 1, total = 9)
})

test_that("offline, a missing file is an error listing the URL and where to save it", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  withr::local_envvar(HF_HUB_OFFLINE = "1")
  err <- expect_error(arena_dataset(), class = "predictivebench_error_offline")
  dest <- file.path(datasets_dir(), "arena", "tiny", "files", "data", "tiny", "questions.csv")
  expect_equal(err$urls, paste0(servers$gh$url, fixture_url_path(pins)))
  expect_equal(err$paths, dest)
  expect_match(conditionMessage(err), "questions.csv", fixed = TRUE)
  expect_match(conditionMessage(err), 'arena_dataset(version = "tiny")', fixed = TRUE)
  expect_equal(nrow(servers$gh$log()), 0)
  # a manual download saved there is verified and used, still offline
  dir.create(dirname(dest), recursive = TRUE)
  file.copy(pins$local, dest)
  expect_equal(nrow(suppressMessages(arena_dataset())), 3)
  expect_equal(nrow(servers$gh$log()), 0)
  # and a wrong file saved there is refused and removed
  unlink(file.path(datasets_dir(), "arena", "tiny", "table-*.parquet"))
  unlink(Sys.glob(file.path(datasets_dir(), "arena", "tiny", "table-*.parquet")))
  writeLines("question\nsomething else", dest)
  expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_checksum")
  expect_false(file.exists(dest))
})

test_that("an unreachable server is the offline error too", {
  pins <- arena_pins(arena_fixture())
  local_pinned_servers(pins)
  withr::local_envvar(PREDICTIVEBENCH_GITHUB_URL = "http://127.0.0.1:9")
  withr::local_options(predictivebench.download_tries = 1)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_offline")
  expect_match(conditionMessage(err), "127.0.0.1:9", fixed = TRUE)
})

test_that("HF_TOKEN goes to Hugging Face only, and not across a redirect", {
  gh_file <- arena_fixture()
  hf_file <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("question", "From the Hub?"), hf_file)
  pins <- rbind(
    arena_pins(gh_file),
    fixture_pins("arena", "hub", "hf", "someone/questions", c("questions.csv" = hf_file),
                 default = FALSE, items = 1),
    fixture_pins("arena", "lfs", "hf", "someone/questions", c("big/questions.csv" = gh_file),
                 default = FALSE, items = 1, sha256 = FALSE)
  )
  servers <- local_pinned_servers(pins)
  withr::local_envvar(HF_TOKEN = "hf_secret")
  suppressMessages(arena_dataset())
  suppressMessages(arena_dataset(version = "hub"))
  expect_equal(servers$gh$log()$authorization, "")
  expect_equal(servers$hf$log()$authorization, "Bearer hf_secret")

  # Hugging Face sends a Git LFS file from another origin: the token stays behind, and the
  # X-Linked-Etag sha256 is checked.
  lfs <- pins[pins$version == "lfs", ]
  servers$hf$fault(fixture_url_path(lfs), "redirect", times = -1,
                   to = paste0(servers$gh$url, fixture_url_path(pins[1, ])),
                   etag = digest::digest(file = gh_file, algo = "sha256"))
  expect_equal(suppressMessages(arena_dataset(version = "lfs"))$input,
               c("What is 2 + 2?", "Name a colour.", "Why is the sky blue?"))
  expect_equal(utils::tail(servers$gh$log()$authorization, 1), "")
  expect_equal(utils::tail(servers$hf$log()$authorization, 1), "Bearer hf_secret")
  # no sha256 pinned: the first download's is recorded and checked on every later use
  record <- jsonlite::read_json(file.path(datasets_dir(), "arena", "lfs", "sha256.json"))
  expect_equal(record[["big/questions.csv"]]$sha256, digest::digest(file = gh_file, algo = "sha256"))
  expect_equal(record[["big/questions.csv"]]$size, file.size(gh_file))
})

test_that("X-Linked-Etag that disagrees with the bytes is a checksum error", {
  file <- arena_fixture()
  pins <- fixture_pins("arena", "lfs", "hf", "someone/questions", c("q.csv" = file),
                       items = 3, sha256 = FALSE)
  servers <- local_pinned_servers(pins)
  servers$hf$fault(fixture_url_path(pins), "redirect", times = -1, to = "/elsewhere",
                   etag = strrep("0", 64))
  expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_download")
})

test_that("pinned paths and versions are checked", {
  pins <- arena_pins(arena_fixture())
  local_pinned_servers(pins)
  expect_error(arena_dataset(version = "nope"), "not a version", class = "predictivebench_error_argument")
  expect_error(futurex_dataset("x.parquet", version = "250915"), class = "predictivebench_error_argument")
  bad <- pins
  bad$path <- "../../escape.csv"
  withr::local_options(predictivebench.versions = bad)
  expect_error(arena_dataset(), class = "predictivebench_error_path")
})

test_that("zip entries can't escape their folder", {
  skip_if(!nzchar(Sys.which("zip")), "no zip program to build the archive")
  dir <- withr::local_tempdir()
  withr::with_dir(dir, {
    dir.create("inner")
    writeLines("x", "evil.txt")
    utils::zip("ok.zip", "inner", flags = "-qr")
  })
  bad <- file.path(dir, "bad.zip")
  # an entry named ../evil.txt
  withr::with_dir(file.path(dir, "inner"), utils::zip(bad, "../evil.txt", flags = "-q"))
  out <- withr::local_tempdir()
  expect_error(unzip_safely(bad, out), class = "predictivebench_error_path")
  expect_length(list.files(out), 0)
  expect_false(file.exists(file.path(dirname(out), "evil.txt")))
})
