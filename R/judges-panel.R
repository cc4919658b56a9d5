# A single judge is never a panel: check_judge() hands it back as the chat it is, so every
# benchmark's single-judge path stays as it was.

#' Check a judge: a chat, a `"provider/model"` string, or a list of them (a panel)
#'
#' @param x A judge: an ellmer chat, a `"provider/model"` string, or a list of these.
#' @param arg,call For the error message.
#' @param allow_null Whether `NULL` (no judge) is accepted.
#' @returns `NULL` (when allowed), a chat, or a `judge_panel`: a list of two or more chats
#'   named by their labels (`judge_models()`).
#' @noRd
check_judge <- function(x, arg = rlang::caller_arg(x), allow_null = FALSE,
                        call = rlang::caller_env()) {
  if (allow_null && is.null(x)) return(NULL)
  if (is_judge_panel(x)) return(x)
  if (!is.list(x) || is.object(x)) return(as_chat(x, arg = arg, call = call))
  if (!length(x)) {
    abort_pb(c("{.arg {arg}} is an empty list: a panel needs at least one judge.",
               i = "Give a chat, or a list of chats for a panel of judges."),
             "argument", call = call)
  }
  members <- lapply(seq_along(x), function(i) {
    as_chat(x[[i]], arg = paste0(arg, "[[", i, "]]"), call = call)
  })
  if (length(members) == 1L) return(members[[1]])
  check_distinct_judges(members, arg, call)
  new_judge_panel(members)
}

# Said in the words of where the run was started, naming only what the user can call; a set
# (`before_set`) or a task (`before_run`) refuses before anything is paid.
abort_no_judge <- function(what, bench, dots, call = rlang::caller_env(), before_set = FALSE,
                           before_run = FALSE) {
  set_judge <- "{.code eval_set(..., judge = )}, a chat or a {.val provider/model} string such as {.val openai/gpt-4o}, or a list of them (a panel of judges)"
  sent <- if (before_set || before_run) {
    c(i = "Nothing was sent.")
  } else {
    c(i = "The answers are kept in the response cache: the next call pays only for the judgements.")
  }
  how <- if (before_set) {
    c(i = paste0("Give the set a judge: ", set_judge, "."))
  } else if (inherits(dots$run, "predictivebench_run")) {
    c(i = paste0("A benchmark given by name takes the set's judge: ", set_judge, "."),
      i = "A task object keeps its own scorer: give it its judge, {.code {bench}_task(judge = )}.")
  } else {
    c(i = "Give it as {.code {bench}_task(judge = )}, {.code {bench}_scorer(scorer_chat = )} or {.code $eval(scorer_chat = )}: a chat or a {.val provider/model} string such as {.val openai/gpt-4o}, or a list of them (a panel of judges).")
  }
  abort_pb(c(what, how, sent), "argument", call = call)
}

# The attribute `predictivebench_judge` tells `$eval()` the scorer's judge before anything
# is sent, so a missing judge is refused before the answers are paid, not after.
with_judge <- function(scorer, default_chat, needed = NULL, bench = NULL) {
  force(default_chat)
  attr(scorer, "predictivebench_judge") <- function(..., scorer_chat = default_chat) {
    if (is.null(scorer_chat) && !is.null(needed)) {
      abort_no_judge(needed, bench, list(...), before_run = TRUE)
    }
    judge_members(check_judge(scorer_chat, allow_null = TRUE))
  }
  scorer
}

