# DSBench data analysis: Excel-backed questions, prompts as the original builds them, an LLM judge.

dsbench_system_prompt_text <- paste0(
  "You are a data analyst. I will give  you a background introduction and data analysis ",
  "question. You must answer the question. "
)

# The original's request with an image has one more trailing space in its system prompt.
dsbench_system_prompt_image <- paste0(dsbench_system_prompt_text, " ")

dsbench_judge_template <- paste0(
  "Please judge whether the generated answer is right or wrong. We require that the correct ",
  "answer to the prediction gives a clear answer, not just a calculation process or a ",
  "disassembly of ideas. The question is %s. The true answer is \n %s. \n The predicted ",
  "answer is \n %s.\n If the predicted answer is right, please output True. Otherwise output ",
  "Flase. Don't output any other text content. You only can output True or False."
)

#' Flatten a DSBench data-analysis folder into a task table
#'
#' Runs the Python flattener (`python -m predictivebench prepare dsbench`) through
#' reticulate and writes the `dsbench` task table with nanoparquet. The folder is the
#' original repository's `data_analysis/` layout: `data.json` (JSON Lines) and
#' `data/<id>/` competition folders with `introduction.txt`, `questionN.txt`, Excel workbooks
#' and images. Each question becomes one row whose `input` is, byte for byte, the prompt the
#' original notebooks send: every workbook (`xlsx`, `xlsb`, `xlsm`, except names containing
#' "answer") read with pandas defaults and rendered with `DataFrame.to_string(index=False)`,
#' then the introduction and the question. Reading `.xlsb` needs the Python package
#' `pyxlsb`. See [prepare_task_table()] for how Python is found and [task_table_schema()]
#' (`"dsbench"`) for the columns.
#'
#' @section Errors:
#' Problems are signalled as `predictivebench_error_<kind>` conditions (see
#' [predictivebench-errors]) naming the file and the competition: `missing_file` (a
#' missing `data.json`, competition folder, `introduction.txt` or question file), `json`
#' (a line that is not JSON), `field` (a malformed competition object), `count_mismatch`
#' (questions and answers differ in number), `path` (an id, question name or link that
#' would leave the folder), `workbook` (a corrupt or password-protected workbook) and
#' `dependency` (an `.xlsb` workbook without the Python package `pyxlsb`).
#'
#' @param data_dir The folder holding `data.json` (competition folders in its `data/`
#'   subfolder or beside it), or the `data.json` file.
#' @param out The parquet file to write, or `NULL` to return the table.
#' @param skip_broken `FALSE` (the default) stops at the first broken competition or
#'   question (missing file or folder, unreadable or password-protected workbook,
#'   question/answer count mismatch, a name that would leave `data_dir`) with an error naming
#'   the competition and the file. `TRUE` leaves broken items out, warns with the list,
#'   and attaches it to the result as the attribute `"skipped"`.
#' @param ... Passed on to [prepare_task_table()].
#' @returns The path `out` (invisibly), or the table; with `skip_broken = TRUE` either has
#'   an attribute `"skipped"` (a tibble: `competition`, `question`, `file`, `kind`,
#'   `message`).
#' @export
#' @examplesIf python_available()
#' prepare_dsbench(system.file("extdata", "dsbench", package = "predictivebench"))
prepare_dsbench <- function(data_dir, out = NULL, skip_broken = FALSE, ...) {
  check_string(data_dir)
  check_flag(skip_broken)
  if (!skip_broken) return(prepare_task_table("dsbench", data_dir, out = out, ...))
  report <- tempfile(fileext = ".json")
  on.exit(unlink(report), add = TRUE)
  result <- prepare_task_table("dsbench", data_dir, out = out, skip_broken = TRUE,
                               skipped_report = report, quiet = TRUE, ...)
  items <- if (file.exists(report)) jsonlite::read_json(report) else list()
  skipped <- tibble::tibble(
    competition = vapply(items, function(x) x$competition %||% NA_character_, ""),
    question = vapply(items, function(x) x$question %||% NA_character_, ""),
    file = vapply(items, function(x) x$file %||% NA_character_, ""),
    kind = vapply(items, function(x) x$kind %||% NA_character_, ""),
    message = vapply(items, function(x) x$message %||% NA_character_, "")
  )
  if (nrow(skipped)) {
    cli::cli_warn(
      c("Skipped {nrow(skipped)} broken item{?s}:",
        rlang::set_names(skipped$message, rep("*", nrow(skipped)))),
      class = "predictivebench_warning_skipped"
    )
  }
  attr(result, "skipped") <- skipped
  if (is.null(out)) result else invisible(structure(out, skipped = skipped))
}

