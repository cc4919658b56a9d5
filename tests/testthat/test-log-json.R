# The log's JSON (R/log-json.R): exact numbers, flat metadata, timestamps.

test_that("flat_metadata() keeps scalars and writes longer values as JSON, reversibly", {
  x <- list(kind = "numeric", n = 3L, ok = TRUE, value = 0.1 + 0.2, none = NULL,
            missing = NA, votes = c(2L, NA, 3L), texts = c("a \"quoted\"\nline", "b"),
            nested = list(a = 1, b = "x"), level = factor("hard"),
            day = as.Date("2025-01-02"))
  flat <- flat_metadata(x)
  expect_true(all(lengths(flat) == 1))
  expect_false(any(vapply(flat, is.list, TRUE)))
  expect_equal(attr(flat, "json"), c("votes", "texts", "nested"))
  expect_identical(flat$level, "hard")
  expect_identical(flat$day, "2025-01-02")
  back <- restore_metadata(flat)
  expect_identical(back$votes, c(2L, NA, 3L))
  expect_identical(back$texts, x$texts)
  expect_equal(back$nested, list(a = 1, b = "x"))
  expect_identical(back$value, x$value)
  expect_true(is.na(back$none))
  expect_error(flat_metadata(list(1, 2)), class = "predictivebench_error_argument")
})

test_that("a log is written in one piece: awkward strings and exact numbers read back", {
  log <- list(version = 2L, eval = list(created = "2026-01-02T03:04:05+00:00", task_id = "a/b/c"),
              samples = list(list(id = "x", metadata = exact_fields(flat_metadata(list(
                b = "x\n}, {\"y\": @@pb:s:1:zz@@", c = paste0("\u00e9t\u00e9\t", "\001\\"),
                d = NA, e = 1 / 3, f = FALSE, g = 2.5))))))
  dir <- withr::local_tempdir()
  path <- write_log(log, dir)
  # vitals' own name, with the `_` after the time, as Inspect names its logs
  expect_equal(basename(path), "2026-01-02T03-04-05+00-00_a-b-c.json")
  expect_equal(basename(path), utils::getFromNamespace("eval_log_filename", "vitals")(log))
  back <- jsonlite::read_json(path)$samples[[1]]$metadata
  expect_equal(back$b, "x\n}, {\"y\": @@pb:s:1:zz@@")
  expect_equal(back$c, paste0("\u00e9t\u00e9\t", "\001\\"))
  expect_null(back$d)
  expect_identical(back[c("e", "f", "g")], list(e = 1 / 3, f = FALSE, g = 2.5))
  expect_equal(read_log_header(path)$eval$task_id, "a/b/c")
  # nothing but the file itself is left in the directory
  expect_equal(list.files(dir, all.files = TRUE, no.. = TRUE), basename(path))
})

test_that("exact_number_json() reads back as the same double", {
  x <- c(1 / 3, 0.1 + 0.2, 1, 0, 2 / 3 * 0.1, NA, 1e-20)
  text <- exact_number_json(x)
  expect_equal(text[[3]], "1")
  expect_equal(text[[6]], "null")
  back <- vapply(text[-6], function(t) jsonlite::parse_json(t), 1)
  expect_identical(unname(back), x[-6])
})

test_that("log times keep their microseconds, so a run under a second has a duration", {
  time <- as.POSIXct(1.25, origin = "1970-01-01", tz = "UTC")
  expect_equal(log_timestamp(time), "1970-01-01T00:00:01.250000+00:00")
  # the viewer's duration: stats.completed_at - stats.started_at
  dir <- withr::local_tempdir()
  tsk <- futurex_run("\\boxed{Yes}", dir)
  stats <- read_log_header(tsk$log_path)$stats
  parse <- function(x) as.POSIXct(sub("([+-][0-9]{2}):([0-9]{2})$", "\\1\\2", x),
                                  format = "%Y-%m-%dT%H:%M:%OS%z", tz = "UTC")
  seconds <- as.double(difftime(parse(stats$completed_at), parse(stats$started_at), units = "secs"))
  expect_gt(seconds, 0)
  expect_lt(seconds, 60)
  expect_match(stats$started_at, "T[0-9:]{8}\\.[0-9]{6}[+-]")
})
