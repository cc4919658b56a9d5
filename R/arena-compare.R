# Is one arena model really rated above another? The rating difference with a bootstrap
# interval, from the same resampling as arena_ratings().

#' Compare two models' arena ratings
#'
#' @description
#' `arena_compare()` is [compare_models()] for the arena, whose headline (a rating) is not a
#' mean: it fits the ratings of all models on the battles ([arena_ratings()]'s Bradley-Terry
#' fit, or its style-controlled fit), then refits on `times` bootstrap resamples of the
#' battles (or of whole questions, `by = "questions"`, which keeps a question's battles
#' together), and reports the difference `model_x - model_y` with the standard deviation of
#' the resampled differences as its standard error, their percentile interval, and a p-value
#' of twice the share of resampled differences on the far side of 0. Both ratings come from
#' the same resample each time, so the interval of the difference is narrower than comparing
#' the two models' own intervals suggests when their ratings move together.
#'
#' @param battles Battles, as for [arena_ratings()].
#' @param model_x,model_y The two models' names.
#' @param options A [rating_options()] object (`method = "bt"`): `bootstrap` resamples, `by`,
#'   `style_control` (compare the style-controlled ratings), `level`, `invalid`, `seed` and
#'   the scale.
#' @returns A one-row tibble of class `model_comparison`, as [compare_models()] returns
#'   (`x`, `y` are the two ratings; `n` the battles).
#' @noRd
arena_compare <- function(battles, model_x, model_y, options = rating_options()) {
  check_string(model_x)
  check_string(model_y)
  if (!inherits(options, "rating_options") || options$method != "bt") {
    abort_pb("{.arg options} must be {.code rating_options(method = \"bt\")}.", "argument",
             field = "method")
  }
  by <- options$by
  scores <- battle_scores(battles, options$invalid)
  models <- battle_models(scores)
  unknown <- setdiff(c(model_x, model_y), models)
  if (length(unknown)) abort_pb("Model {.val {unknown}} has no battles.", "argument")
  check_by_questions(scores, by)
  at <- match(c(model_x, model_y), models)
  if (options$style_control) {
    fit <- style_ratings(scores, models, options)
    rating <- fit$rating
    draws <- fit$draws
  } else {
    fitter <- rating_fitter(scores, models, options)
    rating <- fitter$full()
    draws <- with_seed(options$seed, fitter$bootstrap(options$bootstrap, by))
  }
  differences <- draws[, at[[1]]] - draws[, at[[2]]]
  alpha <- (1 - options$level) / 2
  bounds <- unname(stats::quantile(differences, c(alpha, 1 - alpha), na.rm = TRUE))
  p <- min(1, 2 * min(mean(differences <= 0, na.rm = TRUE),
                      mean(differences >= 0, na.rm = TRUE)))
  out <- tibble::tibble(
    benchmark = "arena",
    metric = if (options$style_control) "style-controlled rating" else "rating",
    x = unname(rating[[at[[1]]]]), y = unname(rating[[at[[2]]]]),
    difference = unname(rating[[at[[1]]]] - rating[[at[[2]]]]),
    se = stats::sd(differences, na.rm = TRUE), lower = bounds[[1]], upper = bounds[[2]],
    p_value = p, se_unpaired = sqrt(stats::var(draws[, at[[1]]], na.rm = TRUE) +
                                      stats::var(draws[, at[[2]]], na.rm = TRUE)),
    n = nrow(scores), n_clusters = if (by == "questions") length(unique(scores$question)) else
      nrow(scores),
    n_only_x = 0L, n_only_y = 0L, method = "paired bootstrap"
  )
  class(out) <- c("model_comparison", class(out))
  out
}
