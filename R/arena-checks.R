# The checks of an arena run before anything is read, sent or paid, shared by arena_run() and
# eval_set()'s closing arena so both refuse the same input.

# arena_run()'s options, checked and with each choice matched, as a list: `x` names them as
# eval_set(arena =) does (old_arena_arguments), and those not in it take the defaults.
check_arena_options <- function(x, arg = "", call = rlang::caller_env()) {
  defaults <- c(formals(arena_options),
                list(invalid = quote(c("tie", "drop")),
                     method = quote(c("elo", "bt", "elo_median")), times = 1000))
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

# One of `choices` (all of them, a function's default, means the first), else a classed error.
match_choice <- function(x, choices, arg, call) {
  if (identical(x, choices)) return(choices[[1]])
  if (!rlang::is_string(x) || !x %in% choices) {
    abort_pb("{.arg {arg}} must be one of {.val {choices}}, not {.val {x}}.", "argument",
             call = call)
  }
  x
}

# Where the questions come from (`dataset`, the folder's questions.csv, the sample, or a pinned
# version fetched at start), or an error when there are none.
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

# A folder the run writes: a folder, or a path whose nearest existing parent is a writable one.
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

# The models known only by their answers (`answers`, a table or path) as an answer table; their
# names are checked as the chats' are, and none may also be a chat's.
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

# A folder name the user gives, checked before anything is paid so a run never fails at its end
# writing a file it can't name: no separator, no control character, room for "arena-<name>".
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

#' How an arena run goes
#'
#' `arena_options()` gathers what [arena_run()] is told besides its models, judge and
#' questions: how battles are arranged, judged and rated, each checked once here (an error
#' names the field, before anything is sent).
#'
#' @param experiment The run's name: its log is `arena-<experiment>`, and with `elobench`
#'   its results folder (at most 200 bytes).
#' @param n Decisive battles wanted per pair (`"pairs"`); questions per pair per round.
#' @param strategy `"pairs"`, `"all"` (every pair on every question, one round) or `"reload"`
#'   (`arrangement`, or the `battle_arrangement.csv` already in the `elobench` results
#'   folder).
#' @param arrangement For `"reload"`: an arrangement (`question, model_a, model_b`) or the
#'   path of a `battle_arrangement.csv`.
#' @param prompt_version The judge prompt version: `"231225"` (a JSON verdict) or `"231113"`
#'   (scores), EloBench's two judge templates.
#' @param position_swap Judge every battle in both orders too (EloBench's option).
#' @param max_rounds Most rounds.
#' @param seed Seed for arrangements.
#' @param ratings How the ratings are computed (`run$ratings`, `elo_rating.csv`, the log's
#'   headline and so [leaderboard()]): a [rating_options()] object. The default is
#'   EloBench's online Elo in file order with 1,000 bootstrap replicates. All methods are on
#'   the Elo scale (400 points for 10:1 odds, 1000 the start or the mean); `"bt"` on
#'   perfectly separated battles uses a prior and warns (see [arena_ratings()]).
#' @returns An object of class `arena_options`.
#' @family arena
#' @export
#' @examples
#' arena_options(n = 3, ratings = rating_options(method = "bt", bootstrap = 100))
arena_options <- function(experiment = "run", n = 1, strategy = c("pairs", "all", "reload"),
                          arrangement = NULL, prompt_version = c("231225", "231113"),
                          position_swap = FALSE, max_rounds = 10, seed = 1,
                          ratings = rating_options(method = "elo")) {
  check_options(ratings, "rating_options", "ratings")
  x <- check_arena_options(list(experiment = experiment, n = n, strategy = strategy,
                                prompt_version = prompt_version,
                                position_swap = position_swap, max_rounds = max_rounds,
                                seed = seed))
  structure(list(experiment = experiment, n = n, strategy = x$strategy,
                 arrangement = arrangement, prompt_version = x$prompt_version,
                 position_swap = position_swap, max_rounds = max_rounds, seed = seed,
                 ratings = ratings),
            class = "arena_options")
}

# arena_run()'s options by their names before arena_options(), as eval_set(arena =) still
# takes them: `method`, `times` and `invalid` are the ratings', `seed` both.
old_arena_arguments <- c("experiment", "n", "strategy", "arrangement", "prompt_version",
                         "position_swap", "max_rounds", "invalid", "method", "times", "seed")

arena_options_with <- function(options, old) {
  check_options(options, "arena_options")
  rating <- old[intersect(names(old), c("method", "invalid", "seed"))]
  if (!is.null(old$times)) rating$bootstrap <- old$times
  ratings <- rating_options_with(options$ratings, rating)
  given <- unclass(options)
  for (name in setdiff(names(old), c("method", "invalid", "times"))) {
    given[name] <- list(old[[name]])
  }
  given$ratings <- ratings
  rlang::exec(arena_options, !!!given)
}
