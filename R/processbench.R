# ProcessBench-style first-error identification (ProcessBench and DeltaBench data):
# the index of the earliest wrong step, by majority vote over sampled critiques.

processbench_interval <- c(
  normal = "95% normal interval (accuracies), 95% bootstrap interval (F1)",
  bootstrap = "95% bootstrap interval"
)

rlang::on_load(register_benchmark(
  "processbench", "processbench_summary",
  headline = c("overall f1", "overall error_acc", "overall correct_acc"), by = "task",
  interval = processbench_interval[["normal"]]
))

#' @rdname prepare_deltabench
#' @export
prepare_processbench <- function(source, out = NULL, split = NULL,
                                 on_error = c("error", "skip")) {
  check_string(split, allow_null = TRUE)
  on_error <- rlang::arg_match(on_error)
  prepare_task_table("processbench", source, out = out, split = split, on_error = on_error)
}

processbench_templates <- list(
  generic = paste0(
    "The following is a problem and a solution (split into paragraphs, enclosed with tags ",
    "and indexed from 0):\n\n[Problem]\n\n{problem}\n\n[Solution]\n\n{tagged_response}\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you ",
    "identify an error in a paragraph, return the index of the paragraph where the earliest ",
    "error occurs. Otherwise, return the index of -1.\n\n",
    "Please put your final answer (i.e., the index) in \\boxed{}."
  ),
  processbench = paste0(
    "The following is a math problem and a solution (split into paragraphs, enclosed with ",
    "tags and indexed from 0):\n\n[Math Problem]\n\n{problem}\n\n[Solution]\n\n",
    "{tagged_response}\n\n",
    "Your task is to review and critique the solution paragraph by paragraph. Once you ",
    "identify an error in a paragraph, return the index of the paragraph where the earliest ",
    "error occurs. Otherwise, return the index of -1 (which typically denotes \"not found\").",
    "\n\nPlease put your final answer (i.e., the index) in \\boxed{}."
  )
)

#' Build ProcessBench critique prompts
#'
#' The prompt asks for the 0-based index of the earliest wrong paragraph (or `-1`) in
#' `\boxed{}`. Each step is tagged `<paragraph_i>\n{step}\n</paragraph_i>\n\n`, the tagged
#' steps are concatenated and stripped of surrounding whitespace, and the problem and tagged
#' solution are put into the template.
#'
#' @param problem A character vector of problems.
#' @param steps A list of character vectors (the steps of each solution), as long as
#'   `problem`.
#' @param template `"generic"` (the default: "a problem", `[Problem]`, as DeltaBench's
#'   ProcessBench-style runs word it) or `"processbench"` (ProcessBench's own template: "a
#'   math problem", `[Math Problem]`, and `(which typically denotes "not found")`).
#' @returns A character vector of prompts.
#' @family processbench and deltabench
#' @export
#' @examples
#' cat(processbench_prompt("What is 1 + 1?", list(c("1 + 1 = 3.", "So 3."))))
processbench_prompt <- function(problem, steps, template = c("generic", "processbench")) {
  template <- rlang::arg_match(template)
  if (!is.character(problem)) abort_pb("{.arg problem} must be a character vector.", "argument")
  if (!is.list(steps) || length(steps) != length(problem)) {
    abort_pb("{.arg steps} must be a list as long as {.arg problem}.", "argument")
  }
  text <- processbench_templates[[template]]
  vapply(seq_along(problem), function(i) {
    s <- as.character(steps[[i]])
    idx <- seq_along(s) - 1L
    tagged <- paste0("<paragraph_", idx, ">\n", s, "\n</paragraph_", idx, ">\n\n",
                     collapse = "")
    tagged <- trimws(tagged, whitespace = "[\\h\\v]")  # Python's str.strip()
    # Fill the slots in one pass so a problem that contains "{tagged_response}" is kept as is.
    parts <- strsplit(text, "{problem}", fixed = TRUE)[[1]]
    tail <- strsplit(parts[[2]], "{tagged_response}", fixed = TRUE)[[1]]
    paste0(parts[[1]], problem[[i]], tail[[1]], tagged, tail[[2]])
  }, "")
}

