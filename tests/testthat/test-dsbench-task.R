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
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(
    data, solver = dsbench_solver(settings = request_settings(cache = cache, retry = list(max_tries = 1))),
    scorer = dsbench_scorer(settings = request_settings(cache = cache, retry = list(max_tries = 1))), dir = withr::local_tempdir()
  )
  expect_warning(
    tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE),
    class = "predictivebench_warning_failed_judgements"
  )
  requests <- server$requests()
  solver_req <- Filter(function(b) b$model == "fake-model", requests)
  judge_req <- Filter(function(b) b$model == "judge", requests)
  expect_length(solver_req, nrow(data))
  expect_length(judge_req, nrow(data))
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
  expect_identical(as_score(samples$score), c(1, 0, 1, 0, 0, 0, 0))
  meta <- samples$scorer_metadata
  expect_false(is.na(meta[[2]]$judge_error))            # failed judgement, recorded
  expect_true(is.na(meta[[1]]$judge_error))
  summ <- dsbench_summary(tsk)
  expect_equal(summ$estimate[[1]], 2 / 7)
  expect_equal(summ$estimate[[2]], mean(c(2 / 3, 0, 0)))
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
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver( images = FALSE,
                                                                                   settings = request_settings(cache = FALSE, retry = list(max_tries = 1))),
                      scorer = dsbench_scorer(settings = request_settings(cache = FALSE)), dir = withr::local_tempdir())
  expect_warning(
    tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
             view = FALSE),
    class = "predictivebench_warning_failed_requests"
  )
  samples <- tsk$get_samples()
  failed <- which(grepl("CAB", samples$input))
  expect_identical(as_score(samples$score[failed]), 0)
  expect_false(samples$scorer_metadata[[failed]]$judged)
  expect_equal(sum(as_score(samples$score)), nrow(samples) - 1)
  judged <- Filter(function(b) b$model == "judge", server$requests())
  expect_length(judged, nrow(samples) - 1)
  expect_equal(dsbench_summary(tsk)$solver_failures[[1]], 1)
})

# A 100-token budget: a 6100-token context, 6000 of it reserved.
budget_100 <- function(...) dsbench_options(context_limit = 6100, reserve_tokens = 6000, ...)

# Runs the sample with a 100-token budget (context 6100, 6000 reserved) against a fake
# server; returns the evaluated task and the user texts the server received.
run_with_budget_100 <- function(...) {
  server <- local_fake_openai(function(body, n) "ok", .local_envir = parent.frame())
  tsk <- dsbench_task(
    dsbench_dataset(version = "sample"),
    solver = dsbench_solver(images = FALSE, options = budget_100(), ...,
                            settings = request_settings(cache = FALSE)),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir(.local_envir = parent.frame())
  )
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  list(task = tsk, sent = vapply(server$requests(), last_user_text, ""), server = server)
}

test_that("the solver truncates long prompts from the front", {
  skip_if_not_installed("rtiktoken")
  rlang::local_options(rlib_message_verbosity = "quiet")  # "fake-model": o200k_base
  run <- run_with_budget_100()
  tsk <- run$task
  sent <- run$sent
  data <- dsbench_dataset(version = "sample")
  # Each request is the last 100 o200k_base tokens of its prompt, decoded.
  expected <- vapply(data$input, function(x) {
    rtiktoken::decode_tokens(utils::tail(rtiktoken::get_tokens(x, "o200k_base"), 100),
                             "o200k_base")
  }, "", USE.NAMES = FALSE)
  expect_setequal(sent, expected)
  samples <- tsk$get_samples()
  counts <- vapply(samples$input, rtiktoken::get_token_count, 1, model = "o200k_base")
  expect_true(any(counts > 100))
  meta <- samples$solver_metadata
  expect_identical(vapply(meta, `[[`, TRUE, "prompt_truncated"), unname(counts > 100))
  expect_equal(vapply(meta, `[[`, 1, "prompt_tokens"), unname(pmin(counts, 100)))
  expect_true(all(vapply(meta, `[[`, "", "tokenizer") == "o200k_base"))
  # The encoding follows the chat's model: gpt-4-turbo counts with cl100k_base.
  solver <- dsbench_solver(images = FALSE, options = budget_100(encoding = "gpt-4-turbo-2024-04-09"),
                           settings = request_settings(cache = FALSE))
  out <- solver(data$input[1:2], solver_chat = fake_chat(run$server))
  expect_identical(out$solver_metadata[[1]]$tokenizer, "cl100k_base")
})

