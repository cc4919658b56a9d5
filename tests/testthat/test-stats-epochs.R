# Epoch reducers (R/stats-epochs.R): hand-worked pass@k, pass^k, mode with ties and
# at_least_k, then reducers through the summaries, the board and a set, with intervals over
# samples (not samples x epochs).

test_that("pass@k is the unbiased estimator 1 - C(n - c, k) / C(n, k), worked by hand", {
  # n = 5, c = 2, k = 2: 1 - C(3, 2) / C(5, 2) = 1 - 3/10 = 0.7
  expect_equal(pass_at_k(5, 2, 2), 0.7)
  # n = 10, c = 5, k = 2: 1 - C(5, 2) / C(10, 2) = 1 - 10/45 = 7/9
  expect_equal(pass_at_k(10, 5, 2), 7 / 9)
  # n = 4, c = 1, k = 3: 1 - C(3, 3) / C(4, 3) = 1 - 1/4 = 0.75
  expect_equal(pass_at_k(4, 1, 3), 0.75)
  # k = 1 is the share correct: n = 7, c = 3 -> 3/7
  expect_equal(pass_at_k(7, 3, 1), 3 / 7)
  # no correct epoch: 0; fewer incorrect epochs than k (n = 4, c = 3, k = 2): always 1
  expect_equal(pass_at_k(c(3, 4), c(0, 3), 2), c(0, 1))
  # fewer epochs than k: not defined
  expect_equal(pass_at_k(1, 1, 2), NA_real_)
  # the product form where the binomial coefficients overflow: C(5000, 500) is Inf in doubles
  expect_identical(choose(5000, 500), Inf)
  expect_equal(pass_at_k(5000, 10, 500),
               1 - exp(lchoose(4990, 500) - lchoose(5000, 500)), tolerance = 1e-12)
  expect_error(pass_at_k(3, 4, 2), class = "predictivebench_error_argument")
})

test_that("pass^k is C(c, k) / C(n, k), the chance that all k draws are correct", {
  # n = 5, c = 2, k = 2: C(2, 2) / C(5, 2) = 1/10
  expect_equal(pass_hat_k(5, 2, 2), 0.1)
  # n = 5, c = 4, k = 3: C(4, 3) / C(5, 3) = 4/10
  expect_equal(pass_hat_k(5, 4, 3), 0.4)
  # c < k: 0; all correct: 1; k = 1: c / n
  expect_equal(pass_hat_k(c(5, 3, 4), c(1, 3, 1), 2), c(0, 1, 0))
  expect_equal(pass_hat_k(8, 6, 1), 6 / 8)
})

test_that("mode is the most frequent score, a tie going to the lowest, in any order", {
  samples <- data.frame(
    id = rep(c("tie2", "maj", "tie3", "one"), c(2, 3, 5, 1)),
    score = c(1, 0,          # 1-1: the lower, 0
              1, 0, 1,       # 2-1: 1
              1, 0.5, 1, 0.5, 0,  # 1 and 0.5 twice each: 0.5
              1)
  )
  expect_equal(reduce_epochs(samples, "mode")$score, c(0, 1, 0.5, 1))
  reversed <- samples[rev(seq_len(nrow(samples))), ]
  out <- reduce_epochs(reversed, "mode")
  expect_equal(out$score[match(c("tie2", "maj", "tie3", "one"), out$id)], c(0, 1, 0.5, 1))
})