#' Majority vote over critiques
#'
#' Each critique's vote is its **last** `\boxed{}` (nested braces matched, see
#' [extract_boxed()]) read as a whole number by [parse_integer_answer()] (`"02"` and `"+2"`
#' are 2; `$`, spaces and extra enclosing braces are ignored). Votes that are not whole
#' numbers are dropped. The prediction is the most frequent vote, ties going to the value
#' seen first; with no valid vote there is no prediction (`NA`), which scores as wrong.
#'
#' A box that is never closed (a critique cut off by `max_tokens` after its last `\boxed`
#' and opening brace) is not a box: the vote is the last *complete* box before it, as
#' ProcessBench's regular expression reads such a text, and no vote when there is none.
#'
#' @param texts A character vector: the critiques of one sample (`NA` for failed requests).
#' @returns A list with `votes` (an integer vector as long as `texts`, `NA` where no valid
#'   vote), `prediction` (an integer, `NA` when there is none) and `n_valid`.
#' @family processbench and deltabench
#' @export
#' @examples
#' processbench_vote(c("\\boxed{2}", "\\boxed{-1}", "\\boxed{02}", "no box"))
#' processbench_vote("\\boxed{1} On second thought, \\boxed{")  # truncated: votes 1
processbench_vote <- function(texts) {
  if (!is.character(texts) && !all(is.na(texts))) {
    abort_pb("{.arg texts} must be a character vector.", "argument")
  }
  votes <- processbench_parse_index(as.character(texts))
  valid <- votes[!is.na(votes)]
  prediction <- NA_integer_
  if (length(valid)) {
    values <- unique(valid)
    prediction <- values[[which.max(tabulate(match(valid, values)))]]
  }
  list(votes = votes, prediction = prediction, n_valid = length(valid))
}

processbench_parse_index <- function(texts) {
  boxed <- extract_boxed(texts, which = "last", rule = "balanced")
  boxed <- gsub("[$[:space:]]", "", boxed)
  # \boxed{{2}} and \boxed{\text{2}} still mean 2.
  repeat {
    stripped <- sub("^(\\\\(text|mathbf|mathrm|textbf))?\\{(.*)\\}$", "\\3", boxed)
    if (identical(stripped, boxed)) break
    boxed <- stripped
  }
  parse_integer_answer(boxed)
}

