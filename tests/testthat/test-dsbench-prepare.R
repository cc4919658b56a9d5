# The original protocol again, from pandas' own read_excel + to_string called from R.
independent_prompt <- function(folder, question_name) {
  pd <- reticulate::import("pandas", convert = FALSE)
  files <- list.files(folder)
  lower <- tolower(files)
  files <- files[(endsWith(lower, "xlsx") | endsWith(lower, "xlsm") | endsWith(lower, "xlsb")) &
                   !grepl("answer", lower)]
  files <- files[order(files, method = "radix")]
  content <- ""
  for (f in files) {
    engine <- if (endsWith(tolower(f), "xlsb")) "pyxlsb" else NULL
    sheets <- pd$read_excel(file.path(folder, f), sheet_name = NULL, engine = engine)
    names <- reticulate::py_to_r(reticulate::import_builtins()$list(sheets$keys()))
    text <- paste0(vapply(names, function(s) {
      df <- reticulate::py_get_item(sheets, s)
      paste0("Sheet name: ", s, "\n", reticulate::py_to_r(df$to_string(index = FALSE)), "\n\n")
    }, ""), collapse = "")
    content <- paste0(content, "The excel file ", f, " is: ", text)
  }
  read <- function(p) {
    x <- readChar(p, file.size(p), useBytes = TRUE)
    Encoding(x) <- "UTF-8"
    gsub("\r\n?", "\n", x)
  }
  intro <- read(file.path(folder, "introduction.txt"))
  question <- read(file.path(folder, paste0(question_name, ".txt")))
  paste0(
    if (nzchar(content)) paste0("The workbook is detailed as follows. ", content, " \n"),
    "The introduction is detailed as follows. \n ", intro, " \n",
    "The questions are detailed as follows. \n ", question
  )
}

test_that("the shipped parquet's prompts equal an independent pandas rendering", {
  skip_if_no_python()
  data <- dsbench_dataset(version = "sample")
  # One row per question of data.json, in its order.
  lines <- readLines(file.path(sample_dir(), "data.json"), encoding = "UTF-8", warn = FALSE)
  records <- lapply(lines[nzchar(trimws(lines))], jsonlite::fromJSON)
  expect_identical(data$id, unlist(lapply(records, function(r) {
    if (length(r$questions)) paste0(r$id, "_", r$questions) else character()
  })))
  for (i in seq_len(nrow(data))) {
    expected <- independent_prompt(data$folder[[i]], data$question_name[[i]])
    expect_identical(charToRaw(enc2utf8(data$input[[i]])), charToRaw(enc2utf8(expected)),
                     label = data$id[[i]])
  }
  expect_false(any(grepl("SECRET-ANSWER-MARKER", data$input)))
})

test_that("prepare_dsbench() rebuilds the shipped table and writes parquet", {
  skip_if_no_python()
  out <- withr::local_tempfile(fileext = ".parquet")
  prepare_dsbench(sample_dir(), out = out)
  rebuilt <- read_task_table(out)
  shipped <- read_task_table(system.file("extdata", "dsbench-sample.parquet",
                                         package = "predictivebench"))
  expect_identical(rebuilt$input, shipped$input)
  expect_identical(rebuilt$workbook_files, shipped$workbook_files)
  expect_identical(rebuilt$target[rebuilt$target_type == "dict"],
                   "{'Q': 2, 'Year': 2030, 'Profit': 150000.25}")
})

test_that("prepare_dsbench() errors name competition and file; on_error = 'skip' records", {
  skip_if_no_python()
  dir <- withr::local_tempdir()
  file.copy(list.files(sample_dir(), full.names = TRUE), dir, recursive = TRUE)
  unlink(file.path(dir, "data", "00000102", "question2.txt"))
  err <- expect_error(prepare_dsbench(dir), class = "predictivebench_error_missing_file")
  expect_match(conditionMessage(err), "00000102")
  expect_match(err$file, "question2.txt$")
  expect_warning(
    table <- prepare_dsbench(dir, on_error = "skip"),
    class = "predictivebench_warning_skipped"
  )
  expect_equal(nrow(table), nrow(dsbench_dataset(version = "sample")) - 1) # the broken question left out
  skipped <- attr(table, "skipped")
  expect_equal(skipped$competition, "00000102")
  expect_equal(skipped$question, "question2")
})

