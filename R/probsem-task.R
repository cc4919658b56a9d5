# The probsem Task: a prompt and its suites, each context's queries ranked by log-probability.

#' Flatten a probsem prompt and its test suites into a task table
#'
#' Runs the Python flattener on a probsem benchmark: a prompt file `<name>.txt` and test
#' suites `<name>_<suite>.json` beside it, each
#' `{"pretext", "context": [{"text", "expected"}, ...], "posttext", "queries"}`. The table
#' has one row per context: `id` (`<suite>-<context_index>`), `input` (the text scored
#' before each query), `target` (the expected query, `NA` when `expected` is -1), `prompt`,
#' `suite`, `context_index` (0-based, the context's position in the suite file), `text` (the
#' non-empty parts of pretext, context and posttext joined by newlines), `queries` and
#' `expected` (the 0-based index of the query that should win, -1 for none).
#'
#' Text assembly is the original's: the scored text of a query is
#' `prompt + "\n" + text + "\n" + query`, where the prompt file keeps its trailing newline
#' (so `input + query` is the scored text). When pretext, context text and posttext are all
#' empty, `text` is `""` and the scored text is `prompt + "\n\n" + query`, as the
#' original's code builds it (`"\n".join([prompt, "", query])`). Queries must be non-empty, single-line and
#' unique within a suite, and `expected` must be -1 or a query index; anything else is an
#' error naming the suite file, the context or query and the field.
#'
#' The suites published with the CogSci 2023 paper use the original's older format,
#' `{"premise", "context": [{"text", "expected"}, ...], "query", "programs"}`, read as well:
#' the programs are the queries, and `text` joins premise, context text and `query` with
#' newlines, leaving out each part that is exactly `";;"` (and keeping empty ones), as the
#' paper-era original (commit 5d0c92c) did. The tug-of-war suites have premise and query
#' `";;"`, so each scored text is `prompt + "\n" + context text + "\n" + program`, the texts
#' of the paper's `_results.csv`. The current format instead leaves out empty parts.
#'
#' @param source The prompt file (`.txt`; as with the original's `--prompt`, the name
#'   without `.txt` works too).
#' @param out The parquet file to write, or `NULL` to return the table.
#' @param suites Suite names to read (`c("A", "B")` reads `<name>_A.json` and
#'   `<name>_B.json`), or `NULL` (the default) for every `<name>_*.json` beside the prompt, in
#'   name order.
#' @param on_error `"error"` (the default) stops at the first suite file that can't be read
#'   or is malformed, with an error naming the file and field; `"skip"` leaves such suites
#'   out and lists them (on standard error).
#' @returns The path `out` (invisibly), or the table.
#' @noRd
prepare_probsem <- function(source, out = NULL, suites = NULL, on_error = c("error", "skip")) {
  on_error <- rlang::arg_match(on_error)
  if (!is.null(suites) && (!is.character(suites) || anyNA(suites) || !length(suites))) {
    abort_pb("{.arg suites} must be a character vector of suite names or {.code NULL}.",
             "argument")
  }
  run_flattener("probsem", source, out = out,
                     suites = if (!is.null(suites)) as.list(suites), on_error = on_error)
}

