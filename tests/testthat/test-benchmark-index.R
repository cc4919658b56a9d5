test_that("benchmarks register, list and unregister", {
  # A summary given by name is looked up in the package namespace when used: a function the
  # tests define (arith_summary(), helper-results.R) is not there when the tests run on the
  # installed package (R CMD check), so the name is one of the package's own summaries.
  old <- register_benchmark(new_benchmark("reg-test", list(
    fn = "futurex_summary", headline = "weighted", by = "level", interval = "90% interval")))
  withr::defer(unregister_benchmark("reg-test"))
  expect_null(old)
  listed <- registered_benchmarks()
  row <- listed[listed$name == "reg-test", ]
  expect_equal(row$headline[[1]], "weighted")
  expect_equal(row$interval, "90% interval")
  entry <- require_registration("reg-test")
  expect_identical(entry$summary, futurex_summary)
  expect_equal(unregister_benchmark("reg-test")$by, "level")
  expect_false("reg-test" %in% registered_benchmarks()$name)
  expect_error(require_registration("reg-test"), "No benchmark")
})

test_that("registered_benchmarks() lists what a user can run or ask for, not the arena's inner logs", {
  listed <- registered_benchmarks()$name
  expect_true(all(c("futurex", "processbench", "arena") %in% listed))
  # the arena's battle and rating logs are parts of the arena, neither indexed nor listed
  expect_false(any(c("arena_battles", "arena_ratings") %in% listed))
  expect_null(registration("arena_ratings"))
  expect_identical(benchmark_by(require_benchmark("arena_battles")), "model")
  # the unknown name's error names only what a user can ask for
  err <- expect_error(require_registration("nope"), "No benchmark")
  expect_no_match(conditionMessage(err), "arena_ratings")
  # a user's own internal registration (the deprecated flat field) is read, and left out
  # too; the flag is checked
  inner <- new_benchmark("reg-inner", list(fn = identity))
  old <- index_benchmark(inner, internal = TRUE)
  withr::defer(unregister_benchmark("reg-inner"))
  expect_false("reg-inner" %in% registered_benchmarks()$name)
  expect_identical(require_registration("reg-inner")$summary, identity)
  expect_true(unregister_benchmark("reg-inner")$internal)
  expect_error(index_benchmark(inner, internal = NA), class = "predictivebench_error_argument")
  # listed or not is the index's: the verb lists what it registers
  index_benchmark(inner, internal = TRUE)
  register_benchmark(inner, replace = TRUE)
  expect_true("reg-inner" %in% registered_benchmarks()$name)
})

test_that("registering a name again is a classed error unless it says it replaces it", {
  err <- expect_error(register_benchmark(new_benchmark("futurex", list(fn = identity))),
                      class = "predictivebench_error_registered")
  expect_equal(err$field, "name")
  expect_match(conditionMessage(err), "replace = TRUE", fixed = TRUE)
  expect_equal(registration("futurex")$summary, "futurex_summary")
  # a registration of the session, the same way
  twice <- function(headline) new_benchmark("reg-twice", list(fn = identity, headline = headline))
  register_benchmark(twice("a"))
  withr::defer(unregister_benchmark("reg-twice"))
  expect_error(register_benchmark(twice("b")), class = "predictivebench_error_registered")
  # the same registration again (hooks run twice) is no error
  expect_no_error(register_benchmark(twice("a")))
  old <- register_benchmark(twice("b"), replace = TRUE)
  expect_equal(registration("reg-twice")$headline, "b")
  # what it returns puts the old one back
  register_benchmark(old, replace = TRUE)
  expect_equal(registration("reg-twice")$headline, "a")
})

test_that("the benchmarks carry their data, headline statistic and cluster", {
  # every benchmark run by name has a sample and data of its own, and the package has some
  by_name <- set_benchmark_names()
  expect_gte(length(by_name), 1)
  expect_true(all(by_name %in% names(data_benchmarks())))
  for (b in by_name) expect_false(is.null(registration(b)$sample), label = b)
  expect_equal(registration("deltabench")$schema, "processbench")
  expect_equal(headline_statistic("futurex")$metric, "overall")
  expect_equal(headline_statistic("processbench")$metric, "overall f1")
  expect_equal(headline_statistic("deltabench")$metric, "overall f1_macro")
  expect_true(headline_statistic("dsbench")$is_mean)
  local_benchmarks(list(new_benchmark("stat-test", list(fn = identity,
                                                        headline = c("overall", "worst")),
                                      comparison = list(statistic = min, metric = "worst"))))
  expect_equal(headline_statistic("stat-test")$metric, "worst")
  expect_equal(benchmark_cluster("dsbench", data.frame(competition_id = 1)), "competition_id")
  shared <- data.frame(id = c("a", "b"), problem = c("p", "p"))
  expect_equal(benchmark_cluster("processbench", shared), "problem")
  expect_equal(benchmark_cluster("deltabench", data.frame(id = "a", problem = "p")), "id")
})