#' ProcessBench-style first-error identification as a vitals Task
#'
#' @description
#' Given a problem and a solution split into steps, the model returns the 0-based index of
#' the first wrong step, or `-1` if there is none. `processbench_task()` runs this over
#' DeltaBench data (the default, a shipped sample of made-up DeltaBench-format records) or
#' ProcessBench data, with `n_votes = 8` sampled critiques per sample at `temperature = 0.7`
#' and a majority vote ([processbench_vote()]). `processbench_summary()` gives the
#' benchmark's metrics (error accuracy, correct accuracy and their harmonic mean F1) and
#' [processbench_write_results()] writes the seed tool's output files.
#'
#' For DeltaBench's own section-level protocol (all erroneous sections, precision/recall
#' over section sets), use [deltabench_task()]; the vignette explains why the two give
#' different numbers.
#'
#' * `processbench_dataset()` reads a `processbench` task table (by default the shipped
#'   DeltaBench-format sample) and adds `input` (the prompt) and `target` (the label). It,
#'   and `processbench_task()` given a data frame, check each row as the flatteners do: a
#'   solution with no steps, a missing or blank step, a label outside -1 to the last step's
#'   index, or a section number past the last step stops with a `predictivebench_error_field`
#'   naming the file, row and field.
#' * `processbench_solver()` sends each prompt `n_votes` times, each vote its own request
#'   with its own epoch (so each vote is its own cache entry and a re-run costs nothing),
#'   and votes.
#' * `processbench_scorer()` marks a sample correct (`C`, logged as 1) iff the prediction
#'   equals the label. Its explanation lists the votes and the majority vs the label.
#'
#' The task is a [ResultsTask]: its log (see `vitals::vitals_view()`) shows
#' [processbench_summary()]'s overall F1, error accuracy and correct accuracy as headline
#' metrics, the scorer as `processbench_score`, each sample's `label`, `task_l1`,
#' `task_l2`, `generator` and `final_answer_correct` and the solver's metadata as key-value
#' fields, and model usage that counts all `n_votes` requests of each sample (as
#' `$get_cost()` does; cached votes cost nothing).
#'
#' @section Greedy mode:
#' `n_votes = 1, temperature = 0` reproduces ProcessBench's default (non-voting) protocol.
#' The defaults reproduce its voting protocol with DeltaBench's ProcessBench-style settings.
#'
#' @section Differences from the original:
#' * Votes are separate requests (the same prompt, epochs 1 to `n_votes`, never a fixed seed
#'   shared by every request, which would make the votes identical: a seed is offset per
#'   vote, see `params`). ProcessBench asked vLLM
#'   for `n` samples in one call; the samples are drawn the same way, only billed as
#'   separate requests (the prompt is paid `n_votes` times, unless the provider caches it);
#'   `n_per_request = TRUE` asks for them in one request instead.
#' * Sampling parameters: ProcessBench's voting used `temperature = 1, top_p = 0.9` (0.7 /
#'   0.8 / top-k 20 for Qwen2.5-Math); here the default is `temperature = 0.7` and no
#'   `top_p`; pass `temperature` and `params = list(top_p = 0.9)` to match a given run.
#' * The answer is the last `\boxed{}` with nested braces matched; ProcessBench's regular
#'   expression stopped at the first `}`, so `\boxed{\text{2}}` gave no answer there.
#' * Votes are whole numbers before counting: `"02"`, `"+2"` and `"2"` are one vote for 2.
#'   ProcessBench counted the raw strings, and a winning string that was not a number gave no
#'   prediction; here invalid votes are dropped first, so the majority of valid votes wins.
#' * Ties go to the value seen first (as Python's `Counter.most_common()` does).
#' * A failed request is a missing vote, reported in the metadata, never a crash.
#' * ProcessBench printed the accuracies and F1 and wrote `{split}_error.jsonl` and
#'   `{split}_correct.jsonl`; here [processbench_summary()] reports them as fractions (0 to
#'   1, not percent) and adds counts, intervals and the mean of the groups' F1, and
#'   [processbench_write_results()] writes one JSON Lines file and one CSV summary, named
#'   `{dataset}_{model}_votes{n}`.
#' * The flatteners check the data (a label or section number past the last step, an empty
#'   step, a section without content stop with an error, or are skipped with
#'   `on_error = "skip"`); the original loaded whatever it was given.
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param template The prompt wording, `"generic"` or `"processbench"`; see
#'   [processbench_prompt()].
#' @param n_votes Critiques sampled per sample (default 8). 1 with `temperature = 0` is
#'   greedy decoding, the cheapest run.
#' @param temperature Sampling temperature (default 0.7). Voting needs a positive
#'   temperature, or the votes are (nearly) identical.
#' @param params Other request parameters (see [ellmer::params()]), such as
#'   `list(top_p = 0.9, max_tokens = 8192)`. They override the chat's own. A `seed` (here
#'   or set on the chat with `ellmer::params(seed = )`) is offset per vote: vote `j` is sent
#'   with `seed + j - 1`, counting votes across vitals epochs (the k-th epoch's votes are
#'   `(k - 1) * n_votes + 1` to `k * n_votes`). A run is then reproducible, yet its votes
#'   differ; one fixed seed on every request would make them identical. A provider that
#'   ignores `seed` (OpenAI's Responses API, Anthropic) says so once per eval.
#' @param n_per_request `FALSE` (the default) sends each vote as its own request, which
#'   works with every provider. It stays the default because many OpenAI-compatible
#'   providers ignore `n` (returning one choice) or reject the request outright. `TRUE` asks
#'   for all `n_votes` in one request with the OpenAI-style `n` field, as ProcessBench did
#'   with vLLM: the prompt's input tokens are paid once where the provider honours `n`
#'   (OpenAI, vLLM). When a response holds fewer choices than asked, the missing votes are
#'   requested as separate requests (the epochs, seeds and cache entries
#'   `n_per_request = FALSE` would use), with a message (`predictivebench_message_n_ignored`),
#'   so every sample still gets `n_votes` votes. The `n` response is one cache entry; a
#'   failed `n` request loses all its votes (recorded per vote in `errors`). Providers
#'   whose API has no `n` (OpenAI's Responses API, i.e. [ellmer::chat_openai()];
#'   Anthropic; Gemini; Bedrock) are refused up front with an error.
#' @param dataset A table from `processbench_dataset()`.
#' @param solver,scorer By default `processbench_solver()` and `processbench_scorer()`.
#' @param epochs Passed to [vitals::Task]: each epoch draws `n_votes` new critiques.
#' @inheritParams generate_responses
#' @returns `processbench_dataset()` a tibble; `processbench_solver()` and
#'   `processbench_scorer()` functions for [vitals::Task]; `processbench_task()` a
#'   [ResultsTask] (a [vitals::Task]). The solver's result is the prediction as a string
#'   (`NA` when no vote was valid); its `solver_metadata` holds `prediction`, `votes`,
#'   `critiques` (every raw text), `errors` (one per vote), `n_valid`, `n_votes`,
#'   `cached`, tokens, cost and seconds.
#' @family processbench and deltabench
#' @export
#' @examples
#' tsk <- processbench_task(dir = tempfile(), solver = processbench_solver(cache = FALSE))
#' tsk$eval(solver_chat = baseline_random(c("-1", "0", "1", "2"), "\\boxed{%s}"),
#'          view = FALSE)
#' processbench_summary(tsk)
processbench_task <- function(dataset = processbench_dataset(), solver = processbench_solver(),
                              scorer = processbench_scorer(), epochs = NULL,
                              dir = vitals::vitals_log_dir(), name = "processbench",
                              limit = NULL, template = c("generic", "processbench")) {
  template <- rlang::arg_match(template)
  dataset <- processbench_with_prompts(dataset, template)
  benchmark_task(dataset, solver, scorer, epochs = epochs, dir = dir, name = name,
                 limit = limit, benchmark = "processbench",
                 metadata_fields = c("label", "task_l1", "task_l2", "generator",
                                     "final_answer_correct"))
}

