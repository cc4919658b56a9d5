# The log of a ResultsTask's run as data: its samples with the package's additions (flat
# metadata, exact scores, every request's usage) and its header.

# The log of a scored ResultsTask, as one list in Inspect's EvalLog shape (see
# R/log-samples.R for what it adds to vitals' own): the samples (log_samples_of()), then the
# header built here. `$eval()` builds the same two parts a chunk at a time
# (results_log_chunk()) and once at the end (results_log_header()).
results_log <- function(task, fields, run_id) {
  samples <- task$get_samples()
  chunk <- results_log_chunk(task, samples, fields)
  header <- results_log_header(task, samples, fields, run_id, usage = chunk$usage,
                               json = chunk$json)
  c(header, list(samples = chunk$samples))
}

# A scored chunk of samples in Inspect's EvalSample form, with predictivebench's additions,
# and what the header needs of them: their model usage (Inspect's ModelUsage per model) and
# the names of the metadata fields written as JSON text. `json` holds the fields earlier
# chunks wrote as JSON, so that a field keeps one type across the log.
results_log_chunk <- function(task, samples, fields,
                              json = list(solver = character(), scorer = character())) {
  n <- nrow(samples)
  solver_meta <- if ("solver_metadata" %in% names(samples)) samples$solver_metadata else
    vector("list", n)
  scorer_meta <- if ("scorer_metadata" %in% names(samples)) samples$scorer_metadata
  solver_flat <- sample_metadata(samples, fields, solver_meta, json$solver)
  scorer_flat <- if (!is.null(scorer_meta)) {
    sample_metadata(samples, character(), scorer_meta, json$scorer)
  }
  usage <- run_usage(samples, solver_meta, scorer_meta)

  bare <- samples
  bare$solver_chat <- usage$solver_chats
  state <- run_log_state(task)
  translated <- log_samples_of(bare, state$scores$name, state$timestamps)
  explanations <- if (all(c("scorer_chat", "scorer_explanation") %in% names(samples))) {
    as.character(samples$scorer_explanation)
  }
  scores <- as.double(samples$score)
  # each sample's score under the scorer's name as the header gives it (a panel's whole
  # name, where vitals' translation names the sample's chat's model: its first judge's)
  judge <- scorer_judge_name(samples)
  scorer_name <- if (!is.null(judge)) paste0(state$scores$name, " (", judge, ")")
  for (i in seq_len(n)) {
    translated[[i]] <- log_sample(translated[[i]], samples$id[[i]], scores[[i]],
                                  solver_flat[[i]], scorer_flat[[i]], usage$samples[[i]],
                                  explanations[i], scorer_name)
  }
  list(samples = translated, usage = usage$header,
       json = list(solver = union(json$solver, attr(solver_flat, "json")),
                   scorer = union(json$scorer, attr(scorer_flat, "json"))))
}

# The header's model usage of a log written in chunks: each chunk's (usage_entries()) added
# per model, in the order models first appear, the cost as known_cost() sums it (a chunk with
# tokens and no cost is unknown, and so is the total): the entries usage_entries() gives for
# all the samples at once.
add_usage <- function(total, usage) {
  cost_of <- function(entry) as.double(entry$total_cost %||% NA)
  for (model in names(usage)) {
    entry <- usage[[model]]
    before <- total[[model]]
    if (!is.null(before)) {
      cost <- known_cost(c(cost_of(before), cost_of(entry)),
                         c(before$total_tokens, entry$total_tokens))
      for (k in c("input_tokens", "output_tokens", "total_tokens")) entry[[k]] <- entry[[k]] + before[[k]]
      entry$total_cost <- na_null(cost)
    }
    total[[model]] <- entry
  }
  total
}