# ---- No switch on benchmark names in the shared layers --------------------------------------

test_that("the shared layers name no benchmark outside comments", {
  dir <- test_path("..", "..", "R")
  skip_if_not(dir.exists(dir), "the package's R/ sources are not here (an installed copy)")
  files <- list.files(dir, pattern = "^(engine|datasets|results|stats)-.*\\.R$", full.names = TRUE)
  expect_gt(length(files), 10)
  names <- "\\b(futurex|processbench|deltabench|probsem|dsbench|arena)"
  found <- unlist(lapply(files, function(f) {
    lines <- readLines(f, warn = FALSE)
    hit <- grepl(names, lines, perl = TRUE) & !grepl("^\\s*#", lines)
    if (any(hit)) paste0(basename(f), ":", which(hit), ": ", trimws(lines[hit]))
  }))
  expect_identical(found, NULL)
})

# ---- Proof: a seventh benchmark, defined entirely here ---------------------------------------
#
# "toyqa": short questions in three topics. Its headline is its worst topic's accuracy (not a
# mean of the scores), its items cluster by topic, and its real version is a pinned CSV that
# its own preparer reads. Nothing outside this file knows it.

toyqa_schema <- data.frame(name = c("id", "input", "target", "topic"), type = "string")

toyqa_sample <- tibble::tibble(
  id = paste0("q", 1:6),
  input = c("1 + 1?", "2 + 2?", "Capital of France?", "Capital of Italy?", "Red + blue?",
            "Blue + yellow?"),
  target = c("2", "4", "Paris", "Rome", "purple", "green"),
  topic = rep(c("sums", "capitals", "colours"), each = 2)
)

# The raw file of its real version: question,answer,topic.
prepare_toyqa <- function(source, out = NULL) {
  raw <- utils::read.csv(source, stringsAsFactors = FALSE)
  table <- tibble::tibble(id = paste0("q", seq_len(nrow(raw))), input = raw$question,
                          target = raw$answer, topic = raw$topic)
  if (is.null(out)) table else write_task_table(table, out, "toyqa")
}

toyqa_summary <- function(x) {
  x <- benchmark_samples(x, c("score", "topic"), "an evaluated toyqa task or its samples.")
  rows <- grouped_summary(as_score(x$score), by = x$topic, metric = "accuracy",
                          limits = c(0, 1))
  topics <- rows[rows$group != "overall", ]
  worst <- topics[which.min(topics$estimate), ]
  worst$group <- "worst"
  benchmark_summary(rbind(worst, rows), "toyqa", by = "topic")
}

toyqa_worst_topic <- function(items) min(tapply(items$score, items$topic, mean))

toyqa_dataset <- function(path = NULL, version = NULL, limit = NULL) {
  benchmark_dataset("toyqa", path, version = version, limit = limit)
}

toyqa_task <- function(dataset = toyqa_dataset(version = "sample"), dir) {
  scorer <- function(samples, ...) {
    list(score = as.numeric(trimws(samples$result) == samples$target))
  }
  benchmark_task(dataset, vitals::generate(), scorer, dir = dir, benchmark = "toyqa")
}

local_toyqa <- function(versions = NULL, env = parent.frame()) {
  local_benchmarks(list(new_benchmark(
    "toyqa", task = toyqa_task,
    summary = list(fn = toyqa_summary, headline = c("worst", "overall"), by = "topic"),
    data = list(dataset = toyqa_dataset, schema = toyqa_schema, sample = toyqa_sample,
                versions = versions, prepare = prepare_toyqa),
    comparison = list(statistic = toyqa_worst_topic, columns = "topic", cluster = "topic")
  )), env = env)
}

