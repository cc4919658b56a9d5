# The tools take the workbook list from the task table (the flattener decides what a
# workbook is): these tests build them from the bundled sample's rows.
sample_tools <- function(id = "00000101", ...) {
  data <- dsbench_dataset(version = "sample")
  row <- match(id, data$competition_id)
  workbook_tools(data$folder[[row]], data$workbook_files[[row]], ...)
}

competition_folder <- function(id = "00000101") {
  system.file("extdata", "dsbench", "data", id, package = "predictivebench")
}

test_that("without readxl (a suggested package) the tools are not made: a classed error names it", {
  local_replace_internal("readxl_installed", function() FALSE)
  err <- expect_error(workbook_tools(competition_folder(), "lemonade.xlsx"),
                      class = "predictivebench_error_dependency")
  expect_match(conditionMessage(err), "readxl", fixed = TRUE)
  expect_match(conditionMessage(err), "install.packages(\"readxl\")", fixed = TRUE)
  expect_s3_class(err, "predictivebench_error")
})

test_that("workbook tools list workbooks and sheets, never answer workbooks", {
  skip_if_not_installed("readxl")
  tools <- sample_tools()
  expect_named(tools, c("list_workbooks", "list_sheets", "read_range"))
  expect_identical(tools$list_workbooks(), "lemonade.xlsx")
  sheets <- strsplit(tools$list_sheets("lemonade.xlsx"), "\n")[[1]]
  expect_identical(sheets, c("Sales (6 x 5)", "Prices (4 x 3)", "Notes (2 x 2)"))
  expect_identical(sample_tools("00000103")$list_workbooks(), "There are no workbooks.")
  expect_identical(strsplit(sample_tools("00000102")$list_workbooks(), "\n")[[1]],
                   c("Model.XLSM", "a_inputs.xlsx"))
})

test_that("read_range returns the cells with Excel row numbers", {
  skip_if_not_installed("readxl")
  tools <- sample_tools()
  expect_identical(tools$read_range("lemonade.xlsx", "Sales", "B4:D5"),
                   "4\tSouth\t310\t1234567.891234\n5\tSouth\t87\t")
  whole <- tools$read_range("lemonade.xlsx", "Prices")
  expect_match(whole, "^Item\tUnit cost\tMarkup %\nLemon\t0.35\t0.4\n")
  expect_match(tools$read_range("lemonade.xlsx", "Notes", "B2"), "9876543210123")
  xlsm <- sample_tools("00000102")$read_range("Model.XLSM", "Plan", "A2:B2")
  expect_identical(xlsm, "2\t2030\t1250000.5")
})

test_that("read_range cuts large replies at max_cells", {
  skip_if_not_installed("readxl")
  tools <- sample_tools(max_cells = 10)
  out <- tools$read_range("lemonade.xlsx", "Sales", "A1:E6")
  expect_length(strsplit(out, "\n")[[1]], 3)
  expect_match(out, "[4 more rows not shown; read a smaller range]", fixed = TRUE)
})

test_that("tools are confined to the listed files and report problems as text", {
  skip_if_not_installed("readxl")
  tools <- sample_tools()
  expect_match(tools$read_range("Lemonade_Answers.xlsx", "Answers"), "^Error: Unknown workbook")
  expect_match(tools$read_range("../00000102/a_inputs.xlsx", "Inputs"), "^Error: Unknown")
  expect_match(tools$list_sheets("/etc/passwd"), "^Error: Unknown workbook")
  expect_match(tools$read_range("lemonade.xlsx", "Nope"), "^Error:")
  expect_match(tools$read_range("lemonade.xlsx", "Sales", "not a range"), "^Error:")
  # A workbook that is in the folder but not in the list is refused too.
  unlisted <- workbook_tools(competition_folder(), character())
  expect_identical(unlisted$list_workbooks(), "There are no workbooks.")
  expect_match(unlisted$list_sheets("lemonade.xlsx"), "^Error: Unknown workbook")
  # A listed name that is not in the folder says so.
  gone <- workbook_tools(competition_folder(), "gone.xlsx")
  expect_match(gone$list_sheets("gone.xlsx"), "^Error: Workbook 'gone.xlsx' does not exist")
})

test_that(".xlsb files are listed but not read", {
  skip_if_not_installed("readxl")
  dir <- withr::local_tempdir()
  writeBin(as.raw(c(0x50, 0x4b, 3, 4)), file.path(dir, "data.xlsb"))
  tools <- workbook_tools(dir, "data.xlsb")
  expect_identical(tools$list_workbooks(), "data.xlsb")
  expect_match(tools$list_sheets("data.xlsb"), "cannot read")
})

test_that("workbook_tools() checks its folder and files", {
  skip_if_not_installed("readxl")
  expect_error(workbook_tools(file.path(tempdir(), "nope"), character()),
               class = "predictivebench_error_missing_file")
  expect_error(workbook_tools(competition_folder(), character(), max_cells = 0),
               class = "predictivebench_error_argument")
  expect_error(workbook_tools(competition_folder(), NA_character_),
               class = "predictivebench_error_argument")
  expect_error(workbook_tools(competition_folder()))
})

