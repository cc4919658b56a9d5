# ellmer tools over one competition's workbooks (DSBench's files mode), built on readxl.

# Which files are workbooks is decided once, by the Python flattener (dsbench.py's
# find_workbooks()), in the `workbook_files` column; the tools open only those names, each
# checked to stay inside the folder when the tools are made and again when opened (a link may
# appear in between).

#' Tools that let a model read a folder's Excel workbooks
#'
#' @description
#' `workbook_tools()` returns [ellmer::tool()]s that a chat can call to look at the
#' workbooks of one folder instead of having them pasted into the prompt: list the
#' workbooks, list a workbook's sheets with their sizes, and read a cell range. It is what
#' [dsbench_solver()] registers in `mode = "files"`, for models whose context window cannot
#' hold a large workbook as text; register it on your own chat with
#' `chat$register_tools(workbook_tools(folder, files))`.
#'
#' The tools are confined to `files`: they open only those names in `folder` and refuse
#' every other name (another file, a path, a name from another folder). A name in `files`
#' that leads outside `folder` (an absolute path, `..`, or a link that resolves outside) is
#' an error (`predictivebench_error_path`) when the tools are made, and is refused again
#' when the model opens it. For DSBench, give
#' the task table's `workbook_files` for the competition: `prepare_dsbench()` lists there
#' the competition's workbooks (answer workbooks, whose names contain "answer", are never
#' listed, as in DSBench) and refuses folders with links that lead outside them, so the list
#' is the one place that decides what a model may read. Reading is done with
#' [readxl::read_excel()], which handles `.xlsx` and `.xlsm`; an `.xlsb` file is listed but
#' reading it returns an error message to the model. Every problem (unknown file, bad range,
#' unreadable file) is returned to the model as an error message rather than stopping the
#' evaluation. readxl is a suggested package: without it the tools are not made, and the
#' error (`predictivebench_error_dependency`) says to install it.
#'
#' @param folder The folder holding the workbooks.
#' @param files The workbook file names (bare names in `folder`) the model may open, in
#'   the order `list_workbooks` gives them: for DSBench, a row's `workbook_files`.
#' @param max_cells The most cells one `read_range` call returns (the rest is cut and the
#'   reply says so). Larger values give the model more per call but cost more tokens.
#' @returns A list of three ellmer tools: `list_workbooks`, `list_sheets`, `read_range`.
#' @noRd
workbook_tools <- function(folder, files, max_cells = 2000) {
  check_readxl()
  check_string(folder)
  if (!is.character(files) || anyNA(files)) {
    abort_pb("{.arg files} must be a character vector of workbook file names.", "argument")
  }
  check_count(max_cells)
  if (!dir.exists(folder)) {
    abort_pb("Workbook folder does not exist.", "missing_file", file = folder)
  }
  folder <- normalizePath(folder, mustWork = TRUE)
  for (i in seq_along(files)) {
    check_path_inside(folder, files[[i]], "workbook", file = folder, row = i, field = "files")
  }
  list_workbooks <- function() {
    if (!length(files)) return("There are no workbooks.")
    paste(files, collapse = "\n")
  }
  list_sheets <- function(file) {
    tool_errors({
      path <- workbook_path(folder, files, file)
      sheets <- readxl::excel_sheets(path)
      dims <- vapply(sheets, function(s) workbook_sheet_size(path, s), "")
      paste0(sheets, " (", dims, ")", collapse = "\n")
    })
  }
  read_range <- function(file, sheet, range = NULL) {
    tool_errors({
      path <- workbook_path(folder, files, file)
      if (!is.null(range) && (!is.character(range) || !nzchar(range))) range <- NULL
      cells <- suppressMessages(readxl::read_excel(
        path, sheet = sheet, range = range, col_names = FALSE, col_types = "list",
        .name_repair = "minimal"
      ))
      workbook_cells_text(cells, max_cells, range_first_row(range))
    })
  }
  list(
    list_workbooks = ellmer::tool(
      list_workbooks, name = "list_workbooks",
      description = "List the Excel workbooks available for this task (one file name a line)."
    ),
    list_sheets = ellmer::tool(
      list_sheets, name = "list_sheets",
      description = "List the sheets of a workbook with their used size (rows x columns).",
      arguments = list(file = ellmer::type_string("Workbook file name from list_workbooks."))
    ),
    read_range = ellmer::tool(
      read_range, name = "read_range",
      description = paste(
        "Read cells of a sheet as tab-separated text, one spreadsheet row a line. With an",
        "Excel range such as 'A1:F40' each line starts with its Excel row number; without",
        "one, the whole used range is returned (leading empty rows and columns dropped).",
        "Empty cells are empty; dates are written as YYYY-MM-DD."
      ),
      arguments = list(
        file = ellmer::type_string("Workbook file name from list_workbooks."),
        sheet = ellmer::type_string("Sheet name from list_sheets."),
        range = ellmer::type_string("Excel range like 'A1:F40'.", required = FALSE)
      )
    )
  )
}

