# DSBench: the dataset, the solver and the solve step (prompts, images, files mode), the Task.

#' DSBench data analysis as a vitals Task
#'
#' @description
#' DSBench's data-analysis part asks 466 questions about 38 modelling competitions; each
#' competition has an introduction, questions and Excel workbooks. `dsbench_task()` runs
#' them as the original evaluation does: one request per question, with the workbooks
#' rendered as text in the prompt (see [prepare_task_table()]), the original system prompt,
#' temperature 0, the competition's first image attached, the prompt cut from the front to
#' fit the context window, and an LLM judge that says whether the answer is right.
#' [dsbench_summary()] gives the original's two headline numbers. Use the `files` mode of
#' `dsbench_solver()` for models whose context cannot hold large workbooks.
#'
#' * `dsbench_dataset()` reads a task table (by default the real DSBench, version `"v1"`:
#'   466 questions, downloaded once, non-commercial use only; `version = "sample"` is the
#'   bundled sample of three fictional competitions, seven questions), optionally a part of it
#'   (`limit`, `shuffle`), and
#'   locates the competition folders.
#' * `dsbench_solver()` sends the prompts.
#' * `dsbench_scorer()` is the original judge.
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
#' **Truncation.** As in the original, the prompt keeps its last
#' `context_limit - reserve_tokens` tokens of tiktoken's encoding for the model: with the suggested package \pkg{rtiktoken} installed, the kept
#' text and its token count are tiktoken's. The encoding is `encoding`, or the one tiktoken
#' gives the solver chat's model (`"cl100k_base"` for GPT-4 Turbo and GPT-3.5,
#' `"o200k_base"` for GPT-4o and later; `"o200k_base"`, with a message, for models tiktoken
#' does not know). Without rtiktoken the prompt is cut by a token estimate (a message says
#' so once), which usually over-counts, so a prompt is then cut somewhat more than the
#' original would cut it; `reserve_tokens` also absorbs an under-count.
#'
#' **Files mode** (`mode = "files"`, beyond the original): the workbooks are not pasted in.
#' The prompt is the original's without the workbook part, preceded by a note naming the
#' workbook files, and the chat gets tools confined to the competition's
#' workbooks as the task table lists them (`workbook_files`: list workbooks, list sheets,
#' read a range), so the model reads what it needs. The
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
#' the package's request engine (cached, retried); a failed judgement counts as incorrect and its
#' error is in `scorer_metadata`. A reasoning judge's verdict is read from its answer, after
#' its thinking; one that thinks past the 256 tokens gives no verdict (incorrect), which
#' `scorer_metadata$judge_truncated` and a note of [dsbench_summary()] say.
#'
#' @section Judge panels:
#' A list of chats as `judge` or `scorer_chat` is a panel: every judge judges every answer
#' (all their requests in one pool, each cached as that judge's alone, so a judge already
#' used alone costs nothing again), and an answer is correct when more than half the judges
#' say so. A judge whose request failed counts as saying incorrect, as a single judge's
#' failure does; an even split (as in a panel of two that disagree) is incorrect. The score
#' stays 0 or 1, as the original's accuracy counts answers: a mean of the judges' verdicts
#' would count a third of an answer. `scorer_metadata$judges` keeps each judge's reply,
#' verdict and error (a JSON array), `judge_error` names the judges that failed (the sample
#' is asked again on the next run), and the explanation lists every judge's reply. A list of
#' one chat is that chat.
#'
#' @section Differences from the original:
#' * Workbooks are read in file-name order (`sort`); the original takes `os.listdir()` order,
#'   which depends on the file system.
#' * Images: a folder's `.jpg`/`.png` files (case-insensitive) are also taken in file-name
#'   order (Python `sorted()`, so upper-case names come first), all are listed in
#'   `image_paths`, and only the first of them is sent (`image_used`), with every question
#'   of the competition. The original also sends only one image, but the first in
#'   `os.listdir()` order, so with several images it may send a different one.
#' * Truncation cuts where the original does only with \pkg{rtiktoken} installed (the same
#'   encodings and token ids as tiktoken). Without it, or with your own `count_tokens`, the
#'   cut is by an estimate or by your counter, and a prompt near the limit is usually cut a
#'   little more than the original would.
#' * Models tiktoken does not know are cut with `"o200k_base"`; the original's
#'   `tiktoken.encoding_for_model()` stops with an error for them.
#' * Text that spells a special token (such as `"<|endoftext|>"`) counts as that one token;
#'   the original's `encode()` refuses such text and stops.
#' * Images are sent with their real media type; the original labels every image
#'   `image/jpeg`. They are sent at full size (`resize = "none"`), as in the original.
#' * A question whose model request failed (after retries) is not sent to the judge and
#'   counts as incorrect; the original stops on the first failed request.
#' * `data.json` is parsed as JSON, never evaluated as Python.
#' * Requests are sent in parallel, retried and cached (see [request_settings()]); the original
#'   sends them one by one and stops at the first error. Tokens and cost come from ellmer
#'   rather than the original's own price table.
#' * [dsbench_summary()] adds intervals (clipped to `[0, 1]`) to the original's two
#'   accuracies.
#' * Reasoning is kept apart from the answer, and never judged: the prediction the judge
#'   sees is the answer after the model's thinking (`<think>...</think>`, or a provider's
#'   reasoning field), and a judge's verdict is read from its answer, not its thinking. The
#'   original's models showed no reasoning. An answer that exists only in unfinished
#'   thinking (cut off at the token limit) is empty; each sample's `solver_metadata` says
#'   whether its answer was cut off at the token limit (`truncated`; `prompt_truncated` is
#'   whether the prompt was cut to fit the context), and [dsbench_summary()] counts them.
#' * The files mode is not in the original.
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param data_dir The DSBench folder the table was made from (holding `data.json` and the
#'   competition folders), needed for images and the files mode. `NULL` uses the bundled
#'   sample's folder for the sample; for a parquet file written by [prepare_task_table()], the
#'   folder it was made from (recorded in the file, and found relative to the parquet file
#'   when the file was written inside that folder, so the two can move together), else a
#'   `data/` folder or the competition folders next to the parquet file; else none (then
#'   images are not attached and the files mode is unavailable). The solver opens only files
#'   inside it: before any request, every row's competition folder (`competition_dir`), image
#'   (`image_used`, inside the row's competition folder) and, in the files mode, workbooks
#'   (`workbook_files`) are checked to stay inside after links are resolved, whoever made the
#'   table; one that leads out is an error (`predictivebench_error_path`) naming the row and
#'   field.
#' @param mode `"inline"` (the original: workbooks in the prompt) or `"files"` (workbooks
#'   read through tools). `dsbench_task(mode = )` gives it to the default solver (ignored
#'   when you give your own `solver`).
#' @param images Attach each competition's first image, as the original does for vision
#'   models. Set `FALSE` for models without vision.
#' @param system_prompt `NULL` (the original's system prompt, see "Solver") or a string to
#'   use instead.
#' @param temperature The original's 0; `NULL` leaves the chat's own.
#' @param params Other request parameters (see [ellmer::params()]), such as
#'   `list(max_tokens = 4096)`.
#' @inheritParams settings-args
#' @param options A [dsbench_options()] object: the prompt's token budget and the files
#'   mode's cells.
#' @param ... Deprecated: the fields of [dsbench_options()] by their names (before 0.2.0).
#' @param scorer_chat The judge, an ellmer chat (the original used `gpt-4o-2024-05-13`),
#'   given here or through `$eval(scorer_chat = )`; a list of chats is a panel of judges
#'   (see "Judge panels").
#' @param dataset A task table (tibble) from `dsbench_dataset()`. The solver reads each
#'   question's folder, image and workbook list from it: [dsbench_task()] gives the solver
#'   its dataset, so `dsbench_solver()` takes none. Called outside a task, the solver works
#'   in the inline mode only, without images.
#' @param solver,scorer A solver and scorer, by default `dsbench_solver()` and
#'   `dsbench_scorer()`.
#' @param judge For `dsbench_task()`: the judge chat given to the default scorer as its
#'   `scorer_chat` (the original used gpt-4o), or a list of chats (a panel). `NULL` (the
#'   default) leaves it to `$eval(scorer_chat = )`; given neither, `$eval()` refuses before
#'   anything is sent. Ignored when you give your own `scorer`.
#' @inheritParams generate_solver
#' @returns `dsbench_dataset()` a tibble (the task table plus a `folder` column);
#'   `dsbench_solver()` and the scorers functions for [vitals::Task]; `dsbench_task()` a
#'   `ResultsTask` (a [vitals::Task] whose log shows the two accuracies of
#'   [dsbench_summary()] as its metrics, the scorer as `"dsbench_score"`, each sample's
#'   competition and question as key-value metadata, and the tokens of every request,
#'   the judge's included).
#' @order 1
#' @family dsbench
#' @export
#' @examples
#' # Offline: an oracle answers with the targets and a baseline judge says "True".
#' data <- dsbench_dataset(version = "sample")
#' tsk <- dsbench_task(
#'   data,
#'   solver = dsbench_solver(settings = request_settings(cache = FALSE)),
#'   scorer = dsbench_scorer(scorer_chat = baseline_chat("True")),
#'   dir = tempfile()
#' )
#' oracle <- baseline_chat(function(prompt) data$target[match(prompt, data$input)])
#' tsk$eval(solver_chat = oracle, view = FALSE)
#' dsbench_summary(tsk)
dsbench_task <- function(dataset = dsbench_dataset(), solver = dsbench_solver(mode = mode),
                         scorer = dsbench_scorer(scorer_chat = judge), epochs = NULL,
                         dir = vitals::vitals_log_dir(), name = "dsbench",
                         mode = c("inline", "files"), judge = NULL) {
  mode <- rlang::arg_match(mode)
  dataset <- validate_task_table(dataset, "dsbench")
  if (!"folder" %in% names(dataset)) dataset$folder <- NA_character_
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, benchmark = "dsbench",
                 options = task_options(name, metadata_fields = dsbench_log_fields))
}