test_that("without rtiktoken the solver cuts by the estimate", {
  local_no_tiktoken()
  rlang::local_options(rlib_message_verbosity = "quiet")
  run <- run_with_budget_100()
  tsk <- run$task
  sent <- run$sent
  data <- dsbench_dataset(version = "sample")
  expect_true(all(vapply(sent, function(s) any(endsWith(data$input, s)), TRUE)))
  expect_true(all(vapply(sent, dsbench_estimate_tokens, 1) <= 100))
  meta <- tsk$get_samples()$solver_metadata
  expect_true(all(vapply(meta, `[[`, TRUE, "prompt_truncated")))
  expect_true(all(vapply(meta, `[[`, "", "tokenizer") == "estimate"))
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
  data <- dsbench_dataset(version = "sample")
  tsk <- dsbench_task(
    data[data$competition_id %in% c("00000101", "00000103"), ],
    solver = dsbench_solver(mode = "files", images = FALSE,
                            settings = request_settings(cache = FALSE)),
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

test_that("dsbench_solver()'s old option names warn, and cut the prompt as options = does", {
  data <- dsbench_dataset(version = "sample")
  prompts <- function(solver) {
    server <- local_fake_openai(function(body, n) "ok")
    solver(data$input[1:2], solver_chat = fake_chat(server))
    # the two requests are in flight together: the server sees them in either order
    sort(vapply(server$requests(), last_user_text, ""))
  }
  no_cache <- request_settings(cache = FALSE)
  new <- prompts(dsbench_solver(images = FALSE, options = budget_100(), settings = no_cache))
  expect_warning(
    old <- dsbench_solver(images = FALSE, context_limit = 6100, reserve_tokens = 6000,
                          settings = no_cache),
    class = "predictivebench_warning_deprecated"
  )
  expect_identical(prompts(old), new)
  expect_true(any(nchar(new) < nchar(data$input[1:2])))
  expect_error(dsbench_solver(contxt_limit = 10), class = "predictivebench_error_argument")
  expect_error(dsbench_solver(options = list(context_limit = 10)),
               class = "predictivebench_error_argument")
  expect_lte(length(formals(dsbench_solver)), 8)
})

test_that("dataset and solver check their inputs", {
  expect_error(dsbench_options(context_limit = 100, reserve_tokens = 200),
               class = "predictivebench_error_argument")
  expect_error(dsbench_dataset(version = "sample", data_dir = tempfile()),
               class = "predictivebench_error_missing_file")
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), scorer = dsbench_scorer(), dir = withr::local_tempdir())
  expect_error(
    suppressWarnings(tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)),
    class = "predictivebench_error_argument"
  )
  # A table read without its DSBench folder has images it can't find.
  tsk <- dsbench_task(
    dsbench_dataset(system.file("extdata", "dsbench-sample.parquet", package = "predictivebench")),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir()
  )
  expect_snapshot(suppressMessages(tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)),
                  error = TRUE)
  # The files mode needs the task's dataset, and its folders.
  files <- dsbench_solver(mode = "files", settings = request_settings(cache = FALSE))
  expect_snapshot(files("question", solver_chat = baseline_constant("x")), error = TRUE)
  tsk <- dsbench_task(
    dsbench_dataset(system.file("extdata", "dsbench-sample.parquet", package = "predictivebench")),
    solver = dsbench_solver(mode = "files", images = FALSE,
                            settings = request_settings(cache = FALSE)),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir()
  )
  expect_snapshot(suppressMessages(tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)),
                  error = TRUE)
})

