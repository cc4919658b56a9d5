# Offline chats: real ellmer Chat objects whose answers are computed locally.

BaselineChat <- R6::R6Class(
  "BaselineChat",
  inherit = ellmer::Chat,
  public = list(
    responder = NULL,
    base_url = NULL,
    initialize = function(responder, name) {
      # Each baseline has its own address, so the answers of two baselines never mix.
      self$base_url <- sprintf("http://baseline.invalid/%s/v1", baseline_id())
      template <- ellmer::chat_openai_compatible(
        base_url = self$base_url, name = "predictivebench-baseline",
        model = name, credentials = function() ""
      )
      super$initialize(provider = template$get_provider(),
                       model = template$get_model_object())
      self$responder <- responder
    },
    respond = function(prompt) {
      text <- prompt_text(prompt)
      answer <- self$responder(text)
      if (!rlang::is_string(answer)) {
        abort_pb("A baseline responder must return one string.", "argument")
      }
      assistant_turn(list(text_content(answer)), tokens = c(0, 0, 0), cost = 0, duration = 0,
                     finish_reason = "stop")
    },
    chat = function(..., echo = NULL) {
      prompt <- list(...)
      turn <- self$respond(prompt)
      self$add_turn(user_turn_of(prompt), turn)
      turn@text
    },
    # parallel_chat(), vitals::generate() and vitals' graders send over HTTP: inside `code`
    # this baseline's requests are answered locally.
    with_answers = function(code) {
      local_baseline_answers(list(self))  # R/engine-compat-ellmer.R
      code
    }
  )
)

baseline_counter <- new.env(parent = emptyenv())

baseline_id <- function() {
  baseline_counter$n <- (baseline_counter$n %||% 0L) + 1L
  baseline_counter$n
}

prompt_text <- function(prompt) {
  if (is.character(prompt)) return(paste(prompt, collapse = "\n"))
  parts <- vapply(prompt, function(p) {
    if (is.character(p)) paste(p, collapse = "\n")
    else if (S7::S7_inherits(p, ellmer::ContentText)) p@text
    else ""
  }, "")
  paste(parts[nzchar(parts)], collapse = "\n")
}