#' DSBench data analysis as a vitals Task
#'
#' @description
#' DSBench's data-analysis part asks 466 questions about 38 modelling competitions; each
#' competition has an introduction, questions and Excel workbooks. `dsbench_task()` runs
#' them as the original evaluation does: one request per question, with the workbooks
#' rendered as text in the prompt (see [prepare_dsbench()]), the original system prompt,
#' temperature 0, the competition's first image attached, the prompt cut from the front to
#' fit the context window, and an LLM judge that says whether the answer is right.
#' [dsbench_summary()] gives the original's two headline numbers. Use the `files` mode of
#' `dsbench_solver()` for models whose context cannot hold large workbooks, and
#' `dsbench_scorer_exact()` for a cheap run without a judge.
#'
#' * `dsbench_dataset()` reads a task table (by default the bundled sample: three fictional
#'   competitions, seven questions) and locates the competition folders.
#' * `dsbench_solver()` sends the prompts.
#' * `dsbench_scorer()` is the original judge; `dsbench_scorer_exact()` a deterministic one.
#'
#' @section Solver:
#' The system prompt is the original's, `"You are a data analyst. I will give  you a
#' background introduction and data analysis question. You must answer the question. "`
#' (with its double space), with one more trailing space when an image is attached, as in
#' the original. Parameters are `temperature = 0`, plus `max_tokens = 2256` on requests with
#' an image (the original sets it only there); the original's `top_p = 1` and zero
#' frequency/presence penalties are the API defaults and are not sent. Images: the
#' original attaches the first `.jpg`/`.png` of the folder (column `image_used`) to every
#' question of the competition for vision models; `images = TRUE` does the same with
#' [ellmer::content_image_file()].
#'
#' **Truncation.** The original keeps the last `context_limit - 6000` tiktoken tokens of the
#' prompt. Without the exact tokenizer, the prompt is cut from the front so that
#' `count_tokens()` of the rest is at most `context_limit - reserve_tokens`. The default
#' counter, [dsbench_count_tokens()], is an estimate (see its help page): non-ASCII text
#' counts at its UTF-8 byte length, a true upper bound, and ASCII text at generous but not
#' guaranteed rates, so it usually over-counts and a prompt is cut somewhat more than the
#' original would cut it. There is no separate safety margin: `reserve_tokens` (the
#' original's 6,000 tokens kept for the answer) also absorbs an under-count; for prompts
#' of unusual ASCII text (long hexadecimal ids, random letters) lower `context_limit`, or
#' pass an exact tokenizer as `count_tokens` to cut where the original does.
#'
#' **Files mode** (`mode = "files"`, beyond the original): the workbooks are not pasted in.
#' The prompt is the original's without the workbook part, preceded by a note naming the
#' workbook files, and the chat gets [workbook_tools()] confined to the competition folder
#' (list workbooks, list sheets, read a range), so the model reads what it needs. The
#' logged conversation keeps the question and the final answer (not the tool calls); the
#' tokens and cost reported (per sample and in [dsbench_summary()]) are the sum over every
#' round of the question's requests, tool calls included.
#'
#' @section Judge:
#' The original judge (a `gpt-4o` model, given as `scorer_chat`) is sent one user message,
#' at temperature 0 with `max_tokens = 256`: "Please judge whether the generated answer is
#' right or wrong. ... The question is \{question\}. The true answer is \\n \{answer\}. \\n
#' The predicted answer is \\n \{prediction\}.\\n If the predicted answer is right, please
#' output True. Otherwise output Flase. ..." where the question is the question file alone
#' (no introduction), the answer is the Python `str()` of the answer in `data.json` (so
#' dicts read `{'Q': 1, ...}`), and the prediction is the whole response. The answer is
#' correct when the judge's lower-cased reply contains `"true"`. Judgements go through
#' [generate_responses()] (cached, retried); a failed judgement counts as incorrect and its
#' error is in `scorer_metadata`.
#'
#' @section Differences from the original:
#' * Workbooks are read in file-name order (`sort`); the original takes `os.listdir()` order,
#'   which depends on the file system.
#' * Images: a folder's `.jpg`/`.png` files (case-insensitive) are also taken in file-name
#'   order (Python `sorted()`, so upper-case names come first), all are listed in
#'   `image_paths`, and only the first of them is sent (`image_used`), with every question
#'   of the competition. The original also sends only one image, but the first in
#'   `os.listdir()` order, so with several images it may send a different one.
#' * Truncation uses a token estimate (or your `count_tokens`) instead of tiktoken, and
#'   cuts at a token-piece boundary; with the estimate, a prompt near the limit is usually
#'   cut a little more than the original would.
#' * Images are sent with their real media type; the original labels every image
#'   `image/jpeg`. They are sent at full size (`resize = "none"`), as in the original.
#' * A question whose model request failed (after retries) is not sent to the judge and
#'   counts as incorrect; the original stops on the first failed request.
#' * `data.json` is parsed as JSON, never evaluated as Python.
#' * Requests are sent in parallel, retried and cached ([generate_responses()]); the original
#'   sends them one by one and stops at the first error. Tokens and cost come from ellmer
#'   rather than the original's own price table.
#' * [dsbench_summary()] adds intervals (clipped to `[0, 1]`) to the original's two
#'   accuracies.
#' * The deterministic `dsbench_scorer_exact()` and the files mode are not in the original.
#'
#' @param path A task table (parquet) or a data frame in the `dsbench` schema. `NULL` is the
#'   bundled sample.
#' @param data_dir The DSBench folder the table was made from (holding `data.json` and the
#'   competition folders), needed for images and the files mode. `NULL` uses the bundled
#'   sample's folder for the sample, and none otherwise (then images are not attached and
#'   the files mode is unavailable).
#' @param mode `"inline"` (the original: workbooks in the prompt) or `"files"` (workbooks
#'   read through tools).
#' @param images Attach each competition's first image, as the original does for vision
#'   models. Set `FALSE` for models without vision.
#' @param context_limit The model's context window in tokens. The original used 128,000
#'   for GPT-4 class models and 16,385 for `gpt-3.5-turbo-0125`.
#' @param reserve_tokens Tokens kept free for the answer (the original's 6,000).
#' @param count_tokens A function of one string returning its token count, used to cut the
#'   prompt; the default is the estimate [dsbench_count_tokens()].
#' @param system_prompt `NULL` (the original's system prompt, see "Solver") or a string to
#'   use instead.
#' @param params Request parameters (see [ellmer::params()]); the default is the
#'   original's `temperature = 0`.
#' @param image_max_tokens `max_tokens` for requests with an image (the original's 2256);
#'   `NULL` leaves it unset.
#' @param max_cells Passed to [workbook_tools()] in the files mode.
#' @param scorer_chat The judge, an ellmer chat (the original used `gpt-4o-2024-05-13`),
#'   given here or through `$eval(scorer_chat = )`.
#' @param dataset A task table (tibble) from `dsbench_dataset()`. For `dsbench_solver()`, the
#'   rows it will see, used to find each input's image and folder; [dsbench_task()] fills it
#'   in, so leave it `NULL` there.
#' @param solver,scorer A solver and scorer, by default `dsbench_solver()` and
#'   `dsbench_scorer()`.
#' @param epochs Passed to [vitals::Task].
#' @param dir Where vitals writes its logs.
#' @param name The task's name in logs.
#' @param tolerance For `dsbench_scorer_exact()`: relative tolerance for numbers.
#' @inheritParams generate_solver
#' @returns `dsbench_dataset()` a tibble (the task table plus a `folder` column);
#'   `dsbench_solver()` and the scorers functions for [vitals::Task]; `dsbench_task()` a
#'   [vitals::Task].
#' @export
#' @examples
#' # Offline: an oracle answers with the targets and a baseline judge says "True".
#' data <- dsbench_dataset()
#' tsk <- dsbench_task(
#'   solver = dsbench_solver(cache = FALSE),
#'   scorer = dsbench_scorer(scorer_chat = baseline_constant("True"), cache = FALSE),
#'   dir = tempfile()
#' )
#' tsk$eval(solver_chat = baseline_echo(data, "target"), view = FALSE)
#' dsbench_summary(tsk)
#'
#' # Without a judge: the deterministic scorer (not the original's).
#' tsk <- dsbench_task(solver = dsbench_solver(cache = FALSE),
#'                     scorer = dsbench_scorer_exact(), dir = tempfile())
#' tsk$eval(solver_chat = baseline_constant("The answer is C."), view = FALSE)
#' dsbench_summary(tsk)
dsbench_task <- function(dataset = dsbench_dataset(), solver = dsbench_solver(),
                         scorer = dsbench_scorer(), epochs = NULL,
                         dir = vitals::vitals_log_dir(), name = "dsbench") {
  dataset <- dsbench_validate(dataset)
  if (inherits(solver, "dsbench_solver")) solver <- attr(solver, "bind")(dataset)
  vitals::Task$new(dataset = dataset, solver = solver, scorer = scorer, epochs = epochs,
                   name = name, dir = dir)
}