test_that("mean, max and at_least_k reduce each sample's epochs; n counts samples", {
  samples <- data.frame(id = rep(c("a", "b", "c"), each = 3), epoch = rep(1:3, 3),
                        score = c(1, 0, 1,  0, 0, 0,  0.8, 1, 0.8))
  out <- reduce_epochs(samples, "mean")
  expect_equal(out$id, c("a", "b", "c"))
  expect_equal(out$score, c(2 / 3, 0, 2.6 / 3))
  expect_equal(out$epochs, c(3L, 3L, 3L))
  expect_false("epoch" %in% names(out))
  expect_equal(reduce_epochs(samples, "max")$score, c(1, 0, 1))
  # a: 2 correct, b: 0, c: 1 (0.8 is not full credit)
  expect_equal(reduce_epochs(samples, "at_least_k", k = 2)$score, c(1, 0, 0))
  expect_equal(reduce_epochs(samples, "at_least_k", k = 1)$score, c(1, 0, 1))
  # with threshold 0.8 every epoch of c is correct
  expect_equal(reduce_epochs(samples, "at_least_k", k = 3, threshold = 0.8)$score, c(0, 0, 1))
  # vitals' I/C scores are 0/1
  expect_equal(reduce_epochs(data.frame(id = c(1, 1), score = c("C", "I")), "max")$score, 1)
})

test_that("epochs without a score are dropped, and too few epochs for k give NA", {
  samples <- data.frame(id = rep(c("a", "b"), each = 3), score = c(1, NA, 0, NA, NA, 1))
  out <- reduce_epochs(samples, "pass_at_k", k = 2)
  # a: n = 2, c = 1, k = 2: 1 - C(1, 2) / C(2, 2) = 1; b: one scored epoch < k
  expect_equal(out$score, c(1, NA))
  expect_equal(out$epochs, c(2L, 1L))
})

test_that("at_least_k, like pass_at_k and pass_hat_k, gives NA with fewer than k scored epochs", {
  # three epochs, the first failed: 2 scored < k = 3, so the sample can't be judged (it
  # scored 0 before, as if the failed epoch were wrong)
  samples <- data.frame(id = rep(c("q1", "q2"), each = 3), epoch = rep(0:2, 2),
                        score = c(NA, 1, 1,  1, 1, 1))
  for (reducer in c("pass_at_k", "pass_hat_k", "at_least_k")) {
    expect_equal(reduce_epochs(samples, reducer, k = 3)$score, c(NA, 1), label = reducer)
  }
  s <- grouped_summary(samples$score, id = samples$id, reducer = "at_least_k", k = 3,
                       limits = c(0, 1))
  expect_equal(c(s$estimate, s$n, s$n_missing), c(1, 1, 1))
})

test_that("reducers and k are checked, with classed errors", {
  samples <- data.frame(id = c("a", "a"), score = c(1, 0))
  expect_error(reduce_epochs(samples, "median"), class = "predictivebench_error_argument")
  expect_error(reduce_epochs(samples, "pass_at_k"), class = "predictivebench_error_argument")
  expect_error(reduce_epochs(samples, "mean", k = 2), class = "predictivebench_error_argument")
  expect_error(reduce_epochs(samples, "pass_at_k", k = 3),
               class = "predictivebench_error_argument")
  expect_error(reduce_epochs(data.frame(score = 1), "max"),
               class = "predictivebench_error_argument")
  expect_error(grouped_summary(c(1, 0), reducer = "max"), class = "predictivebench_error_argument")
  expect_error(grouped_summary(c(1, 0), k = 2), class = "predictivebench_error_argument")
})

test_that("grouped_summary() with a reducer: one score per sample, the interval over samples", {
  x <- c(1, 0, 1,  0, 0, 0,  1, 1, 1,  1, 0, 0)
  id <- rep(c("q1", "q2", "q3", "q4"), each = 3)
  topic <- rep(c("a", "a", "b", "b"), each = 3)
  rows <- grouped_summary(x, by = topic, metric = "accuracy", id = id, reducer = "pass_at_k",
                          k = 2, limits = c(0, 1))
  # per sample (n = 3 epochs, k = 2): q1 c = 2 -> 1 - C(1,2)/C(3,2) = 1; q2 c = 0 -> 0;
  # q3 c = 3 -> 1; q4 c = 1 -> 1 - C(2,2)/C(3,2) = 2/3
  per_sample <- c(1, 0, 1, 2 / 3)
  expect_equal(rows$group, c("overall", "a", "b"))
  expect_equal(rows$metric, rep("accuracy_pass_at_2", 3))
  expect_equal(rows$estimate, c(mean(per_sample), 0.5, 5 / 6))
  expect_equal(rows$n, c(4L, 2L, 2L))
  # the interval is mean_ci()'s over the four samples' values, not over 12 epochs
  ci <- mean_ci(per_sample, limits = c(0, 1))
  expect_equal(c(rows$lower[[1]], rows$upper[[1]]), c(ci$lower, ci$upper))
  # the default is every score, unreduced, as before reducers existed
  expect_equal(grouped_summary(x, by = topic, metric = "accuracy", limits = c(0, 1)),
               grouped_summary(x, by = topic, metric = "accuracy", limits = c(0, 1),
                               reducer = NULL, k = NULL, id = id))
  expect_equal(grouped_summary(x)$n, 12L)
})

