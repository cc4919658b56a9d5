# The response cache: keys, the owned layout, bad entries, unwritable directories, and what
# survives a kill or a second process.

headers_chat <- function(server, headers = NULL, ...) {
  ellmer::chat_openai_compatible(base_url = server$url, model = "fake-model",
                                 credentials = function() "sk-test-FAKEKEY-0123456789",
                                 api_headers = headers %||% character(), ...)
}

all_cache_bytes <- function(dir) {
  files <- list.files(dir, recursive = TRUE, all.files = TRUE, full.names = TRUE)
  unlist(lapply(files, function(f) readBin(f, "raw", file.size(f))))
}

test_that("cache round trip; an unreadable entry is a miss with one warning naming it", {
  dir <- withr::local_tempdir()
  key <- cache_key("a", list(b = 1))
  expect_null(cache_get(dir, key))
  cache_set(dir, key, list(text = "hi"))
  expect_equal(cache_get(dir, key)$text, "hi")
  expect_true(file.exists(file.path(dir, "responses", substr(key, 1, 2), paste0(key, ".rds"))))
  writeLines("garbage", cache_path(dir, key))
  expect_warning(expect_null(cache_get(dir, key)), basename(cache_path(dir, key)),
                 class = "predictivebench_warning_cache_entry")
})

test_that("bad and foreign entries are misses, resent and rewritten, with ONE warning per call", {
  server <- local_fake_openai(function(body, n) paste("answer to", last_user_text(body)))
  dir <- withr::local_tempdir()
  prompts <- paste("q", 1:4)
  first <- generate_responses(fake_chat(server), prompts, cache = dir)
  files <- list.files(file.path(dir, "responses"), recursive = TRUE, full.names = TRUE)
  expect_length(files, 4)
  # a truncated file, an entry of the old layout (a bare record), and another version's
  raw <- readBin(files[[1]], "raw", file.size(files[[1]]))
  writeBin(raw[seq_len(20)], files[[1]])
  saveRDS(list(text = "stale", turn = NULL), files[[2]])
  entry <- readRDS(files[[3]])
  entry$version <- 99L
  saveRDS(entry, files[[3]])
  warnings <- list()
  again <- withCallingHandlers(
    generate_responses(fake_chat(server), prompts, cache = dir),
    warning = function(w) {
      warnings[[length(warnings) + 1]] <<- w
      invokeRestart("muffleWarning")
    }
  )
  expect_length(warnings, 1)
  expect_s3_class(warnings[[1]], "predictivebench_warning_cache_entry")
  expect_match(conditionMessage(warnings[[1]]), "3 cache entries")
  expect_match(conditionMessage(warnings[[1]]), "\\.rds")
  expect_equal(server$count(), 7)  # the 3 bad entries were sent again
  expect_equal(sum(again$cached), 1)
  expect_equal(again$result, first$result)
  # rewritten: a third run reads all four, silently
  expect_no_warning(third <- generate_responses(fake_chat(server), prompts, cache = dir))
  expect_true(all(third$cached))
})

test_that("cache keys depend on content, not on object identity", {
  expect_equal(cache_key(list(a = 1, b = "x")), cache_key(list(a = 1, b = "x")))
  expect_false(cache_key("a", 1) == cache_key("a", 2))
})

test_that("two chats differing only in api_headers never share answers, and no header value is written", {
  server <- local_fake_openai(function(body, n) paste("answer", n))
  dir <- withr::local_tempdir()
  eu <- generate_responses(headers_chat(server, c(`x-route` = "HEADER-VALUE-EU")), "q",
                           cache = dir)
  us <- generate_responses(headers_chat(server, c(`x-route` = "HEADER-VALUE-US")), "q",
                           cache = dir)
  expect_equal(server$count(), 2)
  expect_false(us$cached)
  expect_false(identical(eu$result, us$result))
  again <- generate_responses(headers_chat(server, c(`x-route` = "HEADER-VALUE-EU")), "q",
                              cache = dir)
  expect_true(again$cached)
  expect_equal(again$result, eu$result)
  bytes <- all_cache_bytes(dir)
  for (secret in c("HEADER-VALUE", "FAKEKEY", "x-route")) {
    expect_length(grepRaw(secret, bytes, fixed = TRUE), 0)
  }
})

