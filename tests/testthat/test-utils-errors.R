# abort_pb(), user_call() and the argument checks of R/utils-errors.R.

test_that("abort_pb() classes the condition and carries file, row and field", {
  err <- expect_error(
    abort_pb("A bad {.field level}.", "field", file = "questions.json", row = 3,
             field = "level", call = NULL),
    class = "predictivebench_error_field"
  )
  expect_s3_class(err, "predictivebench_error")
  expect_equal(err$file, "questions.json")
  expect_equal(err$row, 3)
  expect_equal(err$field, "level")
  msg <- cli::ansi_strip(conditionMessage(err))
  expect_match(msg, "File: 'questions.json'", fixed = TRUE)
  expect_match(msg, "Row: 3", fixed = TRUE)
  expect_match(msg, "Field: level", fixed = TRUE)
  expect_snapshot(abort_pb("A bad {.field level}.", "field", file = "questions.json", row = 3,
                           field = "level", call = NULL), error = TRUE)
})

test_that("abort_pb() leaves out what does not apply, and passes extra fields on", {
  err <- expect_error(abort_pb("Just a message.", "argument", hint = "h", call = NULL),
                      class = "predictivebench_error_argument")
  expect_null(err$file)
  expect_null(err$row)
  expect_null(err$field)
  expect_equal(err$hint, "h")
  expect_equal(cli::ansi_strip(conditionMessage(err)), "Just a message.")
  # only the row: no File or Field line
  err <- expect_error(abort_pb("Bad.", "json", row = "12", call = NULL))
  msg <- cli::ansi_strip(conditionMessage(err))
  expect_match(msg, "^Bad[.]\n. Row: 12$")
  expect_false(grepl("File|Field", msg))
})

test_that("the error header names the function the user called, not the check", {
  # check_count() inside benchmark_dataset() inside futurex_dataset(): the user called the last
  err <- expect_error(futurex_dataset(version = "sample", limit = -1), class = "predictivebench_error_argument")
  expect_identical(err$call[[1]], quote(futurex_dataset))
  expect_identical(predictivebench::futurex_dataset, futurex_dataset)
  err <- expect_error(predictivebench::futurex_dataset(version = "sample", limit = 0))
  expect_identical(err$call[[1]], quote(predictivebench::futurex_dataset))
  expect_snapshot(futurex_dataset(version = "sample", limit = 1.5), error = TRUE)
  # a package function reached under another name (as vitals calls a solver closure,
  # `fn(...)`) is not a name the user knows: the header names no function
  fn <- check_count
  err <- expect_error(fn(-1, arg = "n"), class = "predictivebench_error_argument")
  expect_null(err$call)
  expect_null(user_call(NULL))
  # with no predictivebench function on the stack, the caller's own call stays
  caller <- rlang::env()
  expect_identical(user_call(caller), caller)
})

test_that("call_name() reads f() and pkg::f(), and nothing else", {
  expect_equal(call_name(quote(f(x))), "f")
  # a declared package: R CMD check looks up an undeclared `pkg::` of the tests in the
  # repositories, which offline is a WARNING
  expect_equal(call_name(quote(rlang::f(x))), "f")
  expect_equal(call_name(quote(rlang:::f(x))), "f")
  expect_null(call_name(quote(g()(x))))
  expect_null(call_name(quote(x$f(1))))
})

test_that("the check_*() helpers accept what they promise and name the argument otherwise", {
  expect_invisible(check_string("a"))
  expect_null(check_string(NULL, allow_null = TRUE))
  expect_equal(check_count(3), 3)
  expect_equal(check_count(0, min = 0), 0)
  expect_equal(check_number(-2.5), -2.5)
  expect_null(check_number(NULL, allow_null = TRUE))
  expect_true(check_flag(TRUE))
  bad <- list(
    quote(check_string(c("a", "b"), arg = "name")),
    quote(check_string(NULL, arg = "name")),
    quote(check_count(2.5, arg = "times")),
    quote(check_count(0, arg = "times")),
    quote(check_count(NA_real_, arg = "times")),
    quote(check_count(1, arg = "times", min = 2)),
    quote(check_number("1", arg = "level")),
    quote(check_number(c(1, 2), arg = "level")),
    quote(check_flag(NA, arg = "quiet")),
    quote(check_flag("yes", arg = "quiet"))
  )
  for (expr in bad) {
    err <- expect_error(eval(expr), class = "predictivebench_error_argument")
    expect_match(conditionMessage(err), as.character(expr$arg), fixed = TRUE)
  }
  expect_snapshot({
    check_count(0, arg = "times", call = NULL)
    check_flag("yes", arg = "quiet", call = NULL)
  }, error = TRUE)
})

test_that("a 'provider/model' string is taken as ellmer::chat() takes it", {
  withr::local_envvar(OPENAI_API_KEY = "sk-test")
  chat <- as_chat("openai/gpt-4.1-nano")
  expect_s3_class(chat, "Chat")
  expect_equal(chat$get_model(), "gpt-4.1-nano")
  expect_identical(as_chat(chat), chat)
  expect_null(as_chat(NULL, allow_null = TRUE))
  err <- expect_error(as_chat("nosuchprovider/x"), class = "predictivebench_error_argument")
  expect_s3_class(err$parent, "error")
  expect_error(as_chat(42), class = "predictivebench_error_argument")
  expect_error(as_chat(""), class = "predictivebench_error_argument")
  expect_error(as_chat(NULL), class = "predictivebench_error_argument")
  expect_snapshot(as_chat(42, arg = "solver_chat", call = NULL), error = TRUE)
})

test_that("%||% takes the right side only for NULL", {
  expect_equal(NULL %||% 2, 2)
  expect_equal(FALSE %||% 2, FALSE)
  expect_equal(NA %||% 2, NA)
})