test_that("dsbench_dataset() takes part of the table, which its task keeps", {
  data <- dsbench_dataset(version = "sample")
  expect_equal(dsbench_dataset(version = "sample", limit = 2), data[1:2, ])
  shuffled <- dsbench_dataset(version = "sample", shuffle = 1)
  expect_setequal(shuffled$id, data$id)
  expect_equal(dsbench_dataset(version = "sample", limit = 3, shuffle = 1), shuffled[1:3, ])
  # Each row keeps its own folder and image after the cut.
  expect_equal(shuffled$folder, data$folder[match(shuffled$id, data$id)])
  tsk <- dsbench_task(dsbench_dataset(version = "sample", limit = 2), solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                      scorer = dsbench_scorer_exact(), dir = withr::local_tempdir())
  tsk$eval(solver_chat = baseline_echo(data, "target"), view = FALSE)
  expect_equal(tsk$get_samples()$id, data$id[1:2])
  expect_equal(dsbench_summary(tsk)$estimate[[1]], 1)
})

test_that("when every judgement fails, Scoring is not marked a success", {
  server <- local_fake_openai(function(body, n) {
    if (startsWith(last_user_text(body), "Please judge")) list(status = 400) else "ok"
  })
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), solver = dsbench_solver( images = FALSE,
                                                                                   settings = request_settings(cache = FALSE)),
                      scorer = dsbench_scorer(settings = request_settings(cache = FALSE, retry = list(max_tries = 1))),
                      dir = withr::local_tempdir())
  messages <- character()
  expect_warning(
    withCallingHandlers(
      tsk$eval(solver_chat = fake_chat(server), scorer_chat = fake_chat(server, "judge"),
               view = FALSE),
      message = function(m) {
        messages <<- c(messages, conditionMessage(m))
        invokeRestart("muffleMessage")
      }
    ),
    class = "predictivebench_warning_failed_judgements"
  )
  expect_true(any(grepl("^(\u2714|v) Solving", messages)))
  expect_true(any(grepl("^(\u2716|x) Scoring", messages)))
  expect_false(any(grepl("^(\u2714|v) Scoring", messages)))
  expect_true(all(as_score(tsk$get_samples()$score) == 0))
})

test_that("the judge takes batch = TRUE: one batch, cached for a later run without it", {
  withr::local_options(predictivebench.batch_poll_seconds = 0.05)
  server <- local_fake_openai(function(body, n) "True")
  cache <- withr::local_tempdir()
  data <- dsbench_dataset(version = "sample")
  run <- function(batch) {
    tsk <- dsbench_task(data, solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                        scorer = dsbench_scorer(settings = request_settings(cache = cache, batch = batch)),
                        dir = withr::local_tempdir())
    tsk$eval(solver_chat = baseline_constant("42"), scorer_chat = fake_responses_chat(server),
             view = FALSE)
    tsk$get_samples()
  }
  first <- run(TRUE)
  expect_equal(server$count(), nrow(data))
  expect_equal(server$uploads(), 1)
  expect_true(all(first$score == 1))
  again <- run(FALSE)
  expect_equal(server$count(), nrow(data))
  expect_true(all(vapply(again$scorer_metadata, `[[`, TRUE, "cached")))
})

test_that("without a judge, $eval() refuses before any answer is paid, as eval_set() does", {
  server <- local_fake_openai(function(body, n) "42")
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  tsk <- dsbench_task(dsbench_dataset(version = "sample"), dir = dir)
  err <- expect_error(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "needs a chat", fixed = TRUE)
  expect_match(conditionMessage(err), "dsbench_task(judge = )", fixed = TRUE)
  expect_match(conditionMessage(err), "Nothing was sent.", fixed = TRUE)
  expect_equal(server$count(), 0)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
  # a judge given to $eval() is the judge
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE,
                            scorer_chat = baseline_chat("True")))
  expect_equal(server$count(), nrow(tsk$get_samples()))
})
