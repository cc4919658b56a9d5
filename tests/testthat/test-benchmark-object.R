test_that("new_benchmark() checks its arguments", {
  expect_error(new_benchmark("x", 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, headline = NA_character_), "at least one")
  expect_error(new_benchmark(c("a", "b"), identity), class = "predictivebench_error_argument")
})

test_that("new_benchmark() checks what makes a benchmark one", {
  expect_error(new_benchmark("x", identity, schema = data.frame(name = "id", type = "text")),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, sample = 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, versions = data.frame(a = 1)),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, statistic = "min"),
               class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, cluster = 1), class = "predictivebench_error_argument")
  expect_error(new_benchmark("x", identity, needs_judge = "yes"),
               class = "predictivebench_error_argument")
  expect_false("x" %in% registered_benchmarks()$name)
  # made of parts, a benchmark is an object and registers nothing: registering is
  # register_benchmark()'s, the index's one side effect
  expect_s3_class(new_benchmark("x", list(fn = identity)), "predictivebench_benchmark")
  expect_null(registration("x"))
})

test_that("flat fields still register for one release, with a deprecation warning", {
  withr::defer(unregister_benchmark("x-flat"))
  expect_warning(new_benchmark("x-flat", identity, headline = "a"),
                 class = "predictivebench_warning_deprecated")
  expect_identical(registration("x-flat")$headline, "a")
  # given its parts: the object only, no warning; registering is the verb's
  expect_no_warning(b <- new_benchmark("x-parts", list(fn = identity)))
  expect_null(registration("x-parts"))
  withr::defer(unregister_benchmark("x-parts"))
  expect_null(register_benchmark(b))
  expect_identical(registration("x-parts"), benchmark_fields(b))
})

test_that("a missing field is a classed error naming it", {
  err <- expect_error(new_benchmark("x"), class = "predictivebench_error_argument")
  expect_equal(err$field, "summary")
  expect_match(conditionMessage(err), "summary")
  err <- expect_error(new_benchmark(summary = identity), class = "predictivebench_error_argument")
  expect_equal(err$field, "name")
  err <- expect_error(new_benchmark("x", identity, task = "x_task"),
                      class = "predictivebench_error_argument")
  expect_equal(err$field, "task")
  err <- expect_error(new_benchmark("x", identity, interval = c("a", "b")),
                      class = "predictivebench_error_argument")
  expect_equal(err$field, "interval")
  expect_error(new_benchmark("x@y", identity), class = "predictivebench_error_argument")
  expect_false("x" %in% registered_benchmarks()$name)
})

# ---- the object and its parts ---------------------------------------------------------------

toy <- data.frame(id = c("a", "b"), input = c("1 + 1?", "2 + 2?"), target = c("2", "4"))

test_that("new_benchmark() of parts is a classed object of checked parts", {
  b <- new_benchmark("obj-toy", summary = list(fn = identity, headline = c("overall", "a")),
                     data = list(sample = toy), comparison = list(cluster = "topic"),
                     judging = list(needs_judge = TRUE))
  expect_identical(class(b), c("obj-toy_benchmark", "predictivebench_benchmark"))
  expect_named(b, c("name", "task", "data", "summary", "comparison", "judging"))
  expect_s3_class(b$data, "predictivebench_data_part")
  expect_s3_class(b$judging, "predictivebench_judging_part")
  # each field left out takes its default; the schema is named as the benchmark
  expect_identical(b[["summary"]]$by, "group")
  expect_identical(b[["summary"]]$headline, c("overall", "a"))
  expect_identical(b$data$schema, "obj-toy")
  expect_identical(b$data$sample, list(table = toy, items = NULL, files = NULL))
  expect_identical(b$comparison$columns, character())
  expect_identical(b$comparison$cluster, "topic")
  expect_true(b$judging$needs_judge)
  expect_null(registration("obj-toy"))
  # the same parts given again make the same object (a part as made is taken as its fields)
  expect_identical(new_benchmark("obj-toy", b[["summary"]], data = b$data,
                                 comparison = b$comparison,
                                 judging = b$judging), b)
  expect_identical(validate_benchmark(b), b)
})