# Knows sums and capitals; answers "no idea" on colours.
toyqa_partial <- function() {
  gold <- toyqa_sample[toyqa_sample$topic != "colours", ]
  baseline_chat(function(prompt) {
    hit <- gold$target[gold$input == prompt]
    if (length(hit)) hit else "no idea"
  }, name = "toy-partial")
}

test_that("a seventh benchmark registered in a test runs dataset, task, eval, summary, board and comparison", {
  local_toyqa()
  dir <- withr::local_tempdir()

  # _dataset(): the registered sample, checked against the registered schema
  data <- toyqa_dataset(version = "sample")
  expect_equal(nrow(data), 6)
  bad <- toyqa_sample
  bad$topic <- 1:6
  expect_error(toyqa_dataset(bad), class = "predictivebench_error_schema")
  expect_equal(nrow(toyqa_dataset(version = "sample", limit = 2)), 2)

  # _task() and $eval() with offline baselines
  oracle <- toyqa_task(data, dir)
  oracle$eval(solver_chat = baseline_chat(function(p) data$target[data$input == p],
                                          name = "toy-oracle"), view = FALSE)
  partial <- toyqa_task(data, dir)
  partial$eval(solver_chat = toyqa_partial(), view = FALSE)

  # _summary(): the task and its log agree
  live <- toyqa_summary(partial)
  expect_equal(live$estimate[live$group == "worst"], 0)
  expect_equal(live$estimate[live$group == "overall"], 4 / 6)
  from_log <- toyqa_summary(log_samples(partial$log_path))
  expect_equal(from_log[c("group", "estimate", "lower", "upper", "n")],
               live[c("group", "estimate", "lower", "upper", "n")])
  # the log's headline is the registered one
  expect_setequal(names(log_json(partial$log_path)$results$scores[[1]]$metrics),
                  c("worst", "overall"))

  # leaderboard(): the registered headline rows, per model, from tasks and from the logs
  board <- suppressMessages(leaderboard(oracle, partial))
  expect_equal(unique(board$benchmark), "toyqa")
  expect_setequal(board$metric, c("worst", "overall"))
  expect_equal(board$estimate[endsWith(board$model, "toy-oracle") & board$metric == "worst"], 1)
  expect_equal(board$estimate[endsWith(board$model, "toy-partial") & board$metric == "overall"], 4 / 6)
  from_logs <- suppressMessages(leaderboard(dir))
  expect_equal(sort(from_logs$estimate), sort(board$estimate))

  # compare_models(): the registered statistic (worst topic) and cluster (topic)
  cmp <- suppressMessages(compare_models(oracle, partial,
                                         options = comparison_options(times = 200)))
  expect_equal(cmp$benchmark, "toyqa")
  expect_equal(cmp$metric, "worst")
  expect_equal(c(cmp$x, cmp$y, cmp$difference), c(1, 0, 1))
  expect_equal(cmp$n_clusters, 3)
  # plain samples with the statistic's columns: compared on the mean, with a hint naming it
  plain <- function(t) t$get_samples()[c("id", "score", "topic")]
  msg <- expect_message(compare_models(plain(oracle), plain(partial)),
                        class = "predictivebench_message_benchmark")
  expect_match(conditionMessage(msg), "benchmark = \"toyqa\"", fixed = TRUE)

  # eval_set(): the toy's cells run unchanged, each headline read from its registration
  # (a baseline is identified by its function and what that function's environment holds:
  # made in a function of its own, not in this frame, which changes as the test goes on)
  set_dir <- withr::local_tempdir()
  oracle_chat <- function(data) {
    baseline_chat(function(p) data$target[data$input == p], name = "toy-oracle")
  }
  models <- list(oracle_chat(data), toyqa_partial())
  set <- suppressMessages(eval_set(list(toyqa = toyqa_task(data, set_dir)), models,
                                   log_dir = set_dir))
  expect_equal(nrow(set), 2)
  expect_true(all(set$status == "done"))
  expect_equal(unique(set$metric), "worst")
  expect_equal(sort(set$headline), c(0, 1))
  again <- suppressMessages(eval_set(list(toyqa = toyqa_task(data, set_dir)), models,
                                     log_dir = set_dir))
  expect_true(all(again$reused))

  # by name, as the package's own: its registered task on its registered sample
  expect_true("toyqa" %in% set_benchmark_names())
  expect_true(registered_benchmarks()$by_name[registered_benchmarks()$name == "toyqa"])
  by_name <- suppressMessages(eval_set("toyqa@sample", models, log_dir = set_dir))
  expect_equal(by_name$status, c("done", "done"))
  expect_equal(by_name$metric, c("worst", "worst"))
  expect_equal(by_name$headline, c(1, 0))
  limited <- suppressMessages(eval_set("toyqa@sample", models[1], log_dir = set_dir, options = set_options(limit = 2)))
  expect_false(limited$cell_id %in% by_name$cell_id)
  expect_equal(limited$headline, 1)
  # benchmark_versions() lists its sample, a data frame of 6 rows
  listed <- benchmark_versions("toyqa")
  expect_equal(listed$version, "sample")
  expect_equal(listed$items, 6L)
  expect_true(is.na(listed$file))
})