processbench_with_prompts <- function(dataset, template) {
  dataset <- validate_task_table(dataset, "processbench")
  check_processbench_rows(dataset)
  dataset$input <- processbench_prompt(dataset$problem, dataset$steps, template)
  dataset$target <- as.character(dataset$label)
  dataset
}

#' @rdname processbench_task
#' @export
processbench_dataset <- function(path = NULL, limit = NULL, shuffle = FALSE) {
  benchmark_dataset("processbench", path, sample = "deltabench-sample.parquet", limit = limit,
                    shuffle = shuffle, check = check_processbench_rows)
}

# The flatteners' row checks, for tables that bypassed them (a data frame, a parquet file
# written elsewhere): at least one step, no missing or blank step, a label in
# [-1, number of steps), and DeltaBench section numbers within the steps.
check_processbench_rows <- function(x, file = "<data frame>") {
  n_steps <- lengths(x$steps)
  for (row in seq_len(nrow(x))) {
    steps <- x$steps[[row]]
    if (!n_steps[[row]]) {
      abort_pb("The solution has no steps.", "field", file = file, row = row, field = "steps")
    }
    blank <- which(is.na(steps) | !grepl("[^\\h\\v]", steps, perl = TRUE))
    if (length(blank)) {
      abort_pb("Step {blank[[1]] - 1} is missing or empty.", "field", file = file, row = row,
               field = paste0("steps[", blank[[1]] - 1L, "]"))
    }
    label <- x$label[[row]]
    if (label < -1 || label >= n_steps[[row]]) {
      abort_pb("Label {label} is not a step: it must be -1 or 0 to {n_steps[[row]] - 1}.",
               "field", file = file, row = row, field = "label")
    }
    for (field in c("error_sections", "unuseful_sections")) {
      sections <- x[[field]][[row]]
      if (any(is.na(sections) | sections < 1 | sections > n_steps[[row]])) {
        abort_pb("Section numbers must be 1 to {n_steps[[row]]} (the steps, counted from 1).",
                 "field", file = file, row = row, field = field)
      }
    }
  }
  x
}

#' @rdname processbench_task
#' @export
processbench_solver <- function(n_votes = 8, temperature = 0.7, params = NULL,
                                n_per_request = FALSE, cache = TRUE, max_active = 10,
                                rpm = 500, max_tries = 3,
                                batch = getOption("predictivebench.batch", FALSE), wait = TRUE) {
  check_count(n_votes)
  check_number(temperature)
  check_flag(n_per_request)
  if (!is.null(params) && !is.list(params)) {
    abort_pb("{.arg params} must be a list or {.code NULL}.", "argument")
  }
  if (n_votes > 1 && temperature == 0) {
    cli::cli_warn("With {.code temperature = 0} the {n_votes} votes will be (nearly) identical.")
  }
  cache_dir(cache)
  settings <- utils::modifyList(list(temperature = temperature), params %||% list())
  dataset_solver(function(inputs, bound, ..., solver_chat = NULL) {
    solver_chat <- as_chat(solver_chat)
    if (n_per_request && n_votes > 1) check_provider_has_n(solver_chat)
    n <- length(inputs)
    seed <- settings$seed %||% chat_seed(solver_chat)
    send <- function(prompts, vote, epoch = vote, api_args = NULL, keep_json = FALSE) {
      processbench_requests(solver_chat, settings, prompts, vote = vote, epoch = epoch,
                            seed = seed, api_args = api_args, cache = cache,
                            max_active = max_active, rpm = rpm, max_tries = max_tries,
                            keep_json = keep_json, batch = batch, wait = wait)
    }
    # vitals epochs repeat inputs: the k-th epoch of a sample gets new votes. Vote v of
    # epoch k is vote (k - 1) * n_votes + v overall: its epoch (so every vote is its own
    # request and cache entry) and its seed offset.
    copy <- bound$.epoch
    first <- (copy - 1L) * n_votes
    if (n_per_request && n_votes > 1) {
      # One request per copy (epoch k) carrying the seed of its first vote.
      res <- send(inputs, vote = first + 1L, epoch = copy, api_args = list(n = n_votes),
                  keep_json = TRUE)
      owner <- seq_len(n)
      texts <- lapply(seq_len(n), function(i) {
        if (is.na(res$error[[i]])) processbench_choices(res$json[[i]], res$result[[i]]) else
          rep(NA_character_, n_votes)
      })
      errors <- lapply(seq_len(n), function(i) rep(res$error[[i]], length(texts[[i]])))
      got <- lengths(texts)
      short <- which(is.na(res$error) & got < n_votes)
      if (length(short)) {
        # The provider ignored `n`: the missing votes go out as separate requests, numbered
        # (epoch and seed) as in n_per_request = FALSE, so they share its cache entries.
        sample <- rep(short, n_votes - got[short])
        vote <- first[sample] + unlist(lapply(short, function(i) seq.int(got[[i]] + 1L, n_votes)))
        extra <- send(inputs[sample], vote = vote)
        for (i in short) {
          texts[[i]] <- c(texts[[i]], extra$result[sample == i])
          errors[[i]] <- c(errors[[i]], extra$error[sample == i])
        }
        res <- bind_requests(list(res, extra), list(seq_len(n), n + seq_along(sample)))
        owner <- c(owner, sample)
        cli::cli_inform(c(
          paste("{length(short)} response{?s} held fewer than {n_votes} choices:",
                "the provider ignored {.code n}."),
          i = paste0("The {length(sample)} missing vote{?s} {?was/were} requested separately",
                     if (is.null(cache_dir(cache))) "." else ", cached."),
          i = "{.code n_per_request = FALSE} sends one request per vote from the start."
        ), class = "predictivebench_message_n_ignored")
      }
    } else {
      owner <- rep(seq_len(n), each = n_votes)
      res <- send(inputs[owner], vote = first[owner] + rep(seq_len(n_votes), times = n))
      texts <- unname(split(res$result, owner))
      errors <- unname(split(res$error, owner))
    }
    report_failures(res$error, what = "vote request")  # one per request, not per vote
    metadata <- vector("list", n)
    result <- rep(NA_character_, n)
    chats <- vector("list", n)
    for (i in seq_len(n)) {
      rows <- which(owner == i)
      vote <- processbench_vote(texts[[i]])
      if (!is.na(vote$prediction)) result[[i]] <- as.character(vote$prediction)
      answered <- rows[is.na(res$error[rows])]
      chats[[i]] <- res$chat[[if (length(answered)) answered[[1]] else rows[[1]]]]
      # usage summed over every vote request of the sample, so the log counts them all
      metadata[[i]] <- c(
        list(prediction = vote$prediction, votes = vote$votes, n_valid = vote$n_valid,
             n_votes = n_votes, critiques = texts[[i]], errors = errors[[i]]),
        usage_metadata(res, rows), list(seconds = sum(res$seconds[rows]))
      )
    }
    list(result = result, solver_chat = chats, solver_metadata = metadata)
  })
}

