# Reasoning is kept, never scored, for every benchmark; answers cut off at the token limit
# are counted. Each benchmark runs over real HTTP at a fake vLLM server (helper-server-vllm.R)
# serving a reasoning model: its thinking `<think>` inline in the answer, or in vLLM's
# `reasoning_content`, and `finish_reason = "length"` at the token limit.

# A vLLM server whose chat script is `answer(text)`: for a prompt's text, a list of `text`,
# `reasoning` and `finish_reason` (helper-server-common.R), or a list of such, one per
# choice. It runs in the server's process.
reasoning_server <- function(answer, .local_envir = parent.frame()) {
  local_fake_vllm(chat = function(body, n) answer(last_user_text(body)),
                  .local_envir = .local_envir)
}

no_cache <- function() request_settings(cache = FALSE)

# ellmer's own warning for an answer stopped at the token limit, given once per call: the
# answers these tests cut off are on purpose
quietly_cut <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("max_tokens", conditionMessage(w), fixed = TRUE)) invokeRestart("muffleWarning")
  })
}

thinking_of <- function(chat) {
  contents <- chat$last_turn()@contents
  thinking <- Filter(function(x) S7::S7_inherits(x, ellmer::ContentThinking), contents)
  paste(vapply(thinking, function(x) x@thinking, ""), collapse = "\n")
}

futurex_oracle_task <- function(server, data = futurex_dataset(version = "sample")) {
  tsk <- futurex_task(data, solver = futurex_solver(settings = no_cache()),
                      dir = withr::local_tempdir(.local_envir = parent.frame()))
  quietly_cut(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  tsk
}

futurex_boxed_targets <- function(data) {
  # an answer the reference scores 1: the target boxed (a boxed target as it is)
  rlang::set_names(ifelse(startsWith(data$target, "\\boxed{"), data$target,
                          paste0("\\boxed{", data$target, "}")), data$input)
}

test_that("FutureX scores the answer behind </think>, not the guess inside it", {
  data <- futurex_dataset(version = "sample")
  right <- futurex_boxed_targets(data)
  server <- reasoning_server(function(text) {
    list(text = paste0("<think>First guess \\boxed{X}</think>\n", right[[text]]))
  })
  tsk <- futurex_oracle_task(server, data)
  samples <- tsk$get_samples()
  expect_equal(samples$score, rep(1, nrow(data)))
  # the thinking is kept in the sample's chat, apart from the answer
  expect_equal(thinking_of(samples$solver_chat[[1]]), "First guess \\boxed{X}")
  expect_false(grepl("<think>", samples$solver_chat[[1]]$last_turn()@text, fixed = TRUE))
  expect_false(any(vapply(samples$solver_metadata, `[[`, TRUE, "truncated")))
  summary <- expect_no_message(futurex_summary(tsk), class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = 0, answers = nrow(data)))
})

test_that("FutureX: an answer only in unfinished thinking scores 0 and is counted", {
  data <- futurex_dataset(version = "sample")
  right <- futurex_boxed_targets(data)
  server <- reasoning_server(function(text) {
    list(text = paste0("<think>Surely ", right[[text]], " but let me check"),
         finish_reason = "length")
  })
  tsk <- futurex_oracle_task(server, data)
  samples <- tsk$get_samples()
  expect_equal(samples$score, rep(0, nrow(data)))
  expect_true(all(vapply(samples$solver_metadata, `[[`, TRUE, "truncated")))
  expect_message(summary <- futurex_summary(tsk),
                 sprintf("%d of %d answers were cut off at the token limit", nrow(data),
                         nrow(data)),
                 class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = nrow(data), answers = nrow(data)))
  expect_equal(summary$estimate[[1]], 0)
  # the count survives the log: the summary of the log file says the same
  expect_message(from_log <- futurex_summary(tsk$log_path),
                 class = "predictivebench_message_truncated")
  expect_equal(attr(from_log, "truncated"), attr(summary, "truncated"))
})

