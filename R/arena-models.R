# The arena's models and battle arrangement: which models meet on which questions, how many
# decisive battles each pair still needs, and the keys that name a pair.

# Models: ellmer chats or "provider/model" strings, named by their list name, else the string,
# else the chat's model. Answer-only models are arena_run()'s `answers` columns, not here.
as_arena_models <- function(models, min = 2, call = rlang::caller_env()) {
  if (inherits(models, "Chat") || rlang::is_string(models)) models <- list(models)
  if (is.character(models)) models <- as.list(models)
  if (!is.list(models)) {
    abort_pb("{.arg models} must be a list of ellmer chats or {.val provider/model} strings.",
             "argument", call = call)
  }
  if (length(models) < min) {
    abort_pb(c("An arena needs at least {min} model{?s}, not {length(models)}.",
               i = "Give ellmer chats or {.val provider/model} strings as {.arg models}."),
             "argument", call = call)
  }
  nms <- names(models) %||% rep("", length(models))
  for (i in seq_along(models)) {
    m <- models[[i]]
    if (is.null(m)) {
      abort_pb(c("Model {.val {nms[[i]]}} is {.code NULL}.",
                 i = "A model known only by its answers is a column of {.arg answers}."),
               "argument", field = nms[[i]], call = call)
    }
    if (rlang::is_string(m)) {
      if (!nzchar(nms[[i]])) nms[[i]] <- m
      models[[i]] <- as_chat(m, arg = paste0("models$", nms[[i]]), call = call)
    } else if (!inherits(m, "Chat")) {
      abort_pb("Model {i} must be an ellmer chat or a {.val provider/model} string.",
               "argument", call = call)
    }
    if (!nzchar(nms[[i]])) nms[[i]] <- models[[i]]$get_model()
  }
  check_model_names(nms, call = call)
  names(models) <- nms
  models
}

