# One cost preview for a whole evaluation set: estimate_cost() (R/results-estimate-cost.R) on
# every cell still to run, as the set would run it, offline; a row of its counts each.

set_cost_preview <- function(cells, outcomes, log_dir, settings) {
  dir <- tempfile("predictivebench-preview-")
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  rows <- lapply(seq_along(cells), function(i) {
    cell <- cells[[i]]
    done <- !is.null(outcomes[[i]])
    estimate <- if (done) price_row() else {
      task <- cell_task(cell, dir)
      chat <- cell$chat %||% chat_from_spec(cell$model)
      do.call(estimate_cost, c(list(task, chat, epochs = cell$epochs), preview_settings(settings)))
    }
    tibble::tibble(benchmark = cell$benchmark$label, model = cell$label, cell_id = cell$id,
                   status = if (done) "done" else "to run", estimate[price_count_names])
  })
  do.call(rbind, rows)
}

# The request settings as $eval() takes them (a setting left to its default is not passed),
# without the set's run: the preview pays for nothing.
preview_settings <- function(settings) {
  Filter(Negate(is.null), unclass(settings)[request_setting_names()])
}

# Refuses to start a set whose cells to run may cost more than `max_cost` dollars, or whose
# cost can't be bounded (a model without a known price, or no max_tokens).
check_max_cost <- function(preview, max_cost, call = rlang::caller_env()) {
  if (is.null(max_cost)) return(invisible(preview))
  paying <- preview[preview$to_send > 0, , drop = FALSE]
  unknown <- paying[is.na(paying$cost_max), , drop = FALSE]
  if (nrow(unknown)) {
    cells <- paste(unknown$benchmark, "x", unknown$model)
    abort_pb(c("Can't keep the set under {.arg max_cost}: the cost of {length(cells)} cell{?s}
                is unknown ({.val {cells}}).",
               i = "A price needs a model in ellmer's price table and a bound on each answer
                    (the solver's {.code params = ellmer::params(max_tokens = )})."),
             "cost", call = call)
  }
  total <- sum(paying$cost_max)
  if (total > max_cost) {
    most <- format_dollars(total)
    limit <- format_dollars(max_cost)
    abort_pb(c("The set may cost up to {most}, above {.arg max_cost} = {limit}: nothing was
                sent.",
               i = "See {.code eval_set(..., options = set_options(dry_run = TRUE))} for the cost of each cell."),
             "cost", call = call)
  }
  invisible(preview)
}

# Money as a message shows it: cents from a dollar up ("$0.12"), 4 significant digits below
# (cents would show small requests as $0.00).
format_dollars <- function(x) {
  x <- ifelse(abs(x) < 1, signif(x, 4), round(x, 2))
  small <- is.finite(x) & x > 0 & x < 1
  digits <- ifelse(small, 3L - floor(log10(ifelse(small, x, 1))), 2L)
  out <- vapply(seq_along(x), function(i) {
    formatC(x[[i]], format = "f", digits = digits[[i]], big.mark = ",",
            drop0trailing = small[[i]])
  }, "")
  paste0("$", out)
}