# A part's refusal: classed, naming the field.
expect_field_refused <- function(field, ...) {
  err <- expect_error(new_benchmark("obj-bad", ...), class = "predictivebench_error_argument")
  expect_identical(err$field, field)
  expect_null(registration("obj-bad"))
  invisible(err)
}

test_that("each part refuses a bad field by its name, and a field it has not", {
  fn <- list(fn = identity)
  # data
  expect_field_refused("schema", fn, data = list(schema = data.frame(a = 1)))
  expect_field_refused("type", fn, data = list(schema = data.frame(name = "id", type = "text")))
  expect_field_refused("dataset", fn, data = list(dataset = "futurex_dataset"))
  expect_field_refused("sample", fn, data = list(sample = 1))
  expect_field_refused("sample", fn, data = list(sample = list(table = toy, rows = 2)))
  expect_field_refused("sample_files", fn, data = list(sample = list(table = toy, files = 1)))
  expect_field_refused("sample_items", fn, data = list(sample = list(table = toy, items = 0)))
  expect_field_refused("versions", fn, data = list(versions = data.frame(a = 1)))
  expect_field_refused("prepare_pinned", fn, data = list(prepare_pinned = TRUE))
  expect_field_refused("unpacked", fn, data = list(unpacked = "dir"))
  expect_field_refused("flattener", fn, data = list(flattener = 1))
  expect_field_refused("schemas", fn, data = list(schemas = "futurex"))
  # summary
  expect_field_refused("fn", list(headline = "overall"))
  expect_field_refused("fn", list(fn = 1))
  expect_field_refused("headline", list(fn = identity, headline = NA_character_))
  expect_field_refused("by", list(fn = identity, by = 1))
  expect_field_refused("interval", list(fn = identity, interval = c("a", "b")))
  expect_field_refused("lower_is_better", list(fn = identity, lower_is_better = NA_character_))
  expect_field_refused("elo_scale", list(fn = identity, elo_scale = 1))
  expect_field_refused("head", list(fn = identity, head = "overall"))
  # comparison
  expect_field_refused("statistic", fn, comparison = list(statistic = "min"))
  expect_field_refused("metric", fn, comparison = list(metric = 1))
  expect_field_refused("columns", fn, comparison = list(columns = NA_character_))
  expect_field_refused("cluster", fn, comparison = list(cluster = 1))
  expect_field_refused("statistic_metric", fn, comparison = list(statistic_metric = "a"))
  # judging
  expect_field_refused("needs_judge", fn, judging = list(needs_judge = "yes"))
  expect_field_refused("scorer", fn, judging = list(scorer = "judge"))
  expect_field_refused("rescore_run", fn, judging = list(rescore_run = "no"))
  expect_field_refused("check_by_name", fn, judging = list(check_by_name = TRUE))
  # a part is a list of fields; the object's own checks
  expect_field_refused("judging", fn, judging = "yes")
  expect_field_refused("task", fn, task = "obj_task")
})

test_that("a field is given once: in its part or flat, never both; a flat name is one", {
  err <- expect_field_refused("headline", list(fn = identity, headline = "a"), headline = "b")
  expect_match(conditionMessage(err), "given twice")
  expect_field_refused("sample_items", identity, data = list(sample = list(items = 2L)),
                       sample_items = 3L)
  expect_field_refused("sampel", identity, sampel = toy)
  # a part's own field name is not a flat one
  expect_field_refused("metric", identity, metric = "a")
})

test_that("the validator refuses what new_benchmark() did not make", {
  b <- new_benchmark("obj-valid", list(fn = identity))
  for (bad in list(list(), unclass(b), b[c("name", "task", "data")],
                   structure(replace(unclass(b), "data", list(list())), class = class(b)))) {
    err <- expect_error(validate_benchmark(bad), class = "predictivebench_error_argument")
    expect_identical(err$field, "benchmark")
  }
  # versions of another benchmark: the object is checked across its parts
  rows <- pinned_file("other", "v1", TRUE, c(host = "github", repo = "o/r", commit = "c"),
                      list(path = "p.json", size = 1, sha256 = NA),
                      list(licence = "l", citation = "c", items = 1))
  err <- expect_error(new_benchmark("obj-valid", list(fn = identity),
                                    data = list(versions = rows)),
                      class = "predictivebench_error_argument")
  expect_identical(err$field, "versions")
})