# Names the arena's files give another meaning: `question` (q_and_as.csv's question column), and
# control characters (they break a CSV line or the "\r" of a pair's key).
check_model_names <- function(nms, call = rlang::caller_env()) {
  if (any(is.na(nms) | !nzchar(nms))) {
    abort_pb("Model names must be non-empty.", "argument", call = call)
  }
  if (anyDuplicated(nms)) {
    twice <- unique(nms[duplicated(nms)])
    abort_pb("Model names must be unique: {.val {twice}} {?is/are} given more than once.",
             "argument", call = call)
  }
  if ("question" %in% nms) {
    abort_pb(
      c("A model can't be named {.val question}.",
        i = "EloBench's answer file {.file {elobench_answers_file}} keeps the questions in a
             column of that name, beside one column per model; give the model another name."),
      "argument", field = "question", call = call
    )
  }
  bad <- nms[grepl("[[:cntrl:]]", nms)]
  if (length(bad)) {
    abort_pb("Model name {.val {bad[[1]]}} holds a control character (a line break, tab or
              carriage return).", "argument", call = call)
  }
  invisible(nms)
}

#' Arrange battles between models
#'
#' @description
#' `arena_arrange()` decides which models meet on which questions, as EloBench's
#' `PairwiseBattleArrangement` does, and returns the arrangement (`question, model_a,
#' model_b`), which [arena_run()] saves as `battle_arrangement.csv`.
#'
#' * `"pairs"`: for each unordered pair of models, `n` distinct questions that both models
#'   answered (see `available`) and that the pair has not met on before (`existing`), drawn
#'   with weights `1 / (1 + uses)` so questions used less often are preferred.
#' * `"all"`: every pair on every question.
#' * `arena_reload_arrangement()`: the arrangement in `path` (strategy `"reload"`); every
#'   model in it must be registered and every question known.
#'
#' With `shuffle`, model A and B are swapped at random in each battle, so neither model
#' always comes first. Everything random depends only on `seed`.
#'
#' @section Differences from the original:
#' The original draws the `n` questions of a pair with replacement from all questions (so a
#' pair can meet twice on one question, or on a question one model never answered); here they
#' are distinct and answerable, with the same preference for rarely used questions. A pair
#' with fewer than `n` such questions gets all it can (the original stopped with an error).
#'
#' @param questions Unique questions (character).
#' @param models Model names (character), or a list as given to [arena_run()].
#' @param n Questions per pair for `"pairs"`: a count, or a named integer vector keyed
#'   `"model_a\rmodel_b"` (models in registration order) giving each pair's count.
#' @param strategy `"pairs"` or `"all"`.
#' @param available `NULL` (every model can answer every question) or a logical matrix with
#'   one row per question and one column per model.
#' @param existing An earlier arrangement whose pair-question combinations are not repeated.
#' @param path The `battle_arrangement.csv` to read.
#' @param shuffle Swap A and B at random per battle.
#' @param seed Random seed; the global random stream is left untouched.
#' @returns A tibble with `question`, `model_a`, `model_b`.
#' @noRd
arena_arrange <- function(questions, models, n = 1, strategy = c("pairs", "all"),
                          available = NULL, existing = NULL, shuffle = TRUE, seed = 1) {
  strategy <- rlang::arg_match(strategy)
  if (is.list(models)) models <- names(as_arena_models(models, min = 0))
  if (!is.character(models) || length(models) < 2) {
    abort_pb("{.arg models} must name at least two models.", "argument")
  }
  check_model_names(models)
  questions <- unique(as.character(questions))
  check_flag(shuffle)
  pairs <- utils::combn(models, 2)
  with_seed(seed, {
    if (strategy == "all") {
      out <- tibble::tibble(
        question = rep(questions, each = ncol(pairs)),
        model_a = rep(pairs[1, ], length(questions)),
        model_b = rep(pairs[2, ], length(questions))
      )
    } else {
      if (is.null(names(n))) check_count(n, min = 0)
      can <- available %||% matrix(TRUE, length(questions), length(models),
                                   dimnames = list(NULL, models))
      uses <- stats::setNames(numeric(length(questions)), questions)
      met <- character()
      if (!is.null(existing) && nrow(existing)) {
        counted <- table(existing$question)
        hit <- intersect(names(counted), questions)
        uses[hit] <- as.numeric(counted[hit])
        met <- pair_question_key(existing$model_a, existing$model_b, existing$question)
      }
      rows <- list()
      for (p in seq_len(ncol(pairs))) {
        a <- pairs[1, p]
        b <- pairs[2, p]
        want <- if (is.null(names(n))) n else (n[paste(a, b, sep = "\r")] %|NA|% 0)
        if (want <= 0) next
        ok <- can[, a] & can[, b] & !pair_question_key(a, b, questions) %in% met
        pool <- which(ok)
        if (!length(pool)) next
        take <- min(want, length(pool))
        pick <- if (length(pool) == 1) pool else
          sample(pool, take, prob = 1 / (1 + uses[pool]))
        uses[pick] <- uses[pick] + 1
        rows[[length(rows) + 1]] <- tibble::tibble(question = questions[pick], model_a = a,
                                                   model_b = b)
      }
      out <- if (length(rows)) do.call(rbind, rows) else empty_arrangement()
    }
    if (shuffle && nrow(out)) {
      flip <- stats::runif(nrow(out)) > 0.5
      tmp <- out$model_a[flip]
      out$model_a[flip] <- out$model_b[flip]
      out$model_b[flip] <- tmp
    }
    out
  })
}

# Strategy "reload": the arrangement in `path`, of registered models and known questions.
arena_reload_arrangement <- function(path, questions, models) {
  check_string(path)
  out <- arena_read_arrangement(path, models)
  unknown <- setdiff(out$question, unique(as.character(questions)))
  if (length(unknown)) {
    abort_pb("The arrangement has {length(unknown)} question{?s} that {?is/are} not registered.",
             "question", file = path, row = match(unknown[[1]], out$question),
             field = "question")
  }
  out
}

empty_arrangement <- function() {
  tibble::tibble(question = character(), model_a = character(), model_b = character())
}

pair_question_key <- function(a, b, question) {
  paste(pmin(a, b), pmax(a, b), question, sep = "\r")
}

# A pair's key, `"first\rsecond"` in registration order; with `a = NULL`, every pair's.
pair_keys <- function(a, b, models) {
  if (is.null(a)) {
    pairs <- utils::combn(models, 2)
    return(paste(pairs[1, ], pairs[2, ], sep = "\r"))
  }
  if (!length(a)) return(character())
  swap <- match(a, models) > match(b, models)
  paste(ifelse(swap, b, a), ifelse(swap, a, b), sep = "\r")
}

pair_labels <- function(keys) sub("\r", " vs ", keys, fixed = TRUE)

# Per pair (in registration order), how many more decisive battles are wanted.
pair_needs <- function(records, models, n) {
  keys <- pair_keys(NULL, NULL, models)
  decisive <- !is.na(records$winner) & records$winner %in% c("model_a", "model_b")
  have <- table(factor(pair_keys(records$model_a, records$model_b, models)[decisive],
                       levels = keys))
  need <- n - as.integer(have)
  stats::setNames(need, keys)[need > 0]
}

warn_pairs_without_battles <- function(keys, round) {
  if (!length(keys)) return(invisible())
  labels <- pair_labels(keys)
  cli::cli_warn(
    c("Round {round}: {length(keys)} pair{?s} got no battle: {.val {labels}}.",
      i = "A battle needs a question both models answered that the pair has not met on;
           failed answers are asked for again on the next run."),
    class = "predictivebench_warning_no_battles"
  )
}

# After the rounds: the pairs still short of `n` decisive battles, and why.
warn_short_pairs <- function(records, models, n, stopped, max_rounds) {
  need <- pair_needs(records, models, n)
  if (!length(need)) return(invisible())
  labels <- sprintf("%s (%d of %d)", pair_labels(names(need)), n - need, n)
  why <- if (stopped == "max_rounds") {
    c(i = "{.fn arena_run} stopped at {.arg max_rounds} = {max_rounds}; raise it (the response
           cache keeps every battle so far) to continue.")
  } else {
    c(i = "No question is left that both models answered and the pair has not met on.")
  }
  cli::cli_warn(
    c("{length(need)} pair{?s} {?has/have} fewer than {n} decisive (non-tie) battle{?s}:
       {.val {labels}}.", why),
    class = "predictivebench_warning_short_pairs"
  )
}