#' @rdname dsbench_task
#' @export
dsbench_dataset <- function(path = NULL, data_dir = NULL) {
  check_string(data_dir, allow_null = TRUE)
  sample <- is.null(path)
  if (sample) {
    path <- system.file("extdata", "dsbench-sample.parquet", package = "predictivebench")
    data_dir <- data_dir %||% system.file("extdata", "dsbench", package = "predictivebench")
  }
  table <- if (is.data.frame(path)) {
    validate_task_table(path, "dsbench")
  } else {
    check_string(path)
    read_task_table(path, "dsbench")
  }
  if (!is.null(data_dir) || !"folder" %in% names(table)) {
    table$folder <- dsbench_folders(table$competition_dir, data_dir)
  }
  table
}

dsbench_folders <- function(competition_dir, data_dir) {
  if (is.null(data_dir)) return(rep(NA_character_, length(competition_dir)))
  if (!dir.exists(data_dir)) {
    data_dir_file <- data_dir
    data_dir <- dirname(data_dir)
    if (!file.exists(data_dir_file)) {
      abort_pb("DSBench folder does not exist.", "missing_file", file = data_dir_file)
    }
  }
  root <- if (dir.exists(file.path(data_dir, "data"))) file.path(data_dir, "data") else data_dir
  root <- normalizePath(root, mustWork = TRUE)
  folders <- file.path(root, competition_dir)
  bad <- grepl("(^|[/\\\\])\\.\\.([/\\\\]|$)", competition_dir) |
    grepl("^([/\\\\]|[A-Za-z]:)", competition_dir)
  if (any(bad)) {
    abort_pb("Competition folder {.val {competition_dir[bad][[1]]}} would leave {.arg data_dir}.",
             "path", file = root, row = which(bad)[[1]], field = "competition_dir")
  }
  folders
}

