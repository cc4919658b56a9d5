# A ResultsTask's `$eval()` a chunk at a time (R/results-eval.R): the same samples, scores,
# summary and log as one chunk, finished samples without their chats, the folder checked
# before anything is paid.

futurex_run <- function(chunk_size = NULL, epochs = NULL, chat = NULL, dir = NULL) {
  dir <- dir %||% withr::local_tempdir(.local_envir = parent.frame())
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = dir, epochs = epochs)
  tsk$chunk_size <- chunk_size
  chat <- chat %||% baseline_chat(choices = c("\\boxed{A}", "\\boxed{B}", "\\boxed{12.5}"))
  suppressMessages(tsk$eval(solver_chat = chat, view = FALSE))
  tsk
}

comparable <- function(samples) {
  samples$solver_chat <- NULL
  samples$scorer_chat <- NULL
  # a baseline chat's answers carry the time each took
  samples$solver_metadata <- lapply(samples$solver_metadata, function(m) {
    m$seconds <- NULL
    m
  })
  samples
}

# A logged sample's answer: its last assistant message's text, an `attachment://` reference
# resolved from the sample's attachments (the log keeps each long text once).
logged_answer <- function(sample) {
  said <- Filter(function(m) identical(m$role, "assistant"), sample$messages)
  content <- said[[length(said)]]$content
  if (is.list(content)) content <- content[[1]]$text
  if (startsWith(content, "attachment://")) {
    content <- sample$attachments[[sub("^attachment://", "", content)]]
  }
  content
}

test_that("a run in chunks gives the samples, summary and log of a run in one", {
  whole <- futurex_run()
  chunked <- futurex_run(chunk_size = 3)
  n <- nrow(futurex_dataset(version = "sample"))
  expect_equal(comparable(chunked$get_samples()), comparable(whole$get_samples()))
  expect_equal(futurex_summary(chunked), futurex_summary(whole))
  expect_equal(futurex_summary(chunked$log_path), futurex_summary(chunked))
  log <- jsonlite::fromJSON(chunked$log_path, simplifyVector = FALSE)
  one <- jsonlite::fromJSON(whole$log_path, simplifyVector = FALSE)
  expect_length(log$samples, n)
  expect_equal(vapply(log$samples, function(s) s$id, ""), whole$get_samples()$id)
  expect_equal(log$results, one$results)
  expect_equal(log$stats$model_usage, one$stats$model_usage)
  expect_equal(log$eval$metadata[c("headline", "dataset_fields", "solver_json")],
               one$eval$metadata[c("headline", "dataset_fields", "solver_json")])
  expect_equal(lapply(log$samples, `[[`, "metadata"), lapply(one$samples, `[[`, "metadata"))
  expect_equal(log_samples(chunked$log_path)$score, whole$get_samples()$score)
  expect_inspect_valid(c(chunked$log_path, whole$log_path))
})

test_that("finished samples of a run in chunks keep no chat turns; their chats are in the log", {
  chunked <- futurex_run(chunk_size = 4)
  samples <- chunked$get_samples()
  chats <- samples$solver_chat
  expect_true(all(vapply(chats, inherits, TRUE, "Chat")))
  expect_true(all(vapply(chats, function(ch) identical(ch, chats[[1]]), TRUE)))
  expect_length(chats[[1]]$get_turns(), 0)
  # each answer is in the log's messages; the chat names the log's model
  log <- jsonlite::fromJSON(chunked$log_path, simplifyVector = FALSE)
  expect_equal(chat_model_label(chats[[1]]), log$eval$model)
  answers <- vapply(log$samples, logged_answer, "")
  expect_equal(answers, samples$result)
  # $log() gives the run's log (in another folder, a copy of it)
  expect_equal(chunked$log(), chunked$log_path)
  other <- withr::local_tempdir()
  copy <- chunked$log(other)
  expect_equal(dirname(copy), other)
  expect_equal(futurex_summary(copy), futurex_summary(chunked))
  # a run in one chunk keeps its chats, as vitals' does
  whole <- futurex_run()
  expect_gt(length(whole$get_samples()$solver_chat[[1]]$get_turns()), 0)
})