# A FutureX-shaped task of four single-choice items (level 1), each epoch's answer from a
# per-question plan at a fake server: the k-th request for a question gets the plan's k-th
# answer. Which epoch gets which answer depends on arrival order, but every reducer depends
# only on each item's set of answers.
epoch_plan <- list(
  "Q-alpha" = c("Yes", "No", "No"),   # target Yes: c = 1
  "Q-beta" = c("Yes", "Yes", "No"),   # target Yes: c = 2
  "Q-gamma" = c("Yes", "Yes", "Yes"), # target No:  c = 0
  "Q-delta" = c("No", "No", "No")     # target No:  c = 3
)

epoch_table <- function() {
  base <- futurex_dataset(version = "sample")[1, ]
  rows <- base[rep(1, 4), ]
  rows$id <- paste0("fx-", tolower(sub("Q-", "", names(epoch_plan))))
  rows$input <- paste(names(epoch_plan), "Will it happen? Answer Yes or No.")
  rows$target <- c("Yes", "Yes", "No", "No")
  rows
}

epoch_server <- function(.local_envir = parent.frame()) {
  make_reply <- function(plan) {
    seen <- new.env()
    function(body, n) {
      text <- last_user_text(body)
      q <- names(plan)[vapply(names(plan), grepl, TRUE, x = text, fixed = TRUE)][[1]]
      k <- (seen[[q]] %||% 0L) + 1L
      seen[[q]] <- k
      paste0("\\boxed{", plan[[q]][[k]], "}")
    }
  }
  local_fake_openai(make_reply(epoch_plan), .local_envir = .local_envir)
}

test_that("a FutureX-shaped task with epochs = 3 at a varying server gives the hand-worked reductions", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- epoch_server()
  tsk <- futurex_task(epoch_table(), dir = withr::local_tempdir())
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), epochs = 3, view = FALSE))
  expect_equal(server$count(), 12)
  samples <- tsk$get_samples()
  expect_equal(sort(as.numeric(tapply(samples$score, samples$id, sum))), c(0, 1, 2, 3))

  level1 <- function(...) {
    s <- suppressMessages(futurex_summary(tsk, ...))
    s[s$group == "level 1", ]
  }
  # per item (alpha, beta, gamma, delta) with c = 1, 2, 0, 3 correct of n = 3:
  expected <- list(
    mean = c(1 / 3, 2 / 3, 0, 1),
    mode = c(0, 1, 0, 1),
    max = c(1, 1, 0, 1),
    # 1 - C(3 - c, 2) / C(3, 2): c = 1 -> 1 - 1/3; c = 2 -> 1 - 0; c = 0 -> 0; c = 3 -> 1
    pass_at_k = c(2 / 3, 1, 0, 1),
    # C(c, 2) / C(3, 2): c = 1 -> 0; c = 2 -> 1/3; c = 0 -> 0; c = 3 -> 1
    pass_hat_k = c(0, 1 / 3, 0, 1),
    at_least_k = c(0, 1, 0, 1)
  )
  for (reducer in names(expected)) {
    k <- if (reducer %in% c("pass_at_k", "pass_hat_k", "at_least_k")) 2
    row <- level1(reducer = reducer, k = k)
    expect_equal(row$estimate, mean(expected[[reducer]]), info = reducer)
    # four items, not twelve epochs; the interval is over the four reduced values
    expect_equal(row$n, 4L, info = reducer)
    ci <- mean_ci(expected[[reducer]], limits = c(0, 1))
    expect_equal(c(row$lower, row$upper), c(ci$lower, ci$upper), info = reducer)
  }
  expect_equal(unique(suppressMessages(futurex_summary(tsk, reducer = "pass_at_k", k = 2))$metric),
               "score_pass_at_2")
  # the default: every epoch's score, n = 12, exactly as without reducers
  default <- level1()
  expect_equal(default$n, 12L)
  expect_equal(default$estimate, 6 / 12)
  expect_equal(default$metric, "score")
  # the log gives the same reduced numbers as the task
  expect_equal(suppressMessages(futurex_summary(tsk$log_path, reducer = "mode")),
               suppressMessages(futurex_summary(tsk, reducer = "mode")))
  expect_error(futurex_summary(tsk, reducer = "pass_at_k", k = 4),
               class = "predictivebench_error_argument")

  # the board: the header's numbers by default, the reduced ones when asked
  board <- leaderboard(tsk$log_path, reducer = "pass_at_k", k = 2)
  expect_equal(board$metric[[1]], "overall pass_at_2")
  expect_equal(board$estimate[board$metric == "level 1 pass_at_2"], mean(expected$pass_at_k))
  expect_equal(board$n[board$metric == "level 1 pass_at_2"], 4L)
  expect_equal(leaderboard(tsk, reducer = "pass_at_k", k = 2)$estimate, board$estimate)
  plain <- leaderboard(tsk$log_path)
  expect_equal(plain$metric[[1]], "overall")
  expect_equal(plain$n[plain$metric == "level 1"], 12L)
})

