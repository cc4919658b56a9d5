# A benchmark takes part in an audit through its S3 methods on its object's class,
# "<benchmark>_benchmark" (benchmark_audit(), benchmark_verdicts(),
# benchmark_panel_verdicts(), generics of R/benchmark-object.R): this file names none.

#' Audit a judge: biases and agreement, with intervals
#'
#' @description
#' Three of the benchmarks end in an LLM's verdict (DSBench's judge, FutureX's numeric judge,
#' the arena's pairwise judge, which makes every rating). `judge_audit()` says how far such a
#' judge can be trusted, as summary rows with intervals, one set per judged run in `x`:
#'
#' * **Pairwise judges** (an [arena_run()]):
#'   - `position_consistency`: the share of battles whose verdict survives swapping the two
#'     answers (ties count as a verdict). Where the run did not judge both orders
#'     (`position_swap = FALSE`), the swapped order is judged now, through the engine and the
#'     response cache (the same requests `position_swap = TRUE` sends, so a second audit, or
#'     a later run with `position_swap = TRUE`, pays nothing), by `judge`, or else the run's
#'     judge rebuilt from its `"provider/model"` label;
#'   - `first_position_win_rate`: the share of verdicts (both orders) won by the answer shown
#'     first, ties half;
#'   - `longer_answer_win_rate`: the share of verdicts won by the longer answer (in
#'     characters), ties half, battles of equal lengths left out;
#'   - `unreadable_verdicts`: the share of the verdicts the judge gave (both orders, failed
#'     requests left out) whose reply the prompt's format can't read (EloBench's `invalid`;
#'     a fair judge gives none, so any share whose interval excludes 0 is flagged); for a
#'     panel, also one row per member, its own verdicts;
#'   - `self_preference`: the points of the judge's own contestants (`self`, by default
#'     those named as the judge's model, or with its provider as prefix, such as
#'     `"openai/gpt-4o-mini"` for an `openai/gpt-4.1` judge) in their battles against the
#'     others; no row when no battle sets the judge's own against another.
#' * **Every judge**: agreement of its verdicts with `reference` labels (human or gold
#'   verdicts you give) and with `other` (the same items judged by another judge), as
#'   `percent_agreement`, `cohen_kappa` and `krippendorff_alpha` (nominal); and what a benchmark can check itself: for DSBench, agreement of the
#'   judge (correct or not) with the exact match on questions whose answer is a number; for
#'   FutureX, agreement of the numeric judge's scores (to two decimals, on the numeric items
#'   whose values it gave) with the plain parse of the answer, the reference's rule without
#'   a judge.
#' * **Panels** (a list of judges, whose every member's verdict the log keeps): the run is
#'   audited as the panel's (its majority verdicts), and every two members are compared with
#'   each other (agreement rows whose `group` is one member and `compared_with` the other).
#'   A pairwise panel's run that judged one order needs the panel given again as `judge`
#'   (its members are not rebuilt from the log).
#'
#' Proportions have 95% normal intervals clustered by question (an arena's battles and both
#' orders of a battle share their question; a Wilson interval when every value sits at 0 or
#' 1); agreement statistics a percentile bootstrap resampling whole samples (all epochs of
#' a sample, or all battles of a question), seeded. Each row also says the value a fair
#' judge gives (`fair`: 1 for consistency, 0.5 for the win rates) and whether the interval
#' excludes it (`flagged`); agreement has no fair value (`NA`): read kappa and alpha against
#' your own bar (0.8 is a common one for alpha).
#'
#' Verdicts a judge failed to give (a failed request, an unreadable reply) are left out of
#' every statistic. A log a judge did not score (a benchmark without a judge) is left out,
#' with a message.
#'
#' @param x What was judged: an evaluated task (`<bench>_task()`), an [arena_run()] result,
#'   a log file, a folder of logs, an evaluation set's folder ([eval_set()]'s `log_dir`: its
#'   completed runs) or its result (the cells' logs).
#' @param judge For pairwise judges whose run judged one order only: the chat that judges
#'   the swapped order (the run's own judge; a chat, `"provider/model"`, or a list of them
#'   for a panel). `NULL`: the run's
#'   judge rebuilt from its label in the log, at the base URL the log keeps (a run's log
#'   keeps its judge's base URL, never its key). At the provider's own host the provider's
#'   default credentials are used, such as `OPENAI_API_KEY`; at any other host the log
#'   names, none (your key never goes to a host a log names: a local server needs none).
#'   A judge is rebuilt only where it ran, never at its provider's default host: a
#'   [baseline_chat()], a judge whose server needs a key, and one whose URL the log does not
#'   keep (one holding a user, a password, a query or a key, or a log older than the URL
#'   field) must be given, or the audit stops with an error (class
#'   `predictivebench_error_argument`) before sending anything. A panel's log always needs
#'   the panel given again (the same list of chats): its members' addresses are not kept.
#' @param reference Reference labels (human or gold verdicts) to compare each run's verdicts
#'   with: a vector with one label per verdict, in the order of the run's samples (the
#'   arena: its battles, labelled `"model_a"`, `"model_b"`, `"tie"`, ...; DSBench: `TRUE`
#'   for a correct answer), or a data frame with `id` (the sample's id, and `epoch` when
#'   runs have several) and `reference`. `NULL` for none.
#' @param other Another judge's verdicts on the same items: anything `x` can be (for
#'   example a log rescored with another judge). Its verdicts are matched to `x`'s by
#'   sample (the arena: by question and models). `NULL` for none.
#' @param self For pairwise judges: the names of the contestants that are the judge's own
#'   (its model or provider). `NULL`: told from the judge's label.
#' @param settings How swapped orders are sent: a [request_settings()] object, or `NULL`
#'   for the defaults (the package's response cache).
#' @param level,times,seed Interval level; bootstrap resamples and seed for the agreement
#'   intervals (the global random stream is left untouched).
#' @returns A tibble of class `judge_audit`: `group` (the judge, `"provider/model"`, or
#'   `"panel(a, b)"`; a member for the agreement of a panel's members),
#'   `metric`, `estimate`, `lower`, `upper`, `n` (battles, verdicts or items behind the
#'   estimate), then `compared_with` (`NA`, `"reference"`, `"exact match"` or the other
#'   judge), `fair`, `flagged`, `benchmark` and `source` (the log, `NA` for a task without
#'   one). `ggplot2::autoplot()` draws it.
#' @family results
#' @export
#' @examples
#' # offline: three contestants and a judge that always picks the first answer
#' models <- list(
#'   verbose = baseline_chat(function(q) paste("A long and careful answer to:", q), "verbose"),
#'   terse = baseline_chat(function(q) "Ok.", "terse"),
#'   middle = baseline_chat(function(q) "Ok, an answer.", "middle")
#' )
#' judge <- baseline_chat('{"winner": 1, "explanation": "The first is better."}', "first")
#' questions <- data.frame(question = paste("Question", 1:6))
#' run <- arena_run(models, judge, dataset = questions, dir = tempfile("logs-"),
#'                  options = arena_options(n = 3, ratings = rating_options("elo", 50)))
#' # the run judged one order: the audit judges the swapped order with the same judge
#' audit <- judge_audit(run, judge = judge)
#' audit[c("metric", "estimate", "lower", "upper", "n", "flagged")]
#' if (rlang::is_installed("ggplot2")) ggplot2::autoplot(audit)
judge_audit <- function(x, judge = NULL, reference = NULL, other = NULL, self = NULL,
                        settings = NULL, level = 0.95, times = 1000, seed = 1) {
  judge <- check_judge(judge, allow_null = TRUE)
  if (!is.null(self)) check_strings(self)
  check_number(level)
  check_count(times)
  check_number(seed)
  opts <- list(judge = judge, self = self,
               settings = as_request_settings(settings %||% request_settings()),
               level = level, times = times, seed = seed)
  runs <- judged_runs(x)
  others <- if (!is.null(other)) judged_runs(other)
  compared <- if (length(others)) {
    list(verdicts = do.call(rbind, lapply(others, judged_verdicts)),
         label = paste(unique(vapply(others, `[[`, "", "label")), collapse = ", "))
  }
  rows <- lapply(runs, run_audit_rows, opts = opts, reference = reference, other = compared)
  out <- do.call(rbind, c(list(empty_audit()), rows))
  if (!nrow(out)) {
    abort_pb(c("Nothing judged to audit in {.arg x}.",
               i = "Give a judged task or run, a log of one, or a folder of them."),
             "argument")
  }
  structure(out, class = c("judge_audit", class(out)),
            interval = judge_audit_interval(level))
}

