sample_dir <- function() system.file("extdata", "dsbench", package = "predictivebench")

# The original protocol again, from pandas' own read_excel + to_string called from R.
independent_prompt <- function(folder, question_name) {
  pd <- reticulate::import("pandas", convert = FALSE)
  files <- list.files(folder)
  lower <- tolower(files)
  files <- files[(endsWith(lower, "xlsx") | endsWith(lower, "xlsm") | endsWith(lower, "xlsb")) &
                   !grepl("answer", lower)]
  files <- files[order(files, method = "radix")]
  content <- ""
  for (f in files) {
    sheets <- pd$read_excel(file.path(folder, f), sheet_name = NULL)
    names <- reticulate::py_to_r(reticulate::import_builtins()$list(sheets$keys()))
    text <- paste0(vapply(names, function(s) {
      df <- reticulate::py_get_item(sheets, s)
      paste0("Sheet name: ", s, "\n", reticulate::py_to_r(df$to_string(index = FALSE)), "\n\n")
    }, ""), collapse = "")
    content <- paste0(content, "The excel file ", f, " is: ", text)
  }
  read <- function(p) {
    x <- readChar(p, file.size(p), useBytes = TRUE)
    Encoding(x) <- "UTF-8"
    gsub("\r\n?", "\n", x)
  }
  intro <- read(file.path(folder, "introduction.txt"))
  question <- read(file.path(folder, paste0(question_name, ".txt")))
  paste0(
    if (nzchar(content)) paste0("The workbook is detailed as follows. ", content, " \n"),
    "The introduction is detailed as follows. \n ", intro, " \n",
    "The questions are detailed as follows. \n ", question
  )
}

test_that("the shipped parquet's prompts equal an independent pandas rendering", {
  skip_if_no_python()
  data <- dsbench_dataset()
  expect_equal(nrow(data), 7)
  for (i in seq_len(nrow(data))) {
    expected <- independent_prompt(data$folder[[i]], data$question_name[[i]])
    expect_identical(charToRaw(enc2utf8(data$input[[i]])), charToRaw(enc2utf8(expected)),
                     label = data$id[[i]])
  }
  expect_false(any(grepl("SECRET-ANSWER-MARKER", data$input)))
})

test_that("prepare_dsbench() rebuilds the shipped table and writes parquet", {
  skip_if_no_python()
  out <- withr::local_tempfile(fileext = ".parquet")
  prepare_dsbench(sample_dir(), out = out)
  rebuilt <- read_task_table(out)
  shipped <- read_task_table(system.file("extdata", "dsbench-sample.parquet",
                                         package = "predictivebench"))
  expect_identical(rebuilt$input, shipped$input)
  expect_identical(rebuilt$workbook_files, shipped$workbook_files)
  expect_identical(rebuilt$target[rebuilt$target_type == "dict"],
                   "{'Q': 2, 'Year': 2030, 'Profit': 150000.25}")
})

test_that("prepare_dsbench() errors name competition and file; skip_broken records", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  file.copy(list.files(sample_dir(), full.names = TRUE), dir, recursive = TRUE)
  unlink(file.path(dir, "data", "00000102", "question2.txt"))
  err <- expect_error(prepare_dsbench(dir), class = "predictivebench_error_missing_file")
  expect_match(conditionMessage(err), "00000102")
  expect_match(err$file, "question2.txt$")
  expect_warning(
    table <- prepare_dsbench(dir, skip_broken = TRUE),
    class = "predictivebench_warning_skipped"
  )
  expect_equal(nrow(table), 6)
  skipped <- attr(table, "skipped")
  expect_equal(skipped$competition, "00000102")
  expect_equal(skipped$question, "question2")
})

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
  expect_equal(nchar(cjk), 4)
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
  expect_equal(nchar(wide, type = "bytes"), 2 + 3 + 4 + 3)
  # The cut follows the byte counts: 3 CJK characters fit 9 tokens, 4 do not.
  cut <- dsbench_truncate(paste0("head ", cjk), max_tokens = 9)
  expect_identical(cut$text, "\u636e\u5206\u6790")
  expect_equal(cut$tokens, 9)
})