test_that("DSBench reduces each question's epochs; failures and cost still count every epoch", {
  samples <- tibble::tibble(
    id = rep(c("q1", "q2", "q3"), each = 2), epoch = rep(1:2, 3),
    competition_id = rep(c("c1", "c1", "c2"), each = 2),
    score = c(1, 0,  0, 0,  1, 1)
  )
  s <- suppressMessages(dsbench_summary(samples, reducer = "max", cluster = NULL))
  # max per question: 1, 0, 1 -> 2/3 over 3 questions; competitions: c1 0.5, c2 1
  expect_equal(s$metric[1:2], c("accuracy_max", "accuracy_max"))
  expect_equal(s$estimate[1:2], c(2 / 3, 0.75))
  expect_equal(s$n[1:2], c(3L, 2L))
  default <- suppressMessages(dsbench_summary(samples, cluster = NULL))
  expect_equal(default$estimate[[1]], 0.5)
  expect_equal(default$n[[1]], 6L)
})

test_that("a set with epochs reports the reducer's headline from its logs, sending nothing more", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- epoch_server()
  logs <- withr::local_tempdir()
  tsk <- futurex_task(epoch_table(), dir = withr::local_tempdir())
  set <- function(...) {
    suppressMessages(eval_set(list(futurex = tsk), list(fake_chat(server)), log_dir = logs, ..., options = set_options(epochs = 3)))
  }
  reduced <- set(reducer = "pass_at_k", k = 2)
  expect_equal(server$count(), 12)
  expect_equal(reduced$status, "done")
  # FutureX's overall weighs level 1 by 0.1 (eval.py's weights, not renormalised); the items'
  # pass@2 are 2/3, 1, 0, 1 (see above)
  expect_equal(reduced$metric, "overall pass_at_2")
  expect_equal(reduced$headline, 0.1 * mean(c(2 / 3, 1, 0, 1)))
  # another reducer is read from the same log: the cell is reused, nothing is sent
  mode <- set(reducer = "mode")
  expect_true(mode$reused)
  expect_equal(mode$cell_id, reduced$cell_id)
  expect_equal(mode$headline, 0.1 * mean(c(0, 1, 0, 1)))
  expect_equal(server$count(), 12)
  # without a reducer: the headline as the log's header has it, every epoch's score
  plain <- set()
  expect_equal(plain$metric, "overall")
  expect_equal(plain$headline, 0.1 * 6 / 12)
  expect_equal(server$count(), 12)
})

