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
      ellmer::AssistantTurn(contents = list(ellmer::ContentText(answer)), tokens = c(0, 0, 0),
                            cost = 0, duration = 0, finish_reason = "stop")
    },
    chat = function(..., echo = NULL) {
      prompt <- list(...)
      turn <- self$respond(prompt)
      self$add_turn(user_turn_of(prompt), turn)
      turn@text
    },
    # ellmer::parallel_chat(), which vitals::generate() and vitals' model-graded scorers call,
    # sends requests through the provider it gets here. While the function that asked for it
    # runs, requests to this baseline's address are answered locally (an httr2 mock that
    # passes every other request on), so no request leaves the machine.
    get_provider = function() {
      local_baseline_answers(self, parent.frame())  # R/engine-compat-ellmer.R
      super$get_provider()
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
#' Baseline chats are ellmer Chat objects that answer without a network, so a task runs out
#' of the box and a report gets a real baseline row. Use them as `solver_chat` (or as a
#' judge's `scorer_chat`) with predictivebench's solvers, which answer them locally through
#' [generate_responses()], and anywhere ellmer or vitals takes a chat: `$chat()`,
#' [ellmer::parallel_chat()], [vitals::generate()] and vitals' model-graded scorers answer
#' them locally too (each baseline has its own `baseline.invalid` address, answered in the
#' session). They report zero tokens and zero cost.
#'
#' For log-probabilities ([query_logprobs()], [probsem_task()]) a baseline scores a
#' context's queries with its answer to the context: the query it names gets
#' log-probability 0 and the others `-Inf`; when it names none of them, all get 0 (a uniform
#' distribution). So `baseline_echo(probsem_dataset())` is an oracle and
#' `baseline_constant("")` a uniform guess.
#'
#' * `baseline_chat()` wraps any function of the prompt text.
#' * `baseline_random()` picks one of `choices` at random; the pick depends only on `seed`
#'   and the prompt, so it does not change with the order or the number of samples.
#' * `baseline_constant()` always gives `answer`.
#' * `baseline_echo()` looks the prompt up in a data frame and answers with another column
#'   (an oracle when that column is the target).
#'
#' @param responder A function taking the prompt text and returning one string.
#' @param name A model name for logs and cache keys.
#' @param choices Candidate answers.
#' @param template A [sprintf()] template the answer is put into; `"%s"` gives the choice as it is.
#' @param seed Seed for the random choice.
#' @param answer The constant answer.
#' @param data A data frame with the prompts in `input` and answers in `column`.
#' @param column The column to answer with.
#' @param input The column holding prompts.
#' @param default Answer for a prompt not found in `data`, or whose answer is missing.
#' @returns An ellmer Chat (class `BaselineChat`).
#' @export
#' @examples
#' chat <- baseline_random(c("A", "B", "C"), template = "\\boxed{%s}")
#' chat$chat("Which option?")
#' baseline_constant("42")$chat("Anything")
#' oracle <- baseline_echo(data.frame(input = "2+2?", target = "4"), column = "target")
#' oracle$chat("2+2?")
baseline_chat <- function(responder, name = "baseline") {
  if (!is.function(responder)) {
    abort_pb("{.arg responder} must be a function.", "argument")
  }
  check_string(name)
  BaselineChat$new(responder, name)
}

#' @rdname baseline_chat
#' @export
baseline_random <- function(choices, template = "%s", seed = 1) {
  if (!is.character(choices) || !length(choices)) {
    abort_pb("{.arg choices} must be a non-empty character vector.", "argument")
  }
  check_string(template)
  check_number(seed)
  baseline_chat(function(text) {
    hash <- strtoi(substr(digest::digest(list(seed, text), algo = "sha256"), 1, 7), 16L)
    sprintf(template, choices[[hash %% length(choices) + 1]])
  }, name = paste0("baseline-random-", seed))
}

#' @rdname baseline_chat
#' @export
baseline_constant <- function(answer) {
  check_string(answer)
  baseline_chat(function(text) answer, name = "baseline-constant")
}

#' @rdname baseline_chat
#' @export
baseline_echo <- function(data, column = "target", input = "input", default = "") {
  if (!is.data.frame(data) || !all(c(column, input) %in% names(data))) {
    abort_pb("{.arg data} must be a data frame with columns {.field {c(input, column)}}.",
             "argument", field = setdiff(c(input, column), names(data))[1])
  }
  lookup <- stats::setNames(as.character(data[[column]]), data[[input]])
  baseline_chat(function(text) {
    answer <- if (text %in% names(lookup)) lookup[[text]] else NA_character_
    if (is.na(answer)) default else answer
  }, name = paste0("baseline-echo-", column))
}