#' probsem: likelihood-based evaluation as a vitals Task
#'
#' @description
#' probsem asks which of several queries a model finds most likely after a context: each
#' context of a test suite is scored against every query of that suite, the score of a query
#' is the model's log-probability of the query given everything before it, and a softmax
#' over a context's scores gives a distribution. A context passes when its `expected` query
#' gets the highest probability. Use it for cloze tests, multiple choice by likelihood,
#' semantic parsing (which program does a model find likely for a sentence) and graded
#' judgements; use the generative benchmarks when you want to grade free text.
#'
#' * `probsem_dataset()` reads a task table: by default the CogSci 2023 suites of the
#'   original (version `"cogsci2023"`, 36 contexts in five suites, downloaded once with the
#'   paper's human results), or `version = "sample"` for the bundled sample, a short prompt
#'   with two suites written for this package. Every context of the default version carries
#'   the paper's human judgements of its sentence in the list column `human_judgements`
#'   (the strength thresholds the subjects chose, from
#'   `fetch_benchmark("probsem")[["paper/tug-of-war_AV-1_human_results.csv"]]` and
#'   `"paper/tug-of-war-mix_AV-2_human_results.csv"`); other versions and your own tables
#'   have none unless you add the column. Build your own with
#'   [prepare_task_table()]`("probsem", source)`.
#' * `probsem_solver()` scores every query of every context by its log-probability and
#'   returns the winning query as the result. Its requests go through the one request pool
#'   with `settings` ([request_settings()]); settings named in `$eval()` override them, as
#'   in `tsk$eval(solver_chat = chat, max_active = 50)`. They are never batched (`batch =
#'   TRUE` is ignored for them, with a message).
#' * `probsem_scorer()` marks a context `C` when its expected query's probability equals the
#'   maximum (ties count as correct, as in the original's suite accuracy; the explanation
#'   says "Correct through a tie"), `I` otherwise, and `NA` when
#'   `expected` is -1 (no ground truth) or scoring failed. A context that carries the
#'   paper's human judgements (column `human_judgements`, which `probsem_dataset()` adds for
#'   the default `"cogsci2023"`) is scored instead by its Jensen-Shannon distance to them
#'   (see [probsem_compare_humans()]; 0 is people's distribution, lower is better), when
#'   every context of its suite has judgements and was scored; its explanation shows both
#'   distributions.
#' * `probsem_task()` puts them together. Evaluate it with
#'   `$eval(solver_chat = <an OpenAI-compatible chat>)`; with the default `"completions"`
#'   backend the chat only tells where to send requests (base URL, model, key).
#'
#' Read the results with [probsem_summary()] (on the default version the paper's mean
#' Jensen-Shannon distance to human judgements, lower is better, per suite and per
#' sentence; elsewhere the accuracy per suite) and [probsem_distributions()] (the
#' distributions). In
#' `vitals::vitals_view()` each sample shows its context's own text and its queries (the
#' full scored text is in its conversation) and its own score.
#'
#' @section Logs:
#' The task's log keeps what the summary reads (the context's fields, the queries'
#' log-probabilities and, on the default version, `human_judgements`), so
#' `probsem_summary(tsk$log_path)` equals `probsem_summary(tsk)`.
#'
#' @section Scores:
#' A query's raw score is its summed token log-probability (see `backend`). It is
#' then optionally length-normalized (`norm`) and divided by `temperature`; that value is the
#' `logp` of the results and the input of the softmax, `exp(logp) / sum(exp(logp))` over a
#' context's queries. Solver metadata
#' holds, per context, `queries`, `logp_raw`, `n_tokens`, `logp`, `prob`, `errors`, and the
#' `backend` and `model` used.
#'
#' @section Differences from the original:
#' * Backends: the original scored with OpenAI completion engines (echo) or a local
#'   HuggingFace model. Here the faithful backend is any OpenAI-compatible `/v1/completions`
#'   endpoint that echoes prompt log-probabilities (vLLM, llama-cpp-python's server with
#'   `--logits_all true`; mainline llama.cpp's `llama-server` does not echo) or gives vLLM's
#'   `prompt_logprobs`, the route found by the first request; HuggingFace models are scored
#'   by serving them with such a server. Use `max_tokens = 1` with a server that refuses the original's 0 (some vLLM
#'   versions) or reads it as "no limit" (llama-cpp-python); generated tokens are not
#'   scored. The `"chat"` backend (first-token log-probability from a chat
#'   endpoint's top alternatives) is an approximation for chat-only providers with no
#'   counterpart in the original: every query counts as one token (`n_tokens` 1), and a
#'   query whose first token is not among the alternatives gets `logp = -Inf` and
#'   probability 0, with any `norm`.
#' * Query length: the original took the query's token count from the usage of a request
#'   for the query alone and asserted that the tokens matched. Here the count is the number
#'   of tokens echoed for the query alone; a leading BOS token that a server adds to every
#'   text is skipped, a word-start mark that a tokenizer puts only at the start of a text
#'   (SentencePiece's `"\u2581"`, or a space) is allowed for, and a mismatch is reported per
#'   query (`NA` score and an error in the metadata) instead of stopping the run;
#'   `span_check = FALSE` scores the span anyway.
#' * Softmax: the original's `exp(x) / sum(exp(x))` gives `NaN` when every score is very
#'   negative; here those contexts use the stable form. Wherever the original is finite the
#'   same formula is used; R's `exp()` and `sum()` round slightly differently from numpy's,
#'   so probabilities agree within a few units in the last place (about 15 significant
#'   digits), not bit for bit.
#' * `norm = "sqrt"` (divide by the square root of the token count) is an addition; the
#'   original's `--norm` is `norm = "tokens"` (or `TRUE`).
#' * Suite accuracy: the original prints no accuracy for a suite with any context whose
#'   `expected` is -1 (no ground truth). Here such contexts are left out of the accuracy and
#'   counted apart (`n_no_truth` in [probsem_summary()]), so a suite that mixes the two
#'   still has the accuracy of the contexts that have a ground truth.
#' * Input checks: a multi-line, empty or repeated query, an `expected` outside -1 to the
#'   number of queries minus one, and a missing field are errors naming the suite and the
#'   query or context; the original silently scored the wrong text, failed an assertion, or
#'   used a negative `expected` to index from the end.
#' * Headline: the paper reports each sentence's Jensen-Shannon distance to people (with
#'   p-values); the headline here is their mean, per suite and over all sentences, with a
#'   normal interval over sentences, which the paper does not give. Each context's score
#'   in the log is its sentence's distance.
#' * Failed requests leave that context's scores `NA` (score `NA`) instead of ending the
#'   run; [probsem_summary()] counts them.
#' * Files: the original read `inputs/<prompt>.txt` and `inputs/<prompt>_<suite>.json` by
#'   name and wrote `outputs/...`; here any paths ([prepare_task_table()]), and the results
#'   CSV's numbers (`text`, `query`, `logp`, `score`; some versions of the original call the
#'   third column `weights`) are the rows of `probsem_distributions()`.
#'
#' @section Errors:
#' Besides the shared kinds (see [predictivebench-errors]): `predictivebench_error_field`
#' for a bad suite (from [prepare_task_table()]), and `predictivebench_error_duplicate_input`
#' when two contexts have the same text but different queries (their scored texts would be
#' the same, so such suites must be evaluated in separate tasks). A server that can't give
#' the log-probabilities the backend needs stops the run before its queries are sent, after
#' at most 3 requests (`predictivebench_error_logprobs_unsupported`, naming what it lacks and
#' what to do: at a chat-only server such as Ollama's, `backend = "chat"`), as do
#' log-probabilities that can't be a model's (`predictivebench_error_logprobs_broken`: every
#' prompt token at one value, as the broken echo of llama.cpp-style servers gives, broken
#' offsets, tokens that do not spell the text sent) and a server that does not answer the
#' first request (`predictivebench_error_logprobs_probe`). Other
#' problems with a single request or response (HTTP errors, a query span that does not
#' match) never stop a run: they are in the metadata's `errors`.
#'
#' @inheritParams task-table-args
#' @inheritParams task-args
#' @param dataset A task table from `probsem_dataset()`.
#' @param backend `"completions"` (the default, the original's method) or `"chat"` (the
#'   first-token approximation, for chat-only providers: each query is scored by the
#'   log-probability of its first token among the answer's top alternatives).
#' @param norm Length normalization of the summed log-probability: `"none"` (the default),
#'   `"tokens"` (the original's `--norm`: divide by the query's token count) or `"sqrt"`.
#'   `TRUE`/`FALSE` mean `"tokens"`/`"none"`.
#' @param temperature Scores are divided by it before the softmax (the original's `--temp`,
#'   default 1).
#' @param solver,scorer A solver and scorer, by default `probsem_solver()` and
#'   `probsem_scorer()`. The task gives the solver its dataset (each context's queries).
#' @param epochs Passed to [vitals::Task]; scores are deterministic and cached, so more
#'   epochs only repeat them.
#' @inheritParams query_logprobs
#' @returns `probsem_dataset()` a tibble; `probsem_solver()` and `probsem_scorer()`
#'   functions for [vitals::Task]; `probsem_task()` a [vitals::Task].
#' @family probsem
#' @export
#' @examples
#' probsem_dataset(version = "sample")
#' tsk <- probsem_task(probsem_dataset(version = "sample"), dir = tempfile())
#' tsk
#' \dontrun{
#' # With a local OpenAI-compatible server (e.g. `vllm serve Qwen/Qwen2.5-0.5B`):
#' chat <- ellmer::chat_openai_compatible(base_url = "http://localhost:8000/v1",
#'                                        model = "Qwen/Qwen2.5-0.5B",
#'                                        credentials = function() "none")
#' tsk$eval(solver_chat = chat, view = FALSE)
#' probsem_summary(tsk)
#' }
probsem_task <- function(dataset = probsem_dataset(), solver = probsem_solver(),
                         scorer = probsem_scorer(), epochs = NULL,
                         dir = vitals::vitals_log_dir(), name = "probsem") {
  dataset <- validate_task_table(dataset, "probsem")
  check_probsem_inputs(dataset)
  fields <- c("prompt", "suite", "context_index", "text", "expected",
              intersect("human_judgements", names(dataset)))
  benchmark_task(probsem_vitals_dataset(dataset), solver, scorer, epochs = epochs, dir = dir,
                 benchmark = "probsem", options = task_options(name, metadata_fields = fields))
}

