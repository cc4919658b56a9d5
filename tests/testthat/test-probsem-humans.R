# A made-up experiment: three sentences, programs at thresholds 0, 50, 100, judgements of
# five people each.
pbh_programs <- sprintf("(condition (> (height 'ann) %d))", c(0, 50, 100))
pbh_texts <- c(";; Ann is tall.", ";; Ann is short.", ";; Ann is very tall.")
pbh_humans <- function() {
  data.frame(subject_id = 1:5,
             "ann is tall" = c(50, 50, 100, 50, 0),
             "ann is short" = c(0, 0, 50, 0, 100),
             "ann is very tall" = c(100, 100, 50, 100, 100),
             check.names = FALSE)
}
pbh_people <- list(c(1, 3, 1) / 5, c(3, 1, 1) / 5, c(0, 1, 4) / 5)
pbh_model <- function(weights = c(-3, -1, -2, -1, -2, -4, -5, -2, -1)) {
  data.frame(text = rep(pbh_texts, each = 3), program = rep(pbh_programs, 3),
             weights = weights)
}

test_that("js_distance() is scipy's jensenshannon with the natural log", {
  expect_equal(js_distance(c(1, 0), c(0, 1)), sqrt(log(2)))
  expect_equal(js_distance(c(0.2, 0.8), c(0.2, 0.8)), 0)
  # m = (0.75, 0.25): KL(p, m) = log(4/3) / 2, KL(q, m) = log(4/3)
  expect_equal(js_distance(c(0.5, 0.5), c(1, 0)), sqrt(0.75 * log(4 / 3)))
  # each side is scaled to sum 1 first; columns of matrices are pairs
  expect_equal(js_distance(c(1, 1), c(2, 0)), sqrt(0.75 * log(4 / 3)))
  expect_equal(js_distance(cbind(c(1, 0), c(0.5, 0.5)), cbind(c(0, 1), c(1, 0))),
               c(sqrt(log(2)), sqrt(0.75 * log(4 / 3))))
})

test_that("the model distribution follows the program thresholds, not the row order", {
  humans <- pbh_humans()
  model <- pbh_model()
  shuffled <- model[c(3, 1, 2, 6, 5, 4, 8, 9, 7), ]
  expect_identical(probsem_compare_humans(shuffled, humans, permutations = 200),
                   probsem_compare_humans(model, humans, permutations = 200))
})

test_that("a model that says what people say is at distance 0 with temperature 1", {
  people <- list(c(1, 3, 1) / 5, c(3, 1, 1) / 5, c(1, 1, 3) / 5)
  humans <- data.frame("ann is tall" = c(0, 50, 50, 50, 100),
                       "ann is short" = c(0, 0, 0, 50, 100),
                       "ann is very tall" = c(0, 50, 100, 100, 100), check.names = FALSE)
  out <- probsem_compare_humans(pbh_model(log(unlist(people))), humans, permutations = 100)
  expect_equal(out$text, pbh_texts)
  expect_equal(out$js_distance, c(0, 0, 0), tolerance = 1e-3)
  expect_equal(out$temperature, c(1, 1, 1), tolerance = 1e-3)
  expect_named(out, c("text", "js_distance", "pval", "temperature"))
})

test_that("each sentence's temperature is fitted on the other sentences only", {
  model <- pbh_model()
  humans <- pbh_humans()
  out <- probsem_compare_humans(model, humans, permutations = 100)
  # Refit the first sentence's temperature by hand: minimize over the two others.
  others <- function(t) {
    js_distance(pbh_people[[2]], logprob_softmax(c(-1, -2, -4) / t)) +
      js_distance(pbh_people[[3]], logprob_softmax(c(-5, -2, -1) / t))
  }
  best <- stats::optimize(others, c(0.01, 20))$minimum
  expect_equal(out$temperature[[1]], best, tolerance = 1e-3)
  expect_equal(out$js_distance[[1]],
               js_distance(pbh_people[[1]], logprob_softmax(c(-3, -1, -2) / out$temperature[[1]])))
  # Changing a sentence's own weights changes its distance but not its temperature.
  changed <- model
  changed$weights[1:3] <- c(-1, -9, -1)
  again <- probsem_compare_humans(changed, humans, permutations = 100)
  expect_equal(again$temperature[[1]], out$temperature[[1]])
  expect_false(isTRUE(all.equal(again$js_distance[[1]], out$js_distance[[1]])))
})