test_that("the judge rule matches the original on hand cases", {
  expect_identical(
    dsbench_judge_correct(c("True", "true.", "TRUE", "False", "Flase", "", NA, "untrue")),
    c(TRUE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE, TRUE)
  )
  prompt <- dsbench_judge_prompt("Q?\n", "{'Q': 1}", "It is 1")
  expect_identical(prompt, paste0(
    "Please judge whether the generated answer is right or wrong. We require that the correct ",
    "answer to the prediction gives a clear answer, not just a calculation process or a ",
    "disassembly of ideas. The question is Q?\n. The true answer is \n {'Q': 1}. \n The ",
    "predicted answer is \n It is 1.\n If the predicted answer is right, please output True. ",
    "Otherwise output Flase. Don't output any other text content. You only can output True ",
    "or False."
  ))
})

test_that("solver and judge send the original requests; judgements are cached", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (startsWith(text, "Please judge")) {
      if (grepl("The true answer is \n 667.", text, fixed = TRUE)) return(list(status = 400))
      if (grepl("predicted answer is \n ANSWER-C.", text, fixed = TRUE)) return("True")
      if (grepl("predicted answer is \n ANSWER-A.", text, fixed = TRUE)) return("true.")
      return("Flase")
    }
    option <- if (grepl("A. North", text)) "C" else if (grepl("A. Left", text)) "A" else "X"
    paste0("ANSWER-", option)
  })
  cache <- withr::local_tempdir()
  data <- dsbench_dataset()
  tsk <- dsbench_task(
    data, solver = dsbench_solver(cache = cache, max_tries = 1),
    scorer = dsbench_scorer(cache = cache, max_tries = 1), dir = withr::local_tempdir()
  )
  expect_warning(
    tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE),
    class = "predictivebench_warning_failed_judgements"
  )
  requests <- server$requests()
  solver_req <- Filter(function(b) b$model == "fake-model", requests)
  judge_req <- Filter(function(b) b$model == "judge", requests)
  expect_length(solver_req, 7)
  expect_length(judge_req, 7)
  # System prompts: the original's, with one more space when an image is attached.
  systems <- vapply(solver_req, function(b) {
    content <- b$messages[[1]]$content
    if (is.character(content)) content else content[[1]]$text
  }, "")
  has_image <- vapply(solver_req, function(b) {
    content <- b$messages[[length(b$messages)]]$content
    is.list(content) && any(vapply(content, function(x) identical(x$type, "image_url"), TRUE))
  }, TRUE)
  expect_equal(sum(has_image), 3)
  # The lemonade folder has two images (chart.png, stands.png): only the first is sent.
  urls <- unlist(lapply(solver_req[has_image], function(b) {
    content <- b$messages[[length(b$messages)]]$content
    lapply(Filter(function(x) identical(x$type, "image_url"), content),
           function(x) x$image_url$url)
  }))
  expect_length(urls, 3)
  image_file <- function(name) file.path(sample_dir(), "data", "00000101", name)
  data_url <- function(name) {
    bytes <- readBin(image_file(name), "raw", file.size(image_file(name)))
    paste0("data:image/png;base64,", gsub("\n", "", jsonlite::base64_enc(bytes)))
  }
  expect_true(all(urls == data_url("chart.png")))
  expect_false(identical(data_url("chart.png"), data_url("stands.png")))
  expect_identical(data$image_paths[[1]], c("00000101/chart.png", "00000101/stands.png"))
  expect_identical(data$image_used[data$competition_id == "00000101"],
                   rep("00000101/chart.png", 3))
  base <- paste0("You are a data analyst. I will give  you a background introduction and ",
                 "data analysis question. You must answer the question. ")
  expect_true(all(systems[has_image] == paste0(base, " ")))
  expect_true(all(systems[!has_image] == base))
  expect_true(all(vapply(solver_req, function(b) b$temperature == 0, TRUE)))
  expect_true(all(vapply(solver_req[has_image], function(b) {
    (b$max_tokens %||% b$max_completion_tokens) == 2256
  }, TRUE)))
  expect_true(all(vapply(solver_req[!has_image], function(b) {
    is.null(b$max_tokens) && is.null(b$max_completion_tokens)
  }, TRUE)))
  # The user text is the task table's input, unchanged.
  texts <- vapply(solver_req, last_user_text, "")
  expect_setequal(texts, data$input)
  # The judge: one user message, temperature 0, max 256 tokens, question file only.
  expect_true(all(vapply(judge_req, function(b) length(b$messages) == 1, TRUE)))
  expect_true(all(vapply(judge_req, function(b) b$temperature == 0, TRUE)))
  judge_texts <- vapply(judge_req, last_user_text, "")
  expect_false(any(grepl("introduction is detailed", judge_texts)))
  samples <- tsk$get_samples()
  expect_identical(vapply(samples$solver_metadata, function(m) m$image %||% NA_character_, ""),
                   c(rep("chart.png", 3), rep(NA, 4)))
  expect_identical(as.character(samples$score), c("C", "I", "C", "I", "I", "I", "I"))
  meta <- samples$scorer_metadata
  expect_false(is.na(meta[[2]]$judge_error))            # failed judgement, recorded
  expect_true(is.na(meta[[1]]$judge_error))
  summ <- dsbench_summary(tsk)
  expect_equal(summ$accuracy[[1]], 2 / 7)
  expect_equal(summ$accuracy[[2]], mean(c(2 / 3, 0, 0)))
  expect_equal(summ$judge_failures[[1]], 1)
  expect_equal(summ$input_tokens[[1]], 13 * 10)         # 7 solver + 6 judged, 10 tokens each
  # A second run: answers and judgements come from the cache, only the failure is re-sent.
  before <- server$count()
  expect_warning(
    tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE),
    class = "predictivebench_warning_failed_judgements"
  )
  expect_equal(server$count() - before, 1)
})

