test_that("py_strip() strips Unicode whitespace like str.strip()", {
  expect_equal(py_strip(c("  a b\t\n", "\u00a0x\u2003", "\u3000", "y")), c("a b", "x", "", "y"))
})

test_that("python_set_order() gives the order of a PYTHONHASHSEED=0 set (worked cases)", {
  expect_equal(python_set_order(c("A", "C", "B"))[[1]], "B")
  expect_equal(python_set_order(c("C", "A"))[[1]], "C")
  expect_equal(sort(python_set_order(c("Z", "Q", "Q", "A"))), c("A", "Q", "Z"))
  expect_equal(python_set_order(character()), character())
})

test_that("python set order matches CPython 3.11 for random letter sets", {
  python <- Sys.getenv("RETICULATE_PYTHON", "/usr/bin/python3")
  skip_if_not(file.exists(python), "no Python to compare against")
  version <- system2(python, c("-c", shQuote("import sys; print(sys.version_info >= (3, 11))")),
                     stdout = TRUE)
  skip_if_not(identical(version, "True"), "needs CPython >= 3.11 (SipHash-1-3 str hashes)")
  set.seed(42)
  cases <- vapply(1:200, function(i) paste(sample(LETTERS, sample(2:15, 1), TRUE), collapse = ""), "")
  code <- "import sys\nfor line in sys.stdin: print(''.join(iter(set(line.strip()))))"
  expected <- withr::with_envvar(c(PYTHONHASHSEED = "0"),
                                 system2(python, c("-c", shQuote(code)), input = cases, stdout = TRUE))
  got <- vapply(strsplit(cases, ""), function(x) {
    paste(predictivebench:::python_set_order(x), collapse = "")
  }, "")
  expect_equal(got, expected)
})


test_that("py_float_repr() and csv_field() write floats and fields as Python and pandas do", {
  expect_equal(py_float_repr(c(-3.5455160869406415, 0.1, 1e-05, 1e16, 123, 0.0001, 2.5e-300,
                               -2, 1 / 3, 1e15, NA, -Inf)),
               c("-3.5455160869406415", "0.1", "1e-05", "1e+16", "123.0", "0.0001", "2.5e-300",
                 "-2.0", "0.3333333333333333", "1000000000000000.0", "", "-inf"))
  # R's own parser reads the 15-digit form back as this number; Python's repr needs 16.
  expect_equal(py_float_repr(0.8676191342528909), "0.8676191342528909")
  expect_equal(py_float_repr(c(0, -0, 5e-324, 12345.678)), c("0.0", "-0.0", "5e-324", "12345.678"))
  expect_equal(csv_field(c("a,b", 'say "x"', "two\nlines", "plain")),
               c('"a,b"', '"say ""x"""', '"two\nlines"', "plain"))
})

test_that("python_string_literal() unescapes a leading Python string literal", {
  expect_equal(python_string_literal("'it\\'s' rest"), "it's")
  expect_equal(python_string_literal('"a\\nb\\t\\"c\\"" tail'), "a\nb\t\"c\"")
  expect_equal(python_string_literal("'caf\\xe9 \\u4e2d'"), "caf\u00e9 \u4e2d")
  expect_equal(python_string_literal("'\\d'"), "\\d")
  expect_null(python_string_literal("no quote"))
  expect_null(python_string_literal("'never closed"))
})
