# The checks of an arena run made before anything is read, sent or paid: its options (shared
# by arena_run() and eval_set()'s closing arena, so both refuse the same input), its
# questions, its folder, and the models given by name only.

# arena_run()'s options, checked and with each choice matched, as a list: `x` names them as
# arena_run() does, and those not in it take arena_run()'s defaults.
check_arena_options <- function(x, arg = "", call = rlang::caller_env()) {
  defaults <- formals(arena_run)
  choices <- c("strategy", "prompt_version", "invalid", "method")
  for (name in c(choices, "experiment", "n", "max_rounds", "position_swap", "times", "seed")) {
    if (!name %in% names(x)) x[name] <- list(eval(defaults[[name]], baseenv()))
  }
  name <- function(field) paste0(arg, field)
  if (!is.null(x$version)) check_path_name(x$version, arg = name("version"), call = call)
  check_path_name(x$experiment, arg = name("experiment"), call = call)
  check_count(x$n, arg = name("n"), call = call)
  check_count(x$max_rounds, arg = name("max_rounds"), call = call)
  check_flag(x$position_swap, arg = name("position_swap"), call = call)
  check_count(x$times, arg = name("times"), min = 0, call = call)
  check_number(x$seed, arg = name("seed"), call = call)
  for (field in choices) {
    x[[field]] <- match_choice(x[[field]], eval(defaults[[field]], baseenv()), name(field),
                               call)
  }
  x
}

# One of `choices` (all of them, as a function's default, means the first), or a classed
# error naming them.
match_choice <- function(x, choices, arg, call) {
  if (identical(x, choices)) return(choices[[1]])
  if (!rlang::is_string(x) || !x %in% choices) {
    abort_pb("{.arg {arg}} must be one of {.val {choices}}, not {.val {x}}.", "argument",
             call = call)
  }
  x
}

# Where the questions come from, or an error when there are none: `dataset` (checked),
# `data/<version>/questions.csv` in the EloBench folder, the bundled sample, or a pinned
# EloBench version (fetched when the run starts).
check_arena_questions <- function(elobench, version, dataset, call = rlang::caller_env()) {
  if (!is.null(dataset)) return(invisible(dataset_questions(dataset, call = call)))
  if (is.null(version)) {
    abort_pb(c("An arena needs questions: give {.arg dataset} or {.arg version}.",
               i = "For example {.code version = \"sample\"} (the bundled questions) or
                    {.code dataset = arena_dataset(version = \"rwq_200\")}."),
             "argument", field = "dataset", call = call)
  }
  path <- if (!is.null(elobench)) questions_path(elobench, version)
  if (!installable_version(version) && !(!is.null(path) && file.exists(path))) {
    abort_no_questions(version, path, call)
  }
  invisible(path)
}

# (as a misspelt version of any benchmark is refused: what was meant, and what there is)
abort_no_questions <- function(version, path, call) {
  pins <- versions_table()
  known <- c(unique(pins$version[pins$benchmark == "arena"]), "sample")
  near <- nearest_name(version, known)
  abort_pb(c(
    "Can't find the questions of version {.val {version}}.",
    i = if (length(near)) "Did you mean {.val {near[[1]]}}?",
    i = "Versions: {.val {known}} ({.val sample} is the bundled sample; pinned versions are
         downloaded: see {.fn benchmark_versions}).",
    i = if (is.null(path)) "Or give {.arg dataset} (a table of questions)." else
      "Or give {.arg dataset} (a table of questions), or put them in {.file {path}}.",
    i = if (version %in% arena_prompt_versions) {
      "The judge prompt version is {.arg prompt_version}; {.arg version} names the data."
    }
  ), "path", file = path, suggestion = if (length(near)) near[[1]] else NA_character_,
  call = call)
}

# A folder the run writes (the log's, EloBench's): a folder, or a path where one can be made (its nearest existing parent a
# folder this process may write in).
check_arena_dir <- function(dir, arg = "dir", call = rlang::caller_env()) {
  check_string(dir, arg = arg, call = call)
  path <- dir
  while (!file.exists(path) && !identical(dirname(path), path)) path <- dirname(path)
  if (!dir.exists(path)) {
    abort_pb("{.arg {arg}} must be a folder, but {.file {path}} is a file.", "path",
             file = path, call = call)
  }
  if (file.access(path, 2) != 0) {
    abort_pb("{.arg {arg}}: this process can't write in {.file {path}}.", "path", file = path,
             call = call)
  }
  invisible(dir)
}

# The models known only by their answers (`answers` of arena_run(): a table or its path, or
# NULL for none), as an answer table; their names are checked as the chats' are, and none may
# also be a chat's.
competitor_answers <- function(answers, chat_names, call = rlang::caller_env()) {
  if (is.null(answers)) return(tibble::tibble(question = character()))
  table <- arena_reference_answers(answers, call = call)
  models <- setdiff(names(table), "question")
  check_model_names(c(chat_names, models), call = call)
  table
}

# Models known only by their answers battle on those answers; one without an answer to any
# of the questions could never battle, and the run would end with nothing to show.
check_cached_answers <- function(models, answers, questions, file = NULL,
                                 call = rlang::caller_env()) {
  name_only <- names(models)[vapply(models, is.null, TRUE)]
  rows <- match(questions, answers$question)
  none <- name_only[vapply(name_only, function(m) all(is.na(answers[[m]][rows])), TRUE)]
  if (length(none)) {
    abort_pb(
      c("{cli::qty(length(none))}Model{?s} {.val {none}} of {.arg answers} {?has/have} no
         answer to the questions, so {?it/they} can't battle.",
        i = "{cli::qty(length(none))}Give {?it/them} as an ellmer chat in {.arg models} to
             generate answers, or give {?its/their} answers to these questions."),
      "answers", file = file, field = none[[1]], call = call
    )
  }
  invisible()
}

# A folder name the user gives (`dataset`, `experiment`): checked before anything is paid,
# so a run never fails at its end writing a file it can't name. Besides no path separator,
# it must fit a file name (at most `max_bytes` bytes, no control character), with room left
# for the names the package makes from it (the log's: "arena-<experiment>").
check_path_name <- function(x, arg = rlang::caller_arg(x), call = rlang::caller_env(),
                            max_bytes = 200L) {
  check_string(x, arg = arg, call = call)
  if (!nzchar(x) || grepl("[/\\\\]", x) || x %in% c(".", "..") || grepl("^~", x)) {
    abort_pb("{.arg {arg}} must be a plain folder name, not {.val {x}}.",
             "path", call = call)
  }
  if (nchar(x, type = "bytes") > max_bytes || grepl("[[:cntrl:]]", x)) {
    abort_pb(c("{.arg {arg}} must be a folder name of at most {max_bytes} bytes without
                control characters.",
               i = "It has {nchar(x, type = 'bytes')} bytes; nothing was sent."),
             "path", call = call)
  }
  invisible(x)
}

dataset_questions <- function(dataset, call = rlang::caller_env()) {
  column <- intersect(c("question", "input"), names(dataset))[1]
  if (!is.data.frame(dataset) || is.na(column) || !is.character(dataset[[column]])) {
    abort_pb("{.arg dataset} must be a table of questions: a character {.field question} or
              {.field input} column (as {.fn arena_dataset} gives).", "argument", call = call)
  }
  questions <- unique(dataset[[column]])
  if (anyNA(questions)) {
    abort_pb("{.arg dataset} has a missing question in {.field {column}}, row
              {which(is.na(dataset[[column]]))[1]}.", "argument", field = column, call = call)
  }
  questions
}