# vitals needs a string target: a context without ground truth gets "" (scored NA). Every scored
# text starts with the same prompt, so the viewer's `input` is the context's own text and queries
# and the scored text moves to `scored_text`.
probsem_vitals_dataset <- function(dataset) {
  dataset$target[is.na(dataset$target)] <- ""
  dataset$scored_text <- dataset$input
  dataset$input <- vapply(seq_len(nrow(dataset)), function(i) {
    queries <- paste0("- ", dataset$queries[[i]], collapse = "\n")
    context <- if (nzchar(dataset$text[[i]])) dataset$text[[i]] else "(no context text)"
    paste0(context, "\n\nQueries:\n", queries)
  }, "")
  dataset
}

#' @rdname probsem_task
#' @export
probsem_dataset <- function(path = NULL, version = NULL, limit = NULL, shuffle = FALSE) {
  table <- benchmark_dataset("probsem", path, limit = limit,
                             shuffle = shuffle, version = version)
  if (is.null(path) && !is_sample(version)) table <- probsem_add_humans(table, version)
  table
}

# The paper's human judgements of each context's sentence, for a version that pins them
# (`<prompt>_<experiment>_human_results.csv`), as list column `human_judgements`; the log keeps
# it, so a log's summary is the task's.
probsem_add_humans <- function(table, version = NULL) {
  rows <- version_files("probsem", version)
  rows <- rows[rows$role == "humans", , drop = FALSE]
  if (!nrow(rows)) return(table)
  files <- fetch_version(rows)
  table$human_judgements <- rep(list(double()), nrow(table))
  for (i in seq_len(nrow(rows))) {
    prompt <- sub("_[^_]+_human_results[.]csv$", "", basename(rows$path[[i]]))
    judgements <- probsem_read_humans(files[[i]])
    mine <- which(table$prompt == prompt)
    table$human_judgements[mine] <- lapply(table$text[mine], function(text) {
      judgements$value[judgements$text == text]
    })
  }
  table
}

