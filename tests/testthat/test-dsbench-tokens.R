test_that("truncation keeps the tail within the budget", {
  text <- paste0("HEAD-MARKER ", strrep("alpha 123 beta, ", 500), "TAIL-MARKER")
  cut <- dsbench_truncate(text, max_tokens = 100)
  expect_true(cut$truncated)
  expect_true(endsWith(cut$text, "TAIL-MARKER"))
  expect_false(grepl("HEAD-MARKER", cut$text))
  expect_lte(dsbench_count_tokens(cut$text), 100)
  expect_gt(dsbench_count_tokens(cut$text), 90)
  expect_true(endsWith(text, cut$text))
  # Prompts longer than a million characters (substring()'s default end) keep their tail.
  long <- paste0(strrep("0123456789 ", 200000), "THE-END")
  cut_long <- dsbench_truncate(long, max_tokens = 5000)
  expect_true(endsWith(cut_long$text, "THE-END"))
  expect_gt(nchar(cut_long$text), 10000)
  expect_lte(dsbench_count_tokens(cut_long$text), 5000)
  words_long <- function(x) length(strsplit(trimws(x), "\\s+")[[1]])
  expect_true(endsWith(dsbench_truncate(long, 10, count_tokens = words_long)$text, "THE-END"))
  # A prompt within the budget is untouched; the estimate never exceeds UTF-8 bytes.
  short <- "Fits easily. 1234567 \u00e9\u4e2d"
  expect_identical(dsbench_truncate(short, 1000)$text, short)
  expect_lte(dsbench_count_tokens(short), nchar(short, type = "bytes"))
  # A custom exact counter (words here) cuts by binary search.
  words <- function(x) length(strsplit(trimws(x), "\\s+")[[1]])
  cut2 <- dsbench_truncate("a b c d e f g h", max_tokens = 3, count_tokens = words)
  expect_identical(cut2$text, " f g h")  # the longest tail that fits
})

test_that("the token estimate is conservative on table-like text", {
  expect_equal(dsbench_count_tokens("1234567"), 3)        # 123 456 7
  expect_equal(dsbench_count_tokens("2023-06-01"), 6)     # 202 3 - 06 - 01
  expect_equal(dsbench_count_tokens("Revenue"), 2)
})

test_that("the token estimate on hand-worked ASCII, CJK and emoji text", {
  # ASCII: Revenue (7 letters: 2) + " " (1) + 123 456 7 (3) + "." (1) + 89 (1) + " " (1)
  # + in (1) + " " (1) + 202 3 (2) = 13.
  expect_equal(dsbench_count_tokens("Revenue 1234567.89 in 2023"), 13)
  # "Total,\n  x": Total (5 letters: 2) + "," (1) + "\n" (1) + "  " (1) + x (1) = 6.
  expect_equal(dsbench_count_tokens("Total,\n  x"), 6)
  # CJK: 3 UTF-8 bytes each, so 4 characters count 12 (the old 2-per-character rule gave 8).
  cjk <- "\u6570\u636e\u5206\u6790"
  expect_equal(dsbench_count_tokens(cjk), 12)
  # Emoji: U+1F4C8 is 4 bytes; a heart with its variation selector is 3 + 3 bytes.
  expect_equal(dsbench_count_tokens("\U0001F4C8"), 4)
  expect_equal(dsbench_count_tokens("\u2764\uFE0F"), 6)
  # Mixed: Sales (2) + " " (1) + emoji (4) + " " (1) + up (1) + " " (1) + Caf (1) + e-acute
  # (2 bytes) = 13.
  expect_equal(dsbench_count_tokens("Sales \U0001F4C8 up Caf\u00e9"), 13)
  # Non-ASCII text counts exactly its UTF-8 bytes: an upper bound for byte-level BPE.
  wide <- "\u00e9\u4e2d\U0001F600\u20ac"
  expect_equal(dsbench_count_tokens(wide), nchar(wide, type = "bytes"))
  # The cut follows the byte counts: 3 CJK characters fit 9 tokens, 4 do not.
  cut <- dsbench_truncate(paste0("head ", cjk), max_tokens = 9)
  expect_identical(cut$text, "\u636e\u5206\u6790")
  expect_equal(cut$tokens, 9)
})