# Sends prompts[i] with epoch[i]. Without a seed one chat sends them all. With a seed, vote j
# is sent with seed + j - 1, so votes differ but a re-run draws the same ones: one chat per
# distinct vote number, all in one request pool (so a provider's warning shows once).
processbench_requests <- function(solver_chat, settings, prompts, vote, epoch, seed,
                                  api_args = NULL, ...) {
  if (is.null(seed)) {
    chat <- configure_chat(solver_chat, params = settings, api_args = api_args)
    return(generate_responses(chat, prompts, epoch = epoch, ...))
  }
  votes <- sort(unique(vote))
  chats <- lapply(votes, function(v) {
    configure_chat(solver_chat, params = utils::modifyList(settings, list(seed = seed + v - 1)),
                   api_args = api_args)
  })
  run_requests(chats, match(vote, votes), as_prompt_list(prompts), epoch = epoch, ...)
}

# Only OpenAI-style chat completions take `n` (several choices in one request); OpenAI's
# Responses API, Anthropic and Gemini would drop it and bill every vote but the first twice.
check_provider_has_n <- function(chat) {
  no_n <- c("ellmer::ProviderOpenAI", "ellmer::ProviderAnthropic",
            "ellmer::ProviderGoogleGemini", "ellmer::ProviderAWSBedrock")
  provider <- chat$get_provider()
  if (inherits(provider, no_n)) {
    abort_pb(c(
      "{.code n_per_request = TRUE} needs a chat-completions API that takes {.field n}.",
      x = "{provider@name} ({.cls {class(provider)[[1]]}}) has no {.field n}.",
      i = "Use {.code n_per_request = FALSE} (one request per vote)."
    ), "argument")
  }
  invisible(chat)
}

# Row-binds generate_responses() tibbles; index[[k]] are the rows parts[[k]] answers.
bind_requests <- function(parts, index) {
  order <- order(unlist(index, use.names = FALSE))
  columns <- Reduce(intersect, lapply(parts, names))
  tibble::as_tibble(rlang::set_names(lapply(columns, function(column) {
    do.call(c, unname(lapply(parts, `[[`, column)))[order]
  }), columns))
}

# The texts of every choice in an OpenAI-style response; the parsed text when there is no
# JSON (an offline baseline) and NA for a failed request.
processbench_choices <- function(json, text) {
  choices <- json$choices
  if (!length(choices) && length(json$output)) return(responses_texts(json$output, text))
  if (!length(choices)) return(text)
  vapply(choices, function(ch) {
    content <- ch$message$content
    if (is.character(content) && length(content) == 1) content else NA_character_
  }, "")
}