# The dataset columns each sample's log entry shows (and log_samples() restores for
# dsbench_summary()); the introduction and workbook text stay out of the log's metadata.
dsbench_log_fields <- c("competition_id", "competition_name", "question_name",
                        "question_index", "target_type")

#' @rdname dsbench_task
#' @order 2
#' @export
dsbench_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE,
                            data_dir = NULL) {
  check_string(data_dir, allow_null = TRUE)
  table <- benchmark_dataset("dsbench", path, limit = limit, shuffle = shuffle,
                             version = version)
  if (is.null(path)) {
    data_dir <- data_dir %||% if (is_sample(version)) {
      system.file("extdata", "dsbench", package = "predictivebench")
    } else {
      dsbench_real_dir(version_files("dsbench", version))
    }
  }
  if (!is.null(data_dir)) {
    table$folder <- dsbench_folders(table$competition_dir, dsbench_root(data_dir))
  } else if (rlang::is_string(path) || !"folder" %in% names(table)) {
    # A file's own `folder` column is never trusted: a shared parquet must not choose which
    # folder on this disk counts as the data folder.
    root <- if (rlang::is_string(path)) dsbench_parquet_root(path, table$competition_dir)
    table$folder <- dsbench_folders(table$competition_dir, root, file = path)
  }
  table
}