dsbench_validate <- function(dataset) {
  dataset <- validate_task_table(dataset, "dsbench")
  if (!"folder" %in% names(dataset)) dataset$folder <- NA_character_
  dataset
}

#' @rdname dsbench_task
#' @export
dsbench_solver <- function(mode = c("inline", "files"), images = TRUE,
                           context_limit = 128000, reserve_tokens = 6000,
                           count_tokens = dsbench_count_tokens, system_prompt = NULL,
                           params = list(temperature = 0), image_max_tokens = 2256,
                           dataset = NULL, max_cells = 2000, cache = TRUE, max_active = 10,
                           rpm = 500, max_tries = 3) {
  mode <- rlang::arg_match(mode)
  check_flag(images)
  check_count(context_limit)
  check_count(reserve_tokens, min = 0)
  if (reserve_tokens >= context_limit) {
    abort_pb("{.arg reserve_tokens} must be smaller than {.arg context_limit}.", "argument")
  }
  if (!is.function(count_tokens)) abort_pb("{.arg count_tokens} must be a function.", "argument")
  check_string(system_prompt, allow_null = TRUE)
  check_count(image_max_tokens %||% 1)
  cache_dir(cache)
  config <- list(mode = mode, images = images, budget = context_limit - reserve_tokens,
                 count_tokens = count_tokens, system_prompt = system_prompt, params = params,
                 image_max_tokens = image_max_tokens, max_cells = max_cells, cache = cache,
                 max_active = max_active, rpm = rpm, max_tries = max_tries)
  make <- function(dataset) {
    if (!is.null(dataset)) dataset <- dsbench_validate(dataset)
    solver <- function(inputs, ..., solver_chat) {
      solver_chat <- as_chat(solver_chat)
      dsbench_solve(inputs, solver_chat, dataset, config)
    }
    structure(solver, class = c("dsbench_solver", "function"), bind = make)
  }
  make(dataset)
}

dsbench_solve <- function(inputs, solver_chat, dataset, config) {
  n <- length(inputs)
  row <- if (is.null(dataset)) rep(NA_integer_, n) else match(inputs, dataset$input)
  folder <- if (is.null(dataset)) rep(NA_character_, n) else dataset$folder[row]
  if (config$mode == "files" && anyNA(folder)) {
    abort_pb(
      c("The files mode needs each sample's competition folder.",
        i = "Use {.fn dsbench_task}, or pass {.arg dataset} from",
        i = "{.code dsbench_dataset(data_dir = )}."),
      "argument"
    )
  }
  texts <- if (config$mode == "files") {
    vapply(seq_len(n), function(i) dsbench_files_prompt(dataset[row[[i]], ]), "")
  } else {
    inputs
  }
  cut <- lapply(texts, dsbench_truncate, max_tokens = config$budget,
                count_tokens = config$count_tokens)
  image <- rep(NA_character_, n)
  if (config$images && !is.null(dataset)) {
    used <- dataset$image_used[row]
    has <- !is.na(used) & !is.na(row)
    if (any(has & is.na(folder))) {
      abort_pb(
        c("Some samples have an image but the DSBench folder is unknown.",
          i = "Pass {.arg data_dir} to {.fn dsbench_dataset}, or use {.code images = FALSE}."),
        "argument"
      )
    }
    image[has] <- file.path(dirname(folder[has]), used[has])
  }
  prompts <- lapply(seq_len(n), function(i) {
    if (is.na(image[[i]])) return(cut[[i]]$text)
    if (!file.exists(image[[i]])) {
      abort_pb("Image file does not exist.", "missing_file", file = image[[i]])
    }
    list(cut[[i]]$text, ellmer::content_image_file(image[[i]], resize = "none"))
  })
  # Requests differ by system prompt and tools: send them in groups, keep the input order.
  group <- paste(!is.na(image), if (config$mode == "files") folder else "")
  results <- vector("list", n)
  for (g in unique(group)) {
    idx <- which(group == g)
    with_image <- !is.na(image[[idx[[1]]]])
    system_prompt <- config$system_prompt %||%
      if (with_image) dsbench_system_prompt_image else dsbench_system_prompt_text
    params <- config$params
    if (with_image && !is.null(config$image_max_tokens)) {
      params <- utils::modifyList(as.list(params), list(max_tokens = config$image_max_tokens))
    }
    chat <- configure_chat(solver_chat, system_prompt, params)
    key_extra <- "dsbench-solver-v1"
    if (config$mode == "files") {
      chat$set_tools(workbook_tools(folder[[idx[[1]]]], max_cells = config$max_cells))
      key_extra <- list(key_extra, "files", dsbench_folder_fingerprint(folder[[idx[[1]]]]),
                        config$max_cells)
    }
    res <- generate_responses(chat, prompts[idx], cache = config$cache,
                              max_active = config$max_active, rpm = config$rpm,
                              max_tries = config$max_tries, key_extra = key_extra)
    for (j in seq_along(idx)) results[[idx[[j]]]] <- res[j, ]
  }
  res <- do.call(rbind, results)
  warn_failures(res$error)
  meta <- response_metadata(res)
  for (i in seq_len(n)) {
    meta[[i]]$mode <- config$mode
    meta[[i]]$truncated <- cut[[i]]$truncated
    meta[[i]]$prompt_tokens_estimate <- cut[[i]]$tokens
    meta[[i]]$image <- if (is.na(image[[i]])) NULL else basename(image[[i]])
  }
  list(result = res$result, solver_chat = res$chat, solver_metadata = meta)
}