test_that("p-values are seeded shares of shuffles at most as far apart", {
  model <- pbh_model()
  humans <- pbh_humans()
  a <- probsem_compare_humans(model, humans, permutations = 500, seed = 3)
  expect_identical(probsem_compare_humans(model, humans, permutations = 500, seed = 3), a)
  set.seed(99)
  before <- stats::runif(1)
  set.seed(99)
  probsem_compare_humans(model, humans, permutations = 50, seed = 3)
  expect_identical(stats::runif(1), before)
  # By hand, for the first sentence: the same shuffles in the same order.
  pval <- withr::with_seed(3, {
    human <- pbh_people[[1]]
    m <- logprob_softmax(c(-3, -1, -2) / a$temperature[[1]])
    h <- replicate(500, human[sample.int(3)])
    q <- replicate(500, m[sample.int(3)])
    mean(js_distance(h, q) <= a$js_distance[[1]])
  })
  expect_equal(a$pval[[1]], pval)
  expect_true(all(a$pval >= 0 & a$pval <= 1))
})

test_that("samples of a probsem task give the same answer as the results layout", {
  softmax <- logprob_softmax
  weights <- split(pbh_model()$weights, rep(1:3, each = 3))
  samples <- tibble::tibble(
    id = paste0("AV-", 0:2), prompt = "ann", suite = "AV", context_index = 0:2,
    text = pbh_texts, expected = -1L,
    solver_metadata = lapply(weights, function(w) {
      list(queries = pbh_programs, logp = w, prob = softmax(w))
    })
  )
  from_samples <- probsem_compare_humans(samples, pbh_humans(), permutations = 100)
  from_table <- probsem_compare_humans(pbh_model(), pbh_humans(), permutations = 100)
  expect_equal(from_samples$suite, rep("AV", 3))
  expect_equal(from_samples[names(from_table)], from_table)
  # A suite none of whose sentences people judged is left out, with a message.
  other <- samples
  other$suite <- "B"
  other$id <- paste0("B-", 0:2)
  other$text <- paste(";; Bob", c("runs.", "walks.", "sits."))
  expect_message(both <- probsem_compare_humans(rbind(samples, other), pbh_humans(),
                                                permutations = 100),
                 class = "predictivebench_message_skipped")
  expect_equal(both$suite, rep("AV", 3))
})

test_that("bad input is a classed error naming the file, row and field", {
  dir <- withr::local_tempdir()
  humans <- pbh_humans()
  humans[["ann is short"]][[4]] <- 30
  path <- file.path(dir, "humans.csv")
  utils::write.csv(humans, path, row.names = FALSE)
  err <- expect_error(probsem_compare_humans(pbh_model(), path),
                      class = "predictivebench_error_field")
  expect_equal(c(err$file, err$row, err$field), c(path, "4", "ann is short"))
  err <- expect_error(probsem_compare_humans(pbh_model(), pbh_humans()[-3]),
                      class = "predictivebench_error_field")
  expect_match(conditionMessage(err), "Ann is short")
  no_number <- pbh_model()
  no_number$program[[5]] <- "(condition (tall 'ann))"
  err <- expect_error(probsem_compare_humans(no_number, pbh_humans()),
                      class = "predictivebench_error_field")
  expect_equal(c(err$row, err$field), c("5", "program"))
  bad_weight <- pbh_model()
  bad_weight$weights[[2]] <- NA
  expect_error(probsem_compare_humans(bad_weight, pbh_humans()),
               class = "predictivebench_error_field")
  expect_error(probsem_compare_humans(pbh_model(), file.path(dir, "none.csv")),
               class = "predictivebench_error_missing_file")
  expect_error(probsem_compare_humans(pbh_model()[1:3, ], pbh_humans()),
               class = "predictivebench_error_argument")
  expect_error(probsem_compare_humans(data.frame(text = "a"), pbh_humans()),
               class = "predictivebench_error_argument")
})

test_that("the CogSci 2023 distances equal the published ones; p-values within MC error", {
  dir <- skip_if_no_reference("probsem-cogsci2023")
  humans <- file.path(dir, "tug-of-war_AV-1_human_results.csv")
  for (suite in c("AV-1a", "AV-1b")) {
    name <- paste0("tug-of-war_", suite, "_code-davinci-002_")
    results <- utils::read.csv(file.path(dir, paste0(name, "results.csv")))
    published <- utils::read.csv(file.path(dir, paste0(name, "stats.csv")))
    out <- probsem_compare_humans(results, humans)
    expect_equal(out$text, published$text)
    expect_equal(out$js_distance, published$js_distance, tolerance = 1e-3)
    expect_lt(max(abs(out$js_distance - published$js_distance)), 1e-9)
    # Two independent estimates of the same p from 10,000 shuffles each.
    se <- sqrt(2 * pmax(published$pval * (1 - published$pval), 1e-4) / 10000)
    expect_true(all(abs(out$pval - published$pval) <= 4 * se), label = suite)
    expect_true(all(out$temperature > 0))
  }
})