#' @rdname probsem_task
#' @export
probsem_solver <- function(backend = c("completions", "chat"),
                           norm = "none", temperature = 1, span_check = TRUE, max_tokens = 0,
                           top_logprobs = 20, system_prompt = logprob_chat_system_prompt,
                           settings = NULL) {
  backend <- rlang::arg_match(backend)
  norm <- logprob_norm_arg(norm)
  logprob_normalize(0, 1, norm, temperature)
  check_flag(span_check)
  settings <- as_request_settings(settings)
  force(list(max_tokens, top_logprobs, system_prompt))
  # Each context's queries come from the task's dataset, which probsem_task() binds.
  dataset_solver(function(inputs, rows, ..., solver_chat = NULL) {
    solver_chat <- check_logprob_chat(solver_chat, backend)
    if (!is_bound(rows)) unbound_solver_error("probsem")
    queries <- rows$queries
    # probsem_task() shows each context's own text as the input, and scores `scored_text`
    shown <- NULL
    if ("scored_text" %in% names(rows)) {
      shown <- rows$input
      inputs <- rows$scored_text
    }
    pairs <- tibble::tibble(
      sample = rep(seq_along(inputs), lengths(queries)),
      prefix = rep(inputs, lengths(queries)),
      query = unlist(queries, use.names = FALSE)
    )
    key <- paste(nchar(pairs$prefix), pairs$prefix, pairs$query)
    first <- !duplicated(key)
    scored <- query_logprobs(
      solver_chat, pairs$prefix[first], pairs$query[first], backend = backend,
      span_check = span_check,
      max_tokens = max_tokens, top_logprobs = top_logprobs, system_prompt = system_prompt,
      settings = settings_with_dots(settings, ...)  # `$eval(max_active = 50)`, say
    )
    scored <- scored[match(key, key[first]), ]
    # A pair scored once for several samples (epochs) costs nothing the second time.
    scored[!first, c("input_tokens", "output_tokens", "cost")] <- 0
    # The chat each sample is logged with is the one its requests went to (both backends).
    template <- solver_chat
    model_name <- template$get_model_object()@name
    metadata <- lapply(seq_along(inputs), function(i) {
      rows <- which(pairs$sample == i)
      s <- scored[rows, ]
      logp <- logprob_normalize(s$logp, s$n_tokens, norm, temperature)
      c(list(queries = s$query, logp_raw = s$logp, n_tokens = s$n_tokens, logp = logp,
             prob = logprob_softmax(logp), errors = s$error, backend = backend,
             model = model_name, norm = norm, temperature = temperature),
        usage_metadata(scored, rows))
    })
    result <- vapply(metadata, function(m) {
      if (anyNA(m$prob)) NA_character_ else m$queries[[which.max(m$prob)]]
    }, "")
    failed <- vapply(metadata, function(m) {
      e <- m$errors[!is.na(m$errors)]
      if (length(e)) e[[1]] else NA_character_
    }, "")
    report_failures(failed, what = "context", hint = probsem_failure_hint(scored))
    chats <- lapply(seq_along(inputs), function(i) {
      probsem_chat(template, inputs[[i]], result[[i]], metadata[[i]], shown[i])
    })
    list(result = result, solver_chat = chats, solver_metadata = metadata)
  })
}