test_that("FutureX reads a server's separate reasoning field as reasoning", {
  data <- futurex_dataset(version = "sample")[1:3, ]
  right <- futurex_boxed_targets(data)
  server <- reasoning_server(function(text) {
    if (grepl("Yes or No", text)) {
      # vLLM cut off inside its reasoning parser: no content at all
      return(list(reasoning = paste("I'd say", right[[text]]),
                  finish_reason = "length"))
    }
    list(text = right[[text]], reasoning = "First guess \\boxed{X}")
  })
  samples <- futurex_oracle_task(server, data)$get_samples()
  cut <- vapply(samples$solver_metadata, `[[`, TRUE, "truncated")
  expect_equal(samples$score, ifelse(cut, 0, 1))
  expect_true(any(cut) && !all(cut))
  expect_equal(thinking_of(samples$solver_chat[[which(!cut)[[1]]]]), "First guess \\boxed{X}")
})

test_that("futurex_score() scores a prediction file's answers after their thinking", {
  data <- futurex_dataset(version = "sample")[1:3, ]
  right <- unname(futurex_boxed_targets(data))
  data$answer <- paste0("<think>\\boxed{X}</think>", right)
  data$answer[[3]] <- paste0("<think>", right[[3]])  # only in unfinished thinking
  data$has_answer <- TRUE
  scores <- suppressMessages(futurex_score(data))
  expect_equal(scores$items$score, c(1, 1, 0))
})

test_that("the FutureX judge's values are read from its answer, not its thinking", {
  judge <- reasoning_server(function(text) {
    list(text = "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5",
         reasoning = "GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 99")
  })
  judge_inline <- reasoning_server(function(text) {
    list(text = paste0("<think>GROUND_TRUTH_VALUE: 1\nPREDICTION_VALUE: 99</think>",
                          "GROUND_TRUTH_VALUE: 12.5\nPREDICTION_VALUE: 12.5"))
  })
  data <- futurex_dataset(version = "sample")
  data <- data[data$id == "fx-l3-temp", ]
  for (server in list(judge, judge_inline)) {
    tsk <- futurex_task(data, solver = futurex_solver(settings = no_cache()),
                        scorer = futurex_scorer(settings = no_cache()),
                        dir = withr::local_tempdir())
    tsk$eval(solver_chat = baseline_constant("\\boxed{99}"), scorer_chat = fake_chat(server),
             view = FALSE)
    samples <- tsk$get_samples()
    expect_equal(samples$scorer_metadata[[1]]$pred_value, 12.5)
    expect_equal(samples$score, 1)
  }
})

test_that("DSBench judges the answer without thinking, by a verdict outside the judge's", {
  data <- dsbench_dataset(version = "sample", limit = 2)
  solver <- reasoning_server(function(text) {
    list(text = "<think>It might be Z. True</think>\nThe answer is 42.")
  })
  # a reasoning judge: its thinking says true, its answer says False
  judge <- reasoning_server(function(text) {
    list(text = "<think>Perhaps True... no.</think>False")
  })
  tsk <- dsbench_task(data, solver = dsbench_solver(settings = no_cache()),
                      scorer = dsbench_scorer(settings = no_cache()),
                      dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(solver), scorer_chat = fake_chat(judge), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(samples$score, c(0, 0))
  expect_equal(samples$result, rep("The answer is 42.", 2))
  expect_equal(vapply(samples$scorer_metadata, `[[`, "", "judge_reply"), c("False", "False"))
  # what the judge read: the prediction, not the solver's thinking
  sent <- vapply(judge$requests(), last_user_text, "")
  expect_true(all(grepl("The answer is 42.", sent, fixed = TRUE)))
  expect_false(any(grepl("might be Z", sent, fixed = TRUE)))
  expect_equal(thinking_of(samples$solver_chat[[1]]), "It might be Z. True")
  expect_false(any(vapply(samples$solver_metadata, `[[`, TRUE, "truncated")))
})

test_that("DSBench counts answers cut off at the token limit", {
  data <- dsbench_dataset(version = "sample", limit = 3)
  solver <- reasoning_server(function(text) {
    list(text = "<think>Let me compute the", finish_reason = "length")
  })
  tsk <- dsbench_task(data, solver = dsbench_solver(settings = no_cache()),
                      scorer = dsbench_scorer_exact(), dir = withr::local_tempdir())
  quietly_cut(tsk$eval(solver_chat = fake_chat(solver), view = FALSE))
  samples <- tsk$get_samples()
  expect_equal(samples$result, rep("", 3))
  meta <- samples$solver_metadata
  expect_true(all(vapply(meta, `[[`, TRUE, "truncated")))
  expect_false(any(vapply(meta, `[[`, TRUE, "prompt_truncated")))
  expect_message(summary <- dsbench_summary(tsk), "3 of 3 answers were cut off",
                 class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = 3, answers = 3))
})