dsbench_files_prompt <- function(row) {
  files <- row$workbook_files[[1]]
  note <- if (length(files)) {
    paste0(
      "The workbook files are: ", paste(files, collapse = ", "), ". They are not shown ",
      "here: use the tools list_workbooks, list_sheets and read_range to read them. \n"
    )
  } else ""
  paste0(note, "The introduction is detailed as follows. \n ", row$introduction, " \n",
         "The questions are detailed as follows. \n ", row$question)
}

dsbench_folder_fingerprint <- function(folder) {
  files <- workbook_files(folder)
  list(basename(folder), files,
       vapply(file.path(folder, files), digest::digest, "", file = TRUE, USE.NAMES = FALSE))
}

#' Token estimate and front truncation for DSBench prompts
#'
#' @description
#' The original DSBench keeps the last `context_limit - 6000` tokens of each prompt, counted
#' with tiktoken. predictivebench has no exact tokenizer, so `dsbench_count_tokens()`
#' estimates: it splits text the way GPT tokenizers pre-split it and counts
#' * a run of ASCII letters as one token per 4 letters (rounded up),
#' * each group of up to 3 digits as one token (numbers are split that way by `cl100k`),
#' * a run of spaces or tabs as one token per 4 characters, each line break as one token,
#' * every other ASCII character (punctuation) as one token, and
#' * every non-ASCII character as its length in UTF-8 bytes (2 for an accented Latin letter,
#'   3 for most CJK characters, 4 for most emoji).
#'
#' The non-ASCII part is a true upper bound: GPT tokenizers are byte-level BPE, where every
#' token covers at least one byte, so no character needs more tokens than it has bytes. The
#' ASCII part is only an estimate. Real tokenizers merge more than it assumes for ordinary
#' text (common words, punctuation pairs and long space runs are one token), so the
#' estimate is usually above the true count and the cut prompt fits; but a run of letters
#' the tokenizer has rarely seen (hexadecimal ids, random codes) can take one token per 2 or
#' 3 letters, and then the estimate is below the true count. The solver has no separate
#' safety margin for this: its `reserve_tokens` (the original's 6,000) is room for the
#' answer and absorbs small under-counts; lower `context_limit` for prompts full of such
#' text, or pass an exact tokenizer as `count_tokens`.
#'
#' The estimate never exceeds the text's size in UTF-8 bytes, so a prompt of at most
#' `max_tokens` bytes is never cut.
#'
#' `dsbench_truncate()` removes text from the front until `count_tokens()` of the rest is at
#' most `max_tokens`, as the original does, cutting between pieces (the default counter) or
#' by binary search on characters (a custom counter).
#'
#' @param text A single string.
#' @param max_tokens The token budget.
#' @param count_tokens A function of one string returning its token count.
#' @returns `dsbench_count_tokens()` a number; `dsbench_truncate()` a list with `text`,
#'   `tokens` (the kept text's count) and `truncated` (whether anything was removed).
#' @export
#' @examples
#' dsbench_count_tokens("Revenue 1234567.89 in 2023")
#' dsbench_count_tokens("\u6570\u636e")  # two CJK characters, 3 UTF-8 bytes each
#' dsbench_truncate("one two three four five six", max_tokens = 3)$text
dsbench_count_tokens <- function(text) {
  check_string(text)
  sum(dsbench_piece_costs(text)$cost)
}

dsbench_piece_pattern <- "[A-Za-z]+|[0-9]{1,3}|[ \t]+|\n|."

dsbench_piece_costs <- function(text) {
  text <- enc2utf8(text)
  m <- gregexpr(dsbench_piece_pattern, text, perl = TRUE)[[1]]
  if (m[[1]] == -1) return(list(start = integer(), cost = numeric()))
  len <- attr(m, "match.length")
  first <- substring(text, m, m)
  cost <- rep(1, length(m))
  letters <- grepl("[A-Za-z]", first)
  cost[letters] <- ceiling(len[letters] / 4)
  spaces <- first == " " | first == "\t"
  cost[spaces] <- ceiling(len[spaces] / 4)
  other <- !letters & !spaces & !grepl("[0-9\n]", first)
  # A non-ASCII character (one piece each): its UTF-8 bytes, an upper bound for byte-level BPE.
  wide <- other & !grepl("^[\001-\177]$", first, perl = TRUE)
  cost[wide] <- nchar(first[wide], type = "bytes")
  list(start = as.integer(m), cost = cost)
}