# The Responses API's shape: one vote per message item, its output_text parts joined.
responses_texts <- function(output, text) {
  messages <- Filter(function(item) identical(item$type, "message"), output)
  if (!length(messages)) return(text)
  vapply(messages, function(item) {
    parts <- Filter(function(part) identical(part$type, "output_text"), item$content)
    paste(vapply(parts, function(part) part$text %||% "", ""), collapse = "")
  }, "")
}

#' @rdname processbench_task
#' @export
processbench_scorer <- function() {
  function(samples, ...) {
    prediction <- processbench_prediction(samples$result)
    correct <- !is.na(prediction) & prediction == samples$label
    meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
      vector("list", nrow(samples))
    list(
      score = factor(ifelse(correct, "C", "I"), levels = c("I", "C"), ordered = TRUE),
      explanation = vapply(seq_along(prediction), function(i) {
        processbench_explanation(meta[[i]]$votes, prediction[[i]], samples$label[[i]],
                                 correct[[i]])
      }, ""),
      scorer_metadata = lapply(seq_along(prediction), function(i) {
        list(prediction = prediction[[i]], label = samples$label[[i]])
      })
    )
  }
}

# Why a sample scored what it did: the votes, the majority, and the label.
processbench_explanation <- function(votes, prediction, label, correct) {
  votes_text <- if (length(votes)) {
    paste0("votes ", paste(ifelse(is.na(votes), "none", votes), collapse = ", "),
           " (", sum(!is.na(votes)), " valid of ", length(votes), "); majority ")
  } else {
    "prediction "
  }
  paste0(votes_text, if (is.na(prediction)) "none" else prediction, " vs label ", label, ": ",
         if (correct) "correct" else "wrong")
}

# A result is the voted index; a raw critique (from another solver) is read by its last box.
processbench_prediction <- function(result) {
  result <- as.character(result)
  out <- parse_integer_answer(result)
  raw <- is.na(out) & !is.na(result)
  out[raw] <- processbench_parse_index(result[raw])
  out
}

#' ProcessBench headline numbers
#'
#' @description
#' ProcessBench's metrics, as fractions from 0 to 1 (ProcessBench printed percentages):
#' **error accuracy** (samples whose label is not `-1`,
#' i.e. with an error: the first wrong step must be found), **correct accuracy** (samples
#' with label `-1`: the model must say there is no error) and **F1**, their harmonic mean,
#' overall and by group (by default `task_l1`, ProcessBench's split). A sample without a
#' prediction counts as wrong. The last row, `"mean of groups"`, is the mean of the groups'
#' F1, the average ProcessBench reports over its four splits.
#'
#' The rows have the columns every predictivebench summary has, one row per group and
#' metric (`error_acc`, `correct_acc`, `f1`), so the numbers of a group are read with
#' `s[s$group == "overall", ]`.
#'
#' A group with no samples on one side has `NA` for that accuracy and for F1, and one whose
#' two accuracies are both 0 has `NA` F1; both are announced with a message, not reported as
#' a silent 0. A message also warns about groups with fewer than 10 samples on one side:
#' DeltaBench has few error-free solutions, so its correct accuracy is very uncertain.
#'
#' @param x An evaluated [processbench_task()], its `$get_samples()` tibble (columns
#'   `label`, `score` or `result`, and the grouping column), or the log file it wrote (or
#'   that log read by [log_samples()]).
#' @param by The grouping column (default `"task_l1"`), or `NULL` for the overall row only.
#' @param method Interval for the accuracies, `"normal"` or `"bootstrap"` (see [mean_ci()]).
#'   The F1 interval is always a bootstrap that resamples the two sides separately.
#' @param times,seed Bootstrap resamples and seed (the global random stream is untouched).
#' @param cluster Clusters of samples for the accuracies' intervals (see
#'   [resolve_cluster()]): by default the solutions of one `problem` when some problem has
#'   several solutions in the data, else each item's epochs (`id`); with one solution per
#'   problem and one epoch this is the naive interval. `NULL` treats every sample as
#'   independent. The F1 bootstrap resamples samples; for a clustered comparison of F1
#'   between two models use [compare_models()].
#' @returns A tibble with three rows per group (`"overall"` first), one per `metric`
#'   (`"error_acc"`, `"correct_acc"`, `"f1"`), and one last row `"mean of groups"` (metric
#'   `"f1"`) when there are groups: `group`, `metric`, `estimate`, `lower`, `upper`, `n`
#'   (samples with an error for `error_acc`, without for `correct_acc`, both for `f1`), and
#'   `n_no_prediction` (samples of the group with no valid vote). Its class
#'   `benchmark_summary` gives it a plot: `ggplot2::autoplot()` draws a panel per metric and
#'   a bar per group (see [autoplot_summary()]). The rows `"overall f1"`,
#'   `"overall error_acc"` and `"overall correct_acc"` (their keys, see [summary_keys()])
#'   are the task's headline metrics: the numbers the log's header shows in
#'   `vitals_view()`.
#' @family processbench and deltabench
#' @export
#' @examples
#' samples <- tibble::tibble(
#'   label = c(2, 0, -1, -1, 3), task_l1 = c("a", "a", "a", "b", "b"),
#'   result = c("2", "1", "-1", "-1", NA)
#' )
#' processbench_summary(samples)
#' # a task's summary, read from its log file, and its plot
#' tsk <- processbench_task(dir = tempfile(),
#'                          solver = processbench_solver(n_votes = 3, cache = FALSE))
#' tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
#' s <- processbench_summary(tsk$log_path)
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(s)
processbench_summary <- function(x, by = "task_l1", method = c("normal", "bootstrap"),
                                 times = 1000, seed = 1, cluster = "default") {
  method <- rlang::arg_match(method)
  items <- processbench_items(x, by, cluster)
  groups <- if (is.null(by)) character() else sort(unique(items$group[!is.na(items$group)]))
  notes <- new.env()
  notes$na <- character()
  notes$small <- character()
  rows <- lapply(c("overall", groups), function(g) {
    keep <- if (g == "overall") rep(TRUE, nrow(items)) else items$group %in% g
    processbench_group_row(g, items[keep, ], method, times, seed, notes)
  })
  out <- do.call(rbind, rows)
  if (length(groups)) {
    f1s <- out$estimate[out$group %in% groups & out$metric == "f1"]
    mean_of_groups <- list(mean = mean(f1s), lower = NA_real_, upper = NA_real_,
                           n = nrow(items))
    out <- rbind(out, summary_rows("mean of groups", "f1", mean_of_groups,
                                   n_no_prediction = sum(is.na(items$prediction))))
    if (anyNA(f1s)) notes$na <- c(notes$na, "the mean of groups' F1, since a group's F1 is NA")
  }
  if (length(notes$na)) {
    cli::cli_inform(c("Some metrics are NA, not 0:", rlang::set_names(notes$na, "*")),
                    class = "predictivebench_message_na")
  }
  if (length(notes$small)) {
    cli::cli_inform(
      c("Some groups are tiny, so their accuracy and F1 are very uncertain:",
        rlang::set_names(notes$small, "*")),
      class = "predictivebench_message_small_group"
    )
  }
  benchmark_summary(out, "processbench", by = by %||% "group",
                    interval = processbench_interval[[method]])
}