# readxl is in Suggests (only DSBench's files mode needs it); a function so tests can pretend
# it is missing.
readxl_installed <- function() requireNamespace("readxl", quietly = TRUE)

check_readxl <- function(call = rlang::caller_env()) {
  if (readxl_installed()) return(invisible(TRUE))
  abort_pb(
    c("The workbook tools (DSBench's files mode) need the {.pkg readxl} package.",
      i = "Install it with {.code install.packages(\"readxl\")}, or use {.code mode = \"inline\"}."),
    "dependency", call = call
  )
}

# The path of `file`, one of the listed `files`; any other name is refused.
workbook_path <- function(folder, files, file) {
  if (!rlang::is_string(file) || !nzchar(file)) {
    stop("`file` must be one workbook file name.", call. = FALSE)
  }
  if (!file %in% files) {
    stop("Unknown workbook '", file, "'. Available: ", paste(files, collapse = ", "),
         call. = FALSE)
  }
  if (endsWith(tolower(file), "xlsb")) {
    stop("Workbook '", file, "' is an .xlsb file, which this tool cannot read.", call. = FALSE)
  }
  path <- path_inside(folder, file)
  if (is.null(path)) stop("Workbook '", file, "' is outside the folder.", call. = FALSE)
  if (!file.exists(path)) stop("Workbook '", file, "' does not exist.", call. = FALSE)
  path
}

workbook_sheet_size <- function(path, sheet) {
  cells <- tryCatch(
    suppressMessages(readxl::read_excel(path, sheet = sheet, col_names = FALSE,
                                        col_types = "text", .name_repair = "minimal")),
    error = function(e) NULL
  )
  if (is.null(cells)) return("unreadable")
  paste(nrow(cells), "x", ncol(cells))
}

range_first_row <- function(range) {
  if (is.null(range)) return(NULL)
  digits <- regmatches(range, regexpr("[0-9]+", sub("^.*!", "", range)))
  if (length(digits)) as.integer(digits) else NULL
}

workbook_cells_text <- function(cells, max_cells, first_row = NULL) {
  if (!nrow(cells) || !ncol(cells)) return("(no cells)")
  rows <- nrow(cells)
  keep <- max(1L, min(rows, floor(max_cells / ncol(cells))))
  m <- vapply(cells, function(column) {
    vapply(column[seq_len(keep)], workbook_cell_text, "")
  }, character(keep))
  m <- matrix(m, nrow = keep)
  lines <- apply(m, 1, paste, collapse = "\t")
  if (!is.null(first_row)) lines <- paste(seq_len(keep) + first_row - 1L, lines, sep = "\t")
  out <- paste(lines, collapse = "\n")
  if (keep < rows) {
    out <- paste0(out, "\n[", rows - keep, " more rows not shown; read a smaller range]")
  }
  out
}

# One cell as text: dates in ISO form, numbers with up to 15 significant digits.
workbook_cell_text <- function(value) {
  if (length(value) != 1 || is.na(value)) return("")
  if (inherits(value, "POSIXt")) {
    text <- format(value, "%Y-%m-%d %H:%M:%S", tz = "UTC")
    return(sub(" 00:00:00$", "", text))
  }
  if (is.numeric(value)) return(format(value, digits = 15, scientific = FALSE, trim = TRUE))
  as.character(value)
}

# A tool's failure goes back to the model as text; the evaluation goes on.
tool_errors <- function(expr) {
  tryCatch(expr, error = function(e) paste("Error:", conditionMessage(e)))
}