#' @rdname dsbench_count_tokens
#' @export
dsbench_truncate <- function(text, max_tokens, count_tokens = dsbench_count_tokens) {
  check_string(text)
  check_count(max_tokens)
  if (nchar(text, type = "bytes") <= max_tokens && identical(count_tokens, dsbench_count_tokens)) {
    return(list(text = text, tokens = dsbench_count_tokens(text), truncated = FALSE))
  }
  if (identical(count_tokens, dsbench_count_tokens)) {
    pieces <- dsbench_piece_costs(text)
    total <- sum(pieces$cost)
    if (total <= max_tokens) return(list(text = text, tokens = total, truncated = FALSE))
    from_end <- rev(cumsum(rev(pieces$cost)))
    first <- which(from_end <= max_tokens)[1]
    if (is.na(first)) return(list(text = "", tokens = 0, truncated = TRUE))
    # substring()'s default `last` is 1e6: give the end explicitly for long prompts.
    return(list(text = substring(text, pieces$start[[first]], nchar(text)),
                tokens = from_end[[first]], truncated = TRUE))
  }
  total <- count_tokens(text)
  if (!is.numeric(total) || length(total) != 1 || is.na(total)) {
    abort_pb("{.arg count_tokens} must return one number.", "argument")
  }
  if (total <= max_tokens) return(list(text = text, tokens = total, truncated = FALSE))
  # The smallest start whose suffix fits (counts shrink as the start moves right).
  lo <- 1L
  hi <- nchar(text) + 1L
  while (lo < hi) {
    mid <- (lo + hi) %/% 2L
    fits <- count_tokens(substring(text, mid, nchar(text))) <= max_tokens
    if (fits) hi <- mid else lo <- mid + 1L
  }
  kept <- substring(text, lo, nchar(text))
  list(text = kept, tokens = count_tokens(kept), truncated = TRUE)
}

#' @rdname dsbench_task
#' @export
dsbench_scorer <- function(scorer_chat = NULL, cache = TRUE, max_active = 10, rpm = 500,
                           max_tries = 3) {
  scorer_chat <- as_chat(scorer_chat, allow_null = TRUE)
  cache_dir(cache)
  default_chat <- scorer_chat
  function(samples, ..., scorer_chat = default_chat) {
    if (is.null(scorer_chat)) {
      abort_pb(
        c("The DSBench judge needs a {.arg scorer_chat} (the original used gpt-4o).",
          i = "Give it to {.fn dsbench_scorer} or to {.code $eval(scorer_chat = )}.",
          i = "For a run without a judge, use {.code dsbench_scorer_exact()}."),
        "argument"
      )
    }
    scorer_chat <- as_chat(scorer_chat)
    judged <- dsbench_judge(samples$question, samples$target, samples$result, scorer_chat,
                            cache = cache, max_active = max_active, rpm = rpm,
                            max_tries = max_tries)
    list(
      score = factor(ifelse(judged$correct, "C", "I"), levels = c("I", "C"), ordered = TRUE),
      scorer_chat = judged$chat,
      scorer_metadata = lapply(seq_len(nrow(judged)), function(i) {
        list(judge_reply = judged$reply[[i]], judge_error = judged$error[[i]],
             judged = judged$judged[[i]], cached = judged$cached[[i]],
             input_tokens = judged$input_tokens[[i]],
             output_tokens = judged$output_tokens[[i]], cost = judged$cost[[i]])
      }),
      explanation = ifelse(!is.na(judged$reply), judged$reply,
                           ifelse(is.na(judged$error), "not judged: no response from the solver",
                                  paste("judge failed:", judged$error)))
    )
  }
}

#' The DSBench judge prompt and decision rule
#'
#' `dsbench_judge_prompt()` builds the original judge prompt; `dsbench_judge_correct()` is
#' its decision rule: correct when the lower-cased reply contains `"true"` (so `"True"`,
#' `"true."` and `"Not true"` are correct, `"False"`, `"Flase"`, an empty reply and a
#' failed judgement are not). Both are used by [dsbench_scorer()].
#'
#' @param question The question text (the question file only).
#' @param answer The true answer, as the Python `str()` of the `data.json` value (the task
#'   table's `target`).
#' @param prediction The model's whole response.
#' @param reply The judge's reply; `NA` for a failed judgement.
#' @returns A character vector of prompts; a logical vector.
#' @export
#' @examples
#' cat(dsbench_judge_prompt("What is 2 + 2?\n", "4", "It is 4."))
#' dsbench_judge_correct(c("True", "true.", "False", "Flase", "", NA))
dsbench_judge_prompt <- function(question, answer, prediction) {
  sprintf(dsbench_judge_template, question, answer, prediction)
}

#' @rdname dsbench_judge_prompt
#' @export
dsbench_judge_correct <- function(reply) {
  !is.na(reply) & grepl("true", tolower(reply), fixed = TRUE)
}

