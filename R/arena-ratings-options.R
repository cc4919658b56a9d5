#' How arena ratings are fitted
#'
#' `rating_options()` gathers what [arena_ratings()] is told: the rating method, the
#' bootstrap, style control and the rating scale, each checked once here.
#'
#' @param method `"bt"` (Bradley-Terry, the default), `"elo"` or `"elo_median"`.
#' @param bootstrap Bootstrap rounds; 0 skips intervals (then `rank` follows the rating).
#' @param by Resample `"battles"` or `"questions"`.
#' @param level Interval level (0.95 gives the 2.5% and 97.5% quantiles).
#' @param invalid Failed judgements count as a `"tie"` (the original) or are `"drop"`ped.
#' @param anchor `NULL` centres the ratings on `initial`; a model's name fixes its rating
#'   (after fitting) at 1000, a named number (`c("gpt-4" = 1200)`) at that number.
#' @param style_control Also fit style-controlled Bradley-Terry ratings (`method = "bt"`
#'   only; the battles need `answer_a` and `answer_b`): the model strengths are fitted
#'   together with the effect of the answers' style, as the Chatbot Arena does since 2024 —
#'   for each of length, markdown headers, lists and bold (counted in each answer) the
#'   difference between the two answers relative to their sum, `(a - b) / (a + b + 1)`,
#'   standardized over the battles. A model that wins because its answers are longer loses
#'   that advantage. The ratings are centred on `initial` (`anchor` applies to the plain
#'   ratings only) and their percentile-bootstrap intervals resample as `by` says.
#' @param seed Seed of the bootstrap and of `"elo_median"`'s orders.
#' @param constants The rating scale, a list of any of `initial` (1000, the start or the
#'   mean), `scale` (400 points for `base`:1 odds), `base` (10), `k` (4, Elo's step) and
#'   `n_orders` (100, the random orders of `"elo_median"`); EloBench's values by default.
#' @returns An object of class `rating_options`.
#' @family arena
#' @export
#' @examples
#' rating_options(method = "elo", bootstrap = 0)
#' rating_options(anchor = c(a = 1200), constants = list(k = 8))
rating_options <- function(method = c("bt", "elo", "elo_median"), bootstrap = 1000,
                           by = c("battles", "questions"), level = 0.95,
                           invalid = c("tie", "drop"), anchor = NULL, style_control = FALSE,
                           seed = 1, constants = list()) {
  method <- rlang::arg_match(method)
  by <- rlang::arg_match(by)
  invalid <- rlang::arg_match(invalid)
  check_count(bootstrap, min = 0)
  check_number(level)
  check_flag(style_control)
  check_number(seed)
  if (style_control && method != "bt") {
    abort_pb("{.arg style_control} needs {.code method = \"bt\"}.", "argument",
             field = "style_control")
  }
  anchor_rating <- 1000
  if (is.numeric(anchor) && length(anchor) == 1 && rlang::is_named(anchor) && !is.na(anchor)) {
    anchor_rating <- unname(anchor)
    anchor <- names(anchor)
  } else if (!is.null(anchor) && !rlang::is_string(anchor)) {
    abort_pb("{.arg anchor} must be a model's name or a named number.", "argument",
             field = "anchor")
  }
  defaults <- list(initial = 1000, scale = 400, base = 10, k = 4, n_orders = 100)
  unknown <- setdiff(names(constants), names(defaults))
  if (!is.list(constants) || (length(constants) && !rlang::is_named(constants)) ||
      length(unknown)) {
    abort_pb(c("{.arg constants} must be a list of {.field {names(defaults)}}.",
               x = if (length(unknown)) "Unknown: {.field {unknown}}."),
             "argument", field = if (length(unknown)) unknown[[1]] else "constants")
  }
  constants <- utils::modifyList(defaults, constants)
  for (name in names(constants)) {
    value <- constants[[name]]
    if (!is.numeric(value) || length(value) != 1 || is.na(value)) {
      abort_pb("{.arg constants${name}} must be a single number.", "argument", field = name)
    }
  }
  check_count(constants$n_orders, "constants$n_orders")
  structure(c(list(method = method, bootstrap = bootstrap, by = by, level = level,
                   invalid = invalid, anchor = anchor, anchor_rating = anchor_rating,
                   style_control = style_control, seed = seed), constants),
            class = "rating_options")
}

# arena_ratings()' arguments before rating_options(), by their old names (a run log's
# header names them so too).
old_rating_arguments <- c("method", "bootstrap", "by", "level", "invalid", "anchor",
                          "anchor_rating", "k", "initial", "scale", "base", "n_orders", "seed",
                          "style_control")

rating_options_of <- function(old) {
  constants <- c("k", "initial", "scale", "base", "n_orders")
  if (!is.null(old$anchor_rating) && !is.null(old$anchor)) {
    old$anchor <- stats::setNames(old$anchor_rating, old$anchor)
  }
  old$constants <- old[intersect(names(old), constants)]
  rlang::exec(rating_options, !!!old[setdiff(names(old), c(constants, "anchor_rating"))])
}

# Options given the old way, through `...`: still taken for one release, with a warning.
# Given with `options` too, the old names win.
rating_options_with_dots <- function(options, dots, fun, call = rlang::caller_env()) {
  check_options(options, "rating_options", call = call)
  rating_options_with(options, deprecated_dots(dots, fun, old_rating_arguments,
                                               "options = rating_options()", call = call))
}

# `options` with the fields `old` gives by their old names (as rating_options_of() reads them).
rating_options_with <- function(options, old) {
  if (!length(old)) return(options)
  flat <- unclass(options)
  flat$anchor_rating <- if (is.null(flat$anchor)) NULL else flat$anchor_rating
  rating_options_of(utils::modifyList(flat[!vapply(flat, is.null, TRUE)], old))
}
