test_that("the estimate's truncation keeps the tail within the budget", {
  text <- paste0("HEAD-MARKER ", strrep("alpha 123 beta, ", 500), "TAIL-MARKER")
  cut <- dsbench_truncate_estimate(text, max_tokens = 100)
  expect_true(cut$truncated)
  expect_true(endsWith(cut$text, "TAIL-MARKER"))
  expect_false(grepl("HEAD-MARKER", cut$text))
  expect_lte(dsbench_estimate_tokens(cut$text), 100)
  expect_gt(dsbench_estimate_tokens(cut$text), 90)
  expect_true(endsWith(text, cut$text))
  # Prompts longer than a million characters (substring()'s default end) keep their tail.
  long <- paste0(strrep("0123456789 ", 200000), "THE-END")
  cut_long <- dsbench_truncate_estimate(long, max_tokens = 5000)
  expect_true(endsWith(cut_long$text, "THE-END"))
  expect_gt(nchar(cut_long$text), 10000)
  expect_lte(dsbench_estimate_tokens(cut_long$text), 5000)
  words_long <- function(x) length(strsplit(trimws(x), "\\s+")[[1]])
  expect_true(endsWith(dsbench_truncate(long, 10, count_tokens = words_long)$text, "THE-END"))
  # A prompt within the budget is untouched; the estimate never exceeds UTF-8 bytes.
  short <- "Fits easily. 1234567 \u00e9\u4e2d"
  expect_identical(dsbench_truncate_estimate(short, 1000)$text, short)
  expect_identical(dsbench_truncate(short, 1000)$text, short)
  expect_lte(dsbench_estimate_tokens(short), nchar(short, type = "bytes"))
  # A custom exact counter (words here) cuts by binary search.
  words <- function(x) length(strsplit(trimws(x), "\\s+")[[1]])
  cut2 <- dsbench_truncate("a b c d e f g h", max_tokens = 3, count_tokens = words)
  expect_identical(cut2$text, " f g h")  # the longest tail that fits
})

test_that("the token estimate is conservative on table-like text", {
  expect_equal(dsbench_estimate_tokens("1234567"), 3)        # 123 456 7
  expect_equal(dsbench_estimate_tokens("2023-06-01"), 6)     # 202 3 - 06 - 01
  expect_equal(dsbench_estimate_tokens("Revenue"), 2)
})

test_that("the token estimate on hand-worked ASCII, CJK and emoji text", {
  # ASCII: Revenue (7 letters: 2) + " " (1) + 123 456 7 (3) + "." (1) + 89 (1) + " " (1)
  # + in (1) + " " (1) + 202 3 (2) = 13.
  expect_equal(dsbench_estimate_tokens("Revenue 1234567.89 in 2023"), 13)
  # "Total,\n  x": Total (5 letters: 2) + "," (1) + "\n" (1) + "  " (1) + x (1) = 6.
  expect_equal(dsbench_estimate_tokens("Total,\n  x"), 6)
  # CJK: 3 UTF-8 bytes each, so 4 characters count 12 (the old 2-per-character rule gave 8).
  cjk <- "\u6570\u636e\u5206\u6790"
  expect_equal(dsbench_estimate_tokens(cjk), 12)
  # Emoji: U+1F4C8 is 4 bytes; a heart with its variation selector is 3 + 3 bytes.
  expect_equal(dsbench_estimate_tokens("\U0001F4C8"), 4)
  expect_equal(dsbench_estimate_tokens("\u2764\uFE0F"), 6)
  # Mixed: Sales (2) + " " (1) + emoji (4) + " " (1) + up (1) + " " (1) + Caf (1) + e-acute
  # (2 bytes) = 13.
  expect_equal(dsbench_estimate_tokens("Sales \U0001F4C8 up Caf\u00e9"), 13)
  # Non-ASCII text counts exactly its UTF-8 bytes: an upper bound for byte-level BPE.
  wide <- "\u00e9\u4e2d\U0001F600\u20ac"
  expect_equal(dsbench_estimate_tokens(wide), nchar(wide, type = "bytes"))
  # The cut follows the byte counts: 3 CJK characters fit 9 tokens, 4 do not.
  cut <- dsbench_truncate_estimate(paste0("head ", cjk), max_tokens = 9)
  expect_identical(cut$text, "\u636e\u5206\u6790")
  expect_equal(cut$tokens, 9)
})