dsbench_judge <- function(question, answer, prediction, scorer_chat, cache = TRUE, ...) {
  n <- length(prediction)
  chat <- configure_chat(scorer_chat, params = list(temperature = 0, max_tokens = 256))
  chat$set_system_prompt(NULL)
  send <- which(!is.na(prediction))
  prompts <- dsbench_judge_prompt(question, answer, ifelse(is.na(prediction), "", prediction))
  out <- tibble::tibble(
    reply = rep(NA_character_, n),
    error = rep(NA_character_, n),
    judged = rep(FALSE, n), cached = rep(FALSE, n), input_tokens = rep(0, n),
    output_tokens = rep(0, n), cost = rep(0, n),
    chat = lapply(prompts, function(p) {
      chat$clone()$set_turns(list(user_turn_of(p), empty_turn()))
    })
  )
  if (length(send)) {
    res <- generate_responses(chat, prompts[send], cache = cache,
                              key_extra = "dsbench-judge-v1", ...)
    out$reply[send] <- res$result
    out$error[send] <- res$error
    out$judged[send] <- is.na(res$error)
    out$cached[send] <- res$cached
    out$input_tokens[send] <- res$input_tokens
    out$output_tokens[send] <- res$output_tokens
    out$cost[send] <- res$cost
    out$chat[send] <- res$chat
    failed <- sum(!is.na(res$error))
    if (failed) {
      cli::cli_warn(
        c("{failed} judgement{?s} failed; {?it counts/they count} as incorrect.",
          i = "First error: {res$error[!is.na(res$error)][[1]]}"),
        class = "predictivebench_warning_failed_judgements"
      )
    }
  }
  out$correct <- dsbench_judge_correct(out$reply)
  out
}

#' @rdname dsbench_task
#' @export
dsbench_scorer_exact <- function(tolerance = 1e-6) {
  check_number(tolerance)
  function(samples, ...) {
    checked <- lapply(seq_len(nrow(samples)), function(i) {
      dsbench_exact_one(samples$result[[i]], samples$target[[i]], samples$target_type[[i]],
                        tolerance)
    })
    correct <- vapply(checked, `[[`, TRUE, "correct")
    list(
      score = factor(ifelse(correct, "C", "I"), levels = c("I", "C"), ordered = TRUE),
      scorer_metadata = lapply(checked, function(x) x[c("rule", "extracted")]),
      explanation = vapply(checked, function(x) paste0(x$rule, ": ", x$extracted %||% ""), "")
    )
  }
}

dsbench_number_pattern <- "[-+\u2212]?(?:\\d{1,3}(?:,\\d{3})+|\\d+)?(?:\\.\\d+)?(?:[eE][-+]?\\d+)?"

dsbench_numbers <- function(text) {
  m <- regmatches(text, gregexpr(dsbench_number_pattern, text, perl = TRUE))[[1]]
  m <- m[grepl("[0-9]", m)]
  as.numeric(gsub(",", "", sub("^\u2212", "-", m)))
}

# The part of a response that states the answer: the last \boxed{}, else the text after the
# last "answer", else the whole response.
dsbench_final_part <- function(text) {
  boxed <- extract_boxed(text, which = "last")
  if (!is.na(boxed)) return(boxed)
  pos <- gregexpr("answer", text, ignore.case = TRUE)[[1]]
  if (pos[[1]] > 0) return(substring(text, pos[[length(pos)]] + 6, nchar(text)))
  text
}

dsbench_exact_one <- function(response, target, type, tolerance) {
  if (is.na(response)) return(list(correct = FALSE, rule = "no response", extracted = NULL))
  if (type %in% c("dict", "list", "null", "logical")) {
    return(list(correct = FALSE, rule = "unsupported answer type", extracted = NULL))
  }
  part <- dsbench_final_part(response)
  if (type == "letter") {
    letter <- dsbench_option_letter(part) %||% dsbench_option_letter(response)
    return(list(correct = identical(letter, toupper(trimws(target))), rule = "letter",
                extracted = letter))
  }
  truth <- dsbench_numbers(target)
  if (type %in% c("integer", "double") ||
      (length(truth) == 1 && grepl("^[^A-Za-z]*[0-9][^A-Za-z]*$", target))) {
    values <- dsbench_numbers(part)
    if (!length(values)) values <- dsbench_numbers(response)
    if (!length(values) || length(truth) != 1) {
      return(list(correct = FALSE, rule = "number", extracted = NULL))
    }
    pred <- values[[length(values)]]
    if (grepl("%", target, fixed = TRUE) && !grepl("%", part, fixed = TRUE) &&
        abs(pred) < 1 && abs(truth) >= 1) pred <- pred * 100
    ok <- abs(pred - truth) <= tolerance * max(1, abs(truth))
    return(list(correct = ok, rule = "number", extracted = format(pred, digits = 15)))
  }
  norm <- function(x) gsub("[^a-z0-9]", "", tolower(x))
  ok <- nzchar(norm(target)) && grepl(norm(target), norm(part), fixed = TRUE)
  list(correct = ok, rule = "text contains", extracted = trimws(substr(part, 1, 200)))
}