test_that("a sample's epochs are solved in one chunk, in vitals' order", {
  whole <- futurex_run(epochs = 2)
  chunked <- futurex_run(chunk_size = 3, epochs = 2)
  samples <- chunked$get_samples()
  expect_equal(samples[c("id", "epoch")], whole$get_samples()[c("id", "epoch")])
  expect_equal(comparable(samples), comparable(whole$get_samples()))
  expect_equal(futurex_summary(chunked$log_path), futurex_summary(whole))
  chunks <- eval_chunks(futurex_dataset(version = "sample"), NULL, 3 %/% 2)
  expect_true(all(lengths(chunks) >= 1))
  expect_equal(sort(unlist(chunks)), seq_len(nrow(futurex_dataset(version = "sample"))))
})

test_that("chunks keep together the rows a scorer reads together", {
  d <- data.frame(id = as.character(1:7), suite = c("a", "b", "a", "c", "b", "a", "c"))
  expect_equal(eval_chunks(d, NULL, 3), list(1:3, 4:6, 7L))
  expect_equal(eval_chunks(d, "suite", 3), list(c(1L, 3L, 6L), c(2L, 4L, 5L, 7L)))
  expect_equal(eval_chunks(d, TRUE, 3), list(1:7))
  expect_error(eval_chunks(d, "topic", 3), class = "predictivebench_error_argument")
  expect_equal(attr(probsem_scorer(), "predictivebench_chunk_by"), c("prompt", "suite"))
})

test_that("probsem's fits on people read the whole suite in a run of one-sample chunks", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  programs <- sprintf("(condition (> (height 'ann) %d))", c(0, 50, 100))
  texts <- c(";; Ann is tall.", ";; Ann is short.", ";; Ann is very tall.")
  writeLines(c(";; Heights of people.", "(define height (mem (lambda (p) (gaussian 50 20))))"),
             file.path(dir, "ann.txt"))
  suite <- list(premise = ";;", query = ";;", programs = programs,
                context = lapply(texts, function(t) list(text = t, expected = -1L)))
  jsonlite::write_json(suite, file.path(dir, "ann_AV.json"), auto_unbox = TRUE)
  table <- prepare_probsem(file.path(dir, "ann.txt"))
  people <- list(c(50, 50, 100, 50, 0), c(0, 0, 50, 0, 100), c(100, 100, 50, 100, 100))
  table$human_judgements <- people
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  run <- function(chunk_size) {
    tsk <- probsem_task(table, dir = file.path(dir, "logs"),
                        solver = probsem_solver(settings = request_settings(cache = FALSE)))
    tsk$chunk_size <- chunk_size
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk
  }
  whole <- run(NULL)
  chunked <- run(1)
  expect_equal(chunked$get_samples()$score, whole$get_samples()$score)
  expect_true(all(!is.na(whole$get_samples()$score)))
  expect_identical(suppressMessages(probsem_summary(chunked$log_path)),
                   suppressMessages(probsem_summary(whole)))
})

test_that("a solver bound to its dataset gets each chunk's rows by position", {
  # two samples with the same input: a match by text could not tell them apart
  d <- futurex_dataset(version = "sample")
  d$input[[2]] <- d$input[[1]]
  tsk <- futurex_task(d, dir = withr::local_tempdir())
  tsk$chunk_size <- 2
  suppressMessages(tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE))
  expect_equal(tsk$get_samples()$id, d$id)
  expect_equal(sum(!is.na(tsk$get_samples()$score)), nrow(d))
})

test_that("$get_cost() and the log's usage count every chunk's requests", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  run <- function(chunk_size) {
    tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(.local_envir = parent.frame(2)),
                        solver = futurex_solver(settings = request_settings(cache = FALSE)))
    tsk$chunk_size <- chunk_size
    suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
    tsk
  }
  whole <- run(NULL)
  chunked <- run(4)
  n <- nrow(futurex_dataset(version = "sample"))
  expect_equal(server$count(), 2 * n)
  expect_equal(chunked$get_cost()[c("source", "provider", "model", "input", "output")],
               whole$get_cost()[c("source", "provider", "model", "input", "output")])
  expect_gt(sum(chunked$get_cost()$input), 0)
  expect_equal(log_usage(chunked$log_path), log_usage(whole$log_path))
  expect_equal(log_usage(chunked$log_path)$input_tokens, sum(chunked$get_cost()$input))
})

