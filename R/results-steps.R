# A step of a run, as vitals' `Task` runs it: its arguments (routed by name), its call (each
# argument a variable of its own name) and its record (name and arguments as text, as
# vitals' logged() makes it), and its token usage in vitals' shape.

# `$eval()`'s named arguments split between the solver and the scorer, as vitals documents
# it: each argument goes to every step whose formals name it; one neither names goes to each
# step that has `...`, and is an error when neither has.
split_eval_args <- function(dots, solver, scorer, call = rlang::caller_env()) {
  formals_of <- list(solver = names(formals(solver)), scorer = names(formals(scorer)))
  split <- list(solver = list(), scorer = list())
  for (name in names(dots)) {
    named <- vapply(formals_of, function(f) name %in% f, TRUE)
    takes <- if (any(named)) named else vapply(formals_of, function(f) "..." %in% f, TRUE)
    if (!any(takes)) {
      abort_pb("Argument {.arg {name}} does not match any parameter in the solver or scorer
                functions.", "argument", field = name, call = call)
    }
    for (step in names(split)[takes]) split[[step]][[name]] <- dots[[name]]
  }
  split
}

# `fn(name = name, ...)`: each argument passed as a variable of its own name (an unnamed one
# as `.arg<position>`), never as its value. vitals' `$eval()` hands the solver and scorer
# their arguments through do.call(), values inlined, and deparses the expressions it is
# given (for the log's plan): a chat deparsed that way costs ~15 ms of CPU a step. The
# log's plan shows describe_arguments() instead.
# The call's head is a name (`.name`, the Task method the user knows: `solve()`) bound to
# `fn` in the call's own environment, dotted until no argument has it, so a traceback shows
# the method, not the function's code.
call_with_names <- function(fn, args, ..., .name = "fn") {
  keys <- rlang::names2(args)
  vars <- keys
  vars[!nzchar(vars)] <- paste0(".arg", which(!nzchar(vars)))
  vars <- make.unique(vars)
  while (.name %in% vars) .name <- paste0(".", .name)
  env <- list2env(stats::setNames(args, vars), parent = emptyenv())
  assign(.name, fn, envir = env)
  call <- as.call(c(list(as.name(.name)), stats::setNames(lapply(vars, as.name), keys),
                    list(...)))
  eval(call, env)
}

# What the log's plan shows of each argument the solver got: a short value as R code, an
# object by its class (`"<Chat>"`), never its contents (a chat holds credentials).
describe_arguments <- function(args) {
  lapply(args, function(x) {
    if (is.null(x)) return("NULL")
    if (is.atomic(x) && length(x) <= 5 && is.null(attributes(x))) {
      return(paste(deparse(x), collapse = " "))
    }
    paste0("<", class(x)[[1]], ">")
  })
}

# A step's call recorded as vitals' logged(fn, fn_name) records it: the result with the
# step's name and its arguments' expressions as text (each deparsed once per session:
# rlang::expr_deparse() costs ~6 ms a call).
fast_logged <- function(fn, fn_name) {
  force(fn)
  force(fn_name)
  function(...) {
    arguments <- lapply(rlang::enexprs(...), deparse_step_argument)
    list(name = paste0(fn_name, collapse = ""), value = fn(...), arguments = arguments)
  }
}

# rlang::expr_deparse(expr), remembered for expressions made only of names, calls and
# scalar constants (whose base R deparse identifies them); other values are deparsed
# each time.
the_deparsed_arguments <- new.env(parent = emptyenv())

deparse_step_argument <- function(expr) {
  if (!is_plain_language(expr)) return(rlang::expr_deparse(expr))
  key <- paste(deparse(expr, control = c("keepInteger", "keepNA", "niceNames",
                                         "showAttributes")), collapse = "\n")
  the_deparsed_arguments[[key]] %||%
    (the_deparsed_arguments[[key]] <- rlang::expr_deparse(expr))
}

is_plain_language <- function(x) {
  if (is.symbol(x)) return(TRUE)
  if (is.atomic(x)) return(length(x) <= 1 && is.null(attributes(x)))
  if (!is.call(x)) return(FALSE)
  for (i in seq_along(x)) {
    if (identical(x[[i]], quote(expr = ))) next
    if (!is_plain_language(x[[i]])) return(FALSE)
  }
  TRUE
}

# A tally as vitals' diff_token_usage() gives a step's usage: a tibble with the price as
# text (`"$0.12"`), rows with tokens only.
token_table <- function(tally) {
  if (is.null(tally) || !nrow(tally)) {
    return(tibble::tibble(provider = character(), model = character(), input = double(),
                          output = double(), price = character()))
  }
  tibble::tibble(provider = tally$provider, model = tally$model, input = tally$input,
                 output = tally$output,
                 price = ifelse(is.na(tally$price), NA_character_,
                                sprintf("$%.2f", tally$price)))
}