test_that("the completions backend's keys cover header values too", {
  endpoint <- function(value) {
    list(base_url = "http://h/v1", model = "m", headers = c(`x-route` = value))
  }
  expect_false(completion_key(endpoint("eu"), "t", 0) == completion_key(endpoint("us"), "t", 0))
})

test_that("cache_clear() deletes only its own entries, and refuses a folder without the marker", {
  dir <- withr::local_tempdir()
  writeLines("mine", file.path(dir, "notes.txt"))
  saveRDS(1:3, file.path(dir, "model.rds"))  # a user's own file in the cache folder
  expect_error(cache_clear(dir), class = "predictivebench_error_cache")
  expect_true(file.exists(file.path(dir, "model.rds")))

  key <- cache_key("x")
  cache_prepare(dir)
  expect_true(file.exists(file.path(dir, "predictivebench-cache.json")))
  cache_set(dir, key, list(text = "x"))
  cache_set(dir, cache_key("y"), list(text = "y"))
  # things that are not entries, inside and outside responses/
  dir.create(file.path(dir, "responses", "mine"))
  saveRDS(1, file.path(dir, "responses", "mine", "keep.rds"))
  saveRDS(1, file.path(dir, "responses", substr(key, 1, 2), "keep.rds"))
  dir.create(file.path(dir, "batches"))
  writeLines("{}", file.path(dir, "batches", "batch-1.json"))
  dir.create(file.path(dir, "datasets", "futurex"), recursive = TRUE)
  saveRDS(1, file.path(dir, "datasets", "futurex", "data.rds"))
  # an entry of the old layout (before the marker) is neither read nor deleted
  dir.create(file.path(dir, "ab"))
  saveRDS(list(text = "old"), file.path(dir, "ab", paste0(strrep("ab", 32), ".rds")))

  expect_equal(cache_clear(dir), 2L)
  # the old layout's folders are named once, when the marker is first written
  fresh <- withr::local_tempdir()
  dir.create(file.path(fresh, "ab"))
  saveRDS(list(text = "old"), file.path(fresh, "ab", paste0(strrep("ab", 32), ".rds")))
  expect_message(cache_prepare(fresh), "ab", class = "predictivebench_message_old_cache")
  expect_no_message(cache_prepare(fresh))
  expect_true(file.exists(file.path(fresh, "ab", paste0(strrep("ab", 32), ".rds"))))
  expect_null(cache_get(dir, key))
  left <- list.files(dir, recursive = TRUE, all.files = TRUE)
  expect_setequal(left, c("notes.txt", "model.rds", "predictivebench-cache.json",
                          "responses/mine/keep.rds",
                          file.path("responses", substr(key, 1, 2), "keep.rds"),
                          "batches/batch-1.json", "datasets/futurex/data.rds",
                          file.path("ab", paste0(strrep("ab", 32), ".rds"))))
  expect_equal(cache_clear(dir), 0L)
  expect_equal(cache_clear(file.path(dir, "does-not-exist")), 0L)
})

test_that("a marker of another format or version is refused, not overwritten", {
  dir <- withr::local_tempdir()
  jsonlite::write_json(list(format = "predictivebench-cache", version = 99),
                       file.path(dir, "predictivebench-cache.json"), auto_unbox = TRUE)
  expect_error(cache_prepare(dir), class = "predictivebench_error_cache")
  expect_error(cache_clear(dir), class = "predictivebench_error_cache")
  expect_equal(jsonlite::read_json(file.path(dir, "predictivebench-cache.json"))$version, 99)
})

test_that("an unwritable cache is an error naming it before any request is sent", {
  server <- local_fake_openai(function(body, n) "paid answer")
  root <- withr::local_tempdir()
  # a path under a regular file can't be created, even by root
  blocker <- file.path(root, "a-file")
  writeLines("x", blocker)
  cache <- file.path(blocker, "cache")
  err <- expect_error(generate_responses(fake_chat(server), c("q1", "q2"), cache = cache),
                      class = "predictivebench_error_cache")
  expect_match(conditionMessage(err), "a-file/cache", fixed = TRUE)
  expect_equal(err$file, cache)
  expect_equal(server$count(), 0)
  # a vitals solver stops the same way, before sending
  tsk <- futurex_task(futurex_dataset(version = "sample"),
                      dir = withr::local_tempdir(), solver = futurex_solver(settings = request_settings(cache = cache)))
  expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
               class = "predictivebench_error_cache")
  expect_equal(server$count(), 0)
  # the log-probability backend too
  expect_error(query_logprobs(fake_chat(server), "A:", "yes",
                              settings = request_settings(cache = cache)),
               class = "predictivebench_error_cache")
  expect_equal(server$count(), 0)
})

