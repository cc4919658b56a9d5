# The log written as the run goes (log_writer()): samples appended to a hidden part file as
# they finish, the header written at the end, the finished file moved into place.

writer_sample <- function(i, text = paste("question", i)) {
  list(id = paste0("s", i), epoch = 1L, input = text, target = "A",
       messages = list(list(role = "user", content = text, source = "input")),
       metadata = list(note = paste0("line one\nline \"two\" of ", i)), store = NULL)
}

writer_header <- function(n) {
  list(version = 2L, status = "success",
       eval = list(created = "2026-01-02T03:04:05.123456+00:00", task_id = "bench/model/abc",
                   dataset = list(samples = n)),
       results = list(total_samples = n, completed_samples = n),
       stats = list(started_at = "2026-01-02T03:04:05.123456+00:00",
                    completed_at = "2026-01-02T03:04:07.5+00:00"))
}

json_files <- function(dir) list.files(dir, pattern = "\\.json$", all.files = TRUE)

test_that("a log written in pieces: an unfinished log is never a *.json, the finished one is whole", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", created = "2026-01-02T03:04:05.123456+00:00")
  log_writer_add(w, lapply(1:3, writer_sample))
  # until finished: one hidden part file (and its lock), nothing a log list would read
  expect_length(json_files(dir), 0)
  expect_true(file.exists(w$part))
  expect_match(basename(w$part), "^\\..*\\.json\\.part$")
  # each sample is one compact line of JSON, written at once, the array's commas with them
  lines <- readLines(w$part, encoding = "UTF-8", warn = FALSE)
  expect_equal(lines[[1]], "")
  expect_length(lines, 4)
  expect_equal(substring(lines[2:4], nchar(lines[2:4])), c(",", ",", "}"))
  expect_equal(jsonlite::parse_json(sub(",$", "", lines[[3]]))$metadata$note,
               "line one\nline \"two\" of 2")
  log_writer_add(w, list())
  log_writer_add(w, lapply(4:5, writer_sample))
  path <- log_writer_finish(w, writer_header(5))
  expect_equal(basename(path), log_file_name("2026-01-02T03:04:05.123456+00:00", "bench/model/abc"))
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(path))
  log <- jsonlite::read_json(path)
  expect_equal(vapply(log$samples, function(s) s$id, ""), paste0("s", 1:5))
  expect_equal(log$samples[[1]]$store, setNames(list(), character()))
  expect_equal(log$results$total_samples, 5)
  # vitals' header reader finds the samples' key at two spaces
  expect_true(grepl("\n  \"samples\": [\n", read_text(path), fixed = TRUE))
  expect_equal(read_log_header(path)$eval$task_id, "bench/model/abc")
  expect_null(read_log_header(path)$samples)
  expect_error(log_writer_add(w, list(writer_sample(6))), class = "predictivebench_error_argument")
})

test_that("a log written in a C locale keeps its text's characters", {
  withr::local_locale(c(LC_CTYPE = "C"))
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", created = "2026-01-02T03:04:05.123456+00:00")
  sample <- writer_sample(1)
  sample$metadata$note <- "Kimi\u3001Shutterstock \u2013 caf\u00e9"
  log_writer_add(w, list(sample))
  header <- writer_header(1)
  header$eval$task <- "t\u00e2che"
  path <- log_writer_finish(w, header)
  log <- jsonlite::read_json(path)
  expect_identical(log$samples[[1]]$metadata$note, sample$metadata$note)
  expect_identical(log$eval$task, "t\u00e2che")
  expect_false(grepl("<e3>", read_text(path), fixed = TRUE))
})

test_that("a log without samples is valid, and write_log() of a whole log is the writer's text", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc", created = "2026-01-02T03:04:05+00:00")
  path <- log_writer_finish(w, writer_header(0))
  expect_length(jsonlite::read_json(path)$samples, 0)
  log <- writer_header(2)
  log$samples <- lapply(1:2, writer_sample)
  whole <- write_log(log, withr::local_tempdir())
  w <- log_writer(dir, "bench/model/abc", created = log$eval$created)
  log_writer_add(w, log$samples[1])
  log_writer_add(w, log$samples[2])
  pieces <- log_writer_finish(w, writer_header(2))
  expect_identical(read_text(whole), read_text(pieces))
})

test_that("an abandoned log leaves nothing; a writer can't write twice to one log", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc")
  log_writer_add(w, list(writer_sample(1)))
  expect_error(log_writer(dir, "bench/model/abc", created = w$created),
               class = "predictivebench_error_lock")
  # another process: the source tree's code, or the installed package's (R CMD check)
  expect_true(callr::r(function(root, created) {
    if (is.null(root)) loadNamespace("predictivebench") else pkgload::load_all(root, quiet = TRUE)
    tryCatch({
      predictivebench:::log_writer(dirname(created[[2]]), "bench/model/abc",
                                   created = created[[1]])
      FALSE
    }, predictivebench_error_lock = function(e) TRUE)
  }, list(source_tree(), list(w$created, w$part))))
  log_writer_abandon(w)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
  expect_error(log_writer_finish(w, writer_header(1)), class = "predictivebench_error_argument")
})

