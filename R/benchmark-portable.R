# A registration that travels: what a mirai daemon needs to run a benchmark registered in
# the user's session. A worker loads the package, so it knows the package's own benchmarks,
# but not one the user registered with new_benchmark() (the vignette's toy), nor what that
# registration's functions use from the user's global environment: R serializes the global
# environment as a reference to the worker's own, where `toy_questions` (or the attached
# package's `benchmark_task()`) is not found. portable_registration() copies those globals
# along; local_registrations() installs the copies in the worker while its cells run.

# The registration of `name` ready for a worker (NULL when none is registered).
portable_registration <- function(name) {
  reg <- registration(name)
  if (is.null(reg)) return(NULL)
  # a summary given by name is looked up here, where the user's globals are
  if (rlang::is_string(reg$summary)) {
    reg$summary <- tryCatch(summary_function(reg$summary), error = function(e) reg$summary)
  }
  fields <- names(reg)[vapply(reg, is.function, TRUE)]
  reg[fields] <- portable_functions(reg[fields])
  reg
}

# The functions with, in place of the global environment, one environment holding every
# global they use (found by name, transitively through the global functions they call; base
# R is the worker's own). The functions of a package namespace travel as they are: R
# serializes a namespace by name and the worker loads it.
portable_functions <- function(fns) {
  shared <- new.env(parent = globalenv())
  queue <- Filter(is_global_closure, fns)
  seen <- character()
  while (length(queue)) {
    f <- queue[[1]]
    queue <- queue[-1]
    for (name in setdiff(free_names(f), seen)) {
      seen <- c(seen, name)
      where <- global_binding(name)
      if (is.null(where)) next
      value <- get(name, envir = where, inherits = FALSE)
      if (is_global_closure(value)) queue <- c(queue, value)
      assign(name, value, envir = shared)
    }
  }
  rehome <- function(f) {
    if (is_global_closure(f)) environment(f) <- shared
    f
  }
  for (name in ls(shared, all.names = TRUE)) {
    assign(name, rehome(get(name, envir = shared)), envir = shared)
  }
  lapply(fns, rehome)
}

is_global_closure <- function(x) {
  is.function(x) && !is.primitive(x) && identical(environment(x), globalenv())
}

# Every name a function's body and defaults mention but its arguments: a superset of its
# free variables (a local variable that is also a global is copied needlessly, never
# missed).
free_names <- function(f) {
  defaults <- Filter(Negate(is.symbol), as.list(formals(f)))
  used <- unique(c(all.names(body(f)), unlist(lapply(defaults, all.names))))
  setdiff(used, names(formals(f)))
}

# The environment on the global search path where `name` is bound, or NULL when it is not,
# or only in base R (which every worker has).
global_binding <- function(name) {
  env <- globalenv()
  while (!identical(env, emptyenv())) {
    if (identical(env, baseenv())) return(NULL)
    if (exists(name, envir = env, inherits = FALSE)) return(env)
    env <- parent.env(env)
  }
  NULL
}

# Installs the registrations shipped with a worker's cells (one per name) for the caller's
# duration, then puts back what the worker had: a daemon serves later sets too.
local_registrations <- function(entries, env = parent.frame()) {
  force(env)
  entries <- Filter(Negate(is.null), entries)
  entries <- entries[!duplicated(vapply(entries, `[[`, "", "name"))]
  for (reg in entries) {
    defer_restore(reg$name, the_benchmarks[[reg$name]], env)
    the_benchmarks[[reg$name]] <- as_benchmark(reg)
  }
  invisible(entries)
}

# (a function of its own, so that each deferred call holds its own name and registration)
defer_restore <- function(name, old, env) {
  force(name)
  force(old)
  withr::defer(restore_registration(name, old), envir = env)
}

restore_registration <- function(name, old) {
  if (is.null(old)) {
    if (exists(name, envir = the_benchmarks, inherits = FALSE)) {
      rm(list = name, envir = the_benchmarks)
    }
  } else {
    the_benchmarks[[name]] <- old
  }
}