test_that("a failed solver request is not judged and counts as incorrect", {
  server <- local_fake_openai(function(body, n) {
    text <- last_user_text(body)
    if (startsWith(text, "Please judge")) return("True")
    if (grepl("CAB", text)) return(list(status = 400))
    "ok"
  })
  tsk <- dsbench_task(solver = dsbench_solver(cache = FALSE, images = FALSE, max_tries = 1),
                      scorer = dsbench_scorer(cache = FALSE), dir = withr::local_tempdir())
  expect_warning(
    tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE),
    class = "predictivebench_warning_failed_requests"
  )
  samples <- tsk$get_samples()
  failed <- which(grepl("CAB", samples$input))
  expect_identical(as.character(samples$score[failed]), "I")
  expect_false(samples$scorer_metadata[[failed]]$judged)
  expect_equal(sum(as.character(samples$score) == "C"), 6)
  judged <- Filter(function(b) b$model == "judge", server$requests())
  expect_length(judged, 6)
  expect_equal(dsbench_summary(tsk)$solver_failures[[1]], 1)
})

test_that("the solver truncates long prompts from the front", {
  server <- local_fake_openai(function(body, n) "ok")
  tsk <- dsbench_task(
    solver = dsbench_solver(context_limit = 6100, reserve_tokens = 6000, images = FALSE,
                            cache = FALSE),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir()
  )
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  sent <- vapply(server$requests(), last_user_text, "")
  data <- dsbench_dataset()
  expect_true(all(vapply(sent, function(s) any(endsWith(data$input, s)), TRUE)))
  expect_true(all(vapply(sent, dsbench_count_tokens, 1) <= 100))
  meta <- tsk$get_samples()$solver_metadata
  expect_true(all(vapply(meta, `[[`, TRUE, "truncated")))
})