test_that("DSBench says how many verdicts a reasoning judge left unfinished", {
  data <- dsbench_dataset(version = "sample", limit = 2)
  judge <- reasoning_server(function(text) {
    list(reasoning = "The prediction matches. True, I think, but",
         finish_reason = "length")
  })
  tsk <- dsbench_task(data, solver = dsbench_solver(settings = no_cache()),
                      scorer = dsbench_scorer(settings = no_cache()),
                      dir = withr::local_tempdir())
  quietly_cut(tsk$eval(solver_chat = baseline_constant("42"), scorer_chat = fake_chat(judge),
                       view = FALSE))
  samples <- tsk$get_samples()
  expect_equal(samples$score, c(0, 0))
  expect_true(all(vapply(samples$scorer_metadata, `[[`, TRUE, "judge_truncated")))
  expect_message(dsbench_summary(tsk), "2 of 2 judge verdicts were cut off",
                 class = "predictivebench_message_truncated")
})

processbench_oracle <- function(data) {
  # each prompt's label, boxed: what a right vote says
  prompts <- processbench_with_prompts(data, "generic")$input
  rlang::set_names(paste0("\\boxed{", data$label, "}"), prompts)
}

test_that("ProcessBench votes on each vote's answer, one request per vote", {
  data <- processbench_dataset(version = "sample", limit = 3)
  right <- processbench_oracle(data)
  server <- reasoning_server(function(text) {
    list(text = right[[text]], reasoning = "Step 0 looks wrong: \\boxed{0}")
  })
  tsk <- processbench_task(data, solver = processbench_solver(n_votes = 2,
                                                                settings = no_cache()),
                           dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(samples$score, rep(1, 3))
  expect_equal(samples$result, as.character(data$label))
  expect_equal(vapply(samples$solver_metadata, `[[`, 1, "truncated"), rep(0, 3))
})

test_that("ProcessBench reads each choice of an n request after its thinking", {
  data <- processbench_dataset(version = "sample", limit = 3)
  right <- processbench_oracle(data)
  server <- reasoning_server(function(text) {
    # three choices: two answers behind </think> whose thinking guessed 0, and one cut off
    # inside its thinking, which guessed 0 too
    list(list(text = paste0("<think>\\boxed{0}</think>", right[[text]])),
         list(text = "<think>\\boxed{0}", finish_reason = "length"),
         list(text = right[[text]], reasoning = "\\boxed{0}"))
  })
  tsk <- processbench_task(data, solver = processbench_solver(n_votes = 3,
                                                                n_per_request = TRUE,
                                                                settings = no_cache()),
                           dir = withr::local_tempdir())
  quietly_cut(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  samples <- tsk$get_samples()
  expect_equal(server$count(), 3)
  expect_equal(samples$result, as.character(data$label))
  meta <- samples$solver_metadata
  expect_equal(vapply(meta, `[[`, 1, "n_valid"), rep(2, 3))
  expect_equal(vapply(meta, `[[`, 1, "truncated"), rep(1, 3))
  expect_false(any(grepl("<think>", unlist(lapply(meta, `[[`, "critiques")), fixed = TRUE)))
  expect_message(summary <- processbench_summary(tsk), "3 of 9 answers were cut off",
                 class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = 3, answers = 9))
})

test_that("DeltaBench scores the critique after the thinking", {
  data <- deltabench_dataset(version = "sample")
  data <- data[lengths(data$error_sections) > 0 & !lengths(data$unuseful_sections), ][1:2, ]
  # one "Error Section Number:" entry per erroneous section, as the prompt asks
  gold <- rlang::set_names(vapply(data$error_sections, paste, "",
                                  collapse = "\nExplanation: x\nError Section Number: "),
                           deltabench_with_prompts(data)$input)
  server <- reasoning_server(function(text) {
    list(text = paste0("<think>Conclusion: no\nError Section Number: 99</think>\n",
                          "Conclusion: yes\nError Section Number: ", gold[[text]],
                          "\nExplanation: x"))
  })
  tsk <- deltabench_task(data, solver = deltabench_solver(settings = no_cache()),
                         dir = withr::local_tempdir())
  tsk$eval(solver_chat = fake_chat(server), view = FALSE)
  samples <- tsk$get_samples()
  expect_equal(samples$score, c(1, 1))
  summary <- expect_no_message(deltabench_summary(tsk, by = NULL),
                               class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = 0, answers = 2))
})