# The folder holding the competition folders: `data_dir/data` when there is one, else
# `data_dir` (or the folder of a `data.json` given as `data_dir`).
dsbench_root <- function(data_dir) {
  if (!dir.exists(data_dir)) {
    if (!file.exists(data_dir)) {
      abort_pb("DSBench folder does not exist.", "missing_file", file = data_dir)
    }
    data_dir <- dirname(data_dir)
  }
  root <- if (dir.exists(file.path(data_dir, "data"))) file.path(data_dir, "data") else data_dir
  normalizePath(root, mustWork = TRUE)
}

# Each competition's folder under `root` (NA without a root). Ids are bare folder names: the
# flattener checks them (validate_competition() in dsbench.py), and a table read from a
# parquet file made elsewhere is checked here, so no folder leaves `root`.
dsbench_folders <- function(competition_dir, root, file = "<data frame>") {
  if (is.null(root)) return(rep(NA_character_, length(competition_dir)))
  bad <- which(!grepl("^[^/\\\\]+$", competition_dir) | competition_dir %in% c(".", ".."))
  if (length(bad)) {
    abort_pb("Competition folder {.val {competition_dir[[bad[[1]]]]}} is not a folder name.",
             "path", file = file, row = bad[[1]], field = "competition_dir")
  }
  file.path(root, competition_dir)
}