test_that("the real data.json parses: every line a competition with paired answers", {
  skip_if_no_python()
  path <- skip_if_no_reference("dsbench", "data.json")
  predictivebench:::python_module()$get_preparer("dsbench")  # imports the submodule
  dsbench <- reticulate::import("predictivebench.dsbench")
  records <- dsbench$read_data_json(path)
  metas <- lapply(records, function(r) dsbench$validate_competition(r[[2]], path, r[[1]]))
  lines <- readLines(path, encoding = "UTF-8", warn = FALSE)
  expect_length(metas, sum(nzchar(trimws(lines))))
  expect_true(all(vapply(metas, function(m) length(m$questions) == length(m$answers), TRUE)))
  expect_gt(sum(vapply(metas, function(m) length(m$questions), 1L)), 0)
})

test_that("a symbolic link out of a competition folder is refused by the flattener", {
  # The files mode's tools trust the table's workbook list, so this is where links are caught.
  skip_if_no_python()
  skip_on_os("windows")
  dir <- withr::local_tempdir()
  file.copy(list.files(sample_dir(), full.names = TRUE), dir, recursive = TRUE)
  outside <- withr::local_tempdir()
  file.copy(file.path(dir, "data", "00000101", "lemonade.xlsx"), outside)
  file.symlink(file.path(outside, "lemonade.xlsx"),
               file.path(dir, "data", "00000101", "linked.xlsx"))
  err <- expect_error(prepare_dsbench(dir), class = "predictivebench_error_path")
  expect_match(conditionMessage(err), "outside the competition folder")
})

# A DSBench folder with one competition holding the three real .xlsb workbooks of
# ../shared/reference/xlsb, copied to a temporary folder (never into the repository).
xlsb_competition <- function(xlsb, env = parent.frame()) {
  dir <- withr::local_tempdir(.local_envir = env)
  folder <- file.path(dir, "data", "x1")
  dir.create(folder, recursive = TRUE)
  writeLines('{"id": "x1", "name": "binary", "questions": ["question1"], "answers": ["A"]}',
             file.path(dir, "data.json"))
  writeLines("About binary workbooks.", file.path(folder, "introduction.txt"))
  writeLines("Which sheet is hidden?", file.path(folder, "question1.txt"))
  file.copy(file.path(xlsb, c("any_sheets.xlsb", "date.xlsb", "issues.xlsb")), folder)
  dir
}

test_that("without pyxlsb an .xlsb workbook is a classed error saying what to install", {
  skip_if_no_python()
  xlsb <- skip_if_no_reference("xlsb")
  local_no_pyxlsb()
  err <- expect_error(prepare_dsbench(xlsb_competition(xlsb)),
                      class = "predictivebench_error_dependency")
  expect_match(conditionMessage(err), "pip install pyxlsb", fixed = TRUE)
  expect_match(conditionMessage(err), "any_sheets.xlsb", fixed = TRUE)
})

test_that(".xlsb workbooks are flattened like .xlsx ones (pandas with pyxlsb)", {
  skip_if_no_python()
  xlsb <- skip_if_no_reference("xlsb")
  skip_if_no_pyxlsb()
  dir <- xlsb_competition(xlsb)
  table <- prepare_dsbench(dir)
  folder <- file.path(dir, "data", "x1")
  expect_identical(table$workbook_files[[1]], c("any_sheets.xlsb", "date.xlsb", "issues.xlsb"))
  expect_identical(charToRaw(enc2utf8(table$input[[1]])),
                   charToRaw(enc2utf8(independent_prompt(folder, "question1"))))
  expect_match(table$input[[1]], "Sheet name: VeryHidden\n", fixed = TRUE)
  expect_match(table$input[[1]], "The excel file date.xlsb is: Sheet name: Sheet1\n",
               fixed = TRUE)
  # The files mode lists them; its readxl reader says it cannot read them.
  tools <- workbook_tools(folder, table$workbook_files[[1]])
  expect_identical(tools$list_workbooks(), "any_sheets.xlsb\ndate.xlsb\nissues.xlsb")
  expect_match(tools$list_sheets("date.xlsb"), "cannot read")
})