# A request that failed has no token count; a pair with one was answered, and its error says
# what was wrong with the answer, which no API key would fix.
probsem_failure_hint <- function(scored) {
  failed <- !is.na(scored$error)
  if (!any(failed) || anyNA(scored$n_tokens[failed])) return(NULL)
  "The endpoint answered every request; the first error says why its answers could not be scored."
}

# Two contexts with the same text must have the same queries: the scored text is the
# context's `input`, so their results could not be told apart.
check_probsem_inputs <- function(dataset, call = rlang::caller_env()) {
  for (k in unique(dataset$input[duplicated(dataset$input)])) {
    found <- unique(dataset$queries[dataset$input == k])
    if (length(found) > 1) {
      abort_pb(
        c("Two contexts have the same text but different queries.",
          i = "Evaluate their suites in separate tasks."),
        "duplicate_input", row = which(dataset$input == k)[[2]], field = "queries",
        call = call
      )
    }
  }
  invisible(dataset)
}

# vitals logs every sample's conversation, with the tokens of its log-probability requests set
# here (query_logprobs() already counted them in session usage). `shown` goes first: vitals takes
# the log's input from the first user turn, which tells samples that share a prompt apart.
probsem_chat <- function(template, prefix, answer, usage, shown = NULL) {
  chat <- template$clone()
  contents <- list(ellmer::ContentText(prefix))
  if (length(shown) && !is.na(shown)) contents <- c(list(ellmer::ContentText(shown)), contents)
  chat$set_turns(list(
    ellmer::UserTurn(contents = contents),
    ellmer::AssistantTurn(contents = list(ellmer::ContentText(answer %|NA|% "")),
                          tokens = c(usage$input_tokens, usage$output_tokens, 0),
                          cost = usage$cost,
                          finish_reason = if (is.na(answer)) "error" else "stop")
  ))
  chat
}

# The sample dataset with made-up scores, shaped like an evaluated task's samples (for tests).
probsem_example_samples <- function() {
  samples <- probsem_dataset(version = "sample")
  samples$solver_metadata <- lapply(seq_len(nrow(samples)), function(i) {
    q <- samples$queries[[i]]
    # Made-up scores: the expected query (or the first) is a little more likely.
    raw <- -(seq_along(q) + nchar(q) / 10) - 1
    winner <- if (samples$expected[[i]] >= 0) samples$expected[[i]] + 1 else 1
    raw[[winner]] <- raw[[winner]] + 3
    list(queries = q, logp_raw = raw, n_tokens = rep(1L, length(q)), logp = raw,
         prob = logprob_softmax(raw), errors = rep(NA_character_, length(q)), cached = TRUE,
         backend = "example", model = "example-model", norm = "none", temperature = 1)
  })
  samples$result <- vapply(samples$solver_metadata, function(m) m$queries[[which.max(m$prob)]], "")
  samples
}