# Said, not retried: asking again brings the same replies from the response cache.
warn_unreadable_verdicts <- function(counts, total, what, consequence) {
  counts <- counts[counts > 0]
  if (!length(counts)) return(invisible())
  said <- paste0(names(counts), " gave no readable verdict in ", counts, " of ", total, " ",
                 what, ifelse(total == 1, "", "s"), ".")
  said <- gsub("([{}])", "\\1\\1", said)  # a name is text, not cli markup
  cli::cli_warn(
    c(stats::setNames(said, rep("!", length(said))),
      i = consequence,
      i = "Asking again brings the same replies from the response cache: look at the
           judge's replies (the log, {.fn vitals::vitals_view}) and the format its prompt
           asks for."),
    class = "predictivebench_warning_unreadable_verdicts", unreadable = counts
  )
}

new_judge_panel <- function(members) {
  names(members) <- judge_member_labels(members)
  structure(members, class = "judge_panel")
}

is_judge_panel <- function(x) inherits(x, "judge_panel")

# Two members that send the same request get the same answer from the response cache: one
# judge would count twice. (Two chats of one model with other parameters are two judges.)
check_distinct_judges <- function(members, arg, call) {
  ids <- vapply(members, function(chat) {
    if (inherits(chat, "BaselineChat")) return(digest::digest(list("baseline", chat)))
    digest::digest(request_identity(chat), algo = "sha256")
  }, "")
  twice <- which(duplicated(ids))
  if (length(twice)) {
    abort_pb(c("{.arg {arg}}[[{twice[[1]]}]] is the same judge as an earlier one: its
                verdicts would be the other's, read from the response cache.",
               i = "A panel's judges must differ (model, provider, address or parameters)."),
             "argument", call = call)
  }
}

judge_members <- function(judge) {
  if (is.null(judge)) return(list())
  if (is_judge_panel(judge)) return(unclass(judge))
  list(judge)
}

#' The names of a judge's members: each chat's model, made unique in order (`"gpt-4o"`,
#' `"gpt-4o#2"`) when two members share a model name (with other parameters or addresses).
#' @noRd
judge_models <- function(judge) {
  if (is_judge_panel(judge)) return(names(judge))
  judge_member_labels(judge_members(judge))
}

judge_member_labels <- function(members) {
  models <- vapply(members, function(chat) chat$get_model(), "")
  seen <- stats::ave(seq_along(models), models, FUN = seq_along)
  ifelse(seen > 1L, paste0(models, "#", seen), models)
}

#' A judge's label for logs, records and messages: its model for one chat (as before
#' panels), `"panel(a, b, c)"` for a panel.
#' @noRd
judge_label <- function(judge) {
  if (!is_judge_panel(judge)) return(judge$get_model())
  paste0("panel(", paste(names(judge), collapse = ", "), ")")
}

# With the provider ("openai/gpt-4o"), as a log names a scorer's model.
judge_model_label <- function(judge) {
  if (!is_judge_panel(judge)) return(chat_model_label(judge))
  labels <- vapply(judge_members(judge), chat_model_label, "")
  paste0("panel(", paste(labels, collapse = ", "), ")")
}

#' Reduce a panel's verdicts by majority
#'
#' A verdict is the panel's when more than half of the members give it. Without such a
#' majority, the panel's verdict is `none` (for the arena `"tie"`, the original's verdict when
#' its two orders disagree) when every member gave a verdict, and `NA` (no verdict yet: a
#' failed request is asked again on the next run) when a member's verdict is missing and could
#' still make a majority. One member: its verdict unchanged.
#'
#' @param votes A character matrix, one row per item and one column per member (`NA` for a
#'   member without a verdict), or a vector (one member).
#' @param none The verdict when every member spoke and no verdict has a majority.
#' @returns A character vector, one verdict per row.
#' @noRd
panel_majority <- function(votes, none = "tie") {
  if (!is.matrix(votes)) votes <- matrix(votes, ncol = 1L)
  k <- ncol(votes)
  if (k == 1L) return(as.character(votes[, 1]))
  out <- rep(NA_character_, nrow(votes))
  # at most one verdict can have more than half the votes: each is looked for in turn
  for (verdict in unique(stats::na.omit(as.vector(votes)))) {
    count <- rowSums(votes == verdict, na.rm = TRUE)
    out[count > k / 2] <- verdict
  }
  spoke <- rowSums(is.na(votes)) == 0L
  out[is.na(out) & spoke] <- none
  out
}

#' Reduce a panel's scores by their mean
#'
#' @param scores A numeric matrix, one row per item and one column per member, or a vector.
#' @returns Each row's mean (`NA` where a member's score is `NA`, as one judge's `NA` is).
#' @noRd
panel_mean <- function(scores) {
  if (!is.matrix(scores)) return(as.double(scores))
  rowMeans(scores)
}

#' Each judge's own verdict, as a JSON text per item for the sample's metadata
#'
#' vitals keeps metadata flat, so a panel's verdicts are one JSON text per item (the field
#' `judges`): an array with one object per member, `{"judge": <model>, <field>: <value>,
#' ...}`, in the panel's order. `panel_judges()` reads it back as a table.
#'
#' @param models The members' names (`judge_models()`).
#' @param fields A named list of matrices (one row per item, one column per member) or
#'   vectors (one member), character, numeric or logical.
#' @returns A character vector, one JSON text per item.
#' @noRd
panel_json <- function(models, fields) {
  n <- NROW(fields[[1]])
  objects <- vapply(seq_along(models), function(j) {
    parts <- c(list(paste0("\"judge\":", json_strings(rep_len(models[[j]], n)))),
               lapply(names(fields), function(name) {
                 column <- fields[[name]]
                 value <- if (is.matrix(column)) column[, j] else column
                 paste0(json_strings(name), ":", json_value(value))
               }))
    paste0("{", do.call(paste, c(parts, sep = ",")), "}")
  }, character(n))
  if (!is.matrix(objects)) objects <- matrix(objects, nrow = n)
  # pasted column by column (not row by row): at an arena's size, rows are many
  members <- lapply(seq_len(ncol(objects)), function(j) objects[, j])
  paste0("[", do.call(paste, c(members, sep = ",")), "]")
}

json_value <- function(x) {
  if (is.logical(x)) return(ifelse(is.na(x), "null", ifelse(x, "true", "false")))
  if (is.numeric(x)) return(exact_number_json(x))
  json_strings(x)
}

# (Shared with the arena's battle records, R/arena-verdicts.R.)
# JSON string literals of `x` (`null` for NA), as jsonlite writes them: `"` and `\` escaped,
# control characters as their escapes; text with a control character other than the usual
# five is written by jsonlite itself.
json_strings <- function(x) {
  x <- enc2utf8(as.character(x))
  out <- x
  for (pair in list(c("\\", "\\\\"), c("\"", "\\\""), c("\n", "\\n"), c("\r", "\\r"),
                    c("\t", "\\t"), c("\b", "\\b"), c("\f", "\\f"))) {
    out <- gsub(pair[[1]], pair[[2]], out, fixed = TRUE)
  }
  out <- paste0("\"", out, "\"")
  odd <- !is.na(x) & grepl("[\001-\037]", out, perl = TRUE)
  out[odd] <- vapply(x[odd], function(s) as.character(jsonlite::toJSON(s, auto_unbox = TRUE)),
                     "", USE.NAMES = FALSE)
  out[is.na(x)] <- "null"
  out
}


#' Each judge's own verdicts from a panel's samples
#'
#' @param json The `judges` field of the samples' scorer metadata (or solver metadata for the
#'   arena's judging task): JSON texts from `panel_json()`, `NA` for a sample judged by one
#'   judge.
#' @returns A tibble with one row per sample and member: `sample` (its position in `json`),
#'   `judge`, then the members' fields.
#' @noRd
panel_judges <- function(json) {
  rows <- lapply(seq_along(json), function(i) {
    if (is.na(json[[i]]) || !nzchar(json[[i]])) return(NULL)
    parsed <- jsonlite::fromJSON(json[[i]], simplifyVector = TRUE)
    if (!is.data.frame(parsed) || !nrow(parsed)) return(NULL)
    cbind(tibble::tibble(sample = i), tibble::as_tibble(parsed))
  })
  rows <- Filter(Negate(is.null), rows)
  if (!length(rows)) return(tibble::tibble(sample = integer(), judge = character()))
  tibble::as_tibble(do.call(rbind, rows))
}

#' Each panel member's requests under its own model, for a sample's scorer metadata
#'
#' A panel's samples sum its members' requests in their usage fields (`input_tokens`,
#' `output_tokens`, `cost`) and carry the first member's chat (vitals wants one per sample):
#' read from those alone, a log would count every judge's tokens under the first judge's
#' model and name the scorer after it. These two fields, added to each sample's scorer
#' metadata, say whose the tokens are (R/results-usage.R reads them): `judge`, the panel's
#' label (judge_label()), and `judges_usage`, a JSON object with each member's
#' `"<provider>/<model>"` (as the log's model usage names models; members of one model summed)
#' and its `input_tokens`, `output_tokens` and `cost` (null: unknown) for the sample. Text
#' and not lists: a run keeps its finished samples' scalar metadata as columns.
#'
#' @param judge A panel (check_judge()).
#' @param input_tokens,output_tokens,cost Matrices, one row per sample and one column per
#'   member, in the panel's order.
#' @returns A list with one element per sample: a list of `judge` and `judges_usage`.
#' @noRd
panel_usage_fields <- function(judge, input_tokens, output_tokens, cost) {
  members <- judge_members(judge)
  n <- NROW(input_tokens)
  if (!n) return(list())
  as_matrix <- function(x) matrix(as.double(x), nrow = n, ncol = length(members))
  json <- judges_usage_json(vapply(members, chat_model_label, "", USE.NAMES = FALSE),
                            as_matrix(zero_na(input_tokens)), as_matrix(zero_na(output_tokens)),
                            as_matrix(cost))
  label <- judge_label(judge)
  lapply(json, function(text) list(judge = label, judges_usage = text))
}

judges_usage_json <- function(labels, input_tokens, output_tokens, cost) {
  n <- NROW(input_tokens)
  if (!n) return(character())
  input_tokens[is.na(input_tokens)] <- 0
  output_tokens[is.na(output_tokens)] <- 0
  objects <- vapply(unique(labels), function(label) {
    cols <- which(labels == label)
    sum_of <- function(x) rowSums(x[, cols, drop = FALSE])
    paste0(json_strings(label), ":{\"input_tokens\":", exact_number_json(sum_of(input_tokens)),
           ",\"output_tokens\":", exact_number_json(sum_of(output_tokens)),
           ",\"cost\":", exact_number_json(sum_of(cost)), "}")
  }, character(n))
  if (!is.matrix(objects)) objects <- matrix(objects, nrow = n)
  paste0("{", do.call(paste, c(lapply(seq_len(ncol(objects)), function(j) objects[, j]),
                               sep = ",")), "}")
}

# An arena sample's battles, say: one `judges_usage` text per group ("{}" for none).
sum_judges_usage <- function(texts, group, n) {
  rows <- judges_usage_rows(as.character(texts))
  labels <- unique(rows$models)
  if (!length(labels)) return(rep("{}", n))
  # each row's cell of a group x model matrix, summed by rowsum() (NA stays NA, as `+`)
  at <- (match(rows$models, labels) - 1L) * n + group[rows$owner]
  cell <- function(k) {
    out <- matrix(0, n, length(labels))
    sums <- rowsum(rows$usage[, k], at)
    out[as.integer(rownames(sums))] <- sums[, 1]
    out
  }
  judges_usage_json(labels, cell(1), cell(2), cell(3))
}