# The bundled DSBench folder, copied so that it can be moved about.
copy_sample_dir <- function(to) {
  dir.create(to, recursive = TRUE)
  file.copy(list.files(sample_dir(), full.names = TRUE), to, recursive = TRUE)
  to
}

test_that("a table read back from parquet finds its competition folders", {
  skip_if_no_python()
  base <- withr::local_tempdir()
  src <- copy_sample_dir(file.path(base, "dsbench"))
  # written inside the folder: found relative to the parquet file, even after a move
  inside <- prepare_dsbench(src, out = file.path(src, "dsbench.parquet"))
  meta <- task_table_metadata(inside)
  expect_equal(meta[["predictivebench.dsbench_root_relative"]], "data")
  expect_equal(meta[["predictivebench.dsbench_root"]], normalizePath(file.path(src, "data")))
  moved <- file.path(base, "moved")
  file.rename(src, moved)
  table <- dsbench_dataset(file.path(moved, "dsbench.parquet"))
  expect_true(all(dir.exists(table$folder)))
  expect_true(all(startsWith(table$folder, normalizePath(moved))))
  # written elsewhere: the recorded absolute folder
  out <- prepare_dsbench(moved, out = file.path(base, "elsewhere", "dsbench.parquet"))
  expect_null(task_table_metadata(out)[["predictivebench.dsbench_root_relative"]])
  expect_true(all(startsWith(dsbench_dataset(out)$folder, normalizePath(moved))))
  # the images and the files mode work without data_dir
  tsk <- dsbench_task(dsbench_dataset(out),
                      solver = dsbench_solver(mode = "files",
                                              settings = request_settings(cache = FALSE)),
                      scorer = dsbench_scorer_exact(), dir = file.path(base, "logs"))
  expect_no_error(suppressMessages(tsk$eval(solver_chat = baseline_constant("C"), view = FALSE)))
  # the folder gone: unknown again, as for a table made elsewhere
  file.rename(moved, file.path(base, "gone"))
  expect_true(all(is.na(dsbench_dataset(out)$folder)))
  # data_dir still wins
  expect_true(all(dir.exists(dsbench_dataset(out, data_dir = file.path(base, "gone"))$folder)))
})

test_that("a parquet file next to its DSBench folder finds it without metadata", {
  base <- withr::local_tempdir()
  src <- copy_sample_dir(file.path(base, "dsbench"))
  table <- read_task_table(system.file("extdata", "dsbench-sample.parquet",
                                       package = "predictivebench"))
  path <- write_task_table(table, file.path(src, "sample.parquet"), "dsbench")
  found <- dsbench_dataset(path)$folder
  expect_equal(found, file.path(normalizePath(file.path(src, "data")), table$competition_dir))
  # a relative folder that would leave the parquet file's folder is not followed
  expect_false(dsbench_is_relative_inside("../data"))
  expect_false(dsbench_is_relative_inside("/etc"))
  expect_true(dsbench_is_relative_inside("data"))
  # a competition folder name that would leave the DSBench folder is refused
  table$competition_dir[[2]] <- "../elsewhere"
  bad <- write_task_table(table, file.path(base, "bad.parquet"), "dsbench")
  err <- expect_error(dsbench_dataset(bad, data_dir = src), class = "predictivebench_error_path")
  expect_equal(c(err$row, err$field), c("2", "competition_dir"))
})
