# Downloads against a local server that misbehaves (helper-pinned-server.R): each limit ends
# the transfer with its own classed error, nothing unverified is cached, and the same call
# works once the server behaves.

three_questions <- c("What is 2 + 2?", "Name a colour.", "Why is the sky blue?")

# A Hugging Face file pinned with neither sha256 nor size (as ProcessBench `hf` is).
unpinned_arena_pins <- function(env = parent.frame()) {
  pins <- arena_pins(arena_fixture(env = env), host = "hf", sha256 = FALSE)
  pins$size <- NA_real_
  pins
}

test_that("a transfer that stalls ends with the stall's error, and nothing is kept", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "stall", times = -1)
  withr::local_options(predictivebench.download_stall = 1, predictivebench.download_tries = 2)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_deadline")
  expect_equal(err$limit, "stall")
  expect_match(conditionMessage(err), "stalled")
  expect_match(conditionMessage(err), "predictivebench.download_stall", fixed = TRUE)
  # a stall is retried like a dropped connection
  expect_equal(nrow(servers$gh$log()), 2)
  expect_length(kept_files(), 0)
  servers$gh$fault(fixture_url_path(pins), "stall", times = 0)
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
})

test_that("a transfer slower than its deadline ends with the deadline's error", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  # 20 pieces a second apart: never a stall, always past a 2 s deadline
  servers$gh$fault(fixture_url_path(pins), "slow", times = -1, delay = 1)
  withr::local_options(predictivebench.download_timeout = 2, predictivebench.download_stall = 60)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_deadline")
  expect_equal(err$limit, "deadline")
  expect_match(conditionMessage(err), "deadline of 2 s")
  # the deadline covers every try: one transfer used it up
  expect_equal(nrow(servers$gh$log()), 1)
  expect_length(kept_files(), 0)
})

test_that("the limits are checked where they are read", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  withr::local_options(predictivebench.download_timeout = -1)
  expect_error(arena_dataset(), "download_timeout", class = "predictivebench_error_argument")
  withr::local_options(predictivebench.download_timeout = NULL, predictivebench.download_stall = "a")
  expect_error(arena_dataset(), "download_stall", class = "predictivebench_error_argument")
  expect_equal(nrow(servers$gh$log()), 0)
})

test_that("Retry-After is honoured up to the request engine's cap; past it, an error says when", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "429", after = 86400)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_retry_later")
  expect_equal(err$retry_after, 86400)
  expect_s3_class(err$retry_at, "POSIXct")
  expect_match(conditionMessage(err), "Try again after 20")
  # the cap is the engine's own (retry_delay() in engine-pool.R reads retry_after_cap_s)
  cap <- retry_delay(list(retry_after = 86400), 1L, 0)
  expect_equal(cap, retry_after_cap_s)
  expect_match(conditionMessage(err), paste0("longer than the ", cap, " s"))
  # no second request: nothing slept a day
  expect_equal(nrow(servers$gh$log()), 1)
  expect_length(kept_files(), 0)

  # an HTTP date a century away is the same
  servers$gh$fault(fixture_url_path(pins), "429", after = "Wed, 21 Oct 2125 07:28:00 GMT")
  expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_retry_later")

  # lower the engine's cap to 2 s and downloads follow it: 3 s is refused, 1 s is waited
  local_replace_internal("retry_after_cap_s", 2)
  servers$gh$fault(fixture_url_path(pins), "429", after = 3)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_retry_later")
  expect_match(conditionMessage(err), "longer than the 2 s")
  servers$gh$fault(fixture_url_path(pins), "429", after = 1)
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
})

test_that("a server that keeps failing is given up after the tries, saying so", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "503", times = -1)
  withr::local_options(predictivebench.download_tries = 2)
  expect_error(suppressMessages(arena_dataset()), "Gave up after 2 tries",
               class = "predictivebench_error_download")
  expect_equal(nrow(servers$gh$log()), 2)
  expect_length(kept_files(), 0)
})

test_that("bytes beyond the pinned size stop the transfer at once, and nothing is cached", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  servers$gh$fault(fixture_url_path(pins), "endless", times = -1)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_checksum")
  expect_match(conditionMessage(err), "longer than its")
  # stopped within the first MiB the server pushed, not at the end of the body
  expect_lt(err$received, 2^21)
  expect_length(kept_files(), 0)
  expect_length(partial_files(), 0)
  # not retried: more of the same would not help
  expect_equal(nrow(servers$gh$log()), 1)
})

test_that("a file of unknown size stops at the limit for unknown sizes", {
  pins <- unpinned_arena_pins()
  servers <- local_pinned_servers(pins)
  servers$hf$fault(fixture_url_path(pins), "endless", times = 1)
  withr::local_options(predictivebench.download_max_bytes = 3e6)
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_checksum")
  expect_match(conditionMessage(err), "3,000,000 bytes")
  expect_gt(err$received, 3e6)
  expect_lt(err$received, 3e6 + 2^21)
  expect_length(kept_files(), 0)
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
})