test_that("a sample's identity is its registered content: a changed sample is a new cell", {
  local_toyqa()
  first <- version_identity("toyqa", "sample")
  expect_equal(version_identity("toyqa", "sample"), first)
  changed <- toyqa_sample
  changed$target[[1]] <- "3"
  register_benchmark(new_benchmark("toyqa", list(fn = toyqa_summary), task = toyqa_task,
                                   data = list(schema = toyqa_schema, sample = changed)),
                     replace = TRUE)
  expect_false(identical(version_identity("toyqa", "sample"), first))
  # a sample in the package: its own file (ProcessBench's is deltabench-sample.parquet), and
  # the files its cells read beside it
  pb <- version_identity("processbench", "sample")
  expect_named(pb$table, registration("processbench")$sample)
  expect_equal(unname(pb$table), unname(tools::md5sum(
    system.file("extdata", "deltabench-sample.parquet", package = "predictivebench"))))
  ds <- version_identity("dsbench", "sample")
  expect_true(any(grepl("^extdata/dsbench/data/", names(ds$files))))
})

test_that("a seventh benchmark's real version is pinned, fetched and prepared from its registration", {
  raw <- withr::local_tempfile(fileext = ".csv")
  writeLines(c("question,answer,topic", "1 + 2?,3,sums", "Capital of Spain?,Madrid,capitals"),
               raw)
  pins <- fixture_pins("toyqa", "v1", "github", "toy/toyqa", c("data/toyqa.csv" = raw),
                       items = 2)
  local_toyqa(versions = pins[names(pinned_files())])
  server <- fake_file_server(rlang::set_names(list(raw), fixture_url_path(pins)))
  withr::defer(server$stop())
  withr::local_options(predictivebench.datasets_dir = withr::local_tempdir(),
                       predictivebench.download_backoff = 0)
  withr::local_envvar(PREDICTIVEBENCH_GITHUB_URL = server$url, HF_HUB_OFFLINE = NA)

  listed <- benchmark_versions("toyqa")
  expect_equal(listed$version, c("v1", "sample"))
  expect_equal(listed$default, c(TRUE, FALSE))
  table <- suppressMessages(toyqa_dataset())
  expect_equal(table$input, c("1 + 2?", "Capital of Spain?"))
  expect_equal(table$topic, c("sums", "capitals"))
  # the second call reads the cached table: no new download
  requests <- nrow(server$log())
  expect_equal(suppressMessages(toyqa_dataset()), table)
  expect_equal(nrow(server$log()), requests)
  # prepare_task_table() knows it too
  expect_equal(prepare_task_table("toyqa", raw), table)
})

# ---- One statement of by, interval and cluster ------------------------------------------

test_that("a summary's by, interval and cluster are its registration's, stated once", {
  samples <- tibble::tibble(label = c(2, 0, -1, -1, 3), task_l1 = c("a", "a", "a", "b", "b"),
                            result = c("2", "1", "-1", "-1", NA))
  # ProcessBench groups by the column task_l1 (its split), the one its registration names
  pb <- registration("processbench")
  expect_equal(pb$by, "task_l1")
  s <- suppressMessages(processbench_summary(samples))
  expect_equal(attr(s, "by"), pb$by)
  expect_setequal(s$group, c("overall", "a", "b", "mean of groups"))
  expect_equal(attr(s, "interval"), pb$interval[["normal"]])
  boot <- suppressMessages(processbench_summary(samples, method = "bootstrap", times = 20))
  expect_equal(attr(boot, "interval"), pb$interval[["bootstrap"]])
  # a registration changed in one place changes the summary
  local_benchmarks(list(new_benchmark(
    "processbench", task = processbench_task,
    summary = list(fn = "processbench_summary", by = "label",
                   interval = c(normal = "N", bootstrap = "B"), headline = pb$headline))))
  s <- suppressMessages(processbench_summary(samples))
  expect_equal(attr(s, "by"), "label")
  expect_setequal(s$group, c("overall", "-1", "0", "2", "3", "mean of groups"))
  expect_equal(attr(s, "interval"), "N")
  # the board shows the default method's interval
  expect_equal(registered_benchmarks()$interval[registered_benchmarks()$name == "processbench"],
               "N")
  # the default cluster too: every summary resolves "default" through the registration
  expect_equal(benchmark_cluster("futurex", data.frame(id = 1)), registration("futurex")$cluster)
  expect_equal(attr(benchmark_summary(grouped_summary(c(1, 0)), "futurex"), "by"), "level")
})