processbench_items <- function(x, by, cluster = NULL, call = rlang::caller_env()) {
  x <- processbench_samples(x, by = by, call = call)
  cluster <- resolve_cluster(x, cluster, benchmark_cluster("processbench", x))
  prediction <- if ("result" %in% names(x)) processbench_prediction(x$result) else
    rep(NA_integer_, nrow(x))
  match <- if ("score" %in% names(x)) {
    as_score(x$score) %in% 1
  } else {
    !is.na(prediction) & prediction == x$label
  }
  tibble::tibble(label = x$label, match = match, prediction = prediction,
                 group = if (is.null(by)) NA_character_ else as.character(x[[by]]),
                 cluster = cluster %||% seq_len(nrow(x)))
}

processbench_samples <- function(x, by = NULL, call = rlang::caller_env()) {
  x <- benchmark_samples(
    x, "label",
    "an evaluated ProcessBench task, its samples (with {.field label}) or its log file.",
    by = by,
    call = call
  )
  if (!any(c("score", "result") %in% names(x))) {
    abort_pb("{.arg x} must have a {.field score} or {.field result} column.", "argument",
             call = call)
  }
  x
}

processbench_group_row <- function(group, items, method, times, seed, notes) {
  err <- as.double(items$match[items$label != -1])
  cor <- as.double(items$match[items$label == -1])
  e <- mean_ci(err, method = method, times = times, seed = seed, limits = c(0, 1),
               cluster = shared_cluster(items$cluster[items$label != -1]))
  c <- mean_ci(cor, method = method, times = times, seed = seed, limits = c(0, 1),
               cluster = shared_cluster(items$cluster[items$label == -1]))
  f1 <- f1_score(e$mean, c$mean)
  for (side in list(list("with an error", length(err)), list("without an error", length(cor)))) {
    if (side[[2]] == 0) {
      notes$na <- c(notes$na, paste0(group, ": no sample ", side[[1]], ", so that accuracy and F1"))
    } else if (side[[2]] < 10) {
      notes$small <- c(notes$small, paste0(group, ": ", side[[2]], " sample",
                                           if (side[[2]] > 1) "s", " ", side[[1]]))
    }
  }
  if (length(err) && length(cor) && e$mean == 0 && c$mean == 0) {
    notes$na <- c(notes$na, paste0(group, ": F1, since both accuracies are 0"))
  }
  bounds <- c(NA_real_, NA_real_)
  if (!is.na(f1) && length(err) > 1 && length(cor) > 1) {
    draws <- with_seed(seed, vapply(seq_len(times), function(b) {
      f1_score(mean(sample(err, length(err), TRUE)), mean(sample(cor, length(cor), TRUE)))
    }, 1))
    bounds <- unname(stats::quantile(draws, c(0.025, 0.975), na.rm = TRUE))
  }
  f <- list(mean = f1, lower = bounds[[1]], upper = bounds[[2]], n = e$n + c$n)
  no_prediction <- sum(is.na(items$prediction))
  rbind(summary_rows(group, "error_acc", e, n_no_prediction = no_prediction),
        summary_rows(group, "correct_acc", c, n_no_prediction = no_prediction),
        summary_rows(group, "f1", f, n_no_prediction = no_prediction))
}

