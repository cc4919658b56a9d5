# A corpus of broken inputs across the benchmarks. Each must end in a classed
# `predictivebench_error_*` condition whose message names the file, row and field (where they
# apply), with no parser traceback from jsonlite, pandas, dplyr or Python.

# Text that means an internal traceback or parser message reached the user.
internal_text <- c(
  "Traceback", "most recent call last", "File \"/", "site-packages", "dist-packages",
  "py_call_impl", "py_last_error", "jsonlite", "lexical error", "parse error: premature EOF",
  "dplyr", "pandas/", "pandas.errors", "openpyxl/", "Error in ", "RecursionError",
  "KeyError", "AttributeError", "TypeError", "UnicodeDecodeError"
)

# `writer(dir)` writes the broken input under `dir` and returns a function that reads it.
bad_case <- function(name, writer, kind, file = NULL, row = NULL, field = NULL,
                     python = TRUE) {
  list(name = name, writer = writer, kind = kind, file = file, row = row, field = field,
       python = python)
}

write_text <- function(path, ...) {
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  writeLines(c(...), path, useBytes = TRUE)
  path
}

write_bytes <- function(path, bytes) {
  dir.create(dirname(path), recursive = TRUE, showWarnings = FALSE)
  writeBin(bytes, path)
  path
}

# Replace (not merge, as modifyList() does with lists) fields of a record; NULL drops one.
set_fields <- function(x, y) {
  for (name in names(y)) {
    if (is.null(y[[name]])) x[[name]] <- NULL else x[name] <- list(y[[name]])
  }
  x
}

json_line <- function(x) as.character(jsonlite::toJSON(x, auto_unbox = TRUE, null = "null"))

# ---------------------------------------------------------------------------- FutureX
fx_item <- function(id, ...) {
  set_fields(list(id = id, prompt = paste("Will", id, "happen?"), end_time = "2026-01-01",
                         level = 1L, ground_truth = "A", Std = NULL), list(...))
}
fx_file <- function(dir, items) {
  path <- file.path(dir, "questions.json")
  write_text(path, as.character(jsonlite::toJSON(items, auto_unbox = TRUE, null = "null",
                                                 pretty = TRUE)))
}
fx <- function(dir, items) {
  path <- fx_file(dir, items)
  function() prepare_futurex(path)
}
fx_raw <- function(dir, ...) {
  path <- write_text(file.path(dir, "questions.json"), ...)
  function() prepare_futurex(path)
}

# ---------------------------------------------------------------------------- ProcessBench
pb_record <- function(id, ...) {
  set_fields(list(id = id, generator = "m", problem = "1 + 1?",
                         steps = list("1 + 1 = 2.", "So 2."), final_answer_correct = TRUE,
                         label = -1L), list(...))
}
pb_lines <- function(dir, ..., name = "gsm8k.jsonl") {
  path <- write_text(file.path(dir, name), ...)
  function() prepare_processbench(path)
}
db_record <- function(id, ...) {
  set_fields(list(id = id, question = "2 + 2?", task_l1 = "math",
                         sections = list(list(content = "2 + 2 = 4."), list(content = "So 4.")),
                         reason_error_section_numbers = list(),
                         reason_unuseful_section_numbers = list(), final_correct = 1L),
                    list(...))
}
db_lines <- function(dir, ...) {
  path <- write_text(file.path(dir, "deltabench.jsonl"), ...)
  function() prepare_deltabench(path)
}

