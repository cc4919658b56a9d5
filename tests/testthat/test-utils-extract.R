test_that("boxed answers: first/last, nested braces, no box", {
  x <- "First \\boxed{A} then \\boxed{\\frac{1}{2}} end"
  expect_equal(extract_boxed(x), "\\frac{1}{2}")
  expect_equal(extract_boxed(x, which = "first"), "A")
  expect_equal(extract_boxed(x, rule = "first_brace"), "\\frac{1")
  expect_equal(extract_boxed("no box here"), NA_character_)
  expect_equal(extract_boxed("no box here", fallback = "text"), "no box here")
  expect_equal(extract_boxed(c("\\boxed{}", NA)), c("", NA))
  expect_equal(extract_boxed("\\boxed{}", rule = "first_brace"), NA_character_)
  expect_equal(extract_boxed("\\boxed{unclosed"), NA_character_)
})

test_that("numbers: strict and the reference's first run of digits", {
  expect_equal(parse_number_text(c("-1,234.5 million", "about 3e3", "none", "+7%")),
               c(-1234.5, 3000, NA, 7))
  expect_equal(parse_number_text(c("-1,234.5", "904.27.", "1.", ".5", "x"),
                                 rule = "first_digits"),
               c(1, NA, 1, 0.5, NA))
})

test_that("integer answers accept signs and leading zeros only", {
  expect_equal(parse_integer_answer(c("02", "+2", "-1", " 3 ", "two", "2.5", NA)),
               c(2L, 2L, -1L, 3L, NA, NA, NA))
  expect_error(parse_integer_answer(1), class = "predictivebench_error_argument")
})