#' Write ProcessBench results files
#'
#' Writes what ProcessBench's evaluation script leaves behind, for comparison with other
#' runs: a JSON Lines file of per-sample results (`id`, `task_l1`, `label`, `prediction`,
#' `match`, `votes`, `critiques`, `errors`) and a CSV of [processbench_summary()], named
#' `{dataset}_{model}_votes{n}.jsonl` and `.csv`. Both are written atomically (a crash leaves
#' the old file or the new one, never half of one) inside `dir`; characters other than
#' letters, digits, `.`, `_` and `-` in the name parts become `-`, so a model name such as
#' `org/model` cannot write elsewhere.
#'
#' @param x An evaluated [processbench_task()] or its samples.
#' @param dir The directory to write into (created if needed).
#' @param dataset The dataset's name, such as `"deltabench"` or `"gsm8k"`.
#' @param model The model's name; `NULL` takes it from the first sample's chat.
#' @param n_votes Votes per sample; `NULL` takes it from the solver metadata (`n_votes`,
#'   recorded by [processbench_solver()] for every sample, so a sample whose requests failed
#'   does not change the count).
#' @inheritParams processbench_summary
#' @returns The two paths (named `results` and `summary`), invisibly.
#' @family processbench and deltabench
#' @export
#' @examples
#' tsk <- processbench_task(dir = tempfile(), solver = processbench_solver(n_votes = 3, cache = FALSE))
#' tsk$eval(solver_chat = baseline_constant("\\boxed{-1}"), view = FALSE)
#' processbench_write_results(tsk, tempfile(), dataset = "deltabench-sample")
processbench_write_results <- function(x, dir, dataset, model = NULL, n_votes = NULL,
                                       by = "task_l1") {
  check_string(dir)
  check_string(dataset)
  check_string(model, allow_null = TRUE)
  samples <- processbench_samples(x)
  items <- processbench_items(samples, by = NULL)
  meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
    rep(list(NULL), nrow(samples))
  if (is.null(model)) {
    chat <- if ("solver_chat" %in% names(samples)) samples$solver_chat[[1]]
    model <- if (inherits(chat, "Chat")) chat$get_model() else "unknown"
  }
  # The solver records n_votes in every sample's metadata (failed votes included); older
  # metadata without it falls back to the longest list of votes.
  n_votes <- n_votes %||% processbench_meta_votes(meta)
  check_count(n_votes)
  stem <- paste0(safe_name(dataset), "_", safe_name(model), "_votes", n_votes)
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  paths <- c(results = file.path(dir, paste0(stem, ".jsonl")),
             summary = file.path(dir, paste0(stem, ".csv")))
  lines <- vapply(seq_len(nrow(samples)), function(i) {
    m <- meta[[i]] %||% list()
    record <- list(
      id = if ("id" %in% names(samples)) samples$id[[i]] else i,
      task_l1 = if ("task_l1" %in% names(samples)) samples$task_l1[[i]] else NA,
      label = samples$label[[i]], prediction = items$prediction[[i]],
      match = items$match[[i]], votes = I(m$votes %||% integer()),
      critiques = I(m$critiques %||% character()), errors = I(m$errors %||% character())
    )
    as.character(jsonlite::toJSON(record, auto_unbox = TRUE, null = "null", na = "null",
                                  digits = NA))
  }, "")
  summary <- suppressMessages(processbench_summary(samples, by = if (by %in% names(samples)) by))
  write_atomic(paths[["results"]], function(tmp) {
    con <- file(tmp, open = "w", encoding = "UTF-8")
    on.exit(close(con))
    writeLines(enc2utf8(lines), con, useBytes = TRUE)
  })
  write_atomic(paths[["summary"]], function(tmp) {
    utils::write.csv(summary, tmp, row.names = FALSE, na = "")
  })
  invisible(paths)
}

processbench_meta_votes <- function(meta) {
  recorded <- unlist(lapply(meta, function(m) m$n_votes))
  if (length(recorded)) return(max(recorded))
  max(c(1L, lengths(lapply(meta, function(m) m$votes))))
}

safe_name <- function(x) {
  x <- gsub("[^A-Za-z0-9._-]+", "-", x)
  x <- gsub("^[.-]+", "", x)
  if (!nzchar(x)) "unnamed" else x
}