# ---- the flat fields, through one table -----------------------------------------------------

# The 28 arguments new_benchmark() took before parts, each with a value of its own.
flat_values <- function(name) {
  list(
    name = name, summary = function(x) "summary", task = function(dataset, dir) "task",
    dataset = function(version = NULL, limit = NULL) "dataset", headline = c("h1", "h2"),
    by = "topic", interval = c(normal = "n", bootstrap = "b"), lower_is_better = "loss",
    elo_scale = "rating", schema = check_schema_table(data.frame(name = "id", type = "string")),
    sample = toy,
    sample_items = 2L, sample_files = "extdata/obj", versions = pinned_file(
      name, "v1", TRUE, c(host = "github", repo = "o/r", commit = "c"),
      list(path = "p.json", size = 1, sha256 = NA), list(licence = "l", citation = "c", items = 1)),
    prepare = function(source, out = NULL) "prepare", prepare_pinned = function(rows, files) 1,
    flattener = "objmod", unpacked = function(rows) "dir", statistic = function(items) 0.5,
    statistic_metric = "h2", statistic_columns = "topic", cluster = function(samples) "topic",
    check_by_name = function(x, version, call) NULL, needs_judge = TRUE,
    judge_scorer = function(judge) "scorer", rescore_run = function(...) "run",
    internal = TRUE, replace = FALSE
  )
}

test_that("the legacy mapping covers every old field, each landing in its part", {
  values <- flat_values("obj-flat")
  expect_length(values, 28)
  expect_setequal(c(names(legacy_fields), "internal", "replace"), names(values))
  # the old way keeps working for a release, and says it is deprecated
  expect_warning(old <- do.call(new_benchmark, values),
                 class = "predictivebench_warning_deprecated")
  withr::defer(unregister_benchmark("obj-flat"))
  expect_null(old)
  b <- the_benchmarks[["obj-flat"]]
  expect_s3_class(b, "obj-flat_benchmark")
  where <- list(summary = '[["summary"]]$fn', dataset = "data$dataset",
                sample = "data$sample$table",
                sample_items = "data$sample$items", sample_files = "data$sample$files",
                statistic_metric = "comparison$metric",
                statistic_columns = "comparison$columns", judge_scorer = "judging$scorer")
  for (field in setdiff(names(values), c("internal", "replace"))) {
    path <- where[[field]] %||% legacy_fields[[field]]
    path <- gsub("/", "$", sub("^summary/", '[["summary"]]/', path))
    got <- eval(str2lang(paste0("b", if (!startsWith(path, "[")) "$", path)))
    expect_identical(got, values[[field]], label = path)
    # read flat: the registration the shared layers read, and the object's `$`
    expect_identical(registration("obj-flat")[[field]], values[[field]], label = field)
    if (!field %in% c("name", "summary", "task")) {
      expect_identical(b[[field]], NULL)
      expect_identical(eval(str2lang(paste0("b$", field))), values[[field]], label = field)
    }
  }
  # read flat, `$summary` is the summary function (the part is `[["summary"]]`)
  expect_identical(b$summary, values$summary)
  expect_true(registration("obj-flat")$internal)
  expect_false("obj-flat" %in% registered_benchmarks()$name)
  # the same benchmark made of parts gives the same registration
  parts <- new_benchmark("obj-flat", list(fn = values$summary, headline = values$headline,
                                          by = "topic", interval = values$interval,
                                          lower_is_better = "loss", elo_scale = "rating"),
    task = values$task,
    data = list(schema = values$schema, dataset = values$dataset,
                sample = list(table = toy, items = 2L, files = "extdata/obj"),
                versions = values$versions, prepare = values$prepare,
                prepare_pinned = values$prepare_pinned, flattener = "objmod",
                unpacked = values$unpacked),
    comparison = list(statistic = values$statistic, metric = "h2", columns = "topic",
                      cluster = values$cluster),
    judging = list(needs_judge = TRUE, scorer = values$judge_scorer,
                   rescore_run = values$rescore_run, check_by_name = values$check_by_name))
  expect_identical(parts, b)
  expect_identical(benchmark_fields(parts, internal = TRUE), registration("obj-flat"))
  # and the flat registration makes it again: what new_benchmark() returns restores it
  expect_warning(old <- do.call(new_benchmark, c(registration("obj-flat"), replace = TRUE)),
                 class = "predictivebench_warning_deprecated")
  expect_identical(the_benchmarks[["obj-flat"]], b)
  expect_identical(old, c(registration("obj-flat"), replace = TRUE))
})