test_that("a log folder that is a file is refused before anything is sent", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  file <- withr::local_tempfile()
  writeLines("not a folder", file)
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = file,
                      solver = futurex_solver(settings = request_settings(cache = FALSE)))
  err <- expect_error(tsk$eval(solver_chat = fake_chat(server), view = FALSE),
                      class = "predictivebench_error_log_dir")
  expect_match(conditionMessage(err), basename(file), fixed = TRUE)
  expect_equal(server$count(), 0)
  expect_equal(readLines(file), "not a folder")
})

test_that("a run that fails midway leaves no log, only what its cache holds", {
  server <- local_fake_openai(function(body, n) if (n > 5) list(status = 401) else "\\boxed{A}")
  dir <- withr::local_tempdir()
  tsk <- futurex_task(futurex_dataset(version = "sample"), dir = dir,
                      solver = futurex_solver(settings = request_settings(cache = FALSE,
                                                                          max_active = 1)))
  tsk$chunk_size <- 3
  expect_error(suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE)))
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
})

test_that("a metadata field JSON text in any sample of a chunk is JSON text in all of them", {
  n <- 150  # more than one slice of the chunk is translated at a time
  d <- tibble::tibble(id = sprintf("s%03d", seq_len(n)), input = paste("q", seq_len(n)),
                      target = "A")
  base <- generate_solver(settings = request_settings(cache = FALSE))
  solver <- function(inputs, ..., solver_chat) {
    out <- base(inputs, ..., solver_chat = solver_chat)
    # one name in most samples, several in the last: JSON text ("[\"a\"]") in every sample
    out$solver_metadata <- lapply(seq_along(inputs), function(i) {
      c(out$solver_metadata[[i]], list(names = if (i > 140) c("a", "b") else "a"))
    })
    out
  }
  scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
  tsk <- ResultsTask$new(d, solver, scorer, benchmark = "chunk-json", dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = baseline_chat("A"), view = FALSE))
  back <- log_samples(tsk$log_path)
  expect_equal(back$solver_metadata[[1]]$names, "a")
  expect_equal(back$solver_metadata[[n]]$names, c("a", "b"))
  log <- jsonlite::fromJSON(tsk$log_path, simplifyVector = FALSE)
  expect_equal(log$samples[[1]]$metadata$names, "[\"a\"]")
})

test_that("a metadata field that turns JSON text in a later chunk reads back in every sample", {
  n <- 12
  d <- tibble::tibble(id = sprintf("s%02d", seq_len(n)), input = paste("q", seq_len(n)),
                      target = "A")
  base <- generate_solver(settings = request_settings(cache = FALSE))
  solver <- function(inputs, ..., solver_chat) {
    out <- base(inputs, ..., solver_chat = solver_chat)
    # "[1]" and "true" as plain text in the first chunks: read as JSON they would change
    out$solver_metadata <- lapply(inputs, function(input) {
      i <- as.integer(sub("q ", "", input))
      names <- if (i > 8) c("a", "b") else if (i == 1) "[1]" else if (i == 2) "true" else "a"
      c(out$solver_metadata[[1]], list(names = names))
    })
    out
  }
  scorer <- function(samples, ...) {
    list(score = as.numeric(samples$result == samples$target),
         scorer_metadata = lapply(samples$id, function(id) {
           list(seen = if (id == "s12") 1:2 else 7L)
         }))
  }
  tsk <- ResultsTask$new(d, solver, scorer, benchmark = "chunk-json", dir = withr::local_tempdir())
  tsk$chunk_size <- 4
  suppressMessages(tsk$eval(solver_chat = baseline_chat("A"), view = FALSE))
  live <- tsk$get_samples()
  back <- log_samples(tsk$log_path)
  expect_equal(lapply(back$solver_metadata, `[[`, "names"),
               lapply(live$solver_metadata, `[[`, "names"))
  expect_equal(back$solver_metadata[[1]]$names, "[1]")
  expect_equal(back$solver_metadata[[2]]$names, "true")
  expect_equal(lapply(back$scorer_metadata, `[[`, "seen"), c(rep(list(7L), 11), list(1:2)))
  header <- read_log_header(tsk$log_path)$eval$metadata
  expect_equal(header$solver_json_from, list(names = 9L))
  expect_equal(header$scorer_json_from, list(seen = 9L))
  # a run in one chunk writes the field as JSON text in every sample: nothing to record
  tsk$chunk_size <- NULL
  suppressMessages(tsk$eval(solver_chat = baseline_chat("A"), view = FALSE))
  expect_null(read_log_header(tsk$log_path)$eval$metadata$solver_json_from)
  expect_equal(log_samples(tsk$log_path)$solver_metadata[[1]]$names, "[1]")
  expect_inspect_valid(tsk$log_path)
})