# The DSBench folder of a task table read from `path`, found without `data_dir`: the folder
# prepare_dsbench() recorded in the file's metadata, relative to the parquet file (when the
# table was written inside it) or as it was; else a folder next to the parquet file. Each
# must hold every competition folder of the table; NULL when none does.
dsbench_parquet_root <- function(path, competition_dir) {
  meta <- task_table_metadata(path)
  here <- dirname(normalizePath(path, mustWork = TRUE))
  relative <- meta[["predictivebench.dsbench_root_relative"]]
  candidates <- c(
    if (!is.null(relative) && dsbench_is_relative_inside(relative)) file.path(here, relative),
    dsbench_recorded_root(meta[["predictivebench.dsbench_root"]]),
    file.path(here, "data"), here
  )
  for (root in candidates) {
    if (dir.exists(root) && all(dir.exists(file.path(root, unique(competition_dir))))) {
      return(normalizePath(root))
    }
  }
  NULL
}

# The absolute folder a parquet file names counts only when it is a DSBench folder (its
# data.json beside or above the competition folders), so a file made elsewhere can't point
# the solver at another folder of this disk.
dsbench_recorded_root <- function(root) {
  if (is.null(root) || !nzchar(root)) return(NULL)
  if (any(file.exists(file.path(c(root, dirname(root)), "data.json")))) root
}

# A path below the parquet file's folder: relative, with no ".." part.
dsbench_is_relative_inside <- function(relative) {
  parts <- strsplit(relative, "[/\\\\]")[[1]]
  nzchar(relative) && !grepl("^([/\\\\]|[A-Za-z]:)", relative) && !any(parts == "..")
}

#' @rdname dsbench_task
#' @order 3
#' @export
dsbench_solver <- function(mode = c("inline", "files"), images = TRUE, temperature = 0,
                           params = NULL, system_prompt = NULL, settings = NULL,
                           options = dsbench_options(), ...) {
  mode <- rlang::arg_match(mode)
  check_flag(images)
  check_options(options, "dsbench_options")
  options <- dsbench_options_with_dots(options, list(...))
  check_string(system_prompt, allow_null = TRUE)
  check_number(temperature, allow_null = TRUE)
  if (!is.null(temperature)) {
    params <- utils::modifyList(list(temperature = temperature), as.list(params))
  }
  settings <- as_request_settings(settings)
  config <- list(mode = mode, images = images,
                 budget = options$context_limit - options$reserve_tokens,
                 encoding = options$encoding, count_tokens = options$count_tokens,
                 system_prompt = system_prompt, params = params,
                 image_max_tokens = options$image_max_tokens, max_cells = options$max_cells,
                 settings = settings)
  # Each input's folder, image and workbook list come from the task's dataset, which
  # dsbench_task() binds; unbound, the inline mode answers from the prompts alone.
  dataset_solver(function(inputs, rows, ..., solver_chat = NULL) {
    solver_chat <- as_chat(solver_chat)
    config$settings <- settings_with_dots(settings, ...)
    dsbench_solve(inputs, rows, solver_chat, config)
  })
}