test_that("register_benchmark() indexes an object under its name, the index's one side effect", {
  b <- new_benchmark("idx-obj", list(fn = identity, headline = "a"),
                     task = function(dataset, dir) NULL)
  expect_null(registration("idx-obj"))
  expect_null(register_benchmark(b))
  withr::defer(unregister_benchmark("idx-obj"))
  # the index holds the object; the shared layers read its flat fields
  expect_identical(the_benchmarks[["idx-obj"]], b)
  expect_identical(benchmark_named("idx-obj@sample"), b)
  expect_null(benchmark_named("idx-none@sample"))
  expect_identical(registration("idx-obj"), benchmark_fields(b))
  expect_true("idx-obj" %in% set_benchmark_names())
  # the same object again replaces nothing; another one is refused unless it replaces
  expect_no_error(register_benchmark(b))
  other <- new_benchmark("idx-obj", list(fn = identity, headline = "b"))
  expect_error(register_benchmark(other), class = "predictivebench_error_registered")
  old <- register_benchmark(other, replace = TRUE)
  expect_identical(old, b)
  register_benchmark(old, replace = TRUE)
  expect_identical(the_benchmarks[["idx-obj"]], b)
  expect_true("idx-obj" %in% registered_benchmarks()$name)
  # only an object is indexed, and its flags are checked
  err <- expect_error(register_benchmark(benchmark_fields(b)),
                      class = "predictivebench_error_argument")
  expect_identical(err$field, "benchmark")
  err <- expect_error(register_benchmark(b, replace = NA), class = "predictivebench_error_argument")
  expect_identical(err$field, "replace")
})

test_that("the package's benchmarks are objects of their own constructors, indexed once at load", {
  made <- package_benchmarks()
  names <- vapply(made, `[[`, "", "name")
  expect_setequal(names, c("futurex", "processbench", "deltabench", "dsbench", "probsem",
                           "arena"))
  for (b in made) {
    # each is what the index holds under its name, of its own class
    expect_identical(the_benchmarks[[b$name]], b)
    expect_s3_class(b, paste0(b$name, "_benchmark"))
  }
  # every one is listed
  expect_true(all(names %in% registered_benchmarks()$name))
  # each file says what it is in parts: no flat field, no load hook of its own
  dir <- test_path("..", "..", "R")
  skip_if_not(dir.exists(dir), "the package's R/ sources are not here (an installed copy)")
  files <- list.files(dir, pattern = "-benchmark[.]R$", full.names = TRUE)
  code <- unlist(lapply(files, readLines, warn = FALSE))
  expect_false(any(grepl("on_load(", code, fixed = TRUE)))
  flat <- setdiff(names(legacy_fields), c("name", "summary", "task", "dataset", "schema",
                                          "sample", "versions", "prepare", "prepare_pinned",
                                          "flattener", "unpacked", "cluster", "needs_judge",
                                          "check_by_name", "rescore_run", "headline", "by",
                                          "interval", "lower_is_better", "elo_scale",
                                          "statistic"))
  expect_false(any(grepl(paste0("\\b(", paste(flat, collapse = "|"), ")\\s*="), code)))
})

test_that("register_benchmark() refuses what new_benchmark() did not make, naming its argument", {
  err <- expect_error(register_benchmark(list(name = "x")),
                      class = "predictivebench_error_argument")
  expect_match(conditionMessage(err), "`benchmark` must be a benchmark", fixed = TRUE)
  expect_identical(err$field, "benchmark")
})