test_that("a folder that can't hold the log is a classed error naming it, before anything is written", {
  file <- withr::local_tempfile()
  writeLines("x", file)
  err <- expect_error(log_writer(file, "bench/model/abc"), class = "predictivebench_error_log_dir")
  expect_equal(err$file, file)
  expect_match(conditionMessage(err), "is a file")
  # a folder that can't be made (under a file)
  err <- expect_error(log_writer(file.path(file, "logs"), "bench/model/abc"),
                      class = "predictivebench_error_log_dir")
  expect_equal(err$file, file.path(file, "logs"))
  # a missing folder is made
  dir <- file.path(withr::local_tempdir(), "a", "b")
  w <- log_writer(dir, "bench/model/abc")
  expect_true(dir.exists(dir))
  log_writer_abandon(w)
  skip_if(identical(unname(Sys.info()[["effective_user"]]), "root"),
          "root can write in any folder")
  locked <- withr::local_tempdir()
  Sys.chmod(locked, "0555")
  withr::defer(Sys.chmod(locked, "0755"))
  expect_error(log_writer(locked, "bench/model/abc"), class = "predictivebench_error_log_dir")
})

test_that("a full disk is a classed error naming the folder, and no log is moved into place", {
  skip_if_not(file.exists("/dev/full"), "needs Linux's /dev/full")
  dir <- withr::local_tempdir()
  # the part file on a full disk: appending a sample fails
  w <- log_writer(dir, "bench/model/abc")
  unlink(w$part)
  file.symlink("/dev/full", w$part)
  err <- expect_error(log_writer_add(w, lapply(1:3, writer_sample)),
                      class = "predictivebench_error_disk")
  expect_equal(err$file, dir)
  expect_match(conditionMessage(err), "full")
  log_writer_abandon(w)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
  # the finished log's temporary file on a full disk: large and small writes
  full <- file.path(dir, ".full")
  local_replace_internal("log_temp_file", function(path) full)
  for (n in c(1, 2000)) {
    w <- log_writer(dir, "bench/model/abc")
    log_writer_add(w, lapply(seq_len(n), writer_sample))
    file.symlink("/dev/full", full)
    err <- expect_error(log_writer_finish(w, writer_header(n)), class = "predictivebench_error_disk")
    expect_equal(err$file, dir)
    expect_match(conditionMessage(err), "disk holding .* is full")
    expect_length(json_files(dir), 0)
    log_writer_abandon(w)
    unlink(full)
  }
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
})

test_that("a rerun removes a crashed run's part files of its task, and only those", {
  dir <- withr::local_tempdir()
  crashed <- file.path(dir, part_file_name(log_file_name("2026-01-01T00:00:00+00:00",
                                                          "bench/model/abc")))
  # an earlier run of the same task and model has another run hash: its part is stale too
  earlier <- file.path(dir, part_file_name(log_file_name("2025-12-31T00:00:00+00:00",
                                                          "bench/model/0f1e2d")))
  # another model's (even one whose name starts alike) and another task's are not
  other <- file.path(dir, part_file_name(log_file_name("2026-01-01T00:00:00+00:00",
                                                        "bench/model2/abc")))
  other_task <- file.path(dir, part_file_name(log_file_name("2026-01-01T00:00:00+00:00",
                                                             "benchx/model/abc")))
  # a kill while the finished log was copied leaves its temporary file
  copying <- file.path(dir, paste0(".", log_file_name("2026-01-01T00:00:00+00:00",
                                                      "bench/model/abc"), "-5f3e2a1b"))
  for (part in c(crashed, earlier, other, other_task, copying)) writeLines("{}", part)
  mine <- file.path(dir, "notes.json.part")
  writeLines("x", mine)
  live <- log_writer(dir, "bench/model/abc", created = "2026-01-01T00:00:01+00:00")
  expect_setequal(stale_log_parts(dir, "bench/model/abc"), c(crashed, earlier, copying))
  w <- log_writer(dir, "bench/model/abc", stale = "remove")
  expect_false(any(file.exists(c(crashed, earlier, copying, part_lock_name(crashed)))))
  expect_true(all(file.exists(c(other, other_task, mine, live$part, w$part))))
  log_writer_abandon(live)
  log_writer_abandon(w)
})