#' Offline baseline chats
#'
#' @description
#' `baseline_chat()` makes an ellmer Chat that answers without a network, so a task runs out
#' of the box and a report gets a real baseline row. Use it as `solver_chat` (or as a judge's
#' `scorer_chat`) with predictivebench's solvers, and anywhere ellmer or vitals takes a chat.
#' It reports zero tokens and zero cost, and its answers are never cached.
#'
#' `$chat()` answers at once. [ellmer::parallel_chat()], and so [vitals::generate()] and
#' vitals' model-graded scorers, send a chat's requests over HTTP, to the baseline's own
#' `baseline.invalid` address: they are answered in the session while a task of this package
#' given the baseline runs (`tsk$eval(solver_chat = baseline)`, a solver of your own
#' included), and elsewhere inside the baseline's `$with_answers(code)`, as
#' [httr2::with_mocked_responses()] scopes a mock: `b$with_answers(ellmer::parallel_chat(b,
#' prompts))`, or around a plain [vitals::Task]'s `$eval()`. Outside them nothing answers it.
#'
#' * Nothing (`baseline_chat()`): every prompt gets an empty answer, the floor of every
#'   benchmark: a task runs end to end and each benchmark scores it as it scores a reply
#'   with no answer in it (a log-probability task sees a uniform guess).
#' * A string: every prompt gets that answer (`baseline_chat("\\boxed{Yes}")`).
#' * A function of the prompt text returning one string: an oracle that looks the prompt up
#'   in a dataset, a judge that reads a prompt, any rule.
#' * `choices` (with `answer = NULL`): a random guesser that picks one of `choices`; the pick
#'   depends only on `seed` and the prompt, so it does not change with the order or the number
#'   of samples.
#'
#' For log-probabilities ([probsem_task()]) a baseline scores a context's queries with its
#' answer to the context: the query it names gets log-probability 0 and the others `-Inf`;
#' when it names none of them, all get 0 (a uniform distribution). So a function answering
#' each context's `target` is an oracle and `baseline_chat("")` a uniform guess.
#'
#' @param answer The answer: a string, or a function taking the prompt text and returning one
#'   string. `NULL` (the default) with `choices` for a random guesser, or without them for
#'   an empty answer to every prompt.
#' @param name A model name for logs and reports. `NULL` (the default) names it after its
#'   kind: `"baseline-empty"` (no argument), `"baseline-constant"`, `"baseline"` (a
#'   function) or `"baseline-random-<seed>"`.
#' @param choices Candidate answers for a random guesser.
#' @param template A [base::sprintf()] template each random choice is put into; `"%s"` (the
#'   default) gives the choice as it is.
#' @param seed Seed for the random choice.
#' @returns An ellmer Chat (class `BaselineChat`).
#' @family results
#' @export
#' @examples
#' baseline_chat()$chat("Anything")
#' baseline_chat("42")$chat("Anything")
#' guess <- baseline_chat(choices = c("A", "B", "C"), template = "\\boxed{%s}")
#' guess$chat("Which option?")
#' gold <- data.frame(input = c("2+2?", "3+3?"), target = c("4", "6"))
#' oracle <- baseline_chat(function(prompt) gold$target[match(prompt, gold$input)], "oracle")
#' oracle$chat("3+3?")
#' oracle$with_answers(ellmer::parallel_chat_text(oracle, list("2+2?", "3+3?")))
baseline_chat <- function(answer = NULL, name = NULL, choices = NULL, template = "%s",
                          seed = 1) {
  check_string(name, allow_null = TRUE)
  if (!is.null(answer) && !is.null(choices)) {
    abort_pb("Give {.arg answer} or {.arg choices}, not both.", "argument")
  }
  if (!is.null(choices)) {
    return(baseline_random(choices, template = template, seed = seed, name = name))
  }
  if (is.null(answer)) {
    return(baseline_responder(function(text) "", name %||% "baseline-empty"))
  }
  if (rlang::is_string(answer)) {
    return(baseline_responder(function(text) answer, name %||% "baseline-constant"))
  }
  if (!is.function(answer)) {
    abort_pb(c("{.arg answer} must be a string or a function of the prompt text.",
               i = "For a random guesser give {.arg choices} instead."), "argument")
  }
  baseline_responder(answer, name %||% "baseline")
}

baseline_responder <- function(responder, name) BaselineChat$new(responder, name)

# The random guesser; baseline_chat(choices = ) is its public form.
baseline_random <- function(choices, template = "%s", seed = 1, name = NULL) {
  if (!is.character(choices) || !length(choices)) {
    abort_pb("{.arg choices} must be a non-empty character vector.", "argument")
  }
  check_string(template)
  check_number(seed)
  baseline_responder(function(text) {
    hash <- strtoi(substr(digest::digest(list(seed, text), algo = "sha256"), 1, 7), 16L)
    sprintf(template, choices[[hash %% length(choices) + 1]])
  }, name = name %||% paste0("baseline-random-", seed))
}

baseline_constant <- function(answer) {
  check_string(answer)
  baseline_chat(answer)
}

# An oracle over a data frame: the prompt is looked up in `input`, the answer is `column`.
baseline_echo <- function(data, column = "target", input = "input", default = "") {
  if (!is.data.frame(data) || !all(c(column, input) %in% names(data))) {
    abort_pb("{.arg data} must be a data frame with columns {.field {c(input, column)}}.",
             "argument", field = setdiff(c(input, column), names(data))[1])
  }
  lookup <- stats::setNames(as.character(data[[column]]), data[[input]])
  baseline_responder(function(text) {
    answer <- if (text %in% names(lookup)) lookup[[text]] else NA_character_
    if (is.na(answer)) default else answer
  }, name = paste0("baseline-echo-", column))
}