# ---- behaviour: generics and their defaults -------------------------------------------------

test_that("the generics' defaults read the parts", {
  b <- new_benchmark("obj-gen", list(fn = function(x, by = "all") paste(x, by)),
                     data = list(prepare = function(file) paste("prepared", file)),
                     judging = list(scorer = function(judge) paste("scored by", judge)))
  expect_identical(benchmark_summarise(b, "rows", by = "topic"), "rows topic")
  expect_identical(benchmark_summarise(new_benchmark("obj-gen", list(fn = "identity")), 3), 3)
  expect_identical(benchmark_rescore(b, "judge B"), "scored by judge B")
  expect_identical(benchmark_prepare(b, rows = NULL, files = c("a.json", "b.json")),
                   "prepared a.json")
  pinned <- new_benchmark("obj-gen", list(fn = identity),
                          data = list(prepare = function(file) "one file",
                                      prepare_pinned = function(rows, files) length(files)))
  expect_identical(benchmark_prepare(pinned, rows = NULL, files = c("a", "b")), 2L)
  expect_null(benchmark_audit(b, run = list(), opts = list()))
  expect_null(benchmark_verdicts(b, run = list()))
  # what a part lacks is a classed refusal
  plain <- new_benchmark("obj-gen", list(fn = identity))
  err <- expect_error(benchmark_rescore(plain, "judge"), class = "predictivebench_error_no_judge")
  expect_identical(err$field, "scorer")
  expect_error(benchmark_prepare(plain, NULL, "a"), class = "predictivebench_error_argument")
})

test_that("a benchmark's class overrides a generic's default", {
  registerS3method("benchmark_summarise", "objmethod_benchmark",
                   function(benchmark, x, ...) "its own", envir = asNamespace("predictivebench"))
  b <- new_benchmark("objmethod", list(fn = identity))
  expect_identical(benchmark_summarise(b, 1), "its own")
  expect_identical(benchmark_summarise(new_benchmark("objother", list(fn = identity)), 1), 1)
})

test_that("a benchmark prints its parts", {
  b <- new_benchmark("obj-print", list(fn = identity, headline = NULL, by = "topic"),
                     task = function(dataset, dir) NULL, data = list(sample = toy),
                     judging = list(needs_judge = TRUE, scorer = function(judge) NULL))
  out <- capture.output(res <- print(b))
  expect_identical(res, b)
  expect_equal(out, c(
    "<benchmark obj-print>",
    "  task:       a function (run by name in eval_set())",
    "  data:       schema \"obj-print\"; sample a table of 2 rows; versions none",
    "  summary:    a function; headline \"every row\"; by \"topic\"",
    "  comparison: statistic \"the mean score\"; cluster \"id\"",
    "  judging:    needs a judge; rescored with another judge: yes"
  ))
  out <- capture.output(print(the_benchmarks[["futurex"]]))
  expect_match(out[[3]], "versions \"250915\", \"sp500\"", fixed = TRUE)
  expect_match(out[[4]], "\"futurex_summary\"; headline \"overall\", ", fixed = TRUE)
})
