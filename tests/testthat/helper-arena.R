# Shared scaffolding of the arena tests (test-arena-*.R): the EloBench reference files,
# small battles and counting judges.

# A file of the original EloBench (or the folder, without `name`) from shared/reference;
# NULL when absent, so tests can skip.
elobench_reference <- function(name = NULL) {
  candidates <- c(
    file.path(testthat::test_path(), "..", "..", "..", "shared", "reference", "elobench"),
    "/work/shared/reference/elobench"
  )
  for (dir in candidates) {
    path <- if (is.null(name)) dir else file.path(dir, name)
    if (file.exists(path)) return(normalizePath(path))
  }
  NULL
}

sample_battles <- function(n_questions = 3, models = c("m1", "m2", "m3")) {
  questions <- paste("Question", seq_len(n_questions))
  answers <- tibble::tibble(question = questions)
  for (i in seq_along(models)) {
    answers[[models[[i]]]] <- paste(strrep("word ", i), "answer to", questions)
  }
  arrangement <- arena_arrange(questions, models, n = n_questions, seed = 1)
  arena_battles(arrangement, answers)
}

counting_judge <- function(counter, rule = "longer", name = "counting-judge", sleep = 0) {
  inner <- arena_baseline_judge(rule)
  baseline_chat(function(prompt) {
    counter$n <- counter$n + 1
    if (sleep > 0) Sys.sleep(sleep)
    inner$responder(prompt)
  }, name = name)
}

named_constant <- function(answer, name) baseline_chat(function(q) answer, name = name)

arena_folder <- function(questions, dataset = "toy") {
  dir <- withr::local_tempdir(.local_envir = parent.frame())
  dir.create(file.path(dir, "data", dataset), recursive = TRUE)
  utils::write.csv(data.frame(question = questions),
                   file.path(dir, "data", dataset, "questions.csv"), row.names = FALSE)
  dir
}

simulate_battles <- function(n, strength, seed = 1, tie_rate = 0.1) {
  withr::with_seed(seed, {
    models <- names(strength)
    a <- sample(models, n, replace = TRUE)
    b <- vapply(a, function(m) sample(setdiff(models, m), 1), "")
    p <- 1 / (1 + 10^((strength[b] - strength[a]) / 400))
    u <- stats::runif(n)
    winner <- ifelse(u < tie_rate, "tie", ifelse(stats::runif(n) < p, "model_a", "model_b"))
    data.frame(model_a = a, model_b = unname(b), winner = winner,
               question = paste0("q", sample.int(50, n, replace = TRUE)))
  })
}

# A fake server answering as the models "m1", "m2", "m3" (answers of different lengths) and as
# a judge that prefers the first answer.
arena_parts_server <- function(.local_envir = parent.frame()) {
  local_fake_openai(function(body, n) {
    if (identical(body$model, "judge-lm")) return('{"winner": 1, "explanation": "first"}')
    words <- as.integer(sub("^m", "", body$model))
    paste(c(rep(body$model, 10 * words), "on", last_user_text(body)), collapse = " ")
  }, .local_envir = .local_envir)
}

# arena_run() of those three models on `questions`, judged by "judge-lm", all at `url`.
arena_parts_run <- function(url, logs, cache, questions = paste("Q", 1:6)) {
  chats <- lapply(stats::setNames(nm = c("m1", "m2", "m3")), function(m) {
    ellmer::chat_openai_compatible(base_url = url, model = m, credentials = function() "sk-x")
  })
  judge <- ellmer::chat_openai_compatible(base_url = url, model = "judge-lm",
                                          credentials = function() "sk-x")
  arena_run(chats, judge, dataset = data.frame(question = questions), dir = logs,
            settings = request_settings(cache = cache, rpm = Inf),
            options = arena_options(strategy = "all",
                                    ratings = rating_options(method = "elo", bootstrap = 0)))
}
