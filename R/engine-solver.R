# The vitals glue: a solver for vitals::Task built on generate_responses().

#' A vitals solver built on generate_responses()
#'
#' `generate_solver()` returns a solver for [vitals::Task] that sends each input through
#' `generate_responses()` (cache, retries, failure isolation, accounting) and returns the
#' response text as the result. Benchmarks build their solvers on it; use it directly for a
#' custom task. Per-sample `solver_metadata` holds `error`, `cached`, `input_tokens`,
#' `output_tokens`, `cost` and `seconds`.
#'
#' @param prepare A function turning the task's `input` column into prompts (strings or
#'   lists of contents); the default uses the input as is.
#' @param system_prompt A system prompt that replaces the chat's, or `NULL` to keep it.
#' @param params A list of request parameters (see [ellmer::params()]) that override the
#'   chat's, such as `list(temperature = 0)`; `NULL` keeps the chat's.
#' @inheritParams generate_responses
#' @returns A function `function(inputs, ..., solver_chat)`; named settings among its
#'   `...` (from `$eval(max_active = 50)`, say) override `settings`.
#' @keywords internal
generate_solver <- function(prepare = identity, system_prompt = NULL, params = NULL,
                            settings = NULL, key_extra = NULL, keep_json = FALSE) {
  force(prepare)
  settings <- settings %||% request_settings()
  check_settings_object(settings)  # validated at the door: the benchmark's constructor
  function(inputs, ..., solver_chat) {
    solver_chat <- as_chat(solver_chat)
    chat <- configure_chat(solver_chat, system_prompt, params)
    res <- generate_responses(chat, prepare(inputs), settings_with_dots(settings, ...),
                              key_extra = key_extra, keep_json = keep_json)
    warn_failed_requests(res$error)
    list(result = res$result, solver_chat = res$chat, solver_metadata = response_metadata(res))
  }
}

response_metadata <- function(res) {
  lapply(seq_len(nrow(res)), function(i) {
    out <- list(
      error = res$error[[i]], cached = res$cached[[i]],
      input_tokens = res$input_tokens[[i]], output_tokens = res$output_tokens[[i]],
      cost = res$cost[[i]], seconds = res$seconds[[i]],
      # stopped at the token limit, or inside unfinished reasoning (R/engine-reasoning.R)
      truncated = res$truncated[[i]]
    )
    if ("json" %in% names(res)) out$json <- res$json[[i]]
    out
  })
}