test_that("a writer killed mid-run leaves only a part file that nothing counts; a rerun removes it", {
  skip_if_not_installed("callr")
  skip_on_cran()
  skip_on_os("windows")
  root <- skip_if_no_source_tree()
  dir <- withr::local_tempdir()
  flag <- file.path(withr::local_tempdir(), "written")
  child <- callr::r_bg(function(root, dir, flag, sample_fn) {
    pkgload::load_all(root, quiet = TRUE)
    w <- log_writer(dir, "futurex/model/abc", created = "2026-01-02T03:04:05.000000+00:00")
    i <- 0
    repeat {
      log_writer_add(w, lapply(i + 1:50, sample_fn))
      i <- i + 50
      if (i == 100) writeLines("ok", flag)
      Sys.sleep(0.02)
    }
  }, args = list(root = root, dir = dir, flag = flag, sample_fn = writer_sample))
  on.exit(if (child$is_alive()) child$kill(), add = TRUE)
  deadline <- Sys.time() + 60
  while (Sys.time() < deadline && child$is_alive() && !file.exists(flag)) Sys.sleep(0.05)
  expect_true(child$is_alive(), info = paste(child$read_all_error(), collapse = "\n"))
  child$signal(tools::SIGKILL)
  child$wait(5000)
  # no log: only the hidden part file (and its lock), recognisably unfinished
  expect_length(json_files(dir), 0)
  left <- list.files(dir, all.files = TRUE, no.. = TRUE)
  part <- file.path(dir, left[endsWith(left, ".json.part")])
  expect_length(part, 1)
  expect_match(basename(part), "^\\.2026-01-02T03-04-05\\.000000\\+00-00_futurex-model-abc\\.json\\.part$")
  lines <- readLines(part, encoding = "UTF-8", warn = FALSE)[-1]
  expect_gte(length(lines), 100)
  expect_equal(jsonlite::parse_json(sub(",$", "", lines[[1]]))$id, "s1")
  # nothing lists it: the board, report_failures(), vitals' own listing of the folder
  expect_equal(nrow(expect_no_warning(leaderboard(dir))), 0)
  expect_equal(nrow(suppressMessages(report_failures(dir))), 0)
  listing <- utils::getFromNamespace("get_log_files_metadata", "vitals")
  expect_length(listing(dir), 0)
  # the rerun of the task finds the crashed part (its lock died with the child) and removes it
  expect_equal(stale_log_parts(dir, "futurex/model/abc"), part)
  w <- log_writer(dir, "futurex/model/abc", stale = "remove")
  log_writer_add(w, list(writer_sample(1)))
  path <- log_writer_finish(w, writer_header(1))
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(path))
})

test_that("a task's log on a full disk: a classed error naming the folder, no log in it", {
  skip_if_not(file.exists("/dev/full"), "needs Linux's /dev/full")
  dir <- withr::local_tempdir()
  full <- file.path(dir, ".full")
  file.symlink("/dev/full", full)
  local_replace_internal("log_temp_file", function(path) full)
  err <- expect_error(futurex_run("\\boxed{Yes}", dir), class = "predictivebench_error_disk")
  expect_equal(err$file, dir)
  expect_match(conditionMessage(err), "is full")
  # nothing left: no log, no part (its temporary file, here the device's link, removed)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
})

test_that("the samples are copied into the log whole, however they were added", {
  samples <- lapply(1:7, writer_sample)
  samples[[3]]$metadata$note <- "\u00e9t\u00e9 \u2013 caf\u00e9\n"
  for (cuts in list(7L, c(3L, 7L), 1:7)) {
    dir <- withr::local_tempdir()
    w <- log_writer(dir, "bench/model/abc")
    from <- 1L
    for (to in cuts) {
      log_writer_add(w, samples[from:to])
      from <- to + 1L
    }
    tmp <- tempfile(tmpdir = dir)
    copy_log(w, "{\n  \"samples\": [", tmp)
    back <- jsonlite::read_json(tmp)$samples
    expect_equal(vapply(back, function(s) s$id, ""), paste0("s", 1:7))
    expect_equal(back[[3]]$metadata$note, samples[[3]]$metadata$note)
    expect_true(endsWith(read_text(tmp), "}\n  ]\n}\n"))
    log_writer_abandon(w)
  }
})

test_that("a copy the disk cuts short is a classed error, however file.append() reports it", {
  dir <- withr::local_tempdir()
  w <- log_writer(dir, "bench/model/abc")
  log_writer_add(w, lapply(1:3, writer_sample))
  # file.append() checks neither its last write nor its close: the size tells
  local_replace_internal("copy_log", local({
    copy <- copy_log
    body(copy) <- do.call(substitute, list(body(copy), list(file.append = quote(
      function(to, from) { cat("{", file = to, append = TRUE); TRUE }))))
    copy
  }))
  err <- expect_error(log_writer_finish(w, writer_header(3)), class = "predictivebench_error_disk")
  expect_equal(err$file, dir)
  expect_length(json_files(dir), 0)
  log_writer_abandon(w)
})