run_audit_rows <- function(run, opts, reference, other) {
  rows <- list(audit_judged(run, opts), panel_agreement_rows(run, opts))
  if (is.null(reference) && is.null(other)) return(do.call(rbind, rows))
  verdicts <- judged_verdicts(run)
  if (!is.null(reference)) {
    labels <- reference_labels(reference, verdicts)
    rows <- c(rows, list(agreement_rows(run, verdicts, labels, "reference", opts)))
  }
  if (!is.null(other)) {
    labels <- other$verdicts$verdict[match(verdicts$key, other$verdicts$key)]
    rows <- c(rows, list(agreement_rows(run, verdicts, labels, other$label, opts)))
  }
  do.call(rbind, rows)
}

judge_audit_interval <- function(level) {
  paste0(format(level * 100), "% interval (normal, clustered; agreement: bootstrap)")
}

# ---- Judged runs ----------------------------------------------------------------------------

#' Judged runs of anything judge_audit() takes
#'
#' `judged_runs()` turns `x` into a list of judged runs; a benchmark whose results are
#' objects of their own (the arena's `arena_run`) adds a method that returns what the
#' default takes (its log's path).
#' @param x See [judge_audit()].
#' @returns A list of judged runs.
#' @keywords internal
#' @noRd
judged_runs <- function(x) UseMethod("judged_runs")