test_that("an immutable cache directory (chattr +i, which stops root too) is found before paying", {
  skip_on_os(c("windows", "mac"))
  dir <- withr::local_tempdir()
  ok <- suppressWarnings(system2("chattr", c("+i", shQuote(dir)), stdout = FALSE,
                                 stderr = FALSE))
  skip_if(!identical(ok, 0L), "chattr +i is not available here")
  withr::defer(system2("chattr", c("-i", shQuote(dir))))
  server <- local_fake_openai(function(body, n) "paid answer")
  expect_error(generate_responses(fake_chat(server), "q", cache = dir),
               class = "predictivebench_error_cache")
  expect_equal(server$count(), 0)
})

test_that("a fully cached run needs no writable cache", {
  skip_on_os(c("windows", "mac"))
  server <- local_fake_openai(function(body, n) "answer")
  dir <- withr::local_tempdir()
  generate_responses(fake_chat(server), "q", cache = dir)
  # the probe only runs when something is to be sent: a read-only cache serves its answers
  frozen <- c(dir, file.path(dir, "responses"))
  ok <- suppressWarnings(system2("chattr", c("+i", shQuote(frozen)), stdout = FALSE,
                                 stderr = FALSE))
  skip_if(!identical(ok, 0L), "chattr +i is not available here")
  withr::defer(system2("chattr", c("-i", shQuote(frozen))))
  expect_true(generate_responses(fake_chat(server), "q", cache = dir)$cached)
  expect_error(generate_responses(fake_chat(server), "new", cache = dir),
               class = "predictivebench_error_cache")
  expect_equal(server$count(), 1)
})

test_that("a process SIGKILLed in the middle of writing an entry loses nothing already written", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(function(body, n) paste("answer to", last_user_text(body)))
  root <- withr::local_tempdir()
  cache <- file.path(root, "cache")
  flag <- file.path(root, "writing")
  prompts <- sprintf("item %02d", 1:12)
  child <- callr::r_bg(function(pkg, url, cache, flag, prompts) {
    pkgload::load_all(pkg, quiet = TRUE)
    ns <- asNamespace("predictivebench")
    original <- get("write_atomic", ns)
    entries <- 0
    # the 5th entry is killed half-written: its temporary file holds half the bytes
    slow <- function(path, writer, ...) {
      if (!grepl("[.]rds$", path)) return(original(path, writer, ...))
      entries <<- entries + 1
      if (entries < 5) return(original(path, writer, ...))
      original(path, ..., writer = function(tmp) {
        writer(tmp)
        bytes <- readBin(tmp, "raw", file.size(tmp))
        writeBin(bytes[seq_len(length(bytes) %/% 2)], tmp)
        writeLines("", flag)
        Sys.sleep(600)
      })
    }
    utils::assignInNamespace("write_atomic", slow, "predictivebench")
    chat <- ellmer::chat_openai_compatible(base_url = url, model = "fake-model",
                                           credentials = function() "sk-child")
    generate_responses(chat, prompts, cache = cache, max_active = 2)
  }, args = list(skip_if_no_source_tree(), server$url, cache, flag, prompts),
  stdout = tempfile(), stderr = tempfile())
  deadline <- Sys.time() + 90
  while (!file.exists(flag) && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.05)
  expect_true(file.exists(flag), info = paste(readLines(child$get_error_file()), collapse = "\n"))
  child$kill()
  child$wait(5000)
  paid <- server$count()
  entries <- list.files(file.path(cache, "responses"), pattern = "[.]rds$", recursive = TRUE)
  half <- list.files(file.path(cache, "responses"), pattern = "^[.]", recursive = TRUE,
                     all.files = TRUE)
  expect_length(entries, 4)
  expect_length(half, 1)  # the interrupted write is a temporary file, never an entry
  res <- expect_no_warning(generate_responses(fake_chat(server), prompts, cache = cache))
  expect_equal(sum(res$cached), 4)
  expect_equal(server$count() - paid, length(prompts) - 4)  # only the missing are resent
  expect_equal(res$result, paste("answer to", prompts))
  # cache_clear() takes the leftover too, and counts only entries
  expect_equal(cache_clear(cache), length(prompts))
  expect_length(list.files(file.path(cache, "responses"), all.files = TRUE, recursive = TRUE), 0)
})