test_that("files mode sends no workbook text and answers through confined tools", {
  server <- local_fake_openai(function(body, n) {
    last <- body$messages[[length(body$messages)]]
    if (identical(last$role, "tool")) return(paste("Read:", last$content))
    text <- last_user_text(body)
    if (!grepl("lemonade.xlsx", text, fixed = TRUE)) return("no workbook")
    list(json = list(
      id = paste0("c", n), object = "chat.completion", created = 0L, model = "fake",
      choices = list(list(index = 0L, finish_reason = "tool_calls", message = list(
        role = "assistant", content = NULL,
        tool_calls = list(list(id = paste0("call", n), type = "function", `function` = list(
          name = "read_range",
          arguments = '{"file": "lemonade.xlsx", "sheet": "Sales", "range": "B4:C4"}'
        )))
      ))),
      usage = list(prompt_tokens = 1L, completion_tokens = 1L, total_tokens = 2L)
    ))
  })
  data <- dsbench_dataset()
  tsk <- dsbench_task(
    data[data$competition_id %in% c("00000101", "00000103"), ],
    solver = dsbench_solver(mode = "files", images = FALSE, cache = FALSE),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir()
  )
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(samples$result[1:3], rep("Read: 4\tSouth\t310", 3))
  expect_equal(samples$result[4:5], rep("no workbook", 2))
  first <- server$requests()[[1]]
  expect_false(grepl("Sheet name:", last_user_text(first), fixed = TRUE))
  tool_names <- vapply(first$tools, function(t) t$`function`$name, "")
  expect_setequal(tool_names, c("list_workbooks", "list_sheets", "read_range"))
  # Tokens count every round: the tool call (1 + 1) and the answer (10 + 5) for the three
  # lemonade questions, the answer alone (10 + 5) for the two without a workbook.
  meta <- samples$solver_metadata
  expect_equal(vapply(meta, `[[`, 1, "input_tokens"), c(11, 11, 11, 10, 10))
  expect_equal(vapply(meta, `[[`, 1, "output_tokens"), c(6, 6, 6, 5, 5))
  summ <- dsbench_summary(tsk)
  expect_equal(summ$input_tokens[[1]], 3 * 11 + 2 * 10)
  expect_equal(summ$output_tokens[[1]], 3 * 6 + 2 * 5)
})

test_that("dataset and solver check their inputs", {
  expect_error(dsbench_solver(context_limit = 100, reserve_tokens = 200),
               class = "predictivebench_error_argument")
  expect_error(dsbench_dataset(data_dir = tempfile()),
               class = "predictivebench_error_missing_file")
  tsk <- dsbench_task(scorer = dsbench_scorer(), dir = withr::local_tempdir())
  expect_error(
    suppressWarnings(tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)),
    class = "predictivebench_error_argument"
  )
  table <- dsbench_dataset()
  table$folder <- NULL
  solver <- dsbench_solver(dataset = dsbench_dataset(
    system.file("extdata", "dsbench-sample.parquet", package = "predictivebench")))
  expect_error(solver(table$input, solver_chat = baseline_constant("x")),
               class = "predictivebench_error_argument")
})

test_that("the exact scorer matches letters, numbers and strings without a judge", {
  data <- dsbench_dataset()
  answers <- c("The answer is C.", "Total: 667 cups", "**A**", "It is $5,000,000.",
               "{'Q': 2}", "\\boxed{6}", "Use concatenate()")
  scorer <- dsbench_scorer_exact()
  samples <- data
  samples$result <- answers
  out <- scorer(samples)
  expect_identical(as.character(out$score), c("C", "C", "C", "C", "I", "C", "C"))
  samples$result <- c("The answer is B.", "666", "B", "5,000", NA, "\\boxed{7}", "LEFT")
  expect_true(all(as.character(scorer(samples)$score) == "I"))
})

test_that("dsbench_summary() reads the original's two accuracies", {
  samples <- tibble::tibble(
    competition_id = c("a", "a", "a", "b"),
    score = factor(c("C", "C", "I", "I"), levels = c("I", "C"), ordered = TRUE)
  )
  s <- dsbench_summary(samples, by_competition = TRUE)
  expect_equal(s$accuracy[1:2], c(0.5, (2 / 3 + 0) / 2))
  expect_equal(s$n[1:2], c(4, 2))
  expect_equal(s$group, c("questions", "competitions", "a", "b"))
  expect_error(dsbench_summary(list()), class = "predictivebench_error_argument")
})

test_that("the real data.json parses: 38 competitions, 466 questions, paired answers", {
  skip_if_no_python()
  path <- skip_if_no_reference("dsbench", "data.json")
  predictivebench:::python_module()$get_preparer("dsbench")  # imports the submodule
  dsbench <- reticulate::import("predictivebench.dsbench")
  records <- dsbench$read_data_json(path)
  metas <- lapply(records, function(r) dsbench$validate_competition(r[[2]], path, r[[1]]))
  expect_length(metas, 38)
  expect_equal(sum(vapply(metas, function(m) length(m$questions), 1L)), 466)
})