#' How the DSBench solver fits a prompt
#'
#' `dsbench_options()` gathers what [dsbench_solver()] is told about the model's context:
#' the token budget the prompt is cut to (see "Truncation" in [dsbench_task()]), the
#' tokenizer that counts it, the answer's tokens for a request with an image, and the cells
#' a tool reads in the files mode, each checked once here.
#'
#' @param context_limit The model's context window in tokens. The original used 128,000
#'   for GPT-4 class models and 16,385 for `gpt-3.5-turbo-0125`.
#' @param reserve_tokens Tokens kept free for the answer (the original's 6,000).
#' @param encoding The tiktoken encoding that counts and cuts the prompt (`"cl100k_base"`,
#'   `"o200k_base"`) or an OpenAI model name; `NULL` (the default) takes the solver chat's
#'   model, as the original's `tiktoken.encoding_for_model(model)`.
#' @param count_tokens `NULL` (the default: tiktoken's count through rtiktoken, as in
#'   "Truncation") or a function of one string returning its token count, used
#'   instead to cut the prompt.
#' @param image_max_tokens `max_tokens` for requests with an image (the original's 2256);
#'   `NULL` leaves it unset.
#' @param max_cells In the files mode, the most cells a tool reads from a range at once.
#' @returns An object of class `dsbench_options`.
#' @seealso [dsbench_solver()]
#' @family dsbench
#' @export
#' @examples
#' # A gpt-3.5-turbo-0125 sized context, as in the original's runs of that model
#' dsbench_solver(options = dsbench_options(context_limit = 16385))
dsbench_options <- function(context_limit = 128000, reserve_tokens = 6000, encoding = NULL,
                            count_tokens = NULL, image_max_tokens = 2256, max_cells = 2000) {
  check_count(context_limit)
  check_count(reserve_tokens, min = 0)
  if (reserve_tokens >= context_limit) {
    abort_pb("{.arg reserve_tokens} must be smaller than {.arg context_limit}.", "argument",
             field = "reserve_tokens")
  }
  check_string(encoding, allow_null = TRUE)
  if (identical(count_tokens, dsbench_count_tokens)) count_tokens <- NULL
  if (!is.null(count_tokens) && !is.function(count_tokens)) {
    abort_pb("{.arg count_tokens} must be a function or {.code NULL}.", "argument",
             field = "count_tokens")
  }
  check_count(image_max_tokens %||% 1)
  check_count(max_cells)
  structure(list(context_limit = context_limit, reserve_tokens = reserve_tokens,
                 encoding = encoding, count_tokens = count_tokens,
                 image_max_tokens = image_max_tokens, max_cells = max_cells),
            class = "dsbench_options")
}

# The options dsbench_solver() took by their names before 0.2.0: one release, with a
# warning; they win over the same fields of `options`.
dsbench_options_with_dots <- function(options, dots, call = rlang::caller_env()) {
  if (!length(dots)) return(options)
  deprecated_dots(dots, "dsbench_solver", names(formals(dsbench_options)),
                  "options = dsbench_options()", call = call)
  fields <- unclass(options)
  fields[names(dots)] <- dots
  rlang::exec(dsbench_options, !!!fields)
}