test_that("names that lead outside the folder are refused, when made and when opened", {
  skip_if_not_installed("readxl")
  skip_on_os("windows")  # symbolic links
  dir <- withr::local_tempdir()
  folder <- file.path(dir, "c1")
  dir.create(folder)
  file.copy(file.path(competition_folder(), "lemonade.xlsx"), file.path(dir, "secret.xlsx"))
  file.symlink(file.path(dir, "secret.xlsx"), file.path(folder, "linked.xlsx"))
  for (name in c("../secret.xlsx", file.path(dir, "secret.xlsx"), "linked.xlsx")) {
    error <- expect_error(workbook_tools(folder, c("ok.xlsx", name)),
                          class = "predictivebench_error_path")
    expect_identical(error$row, 2L)
    expect_identical(error$field, "files")
  }
  # A link put in place after the tools were made is refused when the model opens it.
  file.copy(file.path(competition_folder(), "lemonade.xlsx"), file.path(folder, "late.xlsx"))
  tools <- workbook_tools(folder, "late.xlsx")
  expect_match(tools$list_sheets("late.xlsx"), "^Sales")
  unlink(file.path(folder, "late.xlsx"))
  file.symlink(file.path(dir, "secret.xlsx"), file.path(folder, "late.xlsx"))
  expect_match(tools$list_sheets("late.xlsx"), "^Error: Workbook 'late.xlsx' is outside")
  # Excel's lock files start with "~": a name, not a home folder.
  file.copy(file.path(competition_folder(), "lemonade.xlsx"), file.path(folder, "~$book.xlsx"))
  expect_match(workbook_tools(folder, "~$book.xlsx")$list_sheets("~$book.xlsx"), "^Sales")
})

# A fake model that always calls a tool (read_range), round after round, `delay` seconds a
# round: the runaway of issue 25 (109 paid rounds in 92 s despite timeout = 10).
always_tool_server <- function(delay = 0, .local_envir = parent.frame()) {
  call <- tool_call_body("read_range",
                         list(file = "lemonade.xlsx", sheet = "Sales", range = "B4:C4"))
  local_fake_openai(function(body, n) list(delay = delay, json = call),
                    .local_envir = .local_envir)
}

files_mode_task <- function(settings) {
  data <- dsbench_dataset(version = "sample")
  dsbench_task(
    data[data$competition_id == "00000101", ][1, ],
    solver = dsbench_solver(mode = "files", images = FALSE, settings = settings),
    scorer = dsbench_scorer_exact(), dir = withr::local_tempdir(.local_envir = parent.frame())
  )
}

test_that("files mode: max_turns caps a model that always calls a tool; paid turns count", {
  server <- always_tool_server()
  tsk <- files_mode_task(request_settings(cache = FALSE, max_turns = 4, rpm = Inf))
  chat <- fake_chat(server)
  suppressWarnings(tsk$eval(solver_chat = chat, view = FALSE))
  # the cap's callback is not left behind on the user's chat (ellmer's clones share them)
  expect_equal(chat$.__enclos_env__$private$callback_on_tool_request$count(), 0)
  meta <- tsk$get_samples()$solver_metadata[[1]]
  expect_match(meta$error, "Stopped after 4 turns \\(setting `max_turns`\\)")
  expect_equal(server$count(), 4)  # not sent again: its turns were paid
  expect_equal(c(meta$input_tokens, meta$output_tokens), c(4 * 10, 4 * 5))
  expect_equal(request_settings()$max_turns, 20)
})

test_that("files mode: one deadline covers every tool round; past it the sample fails", {
  # each round takes 0.4 s and the sample may take 1.5 s: a few rounds, then its deadline
  server <- always_tool_server(delay = 0.4)
  tsk <- files_mode_task(request_settings(cache = FALSE, timeout = 1.5, max_turns = 100, rpm = Inf, retry = list(max_tries = 3)))
  suppressWarnings(tsk$eval(solver_chat = fake_chat(server), view = FALSE))
  meta <- tsk$get_samples()$solver_metadata[[1]]
  expect_match(meta$error, "took longer than its deadline of 1.5 s")
  rounds <- server$count()
  expect_lt(rounds, 10)  # far from max_turns: the deadline, not the cap, ended it
  # the rounds answered before the deadline are counted (the one cut off may not be)
  expect_gte(meta$input_tokens, 10)
  expect_equal(meta$input_tokens %% 10, 0)
  # not retried: a second attempt would pay its rounds again; and the abandoned request's
  # tool loop, still a promise on the event loop, sends no further round when the loop runs
  # again (here, or in a later run of the session)
  for (k in 1:15) later::run_now(0.1)
  expect_equal(server$count(), rounds)
})

test_that("the sample's deadline and turn cap are errors of their own class", {
  expect_s3_class(sample_deadline_error(10, 3), "predictivebench_error_sample_deadline")
  expect_s3_class(max_turns_error(20), "predictivebench_error_max_turns")
  expect_false(is_transient_error(sample_deadline_error(10, 3)))
  expect_false(is_transient_error(max_turns_error(20)))
  expect_true(is_transient_error(deadline_error(10)))
})
