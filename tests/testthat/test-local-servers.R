# Local servers are first-class solvers: ellmer::chat_vllm(), ellmer::chat_ollama() and
# ellmer::chat_openai_compatible() pointed at a llama.cpp server run each benchmark's sample
# (FutureX, DSBench with its judge, ProcessBench, DeltaBench, the arena with its judge) at
# servers that serve only what the real ones do (helper-server-vllm.R, -ollama.R,
# -llamacpp.R), each model a reasoning model whose thinking guesses wrong: vLLM's in
# `reasoning_content`, Ollama's in `reasoning`, llama.cpp's (`--reasoning-format none`)
# inline in `<think>` tags. probsem needs a server's log-probabilities:
# its backends are tested at such servers with the log-probability tests.

local_oracle <- function() {
  futurex <- futurex_dataset(version = "sample", limit = 3)
  processbench <- processbench_dataset(version = "sample", limit = 3)
  deltabench <- deltabench_dataset(version = "sample")
  deltabench <- deltabench[lengths(deltabench$error_sections) > 0 &
                             !lengths(deltabench$unuseful_sections), ][1:2, ]
  answers <- c(
    rlang::set_names(paste0("\\boxed{", futurex$target, "}"), futurex$input),
    rlang::set_names(paste0("\\boxed{", processbench$label, "}"),
                     processbench_with_prompts(processbench, "generic")$input),
    rlang::set_names(paste0("Conclusion: yes\nError Section Number: ",
                            vapply(deltabench$error_sections, paste, "",
                                   collapse = "\nExplanation: x\nError Section Number: "),
                            "\nExplanation: x"),
                     deltabench_with_prompts(deltabench)$input)
  )
  list(futurex = futurex, processbench = processbench, deltabench = deltabench,
       answers = answers)
}

# The chat script of each server: the oracle's answer (or the judges' verdicts) after
# thinking that guesses wrong, so a benchmark that read the thinking would score less than 1.
local_answer <- function(answers) {
  function(body, n) {
    text <- last_user_text(body)
    content <- if (text %in% names(answers)) answers[[text]] else
      if (grepl("Please judge whether the generated answer", text, fixed = TRUE)) "True" else
      if (grepl("winner", text, fixed = TRUE)) "{\"winner\": 1, \"explanation\": \"fine\"}" else
      "The answer is 42."
    list(text = content,
         reasoning = "First guess \\boxed{0}. Error Section Number: 99. False. {\"winner\": 2}")
  }
}

# Each server, with the chat it is used through as its documentation shows it.
local_server <- function(kind, chat, .local_envir = parent.frame()) {
  switch(kind,
    vllm = {
      server <- local_fake_vllm(chat = chat, model = "qwen3", .local_envir = .local_envir)
      list(server = server,
           chat = ellmer::chat_vllm(base_url = server$url, model = "qwen3",
                                    credentials = function() "vllm-local-key"))
    },
    ollama = {
      server <- local_fake_ollama(chat = chat, model = "qwen3", .local_envir = .local_envir)
      list(server = server,
           chat = ellmer::chat_ollama(base_url = sub("/v1$", "", server$url), model = "qwen3"))
    },
    llamacpp = {
      server <- local_fake_llamacpp(chat = chat, reasoning_field = NULL, model = "qwen3",
                                    .local_envir = .local_envir)
      list(server = server,
           chat = ellmer::chat_openai_compatible(base_url = server$url, model = "qwen3",
                                                 name = "llama.cpp",
                                                 credentials = function() ""))
    }
  )
}

run_local_benchmarks <- function(chat, oracle) {
  settings <- request_settings(cache = FALSE, rpm = Inf)
  dir <- withr::local_tempdir()
  eval_task <- function(tsk, ...) {
    tsk$eval(solver_chat = chat, view = FALSE, ...)
    tsk$get_samples()
  }
  list(
    futurex = eval_task(futurex_task(oracle$futurex, solver = futurex_solver(settings = settings),
                                     dir = dir)),
    dsbench = eval_task(dsbench_task(dsbench_dataset(version = "sample", limit = 2),
                                     solver = dsbench_solver(settings = settings),
                                     scorer = dsbench_scorer(settings = settings), dir = dir),
                        scorer_chat = chat),
    processbench = eval_task(processbench_task(
      oracle$processbench, solver = processbench_solver(n_votes = 2, settings = settings),
      dir = dir
    )),
    deltabench = eval_task(deltabench_task(oracle$deltabench,
                                           solver = deltabench_solver(settings = settings),
                                           dir = dir)),
    arena = eval_task(arena_task(arena_dataset(version = "sample")[1:2, ],
                                 solver = arena_solver(settings = settings),
                                 scorer = arena_scorer(scorer_chat = chat, settings = settings),
                                 dir = dir))
  )
}

expect_local_run <- function(kind, oracle, server, runs) {
  for (name in names(runs)) {
    samples <- runs[[name]]
    expect_true(nrow(samples) >= 2, label = paste(kind, name, "samples"))
    expect_equal(as.double(samples$score), rep(1, nrow(samples)),
                 label = paste(kind, name, "scores"))
  }
  # the thinking is kept apart from the answer in each sample's chat
  turn <- runs$futurex$solver_chat[[1]]$last_turn()
  thinking <- Filter(function(x) S7::S7_inherits(x, ellmer::ContentThinking), turn@contents)
  expect_length(thinking, 1)
  expect_match(thinking[[1]]@thinking, "First guess", fixed = TRUE)
  expect_false(grepl("First guess", turn@text, fixed = TRUE))
  log <- server$log()
  # every answer came from the chat-completions endpoint the server serves (nothing else
  # was asked for and refused)
  chats <- log[log$method == "POST" & log$path == "/v1/chat/completions", ]
  # at least one request per sample and vote, and the judges' (cache off)
  expect_gte(nrow(chats), 3 + 2 * 2 + 3 * 2 + 2 + 2 * 2)
  expect_true(all(log$path %in% c("/v1/chat/completions", "/api/tags", "/api/show")))
  log
}

for (kind in c("vllm", "ollama", "llamacpp")) {
  test_that(paste("every benchmark's sample runs at a local", kind, "server"), {
    skip_on_cran()
    oracle <- local_oracle()
    local <- local_server(kind, local_answer(oracle$answers))
    server <- local$server
    runs <- run_local_benchmarks(local$chat, oracle)
    log <- expect_local_run(kind, oracle, server, runs)
    posts <- log[log$method == "POST" & log$path == "/v1/chat/completions", ]
    if (kind == "vllm") {
      # the key goes to its own server, as a bearer token
      expect_true(all(posts$auth == "Bearer vllm-local-key"))
    }
    if (kind == "ollama") {
      # chat_ollama() checked the server and the model before any answer was asked for
      expect_true("/api/tags" %in% log$path)
      expect_lt(match("/api/tags", log$path), match("/v1/chat/completions", log$path))
    }
  })
}