test_that("a set refuses a reducer a benchmark can't take, or a k above its epochs, before sending", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  server <- local_set_server()
  logs <- withr::local_tempdir()
  chats <- set_chats(server, "m1")
  expect_error(eval_set(c("futurex@sample", "processbench@sample"), chats, log_dir = logs, options = set_options(epochs = 2, reducer = "mean")),
               class = "predictivebench_error_reducer")
  expect_error(eval_set("futurex@sample", chats, log_dir = logs, options = set_options(epochs = 2, reducer = "pass_at_k", k = 3)),
               class = "predictivebench_error_reducer")
  expect_error(eval_set("futurex@sample", chats, log_dir = logs, options = set_options(reducer = "at_least_k", k = 2)),
               class = "predictivebench_error_reducer")
  expect_equal(server$count(), 0)
})

test_that("a benchmark of your own reduces epochs through grouped_summary(), on the board too", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  questions <- tibble::tibble(id = paste0("q", 1:4), input = paste("question", 1:4),
                              target = c("yes", "yes", "no", "no"),
                              topic = c("a", "a", "b", "b"))
  summary <- function(x, reducer = NULL, k = NULL) {
    x <- benchmark_samples(x, c("score", "topic"), "an evaluated epochtoy task.")
    benchmark_summary(grouped_summary(as_score(x$score), by = x$topic, metric = "accuracy",
                                      limits = c(0, 1), reducer = reducer, k = k, id = x$id),
                      "epochtoy")
  }
  local_benchmarks(list(new_benchmark("epochtoy", list(fn = summary), data = list(
    sample = questions,
    schema = data.frame(name = c("id", "input", "target", "topic"), type = "string")))))
  scorer <- function(samples, ...) list(score = as.numeric(samples$result == samples$target))
  tsk <- benchmark_task(benchmark_dataset("epochtoy", version = "sample"), vitals::generate(),
                        scorer, epochs = 2, dir = withr::local_tempdir(), benchmark = "epochtoy")
  suppressMessages(tsk$eval(solver_chat = baseline_chat("yes"), view = FALSE))
  board <- leaderboard(tsk$log_path, reducer = "at_least_k", k = 2)
  # every epoch answers "yes": q1, q2 correct twice (1), q3, q4 never (0); the headline is
  # the registered default, "overall"
  expect_equal(board$metric, "overall at_least_2")
  expect_equal(board$estimate, 0.5)
  expect_equal(board$n, 4L)
  expect_equal(leaderboard(tsk$log_path)$n, 8L)
  rows <- summary(tsk, reducer = "at_least_k", k = 2)
  expect_equal(rows$estimate, c(0.5, 1, 0))
  expect_equal(rows$n, c(4L, 2L, 2L))
})

test_that("on a board under a reducer, a log whose benchmark can't reduce is skipped, saying why", {
  withr::local_options(predictivebench.cache_dir = withr::local_tempdir())
  dir <- withr::local_tempdir()
  chat <- baseline_chat("\\boxed{A}", name = "a")
  fx <- futurex_task(futurex_dataset(version = "sample", limit = 3), dir = dir, epochs = 2)
  suppressMessages(fx$eval(solver_chat = chat, view = FALSE))
  pb <- processbench_task(processbench_dataset(version = "sample", limit = 2), dir = dir)
  suppressMessages(pb$eval(solver_chat = chat, view = FALSE))
  expect_warning(board <- leaderboard(dir, reducer = "max"),
                 class = "predictivebench_warning_skipped_logs")
  expect_equal(unique(board$benchmark), "futurex")
  expect_true(all(endsWith(board$metric, " max")))
  expect_equal(board$n[board$metric == "overall max"], 3L)
  # a task is refused outright
  expect_error(leaderboard(pb, reducer = "max"), class = "predictivebench_error_reducer")
  # without a reducer both are on the board, as before
  expect_setequal(unique(leaderboard(dir)$benchmark), c("futurex", "processbench"))
})