#' @export
judged_runs.default <- function(x) {
  abort_pb(c("{.arg x} must be a judged task or run, a log file or a folder of logs,
              not {.obj_type_friendly {x}}."), "argument")
}

#' @export
judged_runs.Task <- function(x) {
  benchmark <- if (inherits(x, "ResultsTask")) x$benchmark
  samples <- x$get_samples()
  if (is.null(benchmark) || !"score" %in% names(samples)) {
    abort_pb("A task must be a package benchmark's task, evaluated first.", "argument")
  }
  source <- if (inherits(x, "ResultsTask")) x$log_path %||% NA_character_ else NA_character_
  header <- if (!is.na(source) && file.exists(source)) read_log_header(source)
  label <- audited_judge_label(samples, header)
  if (is.na(label)) return(list())
  list(new_judged_run(samples, benchmark, header, source, label))
}

#' @export
judged_runs.data.frame <- function(x) {
  if (!"log_path" %in% names(x)) {
    abort_pb("{.arg x} must be an evaluation set's result (a {.field log_path} column), a
              judged task or run, a log file or a folder of logs.", "argument")
  }
  paths <- unique(x$log_path[!is.na(x$log_path)])
  if (!length(paths)) return(list())
  judged_runs.character(paths)
}

#' @export
judged_runs.character <- function(x) {
  runs <- list()
  unjudged <- character()
  seen <- character()
  for (path in log_files(x, attempts = FALSE)) {
    header <- read_log_header(path)
    benchmark <- header$eval$metadata$benchmark
    if (is.null(benchmark)) {
      unjudged <- c(unjudged, path)
      next
    }
    # a run whose log is in several files (an arena run's parts) is one run, read once
    run <- log_part_paths(path, header)[[1]]
    if (run %in% seen) next
    seen <- c(seen, run)
    samples <- log_run_samples(path)
    label <- if (nrow(samples)) audited_judge_label(samples, header) else NA_character_
    if (is.na(label)) {
      unjudged <- c(unjudged, path)
      next
    }
    runs[[length(runs) + 1L]] <- new_judged_run(samples, benchmark, header, run, label)
  }
  if (length(unjudged)) {
    cli::cli_inform(c(i = "Left out {length(unjudged)} log{?s} without a judge:
                           {.file {basename(unjudged)}}."),
                    class = "predictivebench_message_unjudged")
  }
  runs
}

new_judged_run <- function(samples, benchmark, header, source, label) {
  label <- panel_label(samples) %||% label
  structure(list(samples = samples, benchmark = benchmark, header = header, source = source,
                 label = label),
            class = "judged_run")
}

# "provider/model", from the scorer's chat, else the model its name gives ("<scorer>
# (<model>)") completed from the log's usage; NA without a judge.
audited_judge_label <- function(samples, header = NULL) {
  chats <- samples[["scorer_chat"]]
  if (is.list(chats)) {
    chat <- Find(function(c) inherits(c, "Chat"), chats)
    if (!is.null(chat)) return(chat_model_label(chat))
  }
  scorer <- c(samples[["scorer"]], header$eval$scorers[[1]]$name)
  scorer <- scorer[!is.na(scorer)]
  model <- if (length(scorer)) sub("^[^(]*\\((.*)\\)\\s*$", "\\1", scorer[[1]])
  usage <- names(header$stats$model_usage)
  if (!length(model) || identical(model, scorer[[1]]) || !nzchar(model)) {
    judges <- setdiff(usage, header$eval$model)
    return(if (length(judges) == 1) judges else NA_character_)
  }
  known <- usage[endsWith(usage, paste0("/", model))]
  if (length(known)) known[[1]] else model
}

# Kept in the log so that a judge at a server of its own can be rebuilt (rebuilt_judge()).
# Never a secret: no URL holding credentials, a query, a fragment or a header's value; the
# key itself is not read to check.
logged_base_url <- function(judge) {
  if (!inherits(judge, "Chat") || inherits(judge, "BaselineChat")) return(NULL)
  provider <- judge$get_provider()
  url <- tryCatch(provider@base_url, error = function(e) NULL)
  if (!rlang::is_string(url) || !nzchar(url)) return(NULL)
  if (!keepable_url(url)) return(NULL)
  headers <- as.character(unlist(tryCatch(provider@extra_headers, error = function(e) NULL)))
  headers <- headers[nchar(headers) >= 6]
  if (any(vapply(headers, function(h) grepl(h, url, fixed = TRUE), TRUE))) return(NULL)
  url
}

# Gateways take keys in a URL's user, password, query or fragment.
keepable_url <- function(url) {
  parts <- tryCatch(httr2::url_parse(url), error = function(e) NULL)
  !is.null(parts) && !is.null(parts$hostname) && is.null(parts$username) &&
    is.null(parts$password) && !length(parts$query) && is.null(parts$fragment)
}

# ---- What a benchmark says about its judge ---------------------------------------------------

# A benchmark's part of an audit, dispatched on the run's benchmark object (NULL for one not
# registered in this session: the defaults). audit_judged(): the rows it computes about its
# own judge (the arena: position, length and self-preference), none by default.
# judged_verdicts(): the run's verdicts for agreement, a tibble with `id` (the sample, as
# logged), `epoch`, `key` (what matches the same item in another judge's run), `verdict` (a
# label, NA where the judge gave none) and `cluster`; by default each sample's score as text.
# panel_verdicts(): samples x members labels, or NULL where the benchmark does not say which
# is its verdict.
audit_judged <- function(run, opts) {
  benchmark_audit(benchmark_named(run$benchmark), run, opts) %||% empty_audit()
}

judged_verdicts <- function(run) {
  benchmark_verdicts(benchmark_named(run$benchmark), run) %||% score_verdicts(run)
}

panel_verdicts <- function(run) benchmark_panel_verdicts(benchmark_named(run$benchmark), run)

panel_label <- function(samples) {
  if (!nrow(samples)) return(NULL)
  json <- panel_json_field(samples)
  first <- json[!is.na(json)][1]
  if (is.na(first)) return(NULL)
  paste0("panel(", paste(unique(panel_judges(first)$judge), collapse = ", "), ")")
}

panel_matrix <- function(samples, field) {
  json <- panel_json_field(samples)
  if (all(is.na(json))) return(NULL)
  members <- panel_judges(json)
  if (!nrow(members) || !field %in% names(members)) return(NULL)
  judges <- unique(members$judge)
  out <- matrix(NA_character_, length(json), length(judges), dimnames = list(NULL, judges))
  value <- members[[field]]
  out[cbind(members$sample, match(members$judge, judges))] <-
    if (is.logical(value)) normalise_label(value) else as.character(value)
  out
}

# A pairwise judge's run keeps its judging in the solver's metadata.
panel_json_field <- function(samples) {
  field <- function(meta) {
    if (is.null(meta)) return(rep(NA_character_, nrow(samples)))
    vapply(meta, function(m) {
      value <- m[["judges"]]
      if (is.character(value) && length(value) == 1) value else NA_character_
    }, "")
  }
  json <- field(samples[["scorer_metadata"]])
  if (all(is.na(json))) json <- field(samples[["solver_metadata"]])
  json
}

panel_agreement_rows <- function(run, opts) {
  verdicts <- panel_verdicts(run)
  if (is.null(verdicts) || ncol(verdicts) < 2) return(empty_audit())
  cluster <- judged_verdicts(run)$cluster
  pairs <- utils::combn(colnames(verdicts), 2, simplify = FALSE)
  rows <- lapply(pairs, function(pair) {
    member <- run
    member$label <- pair[[1]]
    table <- list(verdict = verdicts[, pair[[1]]], cluster = cluster)
    agreement_rows(member, table, verdicts[, pair[[2]]], pair[[2]], opts)
  })
  do.call(rbind, rows)
}

score_verdicts <- function(run) {
  samples <- run$samples
  score <- suppressWarnings(as.double(samples$score))
  verdicts_table(samples$id, samples[["epoch"]] %||% rep(1L, nrow(samples)),
                 ifelse(is.na(score), NA_character_, as.character(score)))
}

verdicts_table <- function(id, epoch, verdict, key = NULL, cluster = id) {
  id <- as.character(id)
  epoch <- as.integer(epoch)
  tibble::tibble(id = id, epoch = epoch, key = key %||% paste(id, epoch, sep = "\r"),
                 verdict = as.character(verdict), cluster = as.character(cluster))
}

# ---- Rows -------------------------------------------------------------------------------------

empty_audit <- function() {
  tibble::tibble(group = character(), metric = character(), estimate = double(),
                 lower = double(), upper = double(), n = integer(),
                 compared_with = character(), fair = double(), flagged = logical(),
                 benchmark = character(), source = character())
}

proportion_audit_row <- function(run, metric, values, cluster, fair, opts) {
  keep <- !is.na(values)
  ci <- mean_ci(as.double(values[keep]), level = opts$level, limits = c(0, 1),
                cluster = if (any(keep)) as.character(cluster[keep]))
  audit_rows(run, metric, ci$mean, ci$lower, ci$upper, ci$n, NA_character_, fair)
}

audit_rows <- function(run, metric, estimate, lower, upper, n, compared_with, fair) {
  flagged <- !is.na(fair) & !is.na(lower) & !is.na(upper) & (fair < lower | fair > upper)
  tibble::tibble(group = run$label, metric = metric, estimate = as.double(estimate),
                 lower = as.double(lower), upper = as.double(upper), n = as.integer(n),
                 compared_with = compared_with, fair = as.double(fair), flagged = flagged,
                 benchmark = run$benchmark, source = run$source %||% NA_character_)
}

agreement_rows <- function(run, verdicts, labels, compared_with, opts) {
  rows <- agreement_summary(verdicts$verdict, labels, cluster = verdicts$cluster,
                            level = opts$level, times = opts$times, seed = opts$seed)
  audit_rows(run, rows$metric, rows$estimate, rows$lower, rows$upper, rows$n, compared_with,
             NA_real_)
}

reference_labels <- function(reference, verdicts, call = rlang::caller_env()) {
  if (is.data.frame(reference)) {
    if (!all(c("id", "reference") %in% names(reference))) {
      abort_pb("{.arg reference} must have the columns {.field id} and {.field reference}.",
               "argument", field = "reference", call = call)
    }
    key <- if ("epoch" %in% names(reference)) {
      paste(reference$id, reference$epoch, sep = "\r")
    } else {
      paste(reference$id, 1L, sep = "\r")
    }
    epochs <- if ("epoch" %in% names(reference)) verdicts$epoch else rep(1L, nrow(verdicts))
    labels <- normalise_label(reference$reference)
    return(labels[match(paste(verdicts$id, epochs, sep = "\r"), key)])
  }
  if (!is.atomic(reference) || length(reference) != nrow(verdicts)) {
    abort_pb("{.arg reference} must have one label per verdict ({nrow(verdicts)}), or be a
              data frame with {.field id} and {.field reference}.", "argument",
             field = "reference", call = call)
  }
  normalise_label(reference)
}

normalise_label <- function(x) {
  if (is.logical(x)) return(ifelse(x, "correct", "incorrect"))
  as.character(x)
}

#' @export
print.judge_audit <- function(x, ...) {
  cli::cat_line(cli::format_inline(
    "{.strong Judge audit}: {attr(x, 'interval')}; flagged: ",
    "the interval excludes a fair judge's value."
  ))
  print(tibble::as_tibble(unclass_audit(x)), ...)
  invisible(x)
}

unclass_audit <- function(x) {
  class(x) <- setdiff(class(x), "judge_audit")
  x
}