test_that("cache_dir honours FALSE, a path, the option and the env var", {
  expect_null(cache_dir(FALSE))
  expect_equal(cache_dir("x"), "x")
  withr::with_options(list(predictivebench.cache_dir = "opt"), expect_equal(cache_dir(), "opt"))
  withr::with_envvar(c(PREDICTIVEBENCH_CACHE_DIR = "env"), expect_equal(cache_dir(), "env"))
  expect_error(cache_dir(1), class = "predictivebench_error_argument")
})

test_that("cache_clear() of a cache with no entries clears nothing and says 0", {
  dir <- withr::local_tempdir()
  cache_prepare(dir)
  expect_equal(cache_clear(dir), 0L)
  expect_true(file.exists(file.path(dir, "predictivebench-cache.json")))
})

# The futurex sample (11 questions) solved at `server` with the cache at `cache`, one request
# at a time, logging to `logs`.
cache_disk_task <- function(server, cache, logs) {
  settings <- request_settings(cache = cache, max_active = 1)
  futurex_task(futurex_dataset(version = "sample"), solver = futurex_solver(settings = settings),
               dir = logs)
}

# Every file under the cache's responses/ is a whole entry: a regular file readRDS() reads as one.
expect_whole_entries <- function(cache) {
  files <- list.files(file.path(cache, "responses"), recursive = TRUE, full.names = TRUE,
                      all.files = TRUE)
  for (f in files) {
    expect_false(nzchar(Sys.readlink(f)), label = paste(f, "is a link"))
    entry <- tryCatch(readRDS(f), error = function(e) NULL)
    expect_identical(entry$format, "predictivebench-cache", label = paste(f, "whole"))
  }
  length(files)
}

test_that("a full disk under the cache leaves no cut entry in place, and says what the cache holds", {
  skip_if_not(file.exists("/dev/full"), "needs Linux's /dev/full")
  server <- local_fake_openai(function(body, n) strrep("\\boxed{A} ", 50))
  root <- withr::local_tempdir()
  cache <- file.path(root, "cache")
  logs <- file.path(root, "logs")
  # after 5 entries the disk is full: each later entry's temporary file is Linux's /dev/full,
  # which answers every write with "No space left on device"
  device <- file.path(withr::local_tempdir(), "full")
  own_temp_file <- cache_temp_file
  written <- 0
  full_disk <- function(path) {
    written <<- written + 1
    if (written <= 5) return(own_temp_file(path))
    unlink(device)
    file.symlink("/dev/full", device)
    device
  }
  local({
    local_replace_internal("cache_temp_file", full_disk)
    err <- tryCatch(suppressMessages(cache_disk_task(server, cache, logs)$eval(view = FALSE,
                      solver_chat = fake_chat(server))), error = identity)
    expect_s3_class(err, "predictivebench_error_disk")
    expect_match(conditionMessage(err), "is full", fixed = TRUE)
    expect_match(conditionMessage(err), basename(cache), fixed = TRUE)
    expect_match(conditionMessage(err), "No space left on device", fixed = TRUE)
  })
  expect_equal(expect_whole_entries(cache), 5)
  # with room again, the rerun pays only what the cache does not hold, and writes its log
  paid <- server$count()
  tsk <- cache_disk_task(server, cache, logs)
  suppressMessages(tsk$eval(view = FALSE, solver_chat = fake_chat(server)))
  expect_equal(server$count() - paid, 11 - 5)
  expect_equal(nrow(tsk$get_samples()), 11)
  expect_length(list.files(logs, pattern = "[.]json$"), 1)
})