dsbench_option_letter <- function(text) {
  patterns <- c(
    "(?i:answer|option|choice)\\s*(?i:is)?\\s*[:\\-]?\\s*\\(?\\**([A-Z])\\b",
    "^\\s*\\(?\\**([A-Z])\\**\\)?\\s*(?:[.):]|$)",
    "\\*\\*\\(?([A-Z])\\)?[.):]?\\*\\*"
  )
  for (p in patterns) {
    m <- regmatches(text, regexec(p, text, perl = TRUE))[[1]]
    if (length(m) == 2) return(m[[2]])
  }
  NULL
}

#' DSBench headline numbers
#'
#' The original prints two accuracies: over all questions, and the unweighted mean of the
#' per-competition accuracies. `dsbench_summary()` gives both with 95% intervals (a normal
#' interval over questions; for the competition mean, a normal interval over the
#' competitions' accuracies, or with `method = "bootstrap"` resampled competitions; bounds
#' are clipped to `[0, 1]`), the
#' number of questions, competitions and failed requests/judgements, and the tokens and
#' cost of the solver and the judge from the samples' metadata.
#'
#' @param x An evaluated [dsbench_task()] or its `$get_samples()` tibble.
#' @param by_competition Also return one row per competition.
#' @inheritParams futurex_summary
#' @returns A tibble with rows `questions` and `competitions` (and, with `by_competition`,
#'   one per competition): `group`, `accuracy`, `lower`, `upper`, `n`, plus columns
#'   `solver_failures`, `judge_failures`, `input_tokens`, `output_tokens`, `cost` on the
#'   first row (`NA` elsewhere; cost `NA` when the provider gives no prices).
#' @export
#' @examples
#' data <- dsbench_dataset()
#' tsk <- dsbench_task(solver = dsbench_solver(cache = FALSE),
#'                     scorer = dsbench_scorer_exact(), dir = tempfile())
#' tsk$eval(solver_chat = baseline_echo(data, "target"), view = FALSE)
#' dsbench_summary(tsk, by_competition = TRUE)
dsbench_summary <- function(x, method = c("normal", "bootstrap"), times = 1000, seed = 1,
                            by_competition = FALSE) {
  method <- rlang::arg_match(method)
  check_flag(by_competition)
  if (inherits(x, "Task")) x <- x$get_samples()
  if (!is.data.frame(x) || !all(c("score", "competition_id") %in% names(x))) {
    abort_pb("{.arg x} must be an evaluated DSBench task or its samples.", "argument")
  }
  correct <- as.double(as.character(x$score) == "C")
  questions <- mean_ci(correct, method = method, times = times, seed = seed,
                       limits = c(0, 1))
  per <- tapply(correct, x$competition_id, mean)
  competitions <- mean_ci(as.double(per), method = method, times = times, seed = seed,
                          limits = c(0, 1))
  # Failed requests report no usage (NA) and count as 0; all NA (no prices) stays NA.
  meta_sum <- function(column, field) {
    if (!column %in% names(x)) return(0)
    values <- vapply(x[[column]], function(m) as.double(m[[field]] %||% NA), 1)
    if (length(values) && all(is.na(values))) return(NA_real_)
    sum(values, na.rm = TRUE)
  }
  failures <- function(column, field) {
    if (!column %in% names(x)) return(NA_integer_)
    sum(vapply(x[[column]], function(m) !is.null(m[[field]]) && !is.na(m[[field]]), TRUE))
  }
  top <- tibble::tibble(
    group = c("questions", "competitions"),
    accuracy = c(questions$mean, competitions$mean),
    lower = c(questions$lower, competitions$lower),
    upper = c(questions$upper, competitions$upper),
    n = c(questions$n, competitions$n),
    solver_failures = c(failures("solver_metadata", "error"), NA),
    judge_failures = c(failures("scorer_metadata", "judge_error"), NA),
    input_tokens = c(add_na(meta_sum("solver_metadata", "input_tokens"),
                            meta_sum("scorer_metadata", "input_tokens")), NA),
    output_tokens = c(add_na(meta_sum("solver_metadata", "output_tokens"),
                             meta_sum("scorer_metadata", "output_tokens")), NA),
    cost = c(add_na(meta_sum("solver_metadata", "cost"), meta_sum("scorer_metadata", "cost")),
             NA)
  )
  if (!by_competition) return(top)
  rows <- lapply(names(per), function(cid) {
    ci <- mean_ci(correct[x$competition_id == cid], method = method, times = times,
                  seed = seed, limits = c(0, 1))
    tibble::tibble(group = cid, accuracy = ci$mean, lower = ci$lower,
                   upper = ci$upper,
                   n = ci$n, solver_failures = NA, judge_failures = NA, input_tokens = NA,
                   output_tokens = NA, cost = NA)
  })
  rbind(top, do.call(rbind, rows))
}

add_na <- function(a, b) if (is.na(a) && is.na(b)) NA_real_ else sum(a, b, na.rm = TRUE)