# ---------------------------------------------------------------------------- DSBench
# A data-analysis folder: data.json (one competition a line) and data/<id>/ with an
# introduction and questions; `extra(folder)` adds broken files.
ds_folder <- function(dir, records = list(list(id = "c1", name = "Comp", year = 2024L,
                                                questions = list("question1"),
                                                answers = list("B"))),
                      extra = NULL, data_json = NULL) {
  root <- file.path(dir, "dsbench")
  dir.create(file.path(root, "data", "c1"), recursive = TRUE, showWarnings = FALSE)
  write_text(file.path(root, "data", "c1", "introduction.txt"), "A small company.")
  write_text(file.path(root, "data", "c1", "question1.txt"), "Which option? A or B.")
  lines <- data_json %||% vapply(records, json_line, "")
  write_text(file.path(root, "data.json"), lines)
  if (!is.null(extra)) extra(file.path(root, "data", "c1"))
  function() prepare_task_table("dsbench", root)
}

# ---------------------------------------------------------------------------- probsem
ps_suite <- function(...) {
  set_fields(list(pretext = "Context:", posttext = "",
                         context = list(list(text = "It rained.", expected = 0L),
                                        list(text = "It was dry.", expected = 1L)),
                         queries = list("Wet.", "Dry.")), list(...))
}
ps_folder <- function(dir, suite = ps_suite(), suite_text = NULL) {
  prompt <- write_text(file.path(dir, "weather.txt"), "Say what follows.")
  text <- suite_text %||% as.character(jsonlite::toJSON(suite, auto_unbox = TRUE,
                                                         null = "null"))
  write_text(file.path(dir, "weather_A.json"), text)
  function() prepare_task_table("probsem", prompt)
}

# ---------------------------------------------------------------------------- task tables
fx_table <- function() {
  tibble::tibble(id = c("a", "b", "c"), input = "q", target = "A", level = 1L,
                 std = NA_real_, end_time = NA_character_, additional_values = NA_character_,
                 description = NA_character_, answer = NA_character_, has_answer = FALSE)
}