test_that("DeltaBench counts critiques cut off inside their thinking", {
  data <- deltabench_dataset(version = "sample")[1:2, ]
  server <- reasoning_server(function(text) {
    list(text = "<think>Conclusion: yes\nError Section Number: 1", finish_reason = "length")
  })
  tsk <- deltabench_task(data, solver = deltabench_solver(settings = no_cache()),
                         dir = withr::local_tempdir())
  quietly_cut(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  expect_equal(tsk$get_samples()$result, c("", ""))
  expect_message(deltabench_summary(tsk, by = NULL), "2 of 2 answers were cut off",
                 class = "predictivebench_message_truncated")
})

test_that("the arena's judge reads answers without thinking, its verdict outside its own", {
  data <- arena_dataset(version = "sample")[1:2, ]
  solver <- reasoning_server(function(text) {
    list(text = "<think>secret plan</think>My considered answer.")
  })
  # thinking that prefers the reference answer; an answer that prefers the model's
  judge <- reasoning_server(function(text) {
    list(text = "{\"winner\": 1}", reasoning = "{\"winner\": 2}")
  })
  judge_inline <- reasoning_server(function(text) {
    list(text = "<think>{\"winner\": 2}</think>{\"winner\": 1}")
  })
  for (server in list(judge, judge_inline)) {
    tsk <- arena_task(data, solver = arena_solver(settings = no_cache()),
                      scorer = arena_scorer(scorer_chat = fake_chat(server),
                                            settings = no_cache()),
                      dir = withr::local_tempdir())
    tsk$eval(solver_chat = fake_chat(solver), view = FALSE)
    samples <- tsk$get_samples()
    expect_equal(samples$result, rep("My considered answer.", 2))
    expect_true(all(samples$score == 1))
    sent <- vapply(server$requests(), last_user_text, "")
    expect_true(length(sent) > 0)
    expect_true(all(grepl("My considered answer.", sent, fixed = TRUE)))
    expect_false(any(grepl("secret plan", sent, fixed = TRUE)))
  }
})

test_that("the arena task's summary counts answers cut off at the token limit", {
  data <- arena_dataset(version = "sample")[1:2, ]
  solver <- reasoning_server(function(text) {
    if (grepl("winner", text, fixed = TRUE)) return(list(text = "{\"winner\": 2}"))
    list(text = "<think>First I will", finish_reason = "length")
  })
  tsk <- arena_task(data, solver = arena_solver(settings = no_cache()),
                    scorer = arena_scorer(scorer_chat = fake_chat(solver), settings = no_cache()),
                    dir = withr::local_tempdir())
  quietly_cut(tsk$eval(solver_chat = fake_chat(solver), view = FALSE))
  expect_equal(tsk$get_samples()$result, c("", ""))
  expect_message(summary <- arena_summary(tsk), "2 of 2 answers were cut off",
                 class = "predictivebench_message_truncated")
  expect_equal(attr(summary, "truncated"), c(truncated = 2, answers = 2))
})

test_that("arena_answers() keeps answers after thinking and says how many were cut off", {
  server <- reasoning_server(function(text) {
    if (grepl("long", text, fixed = TRUE)) {
      return(list(text = "<think>Let me write a long", finish_reason = "length"))
    }
    list(text = "Short answer.", reasoning = "A plan.")
  })
  questions <- c("A short question?", "A long question?", "Another short one?")
  expect_message(
    answers <- quietly_cut(arena_answers(questions, list(qwen = fake_chat(server)),
                                         settings = no_cache())),
    "1 of 3 answers were cut off", class = "predictivebench_message_truncated"
  )
  expect_equal(answers$qwen[match(questions, answers$question)],
               c("Short answer.", "", "Short answer."))
})