dsbench_solve <- function(inputs, rows, solver_chat, config,
                          call = rlang::call2("dsbench_solver")) {
  n <- length(inputs)
  bound <- is_bound(rows)
  folder <- if (bound) rows$folder else rep(NA_character_, n)
  if (config$mode == "files") {
    if (!bound) unbound_solver_error("dsbench")
    if (anyNA(folder)) {
      abort_pb(
        c("The files mode needs each sample's competition folder.",
          i = "Pass {.arg data_dir} to {.fn dsbench_dataset}."),
        "argument", call = call
      )
    }
  }
  texts <- if (config$mode == "files") {
    vapply(seq_len(n), function(i) dsbench_files_prompt(rows[i, ]), "")
  } else {
    inputs
  }
  # The encoding the original takes for its model; baseline chats answer whatever is cut.
  encoding <- if (is.null(config$count_tokens)) {
    config$encoding %||%
      if (inherits(solver_chat, "BaselineChat")) "o200k_base" else solver_chat$get_model()
  }
  image <- rep(NA_character_, n)
  if (config$images && bound) {
    used <- rows$image_used
    has <- !is.na(used)
    if (any(has & is.na(folder))) {
      abort_pb(
        c("Some samples have an image but the DSBench folder is unknown.",
          i = "Pass {.arg data_dir} to {.fn dsbench_dataset} (not needed for a parquet
               file from {.code prepare_task_table(\"dsbench\", ...)} whose folder still
               exists), or use {.code images = FALSE}."),
        "argument", call = call
      )
    }
  }
  # Every file a row names is checked before any request (R/dsbench-paths.R).
  if (bound && (config$mode == "files" || config$images)) {
    folder <- dsbench_row_folders(rows, call = call)
  }
  if (config$mode == "files") dsbench_check_workbooks(rows, folder, call = call)
  if (config$images && bound) image <- dsbench_row_images(rows, folder, call = call)
  cut <- lapply(texts, dsbench_truncate, max_tokens = config$budget,
                count_tokens = config$count_tokens, encoding = encoding)
  prompts <- lapply(seq_len(n), function(i) {
    if (is.na(image[[i]])) return(cut[[i]]$text)
    list(cut[[i]]$text, ellmer::content_image_file(image[[i]], resize = "none"))
  })
  # Requests differ by system prompt and tools: one chat per group, all sent in one pool.
  group <- paste(!is.na(image), if (config$mode == "files") folder else "")
  groups <- unique(group)
  chats <- vector("list", length(groups))
  keys <- vector("list", length(groups))
  for (k in seq_along(groups)) {
    idx <- which(group == groups[[k]])
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
      # The rows of a group share one competition: its folder and workbook list.
      files <- rows$workbook_files[[idx[[1]]]]
      chat$set_tools(workbook_tools(folder[[idx[[1]]]], files, max_cells = config$max_cells))
      key_extra <- list(key_extra, "files", dsbench_folder_fingerprint(folder[[idx[[1]]]], files),
                        config$max_cells)
    }
    chats[[k]] <- chat
    keys[[k]] <- key_extra
  }
  res <- run_requests(chats, match(group, groups), prompts, config$settings,
                      chat_keys = keys)
  report_failures(res$error)
  meta <- lapply(seq_len(n), function(i) {
    # `truncated`: the answer stopped at the token limit (R/engine-reasoning.R)
    c(list(error = res$error[[i]]), usage_metadata(res, i), list(seconds = res$seconds[[i]]),
      list(truncated = res$truncated[[i]]))
  })
  for (i in seq_len(n)) {
    meta[[i]]$mode <- config$mode
    meta[[i]]$prompt_truncated <- cut[[i]]$truncated
    meta[[i]]$prompt_tokens <- cut[[i]]$tokens
    meta[[i]]$tokenizer <- cut[[i]]$tokenizer
    meta[[i]]$image <- if (is.na(image[[i]])) NULL else basename(image[[i]])
  }
  list(result = res$result, solver_chat = res$chat, solver_metadata = meta)
}

dsbench_folder_fingerprint <- function(folder, files) {
  list(basename(folder), files,
       vapply(file.path(folder, files), digest::digest, "", file = TRUE, USE.NAMES = FALSE))
}