test_that("an HTML page served with 200 for a file with no sha256 is refused, and nothing is recorded", {
  pins <- unpinned_arena_pins()
  servers <- local_pinned_servers(pins)
  servers$hf$fault(fixture_url_path(pins), "html")
  err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_html_page")
  expect_match(conditionMessage(err), "HTML page")
  expect_match(conditionMessage(err), "captive portal")
  expect_length(kept_files(), 0)
  # the network fixed, the same call works, and the real file's sha256 is recorded
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
  record <- jsonlite::read_json(file.path(datasets_dir(), "arena", "tiny", "sha256.json"))
  expect_equal(record[["data/tiny/questions.csv"]]$sha256, digest::digest(file = pins$local, algo = "sha256"))
})

test_that("a page that starts as HTML is recognised without its content type", {
  page <- withr::local_tempfile()
  writeBin(c(as.raw(c(0xef, 0xbb, 0xbf)), charToRaw("\n  <!doctype HTML>\n<p>login</p>")), page)
  expect_true(looks_like_html(page))
  writeLines(c(",question", "0,<html> tags in a question"), page)
  expect_false(looks_like_html(page))
  expect_false(looks_like_html(page, "text/csv"))
  expect_true(looks_like_html(page, "text/html; charset=utf-8"))
})

test_that("a file with no pinned sha256 counts only once the flattener accepted it", {
  pins <- unpinned_arena_pins()
  servers <- local_pinned_servers(pins)
  servers$hf$fault(fixture_url_path(pins), "garbage")
  expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error")
  # refused: the file is gone and no sha256 was recorded
  expect_length(kept_files(), 0)
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
  expect_equal(nrow(servers$hf$log()), 2)
  expect_true(file.exists(file.path(datasets_dir(), "arena", "tiny", "sha256.json")))
})

test_that("a file trusted on first use: its sha256 and size are recorded, a later copy that differs is refused", {
  pins <- unpinned_arena_pins()
  servers <- local_pinned_servers(pins)
  before <- benchmark_versions("arena")
  expect_equal(before$verified[before$version == "tiny"], "first use")
  expect_true(is.na(before$sha256[before$version == "tiny"]))
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
  record <- jsonlite::read_json(file.path(datasets_dir(), "arena", "tiny", "sha256.json"))
  entry <- record[["data/tiny/questions.csv"]]
  expect_equal(entry$sha256, digest::digest(file = pins$local, algo = "sha256"))
  expect_equal(entry$size, file.size(pins$local))
  after <- benchmark_versions("arena")
  expect_equal(after$sha256[after$version == "tiny"], entry$sha256)
  expect_equal(after$size[after$version == "tiny"], file.size(pins$local))
  # the cached file is gone; the server now sends other bytes: refused, nothing kept
  raw <- file.path(datasets_dir(), "arena", "tiny", "files", "data", "tiny", "questions.csv")
  expect_true(file.exists(raw))
  unlink(raw)
  servers$hf$fault(fixture_url_path(pins), "garbage")
  err <- expect_error(suppressMessages(fetch_benchmark("arena", "tiny")),
                      class = "predictivebench_error_checksum")
  expect_match(conditionMessage(err), "recorded")
  expect_match(conditionMessage(err), "trusted on first use")
  expect_false(file.exists(raw))
  # a cached copy changed on disk is refused the same way
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
  writeLines(c(",question", "0,x", "1,y", "2,z"), raw)
  err <- expect_error(suppressMessages(fetch_benchmark("arena", "tiny")),
                      class = "predictivebench_error_checksum")
  expect_match(conditionMessage(err), "recorded sha256")
})

test_that("a redirect to any scheme but http(s) is refused, and nothing is copied", {
  local_secret <- withr::local_tempfile(fileext = ".csv")
  writeLines(c(",question", "0,a local file that must not be copied"), local_secret)
  pins <- unpinned_arena_pins()
  servers <- local_pinned_servers(pins)
  for (to in c(paste0("file://", local_secret), "ftp://127.0.0.1/questions.csv",
               "gopher://127.0.0.1/x")) {
    servers$hf$fault(fixture_url_path(pins), "redirect", to = to)
    err <- expect_error(suppressMessages(arena_dataset()), class = "predictivebench_error_redirect")
    expect_match(conditionMessage(err), "only http and https")
    expect_length(kept_files(), 0)
  }
  expect_equal(suppressMessages(arena_dataset())$input, three_questions)
  # a mirror that is not http(s) is refused too, before any request
  withr::local_envvar(HF_ENDPOINT = "file:///etc")
  expect_error(suppressMessages(arena_dataset(version = "tiny")), NA)  # cached: no request
  unlink(datasets_dir(), recursive = TRUE)
  expect_error(suppressMessages(arena_dataset()), "only http and https",
               class = "predictivebench_error_download")
})