# The log's header: everything but the samples, from the scored samples (a ResultsTask's
# own, or the compact rows `$eval()` keeps), their model usage and JSON fields
# (results_log_chunk()), the task's run id and the log's creation time.
results_log_header <- function(task, samples, fields, run_id, usage, json,
                               created = log_timestamp(), task_id = NULL) {
  state <- run_log_state(task)
  n <- nrow(samples)
  scores <- as.double(samples$score)
  model <- task$model_label %||% chat_model_label(samples$solver_chat[[1]])
  scorer_name <- state$scores$name
  judge <- scorer_judge_name(samples)
  if (!is.null(judge)) scorer_name <- paste0(scorer_name, " (", judge, ")")
  values <- vapply(state$metric_results, function(m) as.double(m$value)[1], 1)
  computed <- names(values)[!is.na(values)]
  # The headline (the first metric) is always written, as "NaN" when undefined, so the log
  # list never shows another metric in its column; any other undefined metric is left out
  # (named in not_computed): vitals' log page fails on a metric that is not a number.
  logged <- names(values)[seq_along(values) == 1L | !is.na(values)]
  metrics <- lapply(logged, function(name) {
    list(name = name, value = metric_json(values[[name]]), params = empty_object())
  })
  names(metrics) <- logged
  ids <- unique(samples$id)
  task_id <- task_id %||% log_task_id(state, samples$solver_chat[[1]]$get_model(), run_id)
  epochs <- if ("epoch" %in% names(samples)) max(as.integer(samples$epoch)) else 1L
  list(
    version = 2L,
    status = "success",
    eval = list(
      run_id = run_id %||% unique_id(), created = created, task = task_id, task_id = task_id,
      task_version = 0L, task_file = "", task_attribs = empty_object(),
      task_args = empty_object(),
      dataset = list(name = state$dataset_name, samples = length(ids),
                     sample_ids = as.list(ids), shuffled = FALSE),
      model = model, model_args = empty_object(),
      config = list(epochs = epochs),
      revision = list(type = "git", origin = "https://github.com/UKGovernmentBEIS/inspect_ai.git",
                      commit = "9140d8a2"),
      packages = list(inspect_ai = "0.3.63",
                      vitals = as.character(utils::packageVersion("vitals")),
                      predictivebench = as.character(utils::packageVersion("predictivebench"))),
      metadata = list(
        benchmark = task$benchmark,
        predictivebench = as.character(utils::packageVersion("predictivebench")),
        dataset_fields = as.list(fields),
        solver_json = as.list(json$solver),
        scorer_json = as.list(json$scorer),
        not_computed = as.list(setdiff(names(values), computed))
      ),
      scorers = list(list(
        name = scorer_name, options = empty_object(),
        metrics = lapply(logged, function(name) list(name = name, options = empty_object())),
        metadata = empty_object()
      ))
    ),
    plan = list(name = "plan", steps = plan_steps(samples, state, model),
                config = empty_object()),
    results = list(
      total_samples = n, completed_samples = n,
      scores = list(list(name = scorer_name, scorer = scorer_name, params = empty_object(),
                         metrics = if (length(metrics)) metrics else empty_object(),
                         scored_samples = sum(!is.na(scores)),
                         unscored_samples = sum(is.na(scores))))
    ),
    stats = list(
      started_at = log_timestamp(state$timestamps$solve$started_at),
      completed_at = log_timestamp(state$timestamps$score$completed_at),
      model_usage = usage
    )
  )
}

# What the log reads of a ResultsTask's run (its `$run_state()`): the steps' records, the
# solver's arguments as the run described them (describe_arguments()) in place of their
# text, the timestamps, metric results, run id and dataset name.
run_log_state <- function(task) {
  state <- task$run_state()
  arguments <- state$solutions$arguments
  described <- state$solver_args
  keys <- intersect(rlang::names2(arguments), setdiff(names(described), ""))
  arguments[keys] <- described[keys]
  list(scores = state$scores, timestamps = state$timestamps,
       metric_results = state$metric_results, run_id = state$run_id,
       solver_name = state$solutions$name, solver_args = arguments,
       dataset_name = state$dataset_name)
}

# The log's task id, as vitals makes it: "<dataset>/<model>/<hash of the steps>", the run id
# in the hash (one id per run, see ResultsTask).
log_task_id <- function(state, model, run_id) {
  paste(state$dataset_name, model,
        substr(digest::digest(list(state$solver_name, state$solver_args,
                                   state$scores$name, run_id), algo = "sha256"),
               1, 22), sep = "/")
}