# Token ids published in OpenAI's cookbook, "How to count tokens with tiktoken"
# (github.com/openai/openai-cookbook, examples/How_to_count_tokens_with_tiktoken.ipynb):
# section 3 encodes "tiktoken is great!" with cl100k_base; section 5 ("Comparing
# encodings") lists the ids of three strings for cl100k_base and, in the current version,
# o200k_base.
published <- list(
  cl100k_base = list(
    "tiktoken is great!" = c(83, 1609, 5963, 374, 2294, 0),
    "antidisestablishmentarianism" = c(519, 85342, 34500, 479, 8997, 2191),
    "2 + 2 = 4" = c(17, 489, 220, 17, 284, 220, 19),
    "\u304a\u8a95\u751f\u65e5\u304a\u3081\u3067\u3068\u3046" =
      c(33334, 45918, 243, 21990, 9080, 33334, 62004, 16556, 78699)
  ),
  o200k_base = list(
    "antidisestablishmentarianism" = c(493, 129901, 376, 160388, 21203, 2367),
    "\u304a\u8a95\u751f\u65e5\u304a\u3081\u3067\u3068\u3046" =
      c(8930, 9697, 243, 128225, 8930, 17693, 4344, 48669)
  )
)
birthday <- "\u304a\u8a95\u751f\u65e5\u304a\u3081\u3067\u3068\u3046"  # o-tanjoubi omedetou

test_that("token counts are tiktoken's: the cookbook's published ids", {
  skip_if_not_installed("rtiktoken")
  for (encoding in names(published)) {
    for (text in names(published[[encoding]])) {
      ids <- published[[encoding]][[text]]
      expect_equal(rtiktoken::get_tokens(text, encoding), ids, label = paste(encoding, text))
      expect_equal(dsbench_count_tokens(text, encoding), length(ids))
    }
  }
  # The original's models map to their tiktoken encodings.
  expect_identical(dsbench_model_encoding("gpt-4-turbo-2024-04-09"), "cl100k_base")
  expect_identical(dsbench_model_encoding("gpt-3.5-turbo-0125"), "cl100k_base")
  expect_identical(dsbench_model_encoding("gpt-4o-2024-05-13"), "o200k_base")
  rlang::local_options(rlib_message_verbosity = "verbose")
  rm(list = ls(the_informed), envir = the_informed)
  msg <- expect_message(enc <- dsbench_model_encoding("not-an-openai-model"), "o200k_base")
  expect_identical(enc, "o200k_base")
  # It says how often it shows, truthfully: once per model, not "once per session".
  expect_match(conditionMessage(msg), "once per model")
  expect_no_match(conditionMessage(msg), "once per session")
  expect_no_message(dsbench_model_encoding("not-an-openai-model"))
  expect_message(dsbench_model_encoding("another-unknown-model"), "another-unknown-model")
})