# The made-up experiment as a task table, in the CogSci 2023 suites' format (needs Python).
pbh_table <- function(dir) {
  writeLines(c(";; Heights of people.", "(define height (mem (lambda (p) (gaussian 50 20))))"),
             file.path(dir, "ann.txt"))
  suite <- list(premise = ";;", query = ";;", programs = pbh_programs,
                context = lapply(pbh_texts, function(t) list(text = t, expected = -1L)))
  jsonlite::write_json(suite, file.path(dir, "ann_AV.json"), auto_unbox = TRUE)
  prepare_probsem(file.path(dir, "ann.txt"))
}

test_that("an evaluated task and its log file are compared with people", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  table <- pbh_table(dir)
  expect_equal(table$text, pbh_texts)
  tsk <- probsem_task(table, dir = file.path(dir, "logs"),
                      solver = probsem_solver(settings = request_settings(cache = FALSE)))
  # The baseline names the middle program: all of the model's probability is on 50, at
  # every temperature (the other programs' weights are -Inf).
  tsk$eval(solver_chat = baseline_constant(pbh_programs[[2]]), view = FALSE)
  out <- probsem_compare_humans(tsk, pbh_humans(), permutations = 100)
  expect_equal(out$suite, rep("AV", 3))
  expect_equal(out$text, pbh_texts)
  expect_equal(out$js_distance, vapply(pbh_people, js_distance, 0, q = c(0, 1, 0)))
  expect_equal(probsem_compare_humans(tsk$log_path, pbh_humans(), permutations = 100), out)
  expect_equal(probsem_compare_humans(tsk$get_samples(), pbh_humans(), permutations = 100),
               out)
  all_inf <- pbh_model()
  all_inf$weights[4:6] <- -Inf
  expect_error(probsem_compare_humans(all_inf, pbh_humans()),
               class = "predictivebench_error_field")
})

test_that("a task carrying human judgements: distance to people from its log equals the task's", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  programs <- pbh_programs
  texts <- pbh_texts
  table <- pbh_table(dir)
  humans <- pbh_humans()
  table$human_judgements <- lapply(sub("^;; ", "", sub("[.]$", "", tolower(texts))),
                                   function(column) humans[[column]])
  server <- local_fake_openai(function(body, n) echo_completion(body$prompt))
  tsk <- probsem_task(table, dir = file.path(dir, "logs"),
                      solver = probsem_solver(settings = request_settings(cache = FALSE)))
  suppressMessages(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  live <- suppressMessages(probsem_summary(tsk))
  expect_equal(live$group[[1]], "overall")
  expect_equal(live$metric[[1]], "js_distance")
  expect_identical(suppressMessages(probsem_summary(tsk$log_path)), live)
  # each sample's row in the viewer: its own context and queries, and its own score
  log <- jsonlite::fromJSON(tsk$log_path, simplifyVector = FALSE)
  inputs <- vapply(log$samples, function(s) s$input, "")
  expect_equal(unname(vapply(texts, function(t) sum(startsWith(inputs, t)), 1L)), c(1L, 1L, 1L))
  expect_true(all(grepl(programs[[2]], inputs, fixed = TRUE)))
  scores <- vapply(log$samples, function(s) s$scores[[1]]$value, 1)
  sentences <- live[live$n == 1 & grepl(": ", live$group), ]
  expect_equal(sort(scores), sort(sentences$estimate))
  # the header's first metric is the mean distance
  expect_equal(names(log$results$scores[[1]]$metrics)[[1]], "overall js_distance")
  expect_equal(log$results$scores[[1]]$metrics[[1]]$value, live$estimate[[1]])
  expect_inspect_valid(tsk$log_path)
})

test_that("a human results file is read whole or refused by row: ragged rows, bad bytes", {
  path <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("subject_id,jack is strong,jack is weak", "1,80,", "2,70", "3,NA,20"), path)
  err <- expect_error(probsem_read_humans(path), class = "predictivebench_error_csv")
  expect_identical(err$row, 2L)
  expect_match(conditionMessage(err), "human results file")
  writeLines(c("subject_id,jack is strong,jack is weak", "1,80,", "3,NA,20"), path)
  humans <- probsem_read_humans(path)
  expect_identical(humans$value, c(80, 20))
  expect_identical(humans$row, c(1L, 2L))
})