test_that("a task evaluated again, or solved and scored by hand, starts from its dataset", {
  tsk <- futurex_run(chunk_size = 4)
  first <- tsk$log_path
  suppressMessages(tsk$eval(solver_chat = baseline_chat("\\boxed{B}"), view = FALSE))
  n <- nrow(futurex_dataset(version = "sample"))
  expect_equal(nrow(tsk$get_samples()), n)
  expect_true(all(tsk$get_samples()$result == "\\boxed{B}"))
  expect_false(identical(tsk$log_path, first))
  expect_true(file.exists(first))
  # vitals' steps one by one: each sample's chat, and $log() writes a log of its own
  suppressMessages({
    tsk$solve(solver_chat = baseline_chat("\\boxed{A}"))
    tsk$score()
    tsk$measure()
  })
  expect_gt(length(tsk$get_samples()$solver_chat[[2]]$get_turns()), 0)
  path <- tsk$log(withr::local_tempdir())
  expect_true(all(log_samples(path)$result == "\\boxed{A}"))
})

test_that("a cell of an evaluation set's overlap runs in chunks as well", {
  d <- futurex_dataset(version = "sample")
  tsk <- futurex_task(d, dir = withr::local_tempdir())
  tsk$chunk_size <- 3
  # a round that is off: the cell sends its own requests (R/evalset-overlap.R)
  steps <- character()
  round <- new_request_session(collector = new_request_collector(function(requests, keep) {
    requests$todo
  }))
  withCallingHandlers(
    with_request_session(round,
                         tsk$eval(solver_chat = baseline_chat("\\boxed{A}"), view = FALSE)),
    message = function(m) {
      steps <<- c(steps, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
  )
  expect_true(any(grepl("Solving (chunk 2 of", steps, fixed = TRUE)))
  expect_equal(nrow(tsk$get_samples()), nrow(d))
  expect_true(all(tsk$get_samples()$result == "\\boxed{A}"))
})

test_that("finished samples' metadata is kept as columns and given back as it was", {
  metas <- list(list(error = NA_character_, cached = FALSE, tokens = 10, note = "a"),
                list(error = "timeout", cached = TRUE, tokens = 3.5, note = "b"))
  packed <- pack_metadata(metas)
  expect_s3_class(packed, "predictivebench_packed")
  expect_equal(packed$columns$tokens, c(10, 3.5))
  expect_lt(as.numeric(object.size(pack_metadata(rep(metas, 500)))),
            as.numeric(object.size(rep(metas, 500))) / 10)
  expect_identical(unpack_metadata(packed), metas)
  # anything a column would change is kept as it is: a field whose type differs across
  # samples, one of several values or none, other fields, attributes, not a list
  mixed <- metas
  mixed[[2]]$error <- NA
  several <- metas
  several[[1]]$note <- c("a", "b")
  missing <- metas
  missing[[2]]$note <- NULL
  reordered <- metas
  reordered[[2]] <- reordered[[2]][4:1]
  classed <- metas
  class(classed[[1]]$tokens) <- "units"
  for (kept in list(mixed, several, missing, reordered, classed, list(NULL, NULL),
                    list("a", "b"), list(list(), list()))) {
    expect_identical(pack_metadata(kept), kept)
    expect_identical(unpack_metadata(pack_metadata(kept)), kept)
  }
  expect_identical(pack_metadata(c("x", "y")), c("x", "y"))
})

test_that("max_active = Inf or 1e9 (no limit) runs every request, in one chunk", {
  # chat answers, and echoed log-probabilities for probsem's completions
  server <- local_fake_openai(function(body, n) {
    if (!is.null(body$prompt)) echo_completion(body$prompt) else "\\boxed{A}"
  })
  n <- nrow(futurex_dataset(version = "sample"))
  for (no_limit in c(Inf, 1e9)) {
    tsk <- futurex_task(futurex_dataset(version = "sample"), dir = withr::local_tempdir(),
                        solver = futurex_solver(settings = request_settings(cache = FALSE)))
    expect_no_warning(suppressMessages(
      tsk$eval(solver_chat = fake_chat(server), view = FALSE, max_active = no_limit)
    ))
    expect_false(anyNA(tsk$get_samples()$result))
    expect_true(file.exists(tsk$log_path))
  }
  expect_equal(server$count(), 2 * n)
  expect_equal(chunk_rows_default(list(max_active = Inf)), .Machine$integer.max)
  # the completions transport's connection pool too (probsem's log-probabilities)
  tsk <- probsem_task(probsem_dataset(version = "sample"), dir = withr::local_tempdir(),
                      solver = probsem_solver(settings = request_settings(cache = FALSE)))
  expect_no_warning(suppressMessages(
    tsk$eval(solver_chat = fake_chat(server), view = FALSE, max_active = Inf)
  ))
  expect_false(anyNA(tsk$get_samples()$result))
})

test_that("a chat without its key stops $eval() before anything, as eval_set() does", {
  server <- local_fake_openai(function(body, n) "\\boxed{A}")
  # (ellmer skips a test instead of failing where TESTTHAT is "true")
  withr::local_envvar(OPENAI_API_KEY = NA, TESTTHAT = "false")
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  keyless <- ellmer::chat_openai_compatible(base_url = server$url, model = "m1")
  data <- futurex_dataset(version = "sample", limit = 2)
  dir <- withr::local_tempdir()
  said <- character()
  keep_messages <- function(expr) {
    withCallingHandlers(expr, message = function(m) {
      said <<- c(said, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  }
  err <- expect_error(keep_messages(futurex_task(data, dir = dir)$eval(solver_chat = keyless,
                                                                       view = FALSE)),
                      class = "predictivebench_error_credentials")
  expect_match(conditionMessage(err), "OPENAI_API_KEY", fixed = TRUE)
  expect_length(strsplit(cli::ansi_strip(conditionMessage(err)), "\n")[[1]], 1)
  # before the run began: no "Solving", nothing sent, no log
  expect_false(any(grepl("Solving", said)))
  # a judge without its key, given to the task or to $eval(): the same, before the solver's
  # requests are paid
  judged <- futurex_task(data, dir = dir, scorer = futurex_scorer(scorer_chat = keyless))
  expect_error(judged$eval(solver_chat = fake_chat(server), view = FALSE),
               class = "predictivebench_error_credentials")
  expect_error(futurex_task(data, dir = dir)$eval(solver_chat = fake_chat(server),
                                                  scorer_chat = keyless, view = FALSE),
               class = "predictivebench_error_credentials")
  expect_equal(server$count(), 0)
  expect_length(list.files(dir, all.files = TRUE, no.. = TRUE), 0)
  # the same error eval_set() gives
  set_err <- expect_error(eval_set("futurex@sample", list(keyless), log_dir = withr::local_tempdir(), options = set_options(limit = 2)),
                          class = "predictivebench_error_credentials")
  expect_equal(sub(":.*$", "", conditionMessage(set_err)), sub(":.*$", "", conditionMessage(err)))
})