bad_inputs <- list(
  # FutureX question files
  bad_case("futurex: empty file", function(d) fx_raw(d, ""), "json", "questions.json"),
  bad_case("futurex: truncated JSON array",
           function(d) fx_raw(d, '[{"id": "a", "prompt": "p", "level": 1,',
                              '  "ground_truth": "A"}, {"id": "b", "pro'),
           "json", "questions.json", row = "2"),
  bad_case("futurex: an object instead of an array",
           function(d) fx_raw(d, '{"id": "a"}'), "json", "questions.json"),
  bad_case("futurex: missing prompt",
           function(d) fx(d, list(fx_item("a"), fx_item("b", prompt = NULL))),
           "field", "questions.json", row = "2", field = "prompt"),
  bad_case("futurex: level is text",
           function(d) fx(d, list(fx_item("a", level = "high"))),
           "field", "questions.json", row = "1", field = "level"),
  bad_case("futurex: level out of range",
           function(d) fx(d, list(fx_item("a"), fx_item("b"), fx_item("c", level = 7L))),
           "field", "questions.json", row = "3", field = "level"),
  bad_case("futurex: ground truth is a number",
           function(d) fx(d, list(fx_item("a", ground_truth = 12))),
           "field", "questions.json", row = "1", field = "ground_truth"),
  bad_case("futurex: negative Std",
           function(d) fx(d, list(fx_item("a", level = 3L, Std = -1))),
           "field", "questions.json", row = "1", field = "Std"),
  bad_case("futurex: answer is a list",
           function(d) fx(d, list(fx_item("a", answer = list("A", "B")))),
           "field", "questions.json", row = "1", field = "answer"),
  bad_case("futurex: duplicate ids",
           function(d) fx(d, list(fx_item("a"), fx_item("a"))),
           "duplicate_id", "questions.json", row = "2", field = "id"),
  bad_case("futurex: non-UTF-8 text",
           function(d) {
             path <- fx_file(d, list(fx_item("a"), fx_item("b")))
             text <- readBin(path, "raw", file.size(path))
             at <- grepRaw("Will b", text, fixed = TRUE)
             text[at] <- as.raw(0xe9)
             writeBin(text, path)
             function() prepare_futurex(path)
           },
           "encoding", "questions.json", row = "12"),
  bad_case("futurex: a level with 5,000 digits (enormous field)",
           function(d) fx_raw(d, paste0('[{"id": "a", "prompt": "p", "ground_truth": "A", ',
                                        '"level": ', strrep("9", 5000), '}]')),
           "json", "questions.json"),
  bad_case("futurex: nesting 100,000 deep (enormous field)",
           function(d) fx_raw(d, paste0('[{"id": "a", "prompt": ', strrep("[", 1e5),
                                        strrep("]", 1e5), "}]")),
           "json", "questions.json"),

  # ProcessBench / DeltaBench
  bad_case("processbench: truncated last JSON line",
           function(d) pb_lines(d, json_line(pb_record("a")), json_line(pb_record("b")),
                                substr(json_line(pb_record("c")), 1, 40)),
           "json", "gsm8k.jsonl", row = "3"),
  bad_case("processbench: steps is a string",
           function(d) pb_lines(d, json_line(pb_record("a", steps = "one step"))),
           "field", "gsm8k.jsonl", row = "1", field = "steps"),
  bad_case("processbench: empty steps",
           function(d) pb_lines(d, json_line(pb_record("a")),
                                json_line(pb_record("b", steps = list()))),
           "field", "gsm8k.jsonl", row = "2", field = "steps"),
  bad_case("processbench: label past the last step",
           function(d) pb_lines(d, json_line(pb_record("a", label = 9L))),
           "field", "gsm8k.jsonl", row = "1", field = "label"),
  bad_case("processbench: label is text",
           function(d) pb_lines(d, json_line(pb_record("a", label = "first"))),
           "field", "gsm8k.jsonl", row = "1", field = "label"),
  bad_case("processbench: missing problem",
           function(d) pb_lines(d, json_line(pb_record("a", problem = NULL))),
           "field", "gsm8k.jsonl", row = "1", field = "problem"),
  bad_case("processbench: duplicate ids",
           function(d) pb_lines(d, json_line(pb_record("a")), json_line(pb_record("a"))),
           "duplicate_id", "gsm8k.jsonl", row = "2", field = "id"),
  bad_case("processbench: a number with 5,000 digits on line 2 (enormous field)",
           function(d) pb_lines(d, json_line(pb_record("a")),
                                paste0('{"id": "b", "label": ', strrep("7", 5000), "}")),
           "json", "gsm8k.jsonl", row = "2"),
  bad_case("processbench: empty file",
           function(d) pb_lines(d, ""), "json", "gsm8k.jsonl"),
  bad_case("processbench: non-UTF-8 line",
           function(d) {
             path <- file.path(d, "gsm8k.jsonl")
             write_bytes(path, c(charToRaw(json_line(pb_record("a"))), as.raw(0x0a),
                                 charToRaw('{"id": "b", "problem": "caf'), as.raw(0xe9),
                                 charToRaw('"}')))
             function() prepare_processbench(path)
           },
           "encoding", "gsm8k.jsonl", row = "2"),
  bad_case("processbench: CSV with an unreadable steps cell",
           function(d) pb_lines(d, "id,problem,steps,label",
                                'a,1+1?,"[""1 + 1 = 2."", ""So 2.""]",-1',
                                'b,2+2?,"[unclosed",-1', name = "math.csv"),
           "field", "math.csv", row = "2", field = "steps"),
  bad_case("processbench: CSV without a steps column",
           function(d) pb_lines(d, "id,problem,label", "a,1+1?,-1", name = "math.csv"),
           "field", "math.csv", row = "1", field = "steps"),
  bad_case("processbench: CSV with a ragged row",
           function(d) pb_lines(d, "id,problem,steps,label", 'a,1+1?,"[""x""]",-1,extra,more',
                                'b,1+1?,"[""x""]",-1', name = "math.csv"),
           c("csv", "field"), "math.csv"),
  bad_case("deltabench: error section past the last section",
           function(d) db_lines(d, json_line(db_record("a",
                                                       reason_error_section_numbers = list(5L)))),
           "field", "deltabench.jsonl", row = "1", field = "reason_error_section_numbers"),
  bad_case("deltabench: a section without content",
           function(d) db_lines(d, json_line(db_record("a", sections = list(list(text = "x"))))),
           "field", "deltabench.jsonl", row = "1", field = "sections[1].content"),
  bad_case("deltabench: section numbers are not a list",
           function(d) db_lines(d, json_line(db_record("a",
                                                       reason_error_section_numbers = "two"))),
           "field", "deltabench.jsonl", row = "1", field = "reason_error_section_numbers"),

  # DSBench folders
  bad_case("dsbench: truncated data.json line",
           function(d) ds_folder(d, data_json = c(json_line(list(id = "c1",
                                                                 questions = list("question1"),
                                                                 answers = list("B"))),
                                                  '{"id": "c2", "questions": [')),
           "json", "data.json", row = "2"),
  bad_case("dsbench: competition id leaves the data directory",
           function(d) ds_folder(d, list(list(id = "../../etc", questions = list("q"),
                                              answers = list("B")))),
           "path", "data.json", row = "1", field = "id"),
  bad_case("dsbench: question name leaves the competition folder",
           function(d) ds_folder(d, list(list(id = "c1", questions = list("../../../secret"),
                                              answers = list("B")))),
           "path", "data.json", row = "1", field = "questions"),
  bad_case("dsbench: more questions than answers",
           function(d) ds_folder(d, list(list(id = "c1",
                                              questions = list("question1", "question2"),
                                              answers = list("B")))),
           "count_mismatch", "data.json", row = "1", field = "answers"),
  bad_case("dsbench: questions is a number",
           function(d) ds_folder(d, list(list(id = "c1", questions = 3L, answers = list("B")))),
           "field", "data.json", row = "1", field = "questions"),
  bad_case("dsbench: missing competition folder",
           function(d) ds_folder(d, list(list(id = "c9", questions = list("question1"),
                                              answers = list("B")))),
           "missing_file", "c9", row = "1"),
  bad_case("dsbench: corrupt workbook",
           function(d) ds_folder(d, extra = function(folder) {
             write_bytes(file.path(folder, "sales.xlsx"), charToRaw("PK\003\004 not a zip"))
           }),
           "workbook", "sales.xlsx", row = "1"),
  bad_case("dsbench: encrypted workbook",
           function(d) ds_folder(d, extra = function(folder) {
             write_bytes(file.path(folder, "locked.xlsx"),
                         c(as.raw(c(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1)),
                           as.raw(rep(0, 504))))
           }),
           "workbook", "locked.xlsx", row = "1"),
  bad_case("dsbench: a link leaving the competition folder",
           function(d) ds_folder(d, extra = function(folder) {
             outside <- write_text(file.path(d, "outside.txt"), "secret")
             file.symlink(outside, file.path(folder, "notes.txt"))
           }),
           "path", "notes.txt", row = "1"),
  bad_case("dsbench: non-UTF-8 introduction",
           function(d) ds_folder(d, extra = function(folder) {
             write_bytes(file.path(folder, "introduction.txt"),
                         c(charToRaw("line one\nna"), as.raw(0xef), charToRaw("ve\n")))
           }),
           "encoding", "introduction.txt", row = "2"),
  bad_case("dsbench: empty data.json",
           function(d) ds_folder(d, data_json = ""), "json", "data.json"),

  # probsem
  bad_case("probsem: truncated suite",
           function(d) ps_folder(d, suite_text = '{"pretext": "x", "context": [{"text": "a"'),
           "json", "weather_A.json", row = "2"),
  bad_case("probsem: suite without queries",
           function(d) ps_folder(d, suite = ps_suite(queries = NULL)),
           "field", "weather_A.json", field = "queries"),
  bad_case("probsem: expected points past the queries",
           function(d) ps_folder(d, suite = ps_suite(context = list(
             list(text = "It rained.", expected = 0L), list(text = "x", expected = 5L)))),
           "field", "weather_A.json", row = "1", field = "context.expected"),
  bad_case("probsem: repeated query",
           function(d) ps_folder(d, suite = ps_suite(queries = list("Wet.", "Wet."))),
           "field", "weather_A.json", row = "1", field = "queries"),
  bad_case("probsem: expected is text",
           function(d) ps_folder(d, suite = ps_suite(context = list(
             list(text = "It rained.", expected = "0")))),
           "field", "weather_A.json", row = "0", field = "context.expected"),

  # arena (EloBench): the R readers of questions.csv and the pipeline's other CSV files
  bad_case("arena: empty questions.csv",
           function(d) {
             path <- write_text(file.path(d, "questions.csv"), "")
             function() prepare_arena(path)
           },
           "csv", "questions.csv", python = FALSE),
  bad_case("arena: questions.csv without a question column",
           function(d) {
             path <- write_text(file.path(d, "questions.csv"), "prompt", "\"What is 2+2?\"")
             function() prepare_arena(path)
           },
           "schema", "questions.csv", field = "question", python = FALSE),
  bad_case("arena: a ragged questions.csv row",
           function(d) {
             path <- write_text(file.path(d, "questions.csv"), ",question", "0,\"a\"",
                                "1,\"b\",extra")
             function() prepare_arena(path)
           },
           "csv", "questions.csv", row = "2", python = FALSE),
  bad_case("arena: non-UTF-8 questions.csv",
           function(d) {
             path <- write_bytes(file.path(d, "questions.csv"),
                                 c(charToRaw("question\n\"ok\"\n\"caf"), as.raw(0xe9),
                                   charToRaw("\"\n")))
             function() prepare_arena(path)
           },
           "encoding", "questions.csv", row = "2", python = FALSE),
  bad_case("arena: battle records without a winner column",
           function(d) {
             path <- write_text(file.path(d, "battle_records.csv"), "model_a,model_b",
                                "m1,m2")
             function() arena_read_battles(path)
           },
           "schema", "battle_records.csv", field = "winner", python = FALSE),
  bad_case("arena: an unknown winner",
           function(d) {
             path <- write_text(file.path(d, "battle_records.csv"), "model_a,model_b,winner",
                                "m1,m2,model_a", "m1,m2,model_c")
             function() arena_read_battles(path)
           },
           "winner", "battle_records.csv", row = "2", field = "winner", python = FALSE),
  bad_case("arena: an empty battle file",
           function(d) {
             path <- write_bytes(file.path(d, "battle_records.csv"), raw())
             function() arena_read_battles(path)
           },
           "csv", "battle_records.csv", python = FALSE),
  bad_case("arena: a non-UTF-8 byte after a quoted cell spanning lines",
           function(d) {
             path <- write_bytes(file.path(d, "battle_records.csv"),
                                 c(charToRaw('model_a,model_b,winner,note\nm1,m2,model_a,"two\nlines"\n'),
                                   charToRaw("m1,m2,tie,caf"), as.raw(0xe9), charToRaw("\n")))
             function() arena_read_battles(path)
           },
           "encoding", "battle_records.csv", row = "2", python = FALSE),
  bad_case("arena: a non-UTF-8 battle file",
           function(d) {
             path <- write_bytes(file.path(d, "battle_records.csv"),
                                 c(charToRaw("model_a,model_b,winner\nm1,m2,model_a\nm"),
                                   as.raw(0xe9), charToRaw(",m2,tie\nm1,m2,model_b\n")))
             function() arena_read_battles(path)
           },
           "encoding", "battle_records.csv", row = "2", python = FALSE),

  # task tables (R only)
  bad_case("task table: corrupt parquet",
           function(d) {
             path <- write_bytes(file.path(d, "table.parquet"), charToRaw("PAR1 garbage PAR1"))
             function() read_task_table(path, "futurex")
           },
           "parquet", "table.parquet", python = FALSE),
  bad_case("task table: empty parquet file",
           function(d) {
             path <- write_bytes(file.path(d, "table.parquet"), raw())
             function() read_task_table(path, "futurex")
           },
           "parquet", "table.parquet", python = FALSE),
  bad_case("task table: missing column",
           function(d) {
             x <- fx_table()
             x$target <- NULL
             function() validate_task_table(x, "futurex", file = "mine.parquet")
           },
           "schema", "mine.parquet", field = "target", python = FALSE),
  bad_case("task table: level of the wrong type",
           function(d) {
             x <- fx_table()
             x$level <- c("1", "2", "3")
             function() validate_task_table(x, "futurex", file = "mine.parquet")
           },
           "schema", "mine.parquet", field = "level", python = FALSE),
  bad_case("task table: missing value in a required column",
           function(d) {
             x <- fx_table()
             x$input[[2]] <- NA
             function() validate_task_table(x, "futurex", file = "mine.parquet")
           },
           "schema", "mine.parquet", row = "2", field = "input", python = FALSE),
  bad_case("task table: duplicate ids",
           function(d) {
             x <- fx_table()
             x$id[[3]] <- "a"
             path <- file.path(d, "dup.parquet")
             nanoparquet::write_parquet(as.data.frame(x), path)
             function() read_task_table(path, "futurex")
           },
           "duplicate_id", "dup.parquet", row = "3", field = "id", python = FALSE),
  bad_case("task table: list column holding numbers",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$steps[[1]] <- list(1, 2)
             function() validate_task_table(x, "processbench", file = "steps.parquet")
           },
           "schema", "steps.parquet", row = "1", field = "steps", python = FALSE),
  bad_case("task table: processbench data frame with no steps in a row",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$steps[[2]] <- character()
             function() processbench_task(x, dir = d)
           },
           "field", "<data frame>", row = "2", field = "steps", python = FALSE),
  bad_case("task table: processbench data frame with a missing step",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$steps[[3]] <- c(x$steps[[3]][[1]], NA)
             function() processbench_task(x, dir = d)
           },
           "field", "<data frame>", row = "3", field = "steps[1]", python = FALSE),
  bad_case("task table: processbench data frame whose steps are NA",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$steps[[1]] <- NA
             function() processbench_task(x, dir = d)
           },
           "field", "<data frame>", row = "1", field = "steps[0]", python = FALSE),
  bad_case("task table: processbench parquet with a label past the last step",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$label[[2]] <- length(x$steps[[2]])
             path <- file.path(d, "labels.parquet")
             write_task_table(x, path, "processbench")
             function() processbench_dataset(path)
           },
           "field", "labels.parquet", row = "2", field = "label", python = FALSE),
  bad_case("task table: processbench data frame with a label below -1",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$label[[1]] <- -2L
             function() processbench_task(x, dir = d)
           },
           "field", "<data frame>", row = "1", field = "label", python = FALSE),
  bad_case("task table: deltabench data frame with an error section past the last step",
           function(d) {
             x <- processbench_dataset(version = "sample")
             x$error_sections[[4]] <- length(x$steps[[4]]) + 1L
             function() deltabench_task(x, dir = d)
           },
           "field", "<data frame>", row = "4", field = "error_sections", python = FALSE),
  bad_case("task table: a parquet file of another benchmark",
           function(d) {
             path <- file.path(d, "other.parquet")
             write_task_table(fx_table(), path, "futurex")
             function() processbench_dataset(path)
           },
           "benchmark", "other.parquet", python = FALSE),

  # NUL bytes, NaN/Infinity, empty tables and names that leave the data folder (issue 18)
  bad_case("futurex: Infinity as a Std",
           function(d) fx_raw(d, '[{"id": "a", "prompt": "p", "level": 1, "ground_truth": "1"},',
                              ' {"id": "b", "prompt": "p", "level": 3, "ground_truth": "2",',
                              '  "Std": Infinity}]'),
           "json", "questions.json", row = "2", field = "Std"),
  bad_case("futurex: a NUL byte in a prompt",
           function(d) {
             path <- write_bytes(file.path(d, "questions.json"),
                                 c(charToRaw('[{"id": "a", "prompt": "p'), as.raw(0),
                                   charToRaw('", "level": 1, "ground_truth": "1"}]')))
             function() prepare_futurex(path)
           },
           "encoding", "questions.json", row = "1"),
  bad_case("processbench: NaN as a label",
           function(d) pb_lines(d, json_line(pb_record("a")),
                                sub('"label":-1', '"label":NaN', json_line(pb_record("b")))),
           "json", "gsm8k.jsonl", row = "2", field = "label"),
  bad_case("deltabench: -Infinity in a section number",
           function(d) db_lines(d, sub('"reason_error_section_numbers":[]',
                                       '"reason_error_section_numbers":[-Infinity]',
                                       json_line(db_record("a")), fixed = TRUE)),
           "json", "deltabench.jsonl", row = "1", field = "reason_error_section_numbers[1]"),
  bad_case("probsem: NaN as an expected option",
           function(d) ps_folder(d, suite_text = paste0(
             '{"pretext": "Context:", "posttext": "", "queries": ["Wet.", "Dry."],',
             ' "context": [{"text": "It rained.", "expected": NaN}]}')),
           "json", "weather_A.json", field = "context[1].expected"),
  bad_case("dsbench: NaN as an answer",
           function(d) ds_folder(d, data_json = paste0(
             '{"id": "c1", "name": "Comp", "year": 2024, "questions": ["question1"], ',
             '"answers": [NaN]}')),
           "json", "data.json", row = "1", field = "answers[1]"),
  bad_case("dsbench: a NUL byte in a question file",
           function(d) ds_folder(d, extra = function(folder) {
             write_bytes(file.path(folder, "question1.txt"),
                         c(charToRaw("Which option?\nA or"), as.raw(0), charToRaw(" B.")))
           }),
           "encoding", "question1.txt"),
  bad_case("arena: a NUL byte in questions.csv",
           function(d) {
             path <- write_bytes(file.path(d, "questions.csv"),
                                 c(charToRaw(',question\n0,"a"\n1,"b'), as.raw(0),
                                   charToRaw('"\n2,"c"\n')))
             function() prepare_arena(path)
           },
           "encoding", "questions.csv", row = "2", field = "question", python = FALSE),
  bad_case("task table: a parquet file without rows",
           function(d) {
             path <- write_task_table(fx_table()[0, ], file.path(d, "none.parquet"), "futurex")
             function() futurex_dataset(path)
           },
           "empty", "none.parquet", python = FALSE),
  bad_case("task table: an infinite Std",
           function(d) {
             x <- fx_table()
             x$std[[3]] <- Inf
             function() validate_task_table(x, "futurex", file = "mine.parquet")
           },
           "schema", "mine.parquet", row = "3", field = "std", python = FALSE),
  bad_case("task table: a dsbench image outside the data folder",
           function(d) {
             file.copy(system.file("extdata", "dsbench", package = "predictivebench"), d,
                       recursive = TRUE)
             x <- dsbench_dataset(version = "sample", data_dir = file.path(d, "dsbench"))
             x$image_used[[3]] <- "00000101/../../../outside.png"
             tsk <- dsbench_task(x, solver = dsbench_solver(settings = request_settings(cache = FALSE)),
                                 scorer = dsbench_scorer_exact(), dir = d)
             function() tsk$eval(solver_chat = baseline_constant("x"), view = FALSE)
           },
           "path", "00000101", row = "3 (id 00000101_question3)", field = "image_used",
           python = FALSE)
)