# One translated sample with predictivebench's additions: its own id, flat metadata, exact
# score (or none, when it is NA: see unscored_field), the scorer's explanation and the usage
# of every request it made.
log_sample <- function(sample, id, score, solver_flat, scorer_flat, usage, explanation,
                       scorer_name = NULL) {
  sample$id <- id
  if (!is.null(scorer_name) && length(sample$scores)) names(sample$scores)[[1]] <- scorer_name
  sample$metadata <- exact_fields(solver_flat)
  sample$model_usage <- usage
  entry <- sample$scores[[1]]
  grading <- entry$metadata["grading"]
  entry$metadata <- c(if (!is.null(grading[[1]])) grading, exact_fields(scorer_flat))
  if (!length(entry$metadata)) entry$metadata <- empty_object()
  if (length(explanation) && !is.na(explanation)) entry$explanation <- explanation
  if (is.na(score)) {
    entry$value <- NULL
    entry$scorer <- names(sample$scores)[[1]]
    sample$metadata[[unscored_field]] <- as.character(jsonlite::toJSON(
      entry, auto_unbox = TRUE, digits = NA, na = "null", json_verbatim = TRUE
    ))
    sample$scores <- NULL
  } else {
    entry$value <- exact_json(score)
    sample$scores[[1]] <- entry
  }
  sample
}

# Flat metadata per sample: the dataset's columns in `fields`, then the solver's (or
# scorer's) metadata; a metadata name that is also a field name gets the prefix "solver_".
# A field that is JSON text in one sample is JSON text in all (a single vote is "[2]", as
# eight are "[2,2,...]"), as is a list column of the dataset, so each field has one type in
# the viewer and one reading back; the JSON fields' names are in the `json` attribute. `json`
# names fields that are JSON text already (in a chunk written before).
sample_metadata <- function(samples, fields, meta, json = character()) {
  columns <- lapply(fields, function(f) samples[[f]])
  names(columns) <- fields
  flats <- lapply(seq_len(nrow(samples)), function(i) {
    own <- meta[[i]]
    if (!is.null(own) && !is.list(own)) own <- list(value = own)
    clash <- intersect(names(own), fields)
    if (length(clash)) names(own)[match(clash, names(own))] <- paste0("solver_", clash)
    flat_metadata(c(lapply(columns, function(col) col[[i]]), own))
  })
  list_columns <- fields[vapply(columns, is.list, TRUE)]
  json <- unique(c(json, list_columns, unlist(lapply(flats, attr, "json"))))
  for (i in seq_along(flats)) {
    for (name in setdiff(intersect(json, names(flats[[i]])), attr(flats[[i]], "json"))) {
      flats[[i]][[name]] <- metadata_json(flats[[i]][[name]])
    }
  }
  structure(flats, json = json)
}

# A task's own additions to its log's `eval` header (its `log_eval` field): metadata fields
# added to the header's, other fields set.
add_log_eval <- function(eval, extra) {
  if (!length(extra)) return(eval)
  meta <- extra$metadata
  eval$metadata[names(meta)] <- meta
  rest <- extra[setdiff(names(extra), "metadata")]
  eval[names(rest)] <- rest
  eval
}

# The plan's steps: the system prompt (when there is one) and the solver, named as the task
# names it, with its arguments as an object (unnamed arguments get their position).
plan_steps <- function(samples, state, model) {
  args <- state$solver_args %||% list()
  if (length(args)) {
    keys <- names(args) %||% rep("", length(args))
    keys[!nzchar(keys)] <- paste0("arg", which(!nzchar(keys)))
    names(args) <- keys
  } else {
    args <- empty_object()
  }
  steps <- list(list(solver = paste0(state$solver_name, " (", model, ")"), params = args))
  prompt <- samples$solver_chat[[1]]$get_system_prompt()
  if (!is.null(prompt)) {
    steps <- c(list(list(solver = "system_message", params = list(template = prompt))), steps)
  }
  steps
}