test_that("a real small disk that fills under the cache leaves only whole entries", {
  skip_on_cran()
  skip_on_os(c("windows", "mac"))
  disk <- withr::local_tempdir()
  # a 64 KiB tmpfs, where the system lets this process mount one (root with CAP_SYS_ADMIN)
  mounted <- suppressWarnings(system2("mount", c("-t", "tmpfs", "-o", "size=64k", "tmpfs",
                                                 disk), stdout = FALSE, stderr = FALSE))
  skip_if(!identical(mounted, 0L), "can't mount a small tmpfs here")
  withr::defer(system2("umount", disk))
  server <- local_fake_openai(function(body, n) {
    paste(sample(c(letters, " "), 6000, replace = TRUE), collapse = "")
  })
  cache <- file.path(disk, "cache")
  logs <- file.path(disk, "logs")
  err <- tryCatch(suppressMessages(cache_disk_task(server, cache, logs)$eval(view = FALSE,
                    solver_chat = fake_chat(server))), error = identity)
  expect_s3_class(err, "predictivebench_error_disk")
  expect_match(conditionMessage(err), "is full", fixed = TRUE)
  kept <- expect_whole_entries(cache)
  expect_gt(kept, 0)
  expect_lt(kept, 11)
  # nothing half-written is left beside the entries either
  expect_length(list.files(cache, pattern = "^[.]", recursive = TRUE, all.files = TRUE), 0)
})

test_that("a cache_clear() from another session while a run writes: the run goes on and writes its log", {
  skip_on_cran()
  skip_on_os("windows")
  server <- local_fake_openai(function(body, n) "\\boxed{A}", latency = 0.2)
  root <- withr::local_tempdir()
  cache <- file.path(root, "cache")
  logs <- file.path(root, "logs")
  writing <- file.path(root, "writing")
  cleared <- file.path(root, "cleared")
  # the run, in a process of its own, against a slow server; its 3rd entry waits, written but
  # not yet renamed into place, until this session has cleared the cache
  child <- callr::r_bg(function(pkg, url, cache, logs, writing, cleared) {
    pkgload::load_all(pkg, quiet = TRUE)
    ns <- asNamespace("predictivebench")
    original <- get("write_atomic", ns)
    entries <- 0
    paused <- function(path, writer, ...) {
      if (!grepl("[.]rds$", path)) return(original(path, writer, ...))
      entries <<- entries + 1
      if (entries != 3) return(original(path, writer, ...))
      original(path, ..., writer = function(tmp) {
        writer(tmp)
        writeLines("", writing)
        deadline <- Sys.time() + 60
        while (!file.exists(cleared) && Sys.time() < deadline) Sys.sleep(0.05)
      })
    }
    utils::assignInNamespace("write_atomic", paused, "predictivebench")
    chat <- ellmer::chat_openai_compatible(base_url = url, model = "fake-model",
                                           credentials = function() "sk-child")
    settings <- request_settings(cache = cache, max_active = 2)
    tsk <- futurex_task(futurex_dataset(version = "sample"),
                        solver = futurex_solver(settings = settings), dir = logs)
    out <- tryCatch(suppressWarnings(suppressMessages(tsk$eval(solver_chat = chat, view = FALSE))),
                    error = function(e) conditionMessage(e))
    list(error = if (is.character(out)) out, samples = nrow(tsk$get_samples()))
  }, args = list(skip_if_no_source_tree(), server$url, cache, logs, writing, cleared))
  deadline <- Sys.time() + 90
  while (!file.exists(writing) && child$is_alive() && Sys.time() < deadline) Sys.sleep(0.05)
  expect_true(file.exists(writing))
  # this session clears the cache: the two entries in place, and the one being written
  expect_equal(cache_clear(cache), 2L)
  writeLines("", cleared)
  child$wait(60000)
  run <- child$get_result()
  expect_null(run$error)
  expect_equal(run$samples, 11)
  log <- list.files(logs, pattern = "[.]json$", full.names = TRUE)
  expect_length(log, 1)
  expect_equal(length(jsonlite::read_json(log)$samples), 11)
  # what the clear took is sent again by the next run, and only that
  paid <- server$count()
  tsk <- futurex_task(futurex_dataset(version = "sample"),
                      solver = futurex_solver(settings = request_settings(cache = cache)),
                      dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_equal(server$count() - paid, 2)
})

test_that("an entry that can't be put in place twice is left out with a warning; the answer is kept", {
  server <- local_fake_openai(function(body, n) "kept")
  cache <- withr::local_tempdir()
  # its temporary file is somewhere that vanished (a folder another session deleted)
  local_replace_internal("cache_temp_file", function(path) file.path(cache, "gone", "tmp"))
  expect_warning(res <- generate_responses(fake_chat(server), "q", cache = cache),
                 "cannot open file", class = "predictivebench_warning_cache_write")
  expect_equal(res$result, "kept")
  expect_length(list.files(file.path(cache, "responses"), recursive = TRUE), 0)
})