test_that("a mirror's password appears in no message, warning, error or printed output", {
  pins <- arena_pins(arena_fixture())
  servers <- local_pinned_servers(pins)
  secret_url <- sub("://", "://mirror-user:s3cret-pw@", servers$gh$url, fixed = TRUE)
  withr::local_envvar(PREDICTIVEBENCH_GITHUB_URL = secret_url)
  withr::local_options(predictivebench.download_tries = 1, predictivebench.download_stall = 1,
                       cli.progress_show_after = 0)
  shown <- character()
  run <- function(expr) {
    printed <- utils::capture.output(result <- withCallingHandlers(
      tryCatch(expr, error = function(e) e),
      message = function(m) {
        shown <<- c(shown, conditionMessage(m))
        invokeRestart("muffleMessage")
      },
      warning = function(w) {
        shown <<- c(shown, conditionMessage(w))
        invokeRestart("muffleWarning")
      }
    ))
    if (inherits(result, "error")) {
      shown <<- c(shown, conditionMessage(result), utils::capture.output(print(result)),
                  unlist(result$urls), unlist(result$file))
    }
    shown <<- c(shown, printed)
    invisible(result)
  }
  path <- fixture_url_path(pins)
  for (kind in c("500", "corrupt", "stall", "html")) {
    servers$gh$fault(path, kind)
    expect_s3_class(run(arena_dataset()), "predictivebench_error")
  }
  servers$gh$fault(path, "429", after = 86400)
  withr::with_options(list(predictivebench.download_tries = 2), {
    expect_s3_class(run(arena_dataset()), "predictivebench_error_retry_later")
  })
  servers$gh$fault(path, "redirect", to = "file:///etc/passwd")
  expect_s3_class(run(arena_dataset()), "predictivebench_error_redirect")
  withr::with_envvar(c(HF_HUB_OFFLINE = "1"), {
    expect_s3_class(run(arena_dataset()), "predictivebench_error_offline")
  })
  withr::with_envvar(c(PREDICTIVEBENCH_GITHUB_URL = "http://mirror-user:s3cret-pw@127.0.0.1:9"), {
    expect_s3_class(run(arena_dataset()), "predictivebench_error_offline")
  })
  expect_equal(run(arena_dataset())$input, three_questions)
  run(print(benchmark_versions("arena")))
  expect_gt(length(shown), 10)
  expect_false(any(grepl("s3cret", shown, fixed = TRUE)))
  # the addresses are still shown, with the password masked
  expect_true(any(grepl("mirror-user:****@", shown, fixed = TRUE)))
})

test_that("redact_url() masks the password or a lone token of every URL in a text", {
  expect_equal(redact_url("see http://u:p@h:1/x and https://tok@h/y, not mail@h"),
               "see http://u:****@h:1/x and https://****@h/y, not mail@h")
  expect_equal(redact_url("https://huggingface.co/datasets/x"), "https://huggingface.co/datasets/x")
})

test_that("ProcessBench hf (no sha256 pinned): a captive portal, then garbage, then the real split", {
  skip_if_no_python()
  split <- system.file("extdata", "processbench-sample.json", package = "predictivebench")
  pins <- fixture_pins("processbench", "hf", "hf", "Qwen/ProcessBench",
                       c("gsm8k.json" = split), role = "split", sha256 = FALSE)
  pins$size <- NA_real_
  servers <- local_pinned_servers(pins)
  record <- file.path(datasets_dir(), "processbench", "hf", "sha256.json")
  servers$hf$fault(fixture_url_path(pins), "html")
  expect_error(suppressMessages(processbench_dataset()), "HTML page",
               class = "predictivebench_error_html_page")
  expect_length(kept_files(), 0)
  # not HTML, but not a split either: the flattener refuses it, and it is not kept
  servers$hf$fault(fixture_url_path(pins), "garbage")
  expect_error(suppressMessages(processbench_dataset()), class = "predictivebench_error")
  expect_false(file.exists(record))
  expect_length(kept_files(), 0)
  # the network fixed: downloaded, accepted, recorded; the next call makes no request
  table <- suppressMessages(processbench_dataset())
  expect_equal(nrow(table), nrow(prepare_processbench(split)))
  expect_equal(jsonlite::read_json(record)[["gsm8k.json"]]$sha256, digest::digest(file = split, algo = "sha256"))
  expect_equal(suppressMessages(processbench_dataset()), table)
  expect_equal(nrow(servers$hf$log()), 3)
})