test_that("the cut keeps the last tokens, as the original's decode(encode(p)[-n:])", {
  skip_if_not_installed("rtiktoken")
  # Worked out from the published ids and their bytes: "tiktoken is great!" in cl100k_base
  # is t|ik|token| is| great|!, so the last 2 tokens are " great!" and the last 4
  # "token is great!".
  cut <- dsbench_truncate("tiktoken is great!", 2, encoding = "cl100k_base")
  expect_identical(cut[c("text", "tokens", "truncated", "tokenizer")],
                   list(text = " great!", tokens = 2L, truncated = TRUE,
                        tokenizer = "cl100k_base"))
  expect_identical(dsbench_truncate("tiktoken is great!", 4, encoding = "cl100k_base")$text,
                   "token is great!")
  # Within the budget: unchanged, with its exact count.
  within <- dsbench_truncate("tiktoken is great!", 6, encoding = "cl100k_base")
  expect_identical(within[c("text", "tokens", "truncated")],
                   list(text = "tiktoken is great!", tokens = 6L, truncated = FALSE))
  # The second character (U+8A95, bytes e8 aa 95) is split into two tokens in both
  # encodings: cl100k 45918 = e8 aa, 243 = 95; o200k 9697 = e8 aa, 243 = 95. A cut between
  # them leaves the byte 95, which tiktoken decodes as one replacement character.
  rest <- "\u751f\u65e5\u304a\u3081\u3067\u3068\u3046"
  expect_identical(dsbench_truncate(birthday, 7, encoding = "cl100k_base")$text,
                   paste0("\ufffd", rest))
  expect_identical(dsbench_truncate(birthday, 8, encoding = "cl100k_base")$text,
                   paste0("\u8a95", rest))
  expect_identical(dsbench_truncate(birthday, 6, encoding = "o200k_base")$text,
                   paste0("\ufffd", rest))
  expect_identical(dsbench_truncate(birthday, 6, encoding = "gpt-4o")$text,
                   paste0("\ufffd", rest))
  # Two and three leftover bytes: U+10348 (f0 90 8d 88) is four single-byte tokens, whose
  # ids are GPT-2's byte order (0xf0 = 172, 0x90 = 238, 0x8d = 235, 0x88 = 230).
  hwair <- "\U00010348"
  for (encoding in c("cl100k_base", "o200k_base")) {
    expect_equal(rtiktoken::get_tokens(strrep(hwair, 2), encoding),
                 rep(c(172, 238, 235, 230), 2))
    for (stray in 1:3) {
      expect_identical(dsbench_truncate(strrep(hwair, 2), 4 + stray, encoding = encoding)$text,
                       paste0(strrep("\ufffd", stray), hwair), label = paste(encoding, stray))
    }
    expect_identical(dsbench_truncate(hwair, 2, encoding = encoding)$text, "\ufffd\ufffd")
  }
})

test_that("a long prompt keeps exactly its last tokens", {
  skip_if_not_installed("rtiktoken")
  text <- paste0("HEAD-MARKER ", strrep("alpha 123 beta, ", 500), "TAIL-MARKER")
  cut <- dsbench_truncate(text, max_tokens = 100, encoding = "o200k_base")
  expect_true(cut$truncated)
  expect_equal(cut$tokens, 100)
  expect_true(endsWith(text, cut$text))
  expect_true(endsWith(cut$text, "TAIL-MARKER"))
  ids <- rtiktoken::get_tokens(text, "o200k_base")
  expect_identical(cut$text, rtiktoken::decode_tokens(utils::tail(ids, 100), "o200k_base"))
  # Prompts longer than a million characters keep their tail too.
  long <- paste0(strrep("0123456789 ", 200000), "THE-END")
  expect_true(endsWith(dsbench_truncate(long, 5000)$text, "THE-END"))
})

test_that("without rtiktoken the estimate is used, with a message once", {
  local_no_tiktoken()
  rlang::local_options(rlib_message_verbosity = "default")
  rlang::reset_message_verbosity("predictivebench_dsbench_estimate")
  text <- paste0("HEAD-MARKER ", strrep("alpha 123 beta, ", 500), "TAIL-MARKER")
  expect_message(cut <- dsbench_truncate(text, 100), "rtiktoken")
  expect_identical(cut, dsbench_truncate_estimate(text, 100))
  expect_equal(cut$tokenizer, "estimate")
  expect_no_message(count <- dsbench_count_tokens("Revenue 1234567.89 in 2023"))
  expect_equal(count, 13)
  expect_identical(dsbench_model_encoding("gpt-4-turbo-2024-04-09"), "o200k_base")
})

test_that("dsbench_truncate() checks its arguments", {
  expect_error(dsbench_truncate("x", 1, count_tokens = "words"),
               class = "predictivebench_error_argument")
  expect_error(dsbench_truncate("x", 1, count_tokens = function(x) "a"),
               class = "predictivebench_error_argument")
  expect_error(dsbench_truncate("x", 0), class = "predictivebench_error_argument")
})