check_bad_input <- function(case) {
  dir <- withr::local_tempdir()
  run <- case$writer(dir)
  warnings <- character()
  err <- tryCatch({
    withCallingHandlers(run(), warning = function(w) {
      warnings <<- c(warnings, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    NULL
  }, error = identity)
  if (is.null(err)) {
    why <- if (length(warnings)) {
      paste0("no error, only warning(s): ", paste(unique(warnings), collapse = " | "))
    } else "no error"
    return(list(ok = FALSE, why = why))
  }
  msg <- paste(conditionMessage(err), collapse = "\n")
  msg <- cli::ansi_strip(msg)
  problems <- c(
    if (!inherits(err, "predictivebench_error")) paste0("unclassed error <", class(err)[[1]], ">"),
    if (inherits(err, "predictivebench_error") &&
        !any(inherits(err, paste0("predictivebench_error_", case$kind), which = TRUE) > 0)) {
      paste0("kind is ", paste(grep("^predictivebench_error_", class(err), value = TRUE),
                              collapse = "/"), ", expected ", paste(case$kind, collapse = " or "))
    },
    if (!is.null(case$file) && !grepl(case$file, msg, fixed = TRUE)) "message lacks the file",
    if (!is.null(case$row) && !grepl(paste0("Row: ", case$row), msg, fixed = TRUE)) {
      "message lacks the row"
    },
    if (!is.null(case$field) && !grepl(paste0("Field: ", case$field), msg, fixed = TRUE)) {
      "message lacks the field"
    },
    if (any(hit <- vapply(internal_text, grepl, TRUE, x = msg, fixed = TRUE))) {
      paste0("internal text in the message: ", paste(internal_text[hit], collapse = ", "))
    },
    if (nchar(msg) > 2000) "message longer than 2,000 characters"
  )
  list(ok = !length(problems), why = paste(problems, collapse = "; "), message = msg)
}

# Names of cases the benchmark code does not handle yet (reported to the lead, not edited
# here): they are checked like the others, and skipped naming the problem while they fail.
# Two that failed (a 5,000-digit number, 100,000-deep nesting) were fixed in the shared
# reader (python/predictivebench/readers.py).
# (The non-UTF-8 battle file was one, fixed in R/arena-files.R by checking the bytes first.)
known_failures <- character()

test_that("the corpus has at least 30 broken inputs over every landed flattener", {
  expect_gte(length(bad_inputs), 30)
  names <- vapply(bad_inputs, `[[`, "", "name")
  expect_false(anyDuplicated(names) > 0)
  benches <- unique(sub(":.*", "", names))
  # every benchmark whose raw files a Python flattener reads, from the registry
  flattened <- names(Filter(function(e) !is.null(e$flattener), registrations()))
  expect_equal(setdiff(c(flattened, "task table"), benches), character())
})

for (case in bad_inputs) {
  local({
    case <- case
    test_that(paste("bad input:", case$name), {
      if (case$python) skip_if_no_python()
      result <- check_bad_input(case)
      if (!result$ok && case$name %in% known_failures) {
        skip(paste0("Known failure: ", result$why, ". Message: ",
                    substr(result$message %||% "", 1, 300)))
      }
      expect(result$ok, paste0(case$name, ": ", result$why, "\n", result$message))
    })
  })
}

test_that("a valid file whose list column is empty in every row still writes a task table", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  path <- write_text(file.path(dir, "deltabench.jsonl"),
                     json_line(db_record("a")), json_line(db_record("b")))
  out <- file.path(dir, "out.parquet")
  expect_no_error(prepare_deltabench(path, out = out))
  table <- read_task_table(out, "processbench")
  expect_equal(table$error_sections, list(integer(), integer()))
})
